/* rec_cache — rosbag2's double-buffered message cache, bounded in bytes.
 * Producers (DDS listener threads) push into the producer buffer; the one
 * consumer thread swaps it for its own (empty) buffer whenever data waits
 * and writes that batch. A push that would take the producer buffer above
 * `max_bytes` is dropped (the caller counts it as lost in the recorder).
 *
 * Once data waits, a swap lets more gather for up to 10 ms (unless the
 * buffer is half full, woken or closed): fewer, larger transactions.
 *
 * max_bytes 0 is write-through: a push waits until the consumer has
 * written it (rosbag2's cache size 0); nothing is dropped for size, and
 * the producer is slowed to the consumer's pace instead.
 *
 * Thread-safety: push, wake, close and fill from any thread; swap_wait
 * from the one consumer thread. Critical sections only move pointers and
 * counters. */
#ifndef REC_CACHE_H
#define REC_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "rec_msg.h"

struct rec_batch {
	struct rec_msg *head; /* arrival order; owned by the consumer */
	struct rec_msg *tail;
	size_t count;
	size_t bytes; /* sum of len */
};

/* Appends m (moved) at the tail of b. */
void rec_batch_append(struct rec_batch *b, struct rec_msg *m);

struct rec_cache;

struct rec_cache *rec_cache_new(size_t max_bytes); /* aborts on OOM (set-up) */
/* Frees the cache and any message still in it. No thread may use it. */
void rec_cache_free(struct rec_cache *c);
/* Takes ownership of m. BT_OK: queued. BT_ERR_FULL: over max_bytes, m was
 * freed. BT_ERR_STATE: the cache is closed, m was freed. */
bt_status rec_cache_push(struct rec_cache *c, struct rec_msg *m);
/* Consumer only. Finishes the previous batch (write-through pushers of it
 * are released), then waits up to timeout_ns for messages or a wake-up and
 * moves every waiting message into *out (count 0 when none). Returns false
 * once the cache is closed and empty: the consumer's signal to finish. */
bool rec_cache_swap_wait(struct rec_cache *c, int64_t timeout_ns, struct rec_batch *out);
/* Consumer only: the first *n messages of the batch the last swap_wait
 * handed out, in list order, as an array (*n may be less than its count,
 * 0 included: the array only helps to read ahead, the list is the batch).
 * Valid until the next swap_wait. */
struct rec_msg *const *rec_cache_order(const struct rec_cache *c, size_t *n);
/* Makes a waiting swap_wait return at once (commands for the consumer). */
void rec_cache_wake(struct rec_cache *c);
/* No more pushes are accepted; what is queued is still handed out. */
void rec_cache_close(struct rec_cache *c);
/* Bytes waiting in the producer buffer, and the bound (for the UI). */
size_t rec_cache_fill(const struct rec_cache *c);
size_t rec_cache_max_bytes(const struct rec_cache *c);

#endif
