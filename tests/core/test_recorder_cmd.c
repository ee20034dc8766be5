/* The recorder's command API against real publishers (tpub processes) on
 * loopback-only DDS domains 85..86 and 190: switching a recorded topic off
 * stops its recording but not its live counts; switching on a topic the
 * selection left out subscribes and records it; pause and resume; marking
 * a topic for repeating after its only message arrived repeats it; the
 * type hash in USER_DATA reaches the topic registry, and ROS 2 publishers
 * with and without one are counted (domain 34). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_reader.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "rec_recorder.h"
#include "test_bag.h"
#include "test_util.h"

struct cmd_rig {
	char *tmp, *bag;
	struct rec_recorder *rec;
};

static void rig_start(struct cmd_rig *g, uint32_t domain, const char *const *topics, size_t n)
{
	g->tmp = tu_mkdtemp("reccmd");
	g->bag = bt_xasprintf("%s/bag", g->tmp);
	struct rec_recorder_options o = {0};
	o.domain_id = domain;
	o.select.topics = topics;
	o.select.n_topics = n;
	o.writer.uri = g->bag;
	o.writer.ros_distro = "";
	o.max_cache_size = 1 << 20;
	struct bt_error err = {0};
	if (rec_recorder_start(&o, &g->rec, &err) != BT_OK)
		fail_msg("start: %s", err.msg);
}

static void rig_stop(struct cmd_rig *g)
{
	struct bt_error err = {0};
	if (rec_recorder_stop(g->rec, &err) != BT_OK)
		fail_msg("stop: %s", err.msg);
}

static void rig_free(struct cmd_rig *g)
{
	rec_recorder_free(g->rec);
	tu_rmrf(g->tmp);
	free(g->tmp);
	free(g->bag);
}

static struct rec_topic *topic_named(struct cmd_rig *g, const char *name)
{
	const struct rec_topics *t = rec_recorder_topics(g->rec);
	for (size_t i = 0; i < rec_topics_count(t); i++)
		if (strcmp(rec_topics_get(t, i)->names.name, name) == 0)
			return rec_topics_get(t, i);
	return NULL;
}

static uint64_t ld(atomic_uint_fast64_t *a)
{
	return atomic_load(a);
}

/* Waits up to 10 s until the topic's counter passes `min`. */
static void wait_count(atomic_uint_fast64_t *ctr, uint64_t min, const char *what)
{
	double end = rec_now() + 10.0;
	while (ld(ctr) <= min) {
		if (rec_now() > end)
			fail_msg("%s stayed at %llu", what, (unsigned long long)ld(ctr));
		rec_sleep(0.05);
	}
}

static pid_t publish(int domain, const char *topic, const char *out)
{
	char *extra[] = {"--count", "300", "--rate", "50", NULL};
	return tpub_spawn(domain, topic, extra, out);
}

/* /on is selected, /off is not. Switch /on off and /off on mid-way. */
static void test_toggle_topics(void **state)
{
	(void)state;
	struct cmd_rig g;
	const char *topics[] = {"/on"};
	rig_start(&g, 85, topics, 1);
	char *o1 = bt_xasprintf("%s/p1.txt", g.tmp), *o2 = bt_xasprintf("%s/p2.txt", g.tmp);
	pid_t p1 = publish(85, "rt/on", o1), p2 = publish(85, "rt/off", o2);
	double end = rec_now() + 10.0;
	struct rec_topic *on, *off;
	while (!(on = topic_named(&g, "/on")) || !(off = topic_named(&g, "/off"))) {
		if (rec_now() > end)
			fail_msg("both topics not discovered within 10 s");
		rec_sleep(0.05);
	}
	wait_count(&on->st.recorded, 20, "/on recorded");
	assert_false(atomic_load(&off->subscribed));
	assert_int_equal(ld(&off->st.received) + ld(&off->st.ignored), 0);

	rec_recorder_set_topic_enabled(g.rec, on->index, false);
	rec_recorder_set_topic_enabled(g.rec, off->index, true);
	rec_sleep(0.5); /* what was in flight is written */
	uint64_t on_rec = ld(&on->st.recorded);
	wait_count(&off->st.recorded, 20, "/off recorded after switching it on");
	wait_count(&on->st.ignored, 20, "/on live count after switching it off");
	assert_int_equal(ld(&on->st.recorded), on_rec);
	assert_int_equal(ld(&on->st.received), on_rec);

	rec_recorder_pause(g.rec, true);
	rec_sleep(0.5);
	uint64_t off_rec = ld(&off->st.recorded);
	rec_sleep(1.0);
	assert_int_equal(ld(&off->st.recorded), off_rec);
	rec_recorder_pause(g.rec, false);
	wait_count(&off->st.recorded, off_rec + 10, "/off recorded after resuming");
	rig_stop(&g);

	struct bag_counts c;
	bag_count(g.bag, &c);
	assert_int_equal(counts_of(&c, "/on"), on_rec);
	assert_int_equal(counts_of(&c, "/off"), ld(&off->st.recorded));
	counts_free(&c);
	kill(p1, SIGTERM);
	kill(p2, SIGTERM);
	(void)rec_wait(p1, 10.0, "tpub");
	(void)rec_wait(p2, 10.0, "tpub");
	free(o1);
	free(o2);
	rig_free(&g);
}

