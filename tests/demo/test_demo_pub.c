/* demo_pub: a forked child runs demo_publish on a private domain; the
 * parent (no DDS entities before the fork) checks what a recorder would see:
 * DCPSPublication (topic and type names, keyed or not, reliability,
 * durability), then typed readers built from the same IDL check the decoded
 * contents and rough rates. Also: bagtop's built-in definitions (src/defs)
 * cover every ROS type the demo publishes, and every type a definition
 * mentions is defined in it. */
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <dds/dds.h>

#include "bt_time.h"
#include "defs.h"
#include "demo_pub.h"
#include "test_util.h"

#include "demo_robot_status.h"
#include "nav_msgs.h"
#include "sensor_msgs.h"
#include "std_msgs.h"
#include "tf2_msgs.h"

#define DEMO_DOMAIN 84
#define MS INT64_C(1000000)

/* ---- the child ---- */

static volatile sig_atomic_t child_stop;

static void child_on_term(int sig)
{
	(void)sig;
	child_stop = 1;
}

/* In the child: stop on SIGTERM; 30 s is a safety net if the parent dies. */
static int demo_child(void *arg)
{
	(void)arg;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = child_on_term;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	return demo_publish(DEMO_DOMAIN, NULL, &child_stop, 30 * BT_NS_PER_S);
}

static pid_t demo_spawn(void)
{
	return tu_spawn(NULL, &(struct tu_spawn_opts){.in_child = demo_child, .keep_stderr = true});
}

/* SIGTERM, then waits (bounded) for exit status 0; returns ms to exit. */
static int64_t demo_reap(pid_t pid)
{
	int64_t t0 = bt_time_monotonic_ns();
	int st = tu_stop(pid, SIGTERM, 5.0);
	if (st == TU_TIMED_OUT)
		fail_msg("demo child did not stop within 5 s of SIGTERM");
	assert_int_equal(st, 0);
	return (bt_time_monotonic_ns() - t0) / MS;
}

/* ---- discovery ---- */

struct expect_pub {
	const char *topic, *type;
	bool keyed, reliable, transient_local;
	bool seen;
};

static struct expect_pub expected[] = {
	{"rt/chatter", "std_msgs::msg::dds_::String_", false, true, false, false},
	{"rt/tf_static", "tf2_msgs::msg::dds_::TFMessage_", false, true, true, false},
	{"rt/map", "nav_msgs::msg::dds_::OccupancyGrid_", false, true, true, false},
	{"rt/imu", "sensor_msgs::msg::dds_::Imu_", false, true, false, false},
	{"rt/points", "sensor_msgs::msg::dds_::PointCloud2_", false, true, false, false},
	{"rt/scan", "sensor_msgs::msg::dds_::LaserScan_", false, false, false, false},
	{"DemoRobotStatus", "DemoRobotStatus", true, true, false, false},
};
#define N_EXPECTED (sizeof expected / sizeof expected[0])

static void check_publication(dds_builtintopic_endpoint_t *ep)
{
	for (size_t i = 0; i < N_EXPECTED; i++) {
		struct expect_pub *e = &expected[i];
		if (strcmp(ep->topic_name, e->topic) != 0)
			continue;
		assert_string_equal(ep->type_name, e->type);
		assert_int_equal(ep->key.v[15], e->keyed ? 0x02 : 0x03);
		dds_reliability_kind_t rel;
		dds_durability_kind_t dur;
		dds_history_kind_t hk;
		int32_t depth;
		assert_true(dds_qget_reliability(ep->qos, &rel, NULL));
		assert_int_equal(rel, e->reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT);
		assert_true(dds_qget_durability(ep->qos, &dur));
		assert_int_equal(dur, e->transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL
						       : DDS_DURABILITY_VOLATILE);
		assert_true(dds_qget_history(ep->qos, &hk, &depth));
		assert_int_equal(hk, DDS_HISTORY_KEEP_LAST);
		assert_int_equal(depth, 10);
		if (e->transient_local) {
			dds_duration_t cleanup;
			int32_t ms, mi, mspi;
			assert_true(dds_qget_durability_service(ep->qos, &cleanup, &hk, &depth, &ms, &mi,
								&mspi));
			assert_int_equal(hk, DDS_HISTORY_KEEP_LAST);
			assert_int_equal(depth, 1);
		}
		/* ROS 2 topics like rmw_cyclonedds (idlc -t): no XTypes type
		 * information; the plain DDS one like any idlc-built publisher. */
		const dds_typeinfo_t *ti = NULL;
		assert_int_equal(dds_builtintopic_get_endpoint_type_info(ep, &ti), DDS_RETCODE_OK);
		if (strncmp(e->topic, "rt/", 3) == 0)
			assert_null(ti);
		else
			assert_non_null(ti);
		e->seen = true;
	}
}

