/* DESIGN: one sqlite3 connection per storage file, prepared statements kept
 * for the hot path (message insert, size query). Every sqlite error is turned
 * into a bt_status here, once: SQLITE_FULL and a write refused with
 * EFBIG/ENOSPC become BT_ERR_FULL, SQLITE_TOOBIG BT_ERR_TOOBIG,
 * NOTADB/CORRUPT BT_ERR_FORMAT. */
#include "store__db.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_qos.h"
#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_mem.h"

struct bag_db {
	sqlite3 *h;
	char *path;
	int schema_version;
	int qos_version; /* written files: metadata version whose QoS form the topics rows take */
	bool writable;
	bool in_txn;
	uint64_t txn_bytes; /* message bytes inserted in the open transaction */
	bool has_qos_col, has_hash_col, has_msgdefs, has_metadata;
	sqlite3_stmt *ins_msg;
	sqlite3_stmt *page_count;
	int64_t page_size;
};

struct bag_db_cursor {
	struct bag_db *db;
	sqlite3_stmt *st;
};

/* The tables of a new file, as rosbag2's sqlite3 plugin creates them
 * (sqlite_storage.cpp, initialize()): schema 4 (Iron, Jazzy) as listed;
 * schema 3 (Humble) without the rows marked 4 and with the topics table
 * that has no type_description_hash. Which schema has definitions is
 * bag_schema_has_definitions' call. */
struct bag_db_stmt {
	int from, to; /* schema versions it belongs to */
	const char *sql;
};

static const struct bag_db_stmt bag_db_schema_sql[] = {
	{3, 4, "CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);"},
	{3, 4, "CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,"
	       "metadata TEXT NOT NULL);"},
	{3, 3, "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
	       "serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL);"},
	{4, 4, "CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
	       "serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,"
	       "type_description_hash TEXT NOT NULL);"},
	{4, 4, "CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,"
	       "encoding TEXT NOT NULL,encoded_message_definition TEXT NOT NULL,"
	       "type_description_hash TEXT NOT NULL);"},
	{3, 4, "CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,"
	       "timestamp INTEGER NOT NULL, data BLOB NOT NULL);"},
	{3, 4, "CREATE INDEX timestamp_idx ON messages (timestamp ASC);"},
};

/* SQLite reports a refused write as SQLITE_IOERR_WRITE (EFBIG from a file
 * size limit) or SQLITE_FULL (ENOSPC), and its saved errno is not reliable
 * once it has rolled back; so when a write failed, look at the causes
 * themselves: the file-size limit and the free space beside the file. */
static const char *bag_db_full_cause(const struct bag_db *db)
{
	static const char *const sides[] = {"", "-wal", "-journal"};
	struct rlimit rl;
	for (size_t i = 0; i < 3 && getrlimit(RLIMIT_FSIZE, &rl) == 0 &&
			   rl.rlim_cur != RLIM_INFINITY; i++) {
		struct stat st;
		char *p = bt_xasprintf("%s%s", db->path, sides[i]);
		/* The failed write may have been a whole transaction's pages. */
		bool near = stat(p, &st) == 0 && (uint64_t)st.st_size + db->txn_bytes + 65536 >=
							 (uint64_t)rl.rlim_cur;
		free(p);
		if (near)
			return "the file size limit (ulimit -f) was reached";
	}
	uint64_t avail;
	if (bt_fs_free_space(db->path, &avail, NULL) == BT_OK && avail < 1024 * 1024)
		return "no space left on the device";
	return NULL;
}

static bt_status bag_db_code(const struct bag_db *db, int rc, const char **why)
{
	*why = NULL;
	switch (rc & 0xff) {
	case SQLITE_FULL:
		*why = bag_db_full_cause(db);
		if (!*why)
			*why = "disk full";
		return BT_ERR_FULL;
	case SQLITE_TOOBIG: return BT_ERR_TOOBIG;
	case SQLITE_NOMEM: return BT_ERR_NOMEM;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT: return BT_ERR_FORMAT;
	case SQLITE_IOERR:
		*why = db->writable ? bag_db_full_cause(db) : NULL;
		return *why ? BT_ERR_FULL : BT_ERR_IO;
	default: return BT_ERR_IO;
	}
}

static bt_status bag_db_fail(struct bag_db *db, int rc, struct bt_error *err, const char *fmt,
			     ...) BT_PRINTF(4, 5);

