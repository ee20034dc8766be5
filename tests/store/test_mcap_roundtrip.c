/* mcap_writer → mcap_reader round trips on real files, for every
 * combination of chunked / unchunked, none / zstd / lz4, with / without
 * summary, message index and CRCs: 3 channels, messages written with
 * log_times out of order across many small chunks, a metadata record and an
 * attachment. Each file is read streamed (every record, CRCs checked),
 * indexed (messages in log_time order, each the bytes written, statistics)
 * and walked by recover. Also: the rosbag2 option names, a file flushed but
 * not closed (what a crash leaves) read back by recover and the scan,
 * unknown opcodes and padding passed over, large messages (the writer
 * writes those that fill a chunk from the caller's buffer), and schemas
 * and channels written late (late_definitions; half the combinations use
 * it too), and files written with direct I/O the same bytes as without. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_buf.h"
#include "bt_dio.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "mcap_reader.h"
#include "mcap_record.h"
#include "mcap_writer.h"
#include "test_bag.h"

#define RT_N 1500u
#define RT_CHANNELS 3u

/* Message i: log_time a permutation of 0..N-1 (plus a tie every 100),
 * payload i's bytes, length i % 300. */
static uint64_t rt_time(uint32_t i)
{
	return 1000000000ull + (uint64_t)((i * 7919u) % RT_N) / (i % 100 == 0 ? 2u : 1u);
}

static size_t rt_payload(uint32_t i, uint8_t *buf)
{
	size_t n = i % 300;
	for (size_t k = 0; k < n; k++)
		buf[k] = (uint8_t)(i + k * 31);
	return n;
}

static void rt_write(const char *path, const struct mcap_writer_options *o)
{
	struct mcap_writer *w;
	struct bt_error err;
	uint8_t buf[300];
	assert_int_equal(mcap_writer_open(&w, path, o, "ros2", "bagtop test", &err), BT_OK);
	uint16_t sid, cid;
	assert_int_equal(mcap_writer_add_schema(w, "std_msgs/msg/String", "ros2msg", "string data",
						11, &sid, &err),
			 BT_OK);
	const char *meta[] = {"offered_qos_profiles", "- history: 3", "topic_type_hash", "x"};
	for (uint32_t c = 0; c < RT_CHANNELS; c++) {
		char topic[16];
		snprintf(topic, sizeof topic, "/t%u", c);
		assert_int_equal(mcap_writer_add_channel(w, topic, "cdr", c == 2 ? 0 : sid, meta, 2,
							 &cid, &err),
				 BT_OK);
		assert_int_equal(cid, c + 1);
	}
	const char *kv[] = {"serialized_metadata", "rosbag2_bagfile_information: {}"};
	assert_int_equal(mcap_writer_add_metadata(w, "rosbag2", kv, 1, &err), BT_OK);
	for (uint32_t i = 0; i < RT_N; i++) {
		size_t n = rt_payload(i, buf);
		assert_int_equal(mcap_writer_write(w, (uint16_t)(1 + i % RT_CHANNELS), i, rt_time(i),
						   rt_time(i) - 5, buf, n, &err),
				 BT_OK);
		if (i == RT_N / 2)
			assert_int_equal(mcap_writer_add_attachment(w, 7, 8, "a.bin",
								    "application/octet-stream",
								    "xyz", 3, &err),
					 BT_OK);
	}
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
}

static void rt_check_message(const struct mcap_message *m)
{
	uint8_t buf[300];
	assert_true(m->sequence < RT_N);
	size_t n = rt_payload(m->sequence, buf);
	assert_int_equal(m->log_time, rt_time(m->sequence));
	assert_int_equal(m->publish_time, rt_time(m->sequence) - 5);
	assert_int_equal(m->channel_id, 1 + m->sequence % RT_CHANNELS);
	assert_int_equal(m->data.len, n);
	assert_memory_equal(m->data.p, buf, n);
}

/* Reads every message of indexed reader r in log_time order, each handed
 * to check(m, arg); returns how many. */
static uint32_t rt_each_message(struct mcap_reader *r,
				void (*check)(const struct mcap_message *m, void *arg), void *arg)
{
	struct bt_error err;
	assert_int_equal(mcap_reader_messages_begin(r, &err), BT_OK);
	uint32_t n = 0;
	for (bool end = false;;) {
		struct mcap_message m;
		assert_int_equal(mcap_reader_messages_next(r, &m, &end, &err), BT_OK);
		if (end)
			return n;
		check(&m, arg);
		n++;
	}
}

static void rt_check_any(const struct mcap_message *m, void *arg)
{
	(void)arg;
	rt_check_message(m);
}

static void rt_streamed(const char *path)
{
	struct mcap_reader *r = tb_mcap_streamed(path);
	struct bt_error err;
	uint32_t msgs = 0, footers = 0;
	for (bool end = false; !end;) {
		struct mcap_item it;
		bt_status st = mcap_reader_next(r, &it, &end, &err);
		if (st != BT_OK)
			fail_msg("%s: %s", path, err.msg);
		if (!end && it.rec.opcode == MCAP_OP_MESSAGE) {
			rt_check_message(&it.rec.u.message);
			msgs++;
		}
		footers += !end && it.rec.opcode == MCAP_OP_FOOTER;
	}
	assert_int_equal(msgs, RT_N);
	assert_int_equal(footers, 1);
	mcap_reader_close(r);
}

