/* The ROS 2 environment and the type hash, end to end: a real `bagtop
 * record` and tpub publishers, on loopback (CYCLONEDDS_URI from ctest, which
 * the configuration bagtop builds from the ROS variables must keep).
 * Domains: 7 (ROS_DOMAIN_ID=7), 30..33. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_metadata.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_util.h"

#define H1 "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"
#define H2 "RIHS01_0000000000000000000000000000000000000000000000000000000000000001"

/* The type_description_hash column of the topics table, as the sqlite3 CLI
 * reads it: "name|hash" lines, ordered by name. */
static char *sqlite_hashes(const char *dir)
{
	char *db = bt_xasprintf("%s/bag_0.db3", dir);
	char *argv[] = {"sqlite3", "-readonly", db,
			"SELECT name, type_description_hash FROM topics ORDER BY name;", NULL};
	char *out = NULL;
	int rc = tu_run_bounded(argv, &out, 30.0);
	if (rc != 0)
		fail_msg("sqlite3 %s: exit %d: %s", db, rc, out ? out : "");
	free(db);
	return out;
}

static const char *md_hash(const struct bag_metadata *md, const char *topic)
{
	for (size_t i = 0; i < md->n_topics; i++)
		if (strcmp(md->topics[i].topic.name, topic) == 0)
			return md->topics[i].topic.type_description_hash;
	fail_msg("metadata.yaml has no topic %s", topic);
	return NULL;
}

/* Records `name` (ROS) with the recorder on `rec_domain` (< 0: no --domain)
 * and `env`, while tpub publishes 20 messages on `pub_domain`: all 20 land. */
static void record_twenty(int rec_domain, const char *env, int pub_domain, const char *name)
{
	struct rec r;
	char *args[] = {(char *)name, NULL};
	rec_start(&r, rec_domain, args, env);
	char *topic = bt_xasprintf("rt%s", name);
	char *extra[] = {"--count", "20", "--wait-readers", "1", NULL};
	rec_publish(&r, pub_domain, topic, extra, 20);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	rec_expect_count(r.dir, name, 20);
	free(topic);
	rec_free(&r);
}

/* ROS_DOMAIN_ID=7 and no --domain: the recorder joins domain 7 and records
 * a publisher there (before, it listened on domain 0 and recorded nothing). */
static void test_ros_domain_id(void **state)
{
	(void)state;
	record_twenty(-1, "ROS_DOMAIN_ID=7", 7, "/rosenv_d7");
}

/* ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST on top of the loopback file: the
 * merged configuration starts (no interface selected twice) and records. */
static void test_localhost_range(void **state)
{
	(void)state;
	record_twenty(33, "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST", 33, "/rosenv_lo");
}

/* typehash in USER_DATA: the first publisher's hash lands in the topics
 * table and metadata.yaml; a second publisher with another hash is said
 * once and changes nothing; malformed USER_DATA is said once, the topic is
 * recorded without a hash. */
static void test_type_hash(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/rosenv_hash", "/rosenv_bad", NULL};
	rec_start(&r, 30, args, NULL);
	char *first[] = {"--count", "20", "--wait-readers", "1", "--user-data",
			 "typehash=" H1 ";", NULL};
	rec_publish(&r, 30, "rt/rosenv_hash", first, 20);
	char *second[] = {"--count", "20", "--wait-readers", "1", "--user-data",
			  "enclave=/;typehash=" H2 ";", NULL};
	rec_publish(&r, 30, "rt/rosenv_hash", second, 20);
	char *bad[] = {"--count", "20", "--wait-readers", "1", "--user-data",
		       "typehash=RIHS01_df66;", NULL};
	rec_publish(&r, 30, "rt/rosenv_bad", bad, 20);
	char *bad2[] = {"--count", "20", "--wait-readers", "1", "--user-data", "not a list", NULL};
	rec_publish(&r, 30, "rt/rosenv_bad", bad2, 20);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(tu_count_of(r.out, "publishers disagree on the type hash"), 1);
	assert_int_equal(tu_count_of(r.out, "/rosenv_bad: a publisher's USER_DATA typehash is not "
					 "64 hex digits after RIHS01_: its type hash is ignored"),
			 1);
	assert_int_equal(tu_count_of(r.out, "USER_DATA"), 1); /* once per topic */
	rec_expect_count(r.dir, "/rosenv_hash", 40);
	rec_expect_count(r.dir, "/rosenv_bad", 40);

	char *rows = sqlite_hashes(r.dir);
	assert_string_equal(rows, "/rosenv_bad|\n/rosenv_hash|" H1 "\n");
	free(rows);
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	assert_string_equal(md_hash(&md, "/rosenv_hash"), H1);
	assert_string_equal(md_hash(&md, "/rosenv_bad"), "");
	bag_metadata_fini(&md);
	rec_free(&r);
}

