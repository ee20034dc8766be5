/* DESIGN: the sqlite3 backend is an adapter over bag_db (bag_db.c), which
 * keeps everything SQLite; this file only maps the storage contract onto
 * it: a file is a bag_db plus, when reading messages, one cursor opened on
 * the first bag_storage read_next. Presets and the journal_mode /
 * synchronous settings become PRAGMAs here and nowhere else. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bag_compat.h"
#include "bag_writer.h"
#include "bt_mem.h"
#include "bag_compat.h"
#include "store__db.h"
#include "store__storage.h"

struct bss {
	struct bag_storage base; /* first: a struct bag_storage * is a struct bss * */
	struct bag_db *db;
	struct bag_db_cursor *cur;
};

static struct bag_db *bss_db(const struct bag_storage *s)
{
	return ((const struct bss *)s)->db;
}

/* ---- options ---- */

/* Default: an on-disk rollback journal whose header is zeroed after each
 * commit (PERSIST), and no fsync. bench/crash_bench measured it, TRUNCATE
 * and WAL (synchronous OFF) to survive SIGKILL mid-transaction without
 * corruption or loss of committed data, unlike rosbag2's journal_mode
 * MEMORY; bench/store_bench found PERSIST the fastest of the three (see the
 * man page, "STORAGE PRESETS"). "resilient" is rosbag2's own preset. */
bool bag_storage_sqlite_preset(const char *preset, const char **journal_mode,
			       const char **synchronous)
{
	bool resilient = preset && !strcasecmp(preset, "resilient");
	if (preset && *preset && !resilient && strcasecmp(preset, "none") != 0)
		return false;
	*journal_mode = resilient ? "WAL" : "PERSIST";
	*synchronous = resilient ? "NORMAL" : "OFF";
	return true;
}

static bt_status bss_pragmas(const struct bag_storage_options *o, struct bag_db_pragmas *p,
			     struct bt_error *err)
{
	memset(p, 0, sizeof *p);
	if (!bag_storage_sqlite_preset(o->preset, &p->journal_mode, &p->synchronous))
		return bt_err_set(err, BT_ERR_USAGE, "unknown sqlite3 storage preset '%s' (known: "
				  "none, resilient)", o->preset);
	for (size_t i = 0; i < o->n_config; i++) {
		const struct bag_kv *kv = &o->config[i];
		if (!strcmp(kv->key, "journal_mode"))
			p->journal_mode = kv->value;
		else if (!strcmp(kv->key, "synchronous"))
			p->synchronous = kv->value;
		else
			return bt_err_set(err, BT_ERR_USAGE, "unknown sqlite3 storage setting '%s' "
					  "(known: journal_mode, synchronous)", kv->key);
	}
	p->page_size = bag_db_page_size_for(o->max_file_size);
	return BT_OK;
}

static bt_status bss_check_options(const struct bag_storage_options *o, struct bt_error *err)
{
	struct bag_db_pragmas p;
	return bss_pragmas(o, &p, err);
}

/* ---- open / close ---- */

static struct bag_storage *bss_wrap(struct bag_db *db)
{
	struct bss *s = bt_xcalloc(1, sizeof *s);
	s->base.ops = &bag_storage_sqlite_ops;
	s->db = db;
	return &s->base;
}

static bt_status bss_create(const char *path, const struct bag_storage_options *o,
			    struct bag_storage **out, struct bt_error *err)
{
	struct bag_db_pragmas p;
	struct bag_db *db = NULL;
	bt_status st = bss_pragmas(o, &p, err);
	if (st == BT_OK)
		st = bag_db_create(path, &p, o->ros_distro ? o->ros_distro : "", o->compat, &db,
				   err);
	if (st == BT_OK)
		*out = bss_wrap(db);
	return st;
}

static bt_status bss_open(const char *path, enum bag_storage_mode mode, struct bag_storage **out,
			  struct bt_error *err)
{
	struct bag_db *db = NULL;
	bt_status st = bag_db_open_read(path, mode == BAG_STORAGE_RECOVER, &db, err);
	if (st == BT_OK)
		*out = bss_wrap(db);
	return st;
}

