/* DESIGN: one thread ("rec-stats") wakes one update period (CLOCK_MONOTONIC)
 * after its previous wake-up, reads every topic's relaxed atomics once into
 * one Statistics sample and writes it; in the same tick it compares each
 * topic's loss counters with the values of the previous loss event and
 * writes one LossEvent when any changed. Consecutive ticks are never less
 * than a period apart (a late tick is not caught up), so each DDS topic
 * gets at most update_rate samples per second (plus the final one).
 *
 * The samples' buffers and the per-topic state (`slots`) belong to the
 * thread while it runs and to the owner after stop (pthread_join orders
 * the two). Topic names are lent to the samples: rec_topics strings are
 * immutable and live as long as the table. Buffers grow with plain
 * realloc: when that fails the tick is skipped, never the recorder.
 *
 * Writes: KEEP_LAST writers with a 100 ms max_blocking_time; a write that
 * times out (a stuck reliable reader) is counted and logged once.
 *
 * Thread: a bt_sync_ticker ("rec-stats"); its lock, the only one, guards
 * only its stop flag and is never held across DDS. */
#include "rec_stats_pub.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "BagtopStats.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "bt_time.h"
#include "rec_rates.h"

#define STATS_BLOCK_MS 100
#define STATS_LOSS_DEPTH 16
#define STATS_MIN_PERIOD_NS INT64_C(1000000) /* 1000 Hz: far above the option's limit */
/* 1000 s: the option's lower limit; keeps deadlines far from overflow. */
#define STATS_MAX_PERIOD_NS (INT64_C(1000) * BT_NS_PER_S)

/* Per-topic state kept between ticks (indexed by topic index). */
struct stats_slot {
	bagtop_stats_LossCounts last; /* totals at the previous loss event */
};

struct rec_stats_pub {
	struct rec_stats_pub_options opt;
	char *bag, *version, host[256], id[33];
	dds_entity_t topic, loss_topic, wr, loss_wr;
	int64_t start_mono, start_real;
	/* tick state: the thread's while it runs, the owner's after stop */
	struct stats_slot *slots;
	bagtop_stats_TopicStatistics *rows;
	bagtop_stats_TopicLoss *losses;
	size_t cap;
	struct rec_status status; /* ~4 KiB, filled each tick */
	uint64_t serial, loss_serial;
	bool write_warned, final_written;
	struct bt_sync_ticker tk;
};

static uint64_t ld(atomic_uint_fast64_t *a)
{
	return atomic_load_explicit(a, memory_order_relaxed);
}

/* Room for n topics in every per-topic array; false when memory ran out. */
static bool stats_reserve(struct rec_stats_pub *p, size_t n)
{
	if (n <= p->cap)
		return true;
	size_t cap = n < 2 * p->cap ? 2 * p->cap : n;
	void *s = realloc(p->slots, cap * sizeof *p->slots);
	if (s == NULL)
		return false;
	p->slots = s;
	memset(p->slots + p->cap, 0, (cap - p->cap) * sizeof *p->slots);
	void *r = realloc(p->rows, cap * sizeof *p->rows);
	if (r == NULL)
		return false;
	p->rows = r;
	void *l = realloc(p->losses, cap * sizeof *p->losses);
	if (l == NULL)
		return false;
	p->losses = l;

	p->cap = cap;
	return true;
}

static double stats_per_s(uint64_t d, int64_t ns)
{
	return ns > 0 ? (double)d * 1e9 / (double)ns : 0.0;
}

/* The rates: rec_rates' window, the one the live view and the status
 * lines show (rec_rates_fn). */
static void stats_rates(void *ctx, size_t i, const struct rec_rate_row *r)
{
	bagtop_stats_TopicStatistics *row = &((struct rec_stats_pub *)ctx)->rows[i];
	row->rate_hz = r->received_hz;
	row->bandwidth_bps = r->committed_bps;
}

/* The IDL's names for the table's causes. */
static bagtop_stats_LossCounts stats_loss_counts(const struct bag_losses *l)
{
	return (bagtop_stats_LossCounts){
#define STATS_X_COUNT(field, yaml, idl, json, label, col, group, required) .idl = l->field,
		BAG_LOSS_CAUSES(STATS_X_COUNT)
#undef STATS_X_COUNT
	};
}

