/* The player through its API (play.h) on real Cyclone DDS, domains 130..138,
 * with in-process raw readers as the subscribers: a bag written by
 * bag_writer (real sqlite), then start paused + one step publishes exactly
 * one message and a pause publishes nothing; --loop-count 3 plays three
 * times; the window (start offset, duration) selects the right messages;
 * remap and selection; the rate scales the duration (±5 %); --clock
 * publishes at its rate with monotonic bag time; a late-joining
 * transient-local reader gets the transient-local message; at top speed a
 * pause stops at once and a seek restarts cleanly (domain 92); every
 * message's source timestamp is the time it was written, even (domain
 * 108: ddsperf takes an odd one for a ping); --wait-for-subscribers holds
 * everything until each topic has a subscriber (domain 138);
 * --clock-topics publishes /clock before each message of its topics, with
 * that message's time, and the bag's own /clock is not played while the
 * player publishes one; --services selects service events (domain 139);
 * usage errors. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_writer.h"
#include "bt_time.h"
#include "btdds_cdr.h"
#include "btdds_participant.h"
#include "btdds_raw.h"
#include "play.h"
#include "test_bag.h"

#define T0 (INT64_C(1700000000) * 1000000000)
#define MS INT64_C(1000000)
#define NA 100 /* /a: every 10 ms */
#define NB 50  /* /b: every 20 ms, 5 ms after /a's */

#define NF 12000 /* /f in the fast bag: every ms, KEEP_ALL */

static char *g_dir, *g_bag, *g_fast;

/* ---- the bag ---- */

static void put_string(struct bag_writer *w, uint32_t h, int64_t t, int i)
{
	char s[32];
	snprintf(s, sizeof s, "m%04d", i);
	struct btdds_cdr_wr c;
	btdds_cdr_wr_init(&c);
	btdds_cdr_put_string(&c, s);
	btdds_cdr_wr_finish(&c);
	struct bag_message m = {h, t, c.b.data, c.b.len, 0};
	struct bt_error err;
	if (bag_writer_write(w, &m, 1, &err) != BT_OK)
		fail_msg("write: %s", err.msg);
	btdds_cdr_wr_fini(&c);
}

/* A reliable topic: transient-local keeping 1 (tl), else volatile keeping
 * 10, or all (BAG_HISTORY_KEEP_ALL). */
static uint32_t add_topic_of(struct bag_writer *w, const char *name, const char *type, bool tl,
			     enum bag_history history)
{
	struct bag_qos q =
		tb_qos_keep_last(tl ? 1 : 10, BAG_RELIABILITY_RELIABLE,
				 tl ? BAG_DURABILITY_TRANSIENT_LOCAL : BAG_DURABILITY_VOLATILE);
	q.history = history;
	q.liveliness = BAG_LIVELINESS_AUTOMATIC;
	struct bag_topic t = {(char *)name, (char *)type, "cdr", &q, 1, ""};
	uint32_t h;
	struct bt_error err;
	if (bag_writer_add_topic(w, &t, NULL, &h, &err) != BT_OK)
		fail_msg("add_topic: %s", err.msg);
	return h;
}

static uint32_t add_topic(struct bag_writer *w, const char *name, bool tl)
{
	return add_topic_of(w, name, "std_msgs/msg/String", tl, BAG_HISTORY_KEEP_LAST);
}

/* The fast bag: /f, message i is the CDR of uint32 i (and 0). */
static void write_fast(void)
{
	g_fast = malloc(strlen(g_dir) + 8);
	sprintf(g_fast, "%s/fast", g_dir);
	struct bag_writer_options o = {.uri = g_fast};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	uint32_t h = add_topic_of(w, "/f", "std_msgs/msg/UInt32", false, BAG_HISTORY_KEEP_ALL);
	for (uint32_t i = 0; i < NF; i++) {
		uint8_t d[12] = {0, 1, 0, 0};
		memcpy(d + 4, &i, 4);
		struct bag_message m = {h, T0 + (int64_t)i * MS, d, sizeof d, 0};
		if (bag_writer_write(w, &m, 1, &err) != BT_OK)
			fail_msg("write: %s", err.msg);
	}
	if (bag_writer_close(w, &err) != BT_OK)
		fail_msg("close: %s", err.msg);
}

