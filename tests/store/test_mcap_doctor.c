/* mcap_doctor and what `bagtop check` makes of it: MCAP files built byte by
 * byte here from the specification (https://mcap.dev/spec: records are an
 * opcode, a u64 length and the fields, little-endian; strings, byte arrays
 * and maps a u32 length first), not by bagtop's writer, each breaking one
 * rule (or none).
 *  - mcap_doctor accepts the valid files, and names the first record that
 *    breaks a rule, with its offset in the file or in its chunk, in the
 *    others: every rule of mcap_doctor.h has a file here that breaks it;
 *  - bag_check passes a valid file and reports a broken one in one line,
 *    while bagtop's reader still reads every message of it;
 *  - through the built binary: `bagtop check` exits 1 on it, `bagtop
 *    convert -s mcap` copies it, and the copy passes `bagtop check`.
 * The conformance suite's 416 files (test_mcap_conformance), rosbag2's MCAP
 * bags (mcap_fixtures.sh, through check) and the files bagtop's writer
 * makes (tb_mcap_doctor) go through mcap_doctor too. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_reader.h"
#include "bag_tools.h"
#include "bt_buf.h"
#include "bt_fs.h"
#include "mcap_doctor.h"
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

/* A record: opcode, u64 length, then the body; returns its offset. */
static size_t mo_record(struct bt_buf *out, uint8_t op, struct bt_buf *body)
{
	size_t at = out->len;
	mo_uint(out, op, 1);
	mo_uint(out, body->len, 8);
	mo_put(out, body->data, body->len);
	bt_buf_fini(body);
	return at;
}

static size_t mo_schema_enc(struct bt_buf *out, uint16_t id, const char *enc, const char *text)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, id, 2);
	mo_str(&b, "std_msgs/msg/Int32");
	mo_str(&b, enc);
	mo_str(&b, text); /* data: u32 length + bytes, as a string is */
	return mo_record(out, 0x03, &b);
}

static size_t mo_schema(struct bt_buf *out, uint16_t id, const char *text)
{
	return mo_schema_enc(out, id, "ros2msg", text);
}

static size_t mo_channel(struct bt_buf *out, uint16_t id, uint16_t schema, const char *topic)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, id, 2);
	mo_uint(&b, schema, 2);
	mo_str(&b, topic);
	mo_str(&b, "cdr");
	mo_uint(&b, 0, 4); /* metadata: an empty map */
	return mo_record(out, 0x04, &b);
}

static size_t mo_message(struct bt_buf *out, uint16_t channel, uint64_t t)
{
	static const uint8_t cdr[8] = {0, 1, 0, 0, 42, 0, 0, 0}; /* std_msgs/Int32 42 */
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, channel, 2);
	mo_uint(&b, t, 4); /* sequence */
	mo_uint(&b, t, 8); /* log_time */
	mo_uint(&b, t, 8); /* publish_time */
	mo_put(&b, cdr, sizeof cdr);
	return mo_record(out, 0x05, &b);
}

/* mo_channel(.., "/b"): 9 + ids 4, topic 4 + 2, "cdr" 4 + 3, empty map 4 */
#define MO_CHANNEL_B_LEN 30u

/* An uncompressed Chunk holding `records` (no CRC: 0); emptied. */
static size_t mo_chunk(struct bt_buf *out, struct bt_buf *records, uint64_t t0, uint64_t t1)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, t0, 8);
	mo_uint(&b, t1, 8);
	mo_uint(&b, records->len, 8);
	mo_uint(&b, 0, 4);
	mo_str(&b, "");
	mo_uint(&b, records->len, 8);
	mo_put(&b, records->data, records->len);
	bt_buf_reset(records);
	return mo_record(out, 0x06, &b);
}

/* A Message Index: n (log_time, offset) pairs. */
static size_t mo_message_index(struct bt_buf *out, uint16_t channel, size_t n,
			       const uint64_t (*e)[2])
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, channel, 2);
	mo_uint(&b, 16 * n, 4);
	for (size_t i = 0; i < n; i++) {
		mo_uint(&b, e[i][0], 8);
		mo_uint(&b, e[i][1], 8);
	}
	return mo_record(out, 0x07, &b);
}

