/* rec_repeat — where the repeated transient-local messages go (rosbag2's
 * repeat-transient-local design): pure functions over message lists, used
 * by the consumer thread only.
 *
 * Input: `tl`, the store's copies (rec_tl_copy: sorted by recv_time, owned
 * by the caller). Output: one list, owned by the caller, to write in order
 * and free with rec_msg_free_list. The timestamp to write is each
 * message's recv_time: repeated messages come out restamped (recv_time and
 * source_time set to the new time).
 *
 * "The same message": same topic, writer_sn, recv_time and len
 * (rec_repeat_same). recv_time is taken per message at receive time, so two
 * different messages of one topic practically never share all four.
 *
 * The per-file `seen` set: the identities (before restamping) of the
 * repeated messages placed into the current file. The store is fed by the
 * producers, so it can hold a message that is still on its way through the
 * cache (offered, not yet written); after a split, or during a snapshot's
 * post window, that message would reach the same file a second time. The
 * consumer skips every message for which rec_repeat_seen_has is true: it is
 * already in the file, once (count it as recorded). The check is a
 * comparison or two for almost every message (the set keeps its recv_time
 * range). */
#ifndef REC_REPEAT_H
#define REC_REPEAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rec_cache.h"
#include "rec_msg.h"

#define REC_REPEAT_KEEP_TIME INT64_MIN /* t_last unknown: keep the original times */

struct rec_repeat_seen;

struct rec_repeat_seen *rec_repeat_seen_new(void); /* aborts on OOM (set-up) */
void rec_repeat_seen_free(struct rec_repeat_seen *s);
/* Forgets every identity (a new file without repeats). */
void rec_repeat_seen_clear(struct rec_repeat_seen *s);
size_t rec_repeat_seen_count(const struct rec_repeat_seen *s);
/* Was m already placed into this file as a repeated message? */
bool rec_repeat_seen_has(const struct rec_repeat_seen *s, const struct rec_msg *m);
bool rec_repeat_same(const struct rec_msg *a, const struct rec_msg *b);

/* Split: the messages to write at the start of the new file, before any
 * other: every message of *tl (each marked topic's last N), in their
 * original order, restamped to t_last — the timestamp of the last message
 * written to the previous file (REC_REPEAT_KEEP_TIME: none was written).
 * Consumes *tl (emptied), fills *out, resets *seen to exactly these.
 * Returns the number of messages left out for want of memory (freed). */
size_t rec_repeat_for_split(struct rec_batch *tl, int64_t t_last, struct rec_repeat_seen *seen,
			    struct rec_batch *out);

/* Snapshot: the snapshot file's messages. *batch is the snapshot (arrival
 * order); T_earliest / T_latest its smallest / largest recv_time. Each
 * message of *tl that is:
 *  - the same as one in the batch: dropped (the batch's copy, with its
 *    original timestamp, is kept);
 *  - older than T_earliest: restamped to T_earliest and put first (in
 *    their original order);
 *  - within [T_earliest, T_latest] but not in the batch (refused as too
 *    big by rec_snap, or pushed after the flip): merged in at its own
 *    timestamp, before the first batch message that is newer;
 *  - newer than T_latest: dropped (it arrived after the trigger: it is in
 *    the post window or the next buffer).
 * The batch's order is kept. An empty batch gives an empty *out: TL
 * messages alone do not make a snapshot (the trigger said "empty").
 * Consumes *batch and *tl, fills *out, resets *seen to the TL messages put
 * in (for the post window). Returns the number left out for want of
 * memory. */
size_t rec_repeat_for_snapshot(struct rec_batch *batch, struct rec_batch *tl,
			       struct rec_repeat_seen *seen, struct rec_batch *out);

#endif
