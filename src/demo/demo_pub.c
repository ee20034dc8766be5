/* demo_pub — the publishers behind `bagtop demo`.
 *
 * DESIGN
 * One participant, seven writers, one thread. The types are compiled from
 * our own IDL (src/demo/idl) with `idlc -t`, named the way rmw_cyclonedds
 * names ROS 2 types on DDS (`std_msgs::msg::dds_::String_` on `rt/chatter`,
 * keyless, XCDR1, no XTypes type information), so the recorder sees exactly
 * what a ROS 2 robot would put on the wire; plus one keyed plain-DDS topic.
 *
 * Timing: every topic has a period and a next deadline on CLOCK_MONOTONIC.
 * The loop publishes what is due, then sleeps with clock_nanosleep
 * (TIMER_ABSTIME) until the earliest deadline but never longer than 10 ms,
 * so *stop is seen within 10 ms. A topic that falls a whole period behind
 * skips ahead instead of bursting. Header stamps are CLOCK_REALTIME "now".
 *
 * The scene: a robot turning slowly on the spot in a 4 m x 3 m room with a
 * square pillar; /map, /scan and /points are all computed from that one
 * geometry, so they agree with each other in a viewer.
 *
 * Samples live in one heap struct reused for every publication; the big
 * buffers (the 256 KiB cloud, the map cells, the scan) are lent to the
 * samples (_release = false) and never freed by DDS.
 *
 * Teardown: dds_delete(participant) deletes topics and writers, then the
 * struct is freed. */
#include "demo_pub.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dds/dds.h>

#include "bt_time.h"
#include "btdds_participant.h"

#include "demo_robot_status.h"
#include "nav_msgs.h"
#include "sensor_msgs.h"
#include "std_msgs.h"
#include "tf2_msgs.h"

#define DEMO_PI 3.14159265358979323846
#define DEMO_MS INT64_C(1000000)
#define DEMO_STOP_POLL_NS (10 * DEMO_MS)
#define DEMO_NEVER INT64_MAX
/* A publisher waits this long at most for a reader (the recorder's): its
 * first message would otherwise go out before the recorder subscribed. */
#define DEMO_MATCH_WAIT_NS (10 * 1000 * DEMO_MS)
#define DEMO_MATCH_POLL_NS (5 * DEMO_MS)

/* sensor_msgs/PointField constants (.msg constants are not in our IDL). */
#define DEMO_POINTFIELD_FLOAT32 7

/* ---- the scene ---------------------------------------------------------- */

#define DEMO_ROOM_X 2.0 /* walls at x = ±2.0 m, y = ±1.5 m (map frame) */
#define DEMO_ROOM_Y 1.5
#define DEMO_PILLAR_X0 0.8 /* a 0.4 m square pillar */
#define DEMO_PILLAR_X1 1.2
#define DEMO_PILLAR_Y0 0.5
#define DEMO_PILLAR_Y1 0.9
#define DEMO_ROBOT_X (-0.4) /* where the robot stands */
#define DEMO_ROBOT_Y (-0.3)
#define DEMO_YAW_RATE 0.1       /* rad/s, the robot turns on the spot */
#define DEMO_LASER_HEIGHT 0.4   /* above the floor */
#define DEMO_CEILING_HEIGHT 2.5 /* above the floor */

#define DEMO_MAP_CELLS 100 /* 100 x 100 cells of 5 cm: 5 m x 5 m */
#define DEMO_MAP_RES 0.05
#define DEMO_MAP_ORIGIN (-2.5)

#define DEMO_SCAN_N 720
#define DEMO_CLOUD_ROWS 64  /* rings */
#define DEMO_CLOUD_COLS 256 /* azimuth steps */
#define DEMO_CLOUD_STEP 16  /* x, y, z, intensity: float32 each */
#define DEMO_CLOUD_BYTES (DEMO_CLOUD_ROWS * DEMO_CLOUD_COLS * DEMO_CLOUD_STEP) /* 256 KiB */

/* Distance along one axis from p (inside [lo, hi]) to the wall in direction d. */
static double demo_exit_1d(double p, double d, double lo, double hi)
{
	if (d > 1e-12)
		return (hi - p) / d;
	if (d < -1e-12)
		return (lo - p) / d;
	return HUGE_VAL;
}