struct mo_ci {
	uint64_t start, end, offset, length, compressed, uncompressed;
	const char *compression;
};

static size_t mo_chunk_index(struct bt_buf *out, const struct mo_ci *ci)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, ci->start, 8);
	mo_uint(&b, ci->end, 8);
	mo_uint(&b, ci->offset, 8);
	mo_uint(&b, ci->length, 8);
	mo_uint(&b, 0, 4); /* message_index_offsets: none */
	mo_uint(&b, 0, 8); /* message_index_length */
	mo_str(&b, ci->compression);
	mo_uint(&b, ci->compressed, 8);
	mo_uint(&b, ci->uncompressed, 8);
	return mo_record(out, 0x08, &b);
}

/* Statistics: `total` messages; counts[k] = {channel, count}, n of them. */
static size_t mo_statistics(struct bt_buf *out, uint64_t total, size_t n,
			    const uint64_t (*counts)[2])
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, total, 8);
	mo_uint(&b, 1, 2);  /* schema_count */
	mo_uint(&b, n, 4);  /* channel_count */
	mo_uint(&b, 0, 4);  /* attachment_count */
	mo_uint(&b, 0, 4);  /* metadata_count */
	mo_uint(&b, 1, 4);  /* chunk_count */
	mo_uint(&b, 0, 8);  /* message_start_time (not held) */
	mo_uint(&b, 99, 8); /* message_end_time (not held) */
	mo_uint(&b, 10 * n, 4);
	for (size_t i = 0; i < n; i++) {
		mo_uint(&b, counts[i][0], 2);
		mo_uint(&b, counts[i][1], 8);
	}
	return mo_record(out, 0x0B, &b);
}

static const uint8_t mo_magic[8] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

#define MO_HEADER_END (8u + 9u + 4u + 4u + 4u + 16u) /* magic, Header record */

static void mo_begin(struct bt_buf *out)
{
	mo_put(out, mo_magic, sizeof mo_magic);
	struct bt_buf b = BT_BUF_INIT;
	mo_str(&b, "ros2");
	mo_str(&b, "test_mcap_doctor");
	mo_record(out, 0x01, &b);
	assert_int_equal(out->len, MO_HEADER_END);
}

/* Data End; returns where a summary would start. */
static uint64_t mo_data_end(struct bt_buf *out)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, 0, 4);
	mo_record(out, 0x0F, &b);
	return out->len;
}

/* The Footer (summary at summary_start, 0: none) and the closing magic;
 * saved to DIR/NAME (returned, static). */
