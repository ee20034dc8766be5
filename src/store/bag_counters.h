/* bag_counters — the one table of bagtop's loss causes (and of the per-topic
 * counters of messages not written on purpose, which are no loss). Every module that
 * names a cause (the bag's statistics and metadata.yaml, the recorder's
 * counters, the live statistics and their IDL, `bagtop stats --json`,
 * `bagtop info`, the loss lines) expands this table, so adding a cause is
 * one line here, at the end (and one field, last, in src/core/idl/BagtopStats.idl, which
 * idlc reads by itself; tests/unit/test_counters.c checks the two agree).
 *
 * X(field, yaml, idl, json, label, col, group, required):
 *   field    the C member in struct bag_losses and struct rec_topic_stats
 *   yaml     its key under metadata.yaml's `lost_by_cause`
 *   idl      its member in BagtopStats.idl's LossCounts (same order)
 *   json     its key under `lost` in `bagtop stats --json`
 *   label    what it is, in words, after the group's ("" = the group says it)
 *   col      its column heading in `bagtop info -v` (8 characters at most)
 *   group    TRANSPORT (lost in transport) or RECORDER (lost in the recorder);
 *            SKIPPED for the rows of BAG_NOT_LOST below
 *   required the key is in every bag that has lost_by_cause; false for a
 *            cause added later (absent reads 0: older bags counted those
 *            messages under another cause) */
#ifndef BAG_COUNTERS_H
#define BAG_COUNTERS_H

#define BAG_LOSS_CAUSES(X)                                                                    \
	/* gaps in a publisher's sequence numbers */                                          \
	X(lost_transport, "lost_transport", lost_in_transport, "transport", "", "Gaps", TRANSPORT, 1)  \
	/* DDS SAMPLE_REJECTED (resource limits) */                                            \
	X(rejected, "rejected", rejected, "rejected", "rejected: DDS resource limits",         \
	  "Rejected", TRANSPORT, 1)                                                                        \
	/* the message cache overflowed (or memory ran out) */                                 \
	X(lost_cache, "lost_cache", cache_overflow, "cache_overflow", "cache full", "Cache", \
	  RECORDER, 1)                                                                                   \
	/* the cache was full while the writer waited for the compression threads      \
	 * (MESSAGE mode): compression, not the disk, was behind */                            \
	X(lost_compression, "lost_compression", compression_overflow, "compression_overflow", \
	  "cache full: compression behind", "Compress", RECORDER, 1)                                       \
	/* too large for the store */                                                          \
	X(lost_toobig, "lost_toobig", too_large, "too_large", "too large", "TooBig", RECORDER, 1)        \
	/* a write failed (disk full, I/O error) */                                            \
	X(lost_write, "lost_write", write_failure, "write_failure", "write failed", "Write", \
	  RECORDER, 1)                                                                                   \
	/* not written: the stop was told not to wait (second stop request or    \
	 * --stop-timeout) */                                                                  \
	X(lost_abandoned, "lost_abandoned", abandoned, "abandoned", "abandoned at stop",       \
	  "Abandon", RECORDER, 0)                                                                        \
	/* not written: free space on the bag's filesystem was below           \
	 * --min-free-space */                                                                  \
	X(lost_disk_guard, "lost_disk_guard", disk_guard, "disk_guard", "disk guard",          \
	  "DiskGrd", RECORDER, 0)                                                                        \
	/* published by a publisher that appeared while recording, before the  \
	 * recorder's reader matched it: its first sequence number less one */    \
	X(unmatched, "unmatched", unmatched, "unmatched",                                      \
	  "published before the recorder matched its publisher", "Unmatchd", TRANSPORT, 0)

/* Messages left out on purpose: counted per topic like a cause (same
 * columns, same struct bag_losses / rec_topic_stats member, same index
 * space after the causes), but never a loss: they are in no "lost" sum
 * (group SKIPPED), not under metadata.yaml's `lost_by_cause` but beside
 * lost_in_recorder, not in the IDL's LossCounts but at the end of
 * TopicStatistics and Totals. A new row goes at the end. */
#define BAG_NOT_LOST(X)                                                                      \
	/* above its --throttle rate */                                                        \
	X(throttled, "throttled", throttled, "throttled", "throttled", "Throttld", SKIPPED, 0)

/* Every per-topic counter of the table: the causes, then the rest. */
#define BAG_COUNTERS(X) BAG_LOSS_CAUSES(X) BAG_NOT_LOST(X)

/* The groups, and how each is said in words. */
enum bag_loss_group { BAG_LOSS_TRANSPORT, BAG_LOSS_RECORDER, BAG_LOSS_SKIPPED };
#define BAG_LOSS_GROUP_TRANSPORT_TEXT "in transport"
#define BAG_LOSS_GROUP_RECORDER_TEXT "in the recorder"
#define BAG_LOSS_GROUP_SKIPPED_TEXT "not written on purpose"

/* Cause indices, in table order, and their number (BAG_LOSS_N_CAUSES: the
 * losses, which loops over losses stop at); then the BAG_NOT_LOST rows,
 * BAG_N_COUNTERS in all. */
enum bag_loss_cause {
#define BAG_LOSS_X_ENUM(field, yaml, idl, json, label, col, group, required) BAG_CAUSE_##field,
	BAG_LOSS_CAUSES(BAG_LOSS_X_ENUM)
	BAG_LOSS_N_CAUSES,
	BAG_CAUSE_NOT_LOST_BASE = BAG_LOSS_N_CAUSES - 1,
	BAG_NOT_LOST(BAG_LOSS_X_ENUM)
#undef BAG_LOSS_X_ENUM
	BAG_N_COUNTERS
};

/* One cause's names, for code that walks the causes at run time. */
struct bag_loss_cause_info {
	const char *field, *yaml, *idl, *json, *label, *col;
	enum bag_loss_group group;
	int required;
};

/* The table as data, indexed by enum bag_loss_cause: every counter. */
extern const struct bag_loss_cause_info bag_loss_causes[BAG_N_COUNTERS];

/* "in transport", "in the recorder" or "not written on purpose". */
const char *bag_loss_group_text(enum bag_loss_group g);

#endif
