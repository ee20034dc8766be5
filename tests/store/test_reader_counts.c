/* bag_reader's per-topic counts without reading every message
 * (BAG_READER_COUNTS_FROM_METADATA, what play opens bags with): opening a
 * bag whose metadata.yaml gives them, and reaching its first message, read
 * a small part of its files; the counts, per file and per topic, and the
 * time range are the ones counted; where metadata.yaml does not give them
 * (no metadata.yaml) or a file disagrees with it (rows added or removed
 * after it was written), they are counted. Bytes read are the process's
 * rchar (/proc/self/io): SQLite reads its files with pread, not mmap. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bag_writer.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_bag.h"

#define RC_TOPICS 3
#define RC_LEN 4096   /* bytes a message: the files are a few MB */
#define RC_PER_FILE 600
#define RC_T0 INT64_C(1700000000000000000)

struct rc_bag {
	char *dir;
	size_t n_files;
	uint64_t count[RC_TOPICS];
	int64_t first, last;
};

static const char *const rc_names[RC_TOPICS] = {"/a", "/b", "/c"};

static unsigned long long rc_rchar(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	assert_non_null(f);
	unsigned long long n = 0;
	assert_int_equal(fscanf(f, "rchar: %llu", &n), 1);
	fclose(f);
	return n;
}

/* Message i of file k: /a twice as often as /b; /c only in file 0. */
static size_t rc_topic_of(size_t k, size_t i)
{
	return k == 0 && i % 10 == 9 ? 2 : i % 3 == 2 ? 1 : 0;
}

/* A bag of n_files files (split by bag_writer_split) under `tmp`. */
static void rc_write(struct rc_bag *b, const char *tmp, size_t n_files)
{
	memset(b, 0, sizeof *b);
	b->dir = bt_fs_join(tmp, "bag");
	b->n_files = n_files;
	struct bag_writer_options o = {.uri = b->dir, .ros_distro = "jazzy"};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	uint32_t h[RC_TOPICS];
	for (size_t t = 0; t < RC_TOPICS; t++) {
		struct bag_topic in = {(char *)rc_names[t], "std_msgs/msg/String", "cdr", NULL, 0,
				       ""};
		assert_int_equal(bag_writer_add_topic(w, &in, NULL, &h[t], &err), BT_OK);
	}
	uint8_t *data = bt_xcalloc(1, RC_LEN);
	data[1] = 1;
	int64_t ts = RC_T0;
	b->first = ts;
	for (size_t k = 0; k < n_files; k++) {
		if (k > 0 && bag_writer_split(w, &err) != BT_OK)
			fail_msg("bag_writer_split: %s", err.msg);
		for (size_t i = 0; i < RC_PER_FILE; i++, ts += 1000) {
			size_t t = rc_topic_of(k, i);
			struct bag_message m = {h[t], ts, data, RC_LEN, 0};
			if (bag_writer_write(w, &m, 1, &err) != BT_OK)
				fail_msg("bag_writer_write: %s", err.msg);
			b->count[t]++;
			b->last = ts;
		}
	}
	free(data);
	if (bag_writer_close(w, &err) != BT_OK)
		fail_msg("bag_writer_close: %s", err.msg);
}

static uint64_t rc_size(const struct rc_bag *b)
{
	uint64_t sum = 0;
	for (size_t k = 0; k < b->n_files; k++) {
		char *p = bt_xasprintf("%s/bag_%zu.db3", b->dir, k);
		uint64_t n = 0;
		assert_int_equal(bt_fs_file_size(p, &n, NULL), BT_OK);
		sum += n;
		free(p);
	}
	return sum;
}

static struct bag_reader *rc_open(const struct rc_bag *b, unsigned flags)
{
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(b->dir, flags, &r, &err) != BT_OK)
		fail_msg("bag_reader_open: %s", err.msg);
	return r;
}

/* The summary says what was written: per topic, per file and the range. */
static void rc_assert_counts(const struct rc_bag *b, const struct bag_reader *r)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	assert_int_equal(n, RC_TOPICS);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;
		while (k < RC_TOPICS && strcmp(rc_names[k], t[i].topic.name))
			k++;
		assert_true(k < RC_TOPICS);
		assert_int_equal(t[i].count, b->count[k]);
	}
	assert_int_equal(bag_reader_n_files(r), b->n_files);
	for (size_t k = 0; k < b->n_files; k++)
		assert_int_equal(bag_reader_file(r, k)->message_count, RC_PER_FILE);
	assert_int_equal(bag_reader_start(r), b->first);
	assert_int_equal(bag_reader_end(r), b->last);
}

/* Every message read, in order, with the topic the summary named. */
static void rc_assert_messages(const struct rc_bag *b, struct bag_reader *r)
{
	uint64_t seen[RC_TOPICS] = {0};
	struct bag_read_msg m;
	struct bt_error err;
	int64_t prev = INT64_MIN;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		assert_true(m.timestamp >= prev);
		prev = m.timestamp;
		size_t k = 0;
		while (k < RC_TOPICS && strcmp(rc_names[k], m.name))
			k++;
		assert_true(k < RC_TOPICS);
		seen[k]++;
	}
	assert_int_equal(rc, 0);
	for (size_t k = 0; k < RC_TOPICS; k++)
		assert_int_equal(seen[k], b->count[k]);
}

