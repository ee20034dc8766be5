/* bag_writer -> disk -> bag_reader round trips, checked three ways: the
 * reader's messages (byte-exact, timestamp order), metadata.yaml against
 * the data, and the raw sqlite files (rosbag2's schema text, schema row,
 * metadata rows, topics and definitions per file, journal mode, blobs).
 * Ground truth: ROSBAG2_FORMAT.md §1-§7. Every bag lives in a tu_mkdtemp
 * directory removed at the end of its test. */
#include <sqlite3.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_qos.h"
#include "bag_reader.h"
#include "bag_tools.h"
#include "bag_writer.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "store__zstd.h" /* to inflate FILE-mode files and MESSAGE blobs */
#include "test_bag.h"
#include "test_util.h"

#define WT_T0 INT64_C(1700000000000000000)
#define WT_NONE SIZE_MAX /* file of a message not known in advance */

/* rosbag2's schema, as sqlite_master stores it (ROSBAG2_FORMAT.md §2). */
static const char *const wt_schema_sql[] = {
	"CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL)",
	"CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,"
	"metadata TEXT NOT NULL)",
	"CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
	"serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,"
	"type_description_hash TEXT NOT NULL)",
	"CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,"
	"encoding TEXT NOT NULL,encoded_message_definition TEXT NOT NULL,"
	"type_description_hash TEXT NOT NULL)",
	"CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,"
	"timestamp INTEGER NOT NULL, data BLOB NOT NULL)",
	"CREATE INDEX timestamp_idx ON messages (timestamp ASC)",
};

/* ---- the bag under test and what we wrote into it ---- */

struct wt_msg {
	uint32_t topic; /* index into wt_bag.topics */
	int64_t ts;
	size_t len;
	uint32_t seed;
	size_t file;     /* expected storage file index, or WT_NONE */
	size_t raw_file; /* where the raw scan found it */
};

struct wt_topic {
	struct bag_topic t;
	struct bag_msgdef def;
	uint32_t handle;
	size_t first_file; /* file open when the topic was added */
};

struct wt_bag {
	char *tmp, *dir, *base;
	struct bag_writer_options o;
	struct bag_writer *w;
	struct wt_topic *topics;
	size_t n_topics;
	struct wt_msg *msgs;
	size_t n_msgs, cap_msgs;
	size_t cur_file;     /* file the writer writes now, when known */
	bool files_known;    /* false once a size/duration split may happen */
	size_t first_kept;   /* max_bag_files: index of the oldest file left */
	size_t expect_files; /* exact number of files, 0 = at least one */
	const char *distro;  /* expected ros_distro */
	uint32_t next_seed;
};

static void wt_fill(uint8_t *p, size_t len, uint32_t seed)
{
	static const uint8_t cdr[4] = {0x00, 0x01, 0x00, 0x00};
	uint32_t x = seed * 2654435761u + 1u;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = i < 4 ? cdr[i] : (uint8_t)x;
	}
}

static uint8_t *wt_payload(const struct wt_msg *m)
{
	uint8_t *p = bt_xmalloc(m->len ? m->len : 1);
	wt_fill(p, m->len, m->seed);
	return p;
}

static void wt_init(struct wt_bag *b, const char *tag)
{
	memset(b, 0, sizeof *b);
	b->tmp = tu_scratch_new(tag);
	b->base = bt_xasprintf("%s_bag", tag);
	b->dir = bt_fs_join(b->tmp, b->base);
	b->o.uri = b->dir;
	b->o.compression_threads = 2;
	b->o.ros_distro = "jazzy";
	b->distro = "jazzy";
	b->files_known = true;
}

static void wt_open(struct wt_bag *b)
{
	b->w = tb_writer_open(&b->o);
}

/* Topic i: one of `ntypes` types, i % 3 QoS profiles, a hash on some. */
static void wt_add_topics(struct wt_bag *b, size_t n, size_t ntypes)
{
	static const char *const types[] = {"std_msgs/msg/String", "sensor_msgs/msg/Imu",
					    "test_msgs/msg/Empty", "rcl_interfaces/msg/Log"};
	assert_true(ntypes >= 1 && ntypes <= 4);
	b->topics = bt_xrealloc(b->topics, (b->n_topics + n) * sizeof *b->topics);
	for (size_t k = 0; k < n; k++) {
		size_t i = b->n_topics;
		struct wt_topic *t = &b->topics[i];
		memset(t, 0, sizeof *t);
		char *name = bt_xasprintf("/wt/topic_%02zu", i);
		size_t ty = i % ntypes;
		struct bag_qos q[2];
		bag_qos_default(&q[0]);
		bag_qos_default(&q[1]);
		q[0].depth = i;
		q[1].history = BAG_HISTORY_KEEP_LAST;
		q[1].reliability = BAG_RELIABILITY_BEST_EFFORT;
		q[1].deadline = (struct bag_qos_time){i, 1000};
		char *hash = bt_xasprintf("RIHS01_%064zx", ty + 1);
		struct bag_topic in = {name, (char *)types[ty], "cdr", q, i % 3,
				       ty % 2 ? hash : ""};
		char *text = bt_xasprintf("# definition of %s\nstring data", types[ty]);
		struct bag_msgdef def = {(char *)types[ty], "ros2msg", text, ty % 2 ? hash : ""};
		struct bt_error err;
		if (bag_writer_add_topic(b->w, &in, &def, &t->handle, &err) != BT_OK)
			fail_msg("add_topic: %s", err.msg);
		bag_topic_copy(&t->t, &in);
		bag_msgdef_copy(&t->def, &def);
		t->first_file = b->cur_file;
		b->n_topics++;
		free(text);
		free(hash);
		free(name);
	}
}

/* Writes `n` messages in one bag_writer_write call. */
static void wt_write(struct wt_bag *b, const struct wt_msg *in, size_t n)
{
	struct bag_message *m = bt_xcalloc(n ? n : 1, sizeof *m);
	uint8_t **data = bt_xcalloc(n ? n : 1, sizeof *data);
	for (size_t i = 0; i < n; i++) {
		data[i] = wt_payload(&in[i]);
		m[i] = (struct bag_message){b->topics[in[i].topic].handle, in[i].ts, data[i],
					    in[i].len, 0};
	}
	struct bt_error err;
	if (bag_writer_write(b->w, m, n, &err) != BT_OK)
		fail_msg("bag_writer_write: %s", err.msg);
	bt_xgrow((void **)&b->msgs, &b->cap_msgs, b->n_msgs + n, sizeof *b->msgs);
	for (size_t i = 0; i < n; i++) {
		b->msgs[b->n_msgs] = in[i];
		b->msgs[b->n_msgs].file = b->files_known ? b->cur_file : WT_NONE;
		b->n_msgs++;
		free(data[i]);
	}
	free(data);
	free(m);
}

static struct wt_msg wt_msg(struct wt_bag *b, uint32_t topic, int64_t ts, size_t len)
{
	return (struct wt_msg){topic, ts, len, b->next_seed++, WT_NONE, WT_NONE};
}

static void wt_split(struct wt_bag *b)
{
	struct bt_error err;
	if (bag_writer_split(b->w, &err) != BT_OK)
		fail_msg("bag_writer_split: %s", err.msg);
	b->cur_file++;
}

static void wt_close(struct wt_bag *b)
{
	struct bt_error err;
	if (bag_writer_close(b->w, &err) != BT_OK)
		fail_msg("bag_writer_close: %s", err.msg);
	b->w = NULL;
}

static void wt_fini(struct wt_bag *b)
{
	for (size_t i = 0; i < b->n_topics; i++) {
		bag_topic_fini(&b->topics[i].t);
		bag_msgdef_fini(&b->topics[i].def);
	}
	free(b->topics);
	free(b->msgs);
	tu_rmrf(b->tmp); /* its teardown frees the name */
	free(b->dir);
	free(b->base);
}

