/* rec_clock — see rec_clock.h. */
#include "rec_clock.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "btdds_cdr.h"
#include "btdds_raw.h"

/* A step back of /clock larger than this is said: a simulator's reset, or
 * a second simulation (a small one is jitter between publishers). */
#define REC_CLOCK_BACK_NS INT64_C(1000000000)

struct rec_clock {
	dds_entity_t reader;
	_Atomic int64_t now; /* the last /clock time, 0 until the first */
	atomic_uint_fast64_t bad;
};

/* builtin_interfaces/Time { int32 sec; uint32 nanosec }, plain CDR; -1
 * when it is not a valid time. */
static int64_t clock_decode(const struct btdds_raw_sample *s)
{
	struct btdds_cdr_rd r;
	if (btdds_cdr_rd_init(&r, s->data, s->len) != BT_OK)
		return -1;
	int32_t sec = (int32_t)btdds_cdr_u32(&r);
	uint32_t nsec = btdds_cdr_u32(&r);
	if (!btdds_cdr_ok(&r) || sec < 0 || nsec >= 1000000000u)
		return -1;
	return (int64_t)sec * 1000000000 + nsec;
}

static bool clock_sample(void *arg, const struct btdds_raw_sample *s)
{
	struct rec_clock *c = arg;
	int64_t t = clock_decode(s);
	if (t < 0)
		atomic_fetch_add_explicit(&c->bad, 1, memory_order_relaxed);
	if (t <= 0) /* 0: ROS's time not started yet, as a simulator's first tick may say */
		return true;
	int64_t was = atomic_exchange_explicit(&c->now, t, memory_order_relaxed);
	if (was == 0)
		bt_log_info("/clock: simulation time started at %.3f s: recording "
			    "(--use-sim-time)",
			    (double)t / 1e9);
	else if (t < was - REC_CLOCK_BACK_NS)
		bt_log_warn("/clock: simulation time went back from %.3f s to %.3f s (a reset?): "
			    "what comes now is stamped before what was recorded",
			    (double)was / 1e9, (double)t / 1e9);
	return true;
}

static void clock_on_data(dds_entity_t reader, void *arg)
{
	(void)btdds_raw_take(reader, clock_sample, arg);
}

bt_status rec_clock_start_sim(dds_entity_t pp, struct rec_clock **out, struct bt_error *err)
{
	struct rec_clock *c = bt_xcalloc(1, sizeof *c);
	atomic_init(&c->now, 0);
	atomic_init(&c->bad, 0);
	dds_entity_t tp = btdds_raw_topic_create(pp, REC_CLOCK_TOPIC, REC_CLOCK_TYPE, false);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_listener_t *l = dds_create_listener(c);
	dds_lset_data_available(l, clock_on_data);
	c->reader = tp < 0 ? tp : dds_create_reader(pp, tp, q, l);
	dds_delete_listener(l);
	dds_delete_qos(q);
	if (c->reader < 0) {
		bt_status st = bt_err_set(err, BT_ERR_DDS, "cannot subscribe to /clock: %s",
					  dds_strretcode(c->reader));
		free(c);
		return st;
	}
	bt_log_info("--use-sim-time: nothing is recorded until the first /clock message");
	*out = c;
	return BT_OK;
}

int64_t rec_clock_now(const struct rec_clock *c)
{
	if (c == NULL)
		return bt_time_realtime_ns();
	return atomic_load_explicit(&((struct rec_clock *)c)->now, memory_order_relaxed);
}

uint64_t rec_clock_bad(const struct rec_clock *c)
{
	return c == NULL ? 0 : atomic_load_explicit(&((struct rec_clock *)c)->bad,
						     memory_order_relaxed);
}

void rec_clock_free(struct rec_clock *c)
{
	if (c == NULL)
		return;
	(void)dds_delete(c->reader);
	free(c);
}
