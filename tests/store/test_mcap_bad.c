/* Bad MCAP input: every reader path (streamed, indexed + messages, recover)
 * on files truncated at every offset, with a bit flipped at every offset,
 * with records claiming 2^63 bytes, chunks whose uncompressed size lies, a
 * zstd bomb and an lz4 bomb, files cut short after a flush of direct I/O
 * (zeros to a block's end), and every file of tests/data/bad/mcap. Each
 * must give a clear error (BT_ERR_FORMAT / BT_ERR_TOOBIG with a message),
 * never a crash (the ASan+UBSan job runs this) or a large allocation.
 *
 * BAGTOP_WRITE_MCAP_CORPUS=DIR: also write the crafted files into DIR (how
 * tests/data/bad/mcap was made); BAGTOP_WRITE_MCAP_SEEDS=DIR: the valid
 * files the test starts from (tests/fuzz/corpus_mcap's seeds). */
#include <lz4frame.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zstd.h>

#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "mcap_reader.h"
#include "mcap_record.h"
#include "mcap_writer.h"
#include "test_bag.h"

#define BAD_LIMIT (64ull * 1024 * 1024)

struct bad_result {
	bt_status stream, index, messages;
	uint64_t streamed_msgs, indexed_msgs;
	struct mcap_recovery rec;
	struct bt_error stream_err, index_err;
};

static void bad_clear_ok(bt_status st, const struct bt_error *err)
{
	if (st == BT_OK)
		return;
	if (st != BT_ERR_FORMAT && st != BT_ERR_TOOBIG)
		fail_msg("unexpected status %d: %s", st, err->msg);
	assert_true(err->msg[0] != '\0');
}

/* Runs every reader path on `path`; checks that failures are clean. */
static void bad_run(const char *path, struct bad_result *res)
{
	struct mcap_reader *r;
	struct bt_error err;
	memset(res, 0, sizeof *res);
	assert_int_equal(mcap_reader_open(&r, path, &err), BT_OK);
	mcap_reader_set_limit(r, BAD_LIMIT);
	res->stream = mcap_reader_stream_begin(r, &res->stream_err);
	for (bool end = false; res->stream == BT_OK && !end;) {
		struct mcap_item it;
		res->stream = mcap_reader_next(r, &it, &end, &res->stream_err);
		res->streamed_msgs += res->stream == BT_OK && !end && it.rec.opcode == MCAP_OP_MESSAGE;
	}
	bad_clear_ok(res->stream, &res->stream_err);
	res->index = mcap_reader_index(r, &res->index_err);
	bad_clear_ok(res->index, &res->index_err);
	if (res->index == BT_OK) {
		res->messages = mcap_reader_messages_begin(r, &err);
		for (bool end = false; res->messages == BT_OK && !end;) {
			struct mcap_message m;
			res->messages = mcap_reader_messages_next(r, &m, &end, &err);
			res->indexed_msgs += res->messages == BT_OK && !end;
		}
		bad_clear_ok(res->messages, &err);
	}
	bt_status st = mcap_reader_recover(r, &res->rec, &err);
	if (st != BT_OK)
		assert_int_equal(st, BT_ERR_FORMAT); /* no magic at all */
	else if (!res->rec.complete)
		assert_true(res->rec.why.msg[0] != '\0');
	mcap_reader_close(r);
}

static void bad_save(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	const char *corpus = getenv("BAGTOP_WRITE_MCAP_CORPUS");
	if (corpus && strstr(path, "/cut-") == NULL && strstr(path, "/flip-") == NULL) {
		char out[4096];
		const char *base = strrchr(path, '/');
		snprintf(out, sizeof out, "%s%s", corpus, base);
		FILE *g = fopen(out, "wb");
		assert_non_null(g);
		assert_int_equal(fwrite(data, 1, len, g), len);
		assert_int_equal(fclose(g), 0);
	}
}

/* A valid file written by the test, as read back. */
struct bad_good {
	char path[4096];
	char *bytes;
	size_t n;
};

