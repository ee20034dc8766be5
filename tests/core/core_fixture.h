/* core_fixture — messages and batches for the engine's tests (rec_cache,
 * rec_snap, rec_tl, rec_repeat), made and checked one way. */
#ifndef CORE_FIXTURE_H
#define CORE_FIXTURE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "rec_cache.h"
#include "test_util.h"

/* A message of `len` bytes, each seq & 0xff, with these fields; fails the
 * test when it cannot be made. */
struct rec_msg *cf_msg(uint32_t topic, int64_t seq, size_t len, int64_t recv_time,
		       int64_t source_time);
/* b's list holds n messages, b->tail is the last, b->count and b->bytes
 * agree with it, and every message's bytes are its writer_sn & 0xff (as
 * cf_msg made them: the copies the code under test made are intact). */
void cf_check_batch(const struct rec_batch *b, size_t n);

/* fn(arg) from another thread 50 ms from now, while the test waits for
 * what it does; cf_later_join ends it. */
struct cf_later {
	pthread_t th;
	void (*fn)(void *);
	void *arg;
};
void cf_later_start(struct cf_later *l, void (*fn)(void *), void *arg);
void cf_later_join(struct cf_later *l);

#endif
