/* test_repair — reindex and check must never destroy, nor trust blindly;
 * info's rates. The real bagtop binary on bags written here by bag_writer
 * (real sqlite files) in a scratch directory, then altered the way a crash,
 * a stray copy, a full disk or a hostile file alters them:
 *   - a plain .db3 beside a .db3.zstd: the one with more messages is kept,
 *     the other set aside (never compressed over);
 *   - blank .db3 files: only the bag's own are set aside, never deleted;
 *   - page corruption: reindex says what it could not recover, exit 1;
 *   - a FIFO as metadata.yaml or journal: refused at once, never waited on;
 *   - INT64_MIN / INT64_MAX timestamps: no overflow, a positive duration;
 *   - 100k YAML anchors: refused at once;
 *   - a key twice: --custom-data refuses it, check finds it in any mapping;
 *   - a bag whose first file never completed: check says so;
 *   - info -v: one rate per topic, "-" where a quotient would be noise.
 * Every bagtop run is bounded (tu_bagtop_bounded kills it): a hang fails, it does not
 * stall the suite. DDS: none, unless a usage error regresses (then domain
 * 212, for one second). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_writer.h"
#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_util.h"

#define RP_T0 INT64_C(1700000000000000000)
#define RP_GUARD 20 /* seconds any one bagtop run may take */

/* ---- bags ---- */

struct rp_msg {
	unsigned topic; /* 0 = "/a", 1 = "/b" */
	int64_t ts;
};

/* Writes bag `dir` (which must not exist): the messages, 64 bytes each
 * (`len` if non-zero), with custom data k=v. */
static void rp_bag(const char *dir, enum bag_compression comp, const struct rp_msg *m, size_t n,
		   size_t len)
{
	static const struct bag_kv custom[] = {{"k", "v"}};
	struct bag_writer_options o = {.uri = dir, .compression = comp, .custom_data = custom,
				       .n_custom_data = 1, .ros_distro = "jazzy"};
	struct bag_writer *w;
	struct bt_error err;
	assert_int_equal(bag_writer_open(&o, &w, &err), BT_OK);
	uint32_t h[2];
	const char *names[2] = {"/a", "/b"};
	for (size_t i = 0; i < 2; i++) {
		struct bag_topic t = {(char *)names[i], "std_msgs/msg/String", "cdr", NULL, 0, ""};
		assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h[i], &err), BT_OK);
	}
	size_t size = len ? len : 64;
	uint8_t *data = bt_xcalloc(1, size);
	for (size_t i = 0; i < n; i++) {
		memset(data + 4, (int)(i & 0x7f), size - 4);
		struct bag_message msg = {h[m[i].topic], m[i].ts, data, size, 0};
		assert_int_equal(bag_writer_write(w, &msg, 1, &err), BT_OK);
	}
	free(data);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
}

/* n messages on "/a", 1 ms apart. */
static void rp_bag_n(const char *dir, enum bag_compression comp, size_t n, size_t len)
{
	struct rp_msg *m = bt_xcalloc(n, sizeof *m);
	for (size_t i = 0; i < n; i++)
		m[i] = (struct rp_msg){0, RP_T0 + (int64_t)i * 1000000};
	rp_bag(dir, comp, m, n, len);
	free(m);
}

static char *rp_scratch(const char *tag)
{
	static unsigned seq;
	char *p = bt_xasprintf("%s/%s-%u", tu_group_tmp, tag, seq++);
	assert_int_equal(mkdir(p, 0755), 0);
	return p;
}

static char *rp_path(const char *dir, const char *name)
{
	return bt_fs_join(dir, name);
}

/* Each test's own scratch directory, removed after it (also when an
 * assertion ended it), and the path of a bag in it that the test may
 * create: <dir>/b. */
struct rp_case {
	char *dir, *bag;
};

static int rp_setup(void **state)
{
	struct rp_case *c = bt_xcalloc(1, sizeof *c);
	c->dir = tu_mkdtemp("repair");
	c->bag = rp_path(c->dir, "b");
	*state = c;
	return 0;
}

static int rp_teardown(void **state)
{
	struct rp_case *c = *state;
	tu_rmrf(c->dir);
	free(c->dir);
	free(c->bag);
	free(c);
	return 0;
}

static bool rp_exists(const char *dir, const char *name)
{
	char *p = rp_path(dir, name);
	bool e = bt_fs_exists(p);
	free(p);
	return e;
}

