/* btdds_select: which topics `bagtop record` (and play, convert) takes, case by case, against
 * rosbag2 Jazzy's TopicFilter::take_topic; with topic types (--topic-types,
 * --exclude-topic-types) and services (--services, --all-services,
 * --all-topics, --exclude-services) too. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "btdds_select.h"
#include "test_util.h"

#define MAXN 6
#define MAXT 16

struct probe {
	const char *dds;
	const char *ros; /* NULL: not a ROS topic */
	bool want;
	const char *type; /* as a bag names it; NULL: unknown */
};

struct select_case {
	const char *name;
	const char *topics[MAXN];
	bool all;
	const char *regex;
	const char *exclude_regex;
	const char *excludes[MAXN];
	bool hidden;
	bool services;
	const char *types[MAXN];  /* --topic-types */
	const char *xtypes[MAXN]; /* --exclude-topic-types */
	const char *svcs[MAXN];   /* --services */
	const char *xsvcs[MAXN];  /* --exclude-services */
	bool all_topics, all_services;
	struct probe probes[MAXT];
};

static size_t count(const char *const *v)
{
	size_t n = 0;
	while (n < MAXN && v[n] != NULL)
		n++;
	return n;
}

static const struct select_case cases[] = {
	{.name = "explicit ROS and DDS names",
	 .topics = {"/chatter", "rt/odom", "DDSPerfRDataKS"},
	 .probes = {{"rt/chatter", "/chatter", true},
		    {"rt/odom", "/odom", true},
		    {"DDSPerfRDataKS", NULL, true},
		    {"rt/chatter2", "/chatter2", false}, /* names are exact */
		    {"rt/DDSPerfRDataKS", "/DDSPerfRDataKS", false},
		    {"chatter", NULL, false},
		    {"rt/rosout", "/rosout", false},
		    {"ros_discovery_info", NULL, false}}},
	{.name = "-a: everything but hidden, rpc and internal",
	 .all = true,
	 .probes = {{"rt/chatter", "/chatter", true},
		    {"rt/rosout", "/rosout", true},
		    {"rt/parameter_events", "/parameter_events", true},
		    {"DDSPerfRDataKS", NULL, true},
		    {"rt/_hidden", "/_hidden", false},
		    {"rt/ns/_private/x", "/ns/_private/x", false},
		    {"rt/fib/_action/feedback", "/fib/_action/feedback", false},
		    {"rt/a_b/c_", "/a_b/c_", true}, /* '_' not at a token start */
		    {"rt/svc/_service_event", "/svc/_service_event", true},
		    {"rq/add_two_intsRequest", NULL, false},
		    {"rr/add_two_intsReply", NULL, false},
		    {"ros_discovery_info", NULL, false},
		    {"DCPSPublication", NULL, false}}},
	{.name = "-a --include-hidden-topics",
	 .all = true,
	 .hidden = true,
	 .probes = {{"rt/_hidden", "/_hidden", true},
		    {"rt/fib/_action/feedback", "/fib/_action/feedback", true},
		    {"rq/add_two_intsRequest", NULL, false},
		    {"ros_discovery_info", NULL, false}}},
	{.name = "-a with services",
	 .all = true,
	 .services = true,
	 .probes = {{"rq/add_two_intsRequest", NULL, true},
		    {"rr/add_two_intsReply", NULL, true},
		    {"rt/chatter", "/chatter", true}}},
	{.name = "hidden explicit topic needs --include-hidden-topics (as rosbag2)",
	 .topics = {"/_secret", "/chatter"},
	 .probes = {{"rt/_secret", "/_secret", false}, {"rt/chatter", "/chatter", true}}},
	{.name = "hidden explicit topic with --include-hidden-topics",
	 .topics = {"/_secret"},
	 .hidden = true,
	 .probes = {{"rt/_secret", "/_secret", true}}},
	{.name = "-e is searched for, in ROS and DDS names",
	 .regex = "chat",
	 .probes = {{"rt/chatter", "/chatter", true},
		    {"rt/my_chat/x", "/my_chat/x", true},
		    {"rt/odom", "/odom", false},
		    {"DDSchatKS", NULL, true},
		    {"rt/_chat", "/_chat", false}, /* hidden */
		    {"rq/chatRequest", NULL, false}}},
	{.name = "-e anchored to the ROS name or the DDS name",
	 .regex = "^/o",
	 .probes = {{"rt/odom", "/odom", true},
		    {"rt/map", "/map", false},
		    {"o_dds", NULL, false}}},
	{.name = "-e ^rt/ matches the DDS name of ROS topics",
	 .regex = "^rt/(odom|map)$",
	 .probes = {{"rt/odom", "/odom", true},
		    {"rt/map", "/map", true},
		    {"rt/map2", "/map2", false}}},
	{.name = "-e united with explicit topics (Jazzy)",
	 .topics = {"/odom"},
	 .regex = "^/cam",
	 .probes = {{"rt/odom", "/odom", true},
		    {"rt/camera/image", "/camera/image", true},
		    {"rt/map", "/map", false}}},
	{.name = "-e matches the service name of a service event",
	 .regex = "^/add_two_ints$",
	 .probes = {{"rt/add_two_ints/_service_event", "/add_two_ints/_service_event", true},
		    {"rq/add_two_intsRequest", NULL, false}}},
	{.name = "-e on rpc topics with services",
	 .regex = "^/add_two_ints$",
	 .services = true,
	 .probes = {{"rq/add_two_intsRequest", NULL, true},
		    {"rr/add_two_intsReply", NULL, true},
		    {"rq/add_two_ints_fooRequest", NULL, false}}},
	{.name = "-a -x",
	 .all = true,
	 .exclude_regex = "^/(rosout|parameter_events)$|Perf",
	 .probes = {{"rt/chatter", "/chatter", true},
		    {"rt/rosout", "/rosout", false},
		    {"rt/parameter_events", "/parameter_events", false},
		    {"DDSPerfRDataKS", NULL, false},
		    {"rt/rosout_agg", "/rosout_agg", true}}},
	{.name = "-x applies to explicit topics too (topic_filter.cpp)",
	 .topics = {"/chatter", "/odom"},
	 .exclude_regex = "odo",
	 .probes = {{"rt/chatter", "/chatter", true}, {"rt/odom", "/odom", false}}},
	{.name = "-x on service events uses the service name",
	 .all = true,
	 .exclude_regex = "^/add_two_ints$",
	 .probes = {{"rt/add_two_ints/_service_event", "/add_two_ints/_service_event", false},
		    {"rt/add_two_ints", "/add_two_ints", false},
		    {"rt/add", "/add", true}}},
	{.name = "-e and -x",
	 .regex = "^/cam",
	 .exclude_regex = "compressed",
	 .probes = {{"rt/camera/image", "/camera/image", true},
		    {"rt/camera/image/compressed", "/camera/image/compressed", false}}},
	{.name = "--exclude-topics by ROS or DDS name",
	 .all = true,
	 .excludes = {"/rosout", "rt/parameter_events", "DDSPerfRDataKS"},
	 .probes = {{"rt/rosout", "/rosout", false},
		    {"rt/parameter_events", "/parameter_events", false},
		    {"DDSPerfRDataKS", NULL, false},
		    {"DDSPerfRDataKS2", NULL, true},
		    {"rt/rosout2", "/rosout2", true}}},
	{.name = "--exclude-topics beats an explicit topic",
	 .topics = {"/a", "/b"},
	 .excludes = {"/b"},
	 .probes = {{"rt/a", "/a", true}, {"rt/b", "/b", false}}},
	{.name = "explicit rpc topic without services",
	 .topics = {"rq/add_two_intsRequest"},
	 .probes = {{"rq/add_two_intsRequest", NULL, true},
		    {"rr/add_two_intsReply", NULL, false}}},
	{.name = "--topic-types: ROS and DDS spellings, plain DDS types",
	 .types = {"sensor_msgs/msg/Imu", "sensor_msgs::msg::dds_::LaserScan_", "DemoRobotStatus"},
	 .probes = {{"rt/imu", "/imu", true, "sensor_msgs/msg/Imu"},
		    {"rt/scan", "/scan", true, "sensor_msgs/msg/LaserScan"},
		    {"DemoRobotStatus", NULL, true, "DemoRobotStatus"},
		    {"rt/chatter", "/chatter", false, "std_msgs/msg/String"},
		    {"rt/imu", "/imu", false, NULL}, /* the type unknown: no type rule */
		    {"rt/imu", "/imu", false, "sensor_msgs/msg/Imu2"},
		    {"rt/_imu", "/_imu", false, "sensor_msgs/msg/Imu"}}}, /* hidden */
	{.name = "--topic-types adds to explicit topics and -e",
	 .topics = {"/chatter"},
	 .regex = "scan",
	 .types = {"sensor_msgs/msg/Imu"},
	 .probes = {{"rt/chatter", "/chatter", true, "std_msgs/msg/String"},
		    {"rt/laser_scan", "/laser_scan", true, "sensor_msgs/msg/LaserScan"},
		    {"rt/imu", "/imu", true, "sensor_msgs/msg/Imu"},
		    {"rt/odom", "/odom", false, "nav_msgs/msg/Odometry"}}},
	{.name = "--exclude-topic-types beats -a and an explicit topic",
	 .all = true,
	 .topics = {"/imu2"},
	 .xtypes = {"sensor_msgs::msg::dds_::Imu_", "DemoRobotStatus"},
	 .probes = {{"rt/imu", "/imu", false, "sensor_msgs/msg/Imu"},
		    {"rt/imu2", "/imu2", false, "sensor_msgs/msg/Imu"},
		    {"rt/scan", "/scan", true, "sensor_msgs/msg/LaserScan"},
		    {"DemoRobotStatus", NULL, false, "DemoRobotStatus"},
		    {"rt/imu", "/imu", true, NULL}}}, /* the type unknown: not excluded */
	{.name = "--services: a service's events, with or without the leading /",
	 .svcs = {"/add", "ns/sum"},
	 .probes = {{"rt/add/_service_event", "/add/_service_event", true},
		    {"rt/ns/sum/_service_event", "/ns/sum/_service_event", true},
		    {"rt/add", "/add", false},
		    {"rt/mul/_service_event", "/mul/_service_event", false},
		    {"rq/addRequest", NULL, false}}},
	{.name = "--all-topics: every topic but service events",
	 .all_topics = true,
	 .probes = {{"rt/chatter", "/chatter", true},
		    {"DDSPerfRDataKS", NULL, true},
		    {"rt/svc/_service_event", "/svc/_service_event", false},
		    {"rt/_hidden", "/_hidden", false},
		    {"rq/xRequest", NULL, false}}},
	{.name = "--all-services and --exclude-services",
	 .all_services = true,
	 .xsvcs = {"/b"},
	 .probes = {{"rt/a/_service_event", "/a/_service_event", true},
		    {"rt/b/_service_event", "/b/_service_event", false},
		    {"rt/chatter", "/chatter", false},
		    {"rq/aRequest", NULL, false}}},
	{.name = "internal topics never, even named",
	 .topics = {"ros_discovery_info", "DCPSPublication"},
	 .all = true,
	 .hidden = true,
	 .services = true,
	 .probes = {{"ros_discovery_info", NULL, false}, {"DCPSPublication", NULL, false}}},
};

