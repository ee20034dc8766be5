/* The get_type_description wire format, pure: GetTypeDescription replies
 * (laid out by hand, tests/tools/cdr_hand.h) decode; replies that lie about
 * a length, are cut anywhere, list absurdly many types or nest too deep are
 * refused with a clear line and never read past their bytes (each decoded
 * from a heap copy of exactly its length: ASan sees any overrun); field
 * lists render as .msg; ros_discovery_info finds a writer's node; the
 * service names, ids and header are rmw_cyclonedds's. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "btdds_cdr.h"
#include "btdds_graph.h"
#include "btdds_service.h"
#include "btdds_typedesc.h"
#include "cdr_hand.h"
#include "test_util.h"

static void field(struct out *o, const char *name, unsigned id, uint64_t cap, uint64_t scap,
		  const char *nested, const char *def)
{
	str(o, name);
	u8(o, id);
	u64(o, cap);
	u64(o, scap);
	str(o, nested);
	str(o, def);
}

/* A reply's header (guid, seq) and its `successful` flag, set. */
static void success_head(struct out *o, uint64_t guid, int64_t seq)
{
	start(o);
	u64(o, guid);
	u64(o, (uint64_t)seq);
	u8(o, 1);
}

/* A successful reply: Probe {int32 count; my_msgs/msg/Inner inner}, Inner
 * {float64 x}, one source; padded to 4 bytes when `pad`. */
static void good_reply(struct out *o, bool pad)
{
	success_head(o, 0x1122334455667788u, 7);
	str(o, "");
	str(o, "my_msgs/msg/Probe");
	u32(o, 2);
	field(o, "count", 6, 0, 0, "", "");
	field(o, "inner", 1, 0, 0, "my_msgs/msg/Inner", "");
	u32(o, 1);
	str(o, "my_msgs/msg/Inner");
	u32(o, 1);
	field(o, "x", 11, 0, 0, "", "");
	u32(o, 1);
	str(o, "my_msgs/msg/Probe");
	str(o, "msg");
	str(o, "int32 count\nInner inner\n");
	u32(o, 1);
	str(o, "k");
	str(o, "v");
	if (pad)
		finish(o);
}

/* Decodes n bytes from an exact heap copy. */
static bt_status decode(const unsigned char *b, size_t n, struct btdds_td_reply *t,
			struct bt_error *err)
{
	unsigned char *copy = malloc(n ? n : 1);
	memcpy(copy, b, n);
	struct btdds_cdr_rd r;
	bt_status st = btdds_cdr_rd_init(&r, copy, n);
	uint64_t guid;
	int64_t seq;
	if (st == BT_OK && !btdds_svc_get_header(&r, &guid, &seq))
		st = btdds_cdr_error(&r, "header", err);
	if (st == BT_OK)
		st = btdds_td_decode(&r, t, err);
	if (st == BT_OK)
		btdds_td_reply_fini(t);
	free(copy);
	return st;
}

static void test_decode_good(void **state)
{
	(void)state;
	struct out o = {0};
	good_reply(&o, true);
	struct btdds_cdr_rd r;
	assert_int_equal(btdds_cdr_rd_init(&r, o.b, o.len), BT_OK);
	uint64_t guid;
	int64_t seq;
	assert_true(btdds_svc_get_header(&r, &guid, &seq));
	assert_true(guid == 0x1122334455667788u && seq == 7);
	struct btdds_td_reply t;
	struct bt_error err = {0};
	assert_int_equal(btdds_td_decode(&r, &t, &err), BT_OK);
	assert_true(t.successful);
	assert_int_equal(t.n_types, 2);
	assert_string_equal(t.types[0].type_name, "my_msgs/msg/Probe");
	assert_int_equal(t.types[0].n_fields, 2);
	assert_string_equal(t.types[0].fields[1].nested_type_name, "my_msgs/msg/Inner");
	assert_int_equal(t.types[1].fields[0].type_id, 11);
	assert_int_equal(t.n_sources, 1);
	assert_string_equal(t.sources[0].raw_file_contents, "int32 count\nInner inner\n");
	btdds_td_reply_fini(&t);
	free(o.b);
}

/* Every prefix of a good reply is refused (none of them is complete). */
static void test_truncated(void **state)
{
	(void)state;
	struct out o = {0};
	good_reply(&o, false);
	struct btdds_td_reply t;
	struct bt_error err = {0};
	assert_int_equal(decode(o.b, o.len, &t, &err), BT_OK);
	for (size_t n = 0; n < o.len; n++) {
		bt_status st = decode(o.b, n, &t, &err);
		if (st == BT_OK)
			fail_msg("a reply cut to %zu of %zu bytes decoded", n, o.len);
	}
	free(o.b);
}

/* A string or sequence length that lies: the error says so, nothing is
 * allocated for it. */