/* Empty files, as a writer that died creating them leaves them: `names`
 * (NULL-terminated) in dir. */
static void rp_blank(const char *dir, const char *const *names)
{
	for (; *names; names++) {
		char *p = rp_path(dir, *names);
		tu_write_file(p, "", 0);
		free(p);
	}
}

static uint64_t rp_md_count(const char *bag)
{
	struct bag_metadata md;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(bag, &md, &err), BT_OK);
	uint64_t n = md.message_count;
	bag_metadata_fini(&md);
	return n;
}

/* ---- running bagtop ---- */

/* Runs bagtop (NULL-terminated arguments) under a kill timeout; returns
 * the exit status (137: it hung). No sanitizer report is ever allowed. */
#define rp_run(out, ...) rp_checked(tu_bagtop_bounded((out), RP_GUARD, __VA_ARGS__), (out))

static int rp_checked(int rc, char **out)
{
	if (!*out)
		*out = bt_xstrdup("");
	if (strstr(*out, "runtime error") || strstr(*out, "Sanitizer")) {
		fprintf(stderr, "sanitizer report:\n%s\n", *out);
		fail();
	}
	return rc;
}

static void rp_want(int rc, int want_rc, const char *out, const char *needle)
{
	if (rc != want_rc || (needle && !strstr(out, needle))) {
		fprintf(stderr, "want exit %d and '%s'; got exit %d:\n%s\n", want_rc,
			needle ? needle : "", rc, out);
		fail();
	}
}

/* rp_want for each of `needles` (NULL-terminated; { NULL }: the exit alone). */
static void rp_want_all(int rc, int want_rc, const char *out, const char *const *needles)
{
	rp_want(rc, want_rc, out, needles[0]);
	for (size_t i = 1; needles[0] && needles[i]; i++)
		rp_want(rc, want_rc, out, needles[i]);
}

/* Runs bagtop as rp_run does: it must exit `want_rc` with each of `needles`
 * (rp_want_all's) in its output. */
#define rp_expect_all(want_rc, needles, ...)                                                     \
	do {                                                                                      \
		char *out_;                                                                       \
		int rc_ = rp_run(&out_, __VA_ARGS__);                                             \
		rp_want_all(rc_, (want_rc), out_, (needles));                                     \
		free(out_);                                                                       \
	} while (0)
/* The needles of rp_expect_all. */
#define RP_NEEDLES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* The same with one `needle` (NULL: the exit alone). */
#define rp_expect(want_rc, needle, ...) rp_expect_all(want_rc, RP_NEEDLES(needle), __VA_ARGS__)

static void rp_check_ok(const char *bag)
{
	rp_expect(0, ": ok", "check", bag, NULL);
}

/* ---- reindex: a plain file beside its compressed copy ---- */

/* Bag b FILE-compressed with `n_zstd` messages, and a b_0.db3 with
 * `n_plain` beside its b_0.db3.zstd; reindex must keep `kept` (the file
 * with more messages) and set the other, `aside`, aside. */
static void rp_pair(size_t n_zstd, size_t n_plain, const char *kept, const char *aside)
{
	char *d1 = rp_scratch("pair"), *d2 = rp_scratch("pair");
	char *bag = rp_path(d1, "b"), *other = rp_path(d2, "b");
	rp_bag_n(bag, BAG_COMPRESSION_FILE, n_zstd, 0);
	rp_bag_n(other, BAG_COMPRESSION_NONE, n_plain, 0);
	char *src = rp_path(other, "b_0.db3"), *dst = rp_path(bag, "b_0.db3");
	tu_copy_file(src, dst);
	char *out, *moved = bt_xasprintf("%s.set-aside-by-reindex", aside);
	int rc = rp_run(&out, "reindex", bag, NULL);
	rp_want(rc, 0, out, moved);
	free(out);
	assert_true(rp_exists(bag, kept));
	assert_false(rp_exists(bag, aside));
	assert_true(rp_exists(bag, moved));
	assert_int_equal(rp_md_count(bag), n_zstd > n_plain ? n_zstd : n_plain);
	rp_check_ok(bag);
	free(moved);
	free(src);
	free(dst);
	free(bag);
	free(other);
	free(d1);
	free(d2);
}

/* A complete FILE-compressed bag (30 messages) and a stray, shorter
 * b_0.db3 (10): the .zstd is kept (it used to be overwritten by a
 * compressed copy of the shorter file). */
