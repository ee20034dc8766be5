/* rec_qos: QoS adaptation to publishers (as rosbag2), requested <= offered
 * compatibility, and rosbag2's QoS override file. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_qos.h"
#include "test_util.h"

static struct rec_offered pub(int reliability, int durability)
{
	struct rec_offered p;
	memset(&p, 0, sizeof p);
	p.qos.history = BAG_HISTORY_KEEP_LAST;
	p.qos.depth = 10;
	p.qos.reliability = reliability;
	p.qos.durability = durability;
	p.qos.deadline = BAG_QOS_TIME_INFINITE;
	p.qos.lifespan = BAG_QOS_TIME_INFINITE;
	p.qos.liveliness = BAG_LIVELINESS_AUTOMATIC;
	p.qos.liveliness_lease_duration = BAG_QOS_TIME_INFINITE;
	return p;
}

#define REL BAG_RELIABILITY_RELIABLE
#define BE BAG_RELIABILITY_BEST_EFFORT
#define TL BAG_DURABILITY_TRANSIENT_LOCAL
#define VOL BAG_DURABILITY_VOLATILE

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

static void assert_defaults(const struct rec_requested *r)
{
	assert_false(r->keep_all);
	assert_int_equal(r->depth, REC_QOS_DEFAULT_DEPTH);
	assert_time(r->deadline, 9223372036u, 854775807u);
	assert_time(r->liveliness_lease_duration, 9223372036u, 854775807u);
	assert_int_equal(r->liveliness, BAG_LIVELINESS_AUTOMATIC);
	assert_false(r->overridden);
}

static void test_adapt_reliability_durability(void **state)
{
	(void)state;
	struct rec_requested r;
	struct rec_offered all_rel[] = {pub(REL, TL), pub(REL, TL)};
	rec_qos_adapt(all_rel, 2, NULL, false, &r);
	assert_true(r.reliable);
	assert_true(r.transient_local);
	assert_int_equal(r.n_partitions, 0);
	assert_null(r.partitions);
	assert_false(r.exclusive_ownership);
	assert_int_equal(r.latency_budget_ns, 0);
	assert_defaults(&r);
	for (size_t i = 0; i < 2; i++)
		assert_true(rec_qos_compatible(&r, &all_rel[i]));
	rec_requested_fini(&r);

	struct rec_offered mixed[] = {pub(REL, TL), pub(BE, TL), pub(REL, VOL)};
	rec_qos_adapt(mixed, 3, NULL, false, &r);
	assert_false(r.reliable);
	assert_false(r.transient_local);
	for (size_t i = 0; i < 3; i++)
		assert_true(rec_qos_compatible(&r, &mixed[i]));
	rec_requested_fini(&r);

	/* force_transient_local keeps the every-publisher rule. */
	rec_qos_adapt(mixed, 3, NULL, true, &r);
	assert_false(r.transient_local);
	rec_requested_fini(&r);
	rec_qos_adapt(all_rel, 2, NULL, true, &r);
	assert_true(r.transient_local);
	rec_requested_fini(&r);
}

static void test_adapt_no_publisher(void **state)
{
	(void)state;
	struct rec_requested r;
	/* rosbag2: Rosbag2QoS{} = reliable, volatile. */
	rec_qos_adapt(NULL, 0, NULL, false, &r);
	assert_true(r.reliable);
	assert_false(r.transient_local);
	assert_int_equal(r.n_partitions, 0);
	assert_false(r.exclusive_ownership);
	assert_int_equal(r.latency_budget_ns, 0);
	assert_defaults(&r);
	rec_requested_fini(&r);
	rec_qos_adapt(NULL, 0, NULL, true, &r);
	assert_true(r.reliable);
	assert_true(r.transient_local);
	rec_requested_fini(&r);
}