static void rt_indexed(const char *path, const struct mcap_writer_options *o)
{
	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(path, &s);
	struct bt_error err;
	assert_int_equal(s->from_summary, !o->no_summary);
	assert_true(s->has_statistics);
	assert_int_equal(s->statistics.message_count, RT_N);
	/* per channel, as written or as the scan counted: round robin */
	struct mcap_map counts = s->statistics.channel_message_counts;
	uint16_t id;
	uint64_t count, ids = 0;
	while (mcap_map_next_u16(&counts, &id, &count)) {
		assert_true(id >= 1 && id <= RT_CHANNELS);
		assert_int_equal(count, RT_N / RT_CHANNELS);
		ids |= 1u << id;
	}
	assert_int_equal(ids, 0xeu);
	if (!o->no_chunking) /* many chunks, their time ranges overlapping */
		assert_true(s->statistics.chunk_count > 20);
	assert_int_equal(s->n_metadata, 1);
	assert_int_equal(s->n_attachments, 1);
	struct mcap_record rec;
	assert_int_equal(mcap_reader_record_at(r, s->metadata[0].offset, &rec, &err), BT_OK);
	assert_int_equal(rec.opcode, MCAP_OP_METADATA);
	struct mcap_str k, v;
	assert_true(mcap_map_next_str(&rec.u.metadata.metadata, &k, &v));
	assert_int_equal(k.len, strlen("serialized_metadata"));
	assert_memory_equal(v.p, "rosbag2_bagfile_information: {}", v.len);
	assert_int_equal(mcap_reader_record_at(r, s->attachments[0].offset, &rec, &err), BT_OK);
	assert_int_equal(rec.opcode, MCAP_OP_ATTACHMENT);
	assert_memory_equal(rec.u.attachment.data.p, "xyz", 3);
	assert_int_equal(mcap_reader_messages_begin(r, &err), BT_OK);
	uint32_t n = 0;
	uint64_t last = 0, last_seq = 0;
	for (bool end = false; !end;) {
		struct mcap_message m;
		if (mcap_reader_messages_next(r, &m, &end, &err) != BT_OK)
			fail_msg("%s: %s", path, err.msg);
		if (end)
			break;
		rt_check_message(&m);
		assert_true(m.log_time >= last);
		if (n > 0 && m.log_time == last)
			assert_true(m.sequence > last_seq); /* ties keep the written order */
		last = m.log_time;
		last_seq = m.sequence;
		n++;
	}
	assert_int_equal(n, RT_N);
	assert_int_equal(s->n_channels, RT_CHANNELS);
	assert_int_equal(s->n_schemas, 1);
	assert_non_null(mcap_reader_channel(r, 3));
	assert_int_equal(mcap_reader_channel(r, 3)->schema_id, 0);
	mcap_reader_close(r);
}

static void rt_recover(const char *path)
{
	struct mcap_reader *r;
	struct bt_error err;
	struct mcap_recovery rec;
	assert_int_equal(mcap_reader_open(&r, path, &err), BT_OK);
	assert_int_equal(mcap_reader_recover(r, &rec, &err), BT_OK);
	if (!rec.complete)
		fail_msg("%s: %s", path, rec.why.msg);
	assert_int_equal(rec.messages, RT_N);
	mcap_reader_close(r);
}

static void test_option_combinations(void **state)
{
	const char *dir = *state;
	int k = 0;
	for (int chunked = 0; chunked < 2; chunked++)
		for (int comp = 0; comp < 3; comp++)
			for (int summary = 0; summary < 2; summary++)
				for (int mindex = 0; mindex < 2; mindex++)
					for (int crc = 0; crc < 2; crc++) {
						if (!chunked && (comp || mindex))
							continue; /* nothing to compress or index */
						struct mcap_writer_options o;
						mcap_writer_options_init(&o);
						o.chunk_size = 4096;
						o.no_chunking = !chunked;
						o.compression = (enum mcap_compression)comp;
						o.no_summary = !summary;
						o.no_message_index = !mindex;
						o.no_chunk_crc = !crc;
						o.enable_data_crc = crc;
						o.no_attachment_crc = !crc;
						o.late_definitions = k % 2; /* half the files */
						char path[4096];
						snprintf(path, sizeof path, "%s/rt%d.mcap", dir, k++);
						rt_write(path, &o);
						rt_streamed(path);
						rt_indexed(path, &o);
						rt_recover(path);
					}
	assert_int_equal(k, 2 * 2 + 3 * 2 * 2 * 2);
}

/* Every summary part switched off alone: the index still finds everything. */
static void test_summary_parts(void **state)
{
	const char *dir = *state;
	for (int part = 0; part < 7; part++) {
		struct mcap_writer_options o;
		mcap_writer_options_init(&o);
		o.chunk_size = 8192;
		o.compression = MCAP_COMPRESSION_ZSTD;
		bool *flags[] = {&o.no_repeated_schemas, &o.no_repeated_channels, &o.no_statistics,
				 &o.no_chunk_index, &o.no_metadata_index, &o.no_attachment_index,
				 &o.no_summary_offsets};
		*flags[part] = true;
		char path[4096];
		snprintf(path, sizeof path, "%s/part%d.mcap", dir, part);
		rt_write(path, &o);
		rt_streamed(path);
		const struct mcap_summary *s;
		struct mcap_reader *r = tb_mcap_indexed(path, &s);
		assert_true(s->from_summary);
		assert_int_equal(s->has_statistics, part != 2);
		assert_int_equal(s->n_metadata, part == 4 ? 0 : 1);
		assert_int_equal(s->n_attachments, part == 5 ? 0 : 1);
		assert_int_equal(rt_each_message(r, rt_check_any, NULL), RT_N);
		assert_int_equal(s->n_channels, RT_CHANNELS);
		mcap_reader_close(r);
	}
}