/* Entry distance of the ray into the pillar (slab method), HUGE_VAL if missed. */
static double demo_pillar_hit(double px, double py, double dx, double dy)
{
	double tmin = -HUGE_VAL, tmax = HUGE_VAL;
	const double lo[2] = {DEMO_PILLAR_X0, DEMO_PILLAR_Y0}, hi[2] = {DEMO_PILLAR_X1, DEMO_PILLAR_Y1};
	const double p[2] = {px, py}, d[2] = {dx, dy};
	for (int i = 0; i < 2; i++) {
		if (fabs(d[i]) < 1e-12) {
			if (p[i] < lo[i] || p[i] > hi[i])
				return HUGE_VAL;
			continue;
		}
		double t0 = (lo[i] - p[i]) / d[i], t1 = (hi[i] - p[i]) / d[i];
		tmin = fmax(tmin, fmin(t0, t1));
		tmax = fmin(tmax, fmax(t0, t1));
	}
	return (tmax >= tmin && tmin > 0) ? tmin : HUGE_VAL;
}

/* Horizontal range from the robot along map-frame bearing `a`; *pillar says
 * which surface was hit. */
static double demo_room_range(double a, bool *pillar)
{
	double dx = cos(a), dy = sin(a);
	double wall = fmin(demo_exit_1d(DEMO_ROBOT_X, dx, -DEMO_ROOM_X, DEMO_ROOM_X),
			   demo_exit_1d(DEMO_ROBOT_Y, dy, -DEMO_ROOM_Y, DEMO_ROOM_Y));
	double p = demo_pillar_hit(DEMO_ROBOT_X, DEMO_ROBOT_Y, dx, dy);
	*pillar = p < wall;
	return *pillar ? p : wall;
}

static double demo_yaw(double t)
{
	return DEMO_YAW_RATE * t;
}

/* ---- the topics ---------------------------------------------------------- */

enum demo_pub {
	DEMO_CHATTER,
	DEMO_TF_STATIC,
	DEMO_MAP,
	DEMO_IMU,
	DEMO_POINTS,
	DEMO_SCAN,
	DEMO_STATUS,
	DEMO_N
};

struct demo_spec {
	const char *topic;
	const dds_topic_descriptor_t *desc;
	int64_t period_ns; /* 0: once */
	bool reliable, transient_local;
};

static const struct demo_spec demo_specs[DEMO_N] = {
	[DEMO_CHATTER] = {"rt/chatter", &std_msgs_msg_dds__String__desc, 100 * DEMO_MS, true, false},
	[DEMO_TF_STATIC] = {"rt/tf_static", &tf2_msgs_msg_dds__TFMessage__desc, 0, true, true},
	[DEMO_MAP] = {"rt/map", &nav_msgs_msg_dds__OccupancyGrid__desc, 5000 * DEMO_MS, true, true},
	[DEMO_IMU] = {"rt/imu", &sensor_msgs_msg_dds__Imu__desc, 5 * DEMO_MS, true, false},
	[DEMO_POINTS] = {"rt/points", &sensor_msgs_msg_dds__PointCloud2__desc, 100 * DEMO_MS, true, false},
	[DEMO_SCAN] = {"rt/scan", &sensor_msgs_msg_dds__LaserScan__desc, 25 * DEMO_MS, false, false},
	[DEMO_STATUS] = {"DemoRobotStatus", &DemoRobotStatus_desc, 200 * DEMO_MS, true, false},
};

struct demo {
	dds_entity_t pp, wr[DEMO_N];
	int64_t next[DEMO_N]; /* CLOCK_MONOTONIC deadline */
	bool ready[DEMO_N];   /* matched a reader (or waited long enough) */
	uint32_t seq[DEMO_N]; /* publications so far */
	int64_t t0;           /* CLOCK_MONOTONIC at start: the scene's clock */
	int64_t started;      /* CLOCK_REALTIME at start: the map's load time */
	int8_t map_cells[DEMO_MAP_CELLS * DEMO_MAP_CELLS];
	float ranges[DEMO_SCAN_N], intensities[DEMO_SCAN_N];
	uint8_t cloud[DEMO_CLOUD_BYTES];
};

static double demo_secs(const struct demo *d, int64_t mono)
{
	return (double)(mono - d->t0) / 1e9;
}