static void test_lying_lengths(void **state)
{
	(void)state;
	struct out o = {0};
	struct btdds_td_reply t;
	struct bt_error err = {0};
	success_head(&o, 1, 1);
	u32(&o, 0xfffffff0u); /* failure_reason, 4 GiB */
	put(&o, "x", 1);
	finish(&o);
	assert_int_equal(decode(o.b, o.len, &t, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "string length beyond the end"));

	success_head(&o, 1, 1);
	str(&o, "");
	str(&o, "my_msgs/msg/Probe");
	u32(&o, 0x7fffffffu); /* two billion fields */
	finish(&o);
	assert_int_equal(decode(o.b, o.len, &t, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "sequence length beyond the end"));

	success_head(&o, 1, 1); /* a string without its NUL */
	u32(&o, 3);
	put(&o, "abc", 3);
	u32(&o, 0);
	finish(&o);
	assert_int_equal(decode(o.b, o.len, &t, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "NUL"));

	success_head(&o, 1, 1); /* a type name beyond string<=255 */
	str(&o, "");
	char big[400];
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	str(&o, big);
	u32(&o, 0);
	finish(&o);
	assert_int_equal(decode(o.b, o.len, &t, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "bound"));
	free(o.b);
}

/* 2000 referenced types: refused before they are read. */
static void test_too_many_types(void **state)
{
	(void)state;
	struct out o = {0};
	success_head(&o, 1, 1);
	str(&o, "");
	str(&o, "my_msgs/msg/D0");
	u32(&o, 0);
	u32(&o, 2000);
	for (int i = 1; i <= 2000; i++) {
		str(&o, "my_msgs/msg/D");
		u32(&o, 0);
	}
	u32(&o, 0);
	u32(&o, 0);
	finish(&o);
	struct btdds_td_reply t;
	struct bt_error err = {0};
	assert_int_equal(decode(o.b, o.len, &t, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "referenced types"));
	free(o.b);
}

/* The reader's nesting cap: 1000 levels entered, refused from the 33rd. */
static void test_nesting_cap(void **state)
{
	(void)state;
	unsigned char b[8] = {0, 1, 0, 0, 0, 0, 0, 0};
	struct btdds_cdr_rd r;
	assert_int_equal(btdds_cdr_rd_init(&r, b, sizeof b), BT_OK);
	int entered = 0;
	for (int i = 0; i < 1000; i++)
		entered += btdds_cdr_enter(&r);
	assert_int_equal(entered, BTDDS_CDR_DEPTH_MAX);
	struct bt_error err = {0};
	assert_int_equal(btdds_cdr_error(&r, "deep", &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "nested too deep"));
	/* not plain CDR, or shorter than its header */
	unsigned char pl[4] = {0, 3, 0, 0};
	assert_int_equal(btdds_cdr_rd_init(&r, pl, 4), BT_ERR_FORMAT);
	assert_int_equal(btdds_cdr_rd_init(&r, b, 3), BT_ERR_FORMAT);
	/* big endian reads */
	unsigned char be[8] = {0, 0, 0, 0, 0, 0, 1, 2};
	assert_int_equal(btdds_cdr_rd_init(&r, be, 8), BT_OK);
	assert_int_equal(btdds_cdr_u32(&r), 0x102);
}

static void test_render(void **state)
{
	(void)state;
	struct btdds_td_field f[] = {
		{"count", 6, 0, 0, "", ""},
		{"label", 21, 0, 10, "", ""},                   /* string<=10 */
		{"grid", 3 + 48, 4, 0, "", ""},                 /* uint8[4] */
		{"vals", 11 + 96, 3, 0, "", ""},                /* float64[<=3] */
		{"items", 1 + 144, 0, 0, "my_msgs/msg/Item", ""}, /* my_msgs/Item[] */
		{"names", 21 + 96, 2, 5, "", ""},               /* string<=5[<=2] */
		{"ok", 15, 0, 0, "", "true"},                   /* a default value */
		{"ws", 18 + 144, 0, 0, "", ""},                 /* wstring[] */
	};
	struct btdds_td_type t = {"my_msgs/msg/Probe", f, sizeof f / sizeof f[0]};
	struct bt_buf b = BT_BUF_INIT;
	struct bt_error err = {0};
	assert_int_equal(btdds_td_msg_text(&t, &b, &err), BT_OK);
	assert_string_equal(b.data, "int32 count\nstring<=10 label\nuint8[4] grid\n"
				    "float64[<=3] vals\nmy_msgs/Item[] items\n"
				    "string<=5[<=2] names\nbool ok true\nwstring[] ws\n");
	static const struct btdds_td_field bad[] = {
		{"ld", 12, 0, 0, "", ""},              /* long double */
		{"wc", 14, 0, 0, "", ""},              /* wchar */
		{"x", 40, 0, 0, "", ""},               /* no such base type */
		{"y", 200, 0, 0, "", ""},              /* no such container */
		{"n", 1, 0, 0, "my_msgs/srv/X", ""},   /* not a message type */
		{"m", 1, 0, 0, "", ""},                /* nested without a name */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct btdds_td_type tb = {"my_msgs/msg/Bad", (struct btdds_td_field *)&bad[i], 1};
		bt_buf_reset(&b);
		assert_int_equal(btdds_td_msg_text(&tb, &b, &err), BT_ERR_FORMAT);
		assert_non_null(strstr(err.msg, "my_msgs/msg/Bad"));
		assert_non_null(strstr(err.msg, bad[i].name));
	}
	bt_buf_fini(&b);
}