static int group_setup(void **state)
{
	(void)state;
	g_dir = tu_mkdtemp("play-api");
	g_bag = malloc(strlen(g_dir) + 8);
	sprintf(g_bag, "%s/bag", g_dir);
	struct bag_writer_options o = {.uri = g_bag};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	uint32_t a = add_topic(w, "/a", false), b = add_topic(w, "/b", false);
	uint32_t tl = add_topic(w, "/tl", true);
	put_string(w, tl, T0, 0);
	for (int i = 0; i < NA; i++) {
		put_string(w, a, T0 + i * 10 * MS, i);
		if (i % 2 == 0)
			put_string(w, b, T0 + i * 10 * MS + 5 * MS, i / 2);
	}
	if (bag_writer_close(w, &err) != BT_OK)
		fail_msg("close: %s", err.msg);
	write_fast();
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	tu_rmrf(g_dir);
	free(g_dir);
	free(g_bag);
	free(g_fast);
	return 0;
}

/* ---- a subscriber: a raw reader that notes each arrival ---- */

/* Arrivals noted at most: test_controls_at_top_speed gets up to 2 NF (a
 * seek back after most of the bag went out; 4741 + NF once, under load). */
#define SUB_MAX (2 * NF + 1024)

struct sub {
	dds_entity_t pp, rd;
	pthread_mutex_t mu;
	size_t n;
	int64_t at[SUB_MAX];      /* monotonic arrival */
	int64_t src[SUB_MAX];     /* the source timestamp */
	uint32_t first_u32[SUB_MAX][2]; /* the first 8 payload bytes after the header */
	size_t len[SUB_MAX];
};

static bool sub_on_sample(void *arg, const struct btdds_raw_sample *s)
{
	struct sub *u = arg;
	pthread_mutex_lock(&u->mu);
	if (u->n < SUB_MAX) {
		u->at[u->n] = bt_time_monotonic_ns();
		u->src[u->n] = s->source_time;
		memset(u->first_u32[u->n], 0, 8);
		if (s->len >= 12)
			memcpy(u->first_u32[u->n], (const char *)s->data + 4, 8);
		u->len[u->n] = s->len;
		u->n++;
	}
	pthread_mutex_unlock(&u->mu);
	return true;
}

static void sub_on_data(dds_entity_t rd, void *arg)
{
	(void)btdds_raw_take(rd, sub_on_sample, arg);
}

static struct sub *sub_new(uint32_t domain, const char *topic, const char *type, bool tl,
			   bool reliable)
{
	struct sub *u = calloc(1, sizeof *u);
	pthread_mutex_init(&u->mu, NULL);
	struct bt_error err;
	if (btdds_participant_create(domain, NULL, &u->pp, &err) != BT_OK)
		fail_msg("participant: %s", err.msg);
	dds_entity_t tp = btdds_raw_topic_create(u->pp, topic, type, false);
	assert_true(tp > 0);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
			     DDS_SECS(1));
	dds_qset_durability(q, tl ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_listener_t *l = dds_create_listener(u);
	dds_lset_data_available(l, sub_on_data);
	u->rd = dds_create_reader(u->pp, tp, q, l);
	assert_true(u->rd > 0);
	dds_delete_listener(l);
	dds_delete_qos(q);
	return u;
}

static size_t sub_count(struct sub *u)
{
	pthread_mutex_lock(&u->mu);
	size_t n = u->n;
	pthread_mutex_unlock(&u->mu);
	return n;
}