static struct builtin_interfaces_msg_dds__Time_ demo_stamp(int64_t ns)
{
	return (struct builtin_interfaces_msg_dds__Time_){(int32_t)(ns / BT_NS_PER_S),
							  (uint32_t)(ns % BT_NS_PER_S)};
}

static struct std_msgs_msg_dds__Header_ demo_header(int64_t now, const char *frame)
{
	return (struct std_msgs_msg_dds__Header_){demo_stamp(now), (char *)frame};
}

/* ---- one function per topic: fill the sample, write it ---- */

static dds_return_t demo_chatter(struct demo *d)
{
	char text[64];
	snprintf(text, sizeof text, "Hello from bagtop demo: %u", d->seq[DEMO_CHATTER] + 1);
	std_msgs_msg_dds__String_ m = {text};
	return dds_write(d->wr[DEMO_CHATTER], &m);
}

static struct geometry_msgs_msg_dds__TransformStamped_ demo_tf(int64_t now, const char *child, double x,
							      double y, double z)
{
	struct geometry_msgs_msg_dds__TransformStamped_ t = {
		demo_header(now, "base_link"), (char *)child, {{x, y, z}, {0.0, 0.0, 0.0, 1.0}}};
	return t;
}

static dds_return_t demo_tf_static(struct demo *d, int64_t now)
{
	struct geometry_msgs_msg_dds__TransformStamped_ tfs[2] = {
		demo_tf(now, "laser", 0.15, 0.0, DEMO_LASER_HEIGHT - 0.05),
		demo_tf(now, "imu_link", 0.0, 0.0, 0.1),
	};
	tf2_msgs_msg_dds__TFMessage_ m = {{2, 2, tfs, false}};
	return dds_write(d->wr[DEMO_TF_STATIC], &m);
}

static bool demo_in_rect(double x, double y, double half_x, double half_y)
{
	return fabs(x) < half_x && fabs(y) < half_y;
}

/* One map cell at (x, y): walls (a band one cell either side of the room's
 * outline) and the pillar occupied (100), the room free (0), outside unknown (-1). */
static int8_t demo_map_cell(double x, double y)
{
	const double e = DEMO_MAP_RES;
	bool wall = demo_in_rect(x, y, DEMO_ROOM_X + e, DEMO_ROOM_Y + e) &&
		    !demo_in_rect(x, y, DEMO_ROOM_X - e, DEMO_ROOM_Y - e);
	bool pillar = x > DEMO_PILLAR_X0 && x < DEMO_PILLAR_X1 && y > DEMO_PILLAR_Y0 && y < DEMO_PILLAR_Y1;
	if (wall || pillar)
		return 100;
	return demo_in_rect(x, y, DEMO_ROOM_X, DEMO_ROOM_Y) ? 0 : -1;
}

static void demo_map_build(int8_t *cells)
{
	for (int r = 0; r < DEMO_MAP_CELLS; r++)
		for (int c = 0; c < DEMO_MAP_CELLS; c++)
			cells[r * DEMO_MAP_CELLS + c] = demo_map_cell(DEMO_MAP_ORIGIN + (c + 0.5) * DEMO_MAP_RES,
								      DEMO_MAP_ORIGIN + (r + 0.5) * DEMO_MAP_RES);
}

static dds_return_t demo_map(struct demo *d, int64_t now)
{
	nav_msgs_msg_dds__OccupancyGrid_ m = {
		.header = demo_header(now, "map"),
		.info = {demo_stamp(d->started), (float)DEMO_MAP_RES, DEMO_MAP_CELLS, DEMO_MAP_CELLS,
			 {{DEMO_MAP_ORIGIN, DEMO_MAP_ORIGIN, 0.0}, {0.0, 0.0, 0.0, 1.0}}},
		.data = {sizeof d->map_cells, sizeof d->map_cells, d->map_cells, false},
	};
	return dds_write(d->wr[DEMO_MAP], &m);
}

static void demo_cov_diag(double *cov, double v)
{
	for (int i = 0; i < 9; i++)
		cov[i] = i % 4 == 0 ? v : 0.0;
}

