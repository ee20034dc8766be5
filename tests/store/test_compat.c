/* --compat humble|iron|jazzy in the store: the metadata.yaml key set and
 * QoS form of each layout against rosbag2's own bags (../shared fixtures),
 * the sqlite schema each distro's plugin creates, every layout x
 * compression read back, checked, shown by `bagtop info` and kept by
 * reindex, and the choice of layout from --compat / $ROS_DISTRO.
 *
 * Which fixture stands for which layout (their README says who wrote them):
 * none was written by Humble; Humble's v5 is v4 plus `files` (rosbag2
 * humble, rosbag2_storage/src/rosbag2_storage/metadata_io.cpp), so its key
 * set is talker's (v4) plus the `files` entries of multiple_files, and its
 * QoS string is the one v4..v8 share (rosbag2_transport qos.cpp on humble
 * and iron: rmw numbers). cdr_test is v7, the version Iron writes
 * (rosbag2 iron, bag_metadata.hpp). Tests needing them skip, saying so,
 * when ../shared is absent. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "bag_compat.h"
#include "bag_metadata.h"
#include "bag_qos.h"
#include "bag_reader.h"
#include "bag_tools.h"
#include "bag_writer.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "store__yaml.h"
#include "test_bag.h"

#define CT_T0 INT64_C(1700000000000000000)
#define CT_TOPICS 2
#define CT_HASH "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"

static const char *const ct_names[CT_TOPICS] = {"/chatter", "/odom"};

static const char *ct_fixture_or_skip(void)
{
	const char *fx = tu_fixtures();
	if (!fx) {
		print_message("SKIPPED: ../shared/fixtures/rosbag2 is absent\n");
		skip();
	}
	return fx;
}

/* ---- key paths of a YAML document ---- */

struct ct_keys {
	char **k;
	size_t n;
};

static void ct_keys_add(struct ct_keys *ks, const char *path)
{
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->k[i], path))
			return;
	ks->k = bt_xrealloc(ks->k, (ks->n + 1) * sizeof *ks->k);
	ks->k[ks->n++] = bt_xstrdup(path);
}

static void ct_keys_free(struct ct_keys *ks)
{
	for (size_t i = 0; i < ks->n; i++)
		free(ks->k[i]);
	free(ks->k);
	memset(ks, 0, sizeof *ks);
}

/* bagtop's statistics keys are left out: they are its documented
 * additions, compared on their own. */
static bool ct_is_stats_key(const char *k)
{
	return !strcmp(k, "statistics") || !strcmp(k, "topics_statistics");
}

/* Every key path below `n` ("a.b", "a[].c"), into ks. */
static void ct_walk(yaml_document_t *doc, yaml_node_t *n, const char *path, struct ct_keys *ks)
{
	if (n->type == YAML_SEQUENCE_NODE) {
		char *p = bt_xasprintf("%s[]", path);
		for (size_t i = 0; i < yd_len(n); i++)
			ct_walk(doc, yd_item(doc, n, i), p, ks);
		free(p);
		return;
	}
	if (n->type != YAML_MAPPING_NODE)
		return;
	for (yaml_node_pair_t *pr = n->data.mapping.pairs.start; pr < n->data.mapping.pairs.top;
	     pr++) {
		yaml_node_t *k = yaml_document_get_node(doc, pr->key);
		char *key = bt_xstrndup((const char *)k->data.scalar.value, k->data.scalar.length);
		if (!ct_is_stats_key(key)) {
			char *p = *path ? bt_xasprintf("%s.%s", path, key) : bt_xstrdup(key);
			ct_keys_add(ks, p);
			ct_walk(doc, yaml_document_get_node(doc, pr->value), p, ks);
			free(p);
		}
		free(key);
	}
}

/* Key paths of <dir>/metadata.yaml, under its root key; only those
 * starting with `prefix` ("" = all). */