static void test_option_names(void **state)
{
	(void)state;
	struct mcap_writer_options o;
	struct bt_error err;
	mcap_writer_options_init(&o);
	assert_int_equal(o.chunk_size, 768 * 1024);
	assert_true(o.no_chunk_crc);
	assert_int_equal(mcap_writer_option_set(&o, "chunkSize", "1048576", &err), BT_OK);
	assert_int_equal(o.chunk_size, 1048576);
	assert_int_equal(mcap_writer_option_set(&o, "compression", "Zstd", &err), BT_OK);
	assert_int_equal(o.compression, MCAP_COMPRESSION_ZSTD);
	assert_int_equal(mcap_writer_option_set(&o, "compression", "Lz4", &err), BT_OK);
	assert_int_equal(mcap_writer_option_set(&o, "compressionLevel", "Slowest", &err), BT_OK);
	assert_int_equal(o.level, MCAP_LEVEL_SLOWEST);
	const char *bools[] = {"noChunkCRC", "noAttachmentCRC", "enableDataCRC", "noSummaryCRC",
			       "noChunking", "noMessageIndex", "noSummary", "noRepeatedSchemas",
			       "noRepeatedChannels", "noAttachmentIndex", "noMetadataIndex",
			       "noChunkIndex", "noStatistics", "noSummaryOffsets",
			       "forceCompression"};
	for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++) {
		assert_int_equal(mcap_writer_option_set(&o, bools[i], "true", &err), BT_OK);
		assert_int_equal(mcap_writer_option_set(&o, bools[i], "yes", &err), BT_ERR_USAGE);
		assert_non_null(strstr(err.msg, bools[i]));
	}
	assert_true(o.no_summary && o.enable_data_crc && o.force_compression);
	assert_int_equal(mcap_writer_option_set(&o, "noCRC", "true", &err), BT_ERR_USAGE);
	assert_non_null(strstr(err.msg, "noCRC"));
	assert_int_equal(mcap_writer_option_set(&o, "compression", "gzip", &err), BT_ERR_USAGE);
	assert_int_equal(mcap_writer_option_set(&o, "chunkSize", "-1", &err), BT_ERR_USAGE);
	assert_int_equal(mcap_writer_option_set(&o, "compressionLevel", "fast", &err),
			 BT_ERR_USAGE);
}

/* A writer flushed but never closed (the process killed): recover keeps
 * every flushed message and says the footer is missing; the index scans. */
static void test_flushed_not_closed(void **state)
{
	const char *dir = *state;
	char path[4096];
	snprintf(path, sizeof path, "%s/crash.mcap", dir);
	struct mcap_writer_options o;
	mcap_writer_options_init(&o);
	o.compression = MCAP_COMPRESSION_LZ4;
	struct mcap_writer *w;
	struct bt_error err;
	uint16_t cid;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "t", &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", 0, NULL, 0, &cid, &err), BT_OK);
	for (uint32_t i = 0; i < 100; i++)
		assert_int_equal(mcap_writer_write(w, cid, i, 100 - i, 0, "abcd", 4, &err), BT_OK);
	assert_int_equal(mcap_writer_flush(w, true, &err), BT_OK);
	assert_int_equal(mcap_writer_write(w, cid, 100, 1, 0, "lost", 4, &err), BT_OK);

	struct mcap_reader *r;
	struct mcap_recovery rec;
	assert_int_equal(mcap_reader_open(&r, path, &err), BT_OK);
	assert_int_equal(mcap_reader_recover(r, &rec, &err), BT_OK);
	assert_false(rec.complete);
	assert_int_equal(rec.messages, 100);
	assert_int_equal(rec.chunks, 1);
	assert_int_equal(rec.good_end, mcap_reader_file_size(r));
	assert_non_null(strstr(rec.why.msg, "without a footer"));
	assert_int_equal(mcap_reader_index(r, &err), BT_OK);
	const struct mcap_summary *s = mcap_reader_summary(r);
	assert_false(s->from_summary);
	assert_int_equal(s->statistics.message_count, 100);
	assert_int_equal(s->n_channels, 1);
	mcap_reader_close(r);
	mcap_writer_abandon(w);
}

/* A file with records of the opcodes `ops` after its Header, then a
 * Schema with padding, DataEnd and Footer, into `path`. */
static void uo_file(const char *path, const uint8_t *ops, size_t n_ops)
{
	struct bt_buf b = BT_BUF_INIT;
	size_t mark;
	assert_int_equal(bt_buf_append(&b, mcap_magic, MCAP_MAGIC_LEN), BT_OK);
	assert_int_equal(mcap_enc_begin(&b, MCAP_OP_HEADER, &mark), BT_OK);
	assert_int_equal(mcap_enc_str(&b, "x", 1), BT_OK);
	assert_int_equal(mcap_enc_str(&b, "y", 1), BT_OK);
	mcap_enc_end(&b, mark);
	for (size_t i = 0; i < n_ops; i++) {
		assert_int_equal(mcap_enc_begin(&b, ops[i], &mark), BT_OK);
		assert_int_equal(bt_buf_append(&b, "junk!", 5), BT_OK);
		mcap_enc_end(&b, mark);
	}
	assert_int_equal(mcap_enc_begin(&b, MCAP_OP_SCHEMA, &mark), BT_OK);
	assert_int_equal(mcap_enc_u16(&b, 7), BT_OK);
	assert_int_equal(mcap_enc_str(&b, "n", 1), BT_OK);
	assert_int_equal(mcap_enc_str(&b, "e", 1), BT_OK);
	assert_int_equal(mcap_enc_str(&b, "d", 1), BT_OK);
	assert_int_equal(bt_buf_append(&b, "\x01\xff\xff\x00", 4), BT_OK); /* padding */
	mcap_enc_end(&b, mark);
	uint8_t tail[13 + MCAP_FOOTER_LEN] = {MCAP_OP_DATA_END, 4};
	tail[13] = MCAP_OP_FOOTER;
	tail[14] = 20;
	assert_int_equal(bt_buf_append(&b, tail, sizeof tail), BT_OK);
	assert_int_equal(bt_buf_append(&b, mcap_magic, MCAP_MAGIC_LEN), BT_OK);
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data, 1, b.len, f), b.len);
	assert_int_equal(fclose(f), 0);
	bt_buf_fini(&b);
}

/* Records of opcodes the spec does not define (or reserves for private
 * use) are passed over, and bytes after a record's known fields skipped. */