/* The bag of a test: wt_init with the tag that is the test's initial
 * state (WT_BAG_TEST), then in *state; the teardown finishes it and
 * removes the test's scratch directories (tu_scratch_list_teardown). */
static int wt_bag_setup(void **state)
{
	struct wt_bag *b = bt_xmalloc(sizeof *b);
	wt_init(b, *state);
	*state = b;
	return 0;
}

static int wt_bag_teardown(void **state)
{
	wt_fini(*state);
	free(*state);
	return tu_scratch_list_teardown(state);
}

#define WT_TEST(f) cmocka_unit_test_teardown(f, tu_scratch_list_teardown)
#define WT_BAG_TEST(f, tag)                                                                        \
	cmocka_unit_test_prestate_setup_teardown(f, wt_bag_setup, wt_bag_teardown, (void *)(tag))

static bool wt_kept(const struct wt_bag *b, const struct wt_msg *m)
{
	return m->file == WT_NONE || m->file >= b->first_kept;
}

/* ---- raw sqlite helpers ---- */

static char *wt_sql_text(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *s = tb_sql(h, sql);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	char *t = bt_xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return t;
}

/* The first `n` bytes of the file at path (there must be that many). */
static void wt_read_head(const char *path, unsigned char *head, size_t n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fread(head, 1, n, f), n);
	fclose(f);
}

static void wt_assert_header_rollback(const char *path)
{
	unsigned char hdr[100];
	wt_read_head(path, hdr, sizeof hdr);
	assert_memory_equal(hdr, "SQLite format 3", 16);
	/* File format read/write versions: 1 = rollback journal, 2 = WAL. */
	assert_int_equal(hdr[18], 1);
	assert_int_equal(hdr[19], 1);
}

static int wt_header_version(const char *path)
{
	unsigned char hdr[20];
	wt_read_head(path, hdr, sizeof hdr);
	assert_int_equal(hdr[18], hdr[19]);
	return hdr[18];
}

/* ---- checks ---- */

static void wt_check_master(sqlite3 *h)
{
	sqlite3_stmt *s = tb_sql(h, "SELECT sql FROM sqlite_master ORDER BY rowid;");
	size_t n = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		assert_true(n < 6);
		const char *sql = (const char *)sqlite3_column_text(s, 0);
		assert_non_null(sql);
		assert_string_equal(sql, wt_schema_sql[n]);
		n++;
	}
	sqlite3_finalize(s);
	assert_int_equal(n, 6);
}

static void wt_check_schema_row(sqlite3 *h, const char *distro)
{
	sqlite3_stmt *s = tb_sql(h, "SELECT schema_version, ros_distro FROM schema;");
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
	assert_int_equal(sqlite3_column_int(s, 0), 4);
	assert_string_equal((const char *)sqlite3_column_text(s, 1), distro);
	assert_int_equal(sqlite3_step(s), SQLITE_DONE);
	sqlite3_finalize(s);
}

/* Topics of file `fi`: exactly those added while it or an earlier file was
 * open, once each, with the QoS string rosbag2 would store. Fills ids[]
 * (row id per wt topic, -1 when absent). */
static void wt_check_topics(const struct wt_bag *b, sqlite3 *h, size_t fi, int64_t *ids)
{
	size_t want = 0;
	for (size_t i = 0; i < b->n_topics; i++) {
		ids[i] = -1;
		want += b->topics[i].first_file <= fi;
	}
	sqlite3_stmt *s = tb_sql(h, "SELECT id, name, type, serialization_format, "
				    "offered_qos_profiles, type_description_hash FROM topics;");
	size_t n = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 1);
		size_t i;
		for (i = 0; i < b->n_topics; i++)
			if (!strcmp(b->topics[i].t.name, name))
				break;
		if (i == b->n_topics)
			fail_msg("file %zu: unexpected topic %s", fi, name);
		assert_int_equal(ids[i], -1); /* once per file */
		assert_true(b->topics[i].first_file <= fi);
		ids[i] = sqlite3_column_int64(s, 0);
		const struct bag_topic *t = &b->topics[i].t;
		assert_string_equal((const char *)sqlite3_column_text(s, 2), t->type);
		assert_string_equal((const char *)sqlite3_column_text(s, 3), "cdr");
		struct bt_buf q = BT_BUF_INIT;
		assert_int_equal(bag_qos_to_string(t->qos, t->n_qos, 9, &q), BT_OK);
		assert_string_equal((const char *)sqlite3_column_text(s, 4), q.data ? q.data : "");
		if (t->n_qos)
			assert_true(strncmp(q.data, "- history: ", 11) == 0);
		bt_buf_fini(&q);
		assert_string_equal((const char *)sqlite3_column_text(s, 5),
				    t->type_description_hash);
		n++;
	}
	sqlite3_finalize(s);
	assert_int_equal(n, want);
}

/* One message_definitions row per type present in the file. */
static void wt_check_defs(const struct wt_bag *b, sqlite3 *h, size_t fi)
{
	size_t want = 0;
	for (size_t i = 0; i < b->n_topics; i++) {
		if (b->topics[i].first_file > fi)
			continue;
		bool first = true;
		for (size_t j = 0; j < i; j++)
			if (b->topics[j].first_file <= fi &&
			    !strcmp(b->topics[j].t.type, b->topics[i].t.type))
				first = false;
		want += first;
	}
	sqlite3_stmt *s = tb_sql(h, "SELECT topic_type, encoding, encoded_message_definition, "
				    "type_description_hash, "
				    "(SELECT COUNT(*) FROM message_definitions d2 "
				    " WHERE d2.topic_type = d.topic_type) "
				    "FROM message_definitions d;");
	size_t n = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *type = (const char *)sqlite3_column_text(s, 0);
		assert_int_equal(sqlite3_column_int(s, 4), 1);
		size_t i;
		for (i = 0; i < b->n_topics; i++)
			if (b->topics[i].first_file <= fi && !strcmp(b->topics[i].t.type, type))
				break;
		if (i == b->n_topics)
			fail_msg("file %zu: definition for unexpected type %s", fi, type);
		const struct bag_msgdef *d = &b->topics[i].def;
		assert_string_equal((const char *)sqlite3_column_text(s, 1), d->encoding);
		assert_string_equal((const char *)sqlite3_column_text(s, 2),
				    d->encoded_message_definition);
		assert_string_equal((const char *)sqlite3_column_text(s, 3),
				    d->type_description_hash);
		n++;
	}
	sqlite3_finalize(s);
	assert_int_equal(n, want);
}

/* A MESSAGE-mode blob: one zstd frame, content size in its header, that
 * inflates to the payload. */
static void wt_check_frame(const uint8_t *blob, size_t blen, const uint8_t *want, size_t len)
{
	static const uint8_t magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
	assert_true(blen >= 6);
	assert_memory_equal(blob, magic, 4);
	uint8_t fhd = blob[4];
	assert_true((fhd >> 6) != 0 || (fhd & 0x20) != 0); /* content size present */
	struct bt_buf out = BT_BUF_INIT;
	struct bt_error err;
	if (bag_zstd_decompress_msg(blob, blen, &out, &err) != BT_OK)
		fail_msg("blob does not inflate: %s", err.msg);
	assert_int_equal(out.len, len);
	if (len)
		assert_memory_equal(out.data, want, len);
	bt_buf_fini(&out);
}

struct wt_file_stats {
	uint64_t count;
	int64_t start, end;
};

/* Messages of file `fi` in id order must be the next kept messages in
 * write order (*k walks them). */