static bt_status bag_db_fail(struct bag_db *db, int rc, struct bt_error *err, const char *fmt,
			     ...)
{
	char what[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	const char *why;
	bt_status code = bag_db_code(db, rc, &why);
	if (!why)
		why = db->h ? sqlite3_errmsg(db->h) : sqlite3_errstr(rc);
	return bt_err_set(err, code, "%s: %s: %s", db->path, what, why);
}

/* Prepares `sql` into *st; on failure the error says what it was for. */
static bt_status bag_db_prepare(struct bag_db *db, const char *sql, sqlite3_stmt **st,
				const char *what, struct bt_error *err)
{
	int rc = sqlite3_prepare_v2(db->h, sql, -1, st, NULL);
	return rc == SQLITE_OK ? BT_OK : bag_db_fail(db, rc, err, "%s", what);
}

static bt_status bag_db_exec(struct bag_db *db, const char *sql, struct bt_error *err)
{
	int rc = sqlite3_exec(db->h, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return bag_db_fail(db, rc, err, "%.60s", sql);
	return BT_OK;
}

/* Runs a one-value query; *out gets column 0 as text (malloc'ed) or NULL. */
static bt_status bag_db_query_text(struct bag_db *db, const char *sql, char **out,
				   struct bt_error *err)
{
	sqlite3_stmt *st;
	*out = NULL;
	int rc = sqlite3_prepare_v2(db->h, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return bag_db_fail(db, rc, err, "%.60s", sql);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
		*out = bt_xstrdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return bag_db_fail(db, rc, err, "%.60s", sql);
	return BT_OK;
}

static bt_status bag_db_query_i64(struct bag_db *db, const char *sql, int64_t *out,
				  struct bt_error *err)
{
	char *s;
	bt_status st = bag_db_query_text(db, sql, &s, err);
	if (st == BT_OK) {
		*out = s ? strtoll(s, NULL, 10) : 0;
		free(s);
	}
	return st;
}

/* store_bench and record_bench measured 32 KiB pages at 1.5x the insert
 * rate of 4 KiB ones for 1 KiB messages and 3-5x for 1 MiB ones (SQLite
 * 3.40, page cache). Split sizes are kept at 32 pages or more. */
#define BAG_DB_PAGE_DEFAULT 4096u
#define BAG_DB_PAGE_LARGE 32768u
#define BAG_DB_PAGES_PER_SPLIT 32u

unsigned bag_db_page_size_for(uint64_t max_file_size)
{
	if (max_file_size == 0)
		return BAG_DB_PAGE_LARGE;
	unsigned p = BAG_DB_PAGE_LARGE;
	while (p > BAG_DB_PAGE_DEFAULT && (uint64_t)p * BAG_DB_PAGES_PER_SPLIT > max_file_size)
		p /= 2;
	return p;
}

static bt_status bag_db_apply_pragmas(struct bag_db *db, const struct bag_db_pragmas *p,
				      struct bt_error *err)
{
	char sql[128], *got = NULL;
	bt_status st = BT_OK;
	/* Before journal_mode: a WAL database cannot change its page size. */
	if (p->page_size != 0) {
		snprintf(sql, sizeof sql, "PRAGMA page_size=%u;", p->page_size);
		st = bag_db_exec(db, sql, err);
	}
	snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s;", p->journal_mode);
	if (st == BT_OK)
		st = bag_db_query_text(db, sql, &got, err);
	if (st == BT_OK && (!got || strcasecmp(got, p->journal_mode) != 0))
		st = bt_err_set(err, BT_ERR_IO, "%s: SQLite refused journal_mode %s", db->path,
				p->journal_mode);
	free(got);
	snprintf(sql, sizeof sql, "PRAGMA synchronous=%s;", p->synchronous);
	if (st == BT_OK)
		st = bag_db_exec(db, sql, err);
	return st;
}

static bt_status bag_db_prepare_write(struct bag_db *db, struct bt_error *err)
{
	int rc = sqlite3_prepare_v3(db->h,
				    "INSERT INTO messages (timestamp, topic_id, data) VALUES (?, ?, ?);",
				    -1, SQLITE_PREPARE_PERSISTENT, &db->ins_msg, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v3(db->h, "PRAGMA page_count;", -1,
					SQLITE_PREPARE_PERSISTENT, &db->page_count, NULL);
	if (rc != SQLITE_OK)
		return bag_db_fail(db, rc, err, "prepare");
	return bag_db_query_i64(db, "PRAGMA page_size;", &db->page_size, err);
}

static bt_status bag_db_create_schema(struct bag_db *db, const char *distro, struct bt_error *err)
{
	bt_status st = bag_db_exec(db, "BEGIN;", err);
	for (size_t i = 0; st == BT_OK && i < sizeof bag_db_schema_sql / sizeof bag_db_schema_sql[0];
	     i++)
		if (db->schema_version >= bag_db_schema_sql[i].from &&
		    db->schema_version <= bag_db_schema_sql[i].to)
			st = bag_db_exec(db, bag_db_schema_sql[i].sql, err);
	if (st != BT_OK)
		return st;
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(
		db->h, "INSERT INTO schema (schema_version, ros_distro) VALUES (?, ?);", -1, &s,
		NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_int(s, 1, db->schema_version);
		sqlite3_bind_text(s, 2, distro ? distro : "", -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(s);
		sqlite3_finalize(s);
		rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
	}
	if (rc != SQLITE_OK)
		return bag_db_fail(db, rc, err, "insert schema row");
	return bag_db_exec(db, "COMMIT;", err);
}

static struct bag_db *bag_db_new(const char *path)
{
	struct bag_db *db = bt_xcalloc(1, sizeof *db);
	db->path = bt_xstrdup(path);
	return db;
}

bt_status bag_db_create(const char *path, const struct bag_db_pragmas *p, const char *ros_distro,
			enum bag_compat compat, struct bag_db **out, struct bt_error *err)
{
	if (bt_fs_exists(path))
		return bt_err_set(err, BT_ERR_EXISTS, "%s: storage file already exists", path);
	struct bag_db *db = bag_db_new(path);
	db->writable = true;
	db->schema_version = bag_compat_schema_version(compat);
	db->qos_version = bag_compat_metadata_version(compat);
	db->has_qos_col = db->has_metadata = true;
	db->has_hash_col = db->has_msgdefs = bag_schema_has_definitions(db->schema_version);
	int rc = sqlite3_open_v2(path, &db->h,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
				 NULL);
	bt_status st = BT_OK;
	if (rc != SQLITE_OK)
		st = bag_db_fail(db, rc, err, "cannot create");
	if (st == BT_OK) {
		sqlite3_extended_result_codes(db->h, 1);
		st = bag_db_apply_pragmas(db, p, err);
	}
	if (st == BT_OK)
		st = bag_db_create_schema(db, ros_distro, err);
	if (st == BT_OK)
		st = bag_db_prepare_write(db, err);
	if (st != BT_OK) {
		bag_db_discard(db);
		return st;
	}
	*out = db;
	return BT_OK;
}

static bool bag_db_table_exists(struct bag_db *db, const char *name)
{
	sqlite3_stmt *s;
	bool yes = false;
	if (sqlite3_prepare_v2(db->h, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?;",
			       -1, &s, NULL) != SQLITE_OK)
		return false;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return yes;
}

static bool bag_db_column_exists(struct bag_db *db, const char *table, const char *col)
{
	return sqlite3_table_column_metadata(db->h, NULL, table, col, NULL, NULL, NULL, NULL,
					     NULL) == SQLITE_OK;
}

/* Works out schema 1..4 the way rosbag2 does when there is no schema table. */
static bt_status bag_db_detect_schema(struct bag_db *db, bool recover, struct bt_error *err)
{
	int64_t tables = -1;
	if (recover && bag_db_query_i64(db, "SELECT count(*) FROM sqlite_master;", &tables, NULL) ==
			       BT_OK && tables == 0) {
		db->schema_version = 0; /* blank: a writer died while creating it */
		return BT_OK;
	}
	if (!bag_db_table_exists(db, "topics") || !bag_db_table_exists(db, "messages"))
		return bt_err_set(err, BT_ERR_FORMAT, "%s: not a rosbag2 sqlite3 file (no topics "
				  "or messages table)", db->path);
	db->has_qos_col = bag_db_column_exists(db, "topics", "offered_qos_profiles");
	db->has_hash_col = bag_db_column_exists(db, "topics", "type_description_hash");
	db->has_msgdefs = bag_db_table_exists(db, "message_definitions");
	db->has_metadata = bag_db_table_exists(db, "metadata");
	if (bag_db_table_exists(db, "schema")) {
		int64_t v = 0;
		bt_status st = bag_db_query_i64(
			db, "SELECT schema_version FROM schema ORDER BY schema_version DESC LIMIT 1;",
			&v, err);
		if (st != BT_OK)
			return st;
		db->schema_version = v >= 1 && v <= 1000 ? (int)v : 4;
	} else {
		db->schema_version = db->has_qos_col ? 2 : 1;
	}
	return BT_OK;
}

/* Percent-encodes what a file: URI cannot hold literally. */
static char *bag_db_uri(const char *path, const char *params)
{
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = bt_buf_puts(&b, "file:");
	for (const char *p = path; st == BT_OK && *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#')
			st = bt_buf_printf(&b, "%%%02X", (unsigned char)*p);
		else
			st = bt_buf_append(&b, p, 1);
	}
	if (st == BT_OK)
		st = bt_buf_printf(&b, "?%s", params);
	if (st != BT_OK)
		abort();
	return bt_buf_steal(&b);
}

static int bag_db_try_open(struct bag_db *db, const char *name, int flags)
{
	if (db->h) {
		sqlite3_close_v2(db->h);
		db->h = NULL;
	}
	int rc = sqlite3_open_v2(name, &db->h, flags | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_extended_result_codes(db->h, 1);
		/* Reading the schema cookie forces SQLite to look at the file. */
		rc = sqlite3_exec(db->h, "PRAGMA schema_version;", NULL, NULL, NULL);
	}
	return rc;
}

/* A WAL-flagged file (header bytes 18/19 = 2) with no WAL content beside
 * it. Opened normally, even read-only, SQLite would create -shm and -wal
 * files next to it (and leave them: a read-only connection cannot remove
 * them), i.e. write into a bag we only read; read as immutable instead,
 * which sees the same data. */
static bool bag_db_wal_idle(const char *path)
{
	unsigned char hdr[20];
	int fd;
	if (bt_fs_open_regular(path, &fd, NULL) != BT_OK)
		return false;
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		close(fd);
		return false;
	}
	size_t n = fread(hdr, 1, sizeof hdr, f);
	fclose(f);
	if (n != sizeof hdr || hdr[18] != 2)
		return false;
	char *wal = bt_xasprintf("%s-wal", path);
	uint64_t size = 0;
	bool idle = bt_fs_file_size(wal, &size, NULL) != BT_OK || size == 0;
	free(wal);
	return idle;
}

static bt_status bag_db_open_any(struct bag_db *db, bool recover, struct bt_error *err)
{
	int rc = SQLITE_CANTOPEN;
	if (recover)
		rc = bag_db_try_open(db, db->path, SQLITE_OPEN_READWRITE);
	if (rc != SQLITE_OK)
		rc = bag_db_wal_idle(db->path) ? SQLITE_CANTOPEN /* -> immutable below */
					       : bag_db_try_open(db, db->path, SQLITE_OPEN_READONLY);
	if ((rc & 0xff) == SQLITE_CANTOPEN || rc == SQLITE_READONLY_CANTINIT ||
	    rc == SQLITE_READONLY_DIRECTORY) {
		/* A WAL-mode file on read-only media: SQLite cannot create its
		 * -shm side file, so read the file as immutable. */
		char *uri = bag_db_uri(db->path, "immutable=1");
		int rc2 = bag_db_try_open(db, uri, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
		free(uri);
		if (rc2 == SQLITE_OK)
			rc = rc2;
	}
	if (rc == SQLITE_READONLY_ROLLBACK)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "%s: the file was not closed cleanly (a transaction is pending); "
				  "run 'bagtop reindex' on the bag to recover it", db->path);
	if (rc != SQLITE_OK)
		return bag_db_fail(db, rc, err, "cannot open");
	return BT_OK;
}

bt_status bag_db_open_read(const char *path, bool recover, struct bag_db **out,
			   struct bt_error *err)
{
	if (!bt_fs_is_file(path))
		return bt_fs_exists(path)
			? bt_err_set(err, BT_ERR_FORMAT, "%s: not a regular file", path)
			: bt_err_set(err, BT_ERR_NOTFOUND, "%s: no such file", path);
	/* SQLite opens these itself when they exist: one that is not a
	 * regular file (a FIFO) would block it. */
	static const char *const side[] = {"-journal", "-wal", "-shm"};
	for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
		char *p = bt_xasprintf("%s%s", path, side[i]);
		bool odd = bt_fs_exists(p) && !bt_fs_is_file(p);
		bt_status st = odd ? bt_err_set(err, BT_ERR_FORMAT, "%s: not a regular file", p)
				   : BT_OK;
		free(p);
		if (st != BT_OK)
			return st;
	}
	struct bag_db *db = bag_db_new(path);
	bt_status st = bag_db_open_any(db, recover, err);
	if (st == BT_OK)
		st = bag_db_detect_schema(db, recover, err);
	if (st != BT_OK) {
		bag_db_discard(db);
		return st;
	}
	*out = db;
	return BT_OK;
}

static void bag_db_free(struct bag_db *db)
{
	sqlite3_finalize(db->ins_msg);
	sqlite3_finalize(db->page_count);
	if (db->h)
		sqlite3_close_v2(db->h);
	free(db->path);
	free(db);
}

void bag_db_discard(struct bag_db *db)
{
	if (!db)
		return;
	if (db->in_txn)
		sqlite3_exec(db->h, "ROLLBACK;", NULL, NULL, NULL);
	bag_db_free(db);
}

bt_status bag_db_close(struct bag_db *db, struct bt_error *err)
{
	bt_status st = BT_OK;
	if (db->in_txn)
		st = bag_db_fail(db, SQLITE_MISUSE, err, "closed inside a transaction");
	if (st == BT_OK && db->writable) {
		char *mode = NULL;
		st = bag_db_query_text(db, "PRAGMA journal_mode=DELETE;", &mode, err);
		free(mode);
	}
	sqlite3_finalize(db->ins_msg);
	sqlite3_finalize(db->page_count);
	db->ins_msg = db->page_count = NULL;
	int rc = sqlite3_close(db->h);
	if (rc != SQLITE_OK && st == BT_OK)
		st = bag_db_fail(db, rc, err, "close");
	if (rc != SQLITE_OK)
		sqlite3_close_v2(db->h);
	db->h = NULL;
	bag_db_free(db);
	return st;
}

int bag_db_schema_version(const struct bag_db *db)
{
	return db->schema_version;
}

const char *bag_db_path(const struct bag_db *db)
{
	return db->path;
}

/* ---- writing ---- */

static bt_status bag_db_step_done(struct bag_db *db, sqlite3_stmt *s, const char *what,
				  struct bt_error *err)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	sqlite3_clear_bindings(s);
	if (rc != SQLITE_DONE)
		return bag_db_fail(db, rc, err, "%s", what);
	return BT_OK;
}

bt_status bag_db_insert_topic(struct bag_db *db, const struct bag_topic *t, int64_t *id,
			      struct bt_error *err)
{
	struct bt_buf qos = BT_BUF_INIT;
	if (bag_qos_to_string(t->qos, t->n_qos, db->qos_version, &qos) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "cannot serialise QoS");
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db->h,
				    db->has_hash_col
					    ? "INSERT INTO topics(name, type, serialization_format, "
					      "offered_qos_profiles, type_description_hash) "
					      "VALUES (?, ?, ?, ?, ?);"
					    : "INSERT INTO topics (name, type, serialization_format, "
					      "offered_qos_profiles) VALUES (?, ?, ?, ?);",
				    -1, &s, NULL);
	if (rc != SQLITE_OK) {
		bt_buf_fini(&qos);
		return bag_db_fail(db, rc, err, "insert topic %s", t->name);
	}
	sqlite3_bind_text(s, 1, t->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, t->type, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, t->serialization_format ? t->serialization_format : "cdr", -1,
			  SQLITE_STATIC);
	sqlite3_bind_text(s, 4, qos.data ? qos.data : "", -1, SQLITE_STATIC);
	if (db->has_hash_col)
		sqlite3_bind_text(s, 5, t->type_description_hash ? t->type_description_hash : "",
				  -1, SQLITE_STATIC);
	bt_status st = bag_db_step_done(db, s, "insert topic", err);
	sqlite3_finalize(s);
	bt_buf_fini(&qos);
	if (st == BT_OK)
		*id = sqlite3_last_insert_rowid(db->h);
	return st;
}

bt_status bag_db_update_topic_qos(struct bag_db *db, int64_t id, const struct bag_qos *q,
				  size_t n, struct bt_error *err)
{
	struct bt_buf qos = BT_BUF_INIT;
	if (bag_qos_to_string(q, n, db->qos_version, &qos) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "cannot serialise QoS");
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(db->h, "UPDATE topics SET offered_qos_profiles = ? WHERE id = ?;",
				    -1, &s, NULL);
	if (rc != SQLITE_OK) {
		bt_buf_fini(&qos);
		return bag_db_fail(db, rc, err, "update the QoS of topic id %lld", (long long)id);
	}
	sqlite3_bind_text(s, 1, qos.data ? qos.data : "", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, id);
	bt_status st = bag_db_step_done(db, s, "update topic QoS", err);
	sqlite3_finalize(s);
	bt_buf_fini(&qos);
	return st;
}

static const char *bag_db_nz(const char *s)
{
	return s ? s : "";
}

/* Runs the one-shot statement `sql` with its ?s bound to the texts
 * v[0..n) (NULL as ""); `what` names it in an error. */
static bt_status bag_db_run_texts(struct bag_db *db, const char *sql, const char *const *v,
				  size_t n, const char *what, struct bt_error *err)
{
	sqlite3_stmt *s;
	bt_status st = bag_db_prepare(db, sql, &s, what, err);
	if (st != BT_OK)
		return st;
	for (size_t i = 0; i < n; i++)
		sqlite3_bind_text(s, (int)i + 1, bag_db_nz(v[i]), -1, SQLITE_STATIC);
	st = bag_db_step_done(db, s, what, err);
	sqlite3_finalize(s);
	return st;
}

bt_status bag_db_insert_msgdef(struct bag_db *db, const struct bag_msgdef *d,
			       struct bt_error *err)
{
	if (!db->has_msgdefs)
		return bt_err_set(err, BT_ERR_USAGE, "%s: schema %d has no message_definitions table",
				  db->path, db->schema_version);
	const char *v[] = {d->topic_type, d->encoding, d->encoded_message_definition,
			   d->type_description_hash};
	return bag_db_run_texts(db,
				"INSERT INTO message_definitions (topic_type, encoding, "
				"encoded_message_definition, type_description_hash) "
				"VALUES (?, ?, ?, ?);",
				v, sizeof v / sizeof v[0], "insert message definition", err);
}

bt_status bag_db_update_msgdef(struct bag_db *db, const struct bag_msgdef *d,
			       struct bt_error *err)
{
	if (!db->has_msgdefs)
		return BT_OK;
	const char *v[] = {d->encoding, d->encoded_message_definition, d->topic_type};
	return bag_db_run_texts(db,
				"UPDATE message_definitions SET encoding = ?, "
				"encoded_message_definition = ? WHERE topic_type = ?;",
				v, sizeof v / sizeof v[0], "update message definition", err);
}

bt_status bag_db_insert_metadata(struct bag_db *db, const struct bag_metadata *md,
				 struct bt_error *err)
{
	struct bt_buf y = BT_BUF_INIT;
	if (bag_metadata_to_yaml(md, false, &y) != BT_OK) {
		bt_buf_fini(&y);
		return bt_err_set(err, BT_ERR_NOMEM, "cannot serialise metadata");
	}
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(
		db->h, "INSERT INTO metadata (metadata_version, metadata) VALUES (?, ?);", -1, &s,
		NULL);
	bt_status st;
	if (rc != SQLITE_OK) {
		st = bag_db_fail(db, rc, err, "insert metadata");
	} else {
		sqlite3_bind_int(s, 1, bag_metadata_layout_version(md));
		sqlite3_bind_text(s, 2, y.data, (int)y.len, SQLITE_STATIC);
		st = bag_db_step_done(db, s, "insert metadata", err);
		sqlite3_finalize(s);
	}
	bt_buf_fini(&y);
	return st;
}

bt_status bag_db_begin(struct bag_db *db, struct bt_error *err)
{
	bt_status st = bag_db_exec(db, "BEGIN TRANSACTION;", err);
	db->txn_bytes = 0;
	if (st == BT_OK)
		db->in_txn = true;
	return st;
}

bt_status bag_db_commit(struct bag_db *db, struct bt_error *err)
{
	bt_status st = bag_db_exec(db, "COMMIT;", err);
	if (st != BT_OK)
		bag_db_rollback(db);
	db->in_txn = false;
	return st;
}

void bag_db_rollback(struct bag_db *db)
{
	if (sqlite3_get_autocommit(db->h) == 0)
		sqlite3_exec(db->h, "ROLLBACK;", NULL, NULL, NULL);
	db->in_txn = false;
}

bt_status bag_db_insert_message(struct bag_db *db, int64_t topic_id, int64_t timestamp,
				const void *data, size_t len, struct bt_error *err)
{
	sqlite3_stmt *s = db->ins_msg;
	if (len > (size_t)INT32_MAX)
		return bt_err_set(err, BT_ERR_TOOBIG, "%s: message of %zu bytes is too large for "
				  "sqlite3 storage", db->path, len);
	db->txn_bytes += len;
	sqlite3_bind_int64(s, 1, timestamp);
	sqlite3_bind_int64(s, 2, topic_id);
	/* A NULL pointer would bind SQL NULL; an empty message is an empty blob. */
	int rc = len ? sqlite3_bind_blob(s, 3, data, (int)len, SQLITE_STATIC)
		     : sqlite3_bind_zeroblob(s, 3, 0);
	if (rc != SQLITE_OK) {
		sqlite3_reset(s);
		return bag_db_fail(db, rc, err, "insert message");
	}
	/* Not bag_db_step_done: every parameter is bound again for the next
	 * message, so clearing them would be work for nothing (it showed in the
	 * profile at 1 KiB messages). */
	rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? BT_OK : bag_db_fail(db, rc, err, "insert message");
}

uint64_t bag_db_page_size(const struct bag_db *db)
{
	return (uint64_t)db->page_size;
}

bt_status bag_db_size(struct bag_db *db, uint64_t *bytes, struct bt_error *err)
{
	int rc = sqlite3_step(db->page_count);
	int64_t pages = rc == SQLITE_ROW ? sqlite3_column_int64(db->page_count, 0) : 0;
	sqlite3_reset(db->page_count);
	if (rc != SQLITE_ROW)
		return bag_db_fail(db, rc, err, "page_count");
	*bytes = (uint64_t)pages * (uint64_t)db->page_size;
	return BT_OK;
}

/* ---- reading ---- */

static char *bag_db_col_str(sqlite3_stmt *s, int i)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	return bt_xstrdup(t ? (const char *)t : "");
}