static void test_unknown_opcodes_and_padding(void **state)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/unknown.mcap", (const char *)*state);
	static const uint8_t ops[] = {0x42, 0x80, 0xff};
	uo_file(path, ops, sizeof ops);

	struct mcap_reader *r = tb_mcap_streamed(path);
	struct bt_error err;
	uint8_t seen[16];
	size_t n = 0;
	for (bool end = false;;) {
		struct mcap_item it;
		if (mcap_reader_next(r, &it, &end, &err) != BT_OK)
			fail_msg("%s", err.msg);
		if (end)
			break;
		assert_true(n < sizeof seen);
		seen[n++] = it.rec.opcode;
		if (it.rec.opcode == MCAP_OP_SCHEMA) {
			assert_int_equal(it.rec.u.schema.id, 7);
			assert_int_equal(it.rec.u.schema.data.len, 1);
			assert_memory_equal(it.rec.u.schema.data.p, "d", 1);
		}
	}
	uint8_t want[] = {MCAP_OP_HEADER, 0x42, 0x80, 0xff, MCAP_OP_SCHEMA, MCAP_OP_DATA_END,
			  MCAP_OP_FOOTER};
	assert_int_equal(n, sizeof want);
	assert_memory_equal(seen, want, n);
	assert_int_equal(mcap_reader_index(r, &err), BT_OK);
	assert_non_null(mcap_reader_schema(r, 7));
	mcap_reader_close(r);
}

/* Opcode 0x00, which the spec makes invalid (and which the zeros at the
 * end of a file cut short while written with direct I/O read as), is
 * damage: a clean error where it is, and recovery keeps what precedes. */
static void test_opcode_zero_is_damage(void **state)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/zero.mcap", (const char *)*state);
	static const uint8_t ops[] = {0x42, 0x00};
	uo_file(path, ops, sizeof ops);
	struct mcap_reader *r = tb_mcap_streamed(path);
	struct bt_error err;
	uint64_t zero_at = 0;
	bt_status st = BT_OK;
	for (bool end = false; st == BT_OK && !end;) {
		struct mcap_item it;
		st = mcap_reader_next(r, &it, &end, &err);
		if (st == BT_OK && it.rec.opcode == 0x42)
			zero_at = it.offset + MCAP_RECORD_PREFIX + it.rec.length;
	}
	assert_int_equal(st, BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "opcode 0x00"));
	char where[64];
	snprintf(where, sizeof where, "offset %llu", (unsigned long long)zero_at);
	assert_non_null(strstr(err.msg, where));
	struct mcap_recovery rec;
	assert_int_equal(mcap_reader_recover(r, &rec, &err), BT_OK);
	assert_false(rec.complete);
	assert_int_equal(rec.good_end, zero_at);
	mcap_reader_close(r);
}

/* ---- large messages: written from the caller's buffer ---- */

#define LG_N 24u
#define LG_MAX (300u * 1024u)

/* Message i's length: small ones between large ones, some of which fill
 * the 128 KiB chunk (the writer sends those straight from the caller's
 * buffer) and some not; one large first thing in a chunk. */
static size_t lg_len(uint32_t i)
{
	static const size_t lens[] = {100, 70000, 1000, 300000, 65536, 10, 131000, 5000};
	return lens[i % 8] + i;
}

static void lg_fill(uint32_t i, uint8_t *buf)
{
	for (size_t k = 0; k < lg_len(i); k++)
		buf[k] = (uint8_t)(i * 13 + k * 7 + (k >> 9));
}

/* Writes the LG_N messages; with `borrow`, in batches of 5 lent to the
 * writer (borrow_begin .. borrow_end), each from its own buffer, which is
 * overwritten once the batch is over: the file must not see that. */
static void lg_write(const char *path, enum mcap_compression comp, bool borrow)
{
	struct mcap_writer_options o;
	mcap_writer_options_init(&o);
	o.chunk_size = 128u * 1024u;
	o.compression = comp;
	o.no_chunk_crc = false;
	o.enable_data_crc = true;
	struct mcap_writer *w;
	struct bt_error err;
	uint16_t a, b;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "t", &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", 0, NULL, 0, &a, &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/b", "cdr", 0, NULL, 0, &b, &err), BT_OK);
	uint8_t *bufs[5];
	for (int k = 0; k < 5; k++)
		assert_non_null(bufs[k] = malloc(LG_MAX));
	for (uint32_t i = 0; i < LG_N; i++) {
		if (borrow && i % 5 == 0)
			mcap_writer_borrow_begin(w);
		uint8_t *buf = bufs[i % 5];
		lg_fill(i, buf);
		assert_int_equal(mcap_writer_write(w, i % 3 ? a : b, i, 1000 - i * 7 % 50, i, buf,
						   lg_len(i), &err),
				 BT_OK);
		if (borrow && (i % 5 == 4 || i == LG_N - 1)) {
			mcap_writer_borrow_end(w);
			for (int k = 0; k < 5; k++)
				memset(bufs[k], 0xAA, LG_MAX);
		}
	}
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
	for (int k = 0; k < 5; k++)
		free(bufs[k]);
}

/* Message m has the bytes lg_fill gives it (arg: a scratch buffer). */
static void lg_check(const struct mcap_message *m, void *arg)
{
	uint8_t *buf = arg;
	lg_fill(m->sequence, buf);
	assert_int_equal(m->data.len, lg_len(m->sequence));
	assert_memory_equal(m->data.p, buf, m->data.len);
}

/* What a streamed read sees: per chunk its times and uncompressed size,
 * per message its fields and a checksum of its bytes, in file order. */
static void lg_stream(const char *path, struct bt_buf *out)
{
	struct mcap_reader *r = tb_mcap_streamed(path);
	struct bt_error err;
	for (bool end = false;;) {
		struct mcap_item it;
		if (mcap_reader_next(r, &it, &end, &err) != BT_OK)
			fail_msg("%s: %s", path, err.msg); /* chunk and data CRCs checked */
		if (end)
			break;
		char line[160];
		const struct mcap_record *rec = &it.rec;
		if (rec->opcode == MCAP_OP_CHUNK)
			snprintf(line, sizeof line, "chunk %llu %llu %llu\n",
				 (unsigned long long)rec->u.chunk.message_start_time,
				 (unsigned long long)rec->u.chunk.message_end_time,
				 (unsigned long long)rec->u.chunk.uncompressed_size);
		else if (rec->opcode == MCAP_OP_MESSAGE)
			snprintf(line, sizeof line, "msg %u %u %llu @%llu %llu %08x\n",
				 rec->u.message.channel_id, rec->u.message.sequence,
				 (unsigned long long)rec->u.message.log_time,
				 (unsigned long long)it.offset,
				 (unsigned long long)rec->u.message.data.len,
				 mcap_crc32(0, rec->u.message.data.p, rec->u.message.data.len));
		else
			continue;
		assert_int_equal(bt_buf_puts(out, line), BT_OK);
	}
	mcap_reader_close(r);
}