/* Waits up to 20 s until the recorder's status satisfies `reached`. */
static void wait_status(struct cmd_rig *g, bool (*reached)(const struct rec_status *),
			const char *what)
{
	double end = rec_now() + 20.0;
	struct rec_status st;
	for (rec_recorder_get_status(g->rec, &st); !reached(&st);
	     rec_recorder_get_status(g->rec, &st)) {
		if (rec_now() > end)
			fail_msg("%s: not within 20 s", what);
		rec_sleep(0.05);
	}
}

static bool repeat_kept(const struct rec_status *st)
{
	return st->repeat_kept >= 1;
}

static bool split_done(const struct rec_status *st)
{
	return st->file_index >= 1;
}

/* /latched is published once, transient-local (as /tf_static), and
 * recorded. Marked for repeating only after that message arrived, then a
 * split: the new file must start with it (the `t` then `n` of the live
 * view). */
static void test_repeat_marked_after_arrival(void **state)
{
	(void)state;
	struct cmd_rig g;
	const char *topics[] = {"/latched"};
	rig_start(&g, 190, topics, 1);
	char *out = bt_xasprintf("%s/p.txt", g.tmp);
	char *extra[] = {"--count", "1", "--transient-local", "--wait-readers", "1",
			 "--wait-timeout", "20", "--linger", "30", NULL};
	pid_t p = tpub_spawn(190, "rt/latched", extra, out);
	double end = rec_now() + 20.0;
	struct rec_topic *tp;
	while (!(tp = topic_named(&g, "/latched"))) {
		if (rec_now() > end)
			fail_msg("/latched not discovered within 20 s");
		rec_sleep(0.05);
	}
	wait_count(&tp->st.recorded, 0, "/latched recorded");

	assert_int_equal(rec_recorder_set_repeat(g.rec, tp->index, 1), BT_OK);
	wait_status(&g, repeat_kept, "the message from before the mark kept");
	struct rec_status st;
	rec_recorder_get_status(g.rec, &st);
	assert_int_equal(st.repeat_kept, 1); /* once, though the topic's readers saw it twice */
	rec_recorder_split(g.rec);
	wait_status(&g, split_done, "the split");
	rig_stop(&g);
	char *f0 = bt_xasprintf("%s/bag_0.db3", g.bag), *f1 = bt_xasprintf("%s/bag_1.db3", g.bag);
	assert_int_equal(tb_count(f0, "/latched", TB_ALL), 1);
	assert_int_equal(tb_count(f1, "/latched", TB_ALL), 1);
	assert_int_equal(ld(&tp->st.received), 1); /* the history is not received again */
	kill(p, SIGTERM);
	(void)rec_wait(p, 10.0, "tpub");
	free(f0);
	free(f1);
	free(out);
	rig_free(&g);
}

/* An Iron+ publisher (typehash in USER_DATA) on /th_a, selected, and a
 * Humble-like one (none) on /th_b, not selected: the registry holds /th_a's
 * hash once it is subscribed, and both publishers are counted. */
static void test_type_hash_counts(void **state)
{
	(void)state;
	static const char hash[] =
		"RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18";
	struct cmd_rig g;
	const char *topics[] = {"/th_a"};
	rig_start(&g, 34, topics, 1);
	char *o1 = bt_xasprintf("%s/p1.txt", g.tmp), *o2 = bt_xasprintf("%s/p2.txt", g.tmp);
	char *ud = bt_xasprintf("typehash=%s;", hash);
	char *with[] = {"--count", "100", "--rate", "50", "--user-data", ud, NULL};
	pid_t p1 = tpub_spawn(34, "rt/th_a", with, o1);
	pid_t p2 = publish(34, "rt/th_b", o2);
	double end = rec_now() + 10.0;
	uint64_t n_with = 0, n_without = 0;
	struct rec_topic *a = NULL;
	while (n_with < 1 || n_without < 1 || a == NULL || !atomic_load(&a->subscribed)) {
		if (rec_now() > end)
			fail_msg("after 10 s: %llu with, %llu without a type hash",
				 (unsigned long long)n_with, (unsigned long long)n_without);
		rec_sleep(0.05);
		rec_recorder_type_hash_counts(g.rec, &n_with, &n_without);
		a = topic_named(&g, "/th_a");
	}
	assert_int_equal(n_with, 1);
	assert_int_equal(n_without, 1);
	assert_non_null(a->type_hash);
	assert_string_equal(a->type_hash, hash);
	assert_string_equal(a->bag.type_description_hash, hash);
	kill(p1, SIGTERM);
	kill(p2, SIGTERM);
	(void)tu_wait(p1, 10.0);
	(void)tu_wait(p2, 10.0);
	rig_stop(&g);
	rig_free(&g);
	free(ud);
	free(o1);
	free(o2);
}

int main(void)
{
	if (!getenv("BAGTOP_TPUB")) {
		fprintf(stderr, "BAGTOP_TPUB not set\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_toggle_topics),
		cmocka_unit_test(test_repeat_marked_after_arrival),
		cmocka_unit_test(test_type_hash_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