static void wt_check_messages(struct wt_bag *b, sqlite3 *h, size_t fi, const int64_t *ids,
			      size_t *k, struct wt_file_stats *fs)
{
	fs->count = 0;
	fs->start = BAG_TIME_NONE;
	fs->end = INT64_MIN;
	bool msgmode = b->o.compression == BAG_COMPRESSION_MESSAGE;
	sqlite3_stmt *s = tb_sql(h, "SELECT topic_id, timestamp, data, typeof(data) FROM "
				    "messages ORDER BY id;");
	while (sqlite3_step(s) == SQLITE_ROW) {
		while (*k < b->n_msgs && !wt_kept(b, &b->msgs[*k]))
			(*k)++;
		assert_true(*k < b->n_msgs);
		struct wt_msg *m = &b->msgs[(*k)++];
		m->raw_file = fi;
		if (m->file != WT_NONE)
			assert_int_equal(m->file, fi);
		assert_int_equal(sqlite3_column_int64(s, 0), ids[m->topic]);
		assert_int_equal(sqlite3_column_int64(s, 1), m->ts);
		assert_string_equal((const char *)sqlite3_column_text(s, 3), "blob");
		const uint8_t *blob = sqlite3_column_blob(s, 2);
		size_t blen = (size_t)sqlite3_column_bytes(s, 2);
		uint8_t *want = wt_payload(m);
		if (msgmode) {
			wt_check_frame(blob, blen, want, m->len);
		} else {
			assert_int_equal(blen, m->len);
			if (m->len)
				assert_memory_equal(blob, want, m->len);
		}
		free(want);
		fs->count++;
		if (m->ts < fs->start)
			fs->start = m->ts;
		if (m->ts > fs->end)
			fs->end = m->ts;
	}
	sqlite3_finalize(s);
}

static void wt_check_custom(const struct wt_bag *b, const struct bag_metadata *md)
{
	assert_string_equal(md->ros_distro, b->distro);
	assert_int_equal(md->n_custom_data, b->o.n_custom_data);
	for (size_t i = 0; i < md->n_custom_data; i++) {
		assert_string_equal(md->custom_data[i].key, b->o.custom_data[i].key);
		assert_string_equal(md->custom_data[i].value, b->o.custom_data[i].value);
	}
	assert_string_equal(md->compression_mode, bag_compression_name(b->o.compression));
	assert_string_equal(md->compression_format, b->o.compression ? "zstd" : "");
}

static void wt_assert_file_entry(const struct bag_file_info *f, const char *name,
				 const struct wt_file_stats *fs)
{
	assert_string_equal(f->path, name);
	assert_int_equal(f->message_count, fs->count);
	assert_int_equal(f->starting_time, fs->count ? fs->start : BAG_TIME_NONE);
	assert_int_equal(f->duration, fs->count ? fs->end - fs->start : 0);
}

static void wt_parse_row(const char *text, struct bag_metadata *md)
{
	struct bt_error err;
	assert_null(strstr(text, "rosbag2_bagfile_information"));
	if (bag_metadata_from_yaml(text, strlen(text), md, &err) != BT_OK)
		fail_msg("embedded metadata: %s", err.msg);
	assert_int_equal(md->version, 9);
}

/* Two rows per file: one written when it was opened (empty), one when it
 * was closed, that describes the file's data. */
static void wt_check_md_rows(const struct wt_bag *b, sqlite3 *h, const char *name,
			     const struct wt_file_stats *fs, struct bag_metadata *last)
{
	sqlite3_stmt *s = tb_sql(h, "SELECT metadata_version, metadata FROM metadata ORDER BY id;");
	size_t n = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		assert_true(n < 2);
		assert_int_equal(sqlite3_column_int(s, 0), 9);
		struct bag_metadata md;
		wt_parse_row((const char *)sqlite3_column_text(s, 1), &md);
		wt_check_custom(b, &md);
		assert_true(md.n_files >= 1);
		assert_int_equal(md.n_paths, md.n_files);
		const struct bag_file_info *own = &md.files[md.n_files - 1];
		struct wt_file_stats none = {0, BAG_TIME_NONE, INT64_MIN};
		wt_assert_file_entry(own, name, n == 0 ? &none : fs);
		uint64_t sum = 0;
		for (size_t i = 0; i < md.n_files; i++)
			sum += md.files[i].message_count;
		assert_int_equal(md.message_count, sum);
		if (n == 1)
			*last = md;
		else
			bag_metadata_fini(&md);
		n++;
	}
	sqlite3_finalize(s);
	assert_int_equal(n, 2);
}

/* The plain sqlite file of storage file i (inflated copy in FILE mode). */
static char *wt_plain(const struct wt_bag *b, const char *rel, size_t i)
{
	char *path = bt_fs_join(b->dir, rel);
	if (b->o.compression != BAG_COMPRESSION_FILE)
		return path;
	/* An independent look at the frame when the zstd tool is there. */
	char *const argv[] = {"zstd", "-t", "-q", path, NULL};
	int rc = tu_run(argv, NULL);
	assert_true(rc == 0 || rc == 127);
	char *plain = bt_xasprintf("%s/inflated_%zu.db3", b->tmp, i);
	struct bt_error err;
	if (bag_zstd_decompress_file(path, plain, &err) != BT_OK)
		fail_msg("inflate %s: %s", path, err.msg);
	free(path);
	return plain;
}

static void wt_check_dir(const struct wt_bag *b, const struct bag_metadata *md)
{
	char **names;
	size_t n;
	struct bt_error err;
	assert_int_equal(bt_fs_list_dir(b->dir, &names, &n, &err), BT_OK);
	assert_true(md->n_paths >= 1);
	if (b->expect_files)
		assert_int_equal(md->n_paths, b->expect_files);
	assert_int_equal(md->n_files, md->n_paths);
	if (n != md->n_paths + 1) {
		for (size_t i = 0; i < n; i++)
			printf("  on disk: %s\n", names[i]);
		fail_msg("%zu entries on disk, metadata lists %zu files", n, md->n_paths);
	}
	for (size_t i = 0; i < md->n_paths; i++) {
		char *want = bt_xasprintf("%s_%zu.db3", b->base, b->first_kept + i);
		assert_string_equal(md->files[i].path, want);
		char *rel = bt_xasprintf("%s%s", want,
					 b->o.compression == BAG_COMPRESSION_FILE ? ".zstd" : "");
		assert_string_equal(md->relative_file_paths[i], rel);
		bool found = false;
		for (size_t j = 0; j < n; j++)
			found |= !strcmp(names[j], rel);
		if (!found)
			fail_msg("%s is not on disk", rel);
		free(rel);
		free(want);
	}
	bool has_md = false;
	for (size_t j = 0; j < n; j++)
		has_md |= !strcmp(names[j], "metadata.yaml");
	assert_true(has_md);
	bt_fs_free_list(names, n);
}

static void wt_check_totals(const struct wt_bag *b, const struct bag_metadata *md)
{
	uint64_t count = 0;
	int64_t first = BAG_TIME_NONE, last = INT64_MIN;
	uint64_t *per = bt_xcalloc(b->n_topics + 1, sizeof *per);
	for (size_t i = 0; i < b->n_msgs; i++) {
		const struct wt_msg *m = &b->msgs[i];
		if (!wt_kept(b, m))
			continue;
		count++;
		per[m->topic]++;
		if (m->ts < first)
			first = m->ts;
		if (m->ts > last)
			last = m->ts;
	}
	assert_int_equal(md->version, 9);
	assert_string_equal(md->storage_identifier, "sqlite3");
	assert_int_equal(md->message_count, count);
	assert_int_equal(md->starting_time, count ? first : BAG_TIME_NONE);
	assert_int_equal(md->duration, count ? last - first : 0);
	assert_int_equal(md->n_topics, b->n_topics);
	for (size_t i = 0; i < md->n_topics; i++) {
		const struct bag_topic *t = &md->topics[i].topic;
		size_t k;
		for (k = 0; k < b->n_topics; k++)
			if (!strcmp(b->topics[k].t.name, t->name))
				break;
		assert_true(k < b->n_topics);
		assert_int_equal(md->topics[i].message_count, per[k]);
		assert_string_equal(t->serialization_format, "cdr");
		tb_assert_topic_equal(t, &b->topics[k].t);
	}
	free(per);
	wt_check_custom(b, md);
}