/* The files the writer sends message data of from the caller's buffers
 * (no compression: large messages that fill a chunk, and lent ones) have
 * the same chunks, message offsets and bytes as the zstd one (whose chunks
 * are built by copying), CRCs right, the lent buffers' later bytes not in
 * them; and read back through their indexes. */
static void test_large_messages(void **state)
{
	const char *dir = *state;
	uint8_t *buf = malloc(LG_MAX);
	assert_non_null(buf);
	char plain[4096], lent[4096], zstd[4096];
	snprintf(plain, sizeof plain, "%s/large.mcap", dir);
	snprintf(lent, sizeof lent, "%s/large_lent.mcap", dir);
	snprintf(zstd, sizeof zstd, "%s/large_zstd.mcap", dir);
	lg_write(plain, MCAP_COMPRESSION_NONE, false);
	lg_write(lent, MCAP_COMPRESSION_NONE, true);
	lg_write(zstd, MCAP_COMPRESSION_ZSTD, true);
	struct bt_buf a = BT_BUF_INIT, b = BT_BUF_INIT, c = BT_BUF_INIT;
	lg_stream(plain, &a);
	lg_stream(lent, &c);
	lg_stream(zstd, &b);
	assert_string_equal(a.data, b.data);
	assert_string_equal(c.data, b.data);
	assert_true(strstr(a.data, "chunk") != NULL);
	assert_true(tu_files_equal(plain, lent));

	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(plain, &s);
	assert_true(s->from_summary);
	assert_int_equal(rt_each_message(r, lg_check, buf), LG_N);
	mcap_reader_close(r);
	bt_buf_fini(&a);
	bt_buf_fini(&b);
	bt_buf_fini(&c);
	free(buf);
}

/* One batch of n lent messages that fills the chunk exactly at its last
 * one: the chunk goes out in writev pieces while the writer still points
 * at every message, n_refs equal to the room for them when n is 64 or
 * 128 (the room doubles from 64): the pieces must fit (under ASan a piece
 * one past the end was a heap overflow, and `bagtop convert -s mcap`
 * aborted in free). Then a second chunk, and every message read back. */
#define FULL_LEN 600u
#define FULL_PRE 31u /* a Message record's bytes before its data */

static void full_write(const char *path, uint32_t n, uint8_t *data)
{
	struct mcap_writer_options o;
	mcap_writer_options_init(&o);
	o.chunk_size = n * (FULL_PRE + FULL_LEN);
	struct mcap_writer *w;
	struct bt_error err;
	uint16_t ch;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "t", &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", 0, NULL, 0, &ch, &err), BT_OK);
	for (uint32_t done = 0; done < 2 * n; done += n) {
		mcap_writer_borrow_begin(w);
		for (uint32_t i = done; i < done + n; i++) {
			memset(data + (size_t)i * FULL_LEN, (int)(i & 0xff), FULL_LEN);
			assert_int_equal(mcap_writer_write(w, ch, i, 1000 + i, 1000 + i,
							   data + (size_t)i * FULL_LEN, FULL_LEN,
							   &err),
					 BT_OK);
		}
		mcap_writer_borrow_end(w);
	}
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
}

static void full_check(const struct mcap_message *m, void *arg)
{
	(void)arg;
	assert_int_equal(m->data.len, FULL_LEN);
	for (size_t k = 0; k < FULL_LEN; k++)
		assert_int_equal(m->data.p[k], m->sequence & 0xff);
}

static void test_lent_batch_fills_chunk(void **state)
{
	const char *dir = *state;
	static const uint32_t counts[] = {63, 64, 65, 128};
	uint8_t *data = malloc(2u * 128u * FULL_LEN);
	assert_non_null(data);
	for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/full%u.mcap", dir, (unsigned)counts[c]);
		full_write(path, counts[c], data);
		const struct mcap_summary *s;
		struct mcap_reader *r = tb_mcap_indexed(path, &s);
		assert_int_equal(s->n_chunks, 2);
		assert_int_equal(rt_each_message(r, full_check, NULL), 2 * counts[c]);
		mcap_reader_close(r);
	}
	free(data);
}

/* With write_behind the writer drops what it wrote from the page cache
 * once it lags BT_WBEHIND_LAG behind (bt_wbehind): after 48 MiB, the first
 * 8 MiB are not cached, and every message reads back; without it (the
 * default, and the control that the cache keeps pages here at all) they
 * are. Every write from 24 MiB on is synced through a second descriptor,
 * so what is dropped is on disk (clean) whatever the disk's speed. */
#define WB_MSG (256u << 10)
#define WB_MIB (1u << 20)

static void wb_check(const struct mcap_message *m, void *arg)
{
	(void)arg;
	assert_int_equal(m->data.len, WB_MSG);
	assert_int_equal(m->data.p[0], m->sequence & 0xff);
	assert_int_equal(m->data.p[WB_MSG - 1], m->sequence & 0xff);
}

/* Writes 48 MiB of messages to `path`; the share of its first 8 MiB in the
 * page cache at the end. */
static double wb_write(const char *path, bool behind, uint32_t *n_out)
{
	struct mcap_writer_options o;
	mcap_writer_options_init(&o);
	o.write_behind = behind;
	struct mcap_writer *w;
	struct bt_error err;
	uint16_t ch;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "t", &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", 0, NULL, 0, &ch, &err), BT_OK);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	uint8_t *data = malloc(WB_MSG);
	assert_non_null(data);
	struct stat st = {0};
	uint32_t n = 0;
	for (; st.st_size < 48 * WB_MIB; n++) {
		memset(data, (int)(n & 0xff), WB_MSG);
		assert_int_equal(mcap_writer_write(w, ch, n, 1000 + n, 1000 + n, data, WB_MSG, &err),
				 BT_OK);
		assert_int_equal(fstat(fd, &st), 0);
		if (st.st_size >= 24 * WB_MIB)
			assert_int_equal(fdatasync(fd), 0);
	}
	double share = tu_cached_share(fd, 0, 8 * WB_MIB);
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
	close(fd);
	free(data);
	*n_out = n;
	return share;
}