/* Opens with COUNTS_FROM_METADATA and reads the first message: each step
 * reads less than an eighth of the files when `cheap`; the summary and
 * every message are right either way. */
static void rc_check(const struct rc_bag *b, bool cheap)
{
	uint64_t size = rc_size(b);
	unsigned long long r0 = rc_rchar();
	struct bag_reader *r = rc_open(b, BAG_READER_COUNTS_FROM_METADATA);
	unsigned long long r1 = rc_rchar();
	rc_assert_counts(b, r);
	struct bag_read_msg m;
	struct bt_error err;
	assert_int_equal(bag_reader_next(r, &m, &err), 1);
	assert_int_equal(m.timestamp, b->first);
	unsigned long long r2 = rc_rchar();
	if (cheap) {
		assert_true(r1 - r0 < size / 8);
		assert_true(r2 - r1 < size / 8);
	} else {
		assert_true(r1 - r0 > size / 2); /* counted: the measure sees it */
	}
	bag_reader_close(r);
	r = rc_open(b, BAG_READER_COUNTS_FROM_METADATA);
	rc_assert_messages(b, r);
	bag_reader_close(r);
}

static void test_one_file(void **state)
{
	struct rc_bag b;
	rc_write(&b, *state, 1);
	rc_check(&b, true);
	/* Without the flag the messages are counted, with the same result. */
	unsigned long long r0 = rc_rchar();
	struct bag_reader *r = rc_open(&b, 0);
	unsigned long long r1 = rc_rchar();
	assert_true(r1 - r0 > rc_size(&b) / 2);
	rc_assert_counts(&b, r);
	/* The first message without counting them all again. */
	struct bag_read_msg m;
	struct bt_error err;
	assert_int_equal(bag_reader_next(r, &m, &err), 1);
	assert_true(rc_rchar() - r1 < rc_size(&b) / 8);
	bag_reader_close(r);
	free(b.dir);
}

/* Split files: each file's topics_statistics give its counts (/c is in
 * file 0 only). */
static void test_split_files(void **state)
{
	struct rc_bag b;
	rc_write(&b, *state, 3);
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(b.dir, &md, &err), BT_OK);
	assert_int_equal(md.n_files, 3);
	for (size_t k = 0; k < md.n_files; k++)
		assert_true(md.files[k].has_stats);
	bag_metadata_fini(&md);
	rc_check(&b, true);
	free(b.dir);
}

static void test_no_metadata(void **state)
{
	struct rc_bag b;
	rc_write(&b, *state, 2);
	char *md = bt_fs_join(b.dir, BAG_METADATA_FILE);
	assert_int_equal(unlink(md), 0);
	free(md);
	rc_check(&b, false);
	free(b.dir);
}

/* Runs `sql` on file k of the bag. */
static void rc_sql(const struct rc_bag *b, size_t k, const char *sql)
{
	char *p = bt_xasprintf("%s/bag_%zu.db3", b->dir, k);
	sqlite3 *h;
	assert_int_equal(sqlite3_open(p, &h), SQLITE_OK);
	char *msg = NULL;
	if (sqlite3_exec(h, sql, NULL, NULL, &msg) != SQLITE_OK)
		fail_msg("%s: %s", sql, msg);
	sqlite3_close(h);
	free(p);
}

/* A file holding other messages than metadata.yaml says (one more, one
 * fewer): that file is counted, the other one is not. */
static void test_file_disagrees(void **state)
{
	struct rc_bag b;
	rc_write(&b, *state, 2);
	/* File 1: one /b message fewer and one /a more, at the end. */
	rc_sql(&b, 1, "DELETE FROM messages WHERE id = (SELECT max(id) FROM messages WHERE "
		      "topic_id = (SELECT id FROM topics WHERE name = '/b'));"
		      "INSERT INTO messages (topic_id, timestamp, data) SELECT topic_id, "
		      "timestamp + 1000, data FROM messages WHERE topic_id = (SELECT id FROM "
		      "topics WHERE name = '/a') ORDER BY timestamp DESC LIMIT 2;");
	b.count[1] -= 1;
	b.count[0] += 2; /* the last one at the removed one's time */
	struct bag_reader *r = rc_open(&b, BAG_READER_COUNTS_FROM_METADATA);
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	assert_int_equal(n, RC_TOPICS);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(t[i].count, b.count[i]);
	assert_int_equal(bag_reader_file(r, 0)->message_count, RC_PER_FILE);
	assert_int_equal(bag_reader_file(r, 1)->message_count, RC_PER_FILE + 1);
	assert_int_equal(bag_reader_end(r), b.last);
	bag_reader_close(r);
	r = rc_open(&b, BAG_READER_COUNTS_FROM_METADATA);
	rc_assert_messages(&b, r);
	bag_reader_close(r);
	free(b.dir);
}

TU_MAIN(
	TU_SCRATCH_TEST(test_one_file),
	TU_SCRATCH_TEST(test_split_files),
	TU_SCRATCH_TEST(test_no_metadata),
	TU_SCRATCH_TEST(test_file_disagrees))