/* The last embedded row of the last file is the final metadata. */
static void wt_compare_final(const struct bag_metadata *row, const struct bag_metadata *md)
{
	assert_int_equal(row->message_count, md->message_count);
	assert_int_equal(row->starting_time, md->starting_time);
	assert_int_equal(row->duration, md->duration);
	tb_assert_files_equal(row, md);
	assert_int_equal(row->n_topics, md->n_topics);
	for (size_t i = 0; i < md->n_topics; i++) {
		assert_string_equal(row->topics[i].topic.name, md->topics[i].topic.name);
		assert_int_equal(row->topics[i].message_count, md->topics[i].message_count);
	}
}

static void wt_check_raw(struct wt_bag *b, const struct bag_metadata *md,
			 struct wt_file_stats *fs)
{
	size_t k = 0;
	int64_t *ids = bt_xcalloc(b->n_topics + 1, sizeof *ids);
	for (size_t i = 0; i < md->n_paths; i++) {
		char *plain = wt_plain(b, md->relative_file_paths[i], i);
		wt_assert_header_rollback(plain);
		sqlite3 *h = tb_sql_open(plain);
		char *jm = wt_sql_text(h, "PRAGMA journal_mode;");
		assert_string_equal(jm, "delete");
		free(jm);
		wt_check_master(h);
		wt_check_schema_row(h, b->distro);
		size_t fi = b->first_kept + i;
		wt_check_topics(b, h, fi, ids);
		wt_check_defs(b, h, fi);
		wt_check_messages(b, h, fi, ids, &k, &fs[i]);
		wt_assert_file_entry(&md->files[i], md->files[i].path, &fs[i]);
		struct bag_metadata last;
		wt_check_md_rows(b, h, md->files[i].path, &fs[i], &last);
		if (i + 1 == md->n_paths)
			wt_compare_final(&last, md);
		bag_metadata_fini(&last);
		assert_int_equal(sqlite3_close(h), SQLITE_OK);
		if (b->o.compression == BAG_COMPRESSION_FILE)
			unlink(plain);
		free(plain);
	}
	while (k < b->n_msgs && !wt_kept(b, &b->msgs[k]))
		k++;
	assert_int_equal(k, b->n_msgs); /* every kept message was found */
	free(ids);
}

/* Kept messages, stably sorted by timestamp: the reader's order. */
static size_t *wt_read_order(const struct wt_bag *b, size_t *n)
{
	size_t *ord = bt_xcalloc(b->n_msgs + 1, sizeof *ord);
	*n = 0;
	for (size_t i = 0; i < b->n_msgs; i++) {
		if (!wt_kept(b, &b->msgs[i]))
			continue;
		size_t j = (*n)++;
		while (j > 0 && b->msgs[ord[j - 1]].ts > b->msgs[i].ts) {
			ord[j] = ord[j - 1];
			j--;
		}
		ord[j] = i;
	}
	return ord;
}

static void wt_check_reader(const struct wt_bag *b, const struct bag_metadata *md,
			    const struct wt_file_stats *fs, unsigned flags)
{
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(b->dir, flags, &r, &err) != BT_OK)
		fail_msg("bag_reader_open: %s", err.msg);
	assert_int_equal(bag_reader_n_files(r), md->n_paths);
	assert_int_equal(bag_reader_message_count(r), md->message_count);
	assert_int_equal(bag_reader_start(r), md->starting_time);
	if (md->message_count)
		assert_int_equal(bag_reader_end(r), md->starting_time + md->duration);
	if (md->message_count || b->o.compression == BAG_COMPRESSION_FILE)
		assert_string_equal(bag_reader_compression(r),
				    bag_compression_name(b->o.compression));
	for (size_t i = 0; i < md->n_paths; i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		assert_int_equal(f->message_count, fs[i].count);
		if (fs[i].count) {
			assert_int_equal(f->start, fs[i].start);
			assert_int_equal(f->end, fs[i].end);
		}
	}
	size_t n;
	size_t *ord = wt_read_order(b, &n);
	struct bag_read_msg m;
	size_t got = 0;
	int rc;
	int64_t prev = INT64_MIN;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		assert_true(got < n);
		const struct wt_msg *w = &b->msgs[ord[got++]];
		assert_true(m.timestamp >= prev);
		prev = m.timestamp;
		assert_int_equal(m.timestamp, w->ts);
		assert_string_equal(m.name, b->topics[w->topic].t.name);
		assert_int_equal(m.file, w->raw_file - b->first_kept);
		assert_int_equal(m.len, w->len);
		if (w->len) {
			uint8_t *want = wt_payload(w);
			assert_memory_equal(m.data, want, w->len);
			free(want);
		}
	}
	if (rc != 0)
		fail_msg("bag_reader_next: %s", err.msg);
	assert_int_equal(got, n);
	free(ord);
	bag_reader_close(r);
}

/* Everything we can check about a closed bag. */
static void wt_verify(struct wt_bag *b)
{
	struct bag_metadata md;
	struct bt_error err;
	if (bag_metadata_read(b->dir, &md, &err) != BT_OK)
		fail_msg("metadata.yaml: %s", err.msg);
	wt_check_dir(b, &md);
	wt_check_totals(b, &md);
	struct wt_file_stats *fs = bt_xcalloc(md.n_paths, sizeof *fs);
	wt_check_raw(b, &md, fs);
	wt_check_reader(b, &md, fs, 0);
	wt_check_reader(b, &md, fs, BAG_READER_IGNORE_METADATA);
	free(fs);
	bag_metadata_fini(&md);
}

/* Round r, topic k of n: timestamps interleave across topics. */
static int64_t wt_ts(size_t r, size_t k, size_t n)
{
	return WT_T0 + (int64_t)(r * n * 1000 + k * 1000 + (k * 7919) % 997);
}

/* ---- tests ---- */

static void test_many_topics(void **state)
{
	struct wt_bag *b = *state;
	b->expect_files = 1;
	wt_open(b);
	wt_add_topics(b, 20, 4);
	struct wt_msg batch[20];
	for (size_t r = 0; r < 40; r++) {
		size_t n = 0;
		for (size_t k = 0; k < 20; k++) {
			if ((r + k) % 3 == 0 && k != 0)
				continue; /* uneven counts per topic */
			batch[n++] = wt_msg(b, (uint32_t)k, wt_ts(r, k, 20), 4 + (r * 31 + k) % 200);
		}
		if (r % 5 == 4) /* some batches arrive out of timestamp order */
			for (size_t i = 0; i < n / 2; i++) {
				struct wt_msg t = batch[i];
				batch[i] = batch[n - 1 - i];
				batch[n - 1 - i] = t;
			}
		if (r % 2)
			wt_write(b, batch, n);
		else
			for (size_t i = 0; i < n; i++)
				wt_write(b, &batch[i], 1);
	}
	/* The earliest message of all comes last. */
	struct wt_msg early = wt_msg(b, 3, WT_T0 - 5000, 12);
	wt_write(b, &early, 1);
	struct bag_writer_stats st;
	bag_writer_get_stats(b->w, &st);
	assert_int_equal(st.messages, b->n_msgs);
	assert_int_equal(st.file_index, 0);
	wt_close(b);
	wt_verify(b);
}

