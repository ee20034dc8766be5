/* btdds_env and btdds_config: every combination of the ROS 2 discovery
 * variables gives rmw_cyclonedds's configuration (with bagtop's loopback
 * binding for LOCALHOST), CYCLONEDDS_URI comes last, bad values are one
 * clear error. The environment comes from a table, not the process's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btdds_config.h"
#include "btdds_env.h"
#include "bt_mem.h"
#include "test_util.h"

/* The table btdds_env_read looks variables up in. */
static const char *fake_vals[BTDDS_VAR_N];

static const char *fake_get(const char *name)
{
	for (int v = 0; v < BTDDS_VAR_N; v++)
		if (strcmp(name, btdds_var_name((enum btdds_var)v)) == 0)
			return fake_vals[v];
	return NULL;
}

/* Reads an environment of (domain, localhost, range, peers, uri). */
static bt_status env_of(const char *dom, const char *lo, const char *range, const char *peers,
			const char *uri, struct btdds_env *e, struct bt_error *err)
{
	const char *v[BTDDS_VAR_N] = {dom, lo, range, peers, uri};
	memcpy(fake_vals, v, sizeof v);
	return btdds_env_read(fake_get, e, err);
}

static char *fragment_of(const char *lo, const char *range, const char *peers)
{
	struct btdds_env e;
	struct bt_error err = {0};
	bt_status st = env_of(NULL, lo, range, peers, NULL, &e, &err);
	if (st != BT_OK)
		fail_msg("lo=%s range=%s peers=%s: %s", lo ? lo : "-", range ? range : "-",
			 peers ? peers : "-", err.msg);
	char *f = btdds_config_fragment(&e, 4242, false);
	btdds_env_fini(&e);
	return f;
}

#define LOOPBACK_IF "<Interfaces><NetworkInterface address=\"127.0.0.1\"/></Interfaces>"
#define NO_MCAST "<AllowMulticast>false</AllowMulticast>"
#define PINDEX "<ParticipantIndex>auto</ParticipantIndex>" \
	       "<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>"

/* The whole text for the ranges and peers, as rmw_cyclonedds (Jazzy)
 * builds it. */
