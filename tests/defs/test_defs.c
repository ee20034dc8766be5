/* src/defs: rosbag2's definition text, checked against rosbag2's own unit
 * test expectations (its rosbag2_test_msgdefs package, copied under
 * fixtures/rosbag2); the built-in set's texts against golden files
 * (golden/<distro>/, BAGTOP_UPDATE_GOLDEN=1 rewrites them); where files are
 * looked up and in which order; bad input (malformed, cyclic, deep, huge
 * files): one log line, the empty row, no crash. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "defs.h"
#include "defs__builtin.h"
#include "defs__text.h"
#include "test_util.h"

#define RULE "================================================================================\n"

/* ---- log capture ---------------------------------------------------------- */

static char logged[8192];
static int n_logged;

static void capture(void *ctx, enum bt_log_level level, const char *line)
{
	(void)ctx;
	(void)level;
	snprintf(logged + strlen(logged), sizeof logged - strlen(logged), "%s\n", line);
	n_logged++;
}

static void log_reset(void)
{
	logged[0] = '\0';
	n_logged = 0;
	bt_log_set_sink(capture, NULL);
}

/* ---- helpers ------------------------------------------------------------- */

static struct defs_source *source(const char *const *paths, size_t n, const char *ament,
				  const char *distro)
{
	struct defs_options o = {paths, n, ament, distro, false};
	struct defs_source *s = NULL;
	struct bt_error err;
	assert_int_equal(defs_source_new(&o, &s, &err), BT_OK);
	return s;
}

static void expect(struct defs_source *s, const char *type, const char *enc, const char *text,
		   enum defs_origin origin)
{
	struct defs_result r;
	defs_source_lookup(s, type, &r);
	if (strcmp(r.encoding, enc) != 0 || strcmp(r.text, text) != 0 || r.origin != origin)
		fail_msg("%s: got encoding '%s' origin %s text:\n%s\n--- want '%s' %s:\n%s", type,
			 r.encoding, defs_origin_name(r.origin), r.text, enc,
			 defs_origin_name(origin), text);
	defs_result_fini(&r);
}

/* Writes `text` to <root>/share/<rel> (directories made). */
static void put(const char *root, const char *rel, const char *text)
{
	char *path = bt_xasprintf("%s/share/%s", root, rel);
	for (char *p = path + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		(void)mkdir(path, 0755);
		*p = '/';
	}
	tu_write_file(path, text, strlen(text));
	free(path);
}

/* ---- rosbag2's own expectations ------------------------------------------ */

#define BASIC_IDL                                                                                  \
	"module rosbag2_test_msgdefs {\n  module msg {\n    struct BasicIdl {\n        float x;\n"     \
	"    };\n  };\n};\n"

