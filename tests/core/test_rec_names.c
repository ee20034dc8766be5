#include <stdlib.h>
#include <string.h>

#include "rec_names.h"
#include "test_util.h"

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
	expect(rec_names_ros_topic("rt/chatter"), "/chatter");
	expect(rec_names_ros_topic("rt/ns/x"), "/ns/x");
	expect(rec_names_ros_topic("rt/"), NULL);
	expect(rec_names_ros_topic("rq/add_two_intsRequest"), NULL);
	expect(rec_names_ros_topic("DDSPerfRDataKS"), NULL);
	expect(rec_names_dds_topic("/chatter"), "rt/chatter");
	expect(rec_names_dds_topic("rt/chatter"), "rt/chatter");
	expect(rec_names_dds_topic("DDSPerfRDataKS"), "DDSPerfRDataKS");
	assert_true(rec_names_is_internal("ros_discovery_info"));
	assert_true(rec_names_is_internal("DCPSPublication"));
	assert_false(rec_names_is_internal("rt/chatter"));
	assert_true(rec_names_is_internal("BagtopStatistics"));
	assert_true(rec_names_is_internal("BagtopLossEvents"));
}

static void test_types(void **state)
{
	(void)state;
	expect(rec_names_ros_type("std_msgs::msg::dds_::String_"), "std_msgs/msg/String");
	expect(rec_names_ros_type("example_interfaces::srv::dds_::AddTwoInts_Request_"),
	       "example_interfaces/srv/AddTwoInts_Request");
	expect(rec_names_ros_type("KeyedSeq"), NULL);
	expect(rec_names_ros_type("spike::App"), NULL);
	expect(rec_names_ros_type("pkg::msg::dds_::T"), NULL); /* no trailing '_' */
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_topics),
					   cmocka_unit_test(test_types)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
