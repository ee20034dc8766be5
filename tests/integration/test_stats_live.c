/* The live statistics on DDS, end to end: rec_stats_pub runs in this
 * process on a synthetic topic table (its own participant and rec_topics,
 * counters set by hand, as the recorder's threads would), and the real
 * `bagtop stats` binary reads them; readers in this process count what is
 * published on each topic; and, once the recorder publishes them, a real
 * `bagtop record`. Loopback-only DDS domains 140..147 (ctest sets
 * CYCLONEDDS_URI). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "BagtopStats.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "rec_stats_pub.h"
#include "rec_topics.h"
#include "test_util.h"

/* ---- a synthetic recorder ---- */

struct fake {
	dds_entity_t pp;
	struct rec_topics *topics;
	struct rec_rates *rates;
	struct rec_topic *chatter, *imu;
	struct rec_stats_pub *pub;
	pthread_mutex_t mu;       /* the status is read by "rec-stats" */
	struct rec_status status; /* what the status callback reports */
};

static void fake_status(void *ctx, struct rec_status *st)
{
	struct fake *f = ctx;
	pthread_mutex_lock(&f->mu);
	*st = f->status;
	pthread_mutex_unlock(&f->mu);
}

static void fake_pause(struct fake *f, bool paused)
{
	pthread_mutex_lock(&f->mu);
	f->status.paused = paused;
	pthread_mutex_unlock(&f->mu);
}

static void set(atomic_uint_fast64_t *a, uint64_t v)
{
	atomic_store_explicit(a, v, memory_order_relaxed);
}

static struct rec_topic *fake_topic(struct fake *f, const char *dds_name, const char *dds_type)
{
	struct rec_topic *tp = rec_topics_add(f->topics, dds_name, dds_type, false);
	assert_non_null(tp);
	atomic_store(&tp->publishers, 1u);
	atomic_store(&tp->reliable, true);
	atomic_store(&tp->enabled, true);
	atomic_store(&tp->described, true);
	atomic_store(&tp->subscribed, true);
	return tp;
}

static void fake_start(struct fake *f, int domain, double rate)
{
	memset(f, 0, sizeof *f);
	assert_int_equal(pthread_mutex_init(&f->mu, NULL), 0);
	f->pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	assert_true(f->pp > 0);
	f->topics = rec_topics_new();
	f->chatter = fake_topic(f, "rt/chatter", "std_msgs::msg::dds_::String_");
	f->imu = fake_topic(f, "rt/imu", "sensor_msgs::msg::dds_::Imu_");
	f->rates = rec_rates_new(f->topics);
	snprintf(f->status.current_file, sizeof f->status.current_file, "/tmp/bag/bag_3.db3");
	f->status.file_index = 3;
	f->status.cache_max = 1000;
	struct rec_stats_pub_options o = {.participant = f->pp, .topics = f->topics,
					  .update_rate = rate, .bag = "/tmp/bag",
					  .version = "9.9.9",
					  .status = fake_status, .status_ctx = f, .rates = f->rates};
	struct bt_error err;
	if (rec_stats_pub_start(&o, &f->pub, &err) != BT_OK)
		fail_msg("rec_stats_pub_start: %s", err.msg);
}

static void fake_stop(struct fake *f)
{
	rec_stats_pub_write_final(f->pub);
	rec_stats_pub_free(f->pub);
	assert_int_equal(dds_delete(f->pp), 0);
	rec_rates_free(f->rates);
	rec_topics_free(f->topics);
	pthread_mutex_destroy(&f->mu);
}

/* ---- reading `bagtop stats --json` ---- */

/* The object that starts with `"name":"<name>"` (a topic row), or the
 * whole text for name NULL. */
static const char *json_row(const char *text, const char *name)
{
	if (name == NULL)
		return text;
	char *key = bt_xasprintf("{\"name\":\"%s\"", name);
	const char *p = strstr(text, key);
	free(key);
	if (p == NULL)
		fail_msg("no row for %s in: %s", name, text);
	return p;
}