/* A small valid file: 2 channels, 40 messages in zstd (or lz4) chunks (or
 * none), metadata, attachment, full summary, every CRC; written to
 * DIR/NAME, read back into g (free g->bytes). */
static void bad_valid(struct bad_good *g, const char *dir, const char *name,
		      enum mcap_compression c, bool chunked)
{
	snprintf(g->path, sizeof g->path, "%s/%s", dir, name);
	const char *path = g->path;
	struct mcap_writer_options o;
	struct mcap_writer *w;
	struct bt_error err;
	uint16_t sid, cid;
	mcap_writer_options_init(&o);
	o.chunk_size = 300;
	o.compression = c;
	o.no_chunking = !chunked;
	o.no_chunk_crc = false;
	o.enable_data_crc = true;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "bad", &err), BT_OK);
	assert_int_equal(mcap_writer_add_schema(w, "s", "ros2msg", "int32 a", 7, &sid, &err),
			 BT_OK);
	const char *kv[] = {"k", "v"};
	assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", sid, kv, 1, &cid, &err), BT_OK);
	assert_int_equal(mcap_writer_add_channel(w, "/b", "cdr", 0, NULL, 0, &cid, &err), BT_OK);
	assert_int_equal(mcap_writer_add_metadata(w, "rosbag2", kv, 1, &err), BT_OK);
	for (uint32_t i = 0; i < 40; i++)
		assert_int_equal(mcap_writer_write(w, (uint16_t)(1 + i % 2), i, 40 - i, i,
						   "0123456789abcdef", i % 16, &err),
				 BT_OK);
	assert_int_equal(mcap_writer_add_attachment(w, 1, 2, "f", "text/plain", "hi", 2, &err),
			 BT_OK);
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
	assert_int_equal(bt_fs_read_all(path, 1u << 20, &g->bytes, &g->n, &err), BT_OK);
	const char *seeds = getenv("BAGTOP_WRITE_MCAP_SEEDS"); /* tests/fuzz/corpus_mcap */
	if (seeds) {
		char out[4096];
		snprintf(out, sizeof out, "%s/valid-%s-%s.mcap", seeds, chunked ? "chunked" : "loose",
			 mcap_compression_name(c));
		FILE *f = fopen(out, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(g->bytes, 1, g->n, f), g->n);
		assert_int_equal(fclose(f), 0);
	}
}

static void test_truncated_everywhere(void **state)
{
	const char *dir = *state;
	for (int variant = 0; variant < 3; variant++) {
		char name[32], cut[4096];
		struct bad_good g;
		snprintf(name, sizeof name, "good%d.mcap", variant);
		bad_valid(&g, dir, name, variant == 1 ? MCAP_COMPRESSION_LZ4 : MCAP_COMPRESSION_ZSTD,
			  variant != 2);
		struct bad_result res;
		bad_run(g.path, &res);
		assert_int_equal(res.stream, BT_OK);
		assert_int_equal(res.streamed_msgs, 40);
		assert_int_equal(res.indexed_msgs, 40);
		assert_true(res.rec.complete);
		snprintf(cut, sizeof cut, "%s/cut-%d.mcap", dir, variant);
		for (size_t at = 0; at < g.n; at++) {
			bad_save(cut, g.bytes, at);
			bad_run(cut, &res);
			assert_int_not_equal(res.stream, BT_OK);
			assert_false(res.rec.complete);
			assert_true(res.rec.good_end <= at || at < MCAP_MAGIC_LEN);
			assert_true(res.indexed_msgs <= 40);
			assert_true(res.rec.messages <= 40);
		}
		free(g.bytes);
	}
}

/* g's bytes with the bits of `mask` flipped at `at` into `path` (g itself
 * unchanged); returns the bad_run. */
static void bad_flip(const char *path, struct bad_good *g, size_t at, uint8_t mask,
		     struct bad_result *res)
{
	g->bytes[at] ^= (char)mask;
	bad_save(path, g->bytes, g->n);
	g->bytes[at] ^= (char)mask;
	bad_run(path, res);
}

