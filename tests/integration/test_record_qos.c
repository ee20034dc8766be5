/* `bagtop record` and QoS, end to end: a transient-local publisher's
 * history reaches a recorder that starts later, the offered QoS lands in
 * metadata.yaml, rosbag2's override file changes what the recorder asks
 * for, an incompatible request is warned about once, and a publisher
 * joining later adds its offered QoS. Real bagtop and tpub processes on
 * loopback-only DDS domains 120..123, 160 and 83. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "test_util.h"

/* A transient-local publisher (depth 5, 10 messages) that stays alive for
 * 6 seconds after writing; its output goes to a file under dir. */
static struct rec_pub tl_publisher(const char *dir, int domain, const char *topic)
{
	char *extra[] = {"--transient-local", "--depth", "5", "--count", "10", "--rate", "100",
			 "--linger", "6", NULL};
	struct rec_pub p = rec_pub_start(dir, domain, topic, extra);
	rec_sleep(1.5); /* all 10 written before the recorder exists */
	return p;
}

/* Offered QoS of `topic` as metadata.yaml has it (the only publisher). */
static struct bag_qos topic_qos(const char *dir, const char *topic)
{
	struct bag_metadata md;
	rec_metadata(dir, &md);
	struct bag_qos q = {0};
	bool found = false;
	for (size_t i = 0; i < md.n_topics; i++) {
		const struct bag_topic *t = &md.topics[i].topic;
		if (strcmp(t->name, topic) == 0 && t->n_qos == 1) {
			q = t->qos[0];
			found = true;
		}
	}
	bag_metadata_fini(&md);
	if (!found)
		fail_msg("%s: no single offered QoS profile in metadata.yaml", topic);
	return q;
}

/* A recorder (with `env`, for `settle` s) joining a transient-local
 * publisher late gets its history (the last 5 of 10), all written, none
 * counted as lost, and metadata.yaml says what the publisher offered. */
static void tl_late_join(int domain, const char *env, double settle)
{
	char *tmp = tu_mkdtemp("tlpub");
	struct rec_pub tp = tl_publisher(tmp, domain, "rt/tl");
	struct rec r;
	char *args[] = {"/tl", NULL};
	rec_start(&r, domain, args, env);
	rec_sleep(settle);
	rec_stop(&r, SIGINT);
	assert_int_equal(rec_pub_finish(&tp), 10);
	printf("%s", r.out);
	assert_int_equal(tb_count(r.dir, "/tl", TB_ALL), 5);
	assert_null(strstr(r.out, "LOST"));
	assert_non_null(strstr(r.out, "Recorded 5 messages"));
	struct bag_qos q = topic_qos(r.dir, "/tl");
	assert_int_equal(q.durability, BAG_DURABILITY_TRANSIENT_LOCAL);
	assert_int_equal(q.reliability, BAG_RELIABILITY_RELIABLE);
	assert_int_equal(q.history, BAG_HISTORY_KEEP_LAST);
	assert_int_equal(q.depth, 5);
	rec_check(r.dir);
	rec_free(&r);
	tu_rmrf(tmp);
	free(tmp);
}

/* 1. A late-joining recorder. */
static void test_record_tl_late_joiner(void **state)
{
	(void)state;
	tl_late_join(120, NULL, 0.0);
}

/* 1b. The same while the discovery thread takes 0.8 s between creating the
 * reader and marking the topic subscribed (a test hook), stopped after
 * that: the history, delivered as soon as the reader exists, is written
 * (it was counted as lost, "write failed", when the consumer waited for
 * `subscribed` rather than for the topic's description). */
static void test_record_tl_slow_subscribe(void **state)
{
	(void)state;
	tl_late_join(83, "BAGTOP_TEST_SUBSCRIBE_DELAY_US=800000", 1.5);
}