static size_t count_seen(void)
{
	size_t n = 0;
	for (size_t i = 0; i < N_EXPECTED; i++)
		n += expected[i].seen;
	return n;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static void discover(dds_entity_t pp)
{
	dds_entity_t rd = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
	assert_true(rd > 0);
	for (int iter = 0; iter < 200 && count_seen() < N_EXPECTED; iter++) { /* up to ~10 s */
		void *ptrs[32] = {NULL};
		dds_sample_info_t infos[32];
		dds_return_t n = dds_take(rd, ptrs, infos, 32, 32);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			if (infos[i].valid_data)
				check_publication(ptrs[i]);
		if (n > 0)
			assert_int_equal(dds_return_loan(rd, ptrs, n), DDS_RETCODE_OK);
		else
			sleep_ms(50);
	}
	for (size_t i = 0; i < N_EXPECTED; i++)
		if (!expected[i].seen)
			fail_msg("no DCPSPublication for %s", expected[i].topic);
	dds_delete(rd);
}

/* ---- typed readers ---- */

static dds_entity_t typed_reader(dds_entity_t pp, const char *name, const dds_topic_descriptor_t *desc,
				 bool reliable, bool tl)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
			     DDS_SECS(1));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, tl ? 1 : 256);
	if (tl)
		dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_entity_t tp = dds_create_topic(pp, desc, name, q, NULL);
	assert_true(tp > 0);
	dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
	assert_true(rd > 0);
	dds_delete_qos(q);
	return rd;
}

static void check_stamp(const struct std_msgs_msg_dds__Header_ *h, const char *frame)
{
	int64_t stamp = (int64_t)h->stamp.sec * BT_NS_PER_S + h->stamp.nanosec;
	int64_t now = bt_time_realtime_ns();
	assert_true(llabs(now - stamp) < 10 * BT_NS_PER_S);
	assert_string_equal(h->frame_id, frame);
}

struct tally {
	unsigned chatter, imu, points, scan, status;
	unsigned last_chatter;
	bool robot[3];
};

static void on_chatter(struct tally *t, const std_msgs_msg_dds__String_ *m)
{
	unsigned n;
	assert_int_equal(sscanf(m->data, "Hello from bagtop demo: %u", &n), 1);
	if (t->chatter > 0) /* reliable, KEEP_LAST: consecutive while we keep up */
		assert_int_equal(n, t->last_chatter + 1);
	t->last_chatter = n;
	t->chatter++;
}

static void on_imu(struct tally *t, const sensor_msgs_msg_dds__Imu_ *m)
{
	check_stamp(&m->header, "imu_link");
	const struct geometry_msgs_msg_dds__Quaternion_ *q = &m->orientation;
	assert_true(fabs(q->x * q->x + q->y * q->y + q->z * q->z + q->w * q->w - 1.0) < 1e-6);
	assert_true(fabs(m->linear_acceleration.z - 9.81) < 0.5);
	assert_true(m->orientation_covariance[0] > 0 && m->orientation_covariance[1] == 0);
	t->imu++;
}