static void stats_row(struct rec_topic *tp, bagtop_stats_TopicStatistics *row)
{
	struct rec_topic_stats *c = &tp->st;
	memset(row, 0, sizeof *row);
	row->name = tp->names.name;
	row->type = tp->names.type;
	row->dds_name = tp->names.dds_name;
	row->publishers = atomic_load_explicit(&tp->publishers, memory_order_relaxed);
	row->subscribed = atomic_load_explicit(&tp->subscribed, memory_order_acquire);
	row->enabled = atomic_load_explicit(&tp->enabled, memory_order_relaxed);
	row->reliable = atomic_load_explicit(&tp->reliable, memory_order_relaxed);
	row->transient_local = atomic_load_explicit(&tp->transient_local, memory_order_relaxed);
	row->received = ld(&c->received);
	row->recorded = ld(&c->recorded);
	row->bytes = ld(&c->bytes);
	struct bag_losses l = rec_topic_losses(c);
	row->lost = stats_loss_counts(&l);
	row->lost_in_transport_total = bag_losses_transport(&l);
	row->lost_in_recorder_total = bag_losses_recorder(&l);
	row->file_received = rec_topic_file_received(c);
	row->last_receive_time = atomic_load_explicit(&c->last_recv_time, memory_order_relaxed);
	row->file_recorded = ld(&c->file_recorded);
	row->file_bytes = ld(&c->file_bytes);
	row->file_lost_in_transport = ld(&c->file_lost_transport);
	row->file_lost_in_recorder = ld(&c->file_lost_recorder);
	row->throttled = l.throttled;
}

static void stats_add_totals(bagtop_stats_Totals *t, const bagtop_stats_TopicStatistics *row)
{
	t->topics_seen++;
	t->topics_recorded += row->subscribed ? 1u : 0u;
	t->received += row->received;
	t->recorded += row->recorded;
	t->bytes += row->bytes;
	t->lost_in_transport += row->lost_in_transport_total;
	t->lost_in_recorder += row->lost_in_recorder_total;
	t->throttled += row->throttled;
}

static bool stats_loss_changed(const bagtop_stats_LossCounts *a, const bagtop_stats_LossCounts *b)
{
	return memcmp(a, b, sizeof *a) != 0;
}

static bagtop_stats_LossCounts stats_loss_delta(const bagtop_stats_LossCounts *now,
						const bagtop_stats_LossCounts *then)
{
	return (bagtop_stats_LossCounts){
#define STATS_X_DELTA(field, yaml, idl, json, label, col, group, required) \
	.idl = now->idl - then->idl,
		BAG_LOSS_CAUSES(STATS_X_DELTA)
#undef STATS_X_DELTA
	};
}

static void stats_write(struct rec_stats_pub *p, dds_entity_t wr, const void *sample)
{
	dds_return_t rc = dds_write(wr, sample);
	if (rc >= 0)
		return;
	if (!p->write_warned)
		bt_log_warn("live statistics: a DDS write failed (%s); going on",
			    dds_strretcode(rc));
	p->write_warned = true;
}

/* The loss event of this tick: the topics whose loss counters moved. */
static void stats_loss_event(struct rec_stats_pub *p, size_t n, int64_t now)
{
	uint32_t k = 0;
	for (size_t i = 0; i < n; i++) {
		const bagtop_stats_TopicStatistics *row = &p->rows[i];
		struct stats_slot *s = &p->slots[i];
		if (!stats_loss_changed(&row->lost, &s->last))
			continue;
		p->losses[k++] = (bagtop_stats_TopicLoss){row->name, row->type,
							  stats_loss_delta(&row->lost, &s->last),
							  row->lost};
		s->last = row->lost;
	}
	if (k == 0)
		return;
	bagtop_stats_LossEvent ev = {p->id, now, p->loss_serial++, {k, k, p->losses, false}};
	stats_write(p, p->loss_wr, &ev);
}