/* Runs query `sql` and calls fn for each row until fn fails: BT_OK once
 * every row is read, else fn's failure or the database's (*err names
 * `what`). */
typedef bt_status (*bag_db_row_fn)(void *arg, sqlite3_stmt *s, struct bt_error *err);

static bt_status bag_db_each_row(struct bag_db *db, const char *sql, const char *what,
				 bag_db_row_fn fn, void *arg, struct bt_error *err)
{
	sqlite3_stmt *s;
	bt_status st = bag_db_prepare(db, sql, &s, what, err);
	if (st != BT_OK)
		return st;
	int rc = SQLITE_DONE;
	while (st == BT_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
		st = fn(arg, s, err);
	sqlite3_finalize(s);
	if (st == BT_OK && rc != SQLITE_DONE)
		st = bag_db_fail(db, rc, err, "%s", what);
	return st;
}

/* What the rows of a topics or message_definitions query are read into. */
struct bag_db_rows {
	struct bag_db *db;
	void *v; /* struct bag_db_topic or struct bag_msgdef */
	size_t n, cap;
	uint64_t orphans; /* messages of no topic */
};

static bt_status bag_db_topic_row(void *arg, sqlite3_stmt *s, struct bt_error *err)
{
	struct bag_db_rows *r = arg;
	bt_xgrow(&r->v, &r->cap, r->n + 1, sizeof(struct bag_db_topic));
	struct bag_db_topic *t = (struct bag_db_topic *)r->v + r->n++;
	t->id = sqlite3_column_int64(s, 0);
	t->topic.name = bag_db_col_str(s, 1);
	t->topic.type = bag_db_col_str(s, 2);
	t->topic.serialization_format = bag_db_col_str(s, 3);
	t->topic.type_description_hash = bag_db_col_str(s, 5);
	t->min_ts = BAG_TIME_NONE;
	t->max_ts = INT64_MIN;
	const unsigned char *q = sqlite3_column_text(s, 4);
	struct bt_error qerr;
	if (q && bag_qos_from_string((const char *)q, &t->topic.qos, &t->topic.n_qos, &qerr) !=
			 BT_OK)
		return bt_err_set(err, BT_ERR_FORMAT, "%s: topic %s: %s", r->db->path,
				  t->topic.name, qerr.msg);
	return BT_OK;
}

static struct bag_db_topic *bag_db_topic_by_id(struct bag_db_topic *t, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].id == id)
			return &t[i];
	return NULL;
}