static void ct_keys_of(const char *dir, const char *prefix, struct ct_keys *ks)
{
	char *path = bt_fs_join(dir, BAG_METADATA_FILE);
	char *text;
	size_t len;
	struct bt_error err;
	if (bt_fs_read_all(path, 1 << 24, &text, &len, &err) != BT_OK)
		fail_msg("%s", err.msg);
	yaml_document_t doc;
	if (yd_load(&doc, text, len, &err) != BT_OK)
		fail_msg("%s: %s", path, err.msg);
	struct ct_keys all = {0};
	yaml_node_t *root = yd_get(&doc, yaml_document_get_root_node(&doc),
				   "rosbag2_bagfile_information");
	assert_non_null(root);
	ct_walk(&doc, root, "", &all);
	for (size_t i = 0; i < all.n; i++)
		if (!strncmp(all.k[i], prefix, strlen(prefix)))
			ct_keys_add(ks, all.k[i]);
	ct_keys_free(&all);
	yaml_document_delete(&doc);
	free(text);
	free(path);
}

/* Prints "WHAT: LABEL key K" for each key K of `a` that `b` lacks; returns
 * how many there are. */
static int ct_keys_absent(const struct ct_keys *a, const struct ct_keys *b, const char *what,
			  const char *label)
{
	int bad = 0;
	for (size_t i = 0; i < a->n; i++) {
		bool found = false;
		for (size_t j = 0; j < b->n && !found; j++)
			found = !strcmp(a->k[i], b->k[j]);
		if (!found)
			print_message("%s: %s key %s\n", what, label, a->k[i]), bad++;
	}
	return bad;
}

static void ct_keys_assert_equal(const struct ct_keys *got, const struct ct_keys *want,
				 const char *what)
{
	int bad = ct_keys_absent(want, got, what, "missing") + ct_keys_absent(got, want, what, "extra");
	if (bad)
		fail_msg("%s: %d keys differ from the layout's", what, bad);
}

/* ---- writing bags ---- */

struct ct_bag {
	char *tmp, *dir;
	unsigned long long written;
};

/* A bag of `compat` layout: two topics (one with two publishers' QoS and a
 * type hash), 2 x 10 messages, split once, so `files` has two entries. */
static void ct_write_in(struct ct_bag *b, enum bag_compat compat, enum bag_compression comp,
			const char *storage, const char *preset, const char *tag)
{
	memset(b, 0, sizeof *b);
	b->tmp = tu_mkdtemp(tag);
	b->dir = bt_fs_join(b->tmp, "bag");
	struct bag_writer_options o = {.uri = b->dir, .ros_distro = bag_compat_name(compat),
				       .compression = comp, .compression_threads = 1,
				       .compat = compat, .storage_id = storage,
				       .storage_preset = preset};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	uint32_t h[CT_TOPICS];
	for (size_t i = 0; i < CT_TOPICS; i++) {
		struct bag_qos q[2];
		bag_qos_default(&q[0]);
		q[1] = tb_qos_keep_last(7, BAG_RELIABILITY_BEST_EFFORT,
					BAG_DURABILITY_TRANSIENT_LOCAL);
		struct bag_topic t = {(char *)ct_names[i], "std_msgs/msg/String", "cdr", q, i + 1,
				      i ? CT_HASH : ""};
		struct bag_msgdef d = {"std_msgs/msg/String", "ros2msg", "string data\n", ""};
		if (bag_writer_add_topic(w, &t, &d, &h[i], &err) != BT_OK)
			fail_msg("add_topic: %s", err.msg);
	}
	uint8_t data[32] = {0, 1, 0, 0, 4, 0, 0, 0, 'a', 'b', 'c', 0};
	for (int f = 0; f < 2; f++) {
		for (int i = 0; i < 10; i++) {
			data[10] = (uint8_t)i;
			struct bag_message m = {h[i % CT_TOPICS],
						CT_T0 + (f * 10 + i) * INT64_C(1000000), data, 12, 0};
			if (bag_writer_write(w, &m, 1, &err) != BT_OK)
				fail_msg("write: %s", err.msg);
			b->written++;
		}
		if (f == 0 && bag_writer_split(w, &err) != BT_OK)
			fail_msg("split: %s", err.msg);
	}
	if (bag_writer_close(w, &err) != BT_OK)
		fail_msg("close: %s", err.msg);
}