/* The strings of rosbag2's test_local_message_definition_source.cpp. */
static void test_rosbag2_cases(void **state)
{
	(void)state;
	const char *paths[] = {DEFS_FIXTURES "/rosbag2"};
	struct defs_source *s = source(paths, 1, NULL, NULL);
	log_reset();
	expect(s, "rosbag2_test_msgdefs/ComplexMsg", "ros2msg",
	       "rosbag2_test_msgdefs/BasicMsg b\n\n" RULE "MSG: rosbag2_test_msgdefs/BasicMsg\n"
	       "float32 c\n",
	       DEFS_ORIGIN_PATH);
	expect(s, "rosbag2_test_msgdefs/srv/ComplexSrvMsg", "ros2msg",
	       RULE "SRV: rosbag2_test_msgdefs/srv/ComplexSrvMsg\n"
		    "rosbag2_test_msgdefs/BasicMsg req\n---\nrosbag2_test_msgdefs/BasicMsg resp\n\n" RULE
		    "MSG: rosbag2_test_msgdefs/BasicMsg\nfloat32 c\n",
	       DEFS_ORIGIN_PATH);
	expect(s, "rosbag2_test_msgdefs/srv/ComplexSrvIdl", "ros2idl",
	       RULE "SRV: rosbag2_test_msgdefs/srv/ComplexSrvIdl\n"
		    "rosbag2_test_msgdefs/BasicIdl req\n---\nrosbag2_test_msgdefs/BasicIdl resp\n\n" RULE
		    "MSG: rosbag2_test_msgdefs/BasicIdl\n\n" RULE
		    "IDL: rosbag2_test_msgdefs/BasicIdl\n" BASIC_IDL,
	       DEFS_ORIGIN_PATH);
	expect(s, "rosbag2_test_msgdefs/msg/ComplexIdl", "ros2idl",
	       RULE "IDL: rosbag2_test_msgdefs/msg/ComplexIdl\n"
		    "#include \"rosbag2_test_msgdefs/msg/BasicIdl.idl\"\n\n"
		    "module rosbag2_test_msgdefs {\n  module msg {\n    struct ComplexIdl {\n"
		    "      rosbag2_test_msgdefs::msg::BasicIdl a;\n    };\n  };\n};\n\n" RULE
		    "IDL: rosbag2_test_msgdefs/msg/BasicIdl\n" BASIC_IDL,
	       DEFS_ORIGIN_PATH);
	expect(s, "rosbag2_test_msgdefs/msg/ComplexMsgDependsOnIdl", "ros2idl",
	       RULE "IDL: rosbag2_test_msgdefs/msg/ComplexMsgDependsOnIdl\n"
		    "// generated from rosidl_adapter/resource/msg.idl.em\n"
		    "// with input from rosbag2_test_msgdefs/msg/ComplexMsgDependsOnIdl.msg\n"
		    "// generated code does not contain a copyright notice\n\n"
		    "#include \"rosbag2_test_msgdefs/msg/BasicIdl.idl\"\n\n"
		    "module rosbag2_test_msgdefs {\n  module msg {\n    struct ComplexMsgDependsOnIdl {\n"
		    "      rosbag2_test_msgdefs::msg::BasicIdl a;\n    };\n  };\n};\n\n" RULE
		    "IDL: rosbag2_test_msgdefs/msg/BasicIdl\n" BASIC_IDL,
	       DEFS_ORIGIN_PATH);
	/* A service of primitives only: rosbag2 leaves the encoding "unknown". */
	expect(s, "rosbag2_test_msgdefs/srv/BasicSrv", "unknown",
	       RULE "SRV: rosbag2_test_msgdefs/srv/BasicSrv\nstring req\n---\nstring resp\n",
	       DEFS_ORIGIN_PATH);
	assert_int_equal(n_logged, 0);
	/* rosbag2: a name it does not understand gives "unknown" and no text;
	 * a type found nowhere the empty row. */
	expect(s, "rosbag2_test_msgdefs/idl/BasicSrv_Request", "unknown", "", DEFS_ORIGIN_NONE);
	expect(s, "some_pkg", "unknown", "", DEFS_ORIGIN_NONE);
	expect(s, "DemoRobotStatus", "unknown", "", DEFS_ORIGIN_NONE);
	log_reset();
	expect(s, "rosbag2_test_msgdefs/msg/UnknownMessage", "", "", DEFS_ORIGIN_NONE);
	expect(s, "not_found_msgdefs_pkg/msg/UnknownMessage", "", "", DEFS_ORIGIN_NONE);
	assert_int_equal(n_logged, 2);
	assert_non_null(strstr(logged, "rosbag2_test_msgdefs/msg/UnknownMessage: no message "
					"definition (rosbag2_test_msgdefs/msg/UnknownMessage.msg in "
					"neither"));
	bt_log_set_sink(NULL, NULL);
	defs_source_free(s);
}

/* Both regular expressions of rosbag2, on its own IDL sample and on .msg
 * lines of every shape. */
