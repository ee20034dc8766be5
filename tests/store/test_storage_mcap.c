/* The mcap storage backend through bag_writer and bag_reader: a round trip
 * for every rosbag2 preset and every MCAP writer key it takes (split by
 * size, read back in timestamp order, bag_check passes, the files show the
 * preset: chunks or none, their compression); the once-a-second flush (at
 * a commit and when idle) that bounds what a kill loses; the split size
 * counting the open chunk; info from the summary's message indexes, not
 * the chunks; offered QoS that change (the next file's channel has them);
 * option errors naming the key; definitions learned late (the Schema
 * waits for them). No DDS. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_msgdefs.h"
#include "bag_reader.h"
#include "bag_storage.h"
#include "bag_tools.h"
#include "bag_writer.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "mcap_reader.h"
#include "test_bag.h"
#include "test_util.h"

#define RT_TOPICS 3
#define RT_MSGS 600

static const char *const rt_names[RT_TOPICS] = {"/a", "/b/c", "/d"};

/* Message i: topic i % 3, a size that varies (up to ~1.5 KiB), stamped so
 * that each batch of 50 holds its stamps out of order. */
static int64_t rt_ts(size_t i)
{
	return INT64_C(1700000000000000000) + (int64_t)(i / 50) * 1000000 +
	       (int64_t)(49 - i % 50) * 1000;
}

/* Message i's send time: 250 ms and i ns before it was received, or, for
 * every tenth, not known (0: publish_time is then the receive time). */
static int64_t rt_send(size_t i)
{
	return i % 10 == 0 ? 0 : rt_ts(i) - INT64_C(250000000) - (int64_t)i;
}

static int64_t rt_publish_time(size_t i)
{
	return rt_send(i) ? rt_send(i) : rt_ts(i);
}

static size_t rt_len(size_t i)
{
	return 4 + (i * 37) % 1500;
}

/* Half noise, half repeats: compressible, but not to nothing (the size
 * splits must still happen with zstd chunks). */
static void rt_fill(uint8_t *buf, size_t i)
{
	size_t n = rt_len(i);
	uint32_t x = (uint32_t)i * 2654435761u + 1;
	for (size_t k = 0; k < n; k++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		buf[k] = k < n / 2 ? (uint8_t)x : (uint8_t)i;
	}
}

static uint32_t rt_add_topic(struct bag_writer *w, const char *name)
{
	struct bt_error err;
	struct bag_msgdef def = {(char *)"std_msgs/msg/String", (char *)"ros2msg",
				 (char *)"string data", (char *)""};
	struct bag_topic tp = {0};
	tp.name = (char *)name;
	tp.type = (char *)"std_msgs/msg/String";
	tp.serialization_format = (char *)"cdr";
	tp.type_description_hash = (char *)"RIHS01_00";
	uint32_t h;
	assert_int_equal(bag_writer_add_topic(w, &tp, &def, &h, &err), BT_OK);
	return h;
}

static struct bag_writer *rt_open(const char *dir, const char *preset, const struct bag_kv *kv,
				  size_t n, uint64_t max_size, uint32_t *h)
{
	struct bag_writer_options o = {0};
	o.uri = dir;
	o.storage_id = "mcap";
	o.storage_preset = preset;
	o.storage_config = kv;
	o.n_storage_config = n;
	o.max_bagfile_size = max_size;
	o.ros_distro = "jazzy";
	struct bag_writer *w = tb_writer_open(&o);
	for (size_t t = 0; t < RT_TOPICS; t++)
		h[t] = rt_add_topic(w, rt_names[t]);
	return w;
}

static void rt_write(struct bag_writer *w, const uint32_t *h, size_t from, size_t to)
{
	struct bag_message *m = bt_xcalloc(to - from, sizeof *m);
	uint8_t *buf = bt_xmalloc((to - from) * 1600);
	for (size_t i = from; i < to; i++) {
		uint8_t *b = buf + (i - from) * 1600;
		rt_fill(b, i);
		m[i - from] = (struct bag_message){h[i % RT_TOPICS], rt_ts(i), b, rt_len(i),
						   rt_send(i)};
	}
	struct bt_error err;
	if (bag_writer_write(w, m, to - from, &err) != BT_OK)
		fail_msg("write: %s", err.msg);
	free(buf);
	free(m);
}

struct rt_seen {
	size_t n;
	int64_t last;
	int bad;
};

/* The message whose receive time (log_time) is t. */
static size_t rt_index(int64_t t)
{
	int64_t d = t - INT64_C(1700000000000000000);
	return (size_t)(d / 1000000) * 50 + 49 - (size_t)(d % 1000000) / 1000;
}

/* Messages come back in timestamp order; message i is recognised by its
 * stamp (unique), its topic and its bytes, and has its send time. */