/* Waits until u has n samples, at most secs; returns the count. */
static size_t sub_wait(struct sub *u, size_t n, double secs)
{
	double until = tu_now() + secs;
	while (sub_count(u) < n && tu_now() < until)
		usleep(2000);
	return sub_count(u);
}

static void sub_free(struct sub *u)
{
	(void)btdds_participant_delete(u->pp);
	pthread_mutex_destroy(&u->mu);
	free(u);
}

static const char *g_str_type = "std_msgs::msg::dds_::String_";

/* ---- the player ---- */

/* play_options_init, then the test bag, `domain` and the topics to play
 * (NULL-terminated; NULL: every topic). */
static void opts(struct play_options *o, uint32_t domain, const char *const *topics)
{
	play_options_init(o);
	o->bag_path = g_bag;
	o->domain_id = domain;
	o->select.topics = topics;
	while (topics && topics[o->select.n_topics])
		o->select.n_topics++;
}

static struct play *start(struct play_options *o)
{
	struct play *p = NULL;
	struct bt_error err;
	bt_status st = play_start(o, &p, &err);
	if (st != BT_OK)
		fail_msg("play_start: %s", err.msg);
	return p;
}

static void finish(struct play *p)
{
	struct bt_error err;
	assert_true(play_wait(p, 20 * INT64_C(1000000000)));
	assert_int_equal(play_join(p, &err), BT_OK);
	play_free(p);
}

/* Start paused, then one step: exactly one message; paused: nothing. */
static void test_step(void **state)
{
	(void)state;
	struct sub *u = sub_new(130, "rt/a", g_str_type, false, true);
	struct play_options o;
	opts(&o, 130, (const char *const[]){"/a", NULL});
	o.start_paused = true;
	struct play *p = start(&o);
	usleep(300 * 1000);
	assert_int_equal(sub_count(u), 0);
	assert_int_equal(play_next(p), PLAY_OK);
	assert_int_equal(sub_wait(u, 1, 5), 1);
	usleep(300 * 1000);
	assert_int_equal(sub_count(u), 1); /* still paused */
	struct play_view v;
	struct play_topic_view tv;
	play_view_get(p, &v, &tv, 1);
	assert_int_equal(v.state, PLAY_STATE_PAUSED);
	assert_int_equal(tv.published, 1);
	assert_int_equal(v.bag_now, T0);
	assert_int_equal(play_next(p), PLAY_OK);
	assert_int_equal(sub_wait(u, 2, 5), 2);
	assert_int_equal(u->first_u32[1][1] & 0xff, 'm');
	/* resume: the rest, then a pause stops it at once */
	assert_int_equal(play_resume(p), PLAY_OK);
	assert_int_equal(play_next(p), PLAY_REFUSED_NOT_PAUSED);
	sub_wait(u, 20, 5);
	assert_int_equal(play_pause(p), PLAY_OK);
	usleep(50 * 1000);
	size_t n = sub_count(u);
	usleep(400 * 1000);
	assert_int_equal(sub_count(u), n);
	assert_true(n < NA);
	assert_int_equal(play_resume(p), PLAY_OK);
	finish(p);
	assert_int_equal(sub_count(u), NA);
	sub_free(u);
}

/* At top speed the publisher writes runs of due messages outside its
 * lock: a pause still stops it at once (nothing published after it
 * returns) and a seek while playing restarts it cleanly: the subscriber
 * gets 0..k-1, then 0..NF-1, each once, in order. */