static bt_status bag_db_count_row(void *arg, sqlite3_stmt *s, struct bt_error *err)
{
	struct bag_db_rows *r = arg;
	(void)err;
	struct bag_db_topic *ti = bag_db_topic_by_id(r->v, r->n, sqlite3_column_int64(s, 0));
	uint64_t cnt = (uint64_t)sqlite3_column_int64(s, 1);
	if (!ti) {
		r->orphans += cnt;
		return BT_OK;
	}
	ti->count = cnt;
	ti->min_ts = sqlite3_column_int64(s, 2);
	ti->max_ts = sqlite3_column_int64(s, 3);
	return BT_OK;
}

/* The per-topic message counts and time range into t[0..n) (GROUP BY over
 * the whole messages table: a pass over every message); *orphans gets the
 * messages of no topic. */
static bt_status bag_db_read_counts(struct bag_db *db, struct bag_db_topic *t, size_t n,
				    uint64_t *orphans, struct bt_error *err)
{
	struct bag_db_rows r = {.db = db, .v = t, .n = n, .cap = n};
	bt_status st = bag_db_each_row(db, "SELECT topic_id, COUNT(*), MIN(timestamp), "
				       "MAX(timestamp) FROM messages GROUP BY topic_id;",
				       "count messages", bag_db_count_row, &r, err);
	*orphans = r.orphans;
	return st;
}