static void rt_check_msg(const struct bag_read_msg *m, const struct bag_reader_topic *t, void *arg)
{
	struct rt_seen *s = arg;
	size_t i = rt_index(m->timestamp);
	uint8_t want[1600];
	rt_fill(want, i);
	if (m->timestamp < s->last || m->timestamp != rt_ts(i) ||
	    m->send_time != rt_publish_time(i) ||
	    strcmp(t->topic.name, rt_names[i % RT_TOPICS]) != 0 || m->len != rt_len(i) ||
	    memcmp(m->data, want, m->len) != 0)
		s->bad++;
	s->last = m->timestamp;
	s->n++;
}

static void rt_report(void *ctx, const char *problem)
{
	fprintf(stderr, "check %s: %s\n", (const char *)ctx, problem);
}

/* What the first file's first data records say: chunks (and their
 * compression) or loose messages. */
static void rt_first_file(const char *dir, const char **layout)
{
	char *p = bt_xasprintf("%s/%s_0.mcap", dir, strrchr(dir, '/') + 1);
	struct mcap_reader *r = tb_mcap_streamed(p);
	struct bt_error err;
	struct mcap_item it;
	bool end = false;
	*layout = "empty";
	while (mcap_reader_next(r, &it, &end, &err) == BT_OK && !end) {
		if (it.rec.opcode == MCAP_OP_HEADER) {
			assert_int_equal(it.rec.u.header.profile.len, 4);
			assert_memory_equal(it.rec.u.header.profile.p, "ros2", 4);
		} else if (it.rec.opcode == MCAP_OP_CHUNK) {
			struct mcap_str c = it.rec.u.chunk.compression;
			*layout = c.len == 4 ? "zstd" : c.len == 3 ? "lz4" : "chunk";
			break;
		} else if (it.rec.opcode == MCAP_OP_MESSAGE && !it.in_chunk) {
			*layout = "loose";
			break;
		}
	}
	mcap_reader_close(r);
	free(p);
}

static uint64_t rt_le(const uint8_t *p, int bytes)
{
	uint64_t v = 0;
	for (int k = bytes - 1; k >= 0; k--)
		v = v << 8 | p[k];
	return v;
}

/* Walks the records in [p, end) as the MCAP specification lays them out
 * (opcode, u64 length, body), into chunks that are not compressed, without
 * bagtop's reader: a Message's publish_time (body offset 14, after channel,
 * sequence and log_time) must be its send time, else *bad counts it.
 * Returns the Messages seen. */
static size_t rt_raw_walk(const uint8_t *p, const uint8_t *end, size_t *bad)
{
	size_t n = 0;
	while (end - p >= 9) {
		uint64_t len = rt_le(p + 1, 8);
		const uint8_t *b = p + 9;
		if (len > (uint64_t)(end - b))
			fail_msg("a record overruns its container");
		if (p[0] == 0x05 && len >= 22) { /* Message */
			size_t i = rt_index((int64_t)rt_le(b + 6, 8));
			*bad += (int64_t)rt_le(b + 14, 8) != rt_publish_time(i);
			n++;
		} else if (p[0] == 0x06 && len >= 40 && rt_le(b + 28, 4) == 0) { /* plain Chunk */
			uint64_t rl = rt_le(b + 32, 8);
			if (rl > len - 40)
				fail_msg("a chunk's records overrun it");
			n += rt_raw_walk(b + 40, b + 40 + rl, bad);
		}
		p = b + len;
	}
	return n;
}

/* Every file of the bag, walked as rt_raw_walk does: all RT_MSGS messages,
 * each with its publish_time. */
static void rt_raw_times(const char *dir, const struct bag_metadata *md, const char *name)
{
	size_t n = 0, bad = 0;
	for (size_t k = 0; k < md->n_paths; k++) {
		char *f = bt_fs_join(dir, md->relative_file_paths[k]);
		char *bytes;
		size_t len;
		struct bt_error err;
		assert_int_equal(bt_fs_read_all(f, SIZE_MAX / 2, &bytes, &len, &err), BT_OK);
		const uint8_t *p = (const uint8_t *)bytes;
		assert_true(len >= 8);
		n += rt_raw_walk(p + 8, p + len, &bad);
		free(bytes);
		free(f);
	}
	if (n != RT_MSGS || bad)
		fail_msg("%s: %zu messages in the files, %zu with a wrong publish_time", name, n,
			 bad);
}

struct rt_case {
	const char *name, *preset;
	const char *kv[4]; /* key, value, key, value */
	const char *layout; /* of the first file */
};

