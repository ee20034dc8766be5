/* The storage interface (bag_storage.h): the registry (lookup by
 * identifier and by file name, unknown ones refused with one line), the
 * contract every registered backend must keep (run against each one the
 * registry lists, so a new backend is tested by registering it), and
 * `bagtop info/check/reindex` on a bag whose storage no backend reads. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bag_storage.h"
#include "bag_tools.h"
#include "bag_writer.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_bag.h"

/* ---- registry ---- */

static void test_registry_identifier(void **state)
{
	(void)state;
	const struct bag_storage_ops *d = bag_storage_default();
	assert_non_null(d);
	assert_string_equal(d->identifier, "sqlite3");
	assert_string_equal(d->extension, ".db3");
	assert_ptr_equal(bag_storage_find("sqlite3"), d);
	assert_ptr_equal(bag_storage_at(0), d);
	assert_null(bag_storage_find("nope"));
	assert_null(bag_storage_find(NULL));
	/* Every backend is found by its identifier and its extension. */
	for (size_t i = 0; bag_storage_at(i); i++) {
		const struct bag_storage_ops *o = bag_storage_at(i);
		assert_ptr_equal(bag_storage_find(o->identifier), o);
		char *name = bt_xasprintf("bag_0%s", o->extension);
		assert_ptr_equal(bag_storage_by_name(name, NULL, NULL), o);
		free(name);
	}
}

static void test_registry_unknown_identifier(void **state)
{
	(void)state;
	const struct bag_storage_ops *o = bag_storage_default();
	struct bt_error err;
	assert_int_equal(bag_storage_lookup("nope", &o, &err), BT_ERR_USAGE);
	assert_null(o);
	assert_non_null(strstr(err.msg, "unknown storage 'nope'"));
	assert_non_null(strstr(err.msg, "sqlite3"));
	assert_null(strchr(err.msg, '\n'));
	assert_int_equal(bag_storage_lookup("sqlite3", &o, &err), BT_OK);
	assert_ptr_equal(o, bag_storage_default());
}

static void test_registry_file_names(void **state)
{
	(void)state;
	size_t stem = 99;
	bool z = true;
	const struct bag_storage_ops *sq = bag_storage_find("sqlite3");
	assert_ptr_equal(bag_storage_by_name("rec_12.db3", &stem, &z), sq);
	assert_int_equal(stem, 6);
	assert_false(z);
	/* FILE-mode compression wraps a backend's file; it is no backend. */
	assert_ptr_equal(bag_storage_by_name("dir/rec_12.db3.zstd", &stem, &z), sq);
	assert_int_equal(stem, 10);
	assert_true(z);
	assert_null(bag_storage_by_name("rec_12.zstd", NULL, NULL));
	assert_null(bag_storage_by_name("rec_12.db3.zstd.tmp", NULL, NULL));
	assert_null(bag_storage_by_name("rec_12.db3-journal", NULL, NULL));
	assert_null(bag_storage_by_name(".db3", NULL, NULL));
	assert_null(bag_storage_by_name("notes.txt", NULL, NULL));
	assert_null(bag_storage_by_name("metadata.yaml", NULL, NULL));
}

/* Opening by name: an unknown extension is one line naming the file. */
static void test_registry_open_unknown(void **state)
{
	char *path = bt_fs_join(*state, "rec_0.exo");
	tu_write_file(path, "junk", 4);
	struct bag_storage *s = (struct bag_storage *)1;
	struct bt_error err;
	assert_int_equal(bag_storage_open(path, BAG_STORAGE_READ, &s, &err), BT_ERR_FORMAT);
	assert_null(s);
	assert_non_null(strstr(err.msg, path));
	assert_non_null(strstr(err.msg, "no storage backend"));
	assert_null(strchr(err.msg, '\n'));
	free(path);
}