static void check_case(const struct select_case *c)
{
	struct btdds_select_options opt = {
		.topics = c->topics,
		.n_topics = count(c->topics),
		.all = c->all,
		.regex = c->regex,
		.exclude_regex = c->exclude_regex,
		.exclude_topics = c->excludes,
		.n_exclude_topics = count(c->excludes),
		.include_hidden = c->hidden,
		.include_services = c->services,
		.types = c->types,
		.n_types = count(c->types),
		.exclude_types = c->xtypes,
		.n_exclude_types = count(c->xtypes),
		.services = c->svcs,
		.n_services = count(c->svcs),
		.exclude_services = c->xsvcs,
		.n_exclude_services = count(c->xsvcs),
		.all_topics = c->all_topics,
		.all_services = c->all_services,
	};
	struct btdds_select *s = NULL;
	struct bt_error err = {0};
	if (btdds_select_new(&opt, &s, &err) != BT_OK)
		fail_msg("%s: %s", c->name, err.msg);
	for (size_t i = 0; i < MAXT && c->probes[i].dds != NULL; i++) {
		const struct probe *p = &c->probes[i];
		bool got = btdds_select_match_typed(s, p->dds, p->ros, p->type);
		if (got != p->want)
			fail_msg("%s: %s (%s) [%s] gave %d, want %d", c->name, p->dds,
				 p->ros ? p->ros : "-", p->type ? p->type : "-", got, p->want);
		/* Untyped, the answer is the typed one's for an unknown type. */
		if (p->type == NULL && btdds_select_match(s, p->dds, p->ros) != got)
			fail_msg("%s: %s: untyped and typed (NULL) disagree", c->name, p->dds);
	}
	btdds_select_free(s);
}