static void ct_write(struct ct_bag *b, enum bag_compat compat, enum bag_compression comp,
		     const char *tag)
{
	ct_write_in(b, compat, comp, NULL, NULL, tag);
}

static void ct_free(struct ct_bag *b)
{
	tu_rmrf(b->tmp);
	free(b->tmp);
	free(b->dir);
}

static char *ct_db(const struct ct_bag *b, int n)
{
	return bt_xasprintf("%s/bag_%d.db3", b->dir, n);
}

/* ---- the layouts' key sets ---- */

/* A bag of layout `c` has exactly the keys `want` (freed here). */
static void ct_expect_keys(enum bag_compat c, struct ct_keys *want)
{
	struct ct_keys got = {0};
	struct ct_bag b;
	ct_write(&b, c, BAG_COMPRESSION_NONE, "compat-keys");
	ct_keys_of(b.dir, "", &got);
	ct_keys_assert_equal(&got, want, bag_compat_name(c));
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(b.dir, &md, &err), BT_OK);
	assert_int_equal(md.version, bag_compat_metadata_version(c));
	bag_metadata_fini(&md);
	ct_keys_free(&got);
	ct_keys_free(want);
	ct_free(&b);
}

/* The keys of fixture `bag`'s metadata.yaml starting with `prefix`. */
static void ct_fixture_keys(const char *bag, const char *prefix, struct ct_keys *ks)
{
	char *dir = bt_fs_join(ct_fixture_or_skip(), bag);
	ct_keys_of(dir, prefix, ks);
	free(dir);
}

/* Humble: talker's (v4) keys plus multiple_files' `files` entries. */
static void test_humble_keys(void **state)
{
	(void)state;
	struct ct_keys want = {0};
	ct_fixture_keys("talker", "", &want);
	ct_fixture_keys("multiple_files", "files", &want);
	ct_expect_keys(BAG_COMPAT_HUMBLE, &want);
}

/* Iron: exactly cdr_test's (v7) keys. */
static void test_iron_keys(void **state)
{
	(void)state;
	struct ct_keys want = {0};
	ct_fixture_keys("cdr_test", "", &want);
	ct_expect_keys(BAG_COMPAT_IRON, &want);
}

/* Jazzy: cdr_test's keys, plus ros_distro, with the QoS a sequence of
 * profiles (no v9 bag exists upstream; the layout is rosbag2 jazzy's
 * yaml.hpp / qos.cpp). */
static void test_jazzy_keys(void **state)
{
	(void)state;
	static const char *const qos[] = {
		"history", "depth", "reliability", "durability", "deadline", "deadline.sec",
		"deadline.nsec", "lifespan", "lifespan.sec", "lifespan.nsec", "liveliness",
		"liveliness_lease_duration", "liveliness_lease_duration.sec",
		"liveliness_lease_duration.nsec", "avoid_ros_namespace_conventions"};
	struct ct_keys want = {0};
	ct_fixture_keys("cdr_test", "", &want);
	ct_keys_add(&want, "ros_distro");
	for (size_t i = 0; i < sizeof qos / sizeof qos[0]; i++) {
		char *k = bt_xasprintf("topics_with_message_count[].topic_metadata."
				       "offered_qos_profiles[].%s", qos[i]);
		ct_keys_add(&want, k);
		free(k);
	}
	ct_expect_keys(BAG_COMPAT_JAZZY, &want);
}

/* ---- the QoS string ---- */

/* The `offered_qos_profiles:` lines of a metadata.yaml text, trimmed, in
 * order, joined by '\n'. */
static char *ct_qos_lines(const char *text)
{
	struct bt_buf out = BT_BUF_INIT;
	for (const char *p = strstr(text, "offered_qos_profiles:"); p;
	     p = strstr(p + 1, "offered_qos_profiles:")) {
		size_t len = strcspn(p, "\n");
		assert_int_equal(bt_buf_append(&out, p, len), BT_OK);
		assert_int_equal(bt_buf_puts(&out, "\n"), BT_OK);
	}
	return out.data ? bt_buf_steal(&out) : bt_xstrdup("");
}