/* A writer asked for an unknown storage refuses before creating anything. */
static void test_writer_unknown_storage(void **state)
{
	char *dir = bt_fs_join(*state, "bag");
	struct bag_writer_options o = {.uri = dir, .storage_id = "nope"};
	tb_writer_refused(&o, BT_ERR_USAGE, "unknown storage 'nope'");
	assert_false(bt_fs_exists(dir));
	/* And backend settings or presets it does not know, naming them. */
	o.storage_id = NULL;
	struct bag_kv kv = {(char *)"no_such_key", (char *)"1"};
	struct bag_storage_options so = {.config = &kv, .n_config = 1};
	struct bt_error err;
	assert_int_equal(bag_storage_default()->check_options(&so, &err), BT_ERR_USAGE);
	assert_non_null(strstr(err.msg, "no_such_key"));
	o.storage_config = &kv;
	o.n_storage_config = 1;
	tb_writer_refused(&o, BT_ERR_USAGE, "no_such_key");
	assert_false(bt_fs_exists(dir));
	o.n_storage_config = 0;
	o.storage_preset = "fastwrite";
	tb_writer_refused(&o, BT_ERR_USAGE, "'fastwrite'");
	assert_false(bt_fs_exists(dir));
	/* Settings it knows go through to the file. */
	o.storage_preset = "resilient";
	kv = (struct bag_kv){(char *)"journal_mode", (char *)"TRUNCATE"};
	o.n_storage_config = 1;
	struct bag_writer *w = tb_writer_open(&o);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	free(dir);
}

/* ---- the contract, run against every registered backend ---- */

struct ct_msg {
	int topic; /* 0 or 1 */
	int64_t ts;
	const char *data;
};

static void ct_topic(struct bag_topic *t, const char *name)
{
	memset(t, 0, sizeof *t);
	t->name = (char *)name;
	t->type = (char *)"std_msgs/msg/String";
	t->serialization_format = (char *)"cdr";
	t->type_description_hash = (char *)"";
}

static void ct_write(struct bag_storage *s, const int64_t *ids, const struct ct_msg *m, size_t n,
		     bool commit)
{
	struct bt_error err;
	assert_int_equal(s->ops->batch_begin(s, &err), BT_OK);
	for (size_t i = 0; i < n; i++) {
		uint64_t before, after;
		assert_int_equal(s->ops->size(s, &before, &err), BT_OK);
		assert_int_equal(s->ops->write(s, ids[m[i].topic], m[i].ts, 0, m[i].data,
					       strlen(m[i].data), &err), BT_OK);
		assert_int_equal(s->ops->size(s, &after, &err), BT_OK);
		assert_true(after <= before + s->ops->growth_bound(s, strlen(m[i].data)));
	}
	if (commit) {
		assert_int_equal(s->ops->batch_commit(s, &err), BT_OK);
	} else {
		s->ops->batch_abort(s);
	}
}

static void ct_create(const struct bag_storage_ops *ops, const char *path)
{
	struct bag_storage_options so = {.ros_distro = "jazzy"};
	struct bag_storage *s = NULL;
	struct bt_error err;
	assert_int_equal(ops->check_options(&so, &err), BT_OK);
	assert_int_equal(bag_storage_create(ops, path, &so, &s, &err), BT_OK);
	assert_ptr_equal(s->ops, ops);
	struct bag_storage *again = NULL;
	assert_int_equal(bag_storage_create(ops, path, &so, &again, &err), BT_ERR_EXISTS);
	struct bag_topic a, b;
	ct_topic(&a, "/a");
	ct_topic(&b, "/b");
	struct bag_msgdef def = {(char *)"std_msgs/msg/String", (char *)"ros2msg",
				 (char *)"string data", (char *)""};
	int64_t ids[2];
	assert_int_equal(s->ops->create_topic(s, &a, &def, &ids[0], &err), BT_OK);
	assert_int_equal(s->ops->create_topic(s, &b, NULL, &ids[1], &err), BT_OK);
	assert_true(ids[0] != ids[1]);
	struct bag_metadata md;
	bag_metadata_init(&md);
	md.message_count = 4;
	assert_int_equal(s->ops->write_metadata(s, &md, &err), BT_OK);
	bag_metadata_fini(&md);
	/* Out of order within a batch; an aborted batch leaves nothing. */
	static const struct ct_msg b1[] = {{0, 30, "c"}, {1, 10, "a"}, {0, 20, "bb"}};
	static const struct ct_msg b2[] = {{0, 5, "lost"}};
	static const struct ct_msg b3[] = {{1, 40, "dddd"}};
	ct_write(s, ids, b1, 3, true);
	if (!ops->append_only) /* it would keep the message: see bag_storage.h */
		ct_write(s, ids, b2, 1, false);
	ct_write(s, ids, b3, 1, true);
	struct bag_qos q = {0};
	q.depth = 7;
	assert_int_equal(s->ops->update_topic_qos(s, ids[1], &q, 1, &err), BT_OK);
	assert_int_equal(bag_storage_close(s, &err), BT_OK);
}