/* Turning slowly about z; gravity in the linear acceleration; a little wobble. */
static dds_return_t demo_imu(struct demo *d, int64_t now, double t)
{
	sensor_msgs_msg_dds__Imu_ m;
	memset(&m, 0, sizeof m);
	double yaw = demo_yaw(t);
	m.header = demo_header(now, "imu_link");
	m.orientation = (struct geometry_msgs_msg_dds__Quaternion_){0.0, 0.0, sin(yaw / 2), cos(yaw / 2)};
	m.angular_velocity = (struct geometry_msgs_msg_dds__Vector3_){0.002 * sin(3 * t), 0.002 * cos(3 * t),
								      DEMO_YAW_RATE + 0.001 * sin(7 * t)};
	m.linear_acceleration = (struct geometry_msgs_msg_dds__Vector3_){0.02 * sin(5 * t), 0.02 * cos(4 * t),
									 9.81 + 0.01 * sin(11 * t)};
	demo_cov_diag(m.orientation_covariance, 1e-4);
	demo_cov_diag(m.angular_velocity_covariance, 1e-5);
	demo_cov_diag(m.linear_acceleration_covariance, 1e-3);
	return dds_write(d->wr[DEMO_IMU], &m);
}

/* One ring point: the horizontal range `h` to a wall, cut short by the floor or
 * ceiling for the ring's elevation. */
static void demo_cloud_point(uint8_t *out, double az, double el, double h, bool pillar)
{
	double tan_el = tan(el), r = h;
	float intensity = pillar ? 180.0f : 100.0f;
	if (tan_el < 0 && DEMO_LASER_HEIGHT / -tan_el < r) {
		r = DEMO_LASER_HEIGHT / -tan_el;
		intensity = 30.0f;
	} else if (tan_el > 0 && (DEMO_CEILING_HEIGHT - DEMO_LASER_HEIGHT) / tan_el < r) {
		r = (DEMO_CEILING_HEIGHT - DEMO_LASER_HEIGHT) / tan_el;
		intensity = 60.0f;
	}
	const float p[4] = {(float)(r * cos(az)), (float)(r * sin(az)), (float)(r * tan_el), intensity};
	memcpy(out, p, sizeof p); /* host byte order; is_bigendian says which */
}

static void demo_cloud_build(uint8_t *cloud, double yaw)
{
	for (int c = 0; c < DEMO_CLOUD_COLS; c++) {
		double az = -DEMO_PI + 2 * DEMO_PI * c / DEMO_CLOUD_COLS;
		bool pillar;
		double h = demo_room_range(yaw + az, &pillar);
		for (int r = 0; r < DEMO_CLOUD_ROWS; r++) {
			double el = (-15.0 + 30.0 * r / (DEMO_CLOUD_ROWS - 1)) * DEMO_PI / 180.0;
			size_t at = ((size_t)r * DEMO_CLOUD_COLS + (size_t)c) * DEMO_CLOUD_STEP;
			demo_cloud_point(cloud + at, az, el, h, pillar);
		}
	}
}

static dds_return_t demo_points(struct demo *d, int64_t now, double t)
{
	sensor_msgs_msg_dds__PointField_ fields[4] = {
		{(char *)"x", 0, DEMO_POINTFIELD_FLOAT32, 1},
		{(char *)"y", 4, DEMO_POINTFIELD_FLOAT32, 1},
		{(char *)"z", 8, DEMO_POINTFIELD_FLOAT32, 1},
		{(char *)"intensity", 12, DEMO_POINTFIELD_FLOAT32, 1},
	};
	demo_cloud_build(d->cloud, demo_yaw(t));
	sensor_msgs_msg_dds__PointCloud2_ m = {
		.header = demo_header(now, "laser"),
		.height = DEMO_CLOUD_ROWS,
		.width = DEMO_CLOUD_COLS,
		.fields = {4, 4, fields, false},
		.is_bigendian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
		.point_step = DEMO_CLOUD_STEP,
		.row_step = DEMO_CLOUD_STEP * DEMO_CLOUD_COLS,
		.data = {DEMO_CLOUD_BYTES, DEMO_CLOUD_BYTES, d->cloud, false},
		.is_dense = true,
	};
	return dds_write(d->wr[DEMO_POINTS], &m);
}