static void test_adapt_partitions_ownership_latency(void **state)
{
	(void)state;
	const char *pa[] = {"a", "b"};
	const char *pb[] = {"b", "c"};
	const char *pdef[] = {""};
	struct rec_offered p[] = {pub(REL, VOL), pub(REL, VOL), pub(REL, VOL), pub(REL, VOL)};
	p[0].partitions = pa;
	p[0].n_partitions = 2;
	p[0].latency_budget_ns = 5000;
	p[1].partitions = pb;
	p[1].n_partitions = 2;
	p[1].latency_budget_ns = 20000;
	p[2].latency_budget_ns = 100; /* default partition: none listed */
	p[3].partitions = pdef;       /* default partition: listed as "" */
	p[3].n_partitions = 1;
	struct rec_requested r;
	rec_qos_adapt(p, 2, NULL, false, &r);
	assert_int_equal(r.n_partitions, 3);
	assert_string_equal(r.partitions[0], "a");
	assert_string_equal(r.partitions[1], "b");
	assert_string_equal(r.partitions[2], "c");
	assert_int_equal(r.latency_budget_ns, 20000);
	rec_requested_fini(&r);
	assert_null(r.partitions);
	assert_int_equal(r.n_partitions, 0);

	rec_qos_adapt(p, 3, NULL, false, &r);
	assert_int_equal(r.n_partitions, 4);
	assert_string_equal(r.partitions[3], "");
	assert_int_equal(r.latency_budget_ns, 20000);
	for (size_t i = 0; i < 4; i++)
		assert_true(rec_qos_compatible(&r, &p[i]));
	rec_requested_fini(&r);

	/* Only the default partition: written as none. */
	rec_qos_adapt(p + 2, 2, NULL, false, &r);
	assert_int_equal(r.n_partitions, 0);
	assert_null(r.partitions);
	assert_int_equal(r.latency_budget_ns, 100);
	assert_true(rec_qos_compatible(&r, &p[3]));
	assert_false(rec_qos_compatible(&r, &p[0]));
	rec_requested_fini(&r);

	/* Ownership: exclusive only when every publisher is. */
	p[0].exclusive_ownership = p[1].exclusive_ownership = true;
	rec_qos_adapt(p, 2, NULL, false, &r);
	assert_true(r.exclusive_ownership);
	assert_false(rec_qos_compatible(&r, &p[2]));
	rec_requested_fini(&r);
	rec_qos_adapt(p, 3, NULL, false, &r);
	assert_false(r.exclusive_ownership);
	assert_false(rec_qos_compatible(&r, &p[0]));
	assert_true(rec_qos_compatible(&r, &p[2]));
	rec_requested_fini(&r);
}

static struct bag_qos ovr_none(void)
{
	struct bag_qos o;
	memset(&o, 0, sizeof o); /* all system_default, times unspecified */
	return o;
}

static void test_adapt_override(void **state)
{
	(void)state;
	struct rec_offered p[] = {pub(REL, TL)};
	struct rec_requested r;

	struct bag_qos o = ovr_none();
	rec_qos_adapt(p, 1, &o, false, &r);
	assert_true(r.overridden);
	assert_true(r.reliable);
	assert_true(r.transient_local);
	assert_false(r.keep_all);
	assert_int_equal(r.depth, REC_QOS_DEFAULT_DEPTH);
	assert_time(r.deadline, 9223372036u, 854775807u);
	assert_int_equal(r.liveliness, BAG_LIVELINESS_AUTOMATIC);
	rec_requested_fini(&r);

	o.reliability = BAG_RELIABILITY_BEST_EFFORT;
	o.durability = BAG_DURABILITY_VOLATILE;
	o.history = BAG_HISTORY_KEEP_LAST;
	o.depth = 7;
	o.deadline = (struct bag_qos_time){2, 500};
	o.liveliness = BAG_LIVELINESS_MANUAL_BY_TOPIC;
	o.liveliness_lease_duration = (struct bag_qos_time){3, 0};
	rec_qos_adapt(p, 1, &o, false, &r);
	assert_true(r.overridden);
	assert_false(r.reliable);
	assert_false(r.transient_local);
	assert_false(r.keep_all);
	assert_int_equal(r.depth, 7);
	assert_time(r.deadline, 2, 500);
	assert_int_equal(r.liveliness, BAG_LIVELINESS_MANUAL_BY_TOPIC);
	assert_time(r.liveliness_lease_duration, 3, 0);
	/* A manual-by-topic, 2 s deadline reader no longer matches an automatic
	 * publisher with an infinite deadline. */
	assert_false(rec_qos_compatible(&r, &p[0]));
	rec_requested_fini(&r);

	struct rec_offered be[] = {pub(BE, VOL)};
	o = ovr_none();
	o.reliability = BAG_RELIABILITY_RELIABLE;
	o.durability = BAG_DURABILITY_TRANSIENT_LOCAL;
	o.history = BAG_HISTORY_KEEP_ALL;
	rec_qos_adapt(be, 1, &o, false, &r);
	assert_true(r.reliable);
	assert_true(r.transient_local);
	assert_true(r.keep_all);
	assert_false(rec_qos_compatible(&r, &be[0]));
	rec_requested_fini(&r);

	o = ovr_none();
	o.reliability = BAG_RELIABILITY_BEST_AVAILABLE;
	o.durability = BAG_DURABILITY_BEST_AVAILABLE;
	o.depth = 3; /* a depth alone: keep_last 3 */
	rec_qos_adapt(p, 1, &o, false, &r);
	assert_true(r.reliable);
	assert_true(r.transient_local);
	assert_false(r.keep_all);
	assert_int_equal(r.depth, 3);
	rec_requested_fini(&r);
}