static void ct_read_topics(struct bag_storage *s, int64_t *ids)
{
	struct bag_storage_topic *t = NULL;
	size_t n = 0;
	uint64_t orphans = 1;
	struct bt_error err;
	assert_int_equal(s->ops->read_topics(s, &t, &n, &orphans, &err), BT_OK);
	assert_int_equal(n, 2);
	assert_int_equal(orphans, 0);
	assert_string_equal(t[0].topic.name, "/a");
	assert_string_equal(t[1].topic.name, "/b");
	assert_string_equal(t[1].topic.type, "std_msgs/msg/String");
	assert_int_equal(t[0].count, 2);
	assert_int_equal(t[0].min_ts, 20);
	assert_int_equal(t[0].max_ts, 30);
	assert_int_equal(t[1].count, 2);
	assert_int_equal(t[1].min_ts, 10);
	assert_int_equal(t[1].max_ts, 40);
	/* An append-only file keeps the QoS the topic was created with. */
	assert_int_equal(t[1].topic.n_qos, s->ops->append_only ? 0 : 1);
	if (!s->ops->append_only)
		assert_int_equal(t[1].topic.qos[0].depth, 7);
	ids[0] = t[0].id;
	ids[1] = t[1].id;
	bag_storage_topics_free(t, n);
	struct bag_msgdef *d = NULL;
	assert_int_equal(s->ops->read_msgdefs(s, &d, &n, &err), BT_OK);
	assert_int_equal(n, 1);
	assert_string_equal(d[0].topic_type, "std_msgs/msg/String");
	assert_string_equal(d[0].encoded_message_definition, "string data");
	bag_storage_msgdefs_free(d, n);
}

/* read_outline, where a backend has it: the same topics without their
 * figures, and the file's count and time range. */
static void ct_read_outline(struct bag_storage *s, const int64_t *ids)
{
	if (!s->ops->read_outline)
		return;
	struct bag_storage_topic *t = NULL;
	size_t n = 0;
	uint64_t count = 0;
	int64_t first = 0, last = 0;
	struct bt_error err;
	assert_int_equal(s->ops->read_outline(s, &t, &n, &count, &first, &last, &err), BT_OK);
	assert_int_equal(n, 2);
	assert_string_equal(t[0].topic.name, "/a");
	assert_string_equal(t[1].topic.name, "/b");
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(t[i].id, ids[i]);
		assert_int_equal(t[i].count, 0);
	}
	assert_int_equal(count, 4);
	assert_int_equal(first, 10);
	assert_int_equal(last, 40);
	bag_storage_topics_free(t, n);
}

static void ct_read(const struct bag_storage_ops *ops, const char *path)
{
	struct bag_storage *s = NULL;
	struct bt_error err;
	assert_int_equal(bag_storage_open(path, BAG_STORAGE_READ, &s, &err), BT_OK);
	assert_ptr_equal(s->ops, ops);
	assert_true(s->ops->version(s) > 0);
	char *interop = NULL; /* what the writer wrote, every reader takes */
	assert_int_equal(s->ops->check(s, &interop, &err), BT_OK);
	assert_null(interop);
	int64_t ids[2];
	ct_read_topics(s, ids);
	ct_read_outline(s, ids);
	struct bag_metadata md;
	bool found = false;
	assert_int_equal(s->ops->read_metadata(s, &md, &found, &err), BT_OK);
	assert_true(found);
	assert_int_equal(md.message_count, 4);
	bag_metadata_fini(&md);
	bool z = true;
	assert_int_equal(s->ops->peek_compressed(s, &z, &err), BT_OK);
	assert_false(z);
	static const struct ct_msg want[] = {{1, 10, "a"}, {0, 20, "bb"}, {0, 30, "c"},
					     {1, 40, "dddd"}};
	struct bag_storage_msg m;
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(s->ops->read_next(s, &m, &err), 1);
		assert_int_equal(m.topic_id, ids[want[i].topic]);
		assert_int_equal(m.timestamp, want[i].ts);
		assert_int_equal(m.len, strlen(want[i].data));
		assert_memory_equal(m.data, want[i].data, m.len);
	}
	assert_int_equal(s->ops->read_next(s, &m, &err), 0);
	assert_int_equal(bag_storage_close(s, &err), BT_OK);
}