bt_status bag_db_read_topic_rows(struct bag_db *db, struct bag_db_topic **out, size_t *n,
				 struct bt_error *err)
{
	char sql[256];
	snprintf(sql, sizeof sql, "SELECT id, name, type, serialization_format, %s, %s FROM topics "
		 "ORDER BY id;", db->has_qos_col ? "offered_qos_profiles" : "''",
		 db->has_hash_col ? "type_description_hash" : "''");
	struct bag_db_rows r = {.db = db};
	bt_status st = bag_db_each_row(db, sql, "read topics", bag_db_topic_row, &r, err);
	if (st != BT_OK) {
		bag_db_topics_free(r.v, r.n);
		return st;
	}
	*out = r.v;
	*n = r.n;
	return BT_OK;
}

bt_status bag_db_read_topics(struct bag_db *db, struct bag_db_topic **out, size_t *n,
			     uint64_t *orphans, struct bt_error *err)
{
	bt_status st = bag_db_read_topic_rows(db, out, n, err);
	if (st == BT_OK)
		st = bag_db_read_counts(db, *out, *n, orphans, err);
	if (st != BT_OK) {
		bag_db_topics_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return st;
}

/* Each subquery alone: SQLite answers a lone count(*) from the smallest
 * index (timestamp_idx, a few bytes a message) and a lone min() or max()
 * of an indexed column with one descent of that index, but not when they
 * share one SELECT. */
bt_status bag_db_read_extent(struct bag_db *db, uint64_t *count, int64_t *first, int64_t *last,
			     struct bt_error *err)
{
	sqlite3_stmt *s;
	bt_status st = bag_db_prepare(db,
				      "SELECT (SELECT count(*) FROM messages), "
				      "(SELECT min(timestamp) FROM messages), "
				      "(SELECT max(timestamp) FROM messages);",
				      &s, "count messages", err);
	if (st != BT_OK)
		return st;
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		*count = (uint64_t)sqlite3_column_int64(s, 0);
		*first = *count ? sqlite3_column_int64(s, 1) : BAG_TIME_NONE;
		*last = *count ? sqlite3_column_int64(s, 2) : INT64_MIN;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW)
		return bag_db_fail(db, rc, err, "count messages");
	return BT_OK;
}

