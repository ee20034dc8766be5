/* The reader on storage schemas the fixtures do not cover: schema 3 (Humble:
 * `schema` and `metadata` tables, no type hashes, no message_definitions,
 * no metadata rows) and schema 1 (topics without offered_qos_profiles). */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_reader.h"
#include "bt_mem.h"
#include "test_util.h"

static const char *const schema3_sql =
	"CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);"
	"CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,"
	"metadata TEXT NOT NULL);"
	"CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
	"serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL);"
	"CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,"
	"timestamp INTEGER NOT NULL, data BLOB NOT NULL);"
	"CREATE INDEX timestamp_idx ON messages (timestamp ASC);"
	"INSERT INTO schema VALUES (3, 'humble');"
	"INSERT INTO topics VALUES (1, '/chatter', 'std_msgs/msg/String', 'cdr',"
	" '- history: 3\n  depth: 0\n  reliability: 1\n  durability: 2\n');";

static const char *const schema1_sql =
	"CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
	"serialization_format TEXT NOT NULL);"
	"CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,"
	"timestamp INTEGER NOT NULL, data BLOB NOT NULL);"
	"INSERT INTO topics VALUES (1, '/chatter', 'std_msgs/msg/String', 'cdr');";

/* Three messages, stored out of timestamp order. */
static const char *const messages_sql =
	"INSERT INTO messages (topic_id, timestamp, data) VALUES (1, 30, x'0001000003000000');"
	"INSERT INTO messages (topic_id, timestamp, data) VALUES (1, 10, x'0001000001000000');"
	"INSERT INTO messages (topic_id, timestamp, data) VALUES (1, 20, x'0001000002000000');";

static char *make_db(const char *dir, const char *schema)
{
	char *path = bt_xasprintf("%s/old_0.db3", dir);
	sqlite3 *db;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, schema, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, messages_sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	return path;
}

static void read_back(const char *path, int want_schema, size_t want_qos)
{
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(path, 0, &r, &err) != BT_OK)
		fail_msg("open %s: %s", path, err.msg);
	assert_int_equal(bag_reader_n_files(r), 1);
	const struct bag_reader_file *f = bag_reader_file(r, 0);
	assert_int_equal(f->schema_version, want_schema);
	assert_int_equal(f->message_count, 3);
	assert_false(f->has_embedded);
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	assert_int_equal(n, 1);
	assert_string_equal(t[0].topic.name, "/chatter");
	assert_int_equal(t[0].topic.n_qos, want_qos);
	assert_string_equal(t[0].topic.type_description_hash, "");
	struct bag_read_msg m;
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(bag_reader_next(r, &m, &err), 1);
		assert_int_equal(m.timestamp, 10 * i);
		assert_int_equal(m.len, 8);
		assert_int_equal(m.data[4], i);
	}
	assert_int_equal(bag_reader_next(r, &m, &err), 0);
	bag_reader_close(r);
}

static void test_schema3(void **state)
{
	const char *dir = *state;
	char *path = make_db(dir, schema3_sql);
	read_back(path, 3, 1);
	read_back(dir, 3, 1); /* a directory without metadata.yaml */
	free(path);
}

static void test_schema1(void **state)
{
	char *path = make_db(*state, schema1_sql);
	read_back(path, 1, 0);
	free(path);
}

TU_MAIN(
	TU_SCRATCH_TEST(test_schema3),
	TU_SCRATCH_TEST(test_schema1))