static void test_contract(void **state)
{
	size_t n = 0;
	for (; bag_storage_at(n); n++) {
		const struct bag_storage_ops *ops = bag_storage_at(n);
		char *name = bt_xasprintf("c_%zu%s", n, ops->extension);
		char *path = bt_fs_join(*state, name);
		ct_create(ops, path);
		ct_read(ops, path);
		/* Reopened for recovery it reads the same. */
		struct bag_storage *s = NULL;
		struct bt_error err;
		assert_int_equal(bag_storage_open(path, BAG_STORAGE_RECOVER, &s, &err), BT_OK);
		assert_true(s->ops->version(s) > 0);
		bag_storage_discard(s);
		ct_read(ops, path);
		free(path);
		free(name);
	}
	assert_true(n >= 1);
}

/* ---- which backend reads a file ---- */

/* A storage file named freely is read by the backend whose magic it starts
 * with; a directory holding files of two backends is refused by name, not
 * read as one bag. */
static void test_by_magic_and_mixed(void **state)
{
	char *mixed = bt_fs_join(*state, "mixed");
	assert_int_equal(bt_fs_mkdir_new(mixed, NULL), BT_OK);
	char *first = NULL;
	for (size_t n = 0; bag_storage_at(n); n++) {
		const struct bag_storage_ops *ops = bag_storage_at(n);
		char *name = bt_xasprintf("m_%zu%s", n, ops->extension);
		char *path = bt_fs_join(mixed, name);
		ct_create(ops, path);
		char *free_name = bt_xasprintf("%s/free_%zu.bin", (const char *)*state, n);
		tu_copy_file(path, free_name);
		char head[BAG_STORAGE_MAGIC_MAX];
		FILE *fp = fopen(free_name, "rb");
		assert_non_null(fp);
		size_t got = fread(head, 1, sizeof head, fp);
		fclose(fp);
		assert_ptr_equal(bag_storage_by_magic(head, got), ops);
		assert_null(bag_storage_by_magic(head, ops->magic_len - 1));
		struct bag_reader *r = NULL;
		struct bt_error err;
		assert_int_equal(bag_reader_open(free_name, 0, &r, &err), BT_OK);
		assert_ptr_equal(bag_reader_file(r, 0)->storage, ops);
		assert_int_equal(bag_reader_message_count(r), 4);
		bag_reader_close(r);
		if (!first)
			first = bt_xstrdup(ops->identifier);
		free(free_name);
		free(path);
		free(name);
	}
	struct bag_reader *r = NULL;
	struct bt_error err;
	assert_int_equal(bag_reader_open(mixed, 0, &r, &err), BT_ERR_FORMAT);
	assert_null(r);
	char *want = bt_xasprintf("holds %s files and ", first);
	if (!strstr(err.msg, want) || !strstr(err.msg, "m_0") || !strstr(err.msg, "m_1"))
		fail_msg("mixed: %s", err.msg);
	free(want);
	/* Neither: one line naming the file; a ROS 1 bag is told apart. */
	static const char *const junk[] = {"not a bag", "#ROSBAG V2.0\nop=..."};
	for (size_t i = 0; i < 2; i++) {
		char *path = bt_xasprintf("%s/junk_%zu.bag", (const char *)*state, i);
		tu_write_file(path, junk[i], strlen(junk[i]));
		assert_null(bag_storage_by_magic(junk[i], strlen(junk[i])));
		assert_int_equal(bag_reader_open(path, 0, &r, &err), BT_ERR_FORMAT);
		if (!strstr(err.msg, "not a storage file bagtop reads") ||
		    (strstr(err.msg, "ROS 1 bag") != NULL) != (i == 1) || strchr(err.msg, '\n'))
			fail_msg("%s: %s", junk[i], err.msg);
		free(path);
	}
	/* A bag of one blank file (created, never written) is of its backend. */
	char *blank = bt_fs_join(*state, "blank");
	assert_int_equal(bt_fs_mkdir_new(blank, NULL), BT_OK);
	for (size_t n = 0; bag_storage_at(n); n++) {
		const struct bag_storage_ops *ops = bag_storage_at(n);
		char *path = bt_xasprintf("%s/b_0%s", blank, ops->extension);
		tu_write_file(path, "", 0);
		assert_int_equal(bag_reader_open(blank, BAG_READER_RECOVER, &r, &err), BT_OK);
		size_t nb = 0;
		(void)bag_reader_blank(r, &nb);
		assert_int_equal(nb, 1);
		struct bag_metadata md;
		bag_reindex_build(r, &md);
		assert_string_equal(md.storage_identifier, ops->identifier);
		bag_metadata_fini(&md);
		bag_reader_close(r);
		assert_int_equal(unlink(path), 0);
		free(path);
	}
	free(blank);
	free(first);
	free(mixed);
}