static void test_parse_deps(void **state)
{
	(void)state;
	char **d = NULL;
	size_t n = 0;
	defs_parse_deps(DEFS_FMT_IDL,
			"\n#include \"rosbag2_test_msgdefs/msg/BasicIdlA.idl\"\n\n"
			"#include <rosbag2_test_msgdefs/msg/BasicIdlB.idl>\n\n"
			"module rosbag2_test_msgdefs {\n  module msg {\n    struct ComplexIdl {\n"
			"      rosbag2_test_msgdefs::msg::BasicIdlA a;\n    };\n  };\n};\n\n  ",
			"", &d, &n);
	assert_int_equal(n, 2);
	assert_string_equal(d[0], "rosbag2_test_msgdefs/msg/BasicIdlA");
	assert_string_equal(d[1], "rosbag2_test_msgdefs/msg/BasicIdlB");
	defs_deps_free(d, n);
	defs_parse_deps(DEFS_FMT_MSG,
			"# comment geometry_msgs/Nope x\n"
			"uint8 CONST=1\n"
			"std_msgs/Header header\n"
			"  Local[] locals\n"
			"other_msgs/msg/Far[<=3] far\n"
			"string<=10 bounded\n"
			"Zed[4] zeds # a comment\n"
			"Local again\n"
			"wstring w\n"
			"float64[9] covariance\n"
			"Broken[",
			"pkg", &d, &n);
	static const char *const want[] = {"other_msgs/msg/Far", "pkg/Local", "pkg/Zed",
					   "pkg/wstring", "std_msgs/Header"};
	assert_int_equal(n, 5);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(d[i], want[i]);
	defs_deps_free(d, n);
	char pkg[64], name[64];
	assert_true(defs_type_split("a_1/msg/B2", pkg, name, sizeof pkg));
	assert_string_equal(pkg, "a_1");
	assert_string_equal(name, "B2");
	assert_true(defs_type_split("a/B", pkg, name, sizeof pkg));
	assert_true(defs_type_split("a/srv/B", pkg, name, sizeof pkg));
	assert_false(defs_type_split("a/action/B", pkg, name, sizeof pkg));
	assert_false(defs_type_split("a/msg/B/C", pkg, name, sizeof pkg));
	assert_false(defs_type_split("a::msg::B", pkg, name, sizeof pkg));
	assert_false(defs_type_split("/B", pkg, name, sizeof pkg));
}

/* ---- the built-in set ------------------------------------------------------ */

struct golden_case {
	const char *distro, *type;
};

static const struct golden_case golden_cases[] = {
	{"jazzy", "std_msgs/msg/String"},
	{"jazzy", "sensor_msgs/msg/Imu"},
	{"jazzy", "tf2_msgs/msg/TFMessage"},
	{"jazzy", "nav_msgs/msg/OccupancyGrid"},
	{"jazzy", "sensor_msgs/msg/PointCloud2"},
	{"jazzy", "sensor_msgs/msg/LaserScan"},
	{"jazzy", "visualization_msgs/msg/MarkerArray"},
	{"jazzy", "diagnostic_msgs/msg/DiagnosticArray"},
	{"jazzy", "rcl_interfaces/msg/ParameterEvent"},
	{"jazzy", "nav_msgs/srv/GetMap"},
	{"jazzy", "type_description_interfaces/srv/GetTypeDescription"},
	{"jazzy", "sensor_msgs/msg/Range"},
	{"humble", "sensor_msgs/msg/Range"},
	{"humble", "visualization_msgs/msg/MarkerArray"},
	{"humble", "rcl_interfaces/msg/Log"},
	{"iron", "sensor_msgs/msg/NavSatFix"},
};

static char *slurp(const char *path)
{
	char *t = NULL;
	size_t len = 0;
	struct bt_error err;
	return bt_fs_read_all(path, 1u << 20, &t, &len, &err) == BT_OK ? t : NULL;
}

