/* store__db — one rosbag2 sqlite3 storage file (.db3): create with the
 * schema 3 or 4 statements (bag_compat), insert topics / definitions / messages / metadata
 * rows, read back any schema 1..4 file. Private to src/store; the only
 * file besides the benchmark that includes sqlite3.h.
 *
 * A bag_db is used by one thread at a time (SQLITE_OPEN_NOMUTEX). */
#ifndef STORE__DB_H
#define STORE__DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_compat.h"
#include "bag_types.h"
#include "bt_status.h"

struct bag_db;

/* PRAGMAs applied to a file opened for writing. */
struct bag_db_pragmas {
	const char *journal_mode;
	const char *synchronous;
	unsigned page_size; /* bytes (power of two, 512..65536); 0 = SQLite's default */
};

/* The page size for new files of a bag whose files are split at
 * `max_file_size` bytes (0 = never): larger pages cut the cost of each
 * insert (1 KiB messages) and of overflow chains (1 MiB ones) several
 * times over, but an empty file is about seven pages, so small split
 * sizes keep SQLite's 4096. */
unsigned bag_db_page_size_for(uint64_t max_file_size);

/* Creates a new file (BT_ERR_EXISTS if present) with the schema `compat`'s
 * sqlite3 plugin creates (3 for Humble, 4 for Iron and Jazzy) and its
 * `schema` row (version, ros_distro); topics rows then take that distro's
 * QoS string form. */
BT_MUST_CHECK bt_status bag_db_create(const char *path, const struct bag_db_pragmas *p,
				      const char *ros_distro, enum bag_compat compat,
				      struct bag_db **out, struct bt_error *err);
/* Opens an existing file to read. With `recover`, opens it read-write first
 * so SQLite rolls back a transaction a crashed writer left behind; a file
 * then left with no table at all (its writer died while creating it) opens
 * with schema version 0, "blank". */
BT_MUST_CHECK bt_status bag_db_open_read(const char *path, bool recover, struct bag_db **out,
					 struct bt_error *err);
/* Closes; for a written file first switches to journal_mode DELETE so no
 * journal/WAL side file is left and any sqlite3 reader can open it. */
BT_MUST_CHECK bt_status bag_db_close(struct bag_db *db, struct bt_error *err);
/* Closes without caring about errors (error paths). NULL is fine. */
void bag_db_discard(struct bag_db *db);

int bag_db_schema_version(const struct bag_db *db); /* 1..4, 0 = blank */
const char *bag_db_path(const struct bag_db *db);

/* ---- writing ---- */
BT_MUST_CHECK bt_status bag_db_insert_topic(struct bag_db *db, const struct bag_topic *t,
					    int64_t *id, struct bt_error *err);
/* Rewrites the offered_qos_profiles of topics row `id` (autocommit). */
BT_MUST_CHECK bt_status bag_db_update_topic_qos(struct bag_db *db, int64_t id,
						const struct bag_qos *q, size_t n,
						struct bt_error *err);
/* Sets the encoding and text of type d->topic_type's message_definitions
 * row (no table, no row: nothing to do). */
BT_MUST_CHECK bt_status bag_db_update_msgdef(struct bag_db *db, const struct bag_msgdef *d,
					     struct bt_error *err);
/* BT_ERR_USAGE in a schema without the table (bag_schema_has_definitions). */
BT_MUST_CHECK bt_status bag_db_insert_msgdef(struct bag_db *db, const struct bag_msgdef *d,
					     struct bt_error *err);
BT_MUST_CHECK bt_status bag_db_insert_metadata(struct bag_db *db, const struct bag_metadata *md,
					       struct bt_error *err);
BT_MUST_CHECK bt_status bag_db_begin(struct bag_db *db, struct bt_error *err);
BT_MUST_CHECK bt_status bag_db_commit(struct bag_db *db, struct bt_error *err);
void bag_db_rollback(struct bag_db *db); /* no-op outside a transaction */
/* One message; `data` need only live for the call. BT_ERR_TOOBIG when
 * SQLite refuses the blob size (the caller drops and counts it). */
BT_MUST_CHECK bt_status bag_db_insert_message(struct bag_db *db, int64_t topic_id,
					      int64_t timestamp, const void *data, size_t len,
					      struct bt_error *err);
/* PRAGMA page_size of a file opened for writing. */
uint64_t bag_db_page_size(const struct bag_db *db);
/* page_size * page_count, as rosbag2 measures a file for splitting. */
BT_MUST_CHECK bt_status bag_db_size(struct bag_db *db, uint64_t *bytes, struct bt_error *err);

/* ---- reading ---- */
struct bag_db_topic {
	int64_t id;
	struct bag_topic topic;
	uint64_t count;
	int64_t min_ts, max_ts; /* BAG_TIME_NONE / INT64_MIN when count is 0 */
};

/* Every topics row with its message count and time range, ordered by id.
 * *orphans counts messages whose topic_id names no topic. */
BT_MUST_CHECK bt_status bag_db_read_topics(struct bag_db *db, struct bag_db_topic **out,
					   size_t *n, uint64_t *orphans, struct bt_error *err);
/* The same rows without their figures (count 0, no time range): no
 * message is read. */
BT_MUST_CHECK bt_status bag_db_read_topic_rows(struct bag_db *db, struct bag_db_topic **out,
					       size_t *n, struct bt_error *err);
void bag_db_topics_free(struct bag_db_topic *t, size_t n);
/* How many messages the file holds and their time range (BAG_TIME_NONE /
 * INT64_MIN when none), from timestamp_idx when the file has it: a pass
 * over the index and two descents of it, not a read of the table. */
BT_MUST_CHECK bt_status bag_db_read_extent(struct bag_db *db, uint64_t *count, int64_t *first,
					   int64_t *last, struct bt_error *err);
BT_MUST_CHECK bt_status bag_db_read_msgdefs(struct bag_db *db, struct bag_msgdef **out,
					    size_t *n, struct bt_error *err);
/* The last embedded metadata row (schema >= 3); *found false if none. */
BT_MUST_CHECK bt_status bag_db_read_metadata(struct bag_db *db, struct bag_metadata *md,
					     bool *found, struct bt_error *err);
/* True when the first message blob starts with the zstd frame magic. */
BT_MUST_CHECK bt_status bag_db_peek_zstd(struct bag_db *db, bool *yes, struct bt_error *err);
/* PRAGMA quick_check; BT_ERR_FORMAT with SQLite's first complaint. */
BT_MUST_CHECK bt_status bag_db_check(struct bag_db *db, struct bt_error *err);

/* Messages in (timestamp, id) order. Pointers stay valid until the next
 * call on the cursor. */
struct bag_db_cursor;
struct bag_db_row {
	int64_t topic_id;
	int64_t timestamp;
	const uint8_t *data;
	size_t len;
};
BT_MUST_CHECK bt_status bag_db_cursor_open(struct bag_db *db, struct bag_db_cursor **out,
					   struct bt_error *err);
/* 1 = a row, 0 = end, < 0 = error. */
int bag_db_cursor_next(struct bag_db_cursor *c, struct bag_db_row *row, struct bt_error *err);
void bag_db_cursor_close(struct bag_db_cursor *c);

#endif