static dds_return_t demo_scan(struct demo *d, int64_t now, double t)
{
	const double inc = 2 * DEMO_PI / DEMO_SCAN_N, yaw = demo_yaw(t);
	uint32_t seq = d->seq[DEMO_SCAN];
	for (int i = 0; i < DEMO_SCAN_N; i++) {
		bool pillar;
		double r = demo_room_range(yaw - DEMO_PI + i * inc, &pillar);
		r += 0.005 * sin(12.9898 * i + 78.233 * seq); /* a little deterministic noise */
		d->ranges[i] = (float)r;
		d->intensities[i] = pillar ? 180.0f : 100.0f;
	}
	sensor_msgs_msg_dds__LaserScan_ m = {
		.header = demo_header(now, "laser"),
		.angle_min = (float)-DEMO_PI,
		.angle_max = (float)(-DEMO_PI + (DEMO_SCAN_N - 1) * inc),
		.angle_increment = (float)inc,
		.time_increment = (float)(0.025 / DEMO_SCAN_N),
		.scan_time = 0.025f,
		.range_min = 0.05f,
		.range_max = 12.0f,
		.ranges = {DEMO_SCAN_N, DEMO_SCAN_N, d->ranges, false},
		.intensities = {DEMO_SCAN_N, DEMO_SCAN_N, d->intensities, false},
	};
	return dds_write(d->wr[DEMO_SCAN], &m);
}

/* Two robots (two instances of the keyed topic), each 5 Hz. */
static dds_return_t demo_status(struct demo *d, double t)
{
	static const char *const modes[] = {"idle", "navigating", "docking", "charging"};
	dds_return_t rc = 0;
	for (int32_t id = 1; id <= 2; id++) {
		double level = 1.0 - fmod(0.01 * t + 0.3 * id, 1.0);
		const char *mode = modes[((int)(t / 4.0) + id) % 4]; /* a new mode every 4 s */
		DemoRobotStatus m = {id, (char *)mode, level, d->seq[DEMO_STATUS]};
		dds_return_t r = dds_write(d->wr[DEMO_STATUS], &m);
		if (r < 0)
			rc = r;
	}
	return rc;
}

static dds_return_t demo_publish_one(struct demo *d, enum demo_pub p, int64_t mono)
{
	int64_t now = bt_time_realtime_ns();
	double t = demo_secs(d, mono);
	switch (p) {
	case DEMO_CHATTER:
		return demo_chatter(d);
	case DEMO_TF_STATIC:
		return demo_tf_static(d, now);
	case DEMO_MAP:
		return demo_map(d, now);
	case DEMO_IMU:
		return demo_imu(d, now, t);
	case DEMO_POINTS:
		return demo_points(d, now, t);
	case DEMO_SCAN:
		return demo_scan(d, now, t);
	default:
		return demo_status(d, t);
	}
}

/* ---- set-up ---------------------------------------------------------------- */

/* rmw-like writer QoS: KEEP_LAST 10; reliable unless best-effort; transient-local
 * topics keep their last sample for late joiners (durability_service KEEP_LAST 1).
 * A short max_blocking_time so a stuck reader cannot hold the loop past the
 * 10 ms stop poll for long (KEEP_LAST drops rather than blocks anyway). */
static dds_qos_t *demo_qos(const struct demo_spec *s)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 10);
	dds_qset_reliability(q, s->reliable ? DDS_RELIABILITY_RELIABLE : DDS_RELIABILITY_BEST_EFFORT,
			     DDS_MSECS(10));
	if (s->transient_local) {
		dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
		dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, 1, DDS_LENGTH_UNLIMITED,
					    DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED);
	}
	return q;
}

static int demo_fail(const char *what, const char *topic, dds_return_t rc)
{
	fprintf(stderr, "bagtop: error: cannot start DDS: %s%s%s: %s\n", what, topic ? " " : "",
		topic ? topic : "", dds_strretcode(rc));
	return 3;
}

