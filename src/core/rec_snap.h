/* rec_snap — rosbag2's circular message cache for snapshot mode. Producers
 * (DDS listener threads) push into the buffer, which keeps only the newest
 * messages within `max_bytes` and, when given, `max_duration_ns` (a message
 * stays while its recv_time >= newest recv_time - max_duration_ns). Older
 * messages are evicted from the front (freed) and counted per topic:
 * evictions are what snapshot mode is for, not losses.
 *
 * A trigger (any thread: `s` key, SIGUSR1) flips the buffers: the whole
 * buffer becomes the held snapshot, in arrival order, and producers go on
 * into the other, empty buffer — no gap, nothing but pointer moves. The
 * consumer takes the held snapshot, writes it (rec_repeat_for_snapshot
 * merges the repeated transient-local messages in) and releases it. Until
 * then further triggers are refused (REC_SNAP_BUSY): one snapshot file at
 * a time, never queued silently (`record --queue-triggers` queues them
 * above, in the command thread). A trigger may narrow the windows and leave
 * topics out (rec_snap_trigger_with, rec_snap_params).
 *
 * Snapshot-post (post_ns > 0): the trigger at time T also opens a post
 * window. Every message pushed with recv_time <= T + post_ns while the
 * window is open goes to a separate post list instead of the buffer (not
 * circular: bounded by max_bytes like rec_cache, overflow refused and
 * counted), which the consumer drains with rec_snap_post_take and appends
 * to the same snapshot file. The consumer closes the window: post_take
 * returns false once its `now` is past T + post_ns + REC_SNAP_POST_GRACE_NS
 * (the grace lets in messages stamped before the end but pushed just
 * after). From then on messages go to the buffer again. Post messages are
 * moved to the snapshot file, so they are not part of the next snapshot.
 * A trigger also flips an empty buffer when some topic's window reaches
 * after it (its file then starts with the post list).
 *
 * A message larger than max_bytes is refused (BT_ERR_TOOBIG, freed and
 * counted in `toobig`), as rosbag2 does: keeping it would break the memory
 * bound the user asked for. A repeat-transient-local topic's message is
 * still kept by rec_tl and appears in the next snapshot.
 *
 * Memory: the buffer is bounded by max_bytes (payload bytes, as
 * rec_cache); while a snapshot is being written its batch (<= max_bytes)
 * is the consumer's and the buffer fills again, so the peak is twice the
 * bound, plus the post list (<= max_bytes) when a window is open.
 *
 * Per-topic windows (--snapshot-window, --snapshot-topic-cache): each
 * topic may have its own window around a trigger at T — `before_ns` (kept
 * while recv_time >= newest - before_ns, and exactly >= T - before_ns in
 * the snapshot; 0: the topic is not buffered at all) and `after_ns` (its
 * messages up to T + after_ns join the post list) — and its own byte bound,
 * in the buffer and in the post list. Topics without one take the global
 * max_duration_ns / post_ns. The buffer is a queue per topic: a topic's
 * own bound evicts its own oldest, the global bound the oldest of all (by
 * recv_time), time its own older than its window. The snapshot is sorted
 * by recv_time (equal times in arrival order).
 * Memory cutting a window short is remembered per topic (the newest
 * message evicted for bytes, the oldest refused in the post list) and
 * rec_snap_cover_get reports how much of each window the file covers.
 *
 * Thread-safety: push, trigger, wake, close and the getters from any
 * thread; take_wait, post_take and release from the one consumer thread.
 * Critical sections only move pointers and counters; evicted messages are
 * freed after unlocking. */
#ifndef REC_SNAP_H
#define REC_SNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "rec_cache.h"
#include "rec_msg.h"

#define REC_SNAP_POST_GRACE_NS INT64_C(100000000) /* 100 ms */

struct rec_snap_options {
	size_t max_bytes;        /* > 0: the bound of the buffer (and the post list) */
	int64_t max_duration_ns; /* 0: no time bound */
	int64_t post_ns;         /* 0: no post window */
};

#define REC_SNAP_ALL INT64_MAX /* a before_ns without a bound */