/* A write-behind try into DIR/behind<i>.mcap: the file and its count. */
struct wb_attempt {
	const char *dir;
	char path[4096];
	uint32_t n;
};

static double wb_try(void *arg, int i)
{
	struct wb_attempt *t = arg;
	snprintf(t->path, sizeof t->path, "%s/behind%d.mcap", t->dir, i);
	return wb_write(t->path, true, &t->n);
}

static void test_writes_behind(void **state)
{
	const char *dir = *state;
	tu_skip_on_tmpfs(dir);
	char plain[4096];
	snprintf(plain, sizeof plain, "%s/plain.mcap", dir);
	uint32_t n;
	if (wb_write(plain, false, &n) < 0.9) {
		fprintf(stderr, "test_writes_behind: written pages do not stay cached here\n");
		skip();
	}
	struct wb_attempt t = {.dir = dir};
	tu_assert_written_behind(wb_try, &t);
	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(t.path, &s);
	assert_int_equal(rt_each_message(r, wb_check, NULL), t.n);
	mcap_reader_close(r);
}

/* ---- late_definitions ---- */

/* Schemas and channels wait until the chunk that holds their channel's
 * first messages is written, then go in at its start: schema 1 (unknown
 * at first, its definition given while its messages wait in the open
 * chunk), schema 2 (known), channel /idle of schema 1 with no message,
 * schema 3 used by no channel (updated before the end), channel /last added
 * late whose one message is in the chunk the close writes. 600-byte messages
 * are lent (borrow: the chunk points at them), 100-byte ones copied, so
 * the first chunk to close has refs, index entries and copies to move up.
 * Each variant is read streamed (the records of a channel before its
 * first message, each once in the data section, every Message Index entry
 * on a message of its channel and log time in its chunk) and indexed. */
#define LT_N 60u

static size_t lt_len(uint32_t i)
{
	return i % 3 ? 600 : 100;
}

static void lt_fill(uint32_t i, uint8_t *buf)
{
	for (size_t k = 0; k < lt_len(i); k++)
		buf[k] = (uint8_t)(i * 29 + k);
}

static void lt_update(struct mcap_writer *w, uint16_t id, const char *text, bool want)
{
	struct bt_error err;
	bool updated = !want;
	assert_int_equal(mcap_writer_update_schema(w, id, "ros2msg", text, strlen(text), &updated,
						   &err), BT_OK);
	assert_int_equal(updated, want);
}

static void lt_write(const char *path, enum mcap_compression comp, bool chunked)
{
	struct mcap_writer_options o;
	mcap_writer_options_init(&o);
	o.chunk_size = 8192;
	o.compression = comp;
	o.no_chunking = !chunked;
	o.late_definitions = true;
	struct mcap_writer *w;
	struct bt_error err;
	uint16_t s1, s2, s3, a, b, idle, last = 0;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "t", &err), BT_OK);
	assert_int_equal(mcap_writer_add_schema(w, "late/msg/A", "unknown", "", 0, &s1, &err), BT_OK);
	assert_int_equal(mcap_writer_add_schema(w, "b/msg/B", "ros2msg", "int32 b", 7, &s2, &err),
			 BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", s1, NULL, 0, &a, &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/b", "cdr", s2, NULL, 0, &b, &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/idle", "cdr", s1, NULL, 0, &idle, &err), BT_OK);
	assert_int_equal(mcap_writer_add_schema(w, "unused/msg/U", "unknown", "", 0, &s3, &err),
			 BT_OK);
	uint8_t *buf = malloc((size_t)LT_N * 600);
	assert_non_null(buf);
	mcap_writer_borrow_begin(w);
	for (uint32_t i = 0; i < LT_N; i++) {
		uint8_t *m = buf + (size_t)i * 600;
		lt_fill(i, m);
		if (i == LT_N - 1)
			assert_int_equal(mcap_writer_add_channel(w, "/last", "cdr", s2, NULL, 0, &last,
								 &err), BT_OK);
		/* /a first alone; /b joins once /a has messages waiting */
		uint16_t ch = i == LT_N - 1 ? last : i < 4 || i % 2 ? a : b;
		assert_int_equal(mcap_writer_write(w, ch, i, 5000 + i, i, m, lt_len(i), &err), BT_OK);
		if (i == 2) /* schema 1's messages wait in the open chunk (or, loose, are out) */
			lt_update(w, s1, "int32 a", chunked);
		if (i == LT_N / 2) { /* chunks written: schemas 1 and 2 are in the file */
			lt_update(w, s1, "int32 too_late", false);
			lt_update(w, s2, "int32 too_late", false);
		}
	}
	mcap_writer_borrow_end(w);
	memset(buf, 0xAA, (size_t)LT_N * 600);
	lt_update(w, s3, "int8 u", true);
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
	free(buf);
}

/* What lt_item has seen: the Message items of the chunk being read
 * (offset in its records, channel, log time), the data section's Schema
 * and Channel records by id, the messages. */
struct lt_seen {
	bool chunked, data;
	uint64_t off[LT_N], time[LT_N];
	uint16_t ch[LT_N];
	size_t n;
	int schemas[4], channels[5];
	uint32_t msgs;
};

static void lt_index_entries(const struct lt_seen *c, const struct mcap_message_index *mi)
{
	for (uint64_t e = 0; e < mi->count; e++) {
		uint64_t t = mcap_get_u64(mi->entries + 16 * e);
		uint64_t off = mcap_get_u64(mi->entries + 16 * e + 8);
		size_t k = 0;
		while (k < c->n && c->off[k] != off)
			k++;
		if (k == c->n || c->ch[k] != mi->channel_id || c->time[k] != t)
			fail_msg("message index of channel %u: no message at %llu with log time %llu",
				 mi->channel_id, (unsigned long long)off, (unsigned long long)t);
	}
}