static void test_controls_at_top_speed(void **state)
{
	(void)state;
	struct sub *u = sub_new(92, "rt/f", "std_msgs::msg::dds_::UInt32_", false, true);
	struct play_options o;
	opts(&o, 92, NULL);
	o.rate = 1000;
	o.bag_path = g_fast;
	struct play *p = start(&o);
	assert_true(sub_wait(u, 300, 10) >= 300);
	assert_int_equal(play_pause(p), PLAY_OK);
	struct play_view v;
	struct play_topic_view tv;
	play_view_get(p, &v, &tv, 1);
	uint64_t paused_at = tv.published;
	assert_true(paused_at < NF);
	usleep(300 * 1000);
	play_view_get(p, &v, &tv, 1);
	assert_int_equal(tv.published, paused_at);
	assert_int_equal(sub_wait(u, paused_at, 5), paused_at);
	usleep(100 * 1000);
	assert_int_equal(sub_count(u), paused_at);
	assert_int_equal(play_resume(p), PLAY_OK);
	sub_wait(u, paused_at + 300, 10);
	assert_int_equal(play_seek_to(p, T0), PLAY_OK);
	finish(p);
	pthread_mutex_lock(&u->mu);
	size_t k = 1;
	while (k < u->n && u->first_u32[k][0] != 0)
		k++;
	pthread_mutex_unlock(&u->mu);
	assert_true(k > paused_at);
	assert_int_equal(sub_wait(u, k + NF, 20), k + NF);
	for (size_t i = 0; i < k + NF; i++)
		assert_int_equal(u->first_u32[i][0], i < k ? i : i - k);
	sub_free(u);
}

/* --loop-count 3 plays the bag three times. */
static void test_loop_count(void **state)
{
	(void)state;
	struct sub *u = sub_new(131, "rt/b", g_str_type, false, true);
	struct play_options o;
	opts(&o, 131, (const char *const[]){"/b", NULL});
	o.loop_count = 3;
	o.rate = 5;
	struct play *p = start(&o);
	struct play_view v;
	while (!play_done(p)) {
		play_view_get(p, &v, NULL, 0);
		usleep(10000);
	}
	play_view_get(p, &v, NULL, 0);
	finish(p);
	assert_int_equal(v.loop_index, 3);
	assert_int_equal(v.published, 3 * NB);
	assert_int_equal(sub_wait(u, 3 * NB, 5), 3 * NB);
	usleep(200 * 1000);
	assert_int_equal(sub_count(u), 3 * NB);
	sub_free(u);
}

/* Each message goes out stamped with the time it was written, its lowest
 * bit clear: `ddsperf sub` takes a sample with an odd source timestamp for
 * a ping and looks for a pong writer (and complains) for each. */
static void test_source_time(void **state)
{
	(void)state;
	struct sub *u = sub_new(108, "rt/a", g_str_type, false, true);
	struct play_options o;
	const char *topics[] = {"/a", NULL};
	opts(&o, 108, topics);
	o.rate = 10;
	dds_time_t before = dds_time();
	struct play *p = start(&o);
	finish(p);
	dds_time_t after = dds_time();
	assert_int_equal(sub_wait(u, NA, 5), NA);
	for (size_t i = 0; i < NA; i++) {
		assert_int_equal(u->src[i] & 1, 0);
		assert_in_range(u->src[i], before, after);
	}
	sub_free(u);
}

/* --start-offset 0.3 s, --playback-duration 0.2 s: what the bag holds in
 * [T0 + 0.3 s, T0 + 0.5 s], topic by topic. */
static void test_window(void **state)
{
	(void)state;
	struct sub *a = sub_new(132, "rt/a", g_str_type, false, true);
	struct sub *b = sub_new(132, "rt/b", g_str_type, false, true);
	struct play_options o;
	opts(&o, 132, NULL);
	o.start_offset_ns = 300 * MS;
	o.playback_duration_ns = 200 * MS;
	struct play *p = start(&o);
	finish(p);
	size_t want_a = tb_count(g_bag, "/a", T0 + 300 * MS, T0 + 500 * MS + 1);
	size_t want_b = tb_count(g_bag, "/b", T0 + 300 * MS, T0 + 500 * MS + 1);
	assert_int_equal(want_a, 21);
	assert_int_equal(want_b, 10);
	assert_int_equal(sub_wait(a, want_a, 5), want_a);
	assert_int_equal(sub_wait(b, want_b, 5), want_b);
	usleep(200 * 1000);
	assert_int_equal(sub_count(a), want_a);
	assert_int_equal(sub_count(b), want_b);
	/* the first /a message of the window is m0030 */
	assert_memory_equal(&a->first_u32[0][1], "m003", 4);
	sub_free(a);
	sub_free(b);
}