static const char *mo_finish(struct bt_buf *out, uint64_t summary_start, const char *dir,
			     const char *name)
{
	struct bt_buf b = BT_BUF_INIT;
	mo_uint(&b, summary_start, 8);
	mo_uint(&b, 0, 8);
	mo_uint(&b, 0, 4);
	mo_record(out, 0x02, &b);
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

/* A file without a summary. */
static const char *mo_end(struct bt_buf *out, const char *dir, const char *name)
{
	mo_data_end(out);
	return mo_finish(out, 0, dir, name);
}

/* The file streamed through mcap_doctor: true when healthy, else *why. */
static bool mo_run(const char *path, char *why, size_t n)
{
	struct mcap_reader *r;
	struct bt_error err;
	assert_int_equal(mcap_reader_open(&r, path, &err), BT_OK);
	assert_int_equal(mcap_reader_stream_begin(r, &err), BT_OK);
	struct mcap_doctor *d = mcap_doctor_new();
	assert_non_null(d);
	bool ok = true;
	for (bool end = false;;) {
		struct mcap_item it;
		if (mcap_reader_next(r, &it, &end, &err) != BT_OK)
			fail_msg("%s: %s", path, err.msg);
		if (end)
			break;
		if (ok)
			ok = mcap_doctor_feed(d, &it, why, n);
		else /* once broken, it stays so */
			assert_false(mcap_doctor_feed(d, &it, why, n));
	}
	mcap_doctor_free(d);
	mcap_reader_close(r);
	return ok;
}

/* want NULL: the file must pass; else its complaint, word for word. */
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

static const char *mo_want(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static const char *mo_want(const char *fmt, ...)
{
	static char s[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	return s;
}

/* ---- a valid file, with every record the rules look at ---- */

/* What mo_valid wrote where, for the tests that break one thing in it. */
struct mo_layout {
	size_t chunk, chunk_len;   /* the chunk's offset and record length */
	size_t m1, m2;             /* its two messages' offsets in it */
};

enum mo_break {
	MO_NONE,
	MO_CHUNK_TIMES,    /* the chunk's end time is not its latest message's */
	MO_MI_NOWHERE,     /* a Message Index entry points between messages */
	MO_MI_TIME,        /* ... at a message, with another log_time */
	MO_MI_CHANNEL,     /* ... at a message of another channel (its log_time right) */
	MO_MI_ORPHAN,      /* a Message Index after a Metadata record */
	MO_CI_NOWHERE,     /* the Chunk Index points where no chunk starts */
	MO_CI_TWICE,       /* two Chunk Indexes for the chunk */
	MO_CI_LENGTH,      /* a Chunk Index field differs from the chunk's: */
	MO_CI_START,
	MO_CI_END,
	MO_CI_COMPRESSION,
	MO_CI_COMPRESSED,
	MO_CI_UNCOMPRESSED,
	MO_STATS_TWICE,    /* two Statistics records */
	MO_STATS_TOTAL,    /* the Statistics' message count is off */
	MO_STATS_CHANNEL,  /* ... one channel's count is off */
	MO_STATS_MISSING,  /* ... a channel with messages is not in its map */
	MO_STATS_DOUBLE,   /* ... a channel is in it twice */
	MO_SUMMARY_CHANNEL /* the summary's Channel differs from the data's */
};

/* Header; Schema 1, Channel 1 and 2; a chunk with a message on each, its
 * two Message Indexes; a loose message on channel 1 at time 30; an empty
 * chunk (a Channel only); Data End; a summary repeating Schema 1 and
 * Channels 1 and 2, plus Schema 2 and Channel 3 in the summary alone (as
 * libmcap writes a channel without messages), the Chunk Indexes and the
 * Statistics. `brk` breaks one thing, *l says where things are. */
static const char *mo_valid(const char *dir, const char *name, enum mo_break brk,
			    struct mo_layout *l)
{
	struct bt_buf f = BT_BUF_INIT, c = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	mo_channel(&f, 2, 1, "/b");
	l->m1 = mo_message(&c, 1, 10);
	l->m2 = mo_message(&c, 2, 20);
	size_t records = c.len;
	l->chunk = mo_chunk(&f, &c, 10, brk == MO_CHUNK_TIMES ? 21 : 20);
	l->chunk_len = f.len - l->chunk;
	const uint64_t mi1[][2] = {{10, l->m1}};
	const uint64_t mi2[][2] = {{brk == MO_MI_TIME ? 21 : brk == MO_MI_CHANNEL ? 10 : 20,
				    brk == MO_MI_NOWHERE	? l->m2 + 1
				    : brk == MO_MI_CHANNEL ? l->m1
							    : l->m2}};
	mo_message_index(&f, 1, 1, mi1);
	if (brk == MO_MI_ORPHAN) {
		struct bt_buf b = BT_BUF_INIT;
		mo_str(&b, "x");
		mo_uint(&b, 0, 4);
		mo_record(&f, 0x0C, &b); /* Metadata "x", no entries */
	}
	mo_message_index(&f, 2, 1, mi2);
	mo_message(&f, 1, 30);
	mo_channel(&c, 2, 1, "/b");
	size_t empty = mo_chunk(&f, &c, 0, 0);
	size_t empty_len = f.len - empty;
	uint64_t summary = mo_data_end(&f);
	mo_schema(&f, 1, "int32 data\n");
	mo_schema(&f, 2, "int32 data\n");
	mo_channel(&f, 1, 1, brk == MO_SUMMARY_CHANNEL ? "/A" : "/a");
	mo_channel(&f, 2, 1, "/b");
	mo_channel(&f, 3, 2, "/never");
	struct mo_ci ci = {10, 20, l->chunk, l->chunk_len, records, records, ""};
	if (brk == MO_CI_NOWHERE)
		ci.offset++;
	ci.length += brk == MO_CI_LENGTH;
	ci.start += brk == MO_CI_START;
	ci.end += brk == MO_CI_END;
	ci.compression = brk == MO_CI_COMPRESSION ? "zstd" : "";
	ci.compressed += brk == MO_CI_COMPRESSED;
	ci.uncompressed += brk == MO_CI_UNCOMPRESSED;
	mo_chunk_index(&f, &ci);
	if (brk == MO_CI_TWICE)
		mo_chunk_index(&f, &ci);
	mo_chunk_index(&f, &(struct mo_ci){0, 0, empty, empty_len, MO_CHANNEL_B_LEN, MO_CHANNEL_B_LEN, ""});
	const uint64_t counts[][2] = {{1, brk == MO_STATS_CHANNEL ? 3 : 2}, {2, 1}, {2, 1}};
	mo_statistics(&f, brk == MO_STATS_TOTAL ? 4 : 3,
		      brk == MO_STATS_MISSING ? 1 : brk == MO_STATS_DOUBLE ? 3 : 2, counts);
	if (brk == MO_STATS_TWICE)
		mo_statistics(&f, 3, 2, counts);
	bt_buf_fini(&c);
	return mo_finish(&f, summary, dir, name);
}

static void test_valid(void **state)
{
	struct mo_layout l;
	mo_expect(mo_valid(*state, "valid.mcap", MO_NONE, &l), NULL);
}

/* ---- order ---- */

static void test_message_before_channel(void **state)
{
	struct bt_buf f = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "int32 data\n");
	size_t at = mo_message(&f, 1, 10);
	mo_channel(&f, 1, 1, "/a");
	mo_expect(mo_end(&f, *state, "message_first.mcap"),
		  mo_want("the Message record at offset %zu is on channel 1, before any Channel "
			  "record with that id", at));
}

/* The Channel is in a later chunk than the Message: the offset is the
 * chunk's and the record's in it. */
static void test_message_before_channel_chunked(void **state)
{
	struct bt_buf f = BT_BUF_INIT, c = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 7, "int32 data\n");
	mo_channel(&c, 3, 7, "/b");
	mo_message(&c, 3, 10);
	size_t at = mo_message(&c, 4, 11);
	size_t chunk = mo_chunk(&f, &c, 10, 11);
	mo_channel(&c, 4, 7, "/c");
	mo_chunk(&f, &c, 0, 0);
	bt_buf_fini(&c);
	mo_expect(mo_end(&f, *state, "message_first_chunked.mcap"),
		  mo_want("the Message record at offset %zu of the chunk at offset %zu is on "
			  "channel 4, before any Channel record with that id", at, chunk));
}

static void test_channel_before_schema(void **state)
{
	struct bt_buf f = BT_BUF_INIT;
	mo_begin(&f);
	size_t at = mo_channel(&f, 1, 2, "/a");
	mo_schema(&f, 2, "int32 data\n");
	mo_message(&f, 1, 10);
	mo_expect(mo_end(&f, *state, "channel_first.mcap"),
		  mo_want("the Channel record at offset %zu (id 1, topic '/a') refers to schema 2 "
			  "before any Schema record with that id", at));
}

/* A Message Index must follow its Chunk (or another Message Index). */
static void test_orphan_message_index(void **state)
{
	struct mo_layout l;
	const char *p = mo_valid(*state, "mi_orphan.mcap", MO_MI_ORPHAN, &l);
	/* the second index, after the Metadata record */
	size_t at = l.chunk + l.chunk_len + 9 + 2 + 4 + 16 + 9 + 4 + 1 + 4;
	mo_expect(p, mo_want("the MessageIndex record at offset %zu follows no Chunk", at));
}

/* ---- identity ---- */

static void test_differing_duplicates(void **state)
{
	struct bt_buf f = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	size_t at = mo_channel(&f, 1, 1, "/b");
	mo_expect(mo_end(&f, *state, "channel_twice.mcap"),
		  mo_want("the Channel record at offset %zu (id 1) differs from the earlier "
			  "Channel record with that id", at));

	f = (struct bt_buf)BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	mo_message(&f, 1, 10);
	at = mo_schema(&f, 1, "int32 date\n");
	mo_expect(mo_end(&f, *state, "schema_twice.mcap"),
		  mo_want("the Schema record at offset %zu (id 1) differs from the earlier Schema "
			  "record with that id", at));
}

/* The summary's copy of a Channel differs from the data section's. */
static void test_summary_differs(void **state)
{
	struct mo_layout l;
	const char *p = mo_valid(*state, "summary_differs.mcap", MO_SUMMARY_CHANNEL, &l);
	char why[512] = "";
	assert_false(mo_run(p, why, sizeof why));
	assert_non_null(strstr(why, "(id 1) differs from the earlier Channel record with that id"));
}

static void test_schema_fields(void **state)
{
	struct bt_buf f = BT_BUF_INIT;
	mo_begin(&f);
	size_t at = mo_schema(&f, 0, "int32 data\n");
	mo_expect(mo_end(&f, *state, "schema_0.mcap"),
		  mo_want("the Schema record at offset %zu has id 0, which the specification "
			  "reserves", at));

	f = (struct bt_buf)BT_BUF_INIT;
	mo_begin(&f);
	at = mo_schema_enc(&f, 5, "", "int32 data\n");
	mo_expect(mo_end(&f, *state, "schema_no_encoding.mcap"),
		  mo_want("the Schema record at offset %zu (id 5) has no encoding but 11 bytes of "
			  "data", at));

	f = (struct bt_buf)BT_BUF_INIT; /* neither: a schema rosbag2 had no text for */
	mo_begin(&f);
	mo_schema_enc(&f, 5, "", "");
	mo_expect(mo_end(&f, *state, "schema_empty.mcap"), NULL);
}

/* ---- what indexed readers seek by ---- */

static void test_chunk_times(void **state)
{
	struct mo_layout l;
	const char *p = mo_valid(*state, "chunk_times.mcap", MO_CHUNK_TIMES, &l);
	mo_expect(p, mo_want("the Chunk record at offset %zu says its messages' log_time runs "
			     "from 10 to 21; they run from 10 to 20", l.chunk));
}

static void test_message_index_entries(void **state)
{
	struct mo_layout l;
	size_t second = 0;
	const char *p = mo_valid(*state, "mi_nowhere.mcap", MO_MI_NOWHERE, &l);
	second = l.chunk + l.chunk_len + 9 + 2 + 4 + 16;
	mo_expect(p, mo_want("the MessageIndex record at offset %zu (channel 2) points at offset "
			     "%zu of the chunk at offset %zu, where no message is",
			     second, l.m2 + 1, l.chunk));
	p = mo_valid(*state, "mi_time.mcap", MO_MI_TIME, &l);
	mo_expect(p, mo_want("the MessageIndex record at offset %zu (channel 2) says the message "
			     "at offset %zu of the chunk at offset %zu has log_time 21; it is on "
			     "channel 2 with log_time 20", second, l.m2, l.chunk));
	p = mo_valid(*state, "mi_channel.mcap", MO_MI_CHANNEL, &l);
	mo_expect(p, mo_want("the MessageIndex record at offset %zu (channel 2) says the message "
			     "at offset %zu of the chunk at offset %zu has log_time 10; it is on "
			     "channel 1 with log_time 10", second, l.m1, l.chunk));
}

static void test_chunk_index(void **state)
{
	struct mo_layout l;
	char why[512];
	const char *p = mo_valid(*state, "ci_nowhere.mcap", MO_CI_NOWHERE, &l);
	assert_false(mo_run(p, why, sizeof why));
	assert_non_null(strstr(why, mo_want(" points at offset %zu, where no chunk starts",
					    l.chunk + 1)));
	p = mo_valid(*state, "ci_twice.mcap", MO_CI_TWICE, &l);
	assert_false(mo_run(p, why, sizeof why));
	assert_non_null(strstr(why, mo_want(" is the second for the chunk at offset %zu",
					    l.chunk)));
	static const struct {
		enum mo_break brk;
		const char *field;
	} fields[] = {{MO_CI_LENGTH, "length"},
		      {MO_CI_START, "message_start_time"},
		      {MO_CI_END, "message_end_time"},
		      {MO_CI_COMPRESSION, "compression"},
		      {MO_CI_COMPRESSED, "compressed_size"},
		      {MO_CI_UNCOMPRESSED, "uncompressed_size"}};
	for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
		p = mo_valid(*state, fields[i].field, fields[i].brk, &l);
		assert_false(mo_run(p, why, sizeof why));
		const char *want = mo_want(" gives the chunk at offset %zu another %s than its Chunk "
					   "record", l.chunk, fields[i].field);
		if (!strstr(why, want))
			fail_msg("%s: got \"%s\"", fields[i].field, why);
	}
}