/* A fixture's metadata.yaml, parsed and written again in the version 5
 * layout: every offered_qos_profiles line is byte for byte the fixture's
 * (rosbag2's yaml-cpp text: one double-quoted line, \n escapes, numbers). */
static void test_qos_string_exact(void **state)
{
	(void)state;
	const char *fx = ct_fixture_or_skip();
	/* Those without Foxy-era "infinite" durations, which any reader maps
	 * to RMW_DURATION_INFINITE (so they are not written back as read). */
	static const char *const bags[] = {"multiple_files", "cdr_test",
					   "bag_with_topics_and_service_events", "talker"};
	for (size_t i = 0; i < sizeof bags / sizeof bags[0]; i++) {
		char *dir = bt_fs_join(fx, bags[i]);
		char *path = bt_fs_join(dir, BAG_METADATA_FILE);
		char *text;
		size_t len;
		struct bt_error err;
		assert_int_equal(bt_fs_read_all(path, 1 << 24, &text, &len, &err), BT_OK);
		struct bag_metadata md;
		if (bag_metadata_from_yaml(text, len, &md, &err) != BT_OK)
			fail_msg("%s: %s", bags[i], err.msg);
		md.version = bag_compat_metadata_version(BAG_COMPAT_HUMBLE);
		struct bt_buf out = BT_BUF_INIT;
		assert_int_equal(bag_metadata_to_yaml(&md, true, &out), BT_OK);
		char *want = ct_qos_lines(text), *got = ct_qos_lines(out.data);
		assert_true(strlen(want) > 30);
		if (strcmp(want, got) != 0)
			fail_msg("%s: QoS lines differ\n--- fixture\n%s--- bagtop\n%s", bags[i],
				 want, got);
		free(want);
		free(got);
		bt_buf_fini(&out);
		bag_metadata_fini(&md);
		free(text);
		free(path);
		free(dir);
	}
}

/* Every policy value and odd durations, written as Humble's string (in
 * metadata.yaml and alone) and read back by bagtop's parser. */
static void test_qos_humble_round_trip(void **state)
{
	(void)state;
	struct bag_qos q[6];
	for (int i = 0; i < 6; i++) {
		bag_qos_default(&q[i]);
		q[i].history = i % 4;
		q[i].depth = (uint64_t)i * 1000;
		q[i].reliability = i % 5;
		q[i].durability = (i + 1) % 5;
		q[i].liveliness = i;
		q[i].deadline = (struct bag_qos_time){(uint64_t)i, 999999999};
		q[i].lifespan = (struct bag_qos_time){0, (uint64_t)i};
		q[i].avoid_ros_namespace_conventions = i & 1;
	}
	struct bag_metadata md;
	bag_metadata_init(&md);
	md.version = 5;
	md.n_topics = 1;
	md.topics = bt_xcalloc(1, sizeof *md.topics);
	struct bag_topic t = {"/q", "std_msgs/msg/String", "cdr", q, 6, ""};
	bag_topic_copy(&md.topics[0].topic, &t);
	struct bt_buf y = BT_BUF_INIT, s = BT_BUF_INIT;
	assert_int_equal(bag_metadata_to_yaml(&md, true, &y), BT_OK);
	assert_non_null(strstr(y.data, "offered_qos_profiles: \"- history: 0\\n  depth: 0\\n"));
	struct bag_metadata back;
	struct bt_error err;
	if (bag_metadata_from_yaml(y.data, y.len, &back, &err) != BT_OK)
		fail_msg("%s", err.msg);
	assert_int_equal(back.version, 5);
	assert_int_equal(back.topics[0].topic.n_qos, 6);
	assert_memory_equal(back.topics[0].topic.qos, q, sizeof q);
	/* The string alone, as the topics table holds it. */
	assert_int_equal(bag_qos_to_string(q, 6, 5, &s), BT_OK);
	assert_null(strstr(s.data, "keep_last"));
	struct bag_qos *q2;
	size_t n2;
	assert_int_equal(bag_qos_from_string(s.data, &q2, &n2, &err), BT_OK);
	assert_int_equal(n2, 6);
	assert_memory_equal(q2, q, sizeof q);
	free(q2);
	bt_buf_fini(&s);
	bt_buf_fini(&y);
	bag_metadata_fini(&back);
	bag_metadata_fini(&md);
}

