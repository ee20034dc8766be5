/* store__mcap_repair — what `bagtop reindex` does to an MCAP storage file
 * (the mcap backend's RECOVER open). Private to src/store. */
#ifndef STORE__MCAP_REPAIR_H
#define STORE__MCAP_REPAIR_H

#include "bt_status.h"
#include "mcap_reader.h"

/* What the repaired file is called while it is written, beside the file. */
#define BAG_MCAP_REPAIR_SUFFIX ".reindex"

/* When the MCAP file at `path` (open in *r) ends without a valid footer and
 * summary, rebuilds it from its complete records into
 * "<path>.reindex", syncs that, renames it over `path` and reopens *r on
 * it (said in one info line). A complete file, or one with a valid summary
 * that is damaged inside, is left as it is (BT_OK). On error the file is
 * untouched and the ".reindex" file removed; *r may then be NULL. */
BT_MUST_CHECK bt_status bag_mcap_repair(const char *path, struct mcap_reader **r,
					struct bt_error *err);

/* An MCAP string as a NUL-terminated malloc'ed copy. */
char *bag_mcap_strdup(struct mcap_str s);

#endif
