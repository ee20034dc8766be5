/* `bagtop record -s mcap` with real publishers (tpub) on loopback-only DDS
 * domains 53..56: splitting every second with each MCAP preset, stopped by
 * SIGINT, SIGTERM or SIGHUP (info opens the bag, check passes, every
 * message is there with its source timestamp as publish_time); snapshot mode and
 * repeat-transient-local give the same messages as with sqlite3 (both bags
 * read back and compared); kill -9 during a recording at ~5k msgs/s, again
 * and again: after `bagtop reindex` every file opens, check passes, the bag
 * holds the run of messages received (no lost chunk), and what is lost is only
 * what arrived in the last second before the kill. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "test_util.h"

/* The number N of tpub's "hello N" (std_msgs/String CDR: 4-byte header,
 * u32 length, text); -1 if it is not one. */
static long hello_of(const uint8_t *d, size_t len)
{
	if (len < 8 + 7 || memcmp(d + 8, "hello ", 6) != 0)
		return -1;
	return strtol((const char *)d + 14, NULL, 10);
}

/* Files of the bag whose name ends with `ext`. */
static size_t files_with(const char *dir, const char *ext)
{
	char **names;
	size_t n, k = 0;
	assert_int_equal(bt_fs_list_dir(dir, &names, &n, NULL), BT_OK);
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]), e = strlen(ext);
		k += l > e && !strcmp(names[i] + l - e, ext);
	}
	bt_fs_free_list(names, n);
	return k;
}

/* ---- 1. -d 1 with each preset ---- */

/* Each message's publish_time must be its sample's source timestamp, as
 * tpub --source-time T set it (T + N us for "hello N"), an hour before it
 * was received (log_time). */
struct sent_check {
	long long t0;
	size_t n, bad;
};

static void sent_check_msg(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			   void *arg)
{
	(void)t;
	struct sent_check *c = arg;
	long hello = hello_of(m->data, m->len);
	c->n++;
	if (hello < 0 || m->send_time != c->t0 + (long long)hello * 1000 ||
	    m->timestamp - m->send_time < INT64_C(3500000000000)) {
		if (c->bad++ == 0)
			printf("message %ld: publish_time %lld, log_time %lld, want publish_time %lld\n",
			       hello, (long long)m->send_time, (long long)m->timestamp,
			       c->t0 + (long long)hello * 1000);
	}
}

static void test_split_each_preset(void **state)
{
	(void)state;
	char t0[32];
	long long sent0 = (long long)bt_time_realtime_ns() - INT64_C(3600000000000);
	snprintf(t0, sizeof t0, "%lld", sent0);
	static const char *const presets[] = {"none", "fastwrite", "zstd_fast", "zstd_small"};
	/* each stopped by another of the stop signals: the file is finished */
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGINT};
	for (size_t i = 0; i < 4; i++) {
		struct rec r;
		char *args[] = {"-s", "mcap", "--storage-preset-profile", (char *)presets[i], "-d",
				"1", "/m", NULL};
		char *extra[] = {"--count", "300", "--rate", "100", "--size", "2000",
				 "--wait-readers", "1", "--source-time", t0, NULL};
		rec_start(&r, 53, args, NULL);
		rec_publish(&r, 53, "rt/m", extra, 300);
		rec_stop(&r, sigs[i]);
		printf("%s", r.out);
		size_t files = files_with(r.dir, ".mcap");
		printf("%s: %zu .mcap files\n", presets[i], files);
		assert_true(files >= 3);
		assert_int_equal(files_with(r.dir, ".db3"), 0);
		char *out = NULL;
		assert_int_equal(tu_bagtop(&out, "info", r.dir, NULL), 0);
		assert_non_null(strstr(out, "Storage id:        mcap"));
		assert_non_null(strstr(out, "Messages:          300"));
		free(out);
		rec_expect_count(r.dir, "/m", 300); /* and bagtop check */
		struct sent_check sc = {sent0, 0, 0};
		tb_each(r.dir, 0, sent_check_msg, &sc);
		assert_int_equal(sc.n, 300);
		if (sc.bad)
			fail_msg("%s: %zu of 300 messages without their send time", presets[i],
				 sc.bad);
		struct bag_metadata md;
		rec_metadata(r.dir, &md);
		assert_string_equal(md.storage_identifier, "mcap");
		assert_int_equal(md.n_paths, files);
		bag_metadata_fini(&md);
		rec_free(&r);
	}
}

