/* mcap_order and what `bagtop check` makes of it: MCAP files built byte by
 * byte here from the specification (https://mcap.dev/spec: records are an
 * opcode, a u64 length and the fields, little-endian; strings and byte
 * arrays a u32 length first), not by bagtop's writer, with Schema, Channel
 * and Message records in and out of the order the specification asks.
 *  - mcap_order accepts the ordered files and names the first record out
 *    of order in the others (its offset, in the file or in its chunk);
 *  - bag_check passes the ordered file and reports the misordered one in
 *    one line, while bagtop's reader still reads every message of it;
 *  - through the built binary: `bagtop check` exits 1 on it, `bagtop
 *    convert -s mcap` copies it, and the copy passes `bagtop check`.
 * The conformance suite's files (test_mcap_conformance) and the bags
 * bagtop writes (tb_mcap_defs_first) are checked with mcap_order too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_reader.h"
#include "bag_tools.h"
#include "bt_buf.h"
#include "bt_fs.h"
#include "mcap_order.h"
#include "mcap_reader.h"
#include "test_bag.h"
#include "test_util.h"

/* ---- bytes by the spec ---- */

static void mo_put(struct bt_buf *b, const void *p, size_t n)
{
	assert_int_equal(bt_buf_append(b, p, n), BT_OK);
}

static void mo_uint(struct bt_buf *b, uint64_t v, int bytes)
{
	uint8_t le[8];
	for (int i = 0; i < bytes; i++)
		le[i] = (uint8_t)(v >> (8 * i));
	mo_put(b, le, (size_t)bytes);
}

static void mo_str(struct bt_buf *b, const char *s)
{
	mo_uint(b, strlen(s), 4);
	mo_put(b, s, strlen(s));
}

/* A record: opcode, u64 length, then the body in `body`. */
static void mo_record(struct bt_buf *out, uint8_t op, const struct bt_buf *body)
{
	mo_uint(out, op, 1);
	mo_uint(out, body->len, 8);
	mo_put(out, body->data, body->len);
}

static void mo_schema(struct bt_buf *out, uint16_t id, const char *name, const char *text)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, id, 2);
	mo_str(&b, name);
	mo_str(&b, "ros2msg");
	mo_str(&b, text); /* data: u32 length + bytes, as a string is */
	mo_record(out, 0x03, &b);
	bt_buf_fini(&b);
}

static void mo_channel(struct bt_buf *out, uint16_t id, uint16_t schema, const char *topic)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, id, 2);
	mo_uint(&b, schema, 2);
	mo_str(&b, topic);
	mo_str(&b, "cdr");
	mo_uint(&b, 0, 4); /* metadata: an empty map */
	mo_record(out, 0x04, &b);
	bt_buf_fini(&b);
}

static void mo_message(struct bt_buf *out, uint16_t channel, uint64_t t)
{
	static const uint8_t cdr[8] = {0, 1, 0, 0, 42, 0, 0, 0}; /* std_msgs/Int32 42 */
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, channel, 2);
	mo_uint(&b, t, 4); /* sequence */
	mo_uint(&b, t, 8); /* log_time */
	mo_uint(&b, t, 8); /* publish_time */
	mo_put(&b, cdr, sizeof cdr);
	mo_record(out, 0x05, &b);
	bt_buf_fini(&b);
}

/* An uncompressed Chunk holding `records` (no CRC: 0). */
static void mo_chunk(struct bt_buf *out, const struct bt_buf *records, uint64_t t0, uint64_t t1)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, t0, 8);
	mo_uint(&b, t1, 8);
	mo_uint(&b, records->len, 8);
	mo_uint(&b, 0, 4);
	mo_str(&b, "");
	mo_uint(&b, records->len, 8);
	mo_put(&b, records->data, records->len);
	mo_record(out, 0x06, &b);
	bt_buf_fini(&b);
}

static const uint8_t mo_magic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

static void mo_begin(struct bt_buf *out)
{
	mo_put(out, mo_magic, sizeof mo_magic);
	struct bt_buf b = BT_BUF_INIT;
	mo_str(&b, "ros2");
	mo_str(&b, "test_mcap_order");
	mo_record(out, 0x01, &b);
	bt_buf_fini(&b);
}

/* Data End, a Footer with no summary, the closing magic; saved to
 * DIR/NAME (returned, static). */
static const char *mo_end(struct bt_buf *out, const char *dir, const char *name)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, 0, 4);
	mo_record(out, 0x0F, &b);
	bt_buf_reset(&b);
	mo_uint(&b, 0, 8);
	mo_uint(&b, 0, 8);
	mo_uint(&b, 0, 4);
	mo_record(out, 0x02, &b);
	bt_buf_fini(&b);
	mo_put(out, mo_magic, sizeof mo_magic);
	static char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(out->data, 1, out->len, f), out->len);
	assert_int_equal(fclose(f), 0);
	bt_buf_fini(out);
	return path;
}