static void test_statistics(void **state)
{
	struct mo_layout l;
	char why[512];
	static const struct {
		enum mo_break brk;
		const char *want;
	} cases[] = {{MO_STATS_TWICE, " is the file's second"},
		     {MO_STATS_TOTAL, " counts 4 messages; the file has 3"},
		     {MO_STATS_CHANNEL, " counts 3 messages on channel 1; the file has 2"},
		     {MO_STATS_MISSING, " leaves out channels holding 1 of the file's messages"},
		     {MO_STATS_DOUBLE, " lists a channel twice (4 messages in all, of 3)"}};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *p = mo_valid(*state, "stats.mcap", cases[i].brk, &l);
		assert_false(mo_run(p, why, sizeof why));
		if (!strstr(why, "the Statistics record at offset ") || !strstr(why, cases[i].want))
			fail_msg("got \"%s\", want \"%s\"", why, cases[i].want);
	}
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
 * channel's Channel record after its message, in a later chunk. *at: that
 * message's offset in its chunk, *chunk: the chunk's. */
static const char *mo_bag_file(const char *dir, bool ordered, size_t *at, size_t *chunk)
{
	struct bt_buf f = BT_BUF_INIT, c = BT_BUF_INIT;
	mo_begin(&f);
	mo_schema(&f, 1, "int32 data\n");
	mo_channel(&f, 1, 1, "/a");
	if (ordered)
		mo_channel(&c, 2, 1, "/b");
	mo_message(&c, 1, 1700000000000000000);
	*at = mo_message(&c, 2, 1700000000000000001);
	*chunk = mo_chunk(&f, &c, 1700000000000000000, 1700000000000000001);
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
	size_t at, chunk;
	const char *good = mo_bag_file(*state, true, &at, &chunk);
	assert_int_equal(bag_check(good, mo_report, &got), 0);
	assert_int_equal(mo_read_all(good), 3);

	const char *bad = mo_bag_file(*state, false, &at, &chunk);
	assert_int_equal(bag_check(bad, mo_report, &got), 1);
	assert_non_null(got.data);
	char want[1024];
	snprintf(want, sizeof want, "%s: the Message record at offset %zu of the chunk at offset "
		 "%zu is on channel 2, before any Channel record with that id, against the MCAP "
		 "specification: other readers (Foxglove's among them) may refuse or misread the "
		 "file; bagtop reads it, and 'bagtop convert' writes a copy that follows it\n",
		 bad, at, chunk);
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
	size_t at, chunk;
	const char *bad = mo_bag_file(*state, false, &at, &chunk);
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
		TU_SCRATCH_TEST(test_valid),
		TU_SCRATCH_TEST(test_message_before_channel),
		TU_SCRATCH_TEST(test_message_before_channel_chunked),
		TU_SCRATCH_TEST(test_channel_before_schema),
		TU_SCRATCH_TEST(test_orphan_message_index),
		TU_SCRATCH_TEST(test_differing_duplicates),
		TU_SCRATCH_TEST(test_summary_differs),
		TU_SCRATCH_TEST(test_schema_fields),
		TU_SCRATCH_TEST(test_chunk_times),
		TU_SCRATCH_TEST(test_message_index_entries),
		TU_SCRATCH_TEST(test_chunk_index),
		TU_SCRATCH_TEST(test_statistics),
		TU_SCRATCH_TEST(test_bag_check),
		TU_SCRATCH_TEST(test_check_and_convert),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