static void on_points(struct tally *t, const sensor_msgs_msg_dds__PointCloud2_ *m)
{
	static const char *const names[4] = {"x", "y", "z", "intensity"};
	check_stamp(&m->header, "laser");
	assert_int_equal(m->point_step, 16);
	assert_int_equal(m->row_step, m->width * m->point_step);
	assert_int_equal((uint64_t)m->width * m->height * m->point_step, m->data._length);
	assert_int_equal(m->data._length, 256 * 1024);
	assert_int_equal(m->fields._length, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_string_equal(m->fields._buffer[i].name, names[i]);
		assert_int_equal(m->fields._buffer[i].offset, 4 * i);
		assert_int_equal(m->fields._buffer[i].datatype, 7); /* FLOAT32 */
		assert_int_equal(m->fields._buffer[i].count, 1);
	}
	assert_int_equal(m->is_bigendian, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	for (uint32_t p = 0; p < m->width * m->height; p += 997) {
		float xyz[4];
		memcpy(xyz, m->data._buffer + (size_t)p * 16, sizeof xyz);
		assert_true(isfinite(xyz[0]) && fabsf(xyz[0]) < 5.0f && fabsf(xyz[1]) < 5.0f);
		assert_true(xyz[2] > -1.0f && xyz[2] < 3.0f && xyz[3] > 0.0f);
	}
	t->points++;
}

static void on_scan(struct tally *t, const sensor_msgs_msg_dds__LaserScan_ *m)
{
	check_stamp(&m->header, "laser");
	assert_int_equal(m->ranges._length, 720);
	assert_int_equal(m->intensities._length, 720);
	for (uint32_t i = 0; i < 720; i++)
		assert_true(m->ranges._buffer[i] >= m->range_min && m->ranges._buffer[i] <= m->range_max);
	t->scan++;
}

static void on_status(struct tally *t, const DemoRobotStatus *m)
{
	assert_true(m->robot_id == 1 || m->robot_id == 2);
	assert_true(m->battery >= 0.0 && m->battery <= 1.0);
	assert_true(strlen(m->mode) > 0);
	t->robot[m->robot_id] = true;
	t->status++;
}

enum { R_CHATTER, R_IMU, R_POINTS, R_SCAN, R_STATUS, R_N };

static void take_all(dds_entity_t rd, int which, struct tally *t)
{
	void *ptrs[64] = {NULL};
	dds_sample_info_t infos[64];
	dds_return_t n = dds_take(rd, ptrs, infos, 64, 64);
	assert_true(n >= 0);
	for (int i = 0; i < n; i++) {
		if (!infos[i].valid_data)
			continue;
		switch (which) {
		case R_CHATTER: on_chatter(t, ptrs[i]); break;
		case R_IMU: on_imu(t, ptrs[i]); break;
		case R_POINTS: on_points(t, ptrs[i]); break;
		case R_SCAN: on_scan(t, ptrs[i]); break;
		default: on_status(t, ptrs[i]); break;
		}
	}
	if (n > 0)
		assert_int_equal(dds_return_loan(rd, ptrs, n), DDS_RETCODE_OK);
}

/* Reads the streaming topics for ~2 s (after a short warm-up) and checks
 * contents and rates. */
static void read_streams(dds_entity_t pp)
{
	dds_entity_t rd[R_N] = {
		typed_reader(pp, "rt/chatter", &std_msgs_msg_dds__String__desc, true, false),
		typed_reader(pp, "rt/imu", &sensor_msgs_msg_dds__Imu__desc, true, false),
		typed_reader(pp, "rt/points", &sensor_msgs_msg_dds__PointCloud2__desc, true, false),
		typed_reader(pp, "rt/scan", &sensor_msgs_msg_dds__LaserScan__desc, false, false),
		typed_reader(pp, "DemoRobotStatus", &DemoRobotStatus_desc, true, false),
	};
	struct tally warm = {0}, t = {0};
	for (int i = 0; i < 100 && warm.imu == 0; i++) { /* matched and flowing, ≤ 5 s */
		sleep_ms(50);
		take_all(rd[R_IMU], R_IMU, &warm);
	}
	assert_true(warm.imu > 0);
	for (int r = 0; r < R_N; r++) /* start the window clean */
		take_all(rd[r], r, &warm);
	int64_t t0 = bt_time_monotonic_ns();
	for (int iter = 0; iter < 400 && bt_time_monotonic_ns() - t0 < 2 * BT_NS_PER_S; iter++) {
		sleep_ms(10);
		for (int r = 0; r < R_N; r++)
			take_all(rd[r], r, &t);
	}
	double secs = (double)(bt_time_monotonic_ns() - t0) / 1e9;
	print_message("demo: %.2f s: chatter %u, imu %u (%.0f Hz), points %u, scan %u, status %u\n", secs,
		      t.chatter, t.imu, t.imu / secs, t.points, t.scan, t.status);
	assert_true(t.imu / secs >= 150.0);
	assert_true(t.chatter >= 12);
	assert_true(t.points >= 10);
	assert_true(t.scan >= 20); /* best effort at 40 Hz */
	assert_true(t.robot[1] && t.robot[2]);
	for (int r = 0; r < R_N; r++)
		dds_delete(rd[r]);
}

/* The transient-local topics, read by late joiners. */
static void read_latched(dds_entity_t pp)
{
	dds_entity_t tf = typed_reader(pp, "rt/tf_static", &tf2_msgs_msg_dds__TFMessage__desc, true, true);
	dds_entity_t map = typed_reader(pp, "rt/map", &nav_msgs_msg_dds__OccupancyGrid__desc, true, true);
	bool got_tf = false, got_map = false;
	for (int i = 0; i < 100 && !(got_tf && got_map); i++) { /* ≤ ~5 s */
		void *p[1] = {NULL};
		dds_sample_info_t info;
		if (!got_tf && dds_take(tf, p, &info, 1, 1) == 1) {
			const tf2_msgs_msg_dds__TFMessage_ *m = p[0];
			assert_true(info.valid_data);
			assert_int_equal(m->transforms._length, 2);
			check_stamp(&m->transforms._buffer[0].header, "base_link");
			assert_string_equal(m->transforms._buffer[0].child_frame_id, "laser");
			assert_string_equal(m->transforms._buffer[1].header.frame_id, "base_link");
			assert_string_equal(m->transforms._buffer[1].child_frame_id, "imu_link");
			assert_true(fabs(m->transforms._buffer[0].transform.rotation.w - 1.0) < 1e-9);
			dds_return_loan(tf, p, 1);
			got_tf = true;
		}
		if (!got_map && dds_take(map, p, &info, 1, 1) == 1) {
			const nav_msgs_msg_dds__OccupancyGrid_ *m = p[0];
			assert_true(info.valid_data);
			check_stamp(&m->header, "map");
			assert_int_equal(m->info.width, 100);
			assert_int_equal(m->info.height, 100);
			assert_true(fabsf(m->info.resolution - 0.05f) < 1e-6f);
			assert_int_equal(m->data._length, 100 * 100);
			unsigned occ = 0, free_ = 0, unknown = 0;
			for (uint32_t c = 0; c < m->data._length; c++) {
				int8_t v = m->data._buffer[c];
				occ += v == 100;
				free_ += v == 0;
				unknown += v == -1;
			}
			assert_int_equal(occ + free_ + unknown, 100 * 100);
			assert_true(occ > 200 && free_ > 3000 && unknown > 1000);
			dds_return_loan(map, p, 1);
			got_map = true;
		}
		sleep_ms(50);
	}
	assert_true(got_tf);
	assert_true(got_map);
	dds_delete(tf);
	dds_delete(map);
}

static void test_publish(void **state)
{
	(void)state;
	pid_t pid = demo_spawn(); /* before any DDS entity in this process */
	dds_entity_t pp = dds_create_participant(DEMO_DOMAIN, NULL, NULL);
	assert_true(pp > 0);
	discover(pp);
	read_streams(pp); /* ≥ 2 s after the child started: tf_static is long sent */
	read_latched(pp);
	dds_delete(pp);
	int64_t ms = demo_reap(pid);
	print_message("demo: child stopped %lld ms after SIGTERM\n", (long long)ms);
	assert_true(ms < 3000); /* stop poll ≤ 10 ms plus Cyclone's writer linger */
}

static int bad_domain_child(void *arg)
{
	(void)arg;
	volatile sig_atomic_t stop = 0;
	return demo_publish(UINT32_C(0xfffffff0), NULL, &stop, BT_NS_PER_S);
}

/* A child that cannot start DDS says why and returns 3. */
static void test_bad_domain(void **state)
{
	(void)state;
	pid_t pid = tu_spawn(NULL, &(struct tu_spawn_opts){.in_child = bad_domain_child});
	assert_int_equal(tu_wait(pid, 30.0), 3);
}

/* ---- definitions ---- */

static const char *const demo_ros_types[] = {
	"std_msgs/msg/String",	 "tf2_msgs/msg/TFMessage",	"nav_msgs/msg/OccupancyGrid",
	"sensor_msgs/msg/Imu", "sensor_msgs/msg/PointCloud2", "sensor_msgs/msg/LaserScan",
};

static bool is_primitive(const char *t)
{
	static const char *const prims[] = {"bool", "byte", "char", "float32", "float64", "int8",
					    "uint8", "int16", "uint16", "int32", "uint32", "int64",
					    "uint64", "string", "wstring"};
	for (size_t i = 0; i < sizeof prims / sizeof prims[0]; i++)
		if (strcmp(t, prims[i]) == 0)
			return true;
	return false;
}

/* Every complex field type in `text` (of package `pkg`) has its
 * "MSG: pkg/Type" chunk; a type without a package is its chunk's. */
static void check_self_contained(const char *text, const char *pkg)
{
	char sep[82], cur[128];
	memset(sep, '=', 80);
	sep[80] = '\n';
	sep[81] = '\0';
	snprintf(cur, sizeof cur, "%s", pkg);
	char *copy = strdup(text), *save = NULL;
	assert_non_null(copy);
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char type[128];
		if (strncmp(line, "MSG: ", 5) == 0) {
			snprintf(cur, sizeof cur, "%.*s", (int)strcspn(line + 5, "/"), line + 5);
			continue;
		}
		if (line[0] == '#' || line[0] == '=')
			continue;
		assert_int_equal(sscanf(line, "%127s", type), 1);
		type[strcspn(type, "[<")] = '\0';
		if (is_primitive(type))
			continue;
		char want[300];
		if (strchr(type, '/') != NULL)
			snprintf(want, sizeof want, "%sMSG: %s\n", sep, type);
		else
			snprintf(want, sizeof want, "%sMSG: %s/%s\n", sep, cur, type);
		if (strstr(text, want) == NULL)
			fail_msg("definition lacks %s", want + 81);
	}
	free(copy);
	assert_int_equal(text[strlen(text) - 1], '\n');
}

/* The demo's types are in bagtop's built-in set, complete, for every distro. */
static void test_definitions(void **state)
{
	(void)state;
	for (const char *const *d = defs_builtin_distros(); *d != NULL; d++) {
		struct defs_options o = {.distro = *d};
		struct defs_source *src = NULL;
		struct bt_error err;
		assert_int_equal(defs_source_new(&o, &src, &err), BT_OK);
		for (size_t i = 0; i < sizeof demo_ros_types / sizeof demo_ros_types[0]; i++) {
			struct defs_result r;
			defs_source_lookup(src, demo_ros_types[i], &r);
			if (r.origin != DEFS_ORIGIN_BUILTIN || strcmp(r.encoding, "ros2msg") != 0)
				fail_msg("%s (%s): no built-in definition", demo_ros_types[i], *d);
			char pkg[64];
			snprintf(pkg, sizeof pkg, "%.*s", (int)strcspn(demo_ros_types[i], "/"),
				 demo_ros_types[i]);
			check_self_contained(r.text, pkg);
			defs_result_fini(&r);
		}
		defs_source_free(src);
	}
}

TU_MAIN(
	cmocka_unit_test(test_definitions),
	cmocka_unit_test(test_bad_domain),
	cmocka_unit_test(test_publish))
