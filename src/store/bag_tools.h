/* bag_tools — what `bagtop reindex` and `bagtop check` do to a bag on disk.
 * Both work from what the storage files actually hold, read through
 * bag_reader. */
#ifndef BAG_TOOLS_H
#define BAG_TOOLS_H

#include <stddef.h>

#include "bag_reader.h"
#include "bag_types.h"
#include "bt_status.h"

/* Builds metadata from the files of `r`, in the layout they have (the
 * version of their newest embedded row; v5 for schema 3 files; else 9):
 * file list and per-file
 * entries, counts, starting_time = first message, duration = last - first
 * (not a sum of file durations), topics with their QoS, compression as the
 * data show it, custom_data and ros_distro from the newest embedded row. */
void bag_reindex_build(const struct bag_reader *r, struct bag_metadata *md);

/* What became of the loss figures (bagtop statistics) in a reindex. */
enum bag_reindex_losses {
	BAG_REINDEX_LOSSES_KEPT,        /* for every file */
	BAG_REINDEX_LOSSES_PARTIAL,     /* for files_losses_known of the files */
	BAG_REINDEX_LOSSES_NO_METADATA, /* none: no readable metadata.yaml, no file's row */
	BAG_REINDEX_LOSSES_NONE,        /* none: metadata.yaml had none (not bagtop's) */
	BAG_REINDEX_LOSSES_NO_STATS,    /* messages could not all be read: no statistics */
};

struct bag_reindex_result {
	size_t files;
	uint64_t messages;
	size_t leftovers_removed; /* *.tmp files removed, blank files set aside */
	enum bag_reindex_losses losses;
	size_t files_losses_known;
};

/* Rebuilds <dir>/metadata.yaml (atomically) from the storage files, rolling
 * back any transaction a crashed writer left in them. `dir` must be a bag
 * directory.
 *
 * Never deletes nor overwrites a storage file: of "X.db3" and "X.db3.zstd"
 * the one with more messages is kept (the .zstd when equal) and the other
 * renamed "<name>.set-aside-by-reindex"; so is a blank file (no table)
 * named like the bag's files, "<prefix>_<N>.db3", with its journal; other
 * blank files are left alone. Each is logged (warning). A file that fails
 * SQLite's quick_check or whose messages do not all read back: metadata is
 * still written, then BT_ERR_FORMAT says the bag was not fully recovered.
 * The layout is kept: the old metadata.yaml's version when it reads (4 or
 * later), else bag_reindex_build's.
 *
 * Statistics: messages recorded, bytes written and rates, per topic and per
 * file, are recomputed from the files (every message is read back, so this
 * reads the whole bag). Losses cannot be seen in the data: a file's loss
 * figures are kept from its entry in the old metadata.yaml, or else from
 * the file's own last metadata row (written by the recorder when it closed
 * the file), when that entry has statistics and matches the file (same
 * path and message count, and per topic the same messages recorded and
 * bytes written). Otherwise that file's entries carry no loss keys at all
 * (unknown, never 0), nor do the topic totals they add to. The breakdown
 * by cause is kept when the topic's losses are known in every file and the
 * old totals agree. */
BT_MUST_CHECK bt_status bag_reindex(const char *dir, struct bag_reindex_result *res,
				    struct bt_error *err);

/* Called once per problem found, with a one-line description. */
typedef void (*bag_check_report)(void *ctx, const char *problem);

/* Verifies that a bag's files and metadata agree: every file opens and
 * passes its backend's check (sqlite's quick_check; mcap: every record,
 * chunk CRCs, and, as bag_storage's *interop, mcap_doctor's rules), every
 * message reads back (and decompresses),
 * metadata.yaml counts, per-topic counts, per-file entries, time range and
 * compression match the data, no storage file is missing or unlisted, and
 * recording statistics (when present) agree with the data and add up.
 * Returns the number of problems (0 = good); a bag that cannot be opened at
 * all counts as one problem, reported through `report`. */
size_t bag_check(const char *path, bag_check_report report, void *ctx);

#endif