/* Where the value of "key" starts: in the row (the first occurrence after
 * it). */
static const char *json_at(const char *text, const char *name, const char *key)
{
	const char *row = json_row(text, name);
	char *k = bt_xasprintf("\"%s\":", key);
	const char *p = strstr(row, k);
	size_t kl = strlen(k);
	free(k);
	if (p == NULL)
		fail_msg("no %s in: %s", key, row);
	return p + kl;
}

static unsigned long long json_u64(const char *text, const char *name, const char *key)
{
	return strtoull(json_at(text, name, key), NULL, 10);
}

static double json_dbl(const char *text, const char *name, const char *key)
{
	return strtod(json_at(text, name, key), NULL);
}

/* `bagtop stats --json` into the caller's *out: not into a local of ours
 * whose address tu_bagtop gets, as gcc 12 at -O3 then cannot tell the text
 * from that local and reports a dangling pointer where it is read. */
static void stats_json(int domain, int want_rc, char **out)
{
	char dom[16];
	*out = NULL;
	snprintf(dom, sizeof dom, "%d", domain);
	int rc = tu_bagtop(out, "stats", "--domain", dom, "--json", "--timeout", "10", NULL);
	if (rc != want_rc)
		fail_msg("bagtop stats exit %d: %s", rc, *out);
}

static void set_chatter(struct fake *f, uint64_t base)
{
	struct rec_topic_stats *s = &f->chatter->st;
	set(&s->received, base + 66);
	set(&s->recorded, base);
	set(&s->bytes, 50 * base);
	set(&s->lost_transport, 7);
	set(&s->rejected, 2);
	set(&s->lost_cache, 50);
	set(&s->lost_compression, 5);
	set(&s->lost_toobig, 3);
	set(&s->lost_write, 4);
	set(&s->file_recorded, base / 2);
	set(&s->file_bytes, 25 * base);
	set(&s->file_lost_transport, 3);
	set(&s->file_lost_recorder, 6);
	set(&s->file_received_base, base); /* the file opened `base` messages in */
}

static void check_chatter(const char *out, uint64_t base)
{
	assert_int_equal(json_u64(out, "/chatter", "received"), base + 66);
	assert_int_equal(json_u64(out, "/chatter", "recorded"), base);
	assert_int_equal(json_u64(out, "/chatter", "bytes"), 50 * base);
	assert_int_equal(json_u64(out, "/chatter", "transport"), 7);
	assert_int_equal(json_u64(out, "/chatter", "rejected"), 2);
	assert_int_equal(json_u64(out, "/chatter", "cache_overflow"), 50);
	assert_int_equal(json_u64(out, "/chatter", "compression_overflow"), 5);
	assert_int_equal(json_u64(out, "/chatter", "too_large"), 3);
	assert_int_equal(json_u64(out, "/chatter", "write_failure"), 4);
	assert_int_equal(json_u64(out, "/chatter", "lost_in_transport"), 9);
	assert_int_equal(json_u64(out, "/chatter", "lost_in_recorder"), 62);
	assert_int_equal(json_u64(out, "/chatter", "file_received"), 66);
	assert_int_equal(json_u64(out, "/chatter", "file_recorded"), base / 2);
	assert_int_equal(json_u64(out, "/chatter", "file_bytes"), 25 * base);
	assert_int_equal(json_u64(out, "/chatter", "file_lost_in_transport"), 3);
	assert_int_equal(json_u64(out, "/chatter", "file_lost_in_recorder"), 6);
	assert_int_equal(json_u64(out, "/imu", "recorded"), 10);
	assert_int_equal(json_u64(out, NULL, "recorded"), base + 10); /* totals come first */
}

/* 1. `bagtop stats --json` shows exactly the counters, follows them within
 * an update period, and ends with the final sample (state stopped). */