static int demo_start(struct demo *d, uint32_t domain_id, const struct btdds_env *env)
{
	struct bt_error err;
	if (btdds_participant_create(domain_id, env, &d->pp, &err) != BT_OK) {
		d->pp = 0;
		fprintf(stderr, "bagtop: error: cannot start DDS on domain %u: %s\n", domain_id,
			err.msg);
		return 3;
	}
	for (int i = 0; i < DEMO_N; i++) {
		const struct demo_spec *s = &demo_specs[i];
		dds_qos_t *q = demo_qos(s);
		dds_entity_t tp = dds_create_topic(d->pp, s->desc, s->topic, q, NULL);
		d->wr[i] = tp < 0 ? tp : dds_create_writer(d->pp, tp, q, NULL);
		dds_delete_qos(q);
		if (tp < 0)
			return demo_fail("create topic", s->topic, tp);
		if (d->wr[i] < 0)
			return demo_fail("create writer", s->topic, d->wr[i]);
	}
	return 0;
}

/* ---- the loop ---------------------------------------------------------------- */

static void demo_sleep_until(int64_t mono)
{
	struct timespec ts = {(time_t)(mono / BT_NS_PER_S), (long)(mono % BT_NS_PER_S)};
	/* EINTR (a signal: maybe the stop flag) just ends this slice early. */
	(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* The recorder runs beside us and subscribes once it has discovered a
 * publisher: a topic publishes its first message only once a reader
 * matched it (DEMO_MATCH_WAIT_NS at most), so the bag starts with message
 * 1 ("Hello from bagtop demo: 1"), not with whatever came after the
 * recorder's reader appeared. Each topic on its own: one the recorder
 * leaves out (-x) must not hold the others back. */
static bool demo_ready(struct demo *d, int i, int64_t now)
{
	if (d->ready[i])
		return true;
	dds_publication_matched_status_t st;
	if ((dds_get_publication_matched_status(d->wr[i], &st) == DDS_RETCODE_OK &&
	     st.current_count > 0) ||
	    now - d->t0 >= DEMO_MATCH_WAIT_NS) {
		d->ready[i] = true;
		d->next[i] = now;
	}
	return d->ready[i];
}

/* Publishes what is due at `now`; returns the earliest next deadline. */
static int64_t demo_tick(struct demo *d, int64_t now, uint64_t *failed)
{
	int64_t wake = DEMO_NEVER;
	for (int i = 0; i < DEMO_N; i++) {
		if (!demo_ready(d, i, now)) {
			if (now + DEMO_MATCH_POLL_NS < wake)
				wake = now + DEMO_MATCH_POLL_NS;
			continue;
		}
		if (now >= d->next[i]) {
			if (demo_publish_one(d, (enum demo_pub)i, now) < 0)
				(*failed)++;
			d->seq[i]++;
			int64_t period = demo_specs[i].period_ns;
			d->next[i] = period == 0 ? DEMO_NEVER : d->next[i] + period;
			if (d->next[i] <= now) /* a whole period behind: skip, don't burst */
				d->next[i] = now + period;
		}
		if (d->next[i] < wake)
			wake = d->next[i];
	}
	return wake;
}

static void demo_run(struct demo *d, volatile sig_atomic_t *stop, int64_t duration_ns)
{
	int64_t end = duration_ns > 0 ? d->t0 + duration_ns : DEMO_NEVER;
	uint64_t failed = 0;
	for (int i = 0; i < DEMO_N; i++)
		d->next[i] = d->t0;
	for (;;) {
		int64_t now = bt_time_monotonic_ns();
		if ((stop && *stop) || now >= end)
			break;
		int64_t wake = demo_tick(d, now, &failed);
		if (wake > now + DEMO_STOP_POLL_NS)
			wake = now + DEMO_STOP_POLL_NS;
		if (wake > end)
			wake = end;
		demo_sleep_until(wake);
	}
	if (failed > 0)
		fprintf(stderr, "bagtop: warning: demo: %llu writes failed\n", (unsigned long long)failed);
}

int demo_publish(uint32_t domain_id, const struct btdds_env *env, volatile sig_atomic_t *stop,
		 int64_t duration_ns)
{
	struct demo *d = calloc(1, sizeof *d);
	if (d == NULL) {
		fprintf(stderr, "bagtop: error: cannot start DDS: %s\n", strerror(ENOMEM));
		return 3;
	}
	demo_map_build(d->map_cells);
	d->t0 = bt_time_monotonic_ns();
	d->started = bt_time_realtime_ns();
	int rc = demo_start(d, domain_id, env);
	if (rc == 0)
		demo_run(d, stop, duration_ns);
	(void)btdds_participant_delete(d->pp); /* exiting: nothing to report */
	free(d);
	return rc;
}