/* -m /a:=/z and -x: /a goes out as /z, /b not at all; usage errors. */
static void test_remap_select(void **state)
{
	(void)state;
	struct sub *z = sub_new(133, "rt/z", g_str_type, false, true);
	struct sub *a = sub_new(133, "rt/a", g_str_type, false, true);
	struct sub *b = sub_new(133, "rt/b", g_str_type, false, true);
	struct play_options o;
	opts(&o, 133, NULL);
	o.rate = 4;
	struct play_remap r = {"/a", "/z"};
	o.remaps = &r;
	o.n_remaps = 1;
	o.select.exclude_regex = "^/b$";
	struct play *p = start(&o);
	assert_int_equal(play_n_topics(p), 2);
	finish(p);
	assert_int_equal(sub_wait(z, NA, 5), NA);
	usleep(200 * 1000);
	assert_int_equal(sub_count(a), 0);
	assert_int_equal(sub_count(b), 0);
	sub_free(z);
	sub_free(a);
	sub_free(b);

	struct play *q = NULL;
	struct bt_error err;
	opts(&o, 133, (const char *const[]){"/nope", NULL});
	assert_int_equal(play_start(&o, &q, &err), BT_ERR_USAGE);
	assert_non_null(strstr(err.msg, "/nope"));
	play_options_init(&o);
	o.bag_path = g_bag;
	struct play_remap bad = {"/a", ""};
	o.remaps = &bad;
	o.n_remaps = 1;
	assert_int_equal(play_start(&o, &q, &err), BT_ERR_USAGE);
}

/* The duration /a's 990 ms of bag time take at a rate: the least-squares
 * slope of arrival time over bag time, times 990 ms (one message held up
 * by a busy machine moves a first-to-last span, hardly the slope). */
static double span_at(uint32_t domain, double rate)
{
	struct sub *u = sub_new(domain, "rt/a", g_str_type, false, true);
	struct play_options o;
	opts(&o, domain, (const char *const[]){"/a", NULL});
	o.rate = rate;
	o.delay_ns = 100 * MS;
	struct play *p = start(&o);
	finish(p);
	assert_int_equal(sub_wait(u, NA, 5), NA);
	double mx = 0, my = 0, sxy = 0, sxx = 0;
	for (int i = 0; i < NA; i++) {
		mx += i * 0.010 / NA;
		my += (double)(u->at[i] - u->at[0]) / 1e9 / NA;
	}
	for (int i = 0; i < NA; i++) {
		double dx = i * 0.010 - mx, dy = (double)(u->at[i] - u->at[0]) / 1e9 - my;
		sxy += dx * dy;
		sxx += dx * dx;
	}
	sub_free(u);
	return sxy / sxx * 0.990;
}

static void test_rate(void **state)
{
	(void)state;
	double one = span_at(134, 1.0), two = span_at(134, 2.0);
	print_message("990 ms of bag time at rate 1: %.4f s, at rate 2: %.4f s\n", one, two);
	assert_true(one > 0.99 * 0.95 && one < 0.99 * 1.05);
	assert_true(two > 0.495 * 0.95 && two < 0.495 * 1.05);
}

/* --clock 100: about 100 Clock messages a second, bag time never going
 * back, within the bag's range. */