static const struct rt_case rt_cases[] = {
	{"default", NULL, {0}, "chunk"},
	{"none", "none", {0}, "chunk"},
	{"fastwrite", "fastwrite", {0}, "loose"},
	{"zstd_fast", "zstd_fast", {0}, "zstd"},
	{"zstd_small", "zstd_small", {0}, "zstd"},
	{"zstd_fast_chunk", "zstd_fast", {"chunkSize", "8192"}, "zstd"},
	{"chunkSize", NULL, {"chunkSize", "4096"}, "chunk"},
	{"lz4_fastest", NULL, {"compression", "Lz4", "compressionLevel", "Fastest"}, "lz4"},
	{"lz4_slowest", NULL, {"compression", "Lz4", "compressionLevel", "Slowest"}, "lz4"},
	{"zstd_fast_lvl", NULL, {"compression", "Zstd", "compressionLevel", "Fast"}, "zstd"},
	{"zstd_default", NULL, {"compression", "Zstd", "compressionLevel", "Default"}, "zstd"},
	{"zstd_slow", NULL, {"compression", "Zstd", "compressionLevel", "Slow"}, "zstd"},
	{"none_comp", "zstd_fast", {"compression", "None"}, "chunk"},
	{"forceCompression", NULL, {"compression", "Zstd", "forceCompression", "true"}, "zstd"},
	{"chunkCRC", NULL, {"noChunkCRC", "false"}, "chunk"},
	{"noAttachmentCRC", NULL, {"noAttachmentCRC", "true"}, "chunk"},
	{"enableDataCRC", NULL, {"enableDataCRC", "true"}, "chunk"},
	{"noSummaryCRC", NULL, {"noSummaryCRC", "true"}, "chunk"},
	{"noChunking", NULL, {"noChunking", "true"}, "loose"},
	{"noMessageIndex", NULL, {"noMessageIndex", "true"}, "chunk"},
	{"noSummary", NULL, {"noSummary", "true"}, "chunk"},
	{"noRepeatedSchemas", NULL, {"noRepeatedSchemas", "true"}, "chunk"},
	{"noRepeatedChannels", NULL, {"noRepeatedChannels", "true"}, "chunk"},
	{"noAttachmentIndex", NULL, {"noAttachmentIndex", "true"}, "chunk"},
	{"noMetadataIndex", NULL, {"noMetadataIndex", "true"}, "chunk"},
	{"noChunkIndex", NULL, {"noChunkIndex", "true"}, "chunk"},
	{"noStatistics", NULL, {"noStatistics", "true"}, "chunk"},
	{"noSummaryOffsets", NULL, {"noSummaryOffsets", "true"}, "chunk"},
};

static void rt_one(const char *root, const struct rt_case *c)
{
	char *dir = bt_xasprintf("%s/%s", root, c->name);
	struct bag_kv kv[2];
	size_t n = 0;
	for (; n < 2 && c->kv[2 * n]; n++)
		kv[n] = (struct bag_kv){(char *)c->kv[2 * n], (char *)c->kv[2 * n + 1]};
	uint32_t h[RT_TOPICS];
	/* 64 KiB files: several splits, chunks closed by size and by split */
	struct bag_writer *w = rt_open(dir, c->preset, kv, n, 64 * 1024, h);
	for (size_t i = 0; i < RT_MSGS; i += 50)
		rt_write(w, h, i, i + 50);
	struct bt_error err;
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	struct rt_seen s = {0, INT64_MIN, 0};
	assert_int_equal(tb_each(dir, 0, rt_check_msg, &s), RT_MSGS);
	if (s.bad)
		fail_msg("%s: %d messages read back wrong or out of order", c->name, s.bad);
	if (bag_check(dir, rt_report, dir) != 0)
		fail_msg("%s: bag_check found problems", c->name);
	struct bag_metadata md;
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_string_equal(md.storage_identifier, "mcap");
	if (md.n_paths <= 2) /* split by size */
		fail_msg("%s: %zu files", c->name, md.n_paths);
	for (size_t i = 0; i < md.n_paths; i++) {
		char *f = bt_fs_join(dir, md.relative_file_paths[i]);
		tb_mcap_doctor(f);
		free(f);
	}
	assert_int_equal(md.message_count, RT_MSGS);
	const char *layout;
	rt_first_file(dir, &layout);
	if (strcmp(layout, c->layout) != 0)
		fail_msg("%s: first file %s, want %s", c->name, layout, c->layout);
	if (!strcmp(layout, "loose") || !strcmp(layout, "chunk"))
		rt_raw_times(dir, &md, c->name);
	bag_metadata_fini(&md);
	free(dir);
}

static void test_roundtrip(void **state)
{
	for (size_t i = 0; i < sizeof rt_cases / sizeof rt_cases[0]; i++)
		rt_one(*state, &rt_cases[i]);
}

/* ---- flush: what is on disk while the writer is open ---- */

/* Messages in the complete records of the file as it is now (what a
 * kill -9 would leave). */
static uint64_t fl_on_disk(const char *dir)
{
	char *p = bt_xasprintf("%s/%s_0.mcap", dir, strrchr(dir, '/') + 1);
	uint64_t size = 0;
	struct bt_error err;
	assert_int_equal(bt_fs_file_size(p, &size, &err), BT_OK);
	struct mcap_recovery rec = {0};
	if (size >= MCAP_MAGIC_LEN) {
		struct mcap_reader *r = NULL;
		assert_int_equal(mcap_reader_open(&r, p, &err), BT_OK);
		assert_int_equal(mcap_reader_recover(r, &rec, &err), BT_OK);
		mcap_reader_close(r);
	}
	free(p);
	return rec.messages;
}