static bagtop_stats_RecorderState stats_state(const struct rec_status *st, bool final)
{
	if (final)
		return bagtop_stats_STOPPED;
	if (st->write_failed)
		return bagtop_stats_WRITE_FAILED;
	return st->paused ? bagtop_stats_PAUSED : bagtop_stats_RECORDING;
}

/* The owner's view now. Once its writer thread is gone a recorder no
 * longer knows its file: the final sample keeps the last one seen. */
static struct rec_status *stats_status(struct rec_stats_pub *p, bool final)
{
	struct rec_status now;
	memset(&now, 0, sizeof now);
	if (p->opt.status != NULL)
		p->opt.status(p->opt.status_ctx, &now);
	if (final && now.current_file[0] == '\0') {
		memcpy(now.current_file, p->status.current_file, sizeof now.current_file);
		now.file_index = p->status.file_index;
		now.file_start = p->status.file_start;
	}
	p->status = now;
	return &p->status;
}

/* Reads every counter once, writes the statistics, then the loss event. */
static void stats_tick(struct rec_stats_pub *p, bool final)
{
	const struct rec_topics *topics = p->opt.topics;
	size_t n = rec_topics_count(topics);
	if (!stats_reserve(p, n))
		return; /* no memory for this tick: the next one may have it */
	struct rec_status *st = stats_status(p, final);
	int64_t mono = bt_time_monotonic_ns(), now = bt_time_realtime_ns();
	bagtop_stats_Statistics s = {
		.recorder_id = p->id, .host = p->host, .pid = (int32_t)getpid(),
		.version = p->version, .start_time = p->start_real, .time = now,
		.serial = p->serial++, .update_rate = p->opt.update_rate, .bag = p->bag,
		.state = stats_state(st, final), .current_file = st->current_file,
		.file_index = (uint32_t)st->file_index, .file_start_time = st->file_start,
		.totals = {.cache_fill = st->cache_fill, .cache_max = st->cache_max},
		.topics = {(uint32_t)n, (uint32_t)n, p->rows, false}};
	for (size_t i = 0; i < n; i++)
		stats_row(rec_topics_get(topics, i), &p->rows[i]);
	rec_rates_get(p->opt.rates, mono, n, stats_rates, p, NULL);
	for (size_t i = 0; i < n; i++) {
		p->rows[i].average_rate_hz = stats_per_s(p->rows[i].received, mono - p->start_mono);
		p->rows[i].file_average_rate_hz =
			st->file_start > 0 ? stats_per_s(p->rows[i].file_received, now - st->file_start)
					   : 0.0;
		stats_add_totals(&s.totals, &p->rows[i]);
	}
	stats_write(p, p->wr, &s);
	stats_loss_event(p, n, now);
}

/* ---- the thread ---- */

/* The ticker's callback; nothing wakes it early, so `due` is false only
 * after a failed wait (logged), and then there is nothing to do. */
static void stats_on_tick(void *arg, bool due)
{
	if (due)
		stats_tick(arg, false);
}

/* ---- set-up ---- */

static dds_qos_t *stats_qos(bool transient_local, int32_t depth)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(STATS_BLOCK_MS));
	if (transient_local) {
		dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
		dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, 1, DDS_LENGTH_UNLIMITED,
					    DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
	}
	return q;
}

static bt_status stats_writer(dds_entity_t pp, const dds_topic_descriptor_t *desc,
			      const char *name, dds_qos_t *q, dds_entity_t *topic, dds_entity_t *wr,
			      struct bt_error *err)
{
	*topic = dds_create_topic(pp, desc, name, q, NULL);
	*wr = *topic < 0 ? *topic : dds_create_writer(pp, *topic, q, NULL);
	dds_delete_qos(q);
	if (*wr >= 0)
		return BT_OK;
	bt_status st = bt_err_set(err, BT_ERR_DDS, "live statistics: cannot create the %s %s: %s",
				  *topic < 0 ? "topic" : "writer of", name, dds_strretcode(*wr));
	if (*topic > 0)
		(void)dds_delete(*topic);
	*topic = *wr = 0;
	return st;
}