static void test_clock(void **state)
{
	(void)state;
	struct sub *c = sub_new(135, "rt/clock", "rosgraph_msgs::msg::dds_::Clock_", false, false);
	struct play_options o;
	opts(&o, 135, NULL);
	o.clock_hz = 100;
	struct play *p = start(&o);
	finish(p);
	size_t n = sub_count(c);
	assert_true(n >= 10);
	double span = (double)(c->at[n - 1] - c->at[0]) / 1e9;
	double hz = (double)(n - 1) / span;
	print_message("clock: %zu messages, %.1f Hz\n", n, hz);
	assert_true(hz > 80 && hz < 120);
	int64_t last = 0;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(c->len[i], 12);
		int64_t t = (int64_t)c->first_u32[i][0] * 1000000000 + c->first_u32[i][1];
		assert_true(t >= last);
		assert_true(t >= T0 && t <= T0 + 990 * MS);
		last = t;
	}
	assert_true(last > T0 + 500 * MS);
	sub_free(c);
}

/* A transient-local reader that joins after /tl was published gets it. */
static void test_late_joiner(void **state)
{
	(void)state;
	struct play_options o;
	opts(&o, 136, (const char *const[]){"/tl", "/a", NULL});
	struct play *p = start(&o);
	struct play_view v;
	struct play_topic_view tv[2];
	do {
		usleep(5000);
		play_view_get(p, &v, tv, 2);
	} while (v.published < 10);
	assert_string_equal(tv[1].name, "/tl");
	assert_true(tv[1].transient_local);
	assert_int_equal(tv[1].published, 1);
	struct sub *late = sub_new(136, "rt/tl", g_str_type, true, true);
	assert_int_equal(sub_wait(late, 1, 5), 1);
	assert_memory_equal(&late->first_u32[0][1], "m000", 4);
	finish(p);
	sub_free(late);
}

/* The topic view named `name` in tv[0..n). */
static const struct play_topic_view *tv_named(const struct play_topic_view *tv, size_t n,
					      const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tv[i].name, name))
			return &tv[i];
	fail_msg("no topic %s in the view", name);
	return NULL;
}

/* Until the player's /a writer matched a reader (discovery: at most 5 s). */
static void wait_a_matched(struct play *p)
{
	struct play_view v;
	struct play_topic_view tv[2];
	double until = tu_now() + 5;
	do {
		usleep(5000);
		play_view_get(p, &v, tv, 2);
	} while (tv_named(tv, 2, "/a")->matched == 0 && tu_now() < until);
}

static void view_expect(struct play *p, enum play_state st, uint32_t a_matched,
			uint32_t b_matched)
{
	struct play_view v;
	struct play_topic_view tv[2];
	play_view_get(p, &v, tv, 2);
	assert_int_equal(v.state, st);
	assert_int_equal(v.published, 0);
	assert_int_equal(v.bag_now, v.window_start); /* held at the start */
	assert_int_equal(tv_named(tv, 2, "/a")->matched, a_matched);
	assert_int_equal(tv_named(tv, 2, "/b")->matched, b_matched);
}

/* --wait-for-subscribers (domain 138): nothing goes out while /b has no
 * subscriber, though /a has one; a pause and a resume meanwhile keep it
 * waiting; once /b's comes, every message of both arrives, the first after
 * it came. A stop while waiting stops at once. */