void bag_db_topics_free(struct bag_db_topic *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bag_topic_fini(&t[i].topic);
	free(t);
}

static bt_status bag_db_msgdef_row(void *arg, sqlite3_stmt *s, struct bt_error *err)
{
	struct bag_db_rows *r = arg;
	(void)err;
	bt_xgrow(&r->v, &r->cap, r->n + 1, sizeof(struct bag_msgdef));
	struct bag_msgdef *d = (struct bag_msgdef *)r->v + r->n++;
	d->topic_type = bag_db_col_str(s, 0);
	d->encoding = bag_db_col_str(s, 1);
	d->encoded_message_definition = bag_db_col_str(s, 2);
	d->type_description_hash = bag_db_col_str(s, 3);
	return BT_OK;
}

bt_status bag_db_read_msgdefs(struct bag_db *db, struct bag_msgdef **out, size_t *n,
			      struct bt_error *err)
{
	*out = NULL;
	*n = 0;
	if (!db->has_msgdefs)
		return BT_OK;
	struct bag_db_rows r = {.db = db};
	bt_status st = bag_db_each_row(
		db, "SELECT topic_type, encoding, encoded_message_definition, "
		    "type_description_hash FROM message_definitions ORDER BY id;",
		"read message definitions", bag_db_msgdef_row, &r, err);
	if (st != BT_OK) {
		for (size_t i = 0; i < r.n; i++)
			bag_msgdef_fini((struct bag_msgdef *)r.v + i);
		free(r.v);
		return st;
	}
	*out = r.v;
	*n = r.n;
	return BT_OK;
}