static void test_stats_counts(void **state)
{
	(void)state;
	struct fake f;
	fake_start(&f, 140, 2.0);
	set_chatter(&f, 1234);
	set(&f.imu->st.received, 10);
	set(&f.imu->st.recorded, 10);
	rec_sleep(1.2); /* more than two periods */
	char *out;
	stats_json(140, 0, &out);
	printf("%s", out);
	check_chatter(out, 1234);
	assert_non_null(strstr(out, "\"type\":\"std_msgs/msg/String\""));
	assert_non_null(strstr(out, "\"state\":\"recording\""));
	assert_non_null(strstr(out, "\"bag\":\"/tmp/bag\""));
	assert_non_null(strstr(out, "\"current_file\":\"/tmp/bag/bag_3.db3\""));
	assert_int_equal(json_u64(out, NULL, "file_index"), 3);
	assert_non_null(strstr(out, rec_stats_pub_id(f.pub)));
	free(out);

	set_chatter(&f, 5000); /* the next sample has it */
	fake_pause(&f, true);
	rec_sleep(1.2);
	stats_json(140, 0, &out);
	check_chatter(out, 5000);
	assert_non_null(strstr(out, "\"state\":\"paused\""));
	free(out);

	/* The table: header lines, then one row per topic. */
	char *table = NULL;
	assert_int_equal(tu_bagtop(&table, "stats", "--domain", "140", NULL), 0);
	printf("%s", table);
	assert_non_null(strstr(table, "State:             paused"));
	assert_non_null(strstr(table, "Lost transport"));
	assert_non_null(strstr(table, "5000"));
	free(table);

	/* The final sample: written on stop, while the writer still exists;
	 * the recorder no longer knows its file by then: the last one stays. */
	rec_stats_pub_stop(f.pub);
	set_chatter(&f, 6000);
	f.status.current_file[0] = '\0';
	f.status.file_index = 0;
	rec_stats_pub_write_final(f.pub);
	stats_json(140, 0, &out);
	check_chatter(out, 6000);
	assert_non_null(strstr(out, "\"state\":\"stopped\""));
	assert_non_null(strstr(out, "\"current_file\":\"/tmp/bag/bag_3.db3\",\"file_index\":3,"));
	free(out);
	fake_stop(&f);
}

/* ---- counting what is published ---- */

struct counter {
	dds_entity_t pp, stats_rd, loss_rd;
};

static dds_entity_t counter_reader(dds_entity_t pp, const dds_topic_descriptor_t *desc,
				   const char *name, bool tl)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(1));
	if (tl)
		dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_entity_t tp = dds_create_topic(pp, desc, name, q, NULL);
	assert_true(tp > 0);
	dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	assert_true(rd > 0);
	return rd;
}

static void counter_wait_matched(dds_entity_t rd)
{
	double end = rec_now() + 10.0;
	dds_subscription_matched_status_t m = {0};
	while ((dds_get_subscription_matched_status(rd, &m), m.current_count) < 1) {
		if (rec_now() > end)
			fail_msg("the statistics writer was never matched");
		rec_sleep(0.02);
	}
}

/* Readers (volatile: they see only what is written from now on). */
static void counter_open(struct counter *c, int domain)
{
	c->pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	assert_true(c->pp > 0);
	c->stats_rd = counter_reader(c->pp, &bagtop_stats_Statistics_desc, REC_STATS_TOPIC, false);
	c->loss_rd =
		counter_reader(c->pp, &bagtop_stats_LossEvent_desc, REC_STATS_LOSS_TOPIC, false);
	counter_wait_matched(c->stats_rd);
	counter_wait_matched(c->loss_rd);
}

typedef void (*sample_fn)(void *ctx, const void *sample);

/* Takes every sample there is; returns how many (valid ones). */
static int counter_take(dds_entity_t rd, sample_fn fn, void *ctx)
{
	int total = 0;
	for (;;) {
		void *buf[8] = {NULL};
		dds_sample_info_t si[8];
		dds_return_t n = dds_take(rd, buf, si, 8, 8);
		assert_true(n >= 0);
		if (n == 0)
			return total;
		for (int i = 0; i < n; i++)
			if (si[i].valid_data) {
				total++;
				if (fn)
					fn(ctx, buf[i]);
			}
		assert_int_equal(dds_return_loan(rd, buf, n), 0);
	}
}