static void test_split_by_size(void **state)
{
	struct wt_bag *b = *state;
	b->o.max_bagfile_size = BAG_MIN_SPLIT_SIZE;
	b->files_known = false;
	wt_open(b);
	wt_add_topics(b, 20, 3);
	struct wt_msg batch[20];
	for (size_t r = 0; r < 45; r++) { /* over 10 files: _10 sorts after _9 */
		for (size_t k = 0; k < 20; k++)
			batch[k] = wt_msg(b, (uint32_t)k, wt_ts(r, k, 20), 500 + (r * 977 + k * 131) % 2500);
		wt_write(b, batch, r % 3 ? 20 : 7);
	}
	wt_close(b);
	wt_verify(b);
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	assert_true(md.n_paths >= 11);
	/* A file is closed once its size reached the limit, not much later. */
	for (size_t i = 0; i < md.n_paths; i++) {
		char *p = bt_fs_join(b->dir, md.relative_file_paths[i]);
		uint64_t size;
		assert_int_equal(bt_fs_file_size(p, &size, &err), BT_OK);
		if (i + 1 < md.n_paths) {
			assert_true(size >= BAG_MIN_SPLIT_SIZE);
			assert_true(size < 2 * BAG_MIN_SPLIT_SIZE);
		}
		assert_true(md.files[i].message_count > 0);
		free(p);
	}
	bag_metadata_fini(&md);
}

/* Counts warnings logged while a test runs. */
static void wt_count_warn(void *ctx, enum bt_log_level level, const char *line)
{
	(void)line;
	if (level == BT_LOG_WARN)
		++*(size_t *)ctx;
}

/* 200 topics need more than the minimum split size before any message
 * (topic rows, definitions, metadata row): the split counts only what the
 * messages add, so files hold many messages each (before: one each, a
 * split per message), and the user is warned once. */
static void test_split_overhead(void **state)
{
	struct wt_bag *b = *state;
	b->o.max_bagfile_size = BAG_MIN_SPLIT_SIZE;
	b->files_known = false;
	size_t warns = 0;
	bt_log_set_sink(wt_count_warn, &warns);
	wt_open(b);
	wt_add_topics(b, 200, 4);
	struct wt_msg batch[200];
	size_t payload = 0;
	for (size_t r = 0; r < 10; r++) {
		for (size_t k = 0; k < 200; k++) {
			batch[k] = wt_msg(b, (uint32_t)k, wt_ts(r, k, 200), 100 + (k * 13) % 200);
			payload += batch[k].len;
		}
		wt_write(b, batch, 200);
	}
	wt_close(b);
	bt_log_set_sink(NULL, NULL);
	assert_int_equal(warns, 1);
	wt_verify(b);
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	/* ~400 KiB of payload in 84 KiB of messages per file: a handful. */
	assert_true(md.n_paths >= 2);
	assert_true(md.n_paths <= 2 * payload / BAG_MIN_SPLIT_SIZE + 2);
	for (size_t i = 0; i + 1 < md.n_paths; i++)
		assert_true(md.files[i].message_count >= 100);
	bag_metadata_fini(&md);
}

/* Files deleted by max_bag_files leave the writer's records: 2000 splits
 * keep 3 files, and the bag's metadata lists those 3. */
static void test_rotation_forgets(void **state)
{
	(void)state;
	char *tmp = tu_scratch_new("forget");
	char *dir = bt_fs_join(tmp, "forget_bag");
	struct bag_writer_options o = {.uri = dir, .max_bag_files = 3, .ros_distro = "jazzy"};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	struct bag_topic t = {"/forget", "std_msgs/msg/String", "cdr", NULL, 0, ""};
	uint32_t h;
	assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h, &err), BT_OK);
	static const uint8_t data[8] = {0, 1, 0, 0, 1, 2, 3, 4};
	for (size_t i = 0; i < 2000; i++) {
		struct bag_message m = {h, WT_T0 + (int64_t)i, data, sizeof data, 0};
		assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_OK);
		assert_int_equal(bag_writer_split(w, &err), BT_OK);
		assert_true(bag_writer_file_count(w) <= 3);
	}
	struct bag_writer_stats st;
	bag_writer_get_stats(w, &st);
	assert_int_equal(st.file_index, 2000);
	assert_int_equal(st.files_removed, 1998);
	assert_int_equal(bag_writer_file_count(w), 3);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	struct bag_metadata md;
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_int_equal(md.n_paths, 3);
	assert_string_equal(md.relative_file_paths[2], "forget_bag_2000.db3");
	assert_int_equal(md.message_count, 2); /* the last file is empty */
	bag_metadata_fini(&md);
	free(dir);
}

/* The cancel flag, set by on_split (the writer's own thread, midway in a
 * batch): the messages before it are committed, those after are not
 * written, and the bag closes complete. */
static atomic_bool wt_cancel;
static size_t wt_cancel_on_split(void *ctx, int64_t t_last, const struct bag_message **msgs)
{
	(void)ctx;
	(void)t_last;
	*msgs = NULL;
	atomic_store(&wt_cancel, true);
	return 0;
}

static void test_cancel(void **state)
{
	(void)state;
	char *tmp = tu_scratch_new("cancel");
	char *dir = bt_fs_join(tmp, "cancel_bag");
	struct bag_writer_options o = {.uri = dir, .ros_distro = "jazzy",
				       .max_bagfile_duration = 1000,
				       .on_split = wt_cancel_on_split};
	struct bt_error err;
	atomic_init(&wt_cancel, false);
	struct bag_writer *w = tb_writer_open(&o);
	bag_writer_set_cancel(w, &wt_cancel);
	struct bag_topic t = {"/cancel", "std_msgs/msg/String", "cdr", NULL, 0, ""};
	uint32_t h;
	assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h, &err), BT_OK);
	static const uint8_t data[8] = {0, 1, 0, 0, 1, 2, 3, 4};
	struct bag_message m[10];
	for (size_t i = 0; i < 10; i++) /* a split (by duration) before the 6th */
		m[i] = (struct bag_message){h, WT_T0 + (int64_t)(i < 5 ? i : 5000 + i), data,
					    sizeof data, 0};
	assert_int_equal(bag_writer_write(w, m, 10, &err), BT_OK);
	struct bag_writer_stats st;
	bag_writer_get_stats(w, &st);
	assert_int_equal(st.messages, 5);
	assert_int_equal(bag_writer_write(w, m, 10, &err), BT_OK); /* nothing more */
	bag_writer_get_stats(w, &st);
	assert_int_equal(st.messages, 5);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	struct bag_metadata md;
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_int_equal(md.message_count, 5);
	bag_metadata_fini(&md);
	free(dir);
}

static void test_split_by_duration(void **state)
{
	struct wt_bag *b = *state;
	const int64_t limit = 1000000000; /* 1 s */
	b->o.max_bagfile_duration = limit;
	wt_open(b);
	wt_add_topics(b, 3, 2);
	/* rosbag2: split before a message more than `limit` after the first
	 * message of the current file; predict the file of each message. */
	size_t file = 0;
	int64_t start = 0;
	bool any = false;
	struct wt_msg batch[8];
	size_t n = 0, written = 0;
	for (size_t i = 0; i < 60; i++) {
		/* 125 ms steps put a message exactly `limit` after a file's
		 * first one (it stays: rosbag2 splits on "more than"); a gap
		 * after message 20. */
		int64_t ts = WT_T0 + (int64_t)i * 125000000 + (i >= 20 ? 850000000 : 0);
		if (any && ts - start > limit) {
			file++;
			start = ts;
		} else if (!any) {
			start = ts;
			any = true;
		}
		batch[n] = wt_msg(b, (uint32_t)(i % 3), ts, 16 + i);
		batch[n].file = file;
		n++;
		if (n == (i % 4) + 1 || n == 8 || i == 59) {
			b->files_known = false; /* set below from the prediction */
			wt_write(b, batch, n);
			for (size_t j = 0; j < n; j++)
				b->msgs[written + j].file = batch[j].file;
			written += n;
			n = 0;
		}
	}
	b->expect_files = file + 1;
	assert_true(b->expect_files >= 5);
	wt_close(b);
	wt_verify(b);
}

