/* btdds_qos_overrides: rosbag2's QoS override file (record's and play's
 * --qos-profile-overrides-path), its example, empty files, every error. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btdds_qos_overrides.h"
#include "test_util.h"

static void assert_time(struct bag_qos_time t, uint64_t sec, uint64_t nsec)
{
	assert_int_equal(t.sec, sec);
	assert_int_equal(t.nsec, nsec);
}

/* Every field of q is want's. */
static void assert_qos(const struct bag_qos *q, const struct bag_qos *want)
{
	assert_non_null(q);
	assert_int_equal(q->history, want->history);
	assert_int_equal(q->depth, want->depth);
	assert_int_equal(q->reliability, want->reliability);
	assert_int_equal(q->durability, want->durability);
	assert_time(q->deadline, want->deadline.sec, want->deadline.nsec);
	assert_time(q->lifespan, want->lifespan.sec, want->lifespan.nsec);
	assert_int_equal(q->liveliness, want->liveliness);
	assert_time(q->liveliness_lease_duration, want->liveliness_lease_duration.sec,
		    want->liveliness_lease_duration.nsec);
	assert_int_equal(q->avoid_ros_namespace_conventions,
			 want->avoid_ros_namespace_conventions);
}

struct ovfile {
	char *dir;
	char *path;
};

static struct ovfile ovfile_write(const char *text)
{
	struct ovfile f;
	f.dir = tu_mkdtemp("qos");
	size_t n = strlen(f.dir) + 16;
	f.path = malloc(n);
	assert_non_null(f.path);
	snprintf(f.path, n, "%s/ovr.yaml", f.dir);
	tu_write_file(f.path, text, strlen(text));
	return f;
}

static void ovfile_remove(struct ovfile *f)
{
	tu_rmrf(f->dir);
	free(f->dir);
	free(f->path);
}

/* Loads `text`; expects `code` and, on error, a message that is exactly
 * "<path>:<want>". */
static struct btdds_qos_overrides *load(const char *text, bt_status code, const char *want)
{
	struct ovfile f = ovfile_write(text);
	struct btdds_qos_overrides *o = NULL;
	struct bt_error err = {0};
	bt_status st = btdds_qos_overrides_load(f.path, &o, &err);
	if (st != code)
		fail_msg("status %d, want %d (%s)", st, code, err.msg);
	if (code != BT_OK) {
		char full[BT_ERROR_MSG_MAX];
		snprintf(full, sizeof full, "%s:%s", f.path, want);
		assert_string_equal(err.msg, full);
		assert_null(o);
	}
	ovfile_remove(&f);
	return o;
}

/* rosbag2's README example, a second topic given by DDS name, and some
 * variations rosbag2 also accepts. */
static const char ROSBAG2_EXAMPLE[] =
	"/topic_name:\n"
	"  history: keep_last\n"
	"  depth: 10\n"
	"  reliability: reliable\n"
	"  durability: volatile\n"
	"  deadline:\n"
	"    # unspecified/infinity\n"
	"    sec: 0\n"
	"    nsec: 0\n"
	"  lifespan:\n"
	"    # unspecified/infinity\n"
	"    sec: 0\n"
	"    nsec: 0\n"
	"  liveliness: system_default\n"
	"  liveliness_lease_duration:\n"
	"    # unspecified/infinity\n"
	"    sec: 0\n"
	"    nsec: 0\n"
	"  avoid_ros_namespace_conventions: false\n"
	"rt/tf_static:\n"
	"  history: keep_all\n"
	"  reliability: best_effort\n"
	"  durability: transient_local\n"
	"  deadline: {sec: 1, nsec: 1500000000}\n"
	"  liveliness: manual_by_topic\n"
	"  liveliness_lease_duration: {sec: 3, nsec: 0}\n"
	"  avoid_ros_namespace_conventions: true\n"
	"DDSPerfRDataKS: {reliability: system_default}\n";

static void test_overrides_rosbag2_example(void **state)
{
	(void)state;
	struct btdds_qos_overrides *o = load(ROSBAG2_EXAMPLE, BT_OK, NULL);
	assert_non_null(o);

	const struct bag_qos *q = btdds_qos_overrides_find(o, "rt/topic_name", "/topic_name");
	assert_qos(q, &(struct bag_qos){.history = BAG_HISTORY_KEEP_LAST, .depth = 10,
					.reliability = BAG_RELIABILITY_RELIABLE,
					.durability = BAG_DURABILITY_VOLATILE,
					.liveliness = BAG_LIVELINESS_SYSTEM_DEFAULT});
	assert_qos(btdds_qos_overrides_find(o, "rt/tf_static", "/tf_static"),
		   &(struct bag_qos){.history = BAG_HISTORY_KEEP_ALL,
				     .reliability = BAG_RELIABILITY_BEST_EFFORT,
				     .durability = BAG_DURABILITY_TRANSIENT_LOCAL,
				     .deadline = {2, 500000000},
				     .liveliness = BAG_LIVELINESS_MANUAL_BY_TOPIC,
				     .liveliness_lease_duration = {3, 0},
				     .avoid_ros_namespace_conventions = true});

	const struct bag_qos *dds = btdds_qos_overrides_find(o, "DDSPerfRDataKS", NULL);
	assert_non_null(dds);
	assert_int_equal(dds->history, BAG_HISTORY_SYSTEM_DEFAULT);
	assert_int_equal(dds->reliability, BAG_RELIABILITY_SYSTEM_DEFAULT);

	assert_null(btdds_qos_overrides_find(o, "rt/other", "/other"));
	assert_null(btdds_qos_overrides_find(o, "topic_name", NULL));
	assert_null(btdds_qos_overrides_find(NULL, "rt/topic_name", "/topic_name"));
	btdds_qos_overrides_free(o);
}

