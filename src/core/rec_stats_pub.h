/* rec_stats_pub — the recorder's live statistics on DDS, for other
 * programs (`bagtop stats`, dashboards): its own thread ("rec-stats")
 * reads the topic table's counters at the update rate and writes
 *   "BagtopStatistics" (bagtop::stats::Statistics, src/core/idl/BagtopStats.idl):
 *     every counter of every topic; RELIABLE, TRANSIENT_LOCAL, KEEP_LAST 1,
 *     so a late reader gets the latest sample of each recorder at once;
 *   "BagtopLossEvents" (bagtop::stats::LossEvent): only the topics whose
 *     loss counters changed since the previous event; RELIABLE, VOLATILE,
 *     KEEP_LAST 16; nothing while nothing is lost.
 * At most `update_rate` samples per second on either topic (one at start,
 * then one per period), plus the final statistics sample.
 *
 * Recording never waits on it: it only loads relaxed atomics, and a DDS
 * write that cannot go out at once gives up after a short blocking time
 * on this thread (counted, logged once).
 *
 * Lifetime, by one owner thread: start (after the topic table exists) →
 * stop (joins the thread; afterwards nothing is read from another thread)
 * → write_final (the last statistics sample, state STOPPED: call it once
 * the consumer has drained, so the counts are final) → free (before the
 * participant is deleted). */
#ifndef REC_STATS_PUB_H
#define REC_STATS_PUB_H

#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "rec_recorder.h"
#include "rec_topics.h"

#define REC_STATS_TOPIC "BagtopStatistics"
#define REC_STATS_LOSS_TOPIC "BagtopLossEvents"

/* Fills `st` with the recorder's totals now (rec_recorder_get_status). Called
 * from "rec-stats" while running, and from the caller of write_final. */
typedef void (*rec_stats_status_fn)(void *ctx, struct rec_status *st);

struct rec_stats_pub_options {
	dds_entity_t participant;        /* borrowed; outlives the publisher */
	const struct rec_topics *topics; /* borrowed; outlives the publisher */
	double update_rate;              /* Hz, > 0 (0 = off: do not start one) */
	const char *bag;                 /* the bag directory (copied) */
	const char *version;             /* bagtop's version (copied) */
	rec_stats_status_fn status;      /* may be NULL: no state, file, totals */
	/* The rates to publish, the same the recorder shows everywhere
	 * (borrowed; outlives the publisher; over `topics`). */
	struct rec_rates *rates;
	void *status_ctx;
};

struct rec_stats_pub;

/* Creates the topics and writers on `participant`, writes the first
 * sample and starts the thread. BT_ERR_USAGE for a rate <= 0, BT_ERR_DDS
 * when an entity cannot be created, BT_ERR_STATE when the thread cannot
 * start. Nothing is left behind on error. */
BT_MUST_CHECK bt_status rec_stats_pub_start(const struct rec_stats_pub_options *opt,
					    struct rec_stats_pub **out, struct bt_error *err);
/* Joins the thread. Idempotent; the writers stay (for write_final). */
void rec_stats_pub_stop(struct rec_stats_pub *p);
/* Stops if needed, then writes the final statistics sample (state STOPPED)
 * and a last loss event if losses grew since the previous one. Owner
 * thread; at most once (later calls do nothing). */
void rec_stats_pub_write_final(struct rec_stats_pub *p);
/* The recorder id samples are keyed by (participant GUID, 32 hex digits). */
const char *rec_stats_pub_id(const struct rec_stats_pub *p);
/* Stops if needed, deletes the writers and topics, frees. NULL is fine. */
void rec_stats_pub_free(struct rec_stats_pub *p);

#endif
