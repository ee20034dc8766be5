/* Pausing and resuming a headless `bagtop record` from another process
 * (`bagtop pause|resume --pid`), end to end: a recorder started with
 * --start-paused stamps nothing before `resume` confirms, records after it,
 * and stamps nothing between a confirmed `pause` and the next `resume`;
 * each command prints the new state ("already paused" / "already running"
 * when it was in it before, as the recorder says), and exits 1 with one
 * line for a process that is gone or not a recorder (which gets no
 * signal). Real
 * bagtop and tpub processes on loopback-only DDS domains 161..162; the bag
 * is read back with bag_reader. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_bag.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_util.h"

/* Time the listener stamps with, but may take before a pause takes
 * effect and stamp after: a margin well above any scheduling delay. */
#define PAUSE_MARGIN_NS INT64_C(200000000)

static int64_t realtime_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* `bagtop VERB --pid PID`: its exit status; *out gets its output. */
static int control(const char *tmp, const char *verb, pid_t pid, char **out)
{
	char pidstr[24];
	snprintf(pidstr, sizeof pidstr, "%ld", (long)pid);
	char *path = bt_xasprintf("%s/%s.txt", tmp, verb);
	char *argv[] = {getenv("BAGTOP_BIN"), (char *)verb, "--pid", pidstr, NULL};
	int rc = rec_wait(rec_spawn(argv, path, NULL), 20.0, verb);
	*out = rec_read(path);
	free(path);
	return rc;
}

/* The command succeeds and prints `want`. */
static void control_ok(const char *tmp, const char *verb, pid_t pid, const char *want)
{
	char *out;
	int rc = control(tmp, verb, pid, &out);
	if (rc != 0 || strcmp(out, want) != 0)
		fail_msg("bagtop %s: exit %d, said '%s', want '%s'", verb, rc, out, want);
	free(out);
}

/* 1. --start-paused, resume, pause, resume, each confirmed. */
static void test_pause_resume_by_pid(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/p", "--start-paused", NULL};
	rec_start(&r, 161, args, NULL);
	/* 8 s of messages: the four commands before the last resume take
	 * 4.5 s of sleeps plus their own start-up, a second or more under load
	 * (100 messages ended before it once, at load 5). */
	char *extra[] = {"--count", "160", "--rate", "20", "--wait-readers", "1", NULL};
	struct rec_pub tp = rec_pub_start(r.tmp, 161, "rt/p", extra);
	rec_sleep(1.5);
	int64_t t_resume = realtime_ns();
	control_ok(r.tmp, "resume", r.pid, "resumed\n");
	int64_t t_resumed = realtime_ns();
	rec_sleep(1.5);
	int64_t t_pause = realtime_ns();
	control_ok(r.tmp, "pause", r.pid, "paused\n");
	int64_t t_paused = realtime_ns();
	control_ok(r.tmp, "pause", r.pid, "already paused\n");
	rec_sleep(1.5);
	int64_t t_resume2 = realtime_ns();
	control_ok(r.tmp, "resume", r.pid, "resumed\n");
	int64_t t_resumed2 = realtime_ns();
	control_ok(r.tmp, "resume", r.pid, "already running\n");
	assert_int_equal(rec_pub_finish(&tp), 160);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_non_null(strstr(r.out, "recording resumed"));
	assert_non_null(strstr(r.out, "recording paused"));
	assert_non_null(strstr(r.out, "PAUSED"));
	assert_non_null(strstr(r.out, "recording already paused"));
	assert_non_null(strstr(r.out, "recording already running"));
	/* Nothing before the first resume was sent; 20 Hz for 1.5 s after it. */
	assert_int_equal(tb_count(r.dir, NULL, 0, t_resume), 0);
	assert_true(tb_count(r.dir, NULL, t_resumed, t_pause) >= 20);
	assert_int_equal(tb_count(r.dir, NULL, t_paused + PAUSE_MARGIN_NS, t_resume2), 0);
	assert_true(tb_count(r.dir, NULL, t_resumed2, INT64_MAX) >= 1);
	rec_check(r.dir);
	rec_free(&r);
}

static size_t lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* 2. A process that is no recorder gets no signal, one that is gone is
 * said to be gone: exit 1 and one line each. */
static void test_pause_refused(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("pause");
	char *extra[] = {"--count", "30", "--rate", "10", NULL};
	struct rec_pub tp = rec_pub_start(tmp, 162, "rt/none", extra);
	char *out;
	assert_int_equal(control(tmp, "pause", tp.pid, &out), 1);
	assert_non_null(strstr(out, "is not a running bagtop record"));
	assert_int_equal(lines(out), 1);
	free(out);
	assert_int_equal(rec_pub_finish(&tp), 30); /* not killed by a signal */
	assert_int_equal(control(tmp, "resume", tp.pid, &out), 1); /* reaped: gone now */
	assert_non_null(strstr(out, "no process"));
	assert_int_equal(lines(out), 1);
	free(out);
	tu_rmrf(tmp);
	free(tmp);
}

REC_MAIN(
	cmocka_unit_test(test_pause_resume_by_pid),
	cmocka_unit_test(test_pause_refused))