struct times {
	int64_t t[256];
	int n;
};

static void stats_time(void *ctx, const void *sample)
{
	struct times *ts = ctx;
	if (ts->n < 256)
		ts->t[ts->n++] = ((const bagtop_stats_Statistics *)sample)->time;
}

static void loss_keep(void *ctx, const void *sample)
{
	const bagtop_stats_LossEvent *ev = sample;
	bagtop_stats_LossEvent *out = ctx;
	/* the test checks the last one: one topic at most */
	assert_true(ev->topics._length <= 1);
	out->time = ev->time;
	if (ev->topics._length == 1) {
		out->topics._length = 1;
		out->topics._buffer[0].delta = ev->topics._buffer[0].delta;
		out->topics._buffer[0].total = ev->topics._buffer[0].total;
		assert_string_equal(ev->topics._buffer[0].name, "/imu");
	}
}

/* 2. A late `bagtop stats` gets the latest sample at once: the update
 * period (5 s) is longer than the command may take, so the sample it
 * shows was written before it existed (transient-local). */
static void test_stats_late_joiner(void **state)
{
	(void)state;
	struct fake f;
	fake_start(&f, 141, 0.2);
	set(&f.chatter->st.recorded, 77); /* not yet published: the period is 5 s */
	rec_sleep(1.0);
	double t0 = rec_now();
	char *out;
	stats_json(141, 0, &out);
	double took = rec_now() - t0;
	printf("took %.2f s: %s", took, out);
	assert_true(took < 3.5);
	assert_int_equal(json_u64(out, NULL, "serial"), 0);
	assert_int_equal(json_u64(out, "/chatter", "recorded"), 0);
	free(out);
	fake_stop(&f);
}

/* 3. Rate limiting: over N seconds at R Hz, with loss counters changing
 * all the time, at most R*N + 1 samples on either topic, and never two
 * statistics samples less than a period apart. */
static void test_stats_rate_limit(void **state)
{
	(void)state;
	const double rate = 5.0, secs = 3.0;
	struct fake f;
	fake_start(&f, 142, rate);
	struct counter c;
	counter_open(&c, 142);
	(void)counter_take(c.stats_rd, NULL, NULL);
	(void)counter_take(c.loss_rd, NULL, NULL);
	double end = rec_now() + secs;
	uint64_t k = 0;
	while (rec_now() < end) {
		set(&f.imu->st.lost_cache, ++k); /* a loss every millisecond */
		rec_sleep(0.001);
	}
	struct times ts = {.n = 0};
	int n_stats = counter_take(c.stats_rd, stats_time, &ts);
	int n_loss = counter_take(c.loss_rd, NULL, NULL);
	printf("%d statistics, %d loss events in %.0f s at %.0f Hz\n", n_stats, n_loss, secs, rate);
	assert_true(n_stats <= (int)(rate * secs) + 1);
	assert_true(n_loss <= (int)(rate * secs) + 1);
	assert_true(n_stats >= (int)(rate * secs) / 2); /* and it does publish (even when */
	assert_true(n_loss >= (int)(rate * secs) / 2);  /* a loaded machine delays ticks) */
	for (int i = 1; i < ts.n; i++)
		assert_true(ts.t[i] - ts.t[i - 1] >= (int64_t)(0.95e9 / rate));
	assert_int_equal(dds_delete(c.pp), 0);
	fake_stop(&f);
}

/* 4. Loss events only when a loss counter changes: none while nothing is
 * lost (other counters moving), exactly one with the delta after one
 * change, then none again. */
