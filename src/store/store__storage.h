/* store__storage — the backends the registry (bag_storage.c) lists, and
 * what the writer needs of the sqlite3 one beyond the ops table. Private
 * to src/store. */
#ifndef STORE__STORAGE_H
#define STORE__STORAGE_H

#include <stdbool.h>

#include "bag_storage.h"

/* rosbag2's MIN_SPLIT_FILE_SIZE for sqlite3 (bag_writer.h's
 * BAG_MIN_SPLIT_SIZE says the same to the app). */
#define BAG_STORAGE_SQLITE_MIN_SPLIT UINT64_C(86016)

extern const struct bag_storage_ops bag_storage_sqlite_ops;

/* The journal_mode and synchronous of sqlite3 preset `preset` (NULL, "",
 * "none" or "resilient"); false for an unknown one. */
bool bag_storage_sqlite_preset(const char *preset, const char **journal_mode,
			       const char **synchronous);

#endif