static void test_flush_each_second(void **state)
{
	char *dir = bt_xasprintf("%s/fl", (const char *)*state);
	uint32_t h[RT_TOPICS];
	struct bag_writer *w = rt_open(dir, NULL, NULL, 0, 0, h);
	struct bt_error err;
	rt_write(w, h, 0, 50);
	/* A commit within the second: the chunk stays open (chunks are not
	 * one per commit). */
	assert_int_equal(fl_on_disk(dir), 0);
	usleep(1100 * 1000);
	rt_write(w, h, 50, 100); /* a commit a second after the file began */
	assert_int_equal(fl_on_disk(dir), 100);
	rt_write(w, h, 100, 150);
	assert_int_equal(bag_writer_idle(w, &err), BT_OK);
	assert_int_equal(fl_on_disk(dir), 100); /* waits less than a second */
	usleep(1100 * 1000);
	assert_int_equal(bag_writer_idle(w, &err), BT_OK); /* nothing arrives */
	assert_int_equal(fl_on_disk(dir), 150);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	assert_int_equal(tb_each(dir, 0, NULL, NULL), 150);
	free(dir);
}

/* ---- the split size counts the open chunk ---- */

static void test_split_size(void **state)
{
	char *dir = bt_xasprintf("%s/sz", (const char *)*state);
	uint32_t h[RT_TOPICS];
	const uint64_t max = 100 * 1024;
	/* chunks larger than the files: only the open chunk's count splits */
	struct bag_kv kv = {(char *)"chunkSize", (char *)"1048576"};
	struct bag_writer *w = rt_open(dir, NULL, &kv, 1, max, h);
	for (size_t i = 0; i < RT_MSGS; i += 50)
		rt_write(w, h, i, i + 50);
	struct bt_error err;
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	struct bag_metadata md;
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_true(md.n_paths >= 3);
	for (size_t i = 0; i + 1 < md.n_paths; i++) {
		char *p = bt_fs_join(dir, md.relative_file_paths[i]);
		uint64_t size = 0;
		assert_int_equal(bt_fs_file_size(p, &size, &err), BT_OK);
		/* at the limit, past it by at most the fixed part, one message,
		 * the indexes and the summary */
		if (size < max || size > max + 16 * 1024)
			fail_msg("%s: %llu bytes for a %llu limit", p, (unsigned long long)size,
				 (unsigned long long)max);
		free(p);
	}
	bag_metadata_fini(&md);
	free(dir);
}

/* ---- split on request (the live view's key), --max-bag-files ---- */

static void test_split_and_rotate(void **state)
{
	char *dir = bt_xasprintf("%s/rot", (const char *)*state);
	struct bag_writer_options o = {0};
	o.uri = dir;
	o.storage_id = "mcap";
	o.max_bag_files = 2;
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	struct bag_topic tp = {0};
	tp.name = (char *)"/a";
	tp.type = (char *)"std_msgs/msg/String";
	tp.serialization_format = (char *)"cdr";
	tp.type_description_hash = (char *)"";
	uint32_t h[RT_TOPICS];
	assert_int_equal(bag_writer_add_topic(w, &tp, NULL, &h[0], &err), BT_OK);
	h[1] = h[2] = h[0];
	for (size_t i = 0; i < 5 * 50; i += 50) { /* five files: 0..4 */
		rt_write(w, h, i, i + 50);
		if (i + 50 < 5 * 50)
			assert_int_equal(bag_writer_split(w, &err), BT_OK);
	}
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	char *gone = bt_xasprintf("%s/rot_2.mcap", dir);
	char *kept = bt_xasprintf("%s/rot_3.mcap", dir);
	assert_false(bt_fs_exists(gone));
	assert_true(bt_fs_exists(kept));
	assert_int_equal(tb_each(dir, 0, NULL, NULL), 100); /* the newest two files */
	if (bag_check(dir, rt_report, dir) != 0)
		fail_msg("rotated bag: bag_check found problems");
	free(gone);
	free(kept);
	free(dir);
}

/* ---- a complete file damaged inside: reindex names it, never rebuilds ---- */

static void test_damaged_inside(void **state)
{
	char *dir = bt_xasprintf("%s/dmg", (const char *)*state);
	struct bag_kv kv = {(char *)"noChunkCRC", (char *)"false"};
	uint32_t h[RT_TOPICS];
	struct bag_writer *w = rt_open(dir, NULL, &kv, 1, 0, h);
	rt_write(w, h, 0, 50);
	struct bt_error err;
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	char *f = bt_xasprintf("%s/dmg_0.mcap", dir);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(bt_fs_read_all(f, 1 << 24, &text, &len, &err), BT_OK);
	text[len / 3] ^= 0x5a; /* inside the one chunk, with its CRC */
	tu_write_file(f, text, len);
	struct bag_reindex_result res;
	assert_int_equal(bag_reindex(dir, &res, &err), BT_ERR_FORMAT);
	char *now = NULL;
	size_t nlen = 0;
	assert_int_equal(bt_fs_read_all(f, 1 << 24, &now, &nlen, &err), BT_OK);
	assert_int_equal(nlen, len);
	assert_memory_equal(now, text, len); /* not rebuilt */
	assert_true(bag_check(dir, rt_report, dir) > 0);
	free(now);
	free(text);
	free(f);
	free(dir);
}

