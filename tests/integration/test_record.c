/* `bagtop record` end to end: a real recorder on a loopback-only DDS domain
 * (CYCLONEDDS_URI from ctest) fed by the test publisher (BAGTOP_TPUB),
 * stopped by a signal, the bag read back with bag_reader. Each case uses
 * its own DDS domain (110..129). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bag_reader.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_util.h"

#define REC_MAX_TOPICS 8

static double rec_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void rec_sleep(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static char *rec_read(const char *path)
{
	char *text = NULL;
	size_t len;
	if (bt_fs_read_all(path, 1 << 22, &text, &len, NULL) != BT_OK)
		return bt_xasprintf("%s", "");
	return text;
}

/* fork/exec argv with stdout+stderr to out_path (or /dev/null); `env`
 * "NAME=VALUE" or NULL is added to the child's environment. */
static pid_t rec_spawn(char *const argv[], const char *out_path, const char *env)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (env)
			putenv((char *)env);
		if (!freopen(out_path ? out_path : "/dev/null", "w", stdout))
			_exit(126);
		if (dup2(fileno(stdout), 2) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Waits up to `secs` for pid; kill -9 and fail when it does not end. */
static int rec_wait(pid_t pid, double secs, const char *what)
{
	double end = rec_now() + secs;
	int status;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		assert_true(r == 0);
		if (rec_now() > end) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			fail_msg("%s did not exit within %.0f s", what, secs);
		}
		rec_sleep(0.05);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct rec {
	char *tmp, *dir, *out_path;
	pid_t pid;
	char *out; /* stdout after the stop */
	int rc;
};

/* Starts `bagtop record ARGS... --domain D -o DIR --no-tui`, waits for
 * "Recording to" and a second for discovery. */
static void rec_start(struct rec *r, int domain, char *const args[], const char *env)
{
	memset(r, 0, sizeof *r);
	r->tmp = tu_mkdtemp("record");
	r->dir = bt_xasprintf("%s/bag", r->tmp);
	r->out_path = bt_xasprintf("%s/stdout.txt", r->tmp);
	char dom[16];
	snprintf(dom, sizeof dom, "%d", domain);
	char *argv[32] = {getenv("BAGTOP_BIN"), "record"};
	size_t n = 2;
	for (size_t i = 0; args[i] && n < 24; i++)
		argv[n++] = args[i];
	argv[n++] = "--domain";
	argv[n++] = dom;
	argv[n++] = "-o";
	argv[n++] = r->dir;
	argv[n++] = "--no-tui";
	argv[n] = NULL;
	r->pid = rec_spawn(argv, r->out_path, env);
	double end = rec_now() + 15.0;
	for (;;) {
		char *text = rec_read(r->out_path);
		int found = strstr(text, "Recording to") != NULL;
		free(text);
		if (found)
			break;
		int status;
		if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
			text = rec_read(r->out_path);
			fail_msg("bagtop record exited early: %s", text);
		}
		if (rec_now() > end) {
			kill(r->pid, SIGKILL);
			waitpid(r->pid, &status, 0);
			fail_msg("bagtop record never said \"Recording to\"");
		}
		rec_sleep(0.05);
	}
	rec_sleep(1.0);
}

static void rec_stop(struct rec *r, int sig)
{
	rec_sleep(1.0);
	kill(r->pid, sig);
	r->rc = rec_wait(r->pid, 30.0, "bagtop record");
	r->out = rec_read(r->out_path);
	if (r->rc != 0)
		fail_msg("bagtop record exit %d: %s", r->rc, r->out);
}

static void rec_free(struct rec *r)
{
	tu_rmrf(r->tmp);
	free(r->tmp);
	free(r->dir);
	free(r->out_path);
	free(r->out);
}

static void rec_check(const char *dir)
{
	char *out = NULL;
	int rc = tu_bagtop(&out, "check", dir, NULL);
	if (rc != 0)
		fail_msg("bagtop check %s: exit %d: %s", dir, rc, out);
	free(out);
}