static void test_builtin_golden(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof golden_cases / sizeof golden_cases[0]; i++) {
		const struct golden_case *c = &golden_cases[i];
		struct defs_source *s = source(NULL, 0, NULL, c->distro);
		struct defs_result r;
		defs_source_lookup(s, c->type, &r);
		assert_int_equal(r.origin, DEFS_ORIGIN_BUILTIN);
		char *file = bt_xasprintf("%s", c->type);
		for (char *p = file; *p; p++)
			if (*p == '/')
				*p = '.';
		char *path = bt_xasprintf("%s/%s/%s.txt", DEFS_GOLDEN_DIR, c->distro, file);
		char *got = bt_xasprintf("encoding: %s\n%s", r.encoding, r.text);
		if (getenv("BAGTOP_UPDATE_GOLDEN")) {
			char *dir = bt_fs_dirname(path);
			(void)mkdir(dir, 0755);
			free(dir);
			tu_write_file(path, got, strlen(got));
		}
		char *want = slurp(path);
		if (want == NULL || strcmp(want, got) != 0)
			fail_msg("%s (%s) differs from %s; got:\n%s", c->type, c->distro, path, got);
		free(want);
		free(got);
		free(path);
		free(file);
		defs_result_fini(&r);
		defs_source_free(s);
	}
}

/* Every type of every distro's set is complete within that set: each file
 * passes the checks, each dependency is there. */
static void test_builtin_all(void **state)
{
	(void)state;
	log_reset();
	for (const char *const *d = defs_builtin_distros(); *d != NULL; d++) {
		struct defs_source *s = source(NULL, 0, NULL, *d);
		size_t n = 0;
		for (size_t i = 0; i < defs_builtin_n_files; i++) {
			const char *path = defs_builtin_files[i].path;
			if ((defs_builtin_files[i].mask & (1u << (d - defs_builtin_distros()))) == 0)
				continue;
			char *type = bt_xstrndup(path, strcspn(path, "."));
			struct defs_result r;
			defs_source_lookup(s, type, &r);
			if (r.origin != DEFS_ORIGIN_BUILTIN || r.text[0] == '\0')
				fail_msg("%s (%s): %s", type, *d, logged);
			defs_result_fini(&r);
			free(type);
			n++;
		}
		assert_int_equal(n, defs_builtin_count(*d));
		defs_source_free(s);
	}
	assert_int_equal(n_logged, 0);
	bt_log_set_sink(NULL, NULL);
}

/* How many types each distro has, and what is absent where. */
static void test_builtin_distros(void **state)
{
	(void)state;
	assert_int_equal(defs_builtin_count("humble"), 176); /* + rosbag2_interfaces events */
	assert_int_equal(defs_builtin_count("iron"), 188);
	assert_int_equal(defs_builtin_count("jazzy"), 190);
	assert_int_equal(defs_builtin_count("rolling"), 0);
	struct defs_options o = {.distro = "rolling"};
	struct defs_source *s = NULL;
	struct bt_error err;
	assert_int_equal(defs_source_new(&o, &s, &err), BT_ERR_USAGE);
	s = source(NULL, 0, NULL, "humble");
	log_reset();
	expect(s, "service_msgs/msg/ServiceEventInfo", "", "", DEFS_ORIGIN_NONE);
	expect(s, "geometry_msgs/msg/PolygonInstance", "", "", DEFS_ORIGIN_NONE);
	bt_log_set_sink(NULL, NULL);
	defs_source_free(s);
	s = source(NULL, 0, NULL, "jazzy");
	expect(s, "service_msgs/msg/ServiceEventInfo", "ros2msg",
	       "uint8 REQUEST_SENT = 0\nuint8 REQUEST_RECEIVED = 1\nuint8 RESPONSE_SENT = 2\n"
	       "uint8 RESPONSE_RECEIVED = 3\nuint8 event_type\nbuiltin_interfaces/Time stamp\n"
	       "char[16] client_gid\nint64 sequence_number\n\n" RULE
	       "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
	       DEFS_ORIGIN_BUILTIN);
	defs_source_free(s);
	char *svc = defs_service_of_event("/add/_service_event", "example/srv/AddTwoInts_Event");
	assert_string_equal(svc, "example/srv/AddTwoInts");
	free(svc);
	assert_null(defs_service_of_event("/add/_service_event", "example/msg/AddTwoInts_Event"));
	assert_null(defs_service_of_event("/chatter", "example/srv/AddTwoInts_Event"));
}

/* ---- where files are found ------------------------------------------------ */

/* --message-definitions-path before AMENT_PREFIX_PATH before the built-in
 * set, per file; the ament index decides a package's prefix. */