/* ---- info from the summary: the chunks are not read ---- */

/* Drops what info -v learns by reading every message (" | Size
 * Contribution: ..." of each topic line; this bag has no services) from
 * `s`, in place. */
static void strip_sizes(char *s)
{
	static const char key[] = " | Size Contribution: ";
	char *at;
	while ((at = strstr(s, key)) != NULL) {
		char *end = strstr(at + 3, " | ");
		assert_non_null(end);
		memmove(at, end, strlen(end) + 1);
	}
}

/* bagtop info's counts and times come from the message indexes the
 * summary points at: with every chunk's records overwritten (check finds
 * them broken), info -v says the same as before but what only reading the
 * messages tells (the topics' sizes, which it says it cannot give); and a
 * file without a summary is still read message by message. */
static void test_info_from_index(void **state)
{
	char *dir = bt_xasprintf("%s/idx", (const char *)*state);
	struct bag_kv kv = {(char *)"chunkSize", (char *)"8192"};
	uint32_t h[RT_TOPICS];
	struct bag_writer *w = rt_open(dir, NULL, &kv, 1, 0, h);
	rt_write(w, h, 0, RT_MSGS);
	struct bt_error err;
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	char *before = NULL, *after = NULL, *out = NULL;
	assert_int_equal(tu_bagtop(&before, "info", "-v", dir, NULL), 0);

	char *f = bt_xasprintf("%s/idx_0.mcap", dir);
	const struct mcap_summary *sum;
	struct mcap_reader *r = tb_mcap_indexed(f, &sum);
	assert_true(sum->n_chunks > 10);
	char *text = NULL;
	size_t len = 0;
	assert_int_equal(bt_fs_read_all(f, 1 << 24, &text, &len, &err), BT_OK);
	for (size_t i = 0; i < sum->n_chunks; i++) { /* the records, after the chunk's fields */
		size_t from = (size_t)sum->chunks[i].offset + MCAP_RECORD_PREFIX + 48;
		memset(text + from, 0xff, (size_t)(sum->chunks[i].offset + sum->chunks[i].length) - from);
	}
	mcap_reader_close(r);
	tu_write_file(f, text, len);
	assert_int_equal(tu_bagtop(&after, "info", "-v", dir, NULL), 0);
	assert_non_null(strstr(before, "Topic: /a | Type: std_msgs/msg/String | Count: 200 | Size "
				       "Contribution: "));
	static const char warned[] = "bagtop: warning: -v: not every message could be read (";
	assert_memory_equal(after, warned, sizeof warned - 1);
	strip_sizes(before);
	assert_string_equal(strchr(after, '\n') + 1, before);
	assert_int_not_equal(tu_bagtop(&out, "check", dir, NULL), 0);
	free(out);
	free(after);
	free(before);
	free(text);
	free(f);
	free(dir);

	dir = bt_xasprintf("%s/nosum", (const char *)*state);
	kv = (struct bag_kv){(char *)"noSummary", (char *)"true"};
	w = rt_open(dir, NULL, &kv, 1, 0, h);
	rt_write(w, h, 0, RT_MSGS);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	assert_int_equal(tu_bagtop(&out, "info", dir, NULL), 0);
	char want[64];
	snprintf(want, sizeof want, "Messages:          %d", RT_MSGS);
	if (!strstr(out, want))
		fail_msg("info on a file without a summary:\n%s", out);
	free(out);
	free(dir);
}

/* ---- offered QoS that change while recording ---- */

/* The offered_qos_profiles of channel `topic` in MCAP file `f` (malloc'ed). */
static char *qos_of_channel(const char *f, const char *topic)
{
	const struct mcap_summary *sum;
	struct mcap_reader *r = tb_mcap_indexed(f, &sum);
	char *qos = NULL;
	size_t n = 0;
	for (size_t i = 0; i < sum->n_channels; i++) {
		const struct mcap_channel *c = &sum->channels[i];
		if (c->topic.len != strlen(topic) || memcmp(c->topic.p, topic, c->topic.len))
			continue;
		struct mcap_map m = c->metadata;
		struct mcap_str k, v;
		while (mcap_map_next_str(&m, &k, &v))
			if (k.len == 20 && !memcmp(k.p, "offered_qos_profiles", 20))
				qos = bt_xstrndup((const char *)v.p, v.len);
		n++;
	}
	assert_int_equal(n, 1); /* one channel a topic, whatever changed */
	assert_non_null(qos);
	mcap_reader_close(r);
	return qos;
}

