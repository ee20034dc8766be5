/* One command path (rec_cmd.h), end to end with real bagtop and tpub
 * processes on loopback-only DDS domains 8..9:
 *  1. the same command from two origins (kill -USR1, `bagtop snapshot
 *     --pid`) ends the same way — a snapshot file with the messages — and
 *     each is said, with its origin and result, on stdout and in
 *     --log-file;
 *  2. a burst of 1000 commands (queued real-time signals, as `bagtop
 *     snapshot --pid` sends) into a recorder's queue of 64: every one is
 *     answered or refused and counted, and capture goes on untouched
 *     (messages recorded = published). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_mem.h"
#include "rec_harness.h"
#include "test_util.h"

#define BURST 1000

/* Waits until the file at `path` contains `what`. */
static void wait_text(const char *path, const char *what)
{
	double end = rec_now() + 20.0;
	for (;;) {
		char *text = rec_read(path);
		bool found = strstr(text, what) != NULL;
		free(text);
		if (found)
			return;
		if (rec_now() > end)
			fail_msg("\"%s\" never appeared in %s", what, path);
		rec_sleep(0.05);
	}
}

/* The line of `text` holding `what`, or fail. */
static char *line_of(const char *text, const char *what)
{
	const char *p = strstr(text, what);
	if (p == NULL)
		fail_msg("no line with \"%s\" in:\n%s", what, text);
	const char *start = p;
	while (start > text && start[-1] != '\n')
		start--;
	return bt_xasprintf("%.*s", (int)(strcspn(start, "\n")), start);
}

/* 1. Two origins, one ending: a file each, said with the origin. */
static void test_two_origins(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/c", "--snapshot-mode", "--max-cache-size", "1M", "--log-file", NULL,
			NULL};
	char *logdir = tu_mkdtemp("cmdlog");
	char *log = bt_xasprintf("%s/cmd.log", logdir);
	args[5] = log;
	rec_start(&r, 8, args, NULL);
	char *extra[] = {"--count", "400", "--rate", "100", "--wait-readers", "1", NULL};
	struct rec_pub tp = rec_pub_start(r.tmp, 8, "rt/c", extra);
	rec_sleep(1.5);
	assert_int_equal(kill(r.pid, SIGUSR1), 0);
	wait_text(r.out_path, "snapshot 1: ");
	rec_sleep(0.5);
	char pidstr[24], *out = bt_xasprintf("%s/snap.txt", r.tmp);
	snprintf(pidstr, sizeof pidstr, "%ld", (long)r.pid);
	char *argv[] = {getenv("BAGTOP_BIN"), "snapshot", "--pid", pidstr, NULL};
	pid_t snap = rec_spawn(argv, out, NULL);
	assert_int_equal(rec_wait(snap, 30.0, "bagtop snapshot"), 0);
	char *file2 = rec_read(out);
	assert_true(file2[0] == '/');
	assert_int_equal(rec_pub_finish(&tp), 400);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	/* Both wrote a file of their own, with messages in it. */
	char *by_signal = bt_xasprintf("snapshot 1: requested by signal SIGUSR1 from pid %ld, ",
				       (long)getpid());
	char *by_cmd = bt_xasprintf("snapshot 2: requested by bagtop snapshot --pid from pid "
				    "%ld, ", (long)snap);
	char *text = rec_read(log);
	char *l1 = line_of(text, by_signal), *l2 = line_of(text, by_cmd);
	unsigned long long n1 = 0, n2 = 0;
	assert_int_equal(sscanf(strstr(l1, ", ") + 2, "%llu messages written to ", &n1), 1);
	assert_int_equal(sscanf(strstr(l2, ", ") + 2, "%llu messages written to ", &n2), 1);
	assert_true(n1 > 0 && n2 > 0);
	assert_non_null(strstr(l1, "/bag/bag_0."));
	assert_non_null(strstr(l2, "/bag/bag_1."));
	assert_non_null(strstr(file2, "/bag/bag_1."));
	/* The same lines on stdout (headless: the event lines). */
	assert_non_null(strstr(r.out, by_signal));
	assert_non_null(strstr(r.out, by_cmd));
	assert_non_null(strstr(r.out, "Snapshot mode: 2 snapshots"));
	rec_check(r.dir);
	free(l1);
	free(l2);
	free(text);
	free(by_signal);
	free(by_cmd);
	free(file2);
	free(out);
	free(log);
	tu_rmrf(logdir);
	free(logdir);
	rec_free(&r);
}