static void test_reindex_keeps_longer_zstd(void **state)
{
	(void)state;
	rp_pair(30, 10, "b_0.db3.zstd", "b_0.db3");
}

/* The other way round: the plain file is kept (the bag's only file: it
 * stays uncompressed) and the .zstd set aside. */
static void test_reindex_keeps_longer_plain(void **state)
{
	(void)state;
	rp_pair(10, 30, "b_0.db3", "b_0.db3.zstd");
}

/* ---- reindex: blank files ---- */

/* A blank b_1.db3 and its journal (the writer died creating them) are set
 * aside, not deleted; a blank user_notes.db3 is not the bag's: left alone. */
static void test_reindex_blank_files(void **state)
{
	const struct rp_case *c = *state;
	rp_bag_n(c->bag, BAG_COMPRESSION_NONE, 5, 0);
	rp_blank(c->bag, (const char *const[]){"b_1.db3", "b_1.db3-journal", "user_notes.db3", NULL});
	rp_expect_all(0, RP_NEEDLES("b_1.db3.set-aside-by-reindex", "user_notes.db3"), "reindex",
		      c->bag, NULL);
	assert_true(rp_exists(c->bag, "user_notes.db3"));
	assert_false(rp_exists(c->bag, "b_1.db3"));
	assert_false(rp_exists(c->bag, "b_1.db3-journal"));
	assert_true(rp_exists(c->bag, "b_1.db3.set-aside-by-reindex"));
	assert_true(rp_exists(c->bag, "b_1.db3.set-aside-by-reindex-journal"));
	assert_int_equal(rp_md_count(c->bag), 5);
}

/* A recording that stopped before its first file was complete: a 0-byte
 * b_0.db3 and journal, no metadata.yaml. check says what it is; reindex
 * sets the file aside and leaves an empty bag that check accepts. */
static void test_first_file_incomplete(void **state)
{
	const struct rp_case *c = *state;
	assert_int_equal(mkdir(c->bag, 0755), 0);
	rp_blank(c->bag, (const char *const[]){"b_0.db3", "b_0.db3-journal", NULL});
	rp_expect_all(1,
		      RP_NEEDLES("the recording stopped before its first file was complete",
				 "bagtop reindex"),
		      "check", c->bag, NULL);
	rp_expect(0, "0 messages", "reindex", c->bag, NULL);
	assert_true(rp_exists(c->bag, "b_0.db3.set-aside-by-reindex"));
	rp_check_ok(c->bag);
}

/* ---- reindex: damaged pages ---- */

/* Overwrites the first page that holds nothing but message 40's payload
 * (byte 40 repeated: an overflow page, after its 4-byte link) with junk:
 * the index and the counts stay intact, the message cannot be read. */
static void rp_scribble_overflow(const char *path)
{
	char *data;
	size_t len;
	assert_int_equal(bt_fs_read_all(path, 64u << 20, &data, &len, NULL), BT_OK);
	assert_true(len > 100);
	size_t page = ((size_t)(unsigned char)data[16] << 8) | (unsigned char)data[17];
	if (page == 1)
		page = 65536;
	size_t at = 0;
	for (size_t p = page; !at && p + page <= len; p += page) {
		size_t k = 4;
		while (k < page && data[p + k] == 40)
			k++;
		if (k == page)
			at = p;
	}
	assert_true(at != 0);
	memset(data + at, 0xa5, page);
	tu_write_file(path, data, len);
	free(data);
}

/* A page of a message overwritten: reindex must not say "rebuilt" and exit
 * 0 while check rejects the bag. */
static void test_reindex_damaged(void **state)
{
	const struct rp_case *c = *state;
	rp_bag_n(c->bag, BAG_COMPRESSION_NONE, 60, 100000); /* blobs over several pages */
	char *db = rp_path(c->bag, "b_0.db3");
	rp_scribble_overflow(db);
	rp_expect_all(1, RP_NEEDLES("could not be fully recovered", "b_0.db3"), "reindex", c->bag,
		      NULL);
	rp_expect(1, "integrity", "check", c->bag, NULL);
	free(db);
}

/* ---- FIFOs ---- */

/* A FIFO where a bag file should be: refused at once (it used to block
 * forever in open(), waiting for a writer). */