static void test_overrides_empty(void **state)
{
	(void)state;
	static const char *const empties[] = {"", "# only a comment\n\n", "---\n", "~\n", "{}\n"};
	for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
		struct btdds_qos_overrides *o = load(empties[i], BT_OK, NULL);
		assert_non_null(o);
		assert_null(btdds_qos_overrides_find(o, "rt/a", "/a"));
		btdds_qos_overrides_free(o);
	}
	struct btdds_qos_overrides *o = load("/a: {}\n", BT_OK, NULL);
	assert_non_null(btdds_qos_overrides_find(o, "rt/a", "/a"));
	btdds_qos_overrides_free(o);
}

static void test_overrides_errors(void **state)
{
	(void)state;
	load("/t:\n  depth: 5\n  relability: reliable\n", BT_ERR_FORMAT,
	     "3: unknown QoS key 'relability' for topic '/t'");
	load("/a:\n  depth: 1\n/t:\n  reliability: sometimes\n", BT_ERR_FORMAT,
	     "4: bad value 'sometimes' for reliability of topic '/t': "
	     "reliable, best_effort, best_available or system_default");
	load("/t:\n  durability: unknown\n", BT_ERR_FORMAT,
	     "2: bad value 'unknown' for durability of topic '/t': "
	     "volatile, transient_local, best_available or system_default");
	load("/t:\n  history: keep_some\n", BT_ERR_FORMAT,
	     "2: bad value 'keep_some' for history of topic '/t': "
	     "keep_last, keep_all or system_default");
	load("/t:\n  depth: -1\n", BT_ERR_FORMAT,
	     "2: bad value '-1' for depth of topic '/t': an integer 0..2147483647");
	load("/t:\n  depth: [1]\n", BT_ERR_FORMAT, "2: depth of topic '/t' must be a value");
	load("/t:\n  avoid_ros_namespace_conventions: maybe\n", BT_ERR_FORMAT,
	     "2: bad value 'maybe' for avoid_ros_namespace_conventions of topic '/t': "
	     "true or false");
	load("/t:\n  deadline: {sec: 1}\n", BT_ERR_FORMAT,
	     "2: deadline of topic '/t' needs both sec and nsec");
	load("/t:\n  deadline: {sec: 1, nsec: 0, usec: 3}\n", BT_ERR_FORMAT,
	     "2: bad key 'usec' for deadline of topic '/t': sec or nsec");
	load("/t:\n  lifespan: 5\n", BT_ERR_FORMAT,
	     "2: lifespan of topic '/t' must be {sec: S, nsec: N}");
	load("/t:\n  deadline: {sec: {a: {b: 1}}, nsec: 0}\n", BT_ERR_FORMAT,
	     "2: deadline of topic '/t' must be a value");
	load("/t: reliable\n", BT_ERR_FORMAT,
	     "1: the QoS profile of topic '/t' must be a mapping");
	load("- /t\n", BT_ERR_FORMAT, "1: expected a mapping of topic names to QoS profiles");
	load("/t: {depth: 1}\n/t: {depth: 2}\n", BT_ERR_FORMAT, "2: topic '/t' is given twice");
	load("/t: &p {depth: 1}\n/u: *p\n", BT_ERR_FORMAT, "2: YAML aliases are not supported");
	load("/t: {depth: 1}\n---\n/u: {depth: 2}\n", BT_ERR_FORMAT,
	     "2: only one YAML document is allowed");
	load("/t:\n  depth: 1\n bad indent: [\n", BT_ERR_FORMAT,
	     "3: YAML error: did not find expected key");
	/* Deep nesting is refused where the first level too many appears. */
	load("/t:\n  history: [[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"
	     "]]]]]]]]]]]\n",
	     BT_ERR_FORMAT, "2: history of topic '/t' must be a value");
}

static void test_overrides_missing(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp("qos");
	size_t n = strlen(dir) + 16;
	char *path = malloc(n);
	assert_non_null(path);
	snprintf(path, n, "%s/none.yaml", dir);
	struct btdds_qos_overrides *o = NULL;
	struct bt_error err = {0};
	assert_int_equal(btdds_qos_overrides_load(path, &o, &err), BT_ERR_NOTFOUND);
	assert_null(o);
	assert_non_null(strstr(err.msg, path));
	assert_null(strchr(err.msg, '\n'));
	free(path);
	tu_rmrf(dir);
	free(dir);
}

TU_MAIN(
	cmocka_unit_test(test_overrides_rosbag2_example),
	cmocka_unit_test(test_overrides_empty),
	cmocka_unit_test(test_overrides_errors),
	cmocka_unit_test(test_overrides_missing))