static void test_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		check_case(&cases[i]);
}

static void test_explicit(void **state)
{
	(void)state;
	const char *topics[] = {"/chatter", "rt/odom", "DDSPerfRDataKS"};
	struct btdds_select_options opt = {.topics = topics, .n_topics = 3};
	struct btdds_select *s = NULL;
	assert_int_equal(btdds_select_new(&opt, &s, NULL), BT_OK);
	assert_int_equal(btdds_select_explicit_count(s), 3);
	assert_string_equal(btdds_select_explicit(s, 0), "/chatter");
	assert_string_equal(btdds_select_explicit(s, 1), "rt/odom");
	assert_string_equal(btdds_select_explicit(s, 2), "DDSPerfRDataKS");
	assert_null(btdds_select_explicit(s, 3));
	assert_true(btdds_select_explicit_matches(s, 0, "rt/chatter", "/chatter"));
	assert_false(btdds_select_explicit_matches(s, 0, "rt/odom", "/odom"));
	assert_true(btdds_select_explicit_matches(s, 1, "rt/odom", "/odom"));
	assert_true(btdds_select_explicit_matches(s, 2, "DDSPerfRDataKS", NULL));
	assert_false(btdds_select_explicit_matches(s, 2, "DDSPerfRDataKP", NULL));
	assert_false(btdds_select_explicit_matches(s, 3, "rt/chatter", "/chatter"));
	btdds_select_free(s);
	btdds_select_free(NULL);
}

