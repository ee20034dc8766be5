/* How many reads the MCAP reader makes: every pread(2) it calls is counted
 * (the test links with -Wl,--wrap=pread). A loose (noChunking) file's
 * messages are two small records' worth of bytes each; read one pread per
 * record part, 20 000 of them were 40 000 calls and `bagtop check` of a
 * 300 000-message bag took 4.3 s. Read through the reader's window, a
 * file costs about one call per MCAP_R_WINDOW bytes per pass, whatever
 * its records' sizes. Also: a chunked file costs a few calls per chunk.
 * The bytes read are checked too: every message's payload and order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "bt_fs.h"
#include "mcap_reader.h"
#include "mcap_writer.h"
#include "store__mcap_reader.h"
#include "test_bag.h"

#define MRD_N 20000u
#define MRD_CHANNELS 2u

ssize_t __real_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);

static unsigned long mrd_calls;

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
	mrd_calls++;
	return __real_pread(fd, buf, n, off);
}

/* Message i's payload: `len` bytes that say i. */
static void mrd_payload(uint32_t i, uint8_t *buf, size_t len)
{
	for (size_t k = 0; k < len; k++)
		buf[k] = (uint8_t)(i * 7u + k);
}

static char *mrd_write(const char *dir, const char *name, bool loose, size_t len)
{
	char *path = bt_fs_join(dir, name);
	struct mcap_writer_options o;
	mcap_writer_options_init(&o);
	o.no_chunking = loose;
	struct mcap_writer *w;
	struct bt_error err;
	assert_int_equal(mcap_writer_open(&w, path, &o, "ros2", "bagtop test", &err), BT_OK);
	uint16_t sid, cid;
	assert_int_equal(mcap_writer_add_schema(w, "std_msgs/msg/String", "ros2msg", "string data",
						11, &sid, &err),
			 BT_OK);
	for (uint32_t c = 0; c < MRD_CHANNELS; c++)
		assert_int_equal(mcap_writer_add_channel(w, c ? "/b" : "/a", "cdr", sid, NULL, 0,
							 &cid, &err),
				 BT_OK);
	uint8_t *buf = malloc(len);
	assert_non_null(buf);
	for (uint32_t i = 0; i < MRD_N; i++) {
		mrd_payload(i, buf, len);
		assert_int_equal(mcap_writer_write(w, (uint16_t)(1 + i % MRD_CHANNELS), i,
						   1000 + i, 1000 + i, buf, len, &err),
				 BT_OK);
	}
	free(buf);
	assert_int_equal(mcap_writer_close(w, &err), BT_OK);
	return path;
}

static void mrd_check(const struct mcap_message *m, uint32_t i, size_t len, uint8_t *buf)
{
	assert_int_equal(m->sequence, i);
	assert_int_equal(m->data.len, len);
	mrd_payload(i, buf, len);
	assert_memory_equal(m->data.p, buf, len);
}

/* The next message: streamed, every record in file order (messages in the
 * order written); indexed, in log_time order. false at the end. */
static bool mrd_next(struct mcap_reader *r, bool indexed, struct mcap_message *m)
{
	struct bt_error err;
	bool end = false;
	while (!indexed) {
		struct mcap_item it;
		assert_int_equal(mcap_reader_next(r, &it, &end, &err), BT_OK);
		if (end || it.rec.opcode == MCAP_OP_MESSAGE) {
			*m = it.rec.u.message;
			return !end;
		}
	}
	assert_int_equal(mcap_reader_messages_next(r, m, &end, &err), BT_OK);
	return !end;
}

/* Reads every message of `path` (indexed: the summary first); returns the
 * preads made, opening included. */
static unsigned long mrd_read(const char *path, size_t len, bool indexed)
{
	struct bt_error err;
	uint8_t *buf = malloc(len);
	assert_non_null(buf);
	unsigned long before = mrd_calls;
	const struct mcap_summary *s = NULL;
	struct mcap_reader *r = indexed ? tb_mcap_indexed(path, &s) : tb_mcap_streamed(path);
	if (indexed) {
		assert_true(s->from_summary);
		assert_int_equal(mcap_reader_messages_begin(r, &err), BT_OK);
	}
	uint32_t n = 0;
	struct mcap_message m;
	while (mrd_next(r, indexed, &m))
		mrd_check(&m, n++, len, buf);
	assert_int_equal(n, MRD_N);
	mcap_reader_close(r);
	free(buf);
	return mrd_calls - before;
}

static uint64_t mrd_size(const char *path)
{
	uint64_t n = 0;
	struct bt_error err;
	assert_int_equal(bt_fs_file_size(path, &n, &err), BT_OK);
	return n;
}

/* 20 000 loose messages of 100 bytes (2.6 MB): about 20 windows. The
 * indexed read reads the file twice (the summary does not index loose
 * messages: they are found by a scan), then in log_time order. */
static void test_loose_reads_by_window(void **state)
{
	char *path = mrd_write(*state, "loose.mcap", true, 100);
	unsigned long windows = (unsigned long)(mrd_size(path) / MCAP_R_WINDOW) + 1;
	unsigned long s = mrd_read(path, 100, false), x = mrd_read(path, 100, true);
	printf("loose: %lu windows; streamed %lu preads, indexed %lu\n", windows, s, x);
	assert_true(s <= windows + 4);
	assert_true(x <= 3 * windows + 8);
	free(path);
}

/* 20 000 messages of 1 KiB in 768 KiB chunks: a chunk's prefix and body
 * are read once each (the body's start from the window). */
static void test_chunked_reads_per_chunk(void **state)
{
	char *path = mrd_write(*state, "chunked.mcap", false, 1024);
	unsigned long chunks = (unsigned long)(mrd_size(path) / MCAP_DEFAULT_CHUNK_SIZE) + 1;
	unsigned long s = mrd_read(path, 1024, false), x = mrd_read(path, 1024, true);
	printf("chunked: %lu chunks; streamed %lu preads, indexed %lu\n", chunks, s, x);
	assert_true(s <= 3 * chunks + 4);
	assert_true(x <= 3 * chunks + 8);
	free(path);
}

TU_MAIN(
	TU_SCRATCH_TEST(test_loose_reads_by_window),
	TU_SCRATCH_TEST(test_chunked_reads_per_chunk),
)