/* The file streamed through mcap_order: true when in order, else *why. */
static bool mo_run(const char *path, char *why, size_t n)
{
	struct mcap_reader *r;
	struct bt_error err;
	assert_int_equal(mcap_reader_open(&r, path, &err), BT_OK);
	assert_int_equal(mcap_reader_stream_begin(r, &err), BT_OK);
	struct mcap_order *o = mcap_order_new();
	assert_non_null(o);
	bool ok = true;
	for (bool end = false;;) {
		struct mcap_item it;
		if (mcap_reader_next(r, &it, &end, &err) != BT_OK)
			fail_msg("%s: %s", path, err.msg);
		if (end)
			break;
		if (ok)
			ok = mcap_order_feed(o, &it, why, n);
		else /* once broken, it stays so */
			assert_false(mcap_order_feed(o, &it, why, n));
	}
	mcap_order_free(o);
	mcap_reader_close(r);
	return ok;
}

static void mo_expect(const char *path, const char *want)
{
	char why[512] = "";
	bool ok = mo_run(path, why, sizeof why);
	if (!want) {
		if (!ok)
			fail_msg("%s: %s", path, why);
		return;
	}
	if (ok)
		fail_msg("%s: accepted; want \"%s\"", path, want);
	if (strcmp(why, want) != 0)
		fail_msg("%s:\n got  \"%s\"\n want \"%s\"", path, why, want);
}

#define MO_HEADER_END (8u + 9u + 4u + 4u + 4u + 15u) /* magic, Header record */
#define MO_SCHEMA_LEN(name, text) \
	((unsigned)(9 + 2 + 4 + sizeof name - 1 + 4 + 7 + 4 + sizeof text - 1))
#define MO_CHANNEL_LEN(topic) ((unsigned)(9 + 2 + 2 + 4 + sizeof topic - 1 + 4 + 3 + 4))

/* ---- mcap_order on files in and out of order ---- */

/* In order: top-level and chunked records, a Channel repeated the same in
 * a later chunk, a schemaless channel, a Schema with id 0 (ignored). */
static void test_in_order(void **state)
{
	struct bt_buf f = BT_BUF_INIT, c = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "std_msgs/msg/Int32", "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	mo_message(&f, 1, 10);
	mo_channel(&c, 2, 0, "/schemaless");
	mo_message(&c, 2, 11);
	mo_message(&c, 1, 12);
	mo_chunk(&f, &c, 11, 12);
	bt_buf_reset(&c);
	mo_schema(&c, 0, "ignored", "");
	mo_channel(&c, 1, 1, "/a");
	mo_message(&c, 1, 13);
	mo_chunk(&f, &c, 13, 13);
	bt_buf_fini(&c);
	mo_expect(mo_end(&f, *state, "in_order.mcap"), NULL);
}

static void test_message_before_channel(void **state)
{
	struct bt_buf f = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "std_msgs/msg/Int32", "int32 data\n");
	mo_message(&f, 1, 10);
	mo_channel(&f, 1, 1, "/a");
	char want[256];
	snprintf(want, sizeof want, "the Message record at offset %u is on channel 1, before any "
		 "Channel record with that id",
		 MO_HEADER_END + MO_SCHEMA_LEN("std_msgs/msg/Int32", "int32 data\n"));
	mo_expect(mo_end(&f, *state, "message_first.mcap"), want);
}

/* The Channel is in a later chunk than the Message: the offset is the
 * chunk's and the record's in it. */
static void test_message_before_channel_chunked(void **state)
{
	struct bt_buf f = BT_BUF_INIT, c = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 7, "std_msgs/msg/Int32", "int32 data\n");
	mo_channel(&c, 3, 7, "/b");
	mo_message(&c, 3, 10);
	mo_message(&c, 4, 11);
	size_t at = c.len - (9 + 2 + 4 + 8 + 8 + 8);
	mo_chunk(&f, &c, 10, 11);
	bt_buf_reset(&c);
	mo_channel(&c, 4, 7, "/c");
	mo_chunk(&f, &c, 0, 0);
	bt_buf_fini(&c);
	char want[256];
	snprintf(want, sizeof want, "the Message record at offset %zu of the chunk at offset %u is "
		 "on channel 4, before any Channel record with that id", at,
		 MO_HEADER_END + MO_SCHEMA_LEN("std_msgs/msg/Int32", "int32 data\n"));
	mo_expect(mo_end(&f, *state, "message_first_chunked.mcap"), want);
}

static void test_channel_before_schema(void **state)
{
	struct bt_buf f = BT_BUF_INIT;
	mo_begin(&f);
	mo_channel(&f, 1, 2, "/a");
	mo_schema(&f, 2, "std_msgs/msg/Int32", "int32 data\n");
	mo_message(&f, 1, 10);
	char want[256];
	snprintf(want, sizeof want, "the Channel record at offset %u (id 1, topic '/a') refers to "
		 "schema 2 before any Schema record with that id", MO_HEADER_END);
	mo_expect(mo_end(&f, *state, "channel_first.mcap"), want);
}

/* Records sharing an id must be identical: a Channel whose topic differs,
 * a Schema whose text differs (after the messages, as a summary's copy
 * would be). */
