/* rec_harness — `bagtop record` and tpub as real processes for integration
 * tests (cmocka: failures end the test). Each test case uses its own DDS
 * domain; CYCLONEDDS_URI (loopback only) comes from ctest. */
#ifndef REC_HARNESS_H
#define REC_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <cmocka.h>

#define REC_MAX_TOPICS 8

struct rec {
	char *tmp, *dir, *out_path;
	pid_t pid;
	char *out; /* stdout + stderr, read after the stop */
	int rc;
};

struct bag_counts {
	char *name[REC_MAX_TOPICS];
	char *type[REC_MAX_TOPICS];
	unsigned long long count[REC_MAX_TOPICS];
	size_t n;
	unsigned long long total;
};

double rec_now(void);                /* CLOCK_MONOTONIC seconds */
void rec_sleep(double s);
char *rec_read(const char *path);    /* whole file ("" when unreadable); free() it */
/* Whether the file at `path` (a process's output) contains `what` within
 * `secs`, read again every 50 ms. */
bool rec_wait_said(const char *path, const char *what, double secs);
/* tu_spawn: argv with stdout+stderr to out_path (or /dev/null); `env` is
 * a "NAME=VALUE" added to the child's environment, or NULL. */
pid_t rec_spawn(char *const argv[], const char *out_path, const char *env);
/* tu_wait up to `secs`; kills and fails the test when pid does not end.
 * Returns the exit status, or 128 + signal. */
int rec_wait(pid_t pid, double secs, const char *what);
/* `bagtop record ARGS... --domain D -o <tmp>/bag --no-tui` (D < 0: no
 * --domain); waits for "Recording to" and one more second for discovery. */
void rec_start(struct rec *r, int domain, char *const args[], const char *env);
/* Sends `sig` after a second, waits, reads the output; fails unless exit 0. */
void rec_stop(struct rec *r, int sig);
void rec_free(struct rec *r);        /* removes the temporary directory */
void rec_check(const char *dir);     /* tu_check_bag */
struct bag_metadata;
/* Reads DIR's metadata.yaml into *md (bag_metadata_fini it); fails the
 * test when it cannot. */
void rec_metadata(const char *dir, struct bag_metadata *md);
/* False (print why; main returns 77, skipped) when ctest did not give the
 * binaries: BAGTOP_BIN and BAGTOP_TPUB. */
bool rec_harness_ready(void);
/* main's whole work: 77 (skipped) unless rec_harness_ready, else the n
 * tests run as one cmocka group named `name` (no group set-up). */
int rec_harness_run(const char *name, const struct CMUnitTest *tests, size_t n);
#define REC_RUN_TESTS(tests) rec_harness_run(#tests, tests, sizeof tests / sizeof tests[0])
/* A test file's main(): rec_harness_run over the tests given. */
#define REC_MAIN(...)                                                    \
	int main(void)                                                   \
	{                                                                \
		const struct CMUnitTest tests[] = {__VA_ARGS__};         \
		return REC_RUN_TESTS(tests);                             \
	}
/* tpub --domain D --topic T --type string EXTRA...; see tests/tools/tpub.c. */
pid_t tpub_spawn(int domain, const char *topic, char *const extra[], const char *out_path);
/* Waits for tpub; asserts exit 0; returns N of "tpub: wrote N". */
long tpub_finish(pid_t pid, const char *out_path);
/* A tpub started in the background, its output in a file of its own. */
struct rec_pub {
	pid_t pid;
	char *out_path;
};
/* tpub_spawn(domain, topic, extra) with its output in a new file under dir. */
struct rec_pub rec_pub_start(const char *dir, int domain, const char *topic,
			     char *const extra[]);
/* tpub_finish, then frees p's path: returns N of "tpub: wrote N". */
long rec_pub_finish(struct rec_pub *p);
/* rec_pub_start under r's temporary directory, then rec_pub_finish: fails
 * the test unless tpub wrote `want` messages. */
void rec_publish(const struct rec *r, int domain, const char *topic, char *const extra[],
		 long want);
/* One recording of one publisher, from start to stop. */
struct rec_session {
	int domain;
	char *const *args;  /* bagtop record's, before --domain */
	const char *env;    /* "NAME=VALUE" for bagtop record, or NULL */
	const char *topic;  /* tpub's ("rt/...") */
	char *const *extra; /* tpub's */
	long count;         /* what tpub must write */
};
/* rec_start, rec_publish, rec_stop(SIGINT); shows the recorder's output. */
void rec_session(struct rec *r, const struct rec_session *s);
/* A topic's line in the recorder's final summary. */
struct rec_tally {
	unsigned long long recorded, lost_transport, lost_recorder;
};
/* "NAME N recorded lost T transport, R recorder" of the recorder's final
 * summary, as {N, T, R}; fails the test when the line is not there. */
struct rec_tally rec_summary(const char *out, const char *name);
/* Messages per topic as read back from the bag (topics with messages). */
void bag_count(const char *dir, struct bag_counts *c);
unsigned long long counts_of(const struct bag_counts *c, const char *name);
void counts_free(struct bag_counts *c);
/* The bag holds exactly n messages of topic (cast to the count's type),
 * and `bagtop check` passes. */
void rec_expect_count(const char *dir, const char *topic, unsigned long long n);

#endif