static bt_status bss_close(struct bag_storage *s, struct bt_error *err)
{
	struct bss *b = (struct bss *)s;
	bag_db_cursor_close(b->cur);
	bt_status st = bag_db_close(b->db, err);
	free(b);
	return st;
}

static void bss_discard(struct bag_storage *s)
{
	struct bss *b = (struct bss *)s;
	bag_db_cursor_close(b->cur);
	bag_db_discard(b->db);
	free(b);
}

/* ---- writing ---- */

static bt_status bss_create_topic(struct bag_storage *s, const struct bag_topic *t,
				  const struct bag_msgdef *def, int64_t *id, struct bt_error *err)
{
	bt_status st = bag_db_insert_topic(bss_db(s), t, id, err);
	/* Humble's schema 3 has no message_definitions table: the definition
	 * is kept by the writer, not stored */
	if (st == BT_OK && def && bag_schema_has_definitions(bag_db_schema_version(bss_db(s))))
		st = bag_db_insert_msgdef(bss_db(s), def, err);
	return st;
}

static bt_status bss_update_msgdef(struct bag_storage *s, const struct bag_msgdef *d,
				   bool *missed, struct bt_error *err)
{
	*missed = false; /* a row is updated in place */
	return bag_db_update_msgdef(bss_db(s), d, err);
}

static bt_status bss_update_topic_qos(struct bag_storage *s, int64_t id, const struct bag_qos *q,
				      size_t n, struct bt_error *err)
{
	return bag_db_update_topic_qos(bss_db(s), id, q, n, err);
}

static bt_status bss_write_metadata(struct bag_storage *s, const struct bag_metadata *md,
				    struct bt_error *err)
{
	return bag_db_insert_metadata(bss_db(s), md, err);
}

static bt_status bss_batch_begin(struct bag_storage *s, struct bt_error *err)
{
	return bag_db_begin(bss_db(s), err);
}

static bt_status bss_write(struct bag_storage *s, int64_t topic_id, int64_t timestamp,
			   int64_t send_time, const void *data, size_t len, struct bt_error *err)
{
	(void)send_time; /* rosbag2's schema has no column for it */
	return bag_db_insert_message(bss_db(s), topic_id, timestamp, data, len, err);
}

static bt_status bss_batch_commit(struct bag_storage *s, struct bt_error *err)
{
	return bag_db_commit(bss_db(s), err);
}

static void bss_batch_abort(struct bag_storage *s)
{
	bag_db_rollback(bss_db(s));
}

/* A commit is durable: nothing waits. */
static bt_status bss_flush(struct bag_storage *s, struct bt_error *err)
{
	(void)s, (void)err;
	return BT_OK;
}

static bt_status bss_size(struct bag_storage *s, uint64_t *bytes, struct bt_error *err)
{
	return bag_db_size(bss_db(s), bytes, err);
}

/* An insert of `len` bytes grows the file by at most its length, plus the
 * 4-byte header of each overflow page it fills (len / 1024 is more than
 * that), plus BSS_GROWTH_PAGES pages (a new leaf in the table and in
 * timestamp_idx, interior splits up to the root in both): a generous bound,
 * so the split decision stays exact. */
#define BSS_GROWTH_PAGES 32u

static uint64_t bss_growth_bound(const struct bag_storage *s, size_t len)
{
	return (uint64_t)len + len / 1024 + BSS_GROWTH_PAGES * bag_db_page_size(bss_db(s));
}

/* ---- reading ---- */

static int bss_version(const struct bag_storage *s)
{
	return bag_db_schema_version(bss_db(s));
}

/* The storage's topics from bag_db's (t freed here). */
static void bss_topics_of(struct bag_db_topic *t, size_t cnt, struct bag_storage_topic **out,
			  size_t *n)
{
	struct bag_storage_topic *o = cnt ? bt_xcalloc(cnt, sizeof *o) : NULL;
	for (size_t i = 0; i < cnt; i++) {
		o[i].id = t[i].id;
		bag_topic_copy(&o[i].topic, &t[i].topic);
		o[i].count = t[i].count;
		o[i].min_ts = t[i].min_ts;
		o[i].max_ts = t[i].max_ts;
	}
	bag_db_topics_free(t, cnt);
	*out = o;
	*n = cnt;
}