static void graph(struct out *o, const char *ns, const unsigned char *w)
{
	unsigned char pp[16] = {1, 2, 3};
	start(o);
	put(o, pp, 16);
	u32(o, 2);
	str(o, "/");
	str(o, "other");
	u32(o, 0);
	u32(o, 0);
	str(o, ns);
	str(o, "talker");
	u32(o, 1);
	put(o, pp, 16);
	u32(o, 2);
	put(o, pp, 16);
	put(o, w, 16);
	finish(o);
}

static void test_graph(void **state)
{
	(void)state;
	unsigned char w[16] = {9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 0, 0, 1, 3};
	unsigned char x[16] = {8};
	struct out o = {0};
	char fqn[BTDDS_NODE_FQN_MAX];
	struct bt_error err = {0};
	graph(&o, "/", w);
	assert_int_equal(btdds_graph_writer_node(o.b, o.len, w, fqn, &err), BT_OK);
	assert_string_equal(fqn, "/talker");
	assert_int_equal(btdds_graph_writer_node(o.b, o.len, x, fqn, &err), BT_ERR_NOTFOUND);
	unsigned char gid[16];
	assert_int_equal(btdds_graph_participant(o.b, o.len, gid), BT_OK);
	assert_int_equal(gid[2], 3);
	graph(&o, "/robot1", w);
	assert_int_equal(btdds_graph_writer_node(o.b, o.len, w, fqn, &err), BT_OK);
	assert_string_equal(fqn, "/robot1/talker");
	for (size_t n = 0; n + 4 < o.len; n++) { /* cut anywhere */
		unsigned char *copy = malloc(n ? n : 1);
		memcpy(copy, o.b, n);
		assert_int_not_equal(btdds_graph_writer_node(copy, n, w, fqn, &err), BT_OK);
		free(copy);
	}
	free(o.b);
}

static void test_service_names(void **state)
{
	(void)state;
	char *s = btdds_svc_topic("/probe_node/get_type_description", true);
	assert_string_equal(s, "rq/probe_node/get_type_descriptionRequest");
	free(s);
	s = btdds_svc_topic("/ns/n/get_type_description", false);
	assert_string_equal(s, "rr/ns/n/get_type_descriptionReply");
	free(s);
	s = btdds_svc_type(BTDDS_TD_SERVICE_TYPE, true);
	assert_string_equal(s,
			    "type_description_interfaces::srv::dds_::GetTypeDescription_Request_");
	free(s);
	s = btdds_svc_type("rosbag2_interfaces/srv/Snapshot", false);
	assert_string_equal(s, "rosbag2_interfaces::srv::dds_::Snapshot_Response_");
	free(s);
	assert_null(btdds_svc_type("std_msgs/msg/String", true));
	assert_null(btdds_svc_type("/srv/X", true));
	dds_guid_t g = {{0x01, 0x0f, 0xab, 3, 4, 5, 6, 7, 8, 9, 10, 11, 0xff, 0xff, 0xff, 0xff}};
	char id[BTDDS_SVC_ID_MAX];
	btdds_svc_id(&g, 0x102, id);
	assert_string_equal(id, " 1.f.ab.3.4.5.6.7.8.9.a.b.0.0.1.2");
	/* the request: header then body, padded to 4 */
	struct btdds_cdr_wr w;
	btdds_cdr_wr_init(&w);
	btdds_svc_put_header(&w, 0x0102030405060708u, 9);
	btdds_td_put_request(&w, "a/msg/B", "H", true);
	struct out o = {0};
	start(&o);
	u64(&o, 0x0102030405060708u);
	u64(&o, 9);
	str(&o, "a/msg/B");
	str(&o, "H");
	u8(&o, 1);
	finish(&o);
	assert_int_equal(w.b.len, o.len);
	assert_memory_equal(w.b.data, o.b, o.len);
	btdds_cdr_wr_fini(&w);
	free(o.b);
}

TU_MAIN(
	cmocka_unit_test(test_decode_good),
	cmocka_unit_test(test_truncated),
	cmocka_unit_test(test_lying_lengths),
	cmocka_unit_test(test_too_many_types),
	cmocka_unit_test(test_nesting_cap),
	cmocka_unit_test(test_render),
	cmocka_unit_test(test_graph),
	cmocka_unit_test(test_service_names))