static void test_fifo(void **state)
{
	const struct rp_case *c = *state;
	rp_bag_n(c->bag, BAG_COMPRESSION_NONE, 5, 0);
	char *md = rp_path(c->bag, "metadata.yaml");
	assert_int_equal(unlink(md), 0);
	assert_int_equal(mkfifo(md, 0644), 0);
	static const char *const cmds[][2] = {{"info", NULL}, {"info", "-v"}, {"check", NULL},
					      {"reindex", NULL}};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
		char *out;
		int rc = cmds[i][1] ? rp_run(&out, cmds[i][0], cmds[i][1], c->bag, NULL)
				    : rp_run(&out, cmds[i][0], c->bag, NULL);
		rp_want(rc, 1, out, "not a regular file");
		free(out);
	}
	/* A FIFO journal beside a storage file: SQLite would open it itself. */
	assert_int_equal(unlink(md), 0);
	char *journal = rp_path(c->bag, "b_0.db3-journal");
	assert_int_equal(mkfifo(journal, 0644), 0);
	rp_expect(1, "not a regular file", "info", c->bag, NULL);
	free(journal);
	free(md);
}

/* ---- extreme timestamps ---- */

/* Messages at INT64_MIN, 0 and INT64_MAX: the duration does not fit and
 * is INT64_MAX (it was a negative number, from a signed overflow that
 * UBSan reports). */
static void test_int64_timestamps(void **state)
{
	const struct rp_case *c = *state;
	const struct rp_msg m[] = {{0, INT64_MIN}, {1, 0}, {0, INT64_MAX}};
	rp_bag(c->bag, BAG_COMPRESSION_NONE, m, 3, 0);
	char *md = rp_path(c->bag, "metadata.yaml");
	assert_int_equal(unlink(md), 0);
	rp_expect(0, "3 messages", "reindex", c->bag, NULL);
	struct bag_metadata got;
	struct bt_error err;
	assert_int_equal(bag_metadata_read(c->bag, &got, &err), BT_OK);
	assert_true(got.starting_time == INT64_MIN);
	assert_true(got.duration == INT64_MAX);
	assert_true(got.files[0].duration == INT64_MAX);
	bag_metadata_fini(&got);
	rp_check_ok(c->bag);
	rp_expect(0, "Messages:          3", "info", "-v", c->bag, NULL);
	free(md);
}

/* ---- YAML ---- */

/* 100k anchors: libyaml's loader is quadratic in them (25 s); refused
 * before loading, with a message that says why. */
static void test_anchors_refused(void **state)
{
	const struct rp_case *c = *state;
	struct bt_buf b = BT_BUF_INIT;
	assert_int_equal(bt_buf_printf(&b, "rosbag2_bagfile_information:\n  version: 9\n  x: ["),
			 BT_OK);
	for (unsigned i = 0; i < 100000; i++)
		assert_int_equal(bt_buf_printf(&b, "&a%u %u, ", i, i), BT_OK);
	assert_int_equal(bt_buf_printf(&b, "*a1]\n"), BT_OK);
	char *md = rp_path(c->dir, "metadata.yaml");
	tu_write_file(md, b.data, b.len);
	bt_buf_fini(&b);
	char *out;
	/* A hang guard, not a timing test: refused at once, it takes ms. */
	int rc = rp_checked(tu_bagtop_bounded(&out, 5, "info", c->dir, NULL), &out);
	rp_want(rc, 1, out, "anchors and aliases");
	free(out);
	free(md);
}

/* --custom-data with one key twice would write it twice: a usage error. */
static void test_custom_data_twice(void **state)
{
	const struct rp_case *c = *state;
	char *out;
	/* demo, bounded in time and on this test's own domain, should the
	 * options ever be accepted (record and demo share them). */
	int rc = rp_run(&out, "demo", "--domain", "212", "--duration", "1", "-o", c->bag,
			"--custom-data", "k=v", "--custom-data", "k=w", NULL);
	rp_want(rc, 2, out, "--custom-data key 'k' given twice");
	assert_true(strchr(out, '\n') == out + strlen(out) - 1); /* one line */
	free(out);
	assert_false(bt_fs_exists(c->bag));
}

/* A key twice in one mapping of metadata.yaml (invalid YAML, refused by
 * rosbag2): check reports it, in custom_data as at the top level. */
