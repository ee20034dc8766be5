/* rec_consumer — the consumer thread ("rec-writer"), rosbag2's
 * CacheConsumer: swaps the cache whenever data waits and writes each batch
 * with one bag_writer_write call (one transaction per file). It is the only
 * thread that touches the bag writer while it runs.
 *
 * For every message it writes it counts, on the message's topic:
 * recorded/bytes on success; lost_toobig for messages the store refused as
 * too large; lost_write for messages of a failed write (after the first
 * write failure it keeps draining the cache, counting every message as
 * lost_write, so producers never block and the loss is exact).
 * Topics are registered in the bag lazily: before the first message of a
 * topic, and for every topic that is `subscribed` when the topics'
 * generation changes (rec_consumer_topics_changed), so topics without
 * messages still appear in the bag as rosbag2 does.
 *
 * Lifetime: start → (requests) → stop. stop is called after the cache was
 * closed; it joins the thread once everything queued is written. */
#ifndef REC_CONSUMER_H
#define REC_CONSUMER_H

#include <stdint.h>

#include "bag_writer.h"
#include "bt_status.h"
#include "rec_cache.h"
#include "rec_topics.h"

struct rec_consumer_options {
	struct rec_cache *cache;   /* borrowed; outlives the consumer */
	struct rec_topics *topics; /* borrowed */
	struct bag_writer *writer; /* borrowed; only the consumer uses it until stop */
	/* Test hook: sleep this long after each batch (a slow disk on purpose). */
	uint32_t test_delay_us;
};

struct rec_consumer;

/* Starts the thread. BT_ERR_NOMEM / BT_ERR_STATE when it cannot. */
BT_MUST_CHECK bt_status rec_consumer_start(const struct rec_consumer_options *opt,
					   struct rec_consumer **out, struct bt_error *err);
/* Any thread: split the bag before the next batch (the `n` key). */
void rec_consumer_request_split(struct rec_consumer *c);
/* Any thread: a topic became subscribed; register it in the bag soon. */
void rec_consumer_topics_changed(struct rec_consumer *c);
/* Any thread: the first write error so far, BT_OK if none (msg copied). */
bt_status rec_consumer_error(struct rec_consumer *c, struct bt_error *err);
/* Any thread: the path and index N of the bag file being written (as of
 * the last batch), copied into buf. */
void rec_consumer_file(struct rec_consumer *c, char *buf, size_t cap, size_t *index);
/* Any thread: batches written so far (statistics). */
uint64_t rec_consumer_batches(const struct rec_consumer *c);
/* Joins the thread (the cache must be closed) and frees the consumer.
 * Returns the first write error met, BT_OK otherwise. The writer is still
 * the caller's to close. */
BT_MUST_CHECK bt_status rec_consumer_stop(struct rec_consumer *c, struct bt_error *err);

#endif