static void lt_schema(struct lt_seen *c, const struct mcap_schema *sc)
{
	static const char *const want[] = {"", "int32 a", "int32 b", "int8 u"};
	assert_true(sc->id >= 1 && sc->id <= 3);
	c->schemas[sc->id]++;
	const char *text = !c->chunked && sc->id == 1 ? "" : want[sc->id];
	assert_int_equal(sc->data.len, strlen(text));
	assert_memory_equal(sc->data.p, text, strlen(text));
}

static void lt_item(const struct mcap_item *it, void *arg)
{
	struct lt_seen *c = arg;
	const struct mcap_record *rec = &it->rec;
	c->data = c->data && rec->opcode != MCAP_OP_DATA_END;
	if (rec->opcode == MCAP_OP_CHUNK) {
		c->n = 0;
	} else if (rec->opcode == MCAP_OP_SCHEMA && c->data) {
		lt_schema(c, &rec->u.schema);
	} else if (rec->opcode == MCAP_OP_CHANNEL && c->data) {
		uint16_t id = rec->u.channel.id;
		assert_true(id >= 1 && id <= 4);
		assert_int_equal(c->schemas[rec->u.channel.schema_id], 1); /* before it */
		c->channels[id]++;
	} else if (rec->opcode == MCAP_OP_MESSAGE) {
		assert_int_equal(c->channels[rec->u.message.channel_id], 1); /* before it */
		if (it->in_chunk) {
			assert_true(c->n < LT_N);
			c->off[c->n] = it->offset;
			c->time[c->n] = rec->u.message.log_time;
			c->ch[c->n++] = rec->u.message.channel_id;
		}
		c->msgs++;
	} else if (rec->opcode == MCAP_OP_MESSAGE_INDEX) {
		lt_index_entries(c, &rec->u.message_index);
	}
}

static void lt_streamed(const char *path, bool chunked)
{
	struct lt_seen c = {.chunked = chunked, .data = true};
	tb_mcap_stream_each(path, lt_item, &c);
	assert_int_equal(c.msgs, LT_N);
	for (int id = 1; id <= 4; id++) { /* each once in the data section */
		assert_int_equal(c.channels[id], 1);
		if (id <= 3)
			assert_int_equal(c.schemas[id], 1);
	}
}

static void lt_check(const struct mcap_message *m, void *arg)
{
	uint8_t *buf = arg;
	lt_fill(m->sequence, buf);
	assert_int_equal(m->data.len, lt_len(m->sequence));
	assert_memory_equal(m->data.p, buf, m->data.len);
}

static void test_late_definitions(void **state)
{
	const char *dir = *state;
	static const struct {
		enum mcap_compression comp;
		bool chunked;
	} v[] = {{MCAP_COMPRESSION_NONE, true},
		 {MCAP_COMPRESSION_ZSTD, true},
		 {MCAP_COMPRESSION_NONE, false}};
	uint8_t buf[600];
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/late%zu.mcap", dir, k);
		lt_write(path, v[k].comp, v[k].chunked);
		lt_streamed(path, v[k].chunked);
		const struct mcap_summary *s;
		struct mcap_reader *r = tb_mcap_indexed(path, &s);
		assert_int_equal(s->n_schemas, 3);
		assert_int_equal(s->n_channels, 4);
		assert_int_equal(mcap_reader_schema(r, 1)->data.len, v[k].chunked ? 7 : 0);
		assert_int_equal(rt_each_message(r, lt_check, buf), LT_N);
		if (v[k].chunked)
			assert_true(s->n_chunks > 3);
		mcap_reader_close(r);
	}
}

/* Direct I/O writes a chunk that is not compressed from the chunk buffer
 * (bt_dio_write_placed), the bytes bt_dio has staged copied in front of
 * it: the file must be byte for byte the one written without direct I/O,
 * across chunks closed by size and by flushes (below BT_DIO_THROUGH: then
 * staged), lent batches, messages larger than a chunk, a channel and a
 * metadata record added half-way, and late definitions (put in at a
 * chunk's start). Compressed and unchunked files are never placed and the
 * same too. DIO_FORCED is bt_dio without O_DIRECT (any file system);
 * DIO_REAL is direct I/O where the file system takes it. */
enum dio_mode { DIO_OFF, DIO_FORCED, DIO_REAL };
#define DIO_N 1400u

static size_t dio_size(uint32_t i)
{
	static const size_t sizes[] = {100, 1024, 300, 60000, 0, 2048, 513};
	return i % 70 == 69 ? (BT_DIO_STAGE - 100000u) : sizes[i % 7];
}

static char *dio_write(const char *dir, const char *name, const struct mcap_writer_options *base,
		       enum dio_mode mode, const uint8_t *src, struct mcap_writer_dio_counts *n)
{
	char *path = bt_xasprintf("%s/%s%d.mcap", dir, name, (int)mode);
	struct mcap_writer_options o = *base;
	o.write_behind = mode != DIO_OFF;
	o.test_dio_force = mode == DIO_FORCED;
	struct mcap_writer *w;
	struct bt_error err;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "bagtop test", &err), BT_OK);
	uint16_t sid, ch[3];
	assert_int_equal(mcap_writer_add_schema(w, "a/msg/A", "ros2msg", "int32 x", 7, &sid, &err),
			 BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", sid, NULL, 0, &ch[0], &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/b", "cdr", 0, NULL, 0, &ch[1], &err), BT_OK);
	static const char *const kv[] = {"k", "v"};
	for (uint32_t i = 0; i < DIO_N; i++) {
		if (i == DIO_N / 2) {
			assert_int_equal(mcap_writer_add_channel(w, "/c", "cdr", sid, NULL, 0, &ch[2],
								 &err),
					 BT_OK);
			assert_int_equal(mcap_writer_add_metadata(w, "m", kv, 1, &err), BT_OK);
		}
		if (i % 7 == 0)
			mcap_writer_borrow_begin(w);
		uint16_t c = ch[i % (i < DIO_N / 2 ? 2 : 3)];
		assert_int_equal(mcap_writer_write(w, c, i, 1000 + i, 500 + i, src + i % 4096,
						   dio_size(i), &err),
				 BT_OK);
		if (i % 7 == 6 || i == DIO_N - 1)
			mcap_writer_borrow_end(w);
		if (i % 300 == 299)
			assert_int_equal(mcap_writer_flush(w, false, &err), BT_OK);
	}
	*n = mcap_writer_dio_counts(w);
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
	return path;
}