static void test_bit_flips(void **state)
{
	const char *dir = *state;
	char flip[4096];
	struct bad_good g;
	bad_valid(&g, dir, "good.mcap", MCAP_COMPRESSION_ZSTD, true);
	snprintf(flip, sizeof flip, "%s/flip-.mcap", dir);
	size_t caught = 0;
	for (size_t at = 0; at < g.n; at++) {
		struct bad_result res;
		bad_flip(flip, &g, at, (uint8_t)(1u << (at % 8)), &res);
		caught += res.stream != BT_OK;
	}
	/* Every CRC is on: most flips are caught by the streamed read. */
	printf("bit flips: %zu of %zu caught by the streamed read\n", caught, g.n);
	assert_true(caught > g.n / 2);
	free(g.bytes);
}

/* Each CRC catches a change in what it covers; a damaged summary makes the
 * index scan instead, and the scan still finds every message. */
static void test_crc_and_damaged_summary(void **state)
{
	const char *dir = *state;
	char bad[4096];
	struct bad_good g;
	snprintf(bad, sizeof bad, "%s/flip-crc.mcap", dir);
	bad_valid(&g, dir, "good.mcap", MCAP_COMPRESSION_NONE, true);
	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(g.path, &s);
	assert_true(s->from_summary);
	uint64_t chunk = s->chunks[0].offset, meta = s->metadata[0].offset;
	mcap_reader_close(r);
	uint64_t sum_start = mcap_get_u64((uint8_t *)g.bytes + g.n - MCAP_MAGIC_LEN - 20);
	struct bad_result res;
	/* a byte of the first chunk's records (uncompressed: 57 bytes of fields) */
	bad_flip(bad, &g, chunk + 57 + 20, 0x20, &res);
	assert_non_null(strstr(res.stream_err.msg, "CRC mismatch"));
	assert_non_null(strstr(res.stream_err.msg, "chunk at offset"));
	/* a byte of the metadata record: only the data section CRC covers it */
	bad_flip(bad, &g, meta + MCAP_RECORD_PREFIX + 4 + 2, 0x20, &res); /* its name */
	assert_non_null(strstr(res.stream_err.msg, "data section CRC mismatch"));
	/* a byte of the summary */
	bad_flip(bad, &g, sum_start + 12, 0x20, &res);
	assert_int_equal(res.index, BT_OK);
	assert_int_equal(res.indexed_msgs, 40);
	r = tb_mcap_indexed(bad, &s);
	assert_false(s->from_summary);
	assert_string_equal(s->scan_why.msg, "summary CRC mismatch");
	assert_int_equal(s->statistics.message_count, 40);
	assert_int_equal(s->n_channels, 2);
	mcap_reader_close(r);
	free(g.bytes);
}

/* ---- crafted files ---- */

static void craft_start(struct bt_buf *b)
{
	size_t mark;
	bt_buf_reset(b);
	assert_int_equal(bt_buf_append(b, mcap_magic, MCAP_MAGIC_LEN), BT_OK);
	assert_int_equal(mcap_enc_begin(b, MCAP_OP_HEADER, &mark), BT_OK);
	assert_int_equal(mcap_enc_str(b, "ros2", 4), BT_OK);
	assert_int_equal(mcap_enc_str(b, "", 0), BT_OK);
	mcap_enc_end(b, mark);
}

static void craft_end(struct bt_buf *b)
{
	uint8_t t[13 + MCAP_FOOTER_LEN] = {MCAP_OP_DATA_END, 4};
	t[13] = MCAP_OP_FOOTER;
	t[14] = 20;
	assert_int_equal(bt_buf_append(b, t, sizeof t), BT_OK);
	assert_int_equal(bt_buf_append(b, mcap_magic, MCAP_MAGIC_LEN), BT_OK);
}