static void test_differing_duplicates(void **state)
{
	struct bt_buf f = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "std_msgs/msg/Int32", "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	mo_channel(&f, 1, 1, "/b");
	char want[256];
	snprintf(want, sizeof want, "the Channel record at offset %u (id 1) differs from the "
		 "earlier Channel record with that id",
		 MO_HEADER_END + MO_SCHEMA_LEN("std_msgs/msg/Int32", "int32 data\n") +
			 MO_CHANNEL_LEN("/a"));
	mo_expect(mo_end(&f, *state, "channel_twice.mcap"), want);

	f = (struct bt_buf)BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "std_msgs/msg/Int32", "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	mo_message(&f, 1, 10);
	size_t at = f.len;
	mo_schema(&f, 1, "std_msgs/msg/Int32", "int32 date\n");
	snprintf(want, sizeof want, "the Schema record at offset %zu (id 1) differs from the "
		 "earlier Schema record with that id", at);
	mo_expect(mo_end(&f, *state, "schema_twice.mcap"), want);
}

/* ---- what check says, what the reader still reads ---- */

static void mo_report(void *ctx, const char *problem)
{
	struct bt_buf *b = ctx;
	assert_int_equal(bt_buf_printf(b, "%s\n", problem), BT_OK);
}

static uint64_t mo_read_all(const char *path)
{
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(path, 0, &r, &err) != BT_OK)
		fail_msg("%s", err.msg);
	uint64_t n = 0;
	struct bag_read_msg m;
	int k;
	while ((k = bag_reader_next(r, &m, &err)) > 0)
		n++;
	assert_int_equal(k, 0);
	bag_reader_close(r);
	return n;
}

/* Three messages on two channels; `ordered` false puts the second
 * channel's Channel record after its message, in a later chunk. */
static const char *mo_bag_file(const char *dir, bool ordered)
{
	struct bt_buf f = BT_BUF_INIT, c = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "std_msgs/msg/Int32", "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	if (ordered)
		mo_channel(&c, 2, 1, "/b");
	mo_message(&c, 1, 1700000000000000000);
	mo_message(&c, 2, 1700000000000000001);
	mo_chunk(&f, &c, 1700000000000000000, 1700000000000000001);
	bt_buf_reset(&c);
	if (!ordered)
		mo_channel(&c, 2, 1, "/b");
	mo_message(&c, 1, 1700000000000000002);
	mo_chunk(&f, &c, 1700000000000000002, 1700000000000000002);
	bt_buf_fini(&c);
	return mo_end(&f, dir, ordered ? "ordered.mcap" : "misordered.mcap");
}

static void test_bag_check(void **state)
{
	struct bt_buf got = BT_BUF_INIT;
	const char *good = mo_bag_file(*state, true);
	assert_int_equal(bag_check(good, mo_report, &got), 0);
	assert_int_equal(mo_read_all(good), 3);

	const char *bad = mo_bag_file(*state, false);
	assert_int_equal(bag_check(bad, mo_report, &got), 1);
	assert_non_null(got.data);
	char want[1024];
	snprintf(want, sizeof want, "%s: the Message record at offset %u of the chunk at offset "
		 "%u is on channel 2, before any Channel record with that id: readers that stream "
		 "the file (Foxglove's among them) stop there; 'bagtop convert' writes a copy in "
		 "order\n", bad, 9 + 2 + 4 + 8 + 8 + 8,
		 MO_HEADER_END + MO_SCHEMA_LEN("std_msgs/msg/Int32", "int32 data\n") +
			 MO_CHANNEL_LEN("/a"));
	assert_string_equal(got.data, want);
	bt_buf_fini(&got);
	/* bagtop's own reader takes it whole */
	assert_int_equal(mo_read_all(bad), 3);
}

/* The same through the binary: check exits 1 naming the record; convert
 * writes a copy that passes check with every message. */
static void test_check_and_convert(void **state)
{
	if (!getenv("BAGTOP_BIN"))
		skip();
	const char *bad = mo_bag_file(*state, false);
	char *out = NULL;
	assert_int_equal(tu_bagtop(&out, "check", bad, NULL), 1);
	assert_non_null(strstr(out, "before any Channel record with that id"));
	free(out);
	char copy[4096];
	snprintf(copy, sizeof copy, "%s/copy", (const char *)*state);
	int rc = tu_bagtop(&out, "convert", "-s", "mcap", bad, copy, NULL);
	if (rc != 0)
		fail_msg("convert: %d: %s", rc, out);
	free(out);
	tu_check_bag(copy);
	assert_int_equal(mo_read_all(copy), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_SCRATCH_TEST(test_in_order),
		TU_SCRATCH_TEST(test_message_before_channel),
		TU_SCRATCH_TEST(test_message_before_channel_chunked),
		TU_SCRATCH_TEST(test_channel_before_schema),
		TU_SCRATCH_TEST(test_differing_duplicates),
		TU_SCRATCH_TEST(test_bag_check),
		TU_SCRATCH_TEST(test_check_and_convert),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