/* ---- the sqlite schema ---- */

static char *ct_sql_text(sqlite3 *h, const char *sql)
{
	struct bt_buf out = BT_BUF_INIT;
	sqlite3_stmt *s = tb_sql(h, sql);
	while (sqlite3_step(s) == SQLITE_ROW) {
		const unsigned char *v = sqlite3_column_text(s, 0);
		assert_int_equal(bt_buf_printf(&out, "%s\n", v ? (const char *)v : "NULL"), BT_OK);
	}
	sqlite3_finalize(s);
	return out.data ? bt_buf_steal(&out) : bt_xstrdup("");
}

/* Humble's plugin (rosbag2 humble, rosbag2_storage_default_plugins
 * sqlite_storage.cpp initialize()): schema 3, no message_definitions, no
 * type_description_hash; QoS as numbers in the topics table. */
static const char ct_humble_sql[] =
	"CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL)\n"
	"CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,"
	"metadata TEXT NOT NULL)\n"
	"CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
	"serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL)\n"
	"CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,"
	"timestamp INTEGER NOT NULL, data BLOB NOT NULL)\n"
	"CREATE INDEX timestamp_idx ON messages (timestamp ASC)\n";

static void ct_expect_schema(enum bag_compat c, const char *want_schema_row,
			     const char *want_md_version, const char *qos_word)
{
	struct ct_bag b;
	ct_write(&b, c, BAG_COMPRESSION_NONE, "compat-schema");
	for (int f = 0; f < 2; f++) {
		char *db = ct_db(&b, f);
		sqlite3 *h = tb_sql_open(db);
		char *sql = ct_sql_text(h, "SELECT sql FROM sqlite_master ORDER BY rowid;");
		if (c == BAG_COMPAT_HUMBLE)
			assert_string_equal(sql, ct_humble_sql);
		else
			assert_non_null(strstr(sql, "CREATE TABLE message_definitions("));
		char *row = ct_sql_text(h, "SELECT schema_version || '|' || ros_distro FROM schema;");
		assert_string_equal(row, want_schema_row);
		char *mv = ct_sql_text(h, "SELECT DISTINCT metadata_version FROM metadata;");
		assert_string_equal(mv, want_md_version);
		char *qos = ct_sql_text(h, "SELECT offered_qos_profiles FROM topics ORDER BY id;");
		assert_non_null(strstr(qos, qos_word));
		free(qos);
		free(mv);
		free(row);
		free(sql);
		sqlite3_close(h);
		free(db);
	}
	ct_free(&b);
}

static void test_schema_per_distro(void **state)
{
	(void)state;
	ct_expect_schema(BAG_COMPAT_HUMBLE, "3|humble\n", "5\n", "reliability: 2\n");
	ct_expect_schema(BAG_COMPAT_IRON, "4|iron\n", "7\n", "reliability: 2\n");
	ct_expect_schema(BAG_COMPAT_JAZZY, "4|jazzy\n", "9\n", "reliability: best_effort\n");
}

/* ---- every layout x compression ---- */

static void ct_expect_info(const char *dir, const char *layout)
{
	char *out = NULL;
	int rc = tu_bagtop(&out, "info", dir, NULL);
	if (rc != 0 || !strstr(out, layout))
		fail_msg("bagtop info (exit %d) lacks '%s':\n%s", rc, layout, out);
	free(out);
}

static const char *ct_layout_line(enum bag_compat c)
{
	switch (c) {
	case BAG_COMPAT_HUMBLE:
		return "Layout:            rosbag2 metadata v5 (humble), sqlite schema 3\n";
	case BAG_COMPAT_IRON:
		return "Layout:            rosbag2 metadata v7 (iron), sqlite schema 4\n";
	default:
		return "Layout:            rosbag2 metadata v9 (jazzy), sqlite schema 4\n";
	}
}