/* A second publisher's QoS, learned while a file is open: that file's
 * channel keeps the profiles it was created with (as rosbag2's plugin,
 * which never changes a channel), the next file's channel has the new
 * ones, and metadata.yaml says the newest; check passes. */
static void test_qos_change(void **state)
{
	char *dir = bt_xasprintf("%s/qos", (const char *)*state);
	uint32_t h[RT_TOPICS];
	struct bag_writer *w = rt_open(dir, NULL, NULL, 0, 0, h);
	rt_write(w, h, 0, 60);
	struct bag_qos q[2];
	bag_qos_default(&q[0]);
	bag_qos_default(&q[1]);
	q[0].durability = BAG_DURABILITY_VOLATILE;
	q[1].durability = BAG_DURABILITY_TRANSIENT_LOCAL;
	struct bt_error err;
	assert_int_equal(bag_writer_set_topic_qos(w, h[0], q, 2, &err), BT_OK);
	rt_write(w, h, 60, 120);
	assert_int_equal(bag_writer_split(w, &err), BT_OK);
	rt_write(w, h, 120, 180);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);

	char *f0 = bt_xasprintf("%s/qos_0.mcap", dir), *f1 = bt_xasprintf("%s/qos_1.mcap", dir);
	char *q0 = qos_of_channel(f0, "/a"), *q1 = qos_of_channel(f1, "/a");
	assert_null(strstr(q0, "transient_local"));
	assert_non_null(strstr(q1, "transient_local"));
	assert_non_null(strstr(q1, "volatile"));
	char *yaml = bt_xasprintf("%s/metadata.yaml", dir), *text = NULL;
	size_t len = 0;
	assert_int_equal(bt_fs_read_all(yaml, 1 << 20, &text, &len, &err), BT_OK);
	assert_non_null(strstr(text, "transient_local"));
	if (bag_check(dir, rt_report, dir) != 0)
		fail_msg("a bag whose QoS changed: bag_check found problems");
	free(text);
	free(yaml);
	free(q0);
	free(q1);
	free(f0);
	free(f1);
	free(dir);
}

/* ---- options: unknown keys, bad values, another backend's preset ---- */

static void test_option_errors(void **state)
{
	char *dir = bt_xasprintf("%s/err", (const char *)*state);
	struct bag_writer_options o = {0};
	o.uri = dir;
	o.storage_id = "mcap";
	o.storage_preset = "resilient";
	tb_writer_refused(&o, BT_ERR_USAGE, "resilient is sqlite3's");
	o.storage_preset = NULL;
	struct bag_kv kv = {(char *)"chunkSizes", (char *)"1"};
	o.storage_config = &kv;
	o.n_storage_config = 1;
	tb_writer_refused(&o, BT_ERR_USAGE, "'chunkSizes'");
	kv = (struct bag_kv){(char *)"compression", (char *)"zstd"};
	tb_writer_refused(&o, BT_ERR_USAGE, "compression");
	kv = (struct bag_kv){(char *)"noSummary", (char *)"1"};
	tb_writer_refused(&o, BT_ERR_USAGE, "noSummary");
	o.max_bagfile_size = 1000; /* under rosbag2's 1024 for MCAP */
	o.n_storage_config = 0;
	tb_writer_refused(&o, BT_ERR_USAGE, NULL);
	assert_false(bt_fs_exists(dir));
	/* the config file reader: a flat mapping, keys named in errors */
	struct bt_error err;
	char *f = bt_xasprintf("%s/c.yaml", (const char *)*state);
	struct bag_kv *got = NULL;
	size_t n = 0;
	tu_write_file(f, "chunkSize: 4096\nnoChunkCRC: false\n", 34);
	assert_int_equal(bag_storage_config_read(f, &got, &n, &err), BT_OK);
	assert_int_equal(n, 2);
	assert_string_equal(got[0].key, "chunkSize");
	assert_string_equal(got[0].value, "4096");
	assert_string_equal(got[1].value, "false");
	bag_kv_free(got, n);
	tu_write_file(f, "compression: {a: 1}\n", 20);
	assert_int_equal(bag_storage_config_read(f, &got, &n, &err), BT_ERR_USAGE);
	assert_non_null(strstr(err.msg, "'compression'"));
	tu_write_file(f, "- a\n", 4);
	assert_int_equal(bag_storage_config_read(f, &got, &n, &err), BT_ERR_USAGE);
	free(f);
	free(dir);
}

/* ---- write_behind reaches the MCAP writer ---- */

/* bag_writer_options.write_behind (what the recorder sets): the bag's file
 * leaves the page cache behind the writer (test_mcap_roundtrip's
 * test_writes_behind has the control without it). Writes from 24 MiB on
 * are synced through a second descriptor, so what is dropped is clean. */
#define WB_MSG (256u << 10)
#define WB_MIB (1u << 20)

/* Try `try` in the scratch directory: the share of the first 8 MiB of
 * its bag's file still cached. */