static void test_stats_loss_events(void **state)
{
	(void)state;
	struct fake f;
	fake_start(&f, 143, 10.0);
	struct counter c;
	counter_open(&c, 143);
	for (uint64_t i = 1; i <= 150; i++) { /* 1.5 s of traffic, no loss */
		set(&f.chatter->st.received, i);
		set(&f.chatter->st.recorded, i);
		rec_sleep(0.01);
	}
	assert_int_equal(counter_take(c.loss_rd, NULL, NULL), 0);
	assert_true(counter_take(c.stats_rd, NULL, NULL) >= 10);

	set(&f.imu->st.lost_toobig, 5);
	rec_sleep(1.0);
	bagtop_stats_TopicLoss tl;
	bagtop_stats_LossEvent last = {.topics = {0, 1, &tl, false}};
	assert_int_equal(counter_take(c.loss_rd, loss_keep, &last), 1);
	assert_int_equal(last.topics._length, 1);
	assert_int_equal(tl.delta.too_large, 5);
	assert_int_equal(tl.total.too_large, 5);
	assert_int_equal(tl.delta.cache_overflow, 0);

	set(&f.imu->st.lost_toobig, 8);
	set(&f.imu->st.lost_transport, 1);
	rec_sleep(1.0);
	assert_int_equal(counter_take(c.loss_rd, loss_keep, &last), 1);
	assert_int_equal(tl.delta.too_large, 3);
	assert_int_equal(tl.total.too_large, 8);
	assert_int_equal(tl.delta.lost_in_transport, 1);
	rec_sleep(1.0);
	assert_int_equal(counter_take(c.loss_rd, NULL, NULL), 0);
	assert_int_equal(dds_delete(c.pp), 0);
	fake_stop(&f);
}

/* 5. Nobody publishing: one clear line, exit status 1. */
static void test_stats_nobody(void **state)
{
	(void)state;
	char *out = NULL;
	int rc = tu_bagtop(&out, "stats", "--domain", "145", "--timeout", "1", NULL);
	printf("%s", out);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "bagtop: error: no bagtop recorder answered on domain 145"));
	const char *nl = strchr(out, '\n');
	assert_non_null(nl);
	assert_string_equal(nl + 1, ""); /* exactly one line */
	free(out);
}

/* 6. --watch: started before any recorder (no error), it prints each new
 * sample as one JSON line, and ends cleanly on SIGINT. */
static void test_stats_watch(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("stats-watch");
	char *out_path = bt_xasprintf("%s/out.txt", tmp);
	char *argv[] = {getenv("BAGTOP_BIN"), "stats", "--domain", "144", "--json", "--watch",
			"--timeout", "0.5", NULL};
	pid_t pid = rec_spawn(argv, out_path, NULL);
	rec_sleep(1.0);
	struct fake f;
	fake_start(&f, 144, 5.0);
	set_chatter(&f, 42);
	set(&f.imu->st.recorded, 10);
	rec_sleep(1.5);
	set_chatter(&f, 43);
	rec_sleep(1.0);
	kill(pid, SIGINT);
	assert_int_equal(rec_wait(pid, 10.0, "bagtop stats --watch"), 0);
	char *out = rec_read(out_path);
	printf("%s", out);
	int lines = 0;
	const char *last = out;
	for (const char *p = out; (p = strchr(p, '\n')) != NULL; p++)
		if (p[1] != '\0') {
			last = p + 1;
			lines++;
		}
	assert_true(lines >= 6); /* ~12 in 2.5 s at 5 Hz */
	assert_int_equal(strncmp(last, "{\"id\":", 6), 0);
	check_chatter(last, 43);
	free(out);
	fake_stop(&f);
	tu_rmrf(tmp);
	free(tmp);
	free(out_path);
}

/* 7. End to end: a real `bagtop record` and tpub, then `bagtop stats`
 * shows what the recorder committed, and the bag holds as many. Skipped
 * while the recorder does not publish its statistics yet (no answer). */