static void test_check_duplicate_keys(void **state)
{
	(void)state;
	static const char *const dups[][2] = {
		{"    k: v\n", "    k: v\n    k: w\n"},
		{"  version: 9\n", "  version: 9\n  storage_identifier: sqlite3\n"},
	};
	for (size_t i = 0; i < 2; i++) {
		char *d = rp_scratch("dupkeys");
		char *bag = rp_path(d, "b");
		rp_bag_n(bag, BAG_COMPRESSION_NONE, 3, 0);
		rp_check_ok(bag);
		char *md = rp_path(bag, "metadata.yaml"), *text;
		size_t len;
		assert_int_equal(bt_fs_read_all(md, 1 << 20, &text, &len, NULL), BT_OK);
		char *at = strstr(text, dups[i][0]);
		assert_non_null(at);
		struct bt_buf b = BT_BUF_INIT;
		assert_int_equal(bt_buf_printf(&b, "%.*s%s%s", (int)(at - text), text, dups[i][1],
					       at + strlen(dups[i][0])), BT_OK);
		tu_write_file(md, b.data, b.len);
		bt_buf_fini(&b);
		char *out;
		int rc = rp_run(&out, "check", bag, NULL);
		rp_want(rc, 1, out, "appears twice");
		free(out);
		free(text);
		free(md);
		free(bag);
		free(d);
	}
}

/* ---- info -v: one rate ---- */

static const char *rp_line_with(const char *out, const char *needle, char *line, size_t cap)
{
	const char *at = strstr(out, needle);
	if (!at)
		return NULL;
	while (at > out && at[-1] != '\n')
		at--;
	size_t n = strcspn(at, "\n");
	snprintf(line, cap, "%.*s", (int)n, at);
	return line;
}

/* /a: 3 messages within 12 us; /b: 5 messages over 4 s. One rate per
 * topic, messages / bag duration, the same in the topic list and in the
 * statistics ("164771 Hz average" beside "0.697" before). */
static void test_info_one_rate(void **state)
{
	const struct rp_case *c = *state;
	const int64_t s = INT64_C(1000000000);
	const struct rp_msg m[] = {{1, RP_T0},         {0, RP_T0 + s},     {0, RP_T0 + s + 6000},
				   {0, RP_T0 + s + 12000}, {1, RP_T0 + s}, {1, RP_T0 + 2 * s},
				   {1, RP_T0 + 3 * s},     {1, RP_T0 + 4 * s}};
	rp_bag(c->bag, BAG_COMPRESSION_NONE, m, sizeof m / sizeof m[0], 0);
	char *out, line[512];
	int rc = rp_run(&out, "info", "-v", c->bag, NULL);
	rp_want(rc, 0, out, "/a  [std_msgs/msg/String]  3 messages, rate 0.750 Hz");
	rp_want(rc, 0, out, "/b  [std_msgs/msg/String]  5 messages, rate 1.250 Hz");
	assert_null(strstr(out, "Hz average"));
	assert_non_null(rp_line_with(out, "  /a      ", line, sizeof line));
	assert_non_null(strstr(line, " 0.750 "));
	free(out);
	/* The whole bag within 12 us: no rate at all, rather than 166666 Hz. */
	char *bag = rp_path(c->dir, "c");
	rp_bag(bag, BAG_COMPRESSION_NONE, m + 1, 3, 0);
	rc = rp_run(&out, "info", "-v", bag, NULL);
	rp_want(rc, 0, out, "/a  [std_msgs/msg/String]  3 messages, rate - Hz");
	assert_non_null(rp_line_with(out, "  /a      ", line, sizeof line));
	assert_non_null(strstr(line, " - "));
	free(out);
	free(bag);
}

#define RP_TEST(f) cmocka_unit_test_setup_teardown(f, rp_setup, rp_teardown)

TU_MAIN_GROUP(tu_group_tmp_setup, tu_group_tmp_teardown,
	cmocka_unit_test(test_reindex_keeps_longer_zstd),
	cmocka_unit_test(test_reindex_keeps_longer_plain),
	RP_TEST(test_reindex_blank_files),
	RP_TEST(test_first_file_incomplete),
	RP_TEST(test_reindex_damaged),
	RP_TEST(test_fifo),
	RP_TEST(test_int64_timestamps),
	RP_TEST(test_anchors_refused),
	RP_TEST(test_custom_data_twice),
	cmocka_unit_test(test_check_duplicate_keys),
	RP_TEST(test_info_one_rate))
