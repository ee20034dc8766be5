/* rec_guard — the free-space guard (--min-free-space): watches free space
 * on the bag's filesystem (statvfs f_bavail, at most every
 * REC_GUARD_PERIOD_NS) and says when recording must stop and when it may
 * resume: stop below the threshold, resume at REC_GUARD_RESUME_PCT percent
 * above it, so that one deleted file does not make it flap.
 *
 * Threads: rec_guard_check on the writer thread only; the getters from any
 * thread (atomics). */
#ifndef REC_GUARD_H
#define REC_GUARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define REC_GUARD_PERIOD_NS INT64_C(250000000)
#define REC_GUARD_RESUME_PCT 10
/* The default threshold: 1 GiB on a filesystem larger than 20 GiB, else
 * 5 % of its size. */
#define REC_GUARD_DEFAULT_BYTES (UINT64_C(1) << 30)
#define REC_GUARD_DEFAULT_LARGE (UINT64_C(20) << 30)
#define REC_GUARD_DEFAULT_PCT 5

struct rec_guard {
	char *dir;     /* a path on the bag's filesystem */
	uint64_t min;  /* bytes; 0 = off */
	int64_t next;  /* monotonic ns of the next check */
	bool stopped;  /* writer thread's view */
	atomic_bool stopped_a;
	atomic_uint_fast64_t free_bytes; /* as last seen; UINT64_MAX unknown */
};

/* min 0: the guard never stops anything and never calls statvfs. */
void rec_guard_init(struct rec_guard *g, const char *dir, uint64_t min);
void rec_guard_fini(struct rec_guard *g);
/* Checks free space when due (or now, when `force`): +1 recording must
 * stop now, -1 it may resume now, 0 no change. A statvfs that fails
 * changes nothing (recording goes on: the writer reports a real full
 * disk itself). */
int rec_guard_check(struct rec_guard *g, int64_t now, bool force);
bool rec_guard_stopped(const struct rec_guard *g);
uint64_t rec_guard_free(const struct rec_guard *g);
/* Free space (f_bavail) and size of the filesystem holding `path`; false
 * when statvfs fails. */
bool rec_guard_space(const char *path, uint64_t *avail, uint64_t *total);
/* The default threshold for the filesystem holding `path` (0 when it
 * cannot be read: no guard). */
uint64_t rec_guard_default(const char *path);

#endif