/* A Chunk record declaring `usize` around `len` stored bytes. */
static void craft_chunk(struct bt_buf *b, uint64_t usize, const char *comp, const void *data,
			size_t len)
{
	size_t mark;
	assert_int_equal(mcap_enc_begin(b, MCAP_OP_CHUNK, &mark), BT_OK);
	assert_int_equal(mcap_enc_u64(b, 0), BT_OK);
	assert_int_equal(mcap_enc_u64(b, 0), BT_OK);
	assert_int_equal(mcap_enc_u64(b, usize), BT_OK);
	assert_int_equal(mcap_enc_u32(b, 0), BT_OK);
	assert_int_equal(mcap_enc_str(b, comp, strlen(comp)), BT_OK);
	assert_int_equal(mcap_enc_u64(b, len), BT_OK);
	assert_int_equal(bt_buf_append(b, data, len), BT_OK);
	mcap_enc_end(b, mark);
}

/* Writes the crafted file, runs every reader path, checks the streamed
 * read's error holds `want`. */
static void craft_check(const char *dir, const char *name, const struct bt_buf *b,
			const char *want)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	bad_save(path, b->data, b->len);
	struct bad_result res;
	bad_run(path, &res);
	assert_int_not_equal(res.stream, BT_OK);
	if (!strstr(res.stream_err.msg, want))
		fail_msg("%s: '%s' does not say '%s'", name, res.stream_err.msg, want);
	assert_false(res.rec.complete);
	printf("%-24s %s\n", name, res.stream_err.msg);
}

/* One crafted file per case: a Chunk record declaring `usize` around `len`
 * stored bytes compressed with `comp`, which every reader path refuses
 * (craft_check) with an error holding `want`. */
struct chunk_case {
	const char *name;
	uint64_t usize;
	const char *comp;
	const void *data;
	size_t len;
	const char *want;
};

static void craft_chunk_cases(const char *dir, const struct chunk_case *c, size_t n)
{
	struct bt_buf b = BT_BUF_INIT;
	for (size_t i = 0; i < n; i++) {
		craft_start(&b);
		craft_chunk(&b, c[i].usize, c[i].comp, c[i].data, c[i].len);
		craft_end(&b);
		craft_check(dir, c[i].name, &b, c[i].want);
	}
	bt_buf_fini(&b);
}

static void test_lying_lengths(void **state)
{
	const char *dir = *state;
	struct bt_buf b = BT_BUF_INIT;
	uint8_t huge[MCAP_RECORD_PREFIX] = {MCAP_OP_SCHEMA};
	mcap_put_u64(huge + 1, 1ull << 63);
	/* a top-level record claiming 2^63 bytes */
	craft_start(&b);
	assert_int_equal(bt_buf_append(&b, huge, sizeof huge), BT_OK);
	craft_end(&b);
	craft_check(dir, "record_2e63.mcap", &b, "claims 9223372036854775808 bytes");
	/* a record inside a chunk claiming 2^63 bytes */
	craft_start(&b);
	craft_chunk(&b, sizeof huge, "", huge, sizeof huge);
	craft_end(&b);
	craft_check(dir, "chunk_record_2e63.mcap", &b, "claims 9223372036854775808 bytes");
	/* a string inside a record claiming 2^32-1 bytes */
	craft_start(&b);
	uint8_t str[MCAP_RECORD_PREFIX + 6] = {MCAP_OP_SCHEMA, 6, 0, 0, 0, 0, 0, 0, 0, 1, 0,
					       0xff, 0xff, 0xff, 0xff};
	assert_int_equal(bt_buf_append(&b, str, sizeof str), BT_OK);
	craft_end(&b);
	craft_check(dir, "string_too_long.mcap", &b, "field name does not fit");
	/* a chunk's records field claiming 2^63 bytes inside a small record */
	craft_start(&b);
	craft_chunk(&b, 4, "", "abcd", 4);
	mcap_put_u64((uint8_t *)b.data + b.len - 12, 1ull << 63);
	craft_end(&b);
	craft_check(dir, "chunk_records_2e63.mcap", &b, "field records does not fit");
	/* a footer whose summary_start points past the file: the scan is used */
	bt_buf_fini(&b);
}

