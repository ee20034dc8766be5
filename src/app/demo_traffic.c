#include "demo_traffic.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bt_time.h"

/* ---- a minimal XCDR1 little-endian writer ---- */

struct cdr {
	struct bt_buf *b;
	bool ok;
};

static void cdr_put(struct cdr *c, const void *p, size_t n)
{
	if (c->ok && bt_buf_append(c->b, p, n) != BT_OK)
		c->ok = false;
}

/* Alignment counts from the byte after the 4-byte encapsulation header. */
static void cdr_align(struct cdr *c, size_t a)
{
	static const uint8_t zeros[8];
	size_t off = c->b->len - 4;
	if (off % a)
		cdr_put(c, zeros, a - off % a);
}

static void cdr_u8(struct cdr *c, uint8_t v)
{
	cdr_put(c, &v, 1);
}

static void cdr_u32(struct cdr *c, uint32_t v)
{
	uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
	cdr_align(c, 4);
	cdr_put(c, b, 4);
}

static void cdr_f64(struct cdr *c, double v)
{
	uint64_t u;
	memcpy(&u, &v, 8);
	uint8_t b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(u >> (8 * i));
	cdr_align(c, 8);
	cdr_put(c, b, 8);
}

static void cdr_string(struct cdr *c, const char *s)
{
	size_t n = strlen(s) + 1;
	cdr_u32(c, (uint32_t)n);
	cdr_put(c, s, n);
}

static void cdr_header(struct cdr *c, int64_t stamp, const char *frame)
{
	cdr_u32(c, (uint32_t)(stamp / BT_NS_PER_S));
	cdr_u32(c, (uint32_t)(stamp % BT_NS_PER_S));
	cdr_string(c, frame);
}

static void cdr_begin(struct cdr *c, struct bt_buf *b)
{
	static const uint8_t enc[4] = {0x00, 0x01, 0x00, 0x00}; /* CDR_LE */
	c->b = b;
	c->ok = true;
	bt_buf_reset(b);
	cdr_put(c, enc, 4);
}

static bt_status cdr_end(struct cdr *c)
{
	static const uint8_t zeros[4];
	if (c->b->len % 4)
		cdr_put(c, zeros, 4 - c->b->len % 4);
	return c->ok ? BT_OK : BT_ERR_NOMEM;
}

/* ---- the messages ---- */

static void demo_vec3(struct cdr *c, double x, double y, double z)
{
	cdr_f64(c, x);
	cdr_f64(c, y);
	cdr_f64(c, z);
}

static void demo_cov9(struct cdr *c, double diag)
{
	for (int i = 0; i < 9; i++)
		cdr_f64(c, i % 4 == 0 ? diag : 0.0);
}

static void demo_imu(struct cdr *c, uint32_t seq, int64_t stamp)
{
	double t = seq * 0.01;
	cdr_header(c, stamp, "imu_link");
	double yaw = 0.3 * sin(t);
	demo_vec3(c, 0.0, 0.0, sin(yaw / 2)); /* orientation x y z */
	cdr_f64(c, cos(yaw / 2));              /* orientation w */
	demo_cov9(c, 1e-4);
	demo_vec3(c, 0.01 * sin(3 * t), 0.01 * cos(3 * t), 0.3 * cos(t));
	demo_cov9(c, 1e-3);
	demo_vec3(c, 0.2 * cos(t), 0.05 * sin(2 * t), 9.81);
	demo_cov9(c, 1e-2);
}

static void demo_image(struct cdr *c, uint32_t seq, int64_t stamp)
{
	const uint32_t w = 160, h = 120;
	cdr_header(c, stamp, "camera");
	cdr_u32(c, h);
	cdr_u32(c, w);
	cdr_string(c, "mono8");
	cdr_u8(c, 0);
	cdr_u32(c, w);
	cdr_u32(c, w * h);
	uint8_t row[160];
	for (uint32_t y = 0; y < h; y++) {
		for (uint32_t x = 0; x < w; x++)
			row[x] = (uint8_t)((x + y + 4 * seq) & 0xff);
		cdr_put(c, row, w);
	}
}