static uint8_t *dio_slurp(const char *path, size_t *n)
{
	char *b;
	struct bt_error err;
	assert_int_equal(bt_fs_read_all(path, (size_t)1 << 30, &b, n, &err), BT_OK);
	return (uint8_t *)b;
}

/* Whether `dir`'s file system takes direct I/O (bt_dio_supported). */
static bool dio_here(const char *dir)
{
	char *probe = bt_xasprintf("%s/dio_probe", dir);
	int fd = open(probe, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	bool yes = bt_dio_supported(fd) == 0;
	close(fd);
	unlink(probe);
	free(probe);
	return yes;
}

static void test_direct_io_same_file(void **state)
{
	const char *dir = *state;
	size_t src_n = BT_DIO_STAGE + 4096u;
	uint8_t *src = bt_xmalloc(src_n);
	for (size_t k = 0; k < src_n; k++)
		src[k] = (uint8_t)(k * 131 + (k >> 12));
	bool real = dio_here(dir);
	if (!real)
		fprintf(stderr, "test_direct_io_same_file: no direct I/O in %s: forced only\n", dir);
	struct {
		const char *name;
		bool late, zstd, unchunked;
	} v[] = {{"dflt", false, false, false},
		 {"late", true, false, false},
		 {"zstd", false, true, false},
		 {"loose", true, false, true}};
	for (size_t k = 0; k < sizeof v / sizeof v[0]; k++) {
		struct mcap_writer_options o;
		mcap_writer_options_init(&o);
		o.late_definitions = v[k].late;
		o.no_chunking = v[k].unchunked;
		if (v[k].zstd)
			o.compression = MCAP_COMPRESSION_ZSTD;
		bool placeable = !v[k].zstd && !v[k].unchunked;
		struct mcap_writer_dio_counts n;
		char *want_path = dio_write(dir, v[k].name, &o, DIO_OFF, src, &n);
		assert_int_equal(n.placed, 0);
		size_t want_n;
		uint8_t *want = dio_slurp(want_path, &want_n);
		tb_mcap_doctor(want_path);
		for (enum dio_mode m = DIO_FORCED; m <= DIO_REAL; m++) {
			if (m == DIO_REAL && !real)
				continue;
			char *path = dio_write(dir, v[k].name, &o, m, src, &n);
			fprintf(stderr, "test_direct_io_same_file: %s, %s: %llu chunks placed, %llu pauses\n",
				v[k].name, m == DIO_REAL ? "O_DIRECT" : "forced",
				(unsigned long long)n.placed, (unsigned long long)n.paused);
			/* the chunks closed by size at least, but while paused (a
			 * slow disk, with O_DIRECT only) */
			if (placeable)
				assert_true(n.placed >= 20 || (m == DIO_REAL && n.paused > 0));
			else
				assert_int_equal(n.placed, 0);
			size_t got_n;
			uint8_t *got = dio_slurp(path, &got_n);
			assert_int_equal(got_n, want_n);
			assert_memory_equal(got, want, want_n);
			free(got);
			unlink(path);
			free(path);
		}
		free(want);
		unlink(want_path);
		free(want_path);
	}
	free(src);
}

/* A message larger than direct I/O's stage is written from where it is
 * (a chunk buffer of its size would stay with the writer): its chunk is
 * not placed, and it reads back. */
static void test_direct_io_huge_message(void **state)
{
	size_t n = 3 * BT_DIO_STAGE;
	uint8_t *src = bt_xmalloc(n);
	for (size_t k = 0; k < n; k++)
		src[k] = (uint8_t)(k * 7 + (k >> 16));
	char *path = bt_xasprintf("%s/huge.mcap", (const char *)*state);
	struct mcap_writer_options o;
	mcap_writer_options_init(&o);
	o.write_behind = o.test_dio_force = true;
	struct mcap_writer *w;
	struct bt_error err;
	uint16_t ch;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "bagtop test", &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", 0, NULL, 0, &ch, &err), BT_OK);
	assert_int_equal(mcap_writer_write(w, ch, 1, 10, 10, src, 1000, &err), BT_OK);
	assert_int_equal(mcap_writer_write(w, ch, 2, 11, 11, src, n, &err), BT_OK);
	assert_int_equal(mcap_writer_dio_counts(w).placed, 0);
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(path, &s);
	struct mcap_message m;
	bool end;
	assert_int_equal(mcap_reader_messages_begin(r, &err), BT_OK);
	assert_int_equal(mcap_reader_messages_next(r, &m, &end, &err), BT_OK);
	assert_int_equal(m.data.len, 1000);
	assert_int_equal(mcap_reader_messages_next(r, &m, &end, &err), BT_OK);
	assert_false(end);
	assert_int_equal(m.data.len, n);
	assert_memory_equal(m.data.p, src, n);
	assert_int_equal(mcap_reader_messages_next(r, &m, &end, &err), BT_OK);
	assert_true(end);
	mcap_reader_close(r);
	free(path);
	free(src);
}

TU_MAIN(
	TU_SCRATCH_TEST(test_writes_behind),
	TU_SCRATCH_TEST(test_option_combinations),
	TU_SCRATCH_TEST(test_lent_batch_fills_chunk),
	TU_SCRATCH_TEST(test_summary_parts),
	cmocka_unit_test(test_option_names),
	TU_SCRATCH_TEST(test_flushed_not_closed),
	TU_SCRATCH_TEST(test_unknown_opcodes_and_padding),
	TU_SCRATCH_TEST(test_opcode_zero_is_damage),
	TU_SCRATCH_TEST(test_large_messages),
	TU_SCRATCH_TEST(test_late_definitions),
	TU_SCRATCH_TEST(test_direct_io_same_file),
	TU_SCRATCH_TEST(test_direct_io_huge_message))
