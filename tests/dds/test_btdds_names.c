#include <stdlib.h>
#include <string.h>

#include "btdds_names.h"
#include "btdds_qos.h"
#include "test_bag.h"

static void expect(char *got, const char *want)
{
	if (!want) {
		assert_null(got);
		return;
	}
	assert_non_null(got);
	assert_string_equal(got, want);
	free(got);
}

static void test_topics(void **state)
{
	(void)state;
	expect(btdds_names_ros_topic("rt/chatter"), "/chatter");
	expect(btdds_names_ros_topic("rt/ns/x"), "/ns/x");
	expect(btdds_names_ros_topic("rt/"), NULL);
	expect(btdds_names_ros_topic("rq/add_two_intsRequest"), NULL);
	expect(btdds_names_ros_topic("DDSPerfRDataKS"), NULL);
	expect(btdds_names_dds_topic("/chatter"), "rt/chatter");
	expect(btdds_names_dds_topic("rt/chatter"), "rt/chatter");
	expect(btdds_names_dds_topic("DDSPerfRDataKS"), "DDSPerfRDataKS");
	assert_true(btdds_names_is_internal("ros_discovery_info"));
	assert_true(btdds_names_is_internal("DCPSPublication"));
	assert_false(btdds_names_is_internal("rt/chatter"));
	assert_true(btdds_names_is_internal("BagtopStatistics"));
	assert_true(btdds_names_is_internal("BagtopLossEvents"));
}

static void test_types(void **state)
{
	(void)state;
	expect(btdds_names_ros_type("std_msgs::msg::dds_::String_"), "std_msgs/msg/String");
	expect(btdds_names_ros_type("example_interfaces::srv::dds_::AddTwoInts_Request_"),
	       "example_interfaces/srv/AddTwoInts_Request");
	expect(btdds_names_ros_type("KeyedSeq"), NULL);
	expect(btdds_names_ros_type("spike::App"), NULL);
	expect(btdds_names_ros_type("pkg::msg::dds_::T"), NULL); /* no trailing '_' */
	expect(btdds_names_dds_type("std_msgs/msg/String"), "std_msgs::msg::dds_::String_");
	expect(btdds_names_dds_type("example_interfaces/srv/AddTwoInts_Request"),
	       "example_interfaces::srv::dds_::AddTwoInts_Request_");
	expect(btdds_names_dds_type("KeyedSeq"), NULL);
	expect(btdds_names_dds_type("/x"), NULL);
	expect(btdds_names_dds_type("a//b"), NULL);
	expect(btdds_names_dds_type("a/b/"), NULL);
	char *round = btdds_names_dds_type("geometry_msgs/msg/TransformStamped");
	expect(btdds_names_ros_type(round), "geometry_msgs/msg/TransformStamped");
	free(round);
}

static void expect_names(const struct btdds_topic_names *n, const char *name, const char *type,
			 const char *dds_name, const char *dds_type)
{
	assert_string_equal(n->name, name);
	assert_string_equal(n->type, type);
	assert_string_equal(n->dds_name, dds_name);
	assert_string_equal(n->dds_type, dds_type);
}

/* A discovered topic keeps its DDS names as recorded unless both its
 * name and type demangle; a bag's topic goes back to the same DDS names. */
static void test_topic_names(void **state)
{
	(void)state;
	struct btdds_topic_names n;
	assert_true(btdds_topic_names_init_dds(&n, "rt/chatter", "std_msgs::msg::dds_::String_"));
	expect_names(&n, "/chatter", "std_msgs/msg/String", "rt/chatter",
		     "std_msgs::msg::dds_::String_");
	btdds_topic_names_fini(&n);
	assert_false(btdds_topic_names_init_dds(&n, "rt/keyed", "KeyedSeq"));
	expect_names(&n, "rt/keyed", "KeyedSeq", "rt/keyed", "KeyedSeq");
	btdds_topic_names_fini(&n);
	assert_true(btdds_topic_names_init_bag(&n, "/chatter", "std_msgs/msg/String"));
	expect_names(&n, "/chatter", "std_msgs/msg/String", "rt/chatter",
		     "std_msgs::msg::dds_::String_");
	btdds_topic_names_fini(&n);
	assert_true(btdds_topic_names_init_bag(&n, "/odd", "Odd")); /* not a ROS type */
	expect_names(&n, "/odd", "Odd", "rt/odd", "Odd");
	btdds_topic_names_fini(&n);
	assert_false(btdds_topic_names_init_bag(&n, "rt/keyed", "KeyedSeq"));
	expect_names(&n, "rt/keyed", "KeyedSeq", "rt/keyed", "KeyedSeq");
	btdds_topic_names_fini(&n);
}

/* A profile through a writer's QoS and back is the same profile. */
static void test_qos_round_trip(void **state)
{
	(void)state;
	struct bag_qos b =
		tb_qos_keep_last(7, BAG_RELIABILITY_RELIABLE, BAG_DURABILITY_TRANSIENT_LOCAL);
	b.liveliness = BAG_LIVELINESS_AUTOMATIC;
	b.deadline = (struct bag_qos_time){1, 5};
	dds_qos_t *q = dds_create_qos();
	btdds_qos_to_dds(&b, q);
	struct bag_qos back;
	btdds_qos_from_dds(q, &back);
	assert_true(btdds_qos_equal(&b, &back));
	b.reliability = BAG_RELIABILITY_BEST_EFFORT;
	b.durability = BAG_DURABILITY_VOLATILE;
	b.depth = 0; /* rmw's default depth */
	btdds_qos_to_dds(&b, q);
	btdds_qos_from_dds(q, &back);
	assert_false(btdds_qos_equal(&b, &back));
	assert_int_equal(back.depth, 10);
	assert_int_equal(back.reliability, BAG_RELIABILITY_BEST_EFFORT);
	assert_int_equal(back.durability, BAG_DURABILITY_VOLATILE);
	dds_delete_qos(q);
	/* {0, 0} is rmw's "unspecified": the DDS default (infinite), never a
	 * zero deadline or lease that would fire without end */
	b.deadline = b.lifespan = b.liveliness_lease_duration = (struct bag_qos_time){0, 0};
	q = dds_create_qos();
	btdds_qos_to_dds(&b, q);
	dds_duration_t d = 0;
	dds_liveliness_kind_t lk;
	assert_false(dds_qget_deadline(q, &d));
	assert_false(dds_qget_lifespan(q, &d));
	assert_true(dds_qget_liveliness(q, &lk, &d));
	assert_int_equal(d, DDS_INFINITY);
	dds_delete_qos(q);
	assert_int_equal(btdds_qos_duration(BAG_QOS_TIME_INFINITE), DDS_INFINITY);
	assert_int_equal(btdds_qos_time(DDS_SECS(2)).sec, 2);
}

TU_MAIN(
	cmocka_unit_test(test_topics),
	cmocka_unit_test(test_types),
	cmocka_unit_test(test_topic_names),
	cmocka_unit_test(test_qos_round_trip))