/* Counts the lines of `text` holding `what`. */
static unsigned count_lines(const char *text, const char *what)
{
	unsigned n = 0;
	for (const char *p = strstr(text, what); p != NULL; p = strstr(p + 1, what))
		n++;
	return n;
}

/* The last "N commands refused: too many waiting (T since the start)": T. */
static unsigned long long refused_total(const char *text)
{
	const char *key = " since the start)", *p = NULL;
	for (const char *q = strstr(text, key); q != NULL; q = strstr(q + 1, key))
		p = q;
	if (p == NULL)
		return 0;
	while (p > text && p[-1] != '(')
		p--;
	return strtoull(p, NULL, 10);
}

/* Removes the answer files the recorder wrote to this process. */
static void answers_remove(pid_t rec)
{
	const char *dirs[] = {getenv("XDG_RUNTIME_DIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		if (dirs[i] == NULL)
			continue;
		char *p = bt_xasprintf("%s/bagtop-%ld.snapshot-%ld", dirs[i], (long)rec,
				       (long)getpid());
		(void)unlink(p); /* absent from one of the two */
		free(p);
	}
}

/* 2. 1000 snapshot requests at once to a recorder not in snapshot mode:
 * each refused by the recorder (said) or by the full queue (counted);
 * every message published is recorded meanwhile. */
static void test_burst(void **state)
{
	(void)state;
	struct rec r;
	char *logdir = tu_mkdtemp("cmdlog");
	char *log = bt_xasprintf("%s/cmd.log", logdir);
	char *args[] = {"/b", "--log-file", log, NULL};
	rec_start(&r, 9, args, NULL);
	char *extra[] = {"--count", "3000", "--rate", "1000", "--wait-readers", "1", NULL};
	struct rec_pub tp = rec_pub_start(r.tmp, 9, "rt/b", extra);
	rec_sleep(1.0); /* publishing */
	unsigned sent = 0;
	for (int i = 0; i < BURST; i++) {
		union sigval v = {.sival_int = 2 * i + 1};
		sent += sigqueue(r.pid, SIGRTMIN + 3, v) == 0;
	}
	printf("sent %u of %d requests\n", sent, BURST);
	assert_true(sent >= BURST / 2); /* the pending-signal limit is far above */
	long published = rec_pub_finish(&tp);
	assert_int_equal(published, 3000);
	/* Until each request is said or counted (the last refusals are said
	 * once a second; on a loaded machine answering 1000 requesters' files
	 * takes seconds): a stop would leave what is still pending untaken. */
	char *text = NULL;
	unsigned said = 0;
	unsigned long long refused = 0;
	for (double end = rec_now() + 30.0; rec_now() < end; rec_sleep(0.2)) {
		free(text);
		text = rec_read(log);
		said = count_lines(text, "snapshot refused: not recording in snapshot mode "
					 "(--snapshot-mode) (bagtop snapshot --pid from pid ");
		refused = refused_total(text);
		if (said + refused >= sent)
			break;
	}
	rec_stop(&r, SIGINT);
	printf("%u run and said, %llu refused as too many\n", said, refused);
	assert_int_equal(said + refused, sent);
	assert_true(refused > 0);
	char *sum = bt_xasprintf("Commands: %u run, %llu refused because too many were waiting",
				 said, refused);
	assert_non_null(strstr(r.out, sum));
	/* Capture untouched: all published, all recorded, none lost. */
	struct rec_tally v = rec_summary(r.out, "/b");
	assert_int_equal(v.recorded, 3000);
	assert_int_equal(v.lost_transport + v.lost_recorder, 0);
	rec_expect_count(r.dir, "/b", 3000);
	answers_remove(r.pid);
	free(sum);
	free(text);
	free(log);
	tu_rmrf(logdir);
	free(logdir);
	rec_free(&r);
}

REC_MAIN(
	cmocka_unit_test(test_two_origins),
	cmocka_unit_test(test_burst))