static bt_status bss_read_topics(struct bag_storage *s, struct bag_storage_topic **out,
				 size_t *n, uint64_t *orphans, struct bt_error *err)
{
	struct bag_db_topic *t = NULL;
	size_t cnt = 0;
	*out = NULL;
	*n = 0;
	bt_status st = bag_db_read_topics(bss_db(s), &t, &cnt, orphans, err);
	if (st == BT_OK)
		bss_topics_of(t, cnt, out, n);
	return st;
}

static bt_status bss_read_outline(struct bag_storage *s, struct bag_storage_topic **out,
				  size_t *n, uint64_t *count, int64_t *first, int64_t *last,
				  struct bt_error *err)
{
	struct bag_db_topic *t = NULL;
	size_t cnt = 0;
	*out = NULL;
	*n = 0;
	bt_status st = bag_db_read_extent(bss_db(s), count, first, last, err);
	if (st == BT_OK)
		st = bag_db_read_topic_rows(bss_db(s), &t, &cnt, err);
	if (st == BT_OK)
		bss_topics_of(t, cnt, out, n);
	return st;
}

static bt_status bss_read_msgdefs(struct bag_storage *s, struct bag_msgdef **out, size_t *n,
				  struct bt_error *err)
{
	return bag_db_read_msgdefs(bss_db(s), out, n, err);
}

static bt_status bss_read_metadata(struct bag_storage *s, struct bag_metadata *md, bool *found,
				   struct bt_error *err)
{
	return bag_db_read_metadata(bss_db(s), md, found, err);
}

static bt_status bss_peek_compressed(struct bag_storage *s, bool *yes, struct bt_error *err)
{
	return bag_db_peek_zstd(bss_db(s), yes, err);
}

static bt_status bss_check(struct bag_storage *s, char **interop, struct bt_error *err)
{
	(void)interop; /* rosbag2's reader asks nothing quick_check does not */
	return bag_db_check(bss_db(s), err);
}

static int bss_read_next(struct bag_storage *s, struct bag_storage_msg *m, struct bt_error *err)
{
	struct bss *b = (struct bss *)s;
	if (!b->cur) {
		bt_status st = bag_db_cursor_open(b->db, &b->cur, err);
		if (st != BT_OK)
			return st;
	}
	struct bag_db_row row;
	int rc = bag_db_cursor_next(b->cur, &row, err);
	if (rc == 1)
		*m = (struct bag_storage_msg){row.topic_id, row.timestamp, row.data, row.len, 0};
	return rc;
}

static const char *const bss_side_suffixes[] = {"-journal", "-wal", "-shm", NULL};

/* The SQLite file format's header string (sqlite.org/fileformat.html). */
static const unsigned char bss_magic[] = "SQLite format 3";

const struct bag_storage_ops bag_storage_sqlite_ops = {
	.identifier = "sqlite3",
	.extension = ".db3",
	.magic = bss_magic,
	.magic_len = sizeof bss_magic, /* with its NUL, as the header has it */
	.min_split_size = BAG_MIN_SPLIT_SIZE,
	.side_suffixes = bss_side_suffixes,
	.check_options = bss_check_options,
	.create = bss_create,
	.open = bss_open,
	.close = bss_close,
	.discard = bss_discard,
	.create_topic = bss_create_topic,
	.update_msgdef = bss_update_msgdef,
	.update_topic_qos = bss_update_topic_qos,
	.write_metadata = bss_write_metadata,
	.batch_begin = bss_batch_begin,
	.write = bss_write,
	.batch_commit = bss_batch_commit,
	.batch_abort = bss_batch_abort,
	.flush = bss_flush,
	.size = bss_size,
	.growth_bound = bss_growth_bound,
	.version = bss_version,
	.read_topics = bss_read_topics,
	.read_outline = bss_read_outline,
	.read_msgdefs = bss_read_msgdefs,
	.read_metadata = bss_read_metadata,
	.peek_compressed = bss_peek_compressed,
	.check = bss_check,
	.read_next = bss_read_next,
};