/* bag_writer_split_named: the file named as asked, the first free NAME_K
 * when taken (by the bag or on disk, never overwritten), an empty current
 * file dropped, default names going on without a gap and skipping one a
 * name took; metadata.yaml lists them all in the order written. */
static void test_split_named(void **state)
{
	struct wt_bag *b = *state;
	wt_open(b);
	wt_add_topics(b, 1, 1);
	struct bt_error err;
	/* File 0 is empty: dropped, its name free again. */
	assert_int_equal(bag_writer_split_named(b->w, "ev1", &err), BT_OK);
	assert_string_equal(bag_writer_current_file(b->w), "ev1.db3");
	struct wt_msg m = wt_msg(b, 0, WT_T0, 8);
	wt_write(b, &m, 1);
	assert_int_equal(bag_writer_split_named(b->w, "ev1", &err), BT_OK);
	assert_string_equal(bag_writer_current_file(b->w), "ev1_2.db3");
	m = wt_msg(b, 0, WT_T0 + 1000, 8);
	wt_write(b, &m, 1);
	assert_int_equal(bag_writer_split_named(b->w, "nm_bag_1", &err), BT_OK);
	m = wt_msg(b, 0, WT_T0 + 2000, 8);
	wt_write(b, &m, 1);
	wt_split(b);
	assert_string_equal(bag_writer_current_file(b->w), "nm_bag_0.db3");
	m = wt_msg(b, 0, WT_T0 + 3000, 8);
	wt_write(b, &m, 1);
	wt_split(b);
	assert_string_equal(bag_writer_current_file(b->w), "nm_bag_2.db3"); /* _1 is taken */
	m = wt_msg(b, 0, WT_T0 + 4000, 8);
	wt_write(b, &m, 1);
	/* A file of that name on disk, not the bag's: left as it is. */
	char *taken = bt_fs_join(b->dir, "taken.db3");
	FILE *f = fopen(taken, "w");
	assert_non_null(f);
	fputs("mine", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(bag_writer_split_named(b->w, "taken", &err), BT_OK);
	assert_string_equal(bag_writer_current_file(b->w), "taken_2.db3");
	m = wt_msg(b, 0, WT_T0 + 5000, 8);
	wt_write(b, &m, 1);
	assert_int_equal(bag_writer_split_named(b->w, "a/b", &err), BT_ERR_USAGE);
	assert_int_equal(bag_writer_split_named(b->w, "..", &err), BT_ERR_USAGE);
	wt_close(b);
	char *text = NULL;
	size_t len;
	assert_int_equal(bt_fs_read_all(taken, 100, &text, &len, &err), BT_OK);
	assert_string_equal(text, "mine");
	free(text);
	free(taken);
	struct bag_metadata md;
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	static const char *const want[] = {"ev1.db3", "ev1_2.db3", "nm_bag_1.db3",
					   "nm_bag_0.db3", "nm_bag_2.db3", "taken_2.db3"};
	assert_int_equal(md.n_paths, 6);
	for (size_t i = 0; i < 6; i++) {
		assert_string_equal(md.relative_file_paths[i], want[i]);
		assert_int_equal(md.files[i].message_count, 1);
	}
	assert_int_equal(md.message_count, 6);
	bag_metadata_fini(&md);
}

static void test_split_on_request(void **state)
{
	struct wt_bag *b = *state;
	wt_open(b);
	wt_add_topics(b, 4, 2);
	struct bag_metadata md;
	struct bt_error err;
	/* metadata.yaml exists from the start and follows every split. */
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	assert_int_equal(md.n_paths, 1);
	assert_int_equal(md.message_count, 0);
	assert_int_equal(md.starting_time, BAG_TIME_NONE);
	bag_metadata_fini(&md);
	struct wt_msg m;
	for (size_t i = 0; i < 10; i++) {
		m = wt_msg(b, (uint32_t)(i % 4), WT_T0 + (int64_t)i * 1000, 8 + i);
		wt_write(b, &m, 1);
	}
	wt_split(b);
	assert_string_equal(bag_writer_current_file(b->w), "req_bag_1.db3");
	wt_split(b); /* file 1 stays empty */
	/* A topic added now exists in file 2 and later only. */
	wt_add_topics(b, 1, 4);
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	assert_int_equal(md.n_paths, 3);
	assert_int_equal(md.message_count, 10);
	assert_int_equal(md.files[0].message_count, 10);
	bag_metadata_fini(&md);
	for (size_t i = 0; i < 5; i++) {
		m = wt_msg(b, (uint32_t)(i % 5), WT_T0 + 50000 + (int64_t)i * 1000, 20);
		wt_write(b, &m, 1);
	}
	wt_split(b);
	m = wt_msg(b, 4, WT_T0 + 90000, 4);
	wt_write(b, &m, 1);
	b->expect_files = 4;
	wt_close(b);
	wt_verify(b);
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	assert_int_equal(md.files[1].message_count, 0);
	assert_int_equal(md.files[1].starting_time, BAG_TIME_NONE);
	assert_int_equal(md.files[1].duration, 0);
	assert_int_equal(md.duration, 90000); /* last - first, not a sum of files */
	bag_metadata_fini(&md);
}

static void wt_compression_case(enum bag_compression c, const char *tag, bool empty)
{
	struct wt_bag b;
	wt_init(&b, tag);
	b.o.compression = c;
	wt_open(&b);
	wt_add_topics(&b, 5, 3);
	if (!empty) {
		struct wt_msg batch[25];
		for (size_t f = 0; f < 3; f++) {
			for (size_t i = 0; i < 25; i++)
				batch[i] = wt_msg(&b, (uint32_t)(i % 5),
						  wt_ts(f * 25 + i, i % 5, 5), i == 7 ? 0 : 4 + i * 97);
			wt_write(&b, batch, 25);
			if (f < 2)
				wt_split(&b);
		}
	}
	b.expect_files = empty ? 1 : 3;
	wt_close(&b);
	if (c == BAG_COMPRESSION_FILE) {
		/* Nothing uncompressed is left beside the .db3.zstd files. */
		for (size_t i = 0; i < b.expect_files; i++) {
			char *p = bt_xasprintf("%s/%s_%zu.db3", b.dir, b.base, i);
			assert_false(bt_fs_exists(p));
			free(p);
		}
	}
	wt_verify(&b);
	wt_fini(&b);
}

static void test_compression_none(void **state)
{
	(void)state;
	wt_compression_case(BAG_COMPRESSION_NONE, "cnone", false);
}

static void test_compression_file(void **state)
{
	(void)state;
	wt_compression_case(BAG_COMPRESSION_FILE, "cfile", false);
	wt_compression_case(BAG_COMPRESSION_FILE, "cfile_empty", true);
}

static void wt_check_problem(void *ctx, const char *problem)
{
	(void)ctx;
	printf("check: %s\n", problem);
}

/* FILE compression cancelled (the stop abandoned) before any file was
 * compressed: the files stay plain, and metadata.yaml says the bag is
 * uncompressed, so the bag is whole as it is: `bag_check` finds nothing. */
static void test_compression_file_cancelled(void **state)
{
	struct wt_bag *b = *state;
	static atomic_bool cancel;
	atomic_store(&cancel, false);
	b->o.compression = BAG_COMPRESSION_FILE;
	b->o.test_compress_delay_us = 1000000; /* 1 s a file: none done before the cancel */
	wt_open(b);
	bag_writer_set_cancel(b->w, &cancel);
	wt_add_topics(b, 2, 1);
	struct wt_msg m = wt_msg(b, 0, WT_T0, 10);
	wt_write(b, &m, 1);
	wt_split(b);
	m = wt_msg(b, 1, WT_T0 + 1000, 10);
	wt_write(b, &m, 1);
	atomic_store(&cancel, true);
	double t0 = tu_now();
	wt_close(b);
	assert_true(tu_now() - t0 < 0.9); /* not the 2 s the two files would take */
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	assert_string_equal(md.compression_mode, "");
	assert_string_equal(md.compression_format, "");
	assert_int_equal(md.message_count, 2);
	for (size_t i = 0; i < md.n_paths; i++)
		assert_null(strstr(md.relative_file_paths[i], ".zstd"));
	bag_metadata_fini(&md);
	assert_int_equal(bag_check(b->dir, wt_check_problem, NULL), 0);
}

static void test_compression_message(void **state)
{
	(void)state;
	wt_compression_case(BAG_COMPRESSION_MESSAGE, "cmsg", false);
	wt_compression_case(BAG_COMPRESSION_MESSAGE, "cmsg_empty", true);
}

static void wt_preset_case(enum bag_preset p, const char *tag, int want_header)
{
	struct wt_bag b;
	wt_init(&b, tag);
	b.o.preset = p;
	wt_open(&b);
	wt_add_topics(&b, 3, 3);
	struct wt_msg batch[30];
	for (size_t i = 0; i < 30; i++)
		batch[i] = wt_msg(&b, (uint32_t)(i % 3), WT_T0 + (int64_t)i * 10, 100 + i);
	wt_write(&b, batch, 30);
	/* While recording, the file is in the preset's journal mode. */
	char *cur = bt_fs_join(b.dir, bag_writer_current_file(b.w));
	assert_int_equal(wt_header_version(cur), want_header);
	char *wal = bt_xasprintf("%s-wal", cur);
	assert_int_equal(bt_fs_exists(wal), want_header == 2);
	wt_split(&b);
	wt_write(&b, batch, 10); /* same stamps again, in the next file */
	wt_close(&b);
	assert_false(bt_fs_exists(wal));
	free(wal);
	free(cur);
	b.expect_files = 2;
	wt_verify(&b); /* journal mode DELETE, no side files */
	wt_fini(&b);
}

static void test_presets(void **state)
{
	(void)state;
	wt_preset_case(BAG_PRESET_NONE, "pnone", 1);
	wt_preset_case(BAG_PRESET_RESILIENT, "presil", 2);
}

static void test_empty_bag(void **state)
{
	(void)state;
	struct wt_bag b;
	wt_init(&b, "empty");
	wt_open(&b);
	wt_add_topics(&b, 3, 2);
	b.expect_files = 1;
	wt_close(&b);
	wt_verify(&b);
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(b.dir, &md, &err), BT_OK);
	assert_int_equal(md.starting_time, INT64_MAX);
	assert_int_equal(md.duration, 0);
	assert_int_equal(md.message_count, 0);
	assert_int_equal(md.n_topics, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(md.topics[i].message_count, 0);
	assert_int_equal(md.n_files, 1);
	assert_int_equal(md.files[0].starting_time, INT64_MAX);
	assert_int_equal(md.files[0].duration, 0);
	bag_metadata_fini(&md);
	wt_fini(&b);

	/* No topic at all. */
	wt_init(&b, "bare");
	wt_open(&b);
	b.expect_files = 1;
	wt_close(&b);
	wt_verify(&b);
	wt_fini(&b);
}

static void wt_sizes_case(enum bag_compression c, const char *tag)
{
	struct wt_bag b;
	wt_init(&b, tag);
	b.o.compression = c;
	wt_open(&b);
	wt_add_topics(&b, 2, 2);
	static const size_t lens[] = {0, 1u << 20, 0, 4, (1u << 20) - 3, 1, 0};
	struct wt_msg batch[7];
	for (size_t i = 0; i < 7; i++)
		batch[i] = wt_msg(&b, (uint32_t)(i % 2), WT_T0 + (int64_t)i, lens[i]);
	wt_write(&b, batch, 4);
	wt_write(&b, batch + 4, 3);
	b.expect_files = 1;
	wt_close(&b);
	wt_verify(&b);
	wt_fini(&b);
}

static void test_message_sizes(void **state)
{
	(void)state;
	wt_sizes_case(BAG_COMPRESSION_NONE, "sizes");
	wt_sizes_case(BAG_COMPRESSION_MESSAGE, "sizes_msg");
}

static void wt_max_files_case(enum bag_compression c, const char *tag)
{
	struct wt_bag b;
	wt_init(&b, tag);
	b.o.max_bag_files = 2;
	b.o.compression = c;
	wt_open(&b);
	wt_add_topics(&b, 3, 2);
	for (size_t f = 0; f < 5; f++) {
		if (f)
			wt_split(&b);
		struct wt_msg batch[6];
		for (size_t i = 0; i < 6; i++)
			batch[i] = wt_msg(&b, (uint32_t)(i % 3), WT_T0 + (int64_t)(f * 100 + i),
					  10 + f + i);
		wt_write(&b, batch, f == 3 ? 2 : 6);
	}
	struct bag_writer_stats st;
	bag_writer_get_stats(b.w, &st);
	assert_int_equal(st.files_removed, 3);
	assert_int_equal(st.file_index, 4);
	wt_close(&b);
	b.first_kept = 3;
	b.expect_files = 2;
	wt_verify(&b);
	wt_fini(&b);
}

static void test_max_bag_files(void **state)
{
	(void)state;
	wt_max_files_case(BAG_COMPRESSION_NONE, "maxf");
	wt_max_files_case(BAG_COMPRESSION_FILE, "maxf_file");
}

static void test_refusals(void **state)
{
	(void)state;
	char *tmp = tu_scratch_new("refuse");
	struct bag_writer_options o = {0};
	struct bt_error err;
	/* An existing directory, empty or not, is never written into. */
	char *dir = bt_fs_join(tmp, "exists");
	assert_int_equal(bt_fs_mkdir_new(dir, &err), BT_OK);
	o.uri = dir;
	tb_writer_refused(&o, BT_ERR_EXISTS, NULL);
	char **names;
	size_t n;
	assert_int_equal(bt_fs_list_dir(dir, &names, &n, &err), BT_OK);
	assert_int_equal(n, 0);
	bt_fs_free_list(names, n);
	/* So is an existing file. */
	char *file = bt_fs_join(tmp, "afile");
	tu_write_file(file, "x", 1);
	o.uri = file;
	tb_writer_refused(&o, BT_ERR_EXISTS, NULL);
	/* Split sizes below rosbag2's sqlite3 minimum. */
	char *fresh = bt_fs_join(tmp, "fresh");
	o.uri = fresh;
	o.max_bagfile_size = BAG_MIN_SPLIT_SIZE - 1;
	tb_writer_refused(&o, BT_ERR_USAGE, NULL);
	o.max_bagfile_size = 1;
	tb_writer_refused(&o, BT_ERR_USAGE, NULL);
	assert_false(bt_fs_exists(fresh));
	assert_true(BAG_MIN_SPLIT_SIZE == 86016);
	o.max_bagfile_size = BAG_MIN_SPLIT_SIZE;
	struct bag_writer *w = tb_writer_open(&o);
	/* Same topic name with another type; unknown topic handle. */
	struct bag_topic t = {"/a", "std_msgs/msg/String", "cdr", NULL, 0, ""};
	uint32_t h, h2;
	assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h, &err), BT_OK);
	assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h2, &err), BT_OK);
	assert_int_equal(h, h2);
	t.type = "std_msgs/msg/Int32";
	assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h2, &err), BT_ERR_EXISTS);
	struct bag_message m = {h + 7, WT_T0, "abcd", 4, 0};
	assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_ERR_USAGE);
	m.topic = h;
	assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_OK);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	free(fresh);
	free(file);
	free(dir);
}