/* One topic's window around a trigger and its own memory bound. */
struct rec_snap_window {
	int64_t before_ns; /* 0: nothing before the trigger; REC_SNAP_ALL: no bound */
	int64_t after_ns;  /* 0: nothing after */
	size_t max_bytes;  /* its bound in the buffer and the post list; 0: none */
};

/* A topic whose window memory cut short in a snapshot. */
struct rec_snap_cover {
	uint32_t topic;
	int64_t before_ns, after_ns;           /* its window (before: never REC_SNAP_ALL) */
	int64_t before_kept_ns, after_kept_ns; /* how much of each the file covers */
};

/* What a trigger did. A dedicated result (not bt_status): the UI needs to
 * tell these apart, and none of them is an error. */
enum rec_snap_trigger_result {
	REC_SNAP_TRIGGERED = 0, /* flipped: the consumer writes snapshot `id` */
	REC_SNAP_EMPTY,         /* nothing buffered: nothing is written */
	REC_SNAP_BUSY,          /* the previous snapshot is still being written */
	REC_SNAP_CLOSED,        /* recording is stopping */
};

struct rec_snap_trigger_info {
	uint64_t id;  /* 1 for the first snapshot (REC_SNAP_TRIGGERED only) */
	size_t count; /* messages in it */
	size_t bytes;
};

struct rec_snap_stats {
	size_t fill_bytes;      /* in the buffer now */
	size_t fill_count;
	uint64_t evicted;       /* all topics (rec_snap_topic_evicted per topic) */
	uint64_t evicted_bytes;
	uint64_t toobig;        /* refused: larger than max_bytes */
	uint64_t post_full;     /* refused: post list full */
	uint64_t post_discarded; /* post messages freed by an early release */
	uint64_t triggered;     /* snapshots flipped (the last id) */
	uint64_t released;      /* snapshots the consumer finished */
	uint64_t refused;       /* triggers answered REC_SNAP_BUSY */
	bool busy;              /* a snapshot is held (being written) */
	bool post_open;
};

struct rec_snap;

/* Aborts on OOM (set-up). opt->max_bytes must be > 0 (the CLI refuses
 * snapshot mode without a cache size). */
struct rec_snap *rec_snap_new(const struct rec_snap_options *opt);
/* Frees the snap and every message still in it. No thread may use it. */
void rec_snap_free(struct rec_snap *s);
/* Sets `topic`'s window (copied), before its first push (a window changed
 * later applies to the messages pushed from then on). Any thread. */
void rec_snap_topic_set(struct rec_snap *s, uint32_t topic, const struct rec_snap_window *w);

/* Takes ownership of m (m->recv_time set). BT_OK: buffered (older messages
 * may have been evicted; a topic whose window starts at the trigger is not
 * buffered: freed, counted evicted) or in the post list. BT_ERR_TOOBIG:
 * larger than max_bytes or its topic's own bound, freed. BT_ERR_FULL: the
 * post list (or the topic's share of it) is full, freed. BT_ERR_STATE:
 * closed, freed. The caller counts refusals as lost. */
bt_status rec_snap_push(struct rec_snap *s, struct rec_msg *m);
/* Any thread. now_ns: CLOCK_REALTIME (recv_time's clock), the start of the
 * post window. *info is filled for REC_SNAP_TRIGGERED (may be NULL). The
 * windows as configured (rec_snap_trigger_with, NULL params). */
enum rec_snap_trigger_result rec_snap_trigger(struct rec_snap *s, int64_t now_ns,
					      struct rec_snap_trigger_info *info);

/* A trigger's own parameters (`bagtop snapshot --before/--after/--topics/
 * --exclude`): they only narrow. A topic's window becomes min(its before,
 * before_ns) / min(its after, after_ns); a topic left out is not in this
 * snapshot at all: its buffered messages stay in the buffer (the next
 * snapshot's) and its messages after the trigger too. */