static void test_sources(void **state)
{
	(void)state;
	char *a = bt_xasprintf("%s/a", tu_group_tmp), *b = bt_xasprintf("%s/b", tu_group_tmp);
	char *ws = bt_xasprintf("%s/ws", tu_group_tmp);
	put(a, "my_msgs/msg/Thing.msg", "int32 in_a\n");
	put(b, "my_msgs/msg/Thing.msg", "int32 in_b\n");
	put(b, "ament_index/resource_index/packages/my_msgs", "");
	put(a, "std_msgs/msg/String.msg", "string from_a\n");
	/* a colcon install directory: one prefix per package */
	char *ws_pkg = bt_xasprintf("%s/my_msgs", ws);
	put(ws_pkg, "my_msgs/msg/Thing.msg", "int32 in_ws\nstd_msgs/Header h\n");
	char *ament = bt_xasprintf("%s:%s", a, b);
	struct defs_source *s = source(NULL, 0, ament, NULL);
	expect(s, "my_msgs/msg/Thing", "ros2msg", "int32 in_b\n", DEFS_ORIGIN_AMENT);
	/* no index entry for std_msgs: the first prefix that has it */
	expect(s, "std_msgs/msg/String", "ros2msg", "string from_a\n", DEFS_ORIGIN_AMENT);
	expect(s, "std_msgs/msg/Bool", "ros2msg", "bool data\n", DEFS_ORIGIN_BUILTIN);
	defs_source_free(s);
	const char *paths[] = {ws};
	s = source(paths, 1, ament, NULL);
	expect(s, "my_msgs/msg/Thing", "ros2msg",
	       "int32 in_ws\nstd_msgs/Header h\n\n" RULE "MSG: std_msgs/Header\n"
	       "builtin_interfaces/Time stamp\nstring frame_id\n\n" RULE
	       "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
	       DEFS_ORIGIN_PATH);
	defs_source_free(s);
	free(ament);
	free(ws_pkg);
	free(ws);
	free(a);
	free(b);
}

/* The fixture tree of the integration tests: a nested custom dependency. */
static void test_custom_fixture(void **state)
{
	(void)state;
	struct defs_source *s = source(NULL, 0, DEFS_FIXTURES "/ament", NULL);
	log_reset();
	expect(s, "my_msgs/msg/BatteryState", "ros2msg",
	       "uint8 STATUS_OK=0\nuint8 STATUS_LOW=1\nstd_msgs/Header header\nCellState[] cells\n"
	       "float32 voltage\nuint8 status 0\nstring<=16 label \"pack\"\n\n" RULE
	       "MSG: my_msgs/CellState\n# one cell of the pack\nfloat32 voltage\n"
	       "int16[3] temperatures # degrees\nmy_msgs/msg/Wear wear\n\n" RULE
	       "MSG: my_msgs/msg/Wear\nuint32 cycles\nbool replaced false\n\n" RULE
	       "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id\n\n" RULE
	       "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n",
	       DEFS_ORIGIN_AMENT);
	assert_int_equal(n_logged, 0);
	bt_log_set_sink(NULL, NULL);
	defs_source_free(s);
}

/* ---- bad input ------------------------------------------------------------- */

static void expect_bad(struct defs_source *s, const char *type, const char *why)
{
	log_reset();
	expect(s, type, "", "", DEFS_ORIGIN_NONE);
	if (n_logged != 1 || strstr(logged, why) == NULL)
		fail_msg("%s: want one line with '%s', got %d:\n%s", type, why, n_logged, logged);
	bt_log_set_sink(NULL, NULL);
}