static void test_stats_recorder(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/live", "--statistics-update-rate", "4", NULL};
	rec_start(&r, 146, args, NULL);
	char *tout = bt_xasprintf("%s/tpub.txt", r.tmp);
	char *extra[] = {"--count", "40", "--rate", "200", "--wait-readers", "1", NULL};
	long wrote = tpub_finish(tpub_spawn(146, "rt/live", extra, tout), tout);
	rec_sleep(1.0); /* the cache is swapped and a sample written meanwhile */
	char *out = NULL;
	int rc = tu_bagtop(&out, "stats", "--domain", "146", "--json", "--timeout", "3", NULL);
	printf("%s", out);
	bool wired = rc == 0;
	if (wired) {
		assert_int_equal(json_u64(out, "/live", "recorded"), wrote);
		assert_int_equal(json_u64(out, "/live", "received"), wrote);
		assert_int_equal(json_u64(out, "/live", "lost_in_recorder"), 0);
		/* One file so far: it holds everything. */
		assert_int_equal(json_u64(out, "/live", "file_recorded"), wrote);
		assert_int_equal(json_u64(out, "/live", "file_received"), wrote);
		assert_true(json_u64(out, "/live", "file_bytes") > 0);
		/* wrote messages since the file opened, a few seconds ago. */
		double hz = json_dbl(out, "/live", "file_average_rate_hz");
		assert_true(hz > 0.0 && hz < (double)wrote);
		assert_true(json_u64(out, NULL, "file_start_time") > 0);
		assert_non_null(strstr(out, r.dir));
	} else {
		assert_non_null(strstr(out, "no bagtop recorder answered on domain 146"));
	}
	free(out);
	rec_stop(&r, SIGINT);
	assert_int_equal(tb_count(r.dir, "/live", TB_ALL), wrote);
	rec_free(&r);
	free(tout);
	if (!wired) {
		printf("SKIP: bagtop record does not publish its statistics yet\n");
		skip();
	}
}

/* 8. A real recorder splitting every second: the figures of the file being
 * written start again at the split. Its received count is what arrived
 * since that file opened; its recorded count also holds what was still in
 * the cache at the split: a batch or two, allowed up to 200 ms of messages
 * (40 at 200 Hz) for the sanitizer builds' slower writer. */
static void test_stats_recorder_split(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/sp", "-d", "1", "--statistics-update-rate", "4", NULL};
	rec_start(&r, 147, args, NULL);
	char *tout = bt_xasprintf("%s/tpub.txt", r.tmp);
	char *extra[] = {"--count", "500", "--rate", "200", "--wait-readers", "1", NULL};
	long wrote = tpub_finish(tpub_spawn(147, "rt/sp", extra, tout), tout);
	rec_sleep(1.0); /* drained, and a sample written meanwhile */
	char *out = NULL;
	int rc = tu_bagtop(&out, "stats", "--domain", "147", "--json", "--timeout", "3", NULL);
	printf("%s", out);
	assert_int_equal(rc, 0);
	unsigned long long rx = json_u64(out, "/sp", "received");
	unsigned long long frx = json_u64(out, "/sp", "file_received");
	unsigned long long frec = json_u64(out, "/sp", "file_recorded");
	assert_int_equal(rx, wrote);
	assert_true(json_u64(out, NULL, "file_index") >= 1);
	assert_true(frx > 0 && frx < rx);
	assert_true(frec >= frx && frec <= frx + 40);
	double hz = json_dbl(out, "/sp", "file_average_rate_hz");
	assert_true(hz > 0.0 && hz < 400.0);
	free(out);
	rec_stop(&r, SIGINT);
	rec_expect_count(r.dir, "/sp", (unsigned long long)wrote);
	rec_free(&r);
	free(tout);
}

TU_MAIN(
	cmocka_unit_test(test_stats_counts),
	cmocka_unit_test(test_stats_late_joiner),
	cmocka_unit_test(test_stats_rate_limit),
	cmocka_unit_test(test_stats_loss_events),
	cmocka_unit_test(test_stats_nobody),
	cmocka_unit_test(test_stats_watch),
	cmocka_unit_test(test_stats_recorder),
	cmocka_unit_test(test_stats_recorder_split))