static double wb_try(void *scratch, int try)
{
	char *dir = bt_xasprintf("%s/wb%d", (const char *)scratch, try);
	struct bag_writer_options o = {0};
	o.uri = dir;
	o.storage_id = "mcap";
	o.ros_distro = "jazzy";
	o.write_behind = true;
	struct bag_writer *w = tb_writer_open(&o);
	uint32_t h = rt_add_topic(w, "/a");
	char *file = bt_xasprintf("%s/wb%d_0.mcap", dir, try);
	int fd = open(file, O_RDONLY);
	assert_true(fd >= 0);
	uint8_t *buf = bt_xcalloc(1, WB_MSG);
	struct bt_error err;
	struct stat st = {0};
	for (int64_t i = 0; st.st_size < 48 * WB_MIB; i++) {
		struct bag_message m = {h, 1000 + i, buf, WB_MSG, 0};
		assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_OK);
		assert_int_equal(fstat(fd, &st), 0);
		if (st.st_size >= 24 * WB_MIB)
			assert_int_equal(fdatasync(fd), 0);
	}
	double share = tu_cached_share(fd, 0, 8 * WB_MIB);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	close(fd);
	free(buf);
	free(file);
	free(dir);
	return share;
}

static void test_write_behind(void **state)
{
	tu_skip_on_tmpfs(*state);
	tu_assert_written_behind(wb_try, *state);
}

/* A definition learned after its topic was created (update_msgdef):
 * /late1's before any message, so the first file's Schema has it; /late2's
 * after the first file was closed, so that file's Schema stays rosbag2's
 * "unknown" one and the next file's, created before the definition came,
 * gets it while it waits; the bag's definitions (bag_msgdefs_read, what
 * `info -v` shows) are the learned ones; in both files each message comes
 * after its channel (the close writes the chunk that holds the first). Deterministic: no message is
 * written between a file's creation and the update. */
static const char *lt_schema(const char *dir, size_t file, const char *type)
{
	static char got[64];
	char *p = bt_xasprintf("%s/%s_%zu.mcap", dir, strrchr(dir, '/') + 1, file);
	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(p, &s);
	snprintf(got, sizeof got, "(no schema)");
	for (size_t i = 0; i < s->n_schemas; i++)
		if (s->schemas[i].name.len == strlen(type) &&
		    memcmp(s->schemas[i].name.p, type, strlen(type)) == 0)
			snprintf(got, sizeof got, "%.*s: %.*s", (int)s->schemas[i].encoding.len,
				 (const char *)s->schemas[i].encoding.p,
				 (int)s->schemas[i].data.len, (const char *)s->schemas[i].data.p);
	mcap_reader_close(r);
	free(p);
	return got;
}

static uint32_t lt_topic(struct bag_writer *w, const char *name, const char *type)
{
	struct bt_error err;
	struct bag_topic tp = {0};
	tp.name = (char *)name;
	tp.type = (char *)type;
	tp.serialization_format = (char *)"cdr";
	tp.type_description_hash = (char *)"";
	uint32_t h;
	assert_int_equal(bag_writer_add_topic(w, &tp, NULL, &h, &err), BT_OK);
	return h;
}

static void lt_batch(struct bag_writer *w, const uint32_t *h, int64_t t0)
{
	struct bag_message m[2] = {{h[0], t0, "ab", 2, 0}, {h[1], t0 + 1, "cd", 2, 0}};
	struct bt_error err;
	assert_int_equal(bag_writer_write(w, m, 2, &err), BT_OK);
}

/* A writer of an MCAP bag at dir (with storage config kv, when not NULL,
 * and split_on_late_definition as `split`) with two topics, of the types
 * late_msgs/msg/One and Two, their handles in h. */
static struct bag_writer *lt_open(const char *dir, const struct bag_kv *kv, bool split,
				  uint32_t h[2])
{
	struct bag_writer_options o = {0};
	o.uri = dir;
	o.storage_id = "mcap";
	o.ros_distro = "jazzy";
	o.storage_config = kv;
	o.n_storage_config = kv != NULL;
	o.split_on_late_definition = split;
	struct bag_writer *w = tb_writer_open(&o);
	h[0] = lt_topic(w, "/late1", "late_msgs/msg/One");
	h[1] = lt_topic(w, "/late2", "late_msgs/msg/Two");
	return w;
}