static char *write_overrides(const char *dir, const char *text)
{
	char *path = bt_xasprintf("%s/overrides.yaml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	assert_true(fputs(text, f) >= 0);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* 2. An override asking for volatile durability: the same late joiner gets
 * none of the history, only what is published afterwards. */
static void test_record_override_volatile(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("ovpub");
	char *ov = write_overrides(tmp, "/tl:\n  durability: volatile\n  reliability: reliable\n");
	struct rec_pub tp = tl_publisher(tmp, 121, "rt/tl");
	struct rec r;
	char *args[] = {"/tl", "--qos-profile-overrides-path", ov, NULL};
	rec_start(&r, 121, args, NULL);
	/* A volatile publisher on the same topic, after the recorder joined. */
	char *extra[] = {"--count", "7", "--rate", "50", "--wait-readers", "1", NULL};
	struct rec_pub tp2 = rec_pub_start(tmp, 121, "rt/tl", extra);
	assert_int_equal(rec_pub_finish(&tp2), 7);
	rec_stop(&r, SIGINT);
	assert_int_equal(rec_pub_finish(&tp), 10);
	printf("%s", r.out);
	rec_expect_count(r.dir, "/tl", 7);
	rec_free(&r);
	tu_rmrf(tmp);
	free(ov);
	free(tmp);
}

/* 3. An override demanding reliable from a best-effort publisher: DDS
 * cannot match them; the recorder says so once, names the topic, and
 * finishes a valid (empty) bag. */
static void test_record_incompatible_warned(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("incompat");
	char *ov = write_overrides(tmp, "/be:\n  reliability: reliable\n");
	struct rec r;
	char *args[] = {"/be", "--qos-profile-overrides-path", ov, NULL};
	rec_start(&r, 122, args, NULL);
	char *extra[] = {"--best-effort", "--count", "30", "--rate", "20", NULL};
	struct rec_pub tp = rec_pub_start(tmp, 122, "rt/be", extra);
	assert_int_equal(rec_pub_finish(&tp), 30);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(tu_count_of(r.out, "QoS is incompatible"), 1);
	assert_non_null(strstr(r.out, "/be: a publisher's QoS is incompatible"));
	assert_int_equal(tb_count(r.dir, NULL, TB_ALL), 0);
	rec_check(r.dir);
	rec_free(&r);
	tu_rmrf(tmp);
	free(ov);
	free(tmp);
}

/* The offered profiles of `topic` in list `q[0..n)`: one reliable
 * volatile, one best-effort transient-local of depth 3, in that order. */
static void assert_joiner_profiles(const char *where, const struct bag_qos *q, size_t n)
{
	if (n != 2)
		fail_msg("%s: %zu offered QoS profiles for /q, want 2", where, n);
	assert_int_equal(q[0].reliability, BAG_RELIABILITY_RELIABLE);
	assert_int_equal(q[0].durability, BAG_DURABILITY_VOLATILE);
	assert_int_equal(q[0].depth, 100);
	assert_int_equal(q[1].reliability, BAG_RELIABILITY_BEST_EFFORT);
	assert_int_equal(q[1].durability, BAG_DURABILITY_TRANSIENT_LOCAL);
	assert_int_equal(q[1].depth, 3);
}

/* The storage file's topics table (the reader without metadata.yaml). */
static void assert_joiner_in_files(const char *dir)
{
	struct bag_reader *br;
	struct bt_error err;
	if (bag_reader_open(dir, BAG_READER_IGNORE_METADATA, &br, &err) != BT_OK)
		fail_msg("reader: %s", err.msg);
	size_t nt;
	const struct bag_reader_topic *t = bag_reader_topics(br, &nt);
	assert_int_equal(nt, 1);
	assert_joiner_profiles("topics table", t[0].topic.qos, t[0].topic.n_qos);
	bag_reader_close(br);
}

/* 4. Publisher A (reliable, volatile) is there when /q is subscribed;
 * publisher B (best effort, transient-local, depth 3) joins 2.5 s later,
 * and C, offering the same as B, once B has left. All publish into the
 * bag, and metadata.yaml as well as the file's topics table list A's and
 * B's offered profiles (C's is B's). */
static void test_record_qos_joiner(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("qosjoin");
	char *a_args[] = {"--count", "60", "--rate", "10", "--wait-readers", "1",
			  "--wait-timeout", "10", NULL};
	struct rec_pub a = rec_pub_start(tmp, 160, "rt/q", a_args);
	rec_sleep(0.5);
	struct rec r;
	char *args[] = {"/q", NULL};
	rec_start(&r, 160, args, NULL);
	rec_sleep(2.5);
	char *b_args[] = {"--best-effort", "--transient-local", "--depth", "3", "--count", "20",
			  "--rate", "10", "--wait-readers", "1", "--wait-timeout", "10", NULL};
	struct rec_pub b = rec_pub_start(tmp, 160, "rt/q", b_args);
	long nb = rec_pub_finish(&b);
	/* C offers what B did, after B left: it takes over B's entry instead
	 * of growing the list (see sub_profile_note). */
	rec_sleep(1.0);
	b_args[5] = "10"; /* --count */
	struct rec_pub c3 = rec_pub_start(tmp, 160, "rt/q", b_args);
	long nc = rec_pub_finish(&c3), na = rec_pub_finish(&a);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(na, 60);
	assert_int_equal(nb, 20);
	assert_int_equal(nc, 10);
	/* Every one of A's (reliable); B's best-effort ones on loopback too,
	 * bar a rare drop while the reader is swapped. */
	assert_true(tb_count(r.dir, "/q", TB_ALL) >= 60 + 15);
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	assert_int_equal(md.n_topics, 1);
	assert_joiner_profiles("metadata.yaml", md.topics[0].topic.qos, md.topics[0].topic.n_qos);
	bag_metadata_fini(&md);
	assert_joiner_in_files(r.dir);
	rec_check(r.dir);
	rec_free(&r);
	tu_rmrf(tmp);
	free(tmp);
}

REC_MAIN(
	cmocka_unit_test(test_record_tl_late_joiner),
	cmocka_unit_test(test_record_tl_slow_subscribe),
	cmocka_unit_test(test_record_override_volatile),
	cmocka_unit_test(test_record_incompatible_warned),
	cmocka_unit_test(test_record_qos_joiner))