/* Nothing published: 5 s in, one line says the domain, the range and the
 * variables read; the recording goes on and ends normally. */
static void test_no_topic_notice(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"-a", NULL};
	rec_start(&r, 31, args, "ROS_LOCALHOST_ONLY=1");
	const char *want = "no topic found in 5 s: listening on DDS domain 31, discovery range "
			   "LOCALHOST; environment: ROS_LOCALHOST_ONLY=1 CYCLONEDDS_URI=file://";
	(void)rec_wait_said(r.out_path, want, 20.0);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(tu_count_of(r.out, want), 1);
	rec_free(&r);
}

/* A bad value: one line naming the variable, exit 2, for each command that
 * joins DDS; --domain makes ROS_DOMAIN_ID irrelevant. */
static void test_bad_values(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("rosenv");
	char *bag = bt_xasprintf("%s/bag", tmp);
	static const struct {
		const char *env, *cmd, *line;
	} cases[] = {
		{"ROS_DOMAIN_ID=seven", "record",
		 "bagtop record: ROS_DOMAIN_ID wants a number 0..232, got 'seven' (see 'bagtop "
		 "record --help')\n"},
		{"ROS_DOMAIN_ID=300", "stats",
		 "bagtop stats: ROS_DOMAIN_ID wants a number 0..232, got '300' (see 'bagtop stats "
		 "--help')\n"},
		{"ROS_LOCALHOST_ONLY=yes", "demo",
		 "bagtop demo: ROS_LOCALHOST_ONLY wants 0 or 1, got 'yes' (see 'bagtop demo "
		 "--help')\n"},
		{"ROS_AUTOMATIC_DISCOVERY_RANGE=lan", "record",
		 "bagtop record: ROS_AUTOMATIC_DISCOVERY_RANGE wants LOCALHOST, SUBNET, OFF or "
		 "SYSTEM_DEFAULT, got 'lan' (see 'bagtop record --help')\n"},
		{"ROS_STATIC_PEERS=a<b", "record",
		 "bagtop record: ROS_STATIC_PEERS: 'a<b' is not a host name or address (see 'bagtop "
		 "record --help')\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out_path = bt_xasprintf("%s/out%zu.txt", tmp, i);
		/* stats takes neither -o nor --no-tui; record also wants topics */
		bool stats = strcmp(cases[i].cmd, "stats") == 0;
		bool record = strcmp(cases[i].cmd, "record") == 0;
		char *argv[] = {getenv("BAGTOP_BIN"), (char *)cases[i].cmd,
				stats ? NULL : "-o", bag, "--no-tui", record ? "-a" : NULL, NULL};
		pid_t pid = rec_spawn(argv, out_path, cases[i].env);
		assert_int_equal(rec_wait(pid, 30.0, cases[i].cmd), 2);
		char *out = rec_read(out_path);
		assert_string_equal(out, cases[i].line);
		free(out);
		free(out_path);
	}
	tu_rmrf(tmp);
	free(bag);
	free(tmp);
}

REC_MAIN(
	cmocka_unit_test(test_bad_values),
	cmocka_unit_test(test_ros_domain_id),
	cmocka_unit_test(test_localhost_range),
	cmocka_unit_test(test_type_hash),
	cmocka_unit_test(test_no_topic_notice))
