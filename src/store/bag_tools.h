/* bag_tools — what `bagtop reindex` and `bagtop check` do to a bag on disk.
 * Both work from what the storage files actually hold, read through
 * bag_reader. */
#ifndef BAG_TOOLS_H
#define BAG_TOOLS_H

#include <stddef.h>

#include "bag_reader.h"
#include "bag_types.h"
#include "bt_status.h"

/* Builds version-9 metadata from the files of `r`: file list and per-file
 * entries, counts, starting_time = first message, duration = last - first
 * (not a sum of file durations), topics with their QoS, compression as the
 * data show it, custom_data and ros_distro from the newest embedded row. */
void bag_reindex_build(const struct bag_reader *r, struct bag_metadata *md);

struct bag_reindex_result {
	size_t files;
	uint64_t messages;
	size_t leftovers_removed; /* *.tmp files of an interrupted write */
};

/* Rebuilds <dir>/metadata.yaml (atomically) from the storage files, rolling
 * back any transaction a crashed writer left in them. `dir` must be a bag
 * directory. */
BT_MUST_CHECK bt_status bag_reindex(const char *dir, struct bag_reindex_result *res,
				    struct bt_error *err);

/* Called once per problem found, with a one-line description. */
typedef void (*bag_check_report)(void *ctx, const char *problem);

/* Verifies that a bag's files and metadata agree: every file opens and
 * passes sqlite's quick_check, every message reads back (and decompresses),
 * metadata.yaml counts, per-topic counts, per-file entries, time range and
 * compression match the data, no storage file is missing or unlisted.
 * Returns the number of problems (0 = good); a bag that cannot be opened at
 * all counts as one problem, reported through `report`. */
size_t bag_check(const char *path, bag_check_report report, void *ctx);

#endif