static void test_wait_for_subscribers(void **state)
{
	(void)state;
	struct sub *ua = sub_new(138, "rt/a", g_str_type, false, true);
	struct play_options o;
	opts(&o, 138, (const char *const[]){"/a", "/b", NULL});
	o.wait_for_subscribers = true;
	int64_t t_start = bt_time_monotonic_ns();
	struct play *p = start(&o);
	wait_a_matched(p);
	usleep(300 * 1000);
	view_expect(p, PLAY_STATE_WAITING_SUBSCRIBERS, 1, 0);
	assert_int_equal(play_pause(p), PLAY_OK);
	view_expect(p, PLAY_STATE_PAUSED, 1, 0);
	assert_int_equal(play_resume(p), PLAY_OK);
	usleep(300 * 1000);
	view_expect(p, PLAY_STATE_WAITING_SUBSCRIBERS, 1, 0);
	assert_int_equal(sub_count(ua), 0);
	int64_t t = bt_time_monotonic_ns();
	struct sub *ub = sub_new(138, "rt/b", g_str_type, false, true);
	assert_int_equal(sub_wait(ua, NA, 10), NA);
	assert_int_equal(sub_wait(ub, NB, 10), NB);
	assert_true(ua->at[0] > t);
	/* The summary's "of it waiting for subscribers": until /b's came, after
	 * the 600 ms slept since play_start returned. */
	struct play_view v;
	play_view_get(p, &v, NULL, 0);
	assert_true(v.waited_subs_ns >= 600 * MS);
	assert_true(v.waited_subs_ns <= ua->at[0] - t_start);
	finish(p);
	sub_free(ua);
	sub_free(ub);

	opts(&o, 138, (const char *const[]){"/tl", NULL}); /* nobody reads it */
	o.wait_for_subscribers = true;
	p = start(&o);
	usleep(300 * 1000);
	play_request_stop(p);
	assert_true(play_wait(p, INT64_C(1000000000)));
	struct bt_error err;
	assert_int_equal(play_join(p, &err), BT_OK);
	play_view_get(p, &v, NULL, 0);
	assert_int_equal(v.published, 0);
	play_free(p);
}

/* /clock as --clock-topics / --clock-topics-all send it (domain 139):
 * only the times of the trigger topics' messages, in order, ending with
 * the last one's. Best effort and volatile, so the first few may go out
 * before the reader matched: at least half must arrive. */
static void clock_topics_run(const char *const *topics, bool all, size_t want, int64_t last_t)
{
	struct sub *c = sub_new(139, "rt/clock", "rosgraph_msgs::msg::dds_::Clock_", false, false);
	struct play_options o;
	opts(&o, 139, NULL);
	o.clock_topics = topics;
	while (topics && topics[o.n_clock_topics])
		o.n_clock_topics++;
	o.clock_topics_all = all;
	o.delay_ns = 300 * MS;
	struct play *p = start(&o);
	finish(p);
	size_t n = sub_wait(c, want, 2);
	print_message("clock-topics: %zu of %zu\n", n, want);
	assert_true(n >= want / 2 && n <= want);
	int64_t prev = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t t = (int64_t)c->first_u32[i][0] * 1000000000 + c->first_u32[i][1];
		int64_t ms = (t - T0) / MS;
		assert_true(t >= prev && (t - T0) % MS == 0);
		/* /a at 10 ms steps, /b 5 ms after every other one, /tl at T0 */
		if (!all)
			assert_true(ms % 20 == 5);
		else
			assert_true(ms % 10 == 0 || ms % 20 == 5);
		prev = t;
	}
	assert_int_equal(prev, last_t);
	sub_free(c);
}

static void test_clock_topics(void **state)
{
	(void)state;
	clock_topics_run((const char *const[]){"/b", NULL}, false, NB, T0 + 985 * MS);
	clock_topics_run(NULL, true, NA + NB + 1, T0 + 990 * MS);
}

/* A bag with its own /clock and a service's events: the player's /clock
 * replaces the bag's; --services / --exclude-services select the events. */