/* ---- the commands on a bag of an unknown storage ---- */

static size_t cli_lines(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* info and reindex: one line, exit 1; check: that line as its problem. */
static void cli_expect(const char *dir, const char *say)
{
	static const char *const cmds[] = {"info", "reindex", "check"};
	for (size_t i = 0; i < 3; i++) {
		char *out = NULL;
		int rc = tu_bagtop(&out, cmds[i], dir, NULL);
		if (rc != 1 || !strstr(out, say) || !strstr(out, "sqlite3 (.db3"))
			fail_msg("bagtop %s %s: exit %d, wanted 1 and '%s':\n%s", cmds[i], dir, rc,
				 say, out);
		assert_int_equal(cli_lines(out), i < 2 ? 1 : 2);
		free(out);
	}
}

static void test_cli_unknown_storage(void **state)
{
	/* No metadata.yaml: the file is named like a storage file. */
	char *a = bt_fs_join(*state, "a");
	assert_int_equal(bt_fs_mkdir_new(a, NULL), BT_OK);
	char *f = bt_fs_join(a, "a_0.exo");
	tu_write_file(f, "not a database at all", 21);
	cli_expect(a, "no storage backend reads a_0.exo (its extension '.exo' is unknown");
	/* metadata.yaml naming a storage bagtop has no backend for. */
	char *b = bt_fs_join(*state, "b");
	assert_int_equal(bt_fs_mkdir_new(b, NULL), BT_OK);
	char *g = bt_fs_join(b, "b_0.exo");
	tu_write_file(g, "not a database at all", 21);
	char *y = bt_fs_join(b, "metadata.yaml");
	static const char yaml[] = "rosbag2_bagfile_information:\n  version: 9\n"
				   "  storage_identifier: exotic\n  duration:\n"
				   "    nanoseconds: 0\n  starting_time:\n"
				   "    nanoseconds_since_epoch: 0\n  message_count: 0\n"
				   "  topics_with_message_count: []\n  compression_format: \"\"\n"
				   "  compression_mode: \"\"\n  relative_file_paths:\n"
				   "    - b_0.exo\n  files: []\n  custom_data: ~\n"
				   "  ros_distro: \"\"\n";
	tu_write_file(y, yaml, sizeof yaml - 1);
	cli_expect(b, "no storage backend reads");
	char *out = NULL;
	int rc = tu_bagtop(&out, "info", b, NULL);
	if (rc != 1 || !strstr(out, "no storage backend reads this file (storage_identifier "
				  "'exotic'") || cli_lines(out) != 1)
		fail_msg("bagtop info %s: exit %d:\n%s", b, rc, out);
	free(out);
	/* Nothing was touched. */
	assert_true(bt_fs_exists(f) && bt_fs_exists(g) && bt_fs_exists(y));
	free(y);
	free(g);
	free(b);
	free(f);
	free(a);
}

/* ---- info -t, --sort and every reader's -s, as ros2 bag takes them ---- */

/* A bag of storage `id`: topics whose orders by name, type and count all
 * differ, and a service's event topic. */
static char *ci_bag(const char *scratch, const char *id)
{
	static const struct {
		const char *name, *type;
		int count;
	} topics[] = {{"/b", "z_msgs/msg/A", 1}, {"/a", "y_msgs/msg/B", 3},
		      {"/c", "x_msgs/msg/C", 2}, {"/s/_service_event", "p/srv/S_Event", 4}};
	char *dir = bt_xasprintf("%s/sort_%s", scratch, id);
	struct bag_writer_options o = {.uri = dir, .storage_id = id};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	int64_t ts = 1000;
	for (size_t i = 0; i < 4; i++) {
		struct bag_topic t;
		ct_topic(&t, topics[i].name);
		t.type = (char *)topics[i].type;
		uint32_t h;
		assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h, &err), BT_OK);
		for (int k = 0; k < topics[i].count; k++) {
			struct bag_message m = {h, ts++, "\0\1\0\0", 4, 0};
			assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_OK);
		}
	}
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	return dir;
}

