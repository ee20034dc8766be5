/* store__storage — the backends the registry (bag_storage.c) lists, and
 * what the writer needs of the sqlite3 one beyond the ops table. Private
 * to src/store. */
#ifndef STORE__STORAGE_H
#define STORE__STORAGE_H

#include <stdbool.h>

#include "bag_storage.h"

extern const struct bag_storage_ops bag_storage_sqlite_ops;
extern const struct bag_storage_ops bag_storage_mcap_ops;

/* The journal_mode and synchronous of sqlite3 preset `preset` (NULL, "",
 * "none" or "resilient"); false for an unknown one. */
bool bag_storage_sqlite_preset(const char *preset, const char **journal_mode,
			       const char **synchronous);

#endif
