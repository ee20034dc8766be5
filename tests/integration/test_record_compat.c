/* `bagtop record` in each distro's layout, end to end: a real recorder and
 * tpub on a loopback-only DDS domain (40..44), the layout chosen by
 * --compat or by $ROS_DISTRO, the bag then read as that distro's rosbag2
 * would find it (metadata version and QoS form, sqlite schema and tables,
 * the schema row), checked and read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "bag_metadata.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_bag.h"

#define RC_COUNT 30

struct rc_case {
	int domain;
	char *const *args;
	const char *env;
	int md_version;
	const char *schema_row; /* "3|humble" */
	bool definitions;        /* message_definitions table */
	const char *qos_text;    /* in metadata.yaml */
	const char *layout;      /* bagtop info's line */
};

static char *rc_one(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *s = tb_sql(h, sql);
	char *v = NULL;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
		v = bt_xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return v ? v : bt_xstrdup("");
}

static void rc_expect_db(const struct rec *r, const struct rc_case *c)
{
	char *db = bt_xasprintf("%s/bag_0.db3", r->dir);
	if (!bt_fs_exists(db)) { /* FILE compression: read the inflated copy */
		free(db);
		db = NULL;
	}
	if (db) {
		sqlite3 *h = tb_sql_open(db);
		char *row = rc_one(h, "SELECT schema_version || '|' || ros_distro FROM schema;");
		assert_string_equal(row, c->schema_row);
		char *defs = rc_one(h, "SELECT count(*) FROM sqlite_master WHERE "
				       "name = 'message_definitions';");
		assert_string_equal(defs, c->definitions ? "1" : "0");
		free(defs);
		free(row);
		sqlite3_close(h);
		free(db);
	}
}

static void rc_run(const struct rc_case *c)
{
	struct rec r;
	char *extra[] = {"--count", "30", "--rate", "200", "--wait-readers", "1", NULL};
	struct rec_session s = {c->domain, c->args, c->env, "rt/compat", extra, RC_COUNT};
	rec_session(&r, &s);
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	assert_int_equal(md.version, c->md_version);
	bag_metadata_fini(&md);
	char *path = bt_fs_join(r.dir, BAG_METADATA_FILE);
	char *text = rec_read(path);
	if (!strstr(text, c->qos_text))
		fail_msg("metadata.yaml lacks '%s':\n%s", c->qos_text, text);
	rc_expect_db(&r, c);
	rec_expect_count(r.dir, "/compat", RC_COUNT);
	char *out = NULL;
	assert_int_equal(tu_bagtop(&out, "info", r.dir, NULL), 0);
	if (!strstr(out, c->layout))
		fail_msg("info lacks '%s':\n%s", c->layout, out);
	free(out);
	free(text);
	free(path);
	rec_free(&r);
}

/* --compat humble, MESSAGE compression: v5 with the QoS string of numbers,
 * schema 3 without message_definitions, "humble" in the schema row. */
static void test_record_humble(void **state)
{
	(void)state;
	char *args[] = {"--compat", "humble", "--compression-mode", "message", "/compat", NULL};
	struct rc_case c = {40, args, NULL, 5, "3|humble", false,
			    "offered_qos_profiles: \"- history: 1\\n  depth: 100\\n  reliability: 1\\n"
			    "  durability: 2\\n",
			    "Layout:            rosbag2 metadata v5 (humble), sqlite schema 3\n"};
	rc_run(&c);
}

/* ROS_DISTRO=iron and no --compat: Iron's layout, FILE compression. */
static void test_record_iron_from_env(void **state)
{
	(void)state;
	char *args[] = {"--compression-mode", "file", "/compat", NULL};
	struct rc_case c = {41, args, "ROS_DISTRO=iron", 7, "4|iron", true,
			    "offered_qos_profiles: \"- history: 1\\n",
			    "Layout:            rosbag2 metadata v7 (iron), sqlite schema 4\n"};
	rc_run(&c);
}

/* ROS_DISTRO=rolling: Jazzy's layout, said once in the log. */
static void test_record_rolling_gets_jazzy(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("compat-log");
	char *log = bt_fs_join(tmp, "rec.log");
	char *args[] = {"--log-file", log, "/compat", NULL};
	struct rc_case c = {42, args, "ROS_DISTRO=rolling", 9, "4|rolling", true,
			    "offered_qos_profiles:\n      - history: keep_last\n",
			    "Layout:            rosbag2 metadata v9 (jazzy), sqlite schema 4\n"};
	rc_run(&c);
	char *text = rec_read(log);
	const char *line = "ROS_DISTRO=rolling is not one bagtop writes a layout for";
	const char *at = strstr(text, line);
	if (!at || strstr(at + 1, line))
		fail_msg("the log does not say it once:\n%s", text);
	free(text);
	tu_rmrf(tmp);
	free(log);
	free(tmp);
}

/* Records `/compat` with no --compat and no $ROS_DISTRO from a tpub that
 * announces `user_data` (NULL: none); returns the recorder's log. */
static char *rc_hint_log(int domain, const char *user_data)
{
	char *tmp = tu_mkdtemp("compat-hint");
	char *log = bt_fs_join(tmp, "rec.log");
	char *args[] = {"--log-file", log, "/compat", NULL};
	char *extra[] = {"--count", "30", "--rate", "200", "--wait-readers", "1",
			 user_data ? "--user-data" : NULL, (char *)user_data, NULL};
	struct rec_session s = {domain, args, "ROS_DISTRO=", "rt/compat", extra, RC_COUNT};
	struct rec r;
	rec_session(&r, &s);
	rec_expect_count(r.dir, "/compat", RC_COUNT);
	rec_free(&r);
	char *text = rec_read(log);
	tu_rmrf(tmp);
	free(log);
	free(tmp);
	return text;
}

/* Publishers without a type hash look like Humble's: with the layout
 * defaulted to Jazzy's, the recorder says once to use --compat humble; a
 * publisher with a hash (Iron and newer) gives no such hint. */
static void test_humble_hint(void **state)
{
	(void)state;
	const char *hint = "record with --compat humble";
	char *text = rc_hint_log(43, NULL);
	const char *at = strstr(text, hint);
	if (!at || strstr(at + 1, hint))
		fail_msg("the log does not give the hint once:\n%s", text);
	free(text);
	text = rc_hint_log(44, "typehash=RIHS01_"
			       "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef;");
	if (strstr(text, hint))
		fail_msg("a publisher with a type hash got the hint:\n%s", text);
	free(text);
}

REC_MAIN(
	cmocka_unit_test(test_record_humble),
	cmocka_unit_test(test_record_iron_from_env),
	cmocka_unit_test(test_record_rolling_gets_jazzy),
	cmocka_unit_test(test_humble_hint))