/* ---- 2, 3: the same messages as sqlite3 ---- */

struct msgs {
	char **topic;
	long *hello;
	size_t n, cap;
	size_t file_first_tl; /* files whose first message is /tl */
	size_t last_file;
	size_t files; /* storage files in the bag */
};

static void msgs_add(const struct bag_read_msg *m, const struct bag_reader_topic *t, void *arg)
{
	struct msgs *s = arg;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->topic = bt_xrealloc(s->topic, s->cap * sizeof *s->topic);
		s->hello = bt_xrealloc(s->hello, s->cap * sizeof *s->hello);
	}
	if (s->n == 0 || m->file != s->last_file)
		s->file_first_tl += !strcmp(t->topic.name, "/tl");
	s->last_file = m->file;
	s->topic[s->n] = bt_xstrdup(t->topic.name);
	s->hello[s->n] = hello_of(m->data, m->len);
	s->n++;
}

static void msgs_free(struct msgs *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->topic[i]);
	free(s->topic);
	free(s->hello);
}

static size_t msgs_count(const struct msgs *s, const char *topic)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++)
		k += !strcmp(s->topic[i], topic);
	return k;
}

/* `bagtop snapshot --pid PID` must succeed. */
static void snapshot_now(pid_t pid)
{
	char p[32], *out = NULL;
	snprintf(p, sizeof p, "%ld", (long)pid);
	int rc = tu_bagtop(&out, "snapshot", "--pid", p, "--timeout", "20", NULL);
	if (rc != 0)
		fail_msg("bagtop snapshot: exit %d: %s", rc, out);
	free(out);
}

/* One recording of /tl (transient-local, repeated into every file) and
 * `fast` /fast messages at 500/s, on `storage`: in snapshot mode (domain
 * 54) one snapshot after every /fast message was published, else split
 * every second (domain 55). The messages read back, and the number of
 * files, go into *s. */
static void tl_run(const char *storage, bool snapshot, long fast, struct msgs *s)
{
	struct rec r;
	int dom = snapshot ? 54 : 55;
	char *snap_args[] = {"-s", (char *)storage, "/tl", "/fast", "--snapshot-mode",
			     "--repeat-transient-local", "/tl", NULL};
	char *split_args[] = {"-s", (char *)storage, "-d", "1", "/tl", "/fast",
			      "--repeat-transient-local", "/tl", NULL};
	rec_start(&r, dom, snapshot ? snap_args : split_args, NULL);
	char *tl_args[] = {"--transient-local", "--count", "1", "--wait-readers", "1",
			   "--linger", "8", NULL};
	struct rec_pub tl = rec_pub_start(r.tmp, dom, "rt/tl", tl_args);
	rec_sleep(1.0);
	char count[24];
	snprintf(count, sizeof count, "%ld", fast);
	char *fast_args[] = {"--count", count, "--rate", "500", "--wait-readers", "1", NULL};
	struct rec_pub fp = rec_pub_start(r.tmp, dom, "rt/fast", fast_args);
	assert_int_equal(rec_pub_finish(&fp), fast);
	if (snapshot) {
		rec_sleep(0.5);
		snapshot_now(r.pid);
	}
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(rec_pub_finish(&tl), 1);
	rec_check(r.dir);
	tb_each(r.dir, 0, msgs_add, s);
	s->files = files_with(r.dir, !strcmp(storage, "mcap") ? ".mcap" : ".db3");
	rec_free(&r);
}