static void test_compatible(void **state)
{
	(void)state;
	struct rec_offered w = pub(REL, TL);
	struct rec_requested r;
	rec_qos_adapt(&w, 1, NULL, false, &r);
	assert_true(rec_qos_compatible(&r, &w));

	struct rec_offered be = pub(BE, TL);
	assert_false(rec_qos_compatible(&r, &be));
	struct rec_offered vol = pub(REL, VOL);
	assert_false(rec_qos_compatible(&r, &vol));
	r.reliable = false;
	r.transient_local = false;
	assert_true(rec_qos_compatible(&r, &be));
	assert_true(rec_qos_compatible(&r, &vol));

	struct rec_offered x = w;
	x.exclusive_ownership = true;
	assert_false(rec_qos_compatible(&r, &x));

	x = w;
	x.latency_budget_ns = 10;
	assert_false(rec_qos_compatible(&r, &x));
	r.latency_budget_ns = 10;
	assert_true(rec_qos_compatible(&r, &x));
	r.latency_budget_ns = 0;

	x = w;
	x.qos.deadline = (struct bag_qos_time){1, 0};
	assert_true(rec_qos_compatible(&r, &x)); /* infinite reader deadline */
	r.deadline = (struct bag_qos_time){0, 999999999};
	assert_false(rec_qos_compatible(&r, &x));
	r.deadline = (struct bag_qos_time){1, 0};
	assert_true(rec_qos_compatible(&r, &x));
	r.deadline = BAG_QOS_TIME_INFINITE;

	x = w;
	x.qos.liveliness_lease_duration = (struct bag_qos_time){5, 0};
	assert_true(rec_qos_compatible(&r, &x));
	r.liveliness_lease_duration = (struct bag_qos_time){4, 0};
	assert_false(rec_qos_compatible(&r, &x));
	r.liveliness_lease_duration = BAG_QOS_TIME_INFINITE;
	x.qos.liveliness = BAG_LIVELINESS_MANUAL_BY_TOPIC;
	assert_true(rec_qos_compatible(&r, &x)); /* automatic <= manual */
	r.liveliness = BAG_LIVELINESS_MANUAL_BY_TOPIC;
	assert_true(rec_qos_compatible(&r, &x));
	assert_false(rec_qos_compatible(&r, &w)); /* manual reader, automatic writer */
	r.liveliness = BAG_LIVELINESS_AUTOMATIC;

	const char *pa[] = {"a"};
	const char *pstar[] = {"sensor*"};
	const char *pcam[] = {"sensors"};
	x = w;
	x.partitions = pa;
	x.n_partitions = 1;
	assert_false(rec_qos_compatible(&r, &x)); /* default vs "a" */
	x.partitions = pstar;
	assert_false(rec_qos_compatible(&r, &x));
	char sensors[] = "sensors";
	char *rp[] = {sensors};
	r.partitions = rp;
	r.n_partitions = 1;
	assert_true(rec_qos_compatible(&r, &x)); /* wildcard */
	x.partitions = pcam;
	assert_true(rec_qos_compatible(&r, &x));
	x.n_partitions = 0;
	assert_false(rec_qos_compatible(&r, &x));
	r.partitions = NULL;
	r.n_partitions = 0;
	rec_requested_fini(&r);
}

