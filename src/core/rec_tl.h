/* rec_tl — the repeat-transient-local store (`--repeat-transient-local
 * /map=1 /tf_static=5`, the TUI's `t` key): for every marked topic (by
 * topic index) a FIFO of its last N messages, kept outside the message
 * cache so that cache pressure and snapshot eviction never lose them.
 *
 * Producers offer every message before pushing it to the cache (the push
 * moves it): rec_tl_offer copies it when its topic is marked. The store
 * owns its copies and never hands them out: readers get fresh copies
 * (rec_tl_copy), which rec_repeat restamps and merges. A topic marked
 * while it is recorded also gets what arrived before the mark, fetched
 * again from its transient-local publishers (rec_tl_fill, from rec_sub).
 *
 * Marks are by topic index, so a topic can be marked before its first
 * message (or before it has any publisher); the discovery wiring marks a
 * topic named on the command line when it adds it to rec_topics
 * (rec_tl_parse_spec turns "/tf_static=5" into name and depth).
 *
 * Memory: depth messages per marked topic, whatever their size (a TL
 * message larger than the cache is kept). A failed copy is counted
 * (alloc_failed) and the message is simply not stored; nothing aborts.
 *
 * Thread-safety: everything from any thread. offer on an unmarked topic is
 * one relaxed atomic load, no lock. */
#ifndef REC_TL_H
#define REC_TL_H

#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "rec_cache.h"
#include "rec_msg.h"

#define REC_TL_DEPTH_MAX 1000000u /* per topic; a sanity bound for users */

struct rec_tl_stats {
	size_t topics;         /* marked now */
	size_t messages;       /* stored copies */
	size_t bytes;          /* their payload bytes */
	uint64_t alloc_failed; /* copies that could not be made (offer or copy) */
};

struct rec_tl;

struct rec_tl *rec_tl_new(void); /* aborts on OOM (set-up) */
/* Frees the store and its copies. No thread may use it. */
void rec_tl_free(struct rec_tl *tl);

/* Marks `topic` to keep its last `depth` messages; depth 0 unmarks it and
 * frees what it kept; a smaller depth drops the oldest at once.
 * BT_ERR_USAGE: topic >= REC_TOPICS_MAX or depth > REC_TL_DEPTH_MAX. */
BT_MUST_CHECK bt_status rec_tl_set_depth(struct rec_tl *tl, uint32_t topic, uint32_t depth);
/* The depth of `topic`, 0 when not marked. No lock. */
uint32_t rec_tl_depth(const struct rec_tl *tl, uint32_t topic);
/* Producers, for every message (m is only read). Keeps a copy when the
 * topic is marked, dropping the topic's oldest beyond its depth. */
void rec_tl_offer(struct rec_tl *tl, const struct rec_msg *m);
/* Fresh copies of every stored message (each marked topic's last N), into
 * *out as a list owned by the caller, sorted by recv_time (ties: the order
 * they were offered). Returns how many could not be copied (no memory;
 * also counted in alloc_failed). The lock is held only to take references. */
size_t rec_tl_copy(struct rec_tl *tl, struct rec_batch *out);
/* Messages of `topic` that arrived before it was marked (its
 * transient-local publishers' history, fetched after the mark: rec_sub),
 * oldest first. Consumes *batch (the store adopts the messages, no copy).
 * Each one the store already holds (same writer_sn, length and bytes: it
 * also arrived after the mark) is dropped; the others go before the
 * topic's stored messages, recv_time clamped to before the oldest of
 * those, and the topic is trimmed to its depth (the oldest go first).
 * Nothing is kept when the topic is no longer marked. Returns how many
 * were kept. */
size_t rec_tl_fill(struct rec_tl *tl, uint32_t topic, struct rec_batch *batch);
void rec_tl_get_stats(struct rec_tl *tl, struct rec_tl_stats *out);

/* Parses one `--repeat-transient-local` argument "TOPIC[=N]": *name a
 * malloc'ed copy of TOPIC (the caller frees it), *depth N (default 1).
 * BT_ERR_USAGE (message in *err) for an empty topic, N <= 0, N not a
 * number or above REC_TL_DEPTH_MAX. */
BT_MUST_CHECK bt_status rec_tl_parse_spec(const char *arg, char **name, uint32_t *depth,
					  struct bt_error *err);

#endif