/* The same recording on sqlite3 into s[0], then on mcap into s[1]. */
static void tl_run_both(bool snapshot, long fast, struct msgs s[2])
{
	tl_run("sqlite3", snapshot, fast, &s[0]);
	tl_run("mcap", snapshot, fast, &s[1]);
}

static void test_snapshot_same(void **state)
{
	(void)state;
	struct msgs s[2] = {{0}, {0}};
	tl_run_both(true, 500, s);
	const struct msgs *a = &s[0], *b = &s[1];
	printf("snapshot: sqlite3 %zu messages in %zu files, mcap %zu in %zu\n", a->n, a->files,
	       b->n, b->files);
	assert_int_equal(a->files, 1);
	assert_int_equal(b->files, 1); /* the snapshot is one .mcap */
	assert_int_equal(a->n, 501);
	assert_int_equal(b->n, a->n);
	for (size_t i = 0; i < a->n; i++) {
		if (strcmp(a->topic[i], b->topic[i]) != 0 || a->hello[i] != b->hello[i])
			fail_msg("message %zu: sqlite3 %s %ld, mcap %s %ld", i, a->topic[i],
				 a->hello[i], b->topic[i], b->hello[i]);
	}
	assert_string_equal(b->topic[0], "/tl");
	msgs_free(&s[0]);
	msgs_free(&s[1]);
}

static void test_repeat_tl_same(void **state)
{
	(void)state;
	struct msgs both[2] = {{0}, {0}};
	/* -d 1: every file starts with /tl's message; every /fast message is
	 * there once */
	tl_run_both(false, 1500, both);
	printf("repeat-transient-local: sqlite3 %zu files, %zu /tl; mcap %zu files, %zu /tl\n",
	       both[0].files, msgs_count(&both[0], "/tl"), both[1].files,
	       msgs_count(&both[1], "/tl"));
	for (size_t k = 0; k < 2; k++) {
		struct msgs *s = &both[k];
		assert_true(s->files >= 3);
		assert_int_equal(msgs_count(s, "/fast"), 1500);
		assert_int_equal(msgs_count(s, "/tl"), s->files); /* once per file */
		assert_int_equal(s->file_first_tl, s->files);     /* first in each */
		/* /fast: 0..1499, each once, in order */
		long next = 0;
		for (size_t i = 0; i < s->n; i++) {
			if (!strcmp(s->topic[i], "/tl")) {
				assert_int_equal(s->hello[i], 0);
				continue;
			}
			if (s->hello[i] != next)
				fail_msg("%s: /fast %ld where %ld was due", k ? "mcap" : "sqlite3",
					 s->hello[i], next);
			next++;
		}
		msgs_free(s);
	}
}

/* ---- 4. kill -9 ---- */

#define CRASH_RATE 5000
#define CRASH_ROUNDS 30
#define CRASH_MIN_ROUNDS 10
#define CRASH_BUDGET_S 200.0
/* What a kill may lose: what arrived in the last second (the chunk not
 * yet closed), plus the writer thread's lag (its 100 ms wake, a busy
 * machine). */
#define CRASH_MAX_LOST_S 1.3

/* A gap in the middle of the bag: messages that never reached it. A few
 * can be transport losses on a loaded machine (a killed recorder tells
 * none); a lost chunk would be a second's worth. */
#define CRASH_MAX_GAP (CRASH_RATE / 10)

struct crash_seen {
	long first, last, gaps, max_gap;
	int64_t t_last;
	size_t n;
};

static void crash_msg(const struct bag_read_msg *m, const struct bag_reader_topic *t, void *arg)
{
	(void)t;
	struct crash_seen *s = arg;
	long h = hello_of(m->data, m->len);
	if (s->n == 0)
		s->first = h;
	else if (h != s->last + 1) {
		s->gaps++;
		s->max_gap = h - s->last - 1 > s->max_gap ? h - s->last - 1 : s->max_gap;
	}
	s->last = h;
	s->t_last = m->timestamp;
	s->n++;
}