static void demo_tf_static(struct cdr *c, int64_t stamp)
{
	static const char *const child[] = {"imu_link", "camera"};
	cdr_u32(c, 2); /* transforms */
	for (int i = 0; i < 2; i++) {
		cdr_header(c, stamp, "base_link");
		cdr_string(c, child[i]);
		demo_vec3(c, 0.1 * (i + 1), 0.0, 0.2); /* translation */
		demo_vec3(c, 0.0, 0.0, 0.0);           /* rotation x y z */
		cdr_f64(c, 1.0);                       /* rotation w */
	}
}

bt_status demo_message(enum demo_topic t, uint32_t seq, int64_t stamp_ns, struct bt_buf *out)
{
	struct cdr c;
	char text[64];
	cdr_begin(&c, out);
	switch (t) {
	case DEMO_TF_STATIC:
		demo_tf_static(&c, stamp_ns);
		break;
	case DEMO_CHATTER:
		snprintf(text, sizeof text, "Hello from the bagtop demo: %u", seq);
		cdr_string(&c, text);
		break;
	case DEMO_IMU:
		demo_imu(&c, seq, stamp_ns);
		break;
	default:
		demo_image(&c, seq, stamp_ns);
		break;
	}
	return cdr_end(&c);
}

/* ---- metadata and definitions (ros2msg: root, then "MSG:" chunks) ---- */

#define DEMO_SEP "\n================================================================================\n"
#define DEMO_TIME "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec"
#define DEMO_HEADER "MSG: std_msgs/Header\nbuiltin_interfaces/Time stamp\nstring frame_id"
#define DEMO_VEC3 "MSG: geometry_msgs/Vector3\nfloat64 x\nfloat64 y\nfloat64 z"
#define DEMO_QUAT                                                                              \
	"MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1"

struct demo_desc {
	const char *name, *type, *def;
	bool latched;
};

static const struct demo_desc demo_descs[DEMO_N_TOPICS] = {
	[DEMO_TF_STATIC] = {"/tf_static", "tf2_msgs/msg/TFMessage",
			    "geometry_msgs/TransformStamped[] transforms" DEMO_SEP
			    "MSG: geometry_msgs/TransformStamped\nstd_msgs/Header header\n"
			    "string child_frame_id\ngeometry_msgs/Transform transform" DEMO_SEP
			    DEMO_HEADER DEMO_SEP DEMO_TIME DEMO_SEP
			    "MSG: geometry_msgs/Transform\ngeometry_msgs/Vector3 translation\n"
			    "geometry_msgs/Quaternion rotation" DEMO_SEP DEMO_VEC3 DEMO_SEP DEMO_QUAT,
			    true},
	[DEMO_CHATTER] = {"/chatter", "std_msgs/msg/String", "string data", false},
	[DEMO_IMU] = {"/imu", "sensor_msgs/msg/Imu",
		      "std_msgs/Header header\ngeometry_msgs/Quaternion orientation\n"
		      "float64[9] orientation_covariance\ngeometry_msgs/Vector3 angular_velocity\n"
		      "float64[9] angular_velocity_covariance\n"
		      "geometry_msgs/Vector3 linear_acceleration\n"
		      "float64[9] linear_acceleration_covariance" DEMO_SEP DEMO_HEADER DEMO_SEP
		      DEMO_TIME DEMO_SEP DEMO_QUAT DEMO_SEP DEMO_VEC3,
		      false},
	[DEMO_IMAGE] = {"/camera/image_raw", "sensor_msgs/msg/Image",
			"std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\n"
			"uint8 is_bigendian\nuint32 step\nuint8[] data" DEMO_SEP DEMO_HEADER
			DEMO_SEP DEMO_TIME,
			false},
};

void demo_topic_describe(enum demo_topic t, struct bag_topic *topic, struct bag_qos *qos,
			 struct bag_msgdef *def)
{
	const struct demo_desc *d = &demo_descs[t];
	bag_qos_default(qos);
	if (d->latched)
		qos->durability = BAG_DURABILITY_TRANSIENT_LOCAL;
	*topic = (struct bag_topic){(char *)d->name, (char *)d->type, "cdr", qos, 1, ""};
	*def = (struct bag_msgdef){(char *)d->type, "ros2msg", (char *)d->def, ""};
}