static void test_bad_input(void **state)
{
	(void)state;
	char *root = bt_xasprintf("%s/bad", tu_group_tmp);
	put(root, "bad/msg/Garbage.msg", "int32 x\n<<<<<<< HEAD\n");
	put(root, "bad/msg/NoName.msg", "int32\n");
	put(root, "bad/msg/Array.msg", "int32[3 x\n");
	put(root, "bad/msg/UsesGarbage.msg", "bad/Garbage g\n");
	put(root, "bad/msg/Binary.msg", "int32 x\n");
	char *bin = bt_xasprintf("%s/share/bad/msg/Binary.msg", root);
	tu_write_file(bin, "int32 x\n\0\x01\x02", 11);
	put(root, "bad/msg/A.msg", "B b\n");
	put(root, "bad/msg/B.msg", "bad/msg/A a\n");
	put(root, "bad/msg/Self.msg", "Self[] children\nint32 v\n");
	put(root, "bad/msg/Missing.msg", "int32 x\nbad/Nowhere n\n");
	/* chains: T0 -> T1 -> ... */
	for (int i = 0; i < 1000; i++) {
		char rel[64], text[64];
		snprintf(rel, sizeof rel, "bad/msg/T%d.msg", i);
		snprintf(text, sizeof text, i < 999 ? "T%d next\n" : "int32 end\n", i + 1);
		put(root, rel, text);
	}
	put(root, "bad/msg/C0.msg", "int32 deep\n");
	for (int i = 1; i < 50; i++) { /* C49 -> ... -> C0: 50 types, rosbag2's limit */
		char rel[64], text[64];
		snprintf(rel, sizeof rel, "bad/msg/C%d.msg", i);
		snprintf(text, sizeof text, "C%d next\n", i - 1);
		put(root, rel, text);
	}
	size_t huge_n = (1u << 20) + 10;
	char *huge = bt_xmalloc(huge_n);
	for (size_t i = 0; i < huge_n; i++)
		huge[i] = i % 10 == 9 ? '\n' : "int32 a_x"[i % 10];
	put(root, "bad/msg/Huge.msg", "");
	char *huge_path = bt_xasprintf("%s/share/bad/msg/Huge.msg", root);
	tu_write_file(huge_path, huge, huge_n);
	struct defs_source *s = source(NULL, 0, root, NULL);
	expect_bad(s, "bad/msg/Garbage", "Garbage.msg:2: not a field, constant or '---'");
	expect_bad(s, "bad/msg/NoName", "NoName.msg:1: not a field");
	expect_bad(s, "bad/msg/Array", "Array.msg:1: not a field");
	expect_bad(s, "bad/msg/UsesGarbage", "Garbage.msg:2: not a field");
	expect_bad(s, "bad/msg/Binary", "Binary.msg: not a text file");
	expect_bad(s, "bad/msg/T0", "more than 50 levels of nested types");
	expect_bad(s, "bad/msg/Huge", "file too large");
	expect_bad(s, "bad/msg/Missing", "bad/msg/Nowhere.msg in neither");
	struct defs_result r;
	defs_source_lookup(s, "bad/msg/C49", &r);
	assert_string_equal(r.encoding, "ros2msg");
	assert_non_null(strstr(r.text, "MSG: bad/C0\nint32 deep\n"));
	defs_result_fini(&r);
	/* cycles end where rosbag2's seen set ends them */
	expect(s, "bad/msg/A", "ros2msg",
	       "B b\n\n" RULE "MSG: bad/B\nbad/msg/A a\n\n" RULE "MSG: bad/msg/A\nB b\n",
	       DEFS_ORIGIN_AMENT);
	expect(s, "bad/msg/Self", "ros2msg",
	       "Self[] children\nint32 v\n\n" RULE "MSG: bad/Self\nSelf[] children\nint32 v\n",
	       DEFS_ORIGIN_AMENT);
	defs_source_free(s);
	free(huge_path);
	free(huge);
	free(bin);
	free(root);
}

TU_MAIN_GROUP(tu_group_tmp_setup, tu_group_tmp_teardown,
	cmocka_unit_test(test_rosbag2_cases),
	cmocka_unit_test(test_parse_deps),
	cmocka_unit_test(test_builtin_golden),
	cmocka_unit_test(test_builtin_all),
	cmocka_unit_test(test_builtin_distros),
	cmocka_unit_test(test_sources),
	cmocka_unit_test(test_custom_fixture),
	cmocka_unit_test(test_bad_input))