/* Reindex without metadata.yaml (the layout from the files' rows) and
 * with it (kept): the version stays, check still passes. */
static void ct_expect_reindex(const char *dir, int version)
{
	char *md = bt_fs_join(dir, BAG_METADATA_FILE);
	for (int with = 0; with < 2; with++) {
		if (!with)
			assert_int_equal(unlink(md), 0);
		struct bag_reindex_result res;
		struct bt_error err;
		if (bag_reindex(dir, &res, &err) != BT_OK)
			fail_msg("reindex: %s", err.msg);
		struct bag_metadata m;
		assert_int_equal(bag_metadata_read(dir, &m, &err), BT_OK);
		assert_int_equal(m.version, version);
		bag_metadata_fini(&m);
		tu_check_bag(dir);
	}
	free(md);
}

/* `check` passes, every message reads back, and the reader sees the
 * layout's metadata version; the open reader is the caller's. */
static struct bag_reader *ct_read_back(const struct ct_bag *b, enum bag_compat compat)
{
	tu_check_bag(b->dir);
	assert_int_equal(tb_each(b->dir, 0, NULL, NULL), b->written);
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(b->dir, 0, &r, &err) != BT_OK)
		fail_msg("reader: %s", err.msg);
	assert_int_equal(bag_reader_metadata(r)->version, bag_compat_metadata_version(compat));
	return r;
}

static void test_matrix(void **state)
{
	(void)state;
	static const enum bag_compat cs[] = {BAG_COMPAT_HUMBLE, BAG_COMPAT_IRON, BAG_COMPAT_JAZZY};
	static const enum bag_compression zs[] = {BAG_COMPRESSION_NONE, BAG_COMPRESSION_FILE,
						  BAG_COMPRESSION_MESSAGE};
	for (size_t i = 0; i < 3; i++) {
		for (size_t k = 0; k < 3; k++) {
			print_message("%s, compression '%s'\n", bag_compat_name(cs[i]),
				      bag_compression_name(zs[k]));
			struct ct_bag b;
			ct_write(&b, cs[i], zs[k], "compat-matrix");
			struct bag_reader *r = ct_read_back(&b, cs[i]);
			int v = bag_compat_metadata_version(cs[i]);
			assert_int_equal(bag_reader_file(r, 0)->schema_version,
					 bag_compat_schema_version(cs[i]));
			size_t nt;
			const struct bag_reader_topic *t = bag_reader_topics(r, &nt);
			assert_int_equal(nt, CT_TOPICS);
			assert_int_equal(t[1].topic.n_qos, 2);
			assert_int_equal(t[1].topic.qos[1].depth, 7);
			bag_reader_close(r);
			ct_expect_info(b.dir, ct_layout_line(cs[i]));
			if (zs[k] != BAG_COMPRESSION_FILE) /* reindex reads FILE bags too, but
								    the case adds nothing here */
				ct_expect_reindex(b.dir, v);
			ct_free(&b);
		}
	}
}

/* Every layout in MCAP storage, with each of its compressions (the
 * presets: none, zstd_fast, zstd_small): metadata.yaml in the layout's
 * version, `check` passes, every message reads back, and reindex keeps
 * the version. */
static void test_matrix_mcap(void **state)
{
	(void)state;
	static const enum bag_compat cs[] = {BAG_COMPAT_HUMBLE, BAG_COMPAT_IRON, BAG_COMPAT_JAZZY};
	static const char *const presets[] = {NULL, "zstd_fast", "zstd_small"};
	for (size_t i = 0; i < 3; i++) {
		for (size_t k = 0; k < 3; k++) {
			print_message("%s, mcap preset '%s'\n", bag_compat_name(cs[i]),
				      presets[k] ? presets[k] : "none");
			struct ct_bag b;
			ct_write_in(&b, cs[i], BAG_COMPRESSION_NONE, "mcap", presets[k],
				    "compat-matrix-mcap");
			struct bag_reader *r = ct_read_back(&b, cs[i]);
			int v = bag_compat_metadata_version(cs[i]);
			assert_string_equal(bag_reader_metadata(r)->storage_identifier, "mcap");
			size_t nt;
			(void)bag_reader_topics(r, &nt);
			assert_int_equal(nt, CT_TOPICS);
			bag_reader_close(r);
			ct_expect_reindex(b.dir, v);
			ct_free(&b);
		}
	}
}

