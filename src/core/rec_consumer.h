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
 * Every loss counted on a registered topic (transport, rejected, cache,
 * write) is handed to bag_writer_add_losses — every 100 ms, before a split
 * and at the end — so the bag's statistics carry it in the file current at
 * that time.
 * Topics are registered in the bag lazily: before the first message of a
 * topic, and for every topic that is `described` (rec_topics.h) when the topics'
 * generation changes (rec_consumer_topics_changed), so topics without
 * messages still appear in the bag as rosbag2 does.
 *
 * Snapshot mode (opt.snap): nothing is written until a trigger; then the
 * held snapshot, merged with the repeated transient-local messages
 * (rec_repeat_for_snapshot), goes into a file of its own (the bag is split
 * first when the current file has data), followed by the post window's
 * messages; then on_snapshot reports it. Split requests are ignored there.
 * Repeated copies are counted as `repeated`, not `recorded`.
 *
 * Lifetime: start → (requests) → stop. stop is called after the cache (or
 * snap) was closed; it joins the thread once everything queued is
 * written. */
#ifndef REC_CONSUMER_H
#define REC_CONSUMER_H

#include <stdatomic.h>
#include <stdint.h>

#include "bag_writer.h"
#include "bt_status.h"
#include "rec_cache.h"
#include "rec_snap.h"
#include "rec_tl.h"
#include "rec_topics.h"

struct rec_clock;

/* A snapshot the consumer finished (or failed to write). */
struct rec_snapshot_done {
	uint64_t id;       /* 1, 2, ... in trigger order */
	bt_status status;  /* BT_OK, or the write error (message in rec_consumer_error) */
	uint64_t messages; /* written to the file, repeated copies and post window included */
	char file[4096];   /* the storage file holding it */
	/* "" when every topic's window is complete; else which windows memory
	 * cut short (rec_snap_cover_describe), also in the metadata's
	 * custom_data under "snapshot_coverage.FILE". */
	char coverage[1024];
};

struct rec_consumer_options {
	struct rec_cache *cache;   /* borrowed; outlives the consumer; NULL in snapshot mode */
	struct rec_topics *topics; /* borrowed */
	struct bag_writer *writer; /* borrowed; only the consumer uses it until stop */
	/* Test hook: sleep this long after each batch (a slow disk on purpose). */
	uint32_t test_delay_us;
	/* Set (by any thread) to abandon what is not written yet: no more
	 * writes; the rest is counted lost_abandoned and reported (see
	 * rec_consumer_abandoned). Borrowed; NULL: never. The writer should
	 * have the same flag (bag_writer_set_cancel) to stop within a batch. */
	const atomic_bool *abandon;
	struct rec_snap *snap;     /* borrowed; snapshot mode when not NULL */
	struct rec_tl *tl;         /* borrowed; repeated transient-local messages, or NULL */
	/* Called on the consumer thread when a snapshot file is finished. */
	void (*on_snapshot)(void *ctx, const struct rec_snapshot_done *d);
	void *ctx;
	/* Snapshot mode: close each snapshot's file as soon as it is written
	 * (a split), not when the next snapshot begins, so that the file is
	 * finished (the writer's on_file_closed) while the next waits; the
	 * status (rec_consumer_file) names the snapshot's file meanwhile. */
	bool close_snapshot_files;
	/* The free-space guard (rec_guard.h): below min_free bytes free on
	 * guard_dir's filesystem, the current file is closed (a split; not in
	 * snapshot mode) and messages are not written but counted
	 * lost_disk_guard, until there is room again. 0: no guard. */
	const char *guard_dir;
	uint64_t min_free;
	/* What a snapshot's post window counts in (rec_clock.h; borrowed,
	 * outlives the consumer); NULL: the real-time clock. */
	const struct rec_clock *clock;
};

struct rec_consumer;

/* Starts the thread. BT_ERR_NOMEM / BT_ERR_STATE when it cannot. */
BT_MUST_CHECK bt_status rec_consumer_start(const struct rec_consumer_options *opt,
					   struct rec_consumer **out, struct bt_error *err);
/* Any thread: split the bag before the next batch (the `n` key). */
void rec_consumer_request_split(struct rec_consumer *c);
/* Any thread: a topic became subscribed; register it in the bag soon. */
void rec_consumer_topics_changed(struct rec_consumer *c);
/* Any thread (the discovery thread): topic `topic`'s offered QoS profiles
 * are now q[0..n) (copied). The consumer hands the newest list to the
 * writer before its next batch (bag_writer_set_topic_qos), registering
 * the topic first if needed. */
void rec_consumer_set_topic_qos(struct rec_consumer *c, uint32_t topic, const struct bag_qos *q,
				size_t n);
/* Any thread (rec_typedesc's): topic `topic`'s type has this message
 * definition after all, from `source` (all copied; encoding and text NULL:
 * still none, `source` says why). The consumer hands it to the writer
 * before its next batch (bag_writer_set_type_def), registering the topic
 * first if needed. */
void rec_consumer_set_definition(struct rec_consumer *c, uint32_t topic, const char *encoding,
				 const char *text, const char *source);
/* Any thread: the first write error so far, BT_OK if none (msg copied). */
bt_status rec_consumer_error(struct rec_consumer *c, struct bt_error *err);
/* Any thread: whether the free-space guard stops recording now, and the
 * free space it last saw (UINT64_MAX: not known). */
void rec_consumer_guard(const struct rec_consumer *c, bool *stopped, uint64_t *free_bytes);
/* Messages (and their payload bytes) abandoned so far; any thread. */
void rec_consumer_abandoned(const struct rec_consumer *c, uint64_t *msgs, uint64_t *bytes);
/* Any thread: the path and index N of the bag file being written (as of
 * the last batch), copied into buf, and when it was opened (realtime ns). */
void rec_consumer_file(struct rec_consumer *c, char *buf, size_t cap, size_t *index,
		       int64_t *start);
/* The writer's on_split (the recorder forwards it; writer thread = this
 * consumer's thread): the repeated transient-local messages for the new
 * file, restamped to t_last (rec_repeat_for_split), as bag messages valid
 * until the next call or stop. Counted as `repeated`. */
size_t rec_consumer_on_split(struct rec_consumer *c, int64_t t_last,
			     const struct bag_message **msgs);
/* Any thread: batches written so far (statistics). */
uint64_t rec_consumer_batches(const struct rec_consumer *c);
/* Joins the thread (the cache must be closed; once only). Returns the
 * first write error met, BT_OK otherwise. The writer is still the caller's
 * to close. The getters (file, error, batches) keep working until free:
 * other threads may still ask while the bag is being finished. */
BT_MUST_CHECK bt_status rec_consumer_stop(struct rec_consumer *c, struct bt_error *err);
/* Frees a stopped consumer (NULL is fine). */
void rec_consumer_free(struct rec_consumer *c);

#endif