/* ---- offered QoS of publishers that join later ---- */

/* Sets topic i's profiles in the writer and in what wt_verify expects. */
static void wt_set_qos(struct wt_bag *b, size_t i, const struct bag_qos *q, size_t n)
{
	struct bt_error err;
	if (bag_writer_set_topic_qos(b->w, b->topics[i].handle, q, n, &err) != BT_OK)
		fail_msg("bag_writer_set_topic_qos: %s", err.msg);
	free(b->topics[i].t.qos);
	b->topics[i].t.qos = bt_xcalloc(n, sizeof *q);
	memcpy(b->topics[i].t.qos, q, n * sizeof *q);
	b->topics[i].t.n_qos = n;
}

/* The offered_qos_profiles of topic `name` in storage file `fi`. */
static void wt_assert_file_qos(const struct wt_bag *b, size_t fi, const char *name,
			       const struct bag_qos *q, size_t n)
{
	char *path = bt_xasprintf("%s/%s_%zu.db3", b->dir, b->base, fi);
	sqlite3 *h = tb_sql_open(path);
	char *sql = bt_xasprintf("SELECT offered_qos_profiles FROM topics WHERE name = '%s';", name);
	char *got = wt_sql_text(h, sql);
	struct bt_buf want = BT_BUF_INIT;
	assert_int_equal(bag_qos_to_string(q, n, 9, &want), BT_OK);
	assert_string_equal(got, want.data ? want.data : "");
	bt_buf_fini(&want);
	free(got);
	free(sql);
	sqlite3_close(h);
	free(path);
}