static double crash_round(const char *tmp, unsigned round)
{
	char *dir = bt_xasprintf("%s/bag%u", tmp, round);
	char *out_path = bt_xasprintf("%s/rec%u.txt", tmp, round);
	char *argv[] = {getenv("BAGTOP_BIN"), "record", "-s", "mcap", "/crash", "--domain", "56",
			"-o", dir, "--no-tui", NULL};
	pid_t pid = rec_spawn(argv, out_path, NULL);
	/* until it records, then 1.5..2.5 s of messages: more than the first
	 * second, and the kill anywhere in the once-a-second chunk cycle */
	(void)rec_wait_said(out_path, "Recording to", 15.0);
	rec_sleep(2.5 + (double)(rand() % 1000) / 1000.0);
	int64_t t_kill = bt_time_realtime_ns();
	assert_int_equal(tu_stop(pid, SIGKILL, 30.0), 128 + SIGKILL);
	char *text = NULL;
	int rc = tu_bagtop(&text, "reindex", dir, NULL);
	if (rc != 0)
		fail_msg("reindex (round %u) exit %d: %s", round, rc, text);
	free(text);
	rc = tu_bagtop(&text, "check", dir, NULL);
	if (rc != 0)
		fail_msg("check (round %u) exit %d: %s", round, rc, text);
	free(text);
	struct crash_seen s = {0};
	tb_each(dir, 0, crash_msg, &s);
	double lost_s = (double)(t_kill - s.t_last) / 1e9;
	printf("  round %2u: %zu .mcap, %zu messages (hello %ld..%ld, %ld gaps of <= %ld), last %.3f s "
	       "before the kill: ~%.0f lost\n", round, files_with(dir, ".mcap"), s.n, s.first,
	       s.last, s.gaps, s.max_gap, lost_s, lost_s * CRASH_RATE);
	assert_true(s.n > CRASH_RATE); /* more than the first second */
	assert_true(s.max_gap < CRASH_MAX_GAP);
	if (lost_s > CRASH_MAX_LOST_S)
		fail_msg("round %u: the bag ends %.3f s before the kill", round, lost_s);
	tu_rmrf(dir);
	free(dir);
	free(out_path);
	return lost_s;
}

static void test_crash_kill9(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("mcapcrash");
	srand((unsigned)time(NULL));
	/* five seconds of history (the recorder's readers take the offered
	 * depth): a recorder lagging on a busy machine loses nothing; with one
	 * second, two runs on a loaded machine each lost a gap of 562 and 653 */
	char *pub_args[] = {"--count", "5000000", "--rate", "5000", "--depth", "25000",
			    "--wait-readers", "1", "--wait-timeout", "30", NULL};
	struct rec_pub pub = rec_pub_start(tmp, 56, "rt/crash", pub_args);
	double t0 = rec_now(), worst = 0;
	unsigned rounds = 0, most = CRASH_ROUNDS, least = CRASH_MIN_ROUNDS;
	/* fewer: when debugging, and in the sanitizer suites (dev.sh asan/tsan) */
	const char *env = getenv("BAGTOP_CRASH_ROUNDS");
	if (env && atoi(env) > 0)
		most = least = (unsigned)atoi(env);
	while (rounds < most && (rounds < least || rec_now() - t0 < CRASH_BUDGET_S)) {
		double l = crash_round(tmp, rounds++);
		worst = l > worst ? l : worst;
	}
	printf("kill -9: %u rounds, the bag ended at most %.3f s (~%.0f messages) before the "
	       "kill\n", rounds, worst, worst * CRASH_RATE);
	tu_stop(pub.pid, SIGKILL, 10.0);
	free(pub.out_path);
	tu_rmrf(tmp);
	free(tmp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_each_preset),
		cmocka_unit_test(test_snapshot_same),
		cmocka_unit_test(test_repeat_tl_same),
		cmocka_unit_test(test_crash_kill9),
	};
	return REC_RUN_TESTS(tests);
}