/* Spawns tpub: --domain D --topic T --type string plus extra args. */
static pid_t tpub_spawn(int domain, const char *topic, char *const extra[], const char *out_path)
{
	char dom[16];
	snprintf(dom, sizeof dom, "%d", domain);
	char *argv[40] = {getenv("BAGTOP_TPUB"), "--domain", dom, "--topic", (char *)topic,
			  "--type", "string"};
	size_t n = 7;
	for (size_t i = 0; extra[i] && n < 38; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	return rec_spawn(argv, out_path, NULL);
}

/* Waits for a tpub; asserts exit 0 and returns N of "tpub: wrote N". */
static long tpub_finish(pid_t pid, const char *out_path)
{
	int rc = rec_wait(pid, 30.0, "tpub");
	char *text = rec_read(out_path);
	if (rc != 0)
		fail_msg("tpub exit %d: %s", rc, text);
	long n = -1;
	const char *p = strstr(text, "tpub: wrote ");
	if (!p || sscanf(p, "tpub: wrote %ld", &n) != 1)
		fail_msg("tpub said: %s", text);
	free(text);
	return n;
}

struct bag_counts {
	char *name[REC_MAX_TOPICS];
	char *type[REC_MAX_TOPICS];
	unsigned long long count[REC_MAX_TOPICS];
	size_t n;
	unsigned long long total;
};

static void counts_free(struct bag_counts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->name[i]);
		free(c->type[i]);
	}
}

/* Messages per topic as read from the bag (only topics with messages). */
static void bag_count(const char *dir, struct bag_counts *c)
{
	memset(c, 0, sizeof *c);
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(dir, 0, &r, &err) != BT_OK)
		fail_msg("reader: %s", err.msg);
	size_t nt;
	const struct bag_reader_topic *t = bag_reader_topics(r, &nt);
	struct bag_read_msg m;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		size_t i;
		for (i = 0; i < c->n; i++)
			if (!strcmp(c->name[i], m.name))
				break;
		if (i == c->n) {
			assert_true(c->n < REC_MAX_TOPICS);
			c->name[i] = bt_xasprintf("%s", m.name);
			c->type[i] = bt_xasprintf("%s", m.topic < nt ? t[m.topic].topic.type : "?");
			c->n++;
		}
		c->count[i]++;
		c->total++;
	}
	if (rc != 0)
		fail_msg("reader next: %s", err.msg);
	bag_reader_close(r);
}

static unsigned long long counts_of(const struct bag_counts *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->count[i];
	return 0;
}

/* 1. record /chatter: 50 messages byte-identical to the oracle, in order. */
static void test_record_chatter(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/chatter", NULL};
	rec_start(&r, 110, args, NULL);
	char *oracle = bt_xasprintf("%s/oracle.bin", r.tmp);
	char *tout = bt_xasprintf("%s/tpub.txt", r.tmp);
	char *extra[] = {"--count", "50", "--rate", "100", "--oracle", oracle,
			 "--wait-readers", "1", NULL};
	pid_t tp = tpub_spawn(110, "rt/chatter", extra, tout);
	assert_int_equal(tpub_finish(tp, tout), 50);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_non_null(strstr(r.out, "Recorded 50 messages"));

	char *otext;
	size_t olen;
	assert_int_equal(bt_fs_read_all(oracle, 1 << 22, &otext, &olen, NULL), BT_OK);
	struct bag_reader *br;
	struct bt_error err;
	if (bag_reader_open(r.dir, 0, &br, &err) != BT_OK)
		fail_msg("reader: %s", err.msg);
	size_t nt;
	const struct bag_reader_topic *t = bag_reader_topics(br, &nt);
	assert_int_equal(nt, 1);
	assert_string_equal(t[0].topic.name, "/chatter");
	assert_string_equal(t[0].topic.type, "std_msgs/msg/String");
	struct bag_read_msg m;
	size_t off = 0, n = 0;
	int rc;
	while ((rc = bag_reader_next(br, &m, &err)) == 1) {
		assert_true(off + 4 <= olen);
		const unsigned char *p = (const unsigned char *)otext + off;
		size_t len = (size_t)p[0] | (size_t)p[1] << 8 | (size_t)p[2] << 16 |
			     (size_t)p[3] << 24;
		off += 4;
		assert_true(off + len <= olen);
		if (m.len != len || memcmp(m.data, otext + off, len) != 0)
			fail_msg("message %zu differs from the oracle (len %zu vs %zu)", n, m.len,
				 len);
		off += len;
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, 50);
	assert_int_equal(off, olen);
	bag_reader_close(br);
	free(otext);
	rec_check(r.dir);
	free(oracle);
	free(tout);
	rec_free(&r);
}