static void test_clock_services_select(void **state)
{
	(void)state;
	char *bag = malloc(strlen(g_dir) + 8);
	sprintf(bag, "%s/svc", g_dir);
	struct bag_writer_options wo = {.uri = bag};
	struct bag_writer *w = tb_writer_open(&wo);
	uint32_t a = add_topic(w, "/a", false);
	uint32_t k = add_topic_of(w, "/clock", "rosgraph_msgs/msg/Clock", false,
				  BAG_HISTORY_KEEP_LAST);
	uint32_t e = add_topic_of(w, "/svc/_service_event", "example_interfaces/srv/Trigger_Event",
				  false, BAG_HISTORY_KEEP_LAST);
	put_string(w, a, T0, 0);
	put_string(w, k, T0, 1);
	put_string(w, e, T0, 2);
	struct bt_error err;
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	static const struct {
		double hz;
		const char *clock_topic, *topic, *service, *exclude_service;
		size_t n;
	} cases[] = {
		{0, NULL, NULL, NULL, NULL, 3},       {50, NULL, NULL, NULL, NULL, 2},
		{0, "/a", NULL, NULL, NULL, 2},       {0, NULL, NULL, "svc", NULL, 1},
		{0, NULL, "/a", "/svc", NULL, 2},     {0, NULL, NULL, NULL, "/svc", 2},
		{50, NULL, NULL, NULL, "svc", 1},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct play_options o;
		opts(&o, 139, cases[i].topic ? (const char *const[]){cases[i].topic, NULL} : NULL);
		o.bag_path = bag;
		o.clock_hz = cases[i].hz;
		o.clock_topics = (const char *const[]){cases[i].clock_topic};
		o.n_clock_topics = cases[i].clock_topic != NULL;
		o.select.services = (const char *const[]){cases[i].service};
		o.select.n_services = cases[i].service != NULL;
		o.select.exclude_services = (const char *const[]){cases[i].exclude_service};
		o.select.n_exclude_services = cases[i].exclude_service != NULL;
		o.start_paused = true;
		struct play *p = start(&o);
		struct play_view v;
		struct play_topic_view tv[3];
		play_view_get(p, &v, tv, 3);
		if (play_n_topics(p) != cases[i].n)
			fail_msg("case %zu: %zu topics, want %zu", i, play_n_topics(p), cases[i].n);
		for (size_t t = 0; t < play_n_topics(p); t++) {
			bool player_clock = cases[i].hz > 0 || cases[i].clock_topic;
			assert_false(player_clock && !strcmp(tv[t].name, "/clock"));
			assert_false(cases[i].exclude_service && strstr(tv[t].name, "/svc/"));
			assert_true(!cases[i].service || strstr(tv[t].name, "/svc/") ||
				    (cases[i].topic && !strcmp(tv[t].name, cases[i].topic)));
		}
		play_request_stop(p);
		finish(p);
	}
	/* usage errors, each naming what is wrong */
	static const struct {
		double hz;
		const char *clock_topic, *service;
		bool all;
		const char *says;
	} bad[] = {
		{50, "/a", NULL, false, "--clock and --clock-topics exclude"},
		{50, NULL, NULL, true, "--clock and --clock-topics-all exclude"},
		{0, "/a", NULL, true, "--clock-topics and --clock-topics-all"},
		{0, "/nope", NULL, false, "--clock-topics topic /nope is not in the bag"},
		{0, NULL, "nosvc", false, "/nosvc/_service_event is not in the bag"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct play_options o;
		opts(&o, 139, NULL);
		o.bag_path = bag;
		o.clock_hz = bad[i].hz;
		o.clock_topics = (const char *const[]){bad[i].clock_topic};
		o.n_clock_topics = bad[i].clock_topic != NULL;
		o.clock_topics_all = bad[i].all;
		o.select.services = (const char *const[]){bad[i].service};
		o.select.n_services = bad[i].service != NULL;
		struct play *q = NULL;
		if (play_start(&o, &q, &err) != BT_ERR_USAGE || !strstr(err.msg, bad[i].says))
			fail_msg("bad %zu: %s", i, err.msg);
	}
	free(bag);
}

TU_MAIN_GROUP(group_setup, group_teardown,
	cmocka_unit_test(test_step),
	cmocka_unit_test(test_loop_count),
	cmocka_unit_test(test_window),
	cmocka_unit_test(test_remap_select),
	cmocka_unit_test(test_rate),
	cmocka_unit_test(test_clock),
	cmocka_unit_test(test_clock_topics),
	cmocka_unit_test(test_clock_services_select),
	cmocka_unit_test(test_late_joiner),
	cmocka_unit_test(test_wait_for_subscribers),
	cmocka_unit_test(test_controls_at_top_speed),
	cmocka_unit_test(test_source_time))