static void test_fragments(void **state)
{
	(void)state;
	static const struct {
		const char *lo, *range, *peers, *want;
	} cases[] = {
		{NULL, NULL, NULL,
		 "<CycloneDDS><Domain><Discovery>" PINDEX "</Discovery></Domain></CycloneDDS>"},
		{NULL, "SUBNET", "10.0.0.2;robot.local",
		 "<CycloneDDS><Domain><Discovery>" PINDEX "<Peers><Peer address=\"10.0.0.2\"/>"
		 "<Peer address=\"robot.local\"/></Peers></Discovery></Domain></CycloneDDS>"},
		{NULL, "LOCALHOST", NULL,
		 "<CycloneDDS><Domain><General>" LOOPBACK_IF NO_MCAST "</General><Discovery>" PINDEX
		 "<Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery></Domain></CycloneDDS>"},
		/* static peers on other hosts: no loopback binding, or they are unreachable */
		{NULL, "LOCALHOST", "10.0.0.2",
		 "<CycloneDDS><Domain><General>" NO_MCAST "</General><Discovery>" PINDEX
		 "<Peers><Peer address=\"127.0.0.1\"/><Peer address=\"10.0.0.2\"/></Peers>"
		 "</Discovery></Domain></CycloneDDS>"},
		{NULL, "OFF", "10.0.0.2",
		 "<CycloneDDS><Domain><General>" NO_MCAST "</General><Discovery>"
		 "<ParticipantIndex>none</ParticipantIndex><Tag>ros_discovery_off_4242</Tag>"
		 "</Discovery></Domain></CycloneDDS>"},
		{NULL, "SYSTEM_DEFAULT", "10.0.0.2", ""},
		/* ROS_LOCALHOST_ONLY=1 wins over the range and drops the peers (rcl_init) */
		{"1", "SUBNET", "10.0.0.2",
		 "<CycloneDDS><Domain><General>" LOOPBACK_IF NO_MCAST "</General><Discovery>" PINDEX
		 "<Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery></Domain></CycloneDDS>"},
		{"1", "SYSTEM_DEFAULT", NULL,
		 "<CycloneDDS><Domain><General>" LOOPBACK_IF NO_MCAST "</General><Discovery>" PINDEX
		 "<Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery></Domain></CycloneDDS>"},
		{"0", "OFF", NULL,
		 "<CycloneDDS><Domain><General>" NO_MCAST "</General><Discovery>"
		 "<ParticipantIndex>none</ParticipantIndex><Tag>ros_discovery_off_4242</Tag>"
		 "</Discovery></Domain></CycloneDDS>"},
		/* empty entries are skipped, an empty variable is an unset one */
		{"", "", ";;10.0.0.2;",
		 "<CycloneDDS><Domain><Discovery>" PINDEX "<Peers><Peer address=\"10.0.0.2\"/>"
		 "</Peers></Discovery></Domain></CycloneDDS>"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *f = fragment_of(cases[i].lo, cases[i].range, cases[i].peers);
		if (strcmp(f, cases[i].want) != 0)
			fail_msg("case %zu:\n got  %s\n want %s", i, f, cases[i].want);
		free(f);
	}
}

/* "Never leaves loopback": one interface, 127.0.0.1; no multicast; the only
 * peer 127.0.0.1; and nothing in the text names another address. */
static void assert_loopback_only(const char *f)
{
	assert_non_null(strstr(f, LOOPBACK_IF));
	assert_non_null(strstr(f, NO_MCAST));
	assert_int_equal(tu_count_of(f, "<NetworkInterface "), 1);
	assert_int_equal(tu_count_of(f, "<Peer "), 1);
	assert_int_equal(tu_count_of(f, "<Peer address=\"127.0.0.1\"/>"), 1);
	assert_int_equal(tu_count_of(f, "address="), 2);
	assert_null(strstr(f, "AllowMulticast>true"));
}

static void test_localhost_never_leaves_loopback(void **state)
{
	(void)state;
	const char *ranges[] = {NULL, "SUBNET", "LOCALHOST", "OFF", "SYSTEM_DEFAULT"};
	for (size_t i = 0; i < 5; i++) {
		char *f = fragment_of("1", ranges[i], "192.168.1.7;robot.example.com");
		assert_loopback_only(f);
		free(f);
	}
	char *f = fragment_of(NULL, "LOCALHOST", NULL);
	assert_loopback_only(f);
	free(f);
}

/* The fragment first, then CYCLONEDDS_URI, so the user's file wins where
 * both set something (here the loopback test file keeps its restrictions). */
static void test_merged_with_uri(void **state)
{
	(void)state;
	struct btdds_env e;
	const char *uri = "file:///nonexistent/cyclone.xml";
	assert_int_equal(env_of("7", NULL, "LOCALHOST", NULL, uri, &e, NULL), BT_OK);
	assert_true(e.domain_set);
	assert_int_equal(e.domain_id, 7);
	char *m = btdds_config_merged(&e, 1);
	char *f = btdds_config_fragment(&e, 1, false);
	size_t fl = strlen(f);
	assert_memory_equal(m, f, fl);
	assert_string_equal(m + fl, ",file:///nonexistent/cyclone.xml");
	free(m);
	free(f);
	btdds_env_fini(&e);
	/* SYSTEM_DEFAULT adds nothing: Cyclone reads CYCLONEDDS_URI itself */
	assert_int_equal(env_of(NULL, NULL, "SYSTEM_DEFAULT", NULL, uri, &e, NULL), BT_OK);
	assert_null(btdds_config_merged(&e, 1));
	btdds_env_fini(&e);
	/* no CYCLONEDDS_URI: the fragment and an empty part */
	assert_int_equal(env_of(NULL, NULL, NULL, NULL, NULL, &e, NULL), BT_OK);
	assert_false(e.domain_set);
	m = btdds_config_merged(&e, 1);
	assert_int_equal(m[strlen(m) - 1], ',');
	free(m);
	btdds_env_fini(&e);
}

/* A CYCLONEDDS_URI that selects interfaces itself (inline or in a file):
 * no second selection of 127.0.0.1, which Cyclone would refuse. */
static void test_uri_interfaces(void **state)
{
	(void)state;
	assert_false(btdds_uri_selects_interfaces(NULL));
	assert_false(btdds_uri_selects_interfaces("<General><AllowMulticast>false</AllowMulticast>"
						  "</General>"));
	assert_true(btdds_uri_selects_interfaces("<General><Interfaces><NetworkInterface "
						 "name=\"lo\"/></Interfaces></General>"));
	char *dir = tu_mkdtemp("btdds");
	char *path = bt_xasprintf("%s/c.xml", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("<CycloneDDS><Domain><General><Interfaces><NetworkInterface address=\"127.0.0.1\"/>"
	      "</Interfaces></General></Domain></CycloneDDS>", f);
	assert_int_equal(fclose(f), 0);
	char *uri = bt_xasprintf("<Tracing/>,file://%s", path);
	assert_true(btdds_uri_selects_interfaces(uri));
	assert_true(btdds_uri_selects_interfaces(path)); /* a plain path */
	free(uri);
	assert_false(btdds_uri_selects_interfaces("file:///nonexistent/x.xml"));
	/* the loopback test configuration every test runs with */
	const char *env_uri = getenv("CYCLONEDDS_URI");
	if (env_uri != NULL)
		assert_true(btdds_uri_selects_interfaces(env_uri));
	struct btdds_env e;
	assert_int_equal(env_of(NULL, "1", NULL, NULL, path, &e, NULL), BT_OK);
	char *m = btdds_config_merged(&e, 1);
	assert_null(strstr(m, "<Interfaces>")); /* the file's selection, not ours */
	assert_non_null(strstr(m, NO_MCAST));
	free(m);
	btdds_env_fini(&e);
	tu_rmrf(dir);
	free(path);
	free(dir);
}

static void test_bad_values(void **state)
{
	(void)state;
	static const struct {
		const char *dom, *lo, *range, *peers, *msg;
	} cases[] = {
		{"seven", NULL, NULL, NULL, "ROS_DOMAIN_ID wants a number 0..232, got 'seven'"},
		{"233", NULL, NULL, NULL, "ROS_DOMAIN_ID wants a number 0..232, got '233'"},
		{"-1", NULL, NULL, NULL, "ROS_DOMAIN_ID wants a number 0..232, got '-1'"},
		{" 7", NULL, NULL, NULL, "ROS_DOMAIN_ID wants a number 0..232, got ' 7'"},
		{"0x7", NULL, NULL, NULL, "ROS_DOMAIN_ID wants a number 0..232, got '0x7'"},
		{NULL, "true", NULL, NULL, "ROS_LOCALHOST_ONLY wants 0 or 1, got 'true'"},
		{NULL, "10", NULL, NULL, "ROS_LOCALHOST_ONLY wants 0 or 1, got '10'"},
		{NULL, NULL, "localhost", NULL,
		 "ROS_AUTOMATIC_DISCOVERY_RANGE wants LOCALHOST, SUBNET, OFF or SYSTEM_DEFAULT, "
		 "got 'localhost'"},
		{NULL, NULL, NULL, "10.0.0.1\"/><Peer address=\"8.8.8.8",
		 "ROS_STATIC_PEERS: '10.0.0.1\"/><Peer address=\"8.8.8.8' is not a host name or "
		 "address"},
		{NULL, NULL, NULL, "a b", "ROS_STATIC_PEERS: 'a b' is not a host name or address"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct btdds_env e;
		struct bt_error err = {0};
		bt_status st = env_of(cases[i].dom, cases[i].lo, cases[i].range, cases[i].peers,
				      NULL, &e, &err);
		btdds_env_fini(&e);
		assert_int_equal(st, BT_ERR_USAGE);
		assert_string_equal(err.msg, cases[i].msg);
	}
	/* bounds: a 256-character peer, 65 peers */
	char big[400];
	memset(big, 'a', 256);
	big[256] = '\0';
	struct btdds_env e;
	assert_int_equal(env_of(NULL, NULL, NULL, big, NULL, &e, NULL), BT_ERR_USAGE);
	btdds_env_fini(&e);
	big[255] = '\0';
	assert_int_equal(env_of(NULL, NULL, NULL, big, NULL, &e, NULL), BT_OK);
	btdds_env_fini(&e);
	char many[65 * 4 + 1] = "";
	for (int i = 0; i < 65; i++)
		strcat(many, "h1;");
	assert_int_equal(env_of(NULL, NULL, NULL, many, NULL, &e, NULL), BT_ERR_USAGE);
	btdds_env_fini(&e);
}

static void test_describe(void **state)
{
	(void)state;
	struct btdds_env e;
	assert_int_equal(env_of("7", "1", NULL, "10.0.0.1", "file:///x.xml", &e, NULL), BT_OK);
	assert_int_equal(e.n_peers_ignored, 1); /* ROS_LOCALHOST_ONLY=1 drops them */
	char *d = btdds_env_describe(&e);
	assert_string_equal(d, "ROS_DOMAIN_ID=7 ROS_LOCALHOST_ONLY=1 ROS_STATIC_PEERS=10.0.0.1 "
			       "CYCLONEDDS_URI=file:///x.xml");
	free(d);
	btdds_env_fini(&e);
	assert_int_equal(env_of(NULL, NULL, NULL, NULL, NULL, &e, NULL), BT_OK);
	d = btdds_env_describe(&e);
	assert_non_null(strstr(d, "none of ROS_DOMAIN_ID"));
	free(d);
	btdds_env_fini(&e);
}

TU_MAIN(
	cmocka_unit_test(test_fragments),
	cmocka_unit_test(test_localhost_never_leaves_loopback),
	cmocka_unit_test(test_merged_with_uri),
	cmocka_unit_test(test_uri_interfaces),
	cmocka_unit_test(test_bad_values),
	cmocka_unit_test(test_describe))
