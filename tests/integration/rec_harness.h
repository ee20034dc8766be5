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
/* tu_spawn: argv with stdout+stderr to out_path (or /dev/null); `env` is
 * a "NAME=VALUE" added to the child's environment, or NULL. */
pid_t rec_spawn(char *const argv[], const char *out_path, const char *env);
/* tu_wait up to `secs`; kills and fails the test when pid does not end.
 * Returns the exit status, or 128 + signal. */
int rec_wait(pid_t pid, double secs, const char *what);
/* `bagtop record ARGS... --domain D -o <tmp>/bag --no-tui`; waits for
 * "Recording to" and one more second for discovery. */
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
/* tpub --domain D --topic T --type string EXTRA...; see tests/tools/tpub.c. */
pid_t tpub_spawn(int domain, const char *topic, char *const extra[], const char *out_path);
/* Waits for tpub; asserts exit 0; returns N of "tpub: wrote N". */
long tpub_finish(pid_t pid, const char *out_path);
/* Messages per topic as read back from the bag (topics with messages). */
void bag_count(const char *dir, struct bag_counts *c);
unsigned long long counts_of(const struct bag_counts *c, const char *name);
void counts_free(struct bag_counts *c);
/* The bag holds exactly n messages of topic (cast to the count's type),
 * and `bagtop check` passes. */
void rec_expect_count(const char *dir, const char *topic, unsigned long long n);

#endif