bt_status bag_db_read_metadata(struct bag_db *db, struct bag_metadata *md, bool *found,
			       struct bt_error *err)
{
	*found = false;
	if (!db->has_metadata)
		return BT_OK;
	char *text;
	bt_status st = bag_db_query_text(
		db, "SELECT metadata FROM metadata ORDER BY id DESC LIMIT 1;", &text, err);
	if (st != BT_OK || !text)
		return st;
	st = bag_metadata_from_yaml(text, strlen(text), md, err);
	free(text);
	if (st != BT_OK)
		return bt_err_prefix(err, "%s: embedded metadata", db->path);
	*found = true;
	return BT_OK;
}

bt_status bag_db_peek_zstd(struct bag_db *db, bool *yes, struct bt_error *err)
{
	char *hex;
	bt_status st = bag_db_query_text(db, "SELECT hex(substr(data, 1, 4)) FROM messages "
					 "ORDER BY id LIMIT 1;", &hex, err);
	*yes = st == BT_OK && hex && !strcmp(hex, "28B52FFD");
	free(hex);
	return st;
}

bt_status bag_db_check(struct bag_db *db, struct bt_error *err)
{
	char *res;
	bt_status st = bag_db_query_text(db, "PRAGMA quick_check;", &res, err);
	if (st != BT_OK)
		return st;
	if (!res || strcmp(res, "ok") != 0)
		st = bt_err_set(err, BT_ERR_FORMAT, "%s: sqlite integrity check failed: %s",
				db->path, res ? res : "(no answer)");
	free(res);
	return st;
}

bt_status bag_db_cursor_open(struct bag_db *db, struct bag_db_cursor **out,
			     struct bt_error *err)
{
	sqlite3_stmt *s;
	bt_status st = bag_db_prepare(db,
				      "SELECT topic_id, timestamp, data FROM messages "
				      "ORDER BY timestamp ASC, id ASC;",
				      &s, "read messages", err);
	if (st != BT_OK)
		return st;
	struct bag_db_cursor *c = bt_xcalloc(1, sizeof *c);
	c->db = db;
	c->st = s;
	*out = c;
	return BT_OK;
}

int bag_db_cursor_next(struct bag_db_cursor *c, struct bag_db_row *row, struct bt_error *err)
{
	int rc = sqlite3_step(c->st);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return bag_db_fail(c->db, rc, err, "read messages");
	row->topic_id = sqlite3_column_int64(c->st, 0);
	row->timestamp = sqlite3_column_int64(c->st, 1);
	row->data = sqlite3_column_blob(c->st, 2);
	row->len = (size_t)sqlite3_column_bytes(c->st, 2);
	return 1;
}

void bag_db_cursor_close(struct bag_db_cursor *c)
{
	if (!c)
		return;
	sqlite3_finalize(c->st);
	free(c);
}