struct rec_snap_params {
	int64_t before_ns; /* REC_SNAP_ALL: as configured */
	int64_t after_ns;  /* REC_SNAP_ALL: as configured */
	const bool *skip;  /* skip[topic], topic < n_skip: left out; NULL: none */
	uint32_t n_skip;   /* <= REC_TOPICS_MAX */
	bool skip_rest;    /* topics >= n_skip (discovered later): left out */
	/* The snapshot file's name stem (`--name`, copied; at most
	 * REC_SNAP_NAME_MAX - 1 bytes): rec_snap_held_name. NULL: as usual. */
	const char *name;
};
#define REC_SNAP_NAME_MAX 128

/* rec_snap_trigger with parameters (copied; NULL: as configured). A
 * snapshot none of whose selected topics has a message before the trigger
 * nor a window after it is REC_SNAP_EMPTY. */
enum rec_snap_trigger_result rec_snap_trigger_with(struct rec_snap *s, int64_t now_ns,
						   const struct rec_snap_params *p,
						   struct rec_snap_trigger_info *info);
/* A one-line text for the UI ("snapshot still being written", ...). */
const char *rec_snap_trigger_str(enum rec_snap_trigger_result r);

/* Consumer only. Waits up to timeout_ns for a triggered snapshot, a
 * wake-up or close, and moves the held snapshot into *out, sorted by
 * recv_time (*id its id, 0: none handed out; may be NULL). A snapshot may
 * have no message before the trigger (count 0, id > 0) when some topic's
 * window is after it only. The snapshot stays busy until rec_snap_release.
 * Returns false once closed with no snapshot left to hand out. */
bool rec_snap_take_wait(struct rec_snap *s, int64_t timeout_ns, struct rec_batch *out,
			uint64_t *id);
/* Consumer only, after take_wait handed out a snapshot. Moves the post
 * messages gathered so far into *out (sorted by recv_time) and returns true while
 * the window is open (call again later); returns false when it is over —
 * *out then holds the last ones — or when there is no window (post_ns 0).
 * now_ns: CLOCK_REALTIME. Close ends the window. */
bool rec_snap_post_take(struct rec_snap *s, int64_t now_ns, struct rec_batch *out);
/* Consumer only, after post_take returned false and before release: the
 * topics of the snapshot whose window memory cut short (their own byte
 * bound or the global one evicted messages inside the window before the
 * trigger, or the post list refused some inside it after), at most `max`
 * of them into out (ascending topic order not promised). Returns how many
 * there are (may exceed max). */
size_t rec_snap_cover_get(struct rec_snap *s, struct rec_snap_cover *out, size_t max);
/* rec_snap_cover_get as one line for the log and the metadata, the
 * topics named from `topics`: "/cam: before 1.2 s of 3 s (40%); /imu:
 * after 0.1 s of 1 s (10%)" (shortened with "... N more" to fit len).
 * Returns false, buf "", when every window is complete. */
struct rec_topics;
bool rec_snap_cover_describe(struct rec_snap *s, const struct rec_topics *topics, char *buf,
			     size_t len);
/* Consumer only: the snapshot file is finished (or failed); triggers are
 * accepted again. Call after post_take returned false; a window still open
 * is closed and its messages freed (counted in post_discarded). */
void rec_snap_release(struct rec_snap *s);
/* Consumer only, from take_wait handing out a snapshot until its release:
 * the name its trigger gave its file (rec_snap_params.name; "": none). */
const char *rec_snap_held_name(const struct rec_snap *s);

/* Makes a waiting take_wait return at once (commands for the consumer). */
void rec_snap_wake(struct rec_snap *s);
/* No more pushes or triggers; a held snapshot is still handed out. The
 * buffer's messages are not a snapshot: they are freed with the snap. */
void rec_snap_close(struct rec_snap *s);

/* Any thread: bytes in the buffer (for the UI, no lock), the bound, the
 * counters (one lock), evictions of one topic (no lock). */
size_t rec_snap_fill(const struct rec_snap *s);
size_t rec_snap_max_bytes(const struct rec_snap *s);
void rec_snap_get_stats(struct rec_snap *s, struct rec_snap_stats *out);
uint64_t rec_snap_topic_evicted(const struct rec_snap *s, uint32_t topic);

#endif