/* 2. Topic selection: three publishers, only the selected topics land. */
static void selection_case(int domain, char *const args[], const char *want1, const char *want2)
{
	struct rec r;
	rec_start(&r, domain, args, NULL);
	const char *topics[3] = {"rt/a/x", "rt/b/y", "rt/c/z"};
	const char *names[3] = {"/a/x", "/b/y", "/c/z"};
	pid_t pids[3];
	char *outs[3];
	for (int i = 0; i < 3; i++) {
		outs[i] = bt_xasprintf("%s/tpub%d.txt", r.tmp, i);
		int wanted = (want1 && !strcmp(names[i], want1)) || (want2 && !strcmp(names[i], want2));
		char *sel[] = {"--count", "10", "--rate", "20", "--wait-readers", "1",
			       "--start-delay", "0.5", NULL};
		char *unsel[] = {"--count", "10", "--rate", "20", "--start-delay", "2", NULL};
		pids[i] = tpub_spawn(domain, topics[i], wanted ? sel : unsel, outs[i]);
	}
	for (int i = 0; i < 3; i++) {
		assert_int_equal(tpub_finish(pids[i], outs[i]), 10);
		free(outs[i]);
	}
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	struct bag_counts c;
	bag_count(r.dir, &c);
	size_t nwant = (want1 != NULL) + (want2 != NULL);
	if (c.n != nwant)
		fail_msg("%zu topics recorded, want %zu (first %s)", c.n, nwant,
			 c.n ? c.name[0] : "-");
	if (want1)
		assert_int_equal(counts_of(&c, want1), 10);
	if (want2)
		assert_int_equal(counts_of(&c, want2), 10);
	counts_free(&c);
	rec_check(r.dir);
	rec_free(&r);
}

static void test_record_selection(void **state)
{
	(void)state;
	char *regex[] = {"-e", "^/(a|b)/", "-x", "b", NULL};
	selection_case(111, regex, "/a/x", NULL);
	char *explicit[] = {"/a/x", "rt/c/z", NULL};
	selection_case(112, explicit, "/a/x", "/c/z");
	char *all[] = {"-a", "--exclude-topics", "/b/y", NULL};
	selection_case(113, all, "/a/x", "/c/z");
}

/* 3. SIGINT, SIGTERM and SIGHUP each end the recording cleanly. */
static void signal_case(int domain, int sig)
{
	struct rec r;
	char *args[] = {"/sig", NULL};
	rec_start(&r, domain, args, NULL);
	char *tout = bt_xasprintf("%s/tpub.txt", r.tmp);
	char *extra[] = {"--count", "30", "--rate", "100", "--wait-readers", "1", NULL};
	pid_t tp = tpub_spawn(domain, "rt/sig", extra, tout);
	long wrote = tpub_finish(tp, tout);
	rec_stop(&r, sig);
	char *meta = bt_xasprintf("%s/metadata.yaml", r.dir);
	if (access(meta, F_OK) != 0)
		fail_msg("signal %d: no metadata.yaml", sig);
	rec_check(r.dir);
	struct bag_counts c;
	bag_count(r.dir, &c);
	assert_int_equal(c.total, (unsigned long long)wrote);
	counts_free(&c);
	free(meta);
	free(tout);
	rec_free(&r);
}