static void test_late_definition(void **state)
{
	char *dir = bt_xasprintf("%s/late", (const char *)*state);
	uint32_t h[2];
	struct bag_writer *w = lt_open(dir, NULL, false, h);
	struct bt_error err;
	assert_int_equal(bag_writer_set_type_def(w, "late_msgs/msg/One", "ros2msg", "int32 one",
						 "test", &err), BT_OK);
	lt_batch(w, h, 1000);
	assert_int_equal(bag_writer_split(w, &err), BT_OK);
	assert_int_equal(bag_writer_set_type_def(w, "late_msgs/msg/Two", "ros2msg", "int32 two",
						 "test", &err), BT_OK);
	lt_batch(w, h, 2000);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	assert_string_equal(lt_schema(dir, 0, "late_msgs/msg/One"), "ros2msg: int32 one");
	assert_string_equal(lt_schema(dir, 0, "late_msgs/msg/Two"), "unknown: ");
	assert_string_equal(lt_schema(dir, 1, "late_msgs/msg/Two"), "ros2msg: int32 two");
	for (size_t i = 0; i < 2; i++) {
		char *f = bt_xasprintf("%s/late_%zu.mcap", dir, i);
		tb_mcap_doctor(f);
		free(f);
	}
	struct bag_reader *r;
	assert_int_equal(bag_reader_open(dir, 0, &r, &err), BT_OK);
	struct bag_msgdef *d = NULL;
	size_t n = 0;
	assert_int_equal(bag_msgdefs_read(r, &d, &n, &err), BT_OK);
	assert_int_equal(n, 2);
	for (size_t i = 0; i < n; i++) {
		bool one = strcmp(d[i].topic_type, "late_msgs/msg/One") == 0;
		assert_string_equal(d[i].encoding, "ros2msg");
		assert_string_equal(d[i].encoded_message_definition, one ? "int32 one" : "int32 two");
	}
	bag_msgdefs_free(d, n);
	bag_reader_close(r);
	if (bag_check(dir, rt_report, dir) != 0)
		fail_msg("late: bag_check found problems");
	free(dir);
}

/* Messages in the bag's files, file by file (metadata.yaml's counts). */
static void lt_counts(const char *dir, size_t n_files, const uint64_t *want)
{
	struct bag_reader *r;
	struct bt_error err;
	assert_int_equal(bag_reader_open(dir, 0, &r, &err), BT_OK);
	assert_int_equal(bag_reader_n_files(r), n_files);
	for (size_t i = 0; i < n_files; i++)
		assert_int_equal(bag_reader_file(r, i)->message_count, want[i]);
	bag_reader_close(r);
}

/* split_on_late_definition (what the recorder sets outside snapshot mode):
 * with noChunking a Schema goes out with its type's first message, so a
 * definition given after that batch is one the file missed, and the next
 * message starts a new file that has it; once. A definition the file had
 * from the start, given again, splits nothing; without the option nothing
 * splits either. */
static void test_late_definition_new_file(void **state)
{
	for (int on = 0; on < 2; on++) {
		char *dir = bt_xasprintf("%s/newfile%d", (const char *)*state, on);
		struct bag_kv kv = {(char *)"noChunking", (char *)"true"};
		uint32_t h[2];
		struct bag_writer *w = lt_open(dir, &kv, on, h);
		struct bt_error err;
		assert_int_equal(bag_writer_set_type_def(w, "late_msgs/msg/One", "ros2msg",
							 "int32 one", "test", &err), BT_OK);
		lt_batch(w, h, 1000);
		/* had from the start: nothing missed */
		assert_int_equal(bag_writer_set_type_def(w, "late_msgs/msg/One", "ros2msg",
							 "int32 one", "test", &err), BT_OK);
		lt_batch(w, h, 2000);
		/* missed: the next message splits (once, though given twice) */
		for (int k = 0; k < 2; k++)
			assert_int_equal(bag_writer_set_type_def(w, "late_msgs/msg/Two", "ros2msg",
								 "int32 two", "test", &err),
					 BT_OK);
		assert_non_null(strstr(bag_writer_current_file(w), "_0.mcap"));
		lt_batch(w, h, 3000);
		assert_non_null(strstr(bag_writer_current_file(w), on ? "_1.mcap" : "_0.mcap"));
		lt_batch(w, h, 4000);
		assert_int_equal(bag_writer_close(w, &err), BT_OK);
		assert_string_equal(lt_schema(dir, 0, "late_msgs/msg/Two"), "unknown: ");
		if (on) {
			assert_string_equal(lt_schema(dir, 1, "late_msgs/msg/Two"),
					    "ros2msg: int32 two");
			assert_string_equal(lt_schema(dir, 1, "late_msgs/msg/One"),
					    "ros2msg: int32 one");
			lt_counts(dir, 2, (const uint64_t[]){4, 4});
		} else {
			lt_counts(dir, 1, (const uint64_t[]){8});
		}
		if (bag_check(dir, rt_report, dir) != 0)
			fail_msg("newfile%d: bag_check found problems", on);
		free(dir);
	}
}

TU_MAIN(
	TU_SCRATCH_TEST(test_write_behind),
	TU_SCRATCH_TEST(test_roundtrip),
	TU_SCRATCH_TEST(test_flush_each_second),
	TU_SCRATCH_TEST(test_split_size),
	TU_SCRATCH_TEST(test_split_and_rotate),
	TU_SCRATCH_TEST(test_qos_change),
	TU_SCRATCH_TEST(test_info_from_index),
	TU_SCRATCH_TEST(test_damaged_inside),
	TU_SCRATCH_TEST(test_option_errors),
	TU_SCRATCH_TEST(test_late_definition),
	TU_SCRATCH_TEST(test_late_definition_new_file))