static void expect_usage(const struct btdds_select_options *opt, const char *msg)
{
	struct btdds_select *s = NULL;
	struct bt_error err = {0};
	assert_int_equal(btdds_select_new(opt, &s, &err), BT_ERR_USAGE);
	assert_int_equal(err.code, BT_ERR_USAGE);
	assert_null(s);
	if (strncmp(err.msg, msg, strlen(msg)) != 0)
		fail_msg("got '%s', want '%s...'", err.msg, msg);
	assert_null(strchr(err.msg, '\n'));
}

static void test_errors(void **state)
{
	(void)state;
	struct btdds_select_options none = {0};
	expect_usage(&none, "no topics to record: give topic names, -a, -e or --topic-types");
	const char *ex[] = {"/rosout"};
	struct btdds_select_options only_x = {.exclude_regex = "x", .exclude_topics = ex,
					    .n_exclude_topics = 1, .include_hidden = true};
	expect_usage(&only_x, "no topics to record: give topic names, -a, -e or --topic-types");
	struct btdds_select_options empty_e = {.regex = ""};
	expect_usage(&empty_e, "no topics to record: give topic names, -a, -e or --topic-types");
	const char *xt[] = {"std_msgs/msg/String"};
	struct btdds_select_options only_xt = {.all = false, .exclude_types = xt,
					     .n_exclude_types = 1};
	expect_usage(&only_xt, "no topics to record: give topic names, -a, -e or --topic-types");
	struct btdds_select_options only_xs = {.exclude_services = xt, .n_exclude_services = 1};
	expect_usage(&only_xs, "no topics to record: give topic names, -a, -e or --topic-types");
	struct btdds_select_options only_t = {.types = xt, .n_types = 1};
	struct btdds_select *s = NULL;
	assert_int_equal(btdds_select_new(&only_t, &s, NULL), BT_OK);
	btdds_select_free(s);
	struct btdds_select_options bad_e = {.regex = "a("};
	expect_usage(&bad_e, "bad --regex 'a(': ");
	struct btdds_select_options bad_x = {.all = true, .exclude_regex = "[z"};
	expect_usage(&bad_x, "bad --exclude-regex '[z': ");
	struct btdds_select_options bad_both = {.regex = "ok", .exclude_regex = "(("};
	expect_usage(&bad_both, "bad --exclude-regex '((': ");
}

TU_MAIN(
	cmocka_unit_test(test_cases),
	cmocka_unit_test(test_explicit),
	cmocka_unit_test(test_errors))