static bt_status stats_entities(struct rec_stats_pub *p, struct bt_error *err)
{
	dds_entity_t pp = p->opt.participant;
	dds_guid_t g;
	dds_return_t rc = dds_get_guid(pp, &g);
	if (rc < 0)
		return bt_err_set(err, BT_ERR_DDS, "live statistics: no participant: %s",
				  dds_strretcode(rc));
	for (int i = 0; i < 16; i++)
		snprintf(p->id + 2 * i, 3, "%02x", g.v[i]);
	bt_status st = stats_writer(pp, &bagtop_stats_Statistics_desc, REC_STATS_TOPIC,
				    stats_qos(true, 1), &p->topic, &p->wr, err);
	if (st == BT_OK)
		st = stats_writer(pp, &bagtop_stats_LossEvent_desc, REC_STATS_LOSS_TOPIC,
				  stats_qos(false, STATS_LOSS_DEPTH), &p->loss_topic, &p->loss_wr,
				  err);
	return st;
}

static void stats_delete(struct rec_stats_pub *p)
{
	/* Writers first: their topics cannot go while a writer uses them. */
	dds_entity_t es[4] = {p->loss_wr, p->wr, p->loss_topic, p->topic};
	for (int i = 0; i < 4; i++)
		if (es[i] > 0)
			(void)dds_delete(es[i]);
	free(p->slots);
	free(p->rows);
	free(p->losses);
	free(p->bag);
	free(p->version);
	bt_sync_ticker_fini(&p->tk);
	free(p);
}

static struct rec_stats_pub *stats_new(const struct rec_stats_pub_options *opt)
{
	struct rec_stats_pub *p = bt_xcalloc(1, sizeof *p);
	p->opt = *opt;
	p->bag = bt_xstrdup(opt->bag ? opt->bag : "");
	p->version = bt_xstrdup(opt->version ? opt->version : "");
	p->opt.bag = p->opt.version = NULL; /* not borrowed past start */
	if (gethostname(p->host, sizeof p->host - 1) != 0)
		snprintf(p->host, sizeof p->host, "unknown");
	p->start_mono = bt_time_monotonic_ns();
	p->start_real = bt_time_realtime_ns();
	int64_t period =
		bt_time_period_ns(opt->update_rate, STATS_MIN_PERIOD_NS, STATS_MAX_PERIOD_NS);
	bt_sync_ticker_init(&p->tk, "rec-stats", period, stats_on_tick, p);
	return p;
}

bt_status rec_stats_pub_start(const struct rec_stats_pub_options *opt, struct rec_stats_pub **out,
			      struct bt_error *err)
{
	if (!(opt->update_rate > 0.0) || opt->topics == NULL)
		return bt_err_set(err, BT_ERR_USAGE, "live statistics: update rate must be > 0 Hz");
	if (opt->rates == NULL)
		return bt_err_set(err, BT_ERR_USAGE, "live statistics: no rates to publish");
	struct rec_stats_pub *p = stats_new(opt);
	bt_status st = stats_entities(p, err);
	if (st != BT_OK)
		goto err_entities;
	stats_tick(p, false); /* a late joiner has something at once */
	int rc = bt_sync_ticker_start(&p->tk);
	if (rc != 0) {
		st = bt_err_set(err, BT_ERR_STATE, "cannot start the statistics thread: %s",
				strerror(rc));
		goto err_entities;
	}
	*out = p;
	return BT_OK;
err_entities:
	stats_delete(p);
	return st;
}

void rec_stats_pub_stop(struct rec_stats_pub *p)
{
	if (p != NULL)
		(void)bt_sync_ticker_stop(&p->tk);
}

void rec_stats_pub_write_final(struct rec_stats_pub *p)
{
	if (p == NULL || p->final_written)
		return;
	rec_stats_pub_stop(p);
	stats_tick(p, true);
	p->final_written = true;
}

const char *rec_stats_pub_id(const struct rec_stats_pub *p)
{
	return p->id;
}

void rec_stats_pub_free(struct rec_stats_pub *p)
{
	if (p == NULL)
		return;
	rec_stats_pub_stop(p);
	stats_delete(p);
}