static void ci_expect(int want_rc, const char *want, const char *cmd, const char *a,
		      const char *b, const char *c, const char *d)
{
	char *out = NULL;
	int rc = tu_bagtop(&out, cmd, a, b, c, d, NULL);
	if (rc != want_rc || !strstr(out, want))
		fail_msg("bagtop %s %s %s %s %s: exit %d, wanted %d and '%s':\n%s", cmd, a,
			 b ? b : "", c ? c : "", d ? d : "", rc, want_rc, want, out);
	free(out);
}

static void test_cli_info_sort_storage(void **state)
{
	for (size_t n = 0; bag_storage_at(n); n++) {
		const char *id = bag_storage_at(n)->identifier;
		const char *other = bag_storage_at(n ? 0 : 1)->identifier;
		char *bag = ci_bag(*state, id);
		/* -t: names only, services left out; --sort's keys ascending. */
		ci_expect(0, "/a\n/b\n/c\n", "info", "-t", bag, NULL, NULL);
		char *out = NULL;
		assert_int_equal(tu_bagtop(&out, "info", "-t", bag, NULL), 0);
		assert_string_equal(out, "/a\n/b\n/c\n");
		free(out);
		ci_expect(0, "/c\n/a\n/b\n", "info", "-t", "--sort", "type", bag);
		ci_expect(0, "/b\n/c\n/a\n", "info", "-t", "--sort", "COUNT", bag);
		ci_expect(0, "Topic: /b | Type: z_msgs/msg/A | Count: 1 | Serialization Format: cdr\n"
			  "                   Topic: /c ", "info", "--sort", "count", bag, NULL);
		ci_expect(2, "--sort is name, type or count, not 'size'", "info", "--sort", "size",
			  bag, NULL);
		/* -s: the bag's own storage passes; another is one line, exit 1. */
		ci_expect(0, "Storage id:        ", "info", "-s", id, bag, NULL);
		ci_expect(0, ": ok", "check", "--storage", id, bag, NULL);
		char *says = bt_xasprintf("the bag is in %s storage, not %s (-s)", id, other);
		static const char *const cmds[] = {"info", "check", "reindex", "play"};
		for (size_t i = 0; i < 4; i++) {
			ci_expect(1, says, cmds[i], "-s", other, bag, NULL);
			char *o2 = NULL;
			(void)tu_bagtop(&o2, cmds[i], "-s", other, bag, NULL);
			assert_int_equal(cli_lines(o2), 1);
			free(o2);
		}
		ci_expect(2, "unknown storage 'rosbag'", "play", "-s", "rosbag", bag, NULL);
		tu_check_bag(bag); /* reindex refused: the bag is as written */
		free(says);
		free(bag);
	}
}

TU_MAIN(
	cmocka_unit_test(test_registry_identifier),
	cmocka_unit_test(test_registry_unknown_identifier),
	cmocka_unit_test(test_registry_file_names),
	TU_SCRATCH_TEST(test_registry_open_unknown),
	TU_SCRATCH_TEST(test_writer_unknown_storage),
	TU_SCRATCH_TEST(test_contract),
	TU_SCRATCH_TEST(test_by_magic_and_mixed),
	TU_SCRATCH_TEST(test_cli_unknown_storage),
	TU_SCRATCH_TEST(test_cli_info_sort_storage))