static void wt_assert_yaml_qos(const struct wt_bag *b, const char *name, const struct bag_qos *q,
			       size_t n)
{
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(b->dir, &md, &err), BT_OK);
	size_t t = 0;
	while (t < md.n_topics && strcmp(md.topics[t].topic.name, name) != 0)
		t++;
	assert_true(t < md.n_topics);
	assert_int_equal(md.topics[t].topic.n_qos, n);
	for (size_t i = 0; i < n; i++)
		tb_assert_qos_equal(&md.topics[t].topic.qos[i], &q[i]);
	bag_metadata_fini(&md);
}

/* A best-effort transient-local publisher with another depth. */
static struct bag_qos wt_qos_joiner(uint64_t depth)
{
	return tb_qos_keep_last(depth, BAG_RELIABILITY_BEST_EFFORT, BAG_DURABILITY_TRANSIENT_LOCAL);
}

/* The open file's topics row gets the new list at once; metadata.yaml at
 * the next split; the next file's topics table and every metadata row
 * after it too (wt_verify checks all of them against the new list). */
static void test_topic_qos_later(void **state)
{
	struct wt_bag *b = *state;
	wt_open(b);
	wt_add_topics(b, 2, 1); /* topic 1 ("/wt/topic_01"): one profile */
	assert_int_equal(b->topics[1].t.n_qos, 1);
	struct wt_msg m = wt_msg(b, 1, WT_T0, 10);
	wt_write(b, &m, 1);
	struct bag_qos q[3] = {b->topics[1].t.qos[0], wt_qos_joiner(7), wt_qos_joiner(7)};
	wt_set_qos(b, 1, q, 2);
	wt_assert_file_qos(b, 0, "/wt/topic_01", q, 2);
	m = wt_msg(b, 1, WT_T0 + 1000, 10);
	wt_write(b, &m, 1);
	/* Equal profiles stay distinct entries: one per publisher. */
	wt_set_qos(b, 1, q, 3);
	wt_assert_file_qos(b, 0, "/wt/topic_01", q, 3);
	wt_split(b);
	wt_assert_yaml_qos(b, "/wt/topic_01", q, 3);
	wt_assert_file_qos(b, 1, "/wt/topic_01", q, 3);
	m = wt_msg(b, 0, WT_T0 + 2000, 10);
	wt_write(b, &m, 1);
	b->expect_files = 2;
	wt_close(b);
	wt_verify(b);
	wt_assert_yaml_qos(b, "/wt/topic_01", q, 3);
}

/* After a split the files already closed keep their rows; a topic that had
 * no profile gets some; an unknown handle is refused. */
static void test_topic_qos_after_split(void **state)
{
	struct wt_bag *b = *state;
	wt_open(b);
	wt_add_topics(b, 1, 1); /* topic 0: no profile */
	assert_int_equal(b->topics[0].t.n_qos, 0);
	struct wt_msg m = wt_msg(b, 0, WT_T0, 10);
	wt_write(b, &m, 1);
	wt_split(b);
	struct bag_qos q = wt_qos_joiner(3);
	struct bt_error err;
	assert_int_equal(bag_writer_set_topic_qos(b->w, 5, &q, 1, &err), BT_ERR_USAGE);
	wt_set_qos(b, 0, &q, 1);
	wt_assert_file_qos(b, 1, "/wt/topic_00", &q, 1);
	wt_split(b);
	wt_assert_file_qos(b, 2, "/wt/topic_00", &q, 1);
	wt_close(b);
	wt_assert_file_qos(b, 0, "/wt/topic_00", NULL, 0);
	wt_assert_yaml_qos(b, "/wt/topic_00", &q, 1);
}

static void test_custom_data_and_distro(void **state)
{
	(void)state;
	const struct bag_kv kv[] = {{"robot", "r2: d2"}, {"run", "42"}, {"note", ""}};
	struct wt_bag b;
	wt_init(&b, "custom");
	b.o.custom_data = kv;
	b.o.n_custom_data = 3;
	b.o.ros_distro = "iron";
	b.distro = "iron";
	wt_open(&b);
	wt_add_topics(&b, 2, 1);
	struct wt_msg m = wt_msg(&b, 1, WT_T0, 10);
	wt_write(&b, &m, 1);
	wt_split(&b);
	wt_write(&b, &m, 1);
	b.expect_files = 2;
	wt_close(&b);
	wt_verify(&b); /* metadata.yaml, every embedded row, the schema rows */
	wt_fini(&b);

	/* ros_distro NULL: $ROS_DISTRO, or "" when unset. */
	char *saved = getenv("ROS_DISTRO") ? bt_xstrdup(getenv("ROS_DISTRO")) : NULL;
	setenv("ROS_DISTRO", "rolling", 1);
	wt_init(&b, "envdistro");
	b.o.ros_distro = NULL;
	b.distro = "rolling";
	wt_open(&b);
	wt_close(&b);
	wt_verify(&b);
	wt_fini(&b);
	unsetenv("ROS_DISTRO");
	wt_init(&b, "nodistro");
	b.o.ros_distro = NULL;
	b.distro = "";
	wt_open(&b);
	wt_close(&b);
	wt_verify(&b);
	wt_fini(&b);
	if (saved)
		setenv("ROS_DISTRO", saved, 1);
	free(saved);
}

TU_MAIN(
	WT_BAG_TEST(test_many_topics, "many"),
	WT_BAG_TEST(test_split_by_size, "size"),
	WT_BAG_TEST(test_split_overhead, "overhead"),
	WT_TEST(test_rotation_forgets),
	WT_TEST(test_cancel),
	WT_BAG_TEST(test_split_by_duration, "dur"),
	WT_BAG_TEST(test_split_on_request, "req"),
	WT_BAG_TEST(test_split_named, "nm"),
	WT_TEST(test_compression_none),
	WT_TEST(test_compression_file),
	WT_BAG_TEST(test_compression_file_cancelled, "cfile_cancel"),
	WT_TEST(test_compression_message),
	WT_TEST(test_presets),
	WT_TEST(test_empty_bag),
	WT_TEST(test_message_sizes),
	WT_TEST(test_max_bag_files),
	WT_TEST(test_refusals),
	WT_TEST(test_custom_data_and_distro),
	WT_BAG_TEST(test_topic_qos_later, "qoslate"),
	WT_BAG_TEST(test_topic_qos_after_split, "qossplit"))
