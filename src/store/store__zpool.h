/* store__zpool — MESSAGE-mode compression: a pool of worker threads
 * ("rec-zstd-N") that compress the messages of one batch in parallel while
 * the writer thread inserts the finished ones in order. The writer thread
 * never compresses. The pool is owned (started and joined) by the writer.
 *
 * Use: bag_zpool_submit(batch) then, for i = 0..n-1 in order,
 * bag_zpool_wait(i) — it returns job i's compressed bytes, valid until the
 * next submit. One batch at a time; one submitting thread. */
#ifndef STORE__ZPOOL_H
#define STORE__ZPOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

struct bag_zpool;

struct bag_zpool_input {
	const void *data;
	size_t len;
};

/* Starts `threads` workers (>= 1), each at nice value `nice`
 * (bt_sync_nice; BT_SYNC_NICE_KEEP: the starter's). delay_us: a test hook,
 * each job sleeps that long first (slow compression on purpose); 0 in
 * production. */
BT_MUST_CHECK bt_status bag_zpool_new(unsigned threads, int32_t nice, uint32_t delay_us,
				      struct bag_zpool **out, struct bt_error *err);
/* Stops and joins the workers; waits for a batch in flight. NULL is fine. */
void bag_zpool_free(struct bag_zpool *p);
/* Hands a batch to the workers. `in` must stay valid until every job was
 * waited for. */
void bag_zpool_submit(struct bag_zpool *p, const struct bag_zpool_input *in, size_t n);
/* Blocks until job i is compressed. BT_ERR_NOMEM / BT_ERR_IO if it failed
 * (the message is then dropped and counted by the caller). */
BT_MUST_CHECK bt_status bag_zpool_wait(struct bag_zpool *p, size_t i, const void **data,
				       size_t *len);

/* True while the submitting thread sleeps in bag_zpool_wait. Any thread. */
bool bag_zpool_writer_waiting(const struct bag_zpool *p);

/* Waits until every job of the current batch is finished (use before
 * abandoning a batch half-way, e.g. on a write error). */
void bag_zpool_drain(struct bag_zpool *p);

#endif