static void test_lying_uncompressed_size(void **state)
{
	char src[1000], z[2000];
	memset(src, 'x', sizeof src);
	size_t zn = ZSTD_compress(z, sizeof z, src, sizeof src, 1);
	assert_false(ZSTD_isError(zn));
	const struct chunk_case cases[] = {
		{"usize_more_than_stored.mcap", 5, "", "abcd", 4, "declares 5 bytes"},
		{"usize_2e64.mcap", UINT64_MAX, "", "abcd", 4,
		 "declares 18446744073709551615 bytes"},
		{"zstd_usize_short.mcap", 999, "zstd", z, zn, "zstd chunk"},
		{"zstd_usize_long.mcap", 1001, "zstd", z, zn, "zstd chunk"},
		{"unknown_compression.mcap", 4, "brotli", "abcd", 4,
		 "unknown compression \"brotli\""},
	};
	craft_chunk_cases(*state, cases, sizeof cases / sizeof cases[0]);
}

static long bad_maxrss_kib(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

/* Zeros compressed (16 MiB with zstd, 4 MiB with lz4, whose ratio is at
 * most 255): a chunk that declares 4 KiB but inflates to megabytes, and one
 * declaring 2^40 bytes. Neither may allocate more than
 * what it declared, and the 2^40 one nothing at all. */
static void test_bombs(void **state)
{
	const char *dir = *state;
	size_t big = 16u << 20;
	char *zeros = calloc(1, big);
	size_t lbig = big / 4;
	size_t zcap = ZSTD_compressBound(big), lcap = LZ4F_compressFrameBound(lbig, NULL);
	char *z = malloc(zcap), *l = malloc(lcap);
	assert_non_null(zeros);
	assert_non_null(z);
	assert_non_null(l);
	size_t zn = ZSTD_compress(z, zcap, zeros, big, 19);
	/* the same frame without its content size, so only decoding finds out */
	char *zs = malloc(zcap);
	ZSTD_CCtx *cc = ZSTD_createCCtx();
	assert_non_null(zs);
	assert_non_null(cc);
	assert_false(ZSTD_isError(ZSTD_CCtx_setParameter(cc, ZSTD_c_contentSizeFlag, 0)));
	size_t zsn = ZSTD_compress2(cc, zs, zcap, zeros, big);
	assert_false(ZSTD_isError(zsn));
	ZSTD_freeCCtx(cc);
	size_t ln = LZ4F_compressFrame(l, lcap, zeros, lbig, NULL);
	assert_false(ZSTD_isError(zn));
	assert_false(LZ4F_isError(ln));
	free(zeros);
	long before = bad_maxrss_kib();
	const struct chunk_case cases[] = {
		{"zstd_bomb.mcap", 4096, "zstd", z, zn, "its frames hold 16777216 bytes"},
		{"zstd_bomb_nosize.mcap", 4096, "zstd", zs, zsn, "Destination buffer is too small"},
		{"zstd_bomb_2e40.mcap", 1ull << 40, "zstd", z, zn, "declares 1099511627776 bytes"},
		{"lz4_bomb.mcap", 4096, "lz4", l, ln, "lz4 chunk"},
		{"lz4_bomb_2e40.mcap", 1ull << 40, "lz4", l, ln, "declares 1099511627776 bytes"},
	};
	craft_chunk_cases(dir, cases, sizeof cases / sizeof cases[0]);
	long grown = bad_maxrss_kib() - before;
	printf("bombs: peak RSS grew by %ld KiB\n", grown);
	assert_true(grown < 32 * 1024); /* nothing near the 16 MiB inside, let alone 2^40 */
	free(z);
	free(zs);
	free(l);
}

/* A file written with direct I/O (write_behind: bt_dio) that a kill cuts
 * short ends, after its last flush, in zeros up to a 4 KiB block's end:
 * every reader path refuses it cleanly and recover keeps every message
 * flushed, no more (zeros are no record of ours). Where this file system
 * has no direct I/O, the test appends the same zeros itself (and says so).
 * Closed, the file has no zeros: it reads whole. */
#define ZT_BLOCK 4096u

/* The file at `path` as a kill would leave it now: into `snap`. */
static void zt_snapshot(const char *path, const char *snap, uint64_t logical)
{
	char *b;
	size_t n;
	struct bt_error err;
	assert_int_equal(bt_fs_read_all(path, 1u << 20, &b, &n, &err), BT_OK);
	size_t padded = (size_t)(logical + ZT_BLOCK - 1) / ZT_BLOCK * ZT_BLOCK;
	if (n == logical && n != padded) {
		fprintf(stderr, "test_mcap_bad: no direct I/O here, zeros appended by the test\n");
		b = bt_xrealloc(b, padded);
		memset(b + n, 0, padded - n);
		n = padded;
	}
	assert_int_equal(n, padded);
	for (size_t i = logical; i < n; i++)
		assert_int_equal(b[i], 0);
	bad_save(snap, b, n);
	free(b);
}

static void test_zero_tail(void **state)
{
	const char *dir = *state;
	for (int variant = 0; variant < 3; variant++) {
		char path[4096], snap[4096];
		snprintf(path, sizeof path, "%s/zt%d.mcap", dir, variant);
		snprintf(snap, sizeof snap, "%s/cut-zt%d.mcap", dir, variant);
		struct mcap_writer_options o;
		mcap_writer_options_init(&o);
		o.chunk_size = 300;
		o.compression = variant == 1 ? MCAP_COMPRESSION_ZSTD : MCAP_COMPRESSION_NONE;
		o.no_chunking = variant == 2;
		o.write_behind = true;
		struct mcap_writer *w;
		struct bt_error err;
		uint16_t sid, cid;
		assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "bad", &err), BT_OK);
		assert_int_equal(mcap_writer_add_schema(w, "s", "ros2msg", "int32 a", 7, &sid, &err),
				 BT_OK);
		assert_int_equal(mcap_writer_add_channel(w, "/a", "cdr", sid, NULL, 0, &cid, &err),
				 BT_OK);
		for (uint32_t i = 0; i < 60; i++) {
			assert_int_equal(mcap_writer_write(w, cid, i, 100 + i, i, "0123456789abcdef",
							   1 + i % 16, &err),
					 BT_OK);
			if (i % 20 != 19)
				continue;
			assert_int_equal(mcap_writer_flush(w, false, &err), BT_OK);
			uint64_t logical = mcap_writer_bytes(w);
			zt_snapshot(path, snap, logical);
			struct bad_result res;
			bad_run(snap, &res);
			assert_int_not_equal(res.stream, BT_OK);
			assert_false(res.rec.complete);
			assert_int_equal(res.rec.messages, i + 1);
			assert_int_equal(res.streamed_msgs, i + 1);
			assert_int_equal(res.rec.good_end, logical);
		}
		assert_int_equal(mcap_writer_close(w, &err), BT_OK);
		struct bad_result res;
		bad_run(path, &res);
		assert_int_equal(res.stream, BT_OK);
		assert_true(res.rec.complete);
		assert_int_equal(res.indexed_msgs, 60);
	}
}

/* Every file in tests/data/bad/mcap must be refused cleanly. */
static void test_corpus(void **state)
{
	(void)state;
	const char *data = getenv("BAGTOP_TEST_DATA");
	if (!data)
		skip();
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/bad/mcap", data);
	char **names;
	size_t n;
	struct bt_error err;
	assert_int_equal(bt_fs_list_dir(dir, &names, &n, &err), BT_OK);
	assert_true(n >= 10);
	for (size_t i = 0; i < n; i++) {
		char path[4096];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]);
		struct bad_result res;
		bad_run(path, &res);
		assert_int_not_equal(res.stream, BT_OK);
	}
	bt_fs_free_list(names, n);
}

TU_MAIN(
	TU_SCRATCH_TEST(test_truncated_everywhere),
	TU_SCRATCH_TEST(test_bit_flips),
	TU_SCRATCH_TEST(test_crc_and_damaged_summary),
	TU_SCRATCH_TEST(test_lying_lengths),
	TU_SCRATCH_TEST(test_lying_uncompressed_size),
	TU_SCRATCH_TEST(test_bombs),
	TU_SCRATCH_TEST(test_zero_tail),
	cmocka_unit_test(test_corpus))