/* Humble's layout has no custom_data: refused, never silently dropped. */
static void test_humble_refuses_custom_data(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("compat-custom");
	char *dir = bt_fs_join(tmp, "bag");
	struct bag_kv kv = {"k", "v"};
	struct bag_writer_options o = {.uri = dir, .custom_data = &kv, .n_custom_data = 1,
				       .compat = BAG_COMPAT_HUMBLE};
	tb_writer_refused(&o, BT_ERR_USAGE, "custom_data");
	assert_false(bt_fs_exists(dir));
	o.compat = BAG_COMPAT_IRON;
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	tu_rmrf(tmp);
	free(dir);
	free(tmp);
}

/* ---- choosing the layout ---- */

static void test_choose(void **state)
{
	(void)state;
	struct bag_compat_choice c;
	assert_int_equal(bag_compat_choose(NULL, NULL, &c), BT_OK);
	assert_true(c.compat == BAG_COMPAT_JAZZY && c.defaulted && !c.env_unknown);
	assert_int_equal(bag_compat_choose(NULL, "", &c), BT_OK);
	assert_true(c.compat == BAG_COMPAT_JAZZY && c.defaulted && !c.env_unknown);
	assert_true(bag_compat_hint_humble(&c));
	assert_int_equal(bag_compat_choose(NULL, "humble", &c), BT_OK);
	assert_true(c.compat == BAG_COMPAT_HUMBLE && c.defaulted && !c.env_unknown);
	assert_false(bag_compat_hint_humble(&c));
	assert_int_equal(bag_compat_choose(NULL, "rolling", &c), BT_OK);
	assert_true(c.compat == BAG_COMPAT_JAZZY && c.defaulted && c.env_unknown);
	assert_int_equal(bag_compat_choose("Iron", "humble", &c), BT_OK);
	assert_true(c.compat == BAG_COMPAT_IRON && !c.defaulted && !c.env_unknown);
	assert_false(bag_compat_hint_humble(&c));
	assert_int_equal(bag_compat_choose("kilted", NULL, &c), BT_ERR_USAGE);
	assert_string_equal(bag_layout_distro(5), "humble");
	assert_string_equal(bag_layout_distro(7), "iron");
	assert_string_equal(bag_layout_distro(9), "jazzy");
	assert_string_equal(bag_layout_distro(4), "foxy/galactic");
}

/* The option: a bad distro, or custom data with humble, is a usage error
 * (exit 2, one line) before anything starts. */
static void test_cli_usage(void **state)
{
	(void)state;
	char *out = NULL;
	assert_int_equal(tu_bagtop(&out, "record", "-a", "--compat", "foxy", NULL), 2);
	assert_non_null(strstr(out, "--compat is humble, iron or jazzy, not 'foxy'"));
	free(out);
	assert_int_equal(tu_bagtop(&out, "demo", "--compat", "humble", "--custom-data", "a=b",
				   NULL), 2);
	assert_non_null(strstr(out, "has no custom_data"));
	free(out);
}

TU_MAIN(
	cmocka_unit_test(test_humble_keys),
	cmocka_unit_test(test_iron_keys),
	cmocka_unit_test(test_jazzy_keys),
	cmocka_unit_test(test_qos_string_exact),
	cmocka_unit_test(test_qos_humble_round_trip),
	cmocka_unit_test(test_schema_per_distro),
	cmocka_unit_test(test_matrix),
	cmocka_unit_test(test_matrix_mcap),
	cmocka_unit_test(test_humble_refuses_custom_data),
	cmocka_unit_test(test_choose),
	cmocka_unit_test(test_cli_usage))
