/* rec_qos: QoS adaptation to publishers (as rosbag2), with an override
 * profile applied, and requested <= offered compatibility. (The override
 * file's parser: tests/dds/test_btdds_qos_overrides.c.) */
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

/* rosbag2's README override profile (as btdds_qos_overrides loads it) on a
 * best-effort transient-local publisher: reliable volatile keep_last 10,
 * times left infinite. */
static void test_adapt_readme_profile(void **state)
{
	(void)state;
	struct bag_qos q = ovr_none();
	q.history = BAG_HISTORY_KEEP_LAST;
	q.depth = 10;
	q.reliability = REL;
	q.durability = VOL;
	struct rec_offered p = pub(BE, TL);
	struct rec_requested r;
	rec_qos_adapt(&p, 1, &q, false, &r);
	assert_true(r.overridden);
	assert_true(r.reliable);
	assert_false(r.transient_local);
	assert_false(r.keep_all);
	assert_int_equal(r.depth, 10);
	assert_time(r.deadline, 9223372036u, 854775807u);
	assert_time(r.liveliness_lease_duration, 9223372036u, 854775807u);
	assert_int_equal(r.liveliness, BAG_LIVELINESS_AUTOMATIC);
	rec_requested_fini(&r);
}

TU_MAIN(
	cmocka_unit_test(test_adapt_reliability_durability),
	cmocka_unit_test(test_adapt_no_publisher),
	cmocka_unit_test(test_adapt_partitions_ownership_latency),
	cmocka_unit_test(test_adapt_override),
	cmocka_unit_test(test_compatible),
	cmocka_unit_test(test_adapt_readme_profile))