static void test_record_signals(void **state)
{
	(void)state;
	signal_case(114, SIGINT);
	signal_case(115, SIGTERM);
	signal_case(116, SIGHUP);
}

/* 4. A slow writer thread and a small cache: every message is either
 * recorded or counted as lost in the recorder, never silently dropped. */
static void test_record_slow_consumer(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/slow", "--max-cache-size", "20000", NULL};
	rec_start(&r, 117, args, "BAGTOP_TEST_CONSUMER_DELAY_US=20000");
	char *tout = bt_xasprintf("%s/tpub.txt", r.tmp);
	char *extra[] = {"--size", "1000", "--count", "2000", "--rate", "2000",
			 "--wait-readers", "1", NULL};
	pid_t tp = tpub_spawn(117, "rt/slow", extra, tout);
	assert_int_equal(tpub_finish(tp, tout), 2000);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	const char *line = strstr(r.out, "\n  /slow ");
	if (!line)
		fail_msg("no per-topic line for /slow: %s", r.out);
	unsigned long long rec_n, lost_t, lost_r;
	if (sscanf(line, "\n  /slow %llu msgs lost %llu transport, %llu recorder", &rec_n,
		   &lost_t, &lost_r) != 3)
		fail_msg("cannot parse: %.120s", line + 1);
	assert_int_equal(rec_n + lost_r, 2000);
	assert_true(lost_r > 0);
	struct bag_counts c;
	bag_count(r.dir, &c);
	assert_int_equal(c.total, rec_n);
	assert_int_equal(counts_of(&c, "/slow"), rec_n);
	counts_free(&c);
	rec_check(r.dir);
	free(tout);
	rec_free(&r);
}

/* 5. A publisher that shows up after the recorder started. */
static void test_record_late_publisher(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/late", NULL};
	rec_start(&r, 118, args, NULL);
	char *tout = bt_xasprintf("%s/tpub.txt", r.tmp);
	char *extra[] = {"--count", "20", "--rate", "50", "--start-delay", "3", NULL};
	pid_t tp = tpub_spawn(118, "rt/late", extra, tout);
	assert_int_equal(tpub_finish(tp, tout), 20);
	rec_stop(&r, SIGINT);
	struct bag_counts c;
	bag_count(r.dir, &c);
	assert_int_equal(counts_of(&c, "/late"), 20);
	counts_free(&c);
	rec_check(r.dir);
	free(tout);
	rec_free(&r);
}

/* 6. Best-effort and reliable publishers on one topic: both recorded. */
static void test_record_mixed_qos(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/mixed", NULL};
	rec_start(&r, 119, args, NULL);
	char *out1 = bt_xasprintf("%s/tpub1.txt", r.tmp);
	char *out2 = bt_xasprintf("%s/tpub2.txt", r.tmp);
	char *rel[] = {"--count", "20", "--rate", "20", "--wait-readers", "1",
		       "--start-delay", "1", NULL};
	char *be[] = {"--count", "20", "--rate", "20", "--wait-readers", "1",
		      "--start-delay", "1", "--best-effort", NULL};
	pid_t p1 = tpub_spawn(119, "rt/mixed", rel, out1);
	pid_t p2 = tpub_spawn(119, "rt/mixed", be, out2);
	long n = tpub_finish(p1, out1) + tpub_finish(p2, out2);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	struct bag_counts c;
	bag_count(r.dir, &c);
	assert_int_equal(counts_of(&c, "/mixed"), (unsigned long long)n);
	counts_free(&c);
	rec_check(r.dir);
	free(out1);
	free(out2);
	rec_free(&r);
}

int main(void)
{
	if (!getenv("BAGTOP_BIN") || !getenv("BAGTOP_TPUB")) {
		fprintf(stderr, "BAGTOP_BIN / BAGTOP_TPUB not set\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_chatter),
		cmocka_unit_test(test_record_selection),
		cmocka_unit_test(test_record_signals),
		cmocka_unit_test(test_record_slow_consumer),
		cmocka_unit_test(test_record_late_publisher),
		cmocka_unit_test(test_record_mixed_qos),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