/* ---- override files ---- */

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
static struct rec_qos_overrides *load(const char *text, bt_status code, const char *want)
{
	struct ovfile f = ovfile_write(text);
	struct rec_qos_overrides *o = NULL;
	struct bt_error err = {0};
	bt_status st = rec_qos_overrides_load(f.path, &o, &err);
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
	struct rec_qos_overrides *o = load(ROSBAG2_EXAMPLE, BT_OK, NULL);
	assert_non_null(o);

	const struct bag_qos *q = rec_qos_overrides_find(o, "rt/topic_name", "/topic_name");
	assert_qos(q, &(struct bag_qos){.history = BAG_HISTORY_KEEP_LAST, .depth = 10,
					.reliability = REL, .durability = VOL,
					.liveliness = BAG_LIVELINESS_SYSTEM_DEFAULT});
	assert_qos(rec_qos_overrides_find(o, "rt/tf_static", "/tf_static"),
		   &(struct bag_qos){.history = BAG_HISTORY_KEEP_ALL, .reliability = BE,
				     .durability = TL, .deadline = {2, 500000000},
				     .liveliness = BAG_LIVELINESS_MANUAL_BY_TOPIC,
				     .liveliness_lease_duration = {3, 0},
				     .avoid_ros_namespace_conventions = true});

	const struct bag_qos *dds = rec_qos_overrides_find(o, "DDSPerfRDataKS", NULL);
	assert_non_null(dds);
	assert_int_equal(dds->history, BAG_HISTORY_SYSTEM_DEFAULT);
	assert_int_equal(dds->reliability, BAG_RELIABILITY_SYSTEM_DEFAULT);

	assert_null(rec_qos_overrides_find(o, "rt/other", "/other"));
	assert_null(rec_qos_overrides_find(o, "topic_name", NULL));
	assert_null(rec_qos_overrides_find(NULL, "rt/topic_name", "/topic_name"));

	/* The README profile on a best-effort transient-local publisher:
	 * reliable volatile keep_last 10, times left infinite. */
	struct rec_offered p = pub(BE, TL);
	struct rec_requested r;
	rec_qos_adapt(&p, 1, q, false, &r);
	assert_true(r.overridden);
	assert_true(r.reliable);
	assert_false(r.transient_local);
	assert_false(r.keep_all);
	assert_int_equal(r.depth, 10);
	assert_time(r.deadline, 9223372036u, 854775807u);
	assert_time(r.liveliness_lease_duration, 9223372036u, 854775807u);
	assert_int_equal(r.liveliness, BAG_LIVELINESS_AUTOMATIC);
	rec_requested_fini(&r);
	rec_qos_overrides_free(o);
}

static void test_overrides_empty(void **state)
{
	(void)state;
	static const char *const empties[] = {"", "# only a comment\n\n", "---\n", "~\n", "{}\n"};
	for (size_t i = 0; i < sizeof empties / sizeof empties[0]; i++) {
		struct rec_qos_overrides *o = load(empties[i], BT_OK, NULL);
		assert_non_null(o);
		assert_null(rec_qos_overrides_find(o, "rt/a", "/a"));
		rec_qos_overrides_free(o);
	}
	struct rec_qos_overrides *o = load("/a: {}\n", BT_OK, NULL);
	assert_non_null(rec_qos_overrides_find(o, "rt/a", "/a"));
	rec_qos_overrides_free(o);
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
	struct rec_qos_overrides *o = NULL;
	struct bt_error err = {0};
	assert_int_equal(rec_qos_overrides_load(path, &o, &err), BT_ERR_NOTFOUND);
	assert_null(o);
	assert_non_null(strstr(err.msg, path));
	assert_null(strchr(err.msg, '\n'));
	free(path);
	tu_rmrf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_adapt_reliability_durability),
		cmocka_unit_test(test_adapt_no_publisher),
		cmocka_unit_test(test_adapt_partitions_ownership_latency),
		cmocka_unit_test(test_adapt_override),
		cmocka_unit_test(test_compatible),
		cmocka_unit_test(test_overrides_rosbag2_example),
		cmocka_unit_test(test_overrides_empty),
		cmocka_unit_test(test_overrides_errors),
		cmocka_unit_test(test_overrides_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
