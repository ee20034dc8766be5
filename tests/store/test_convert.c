/* bagtop convert, through the built binary on real files: every rosbag2
 * fixture bag copied message for message (topic, timestamp, data compared
 * through the reader on both sides), its topics and definitions kept, and
 * `check` passing; exact counts for time windows and topic filters on a
 * bag written here with known timestamps; every --compat x compression
 * (split) combination; MCAP's publish_time kept from MCAP to MCAP; and
 * the errors: OUT existing, IN unreadable, a window that ends before it
 * starts, a malformed time, an unknown storage — one line, exit 1 or 2,
 * nothing created or touched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_msgdefs.h"
#include "bag_reader.h"
#include "bag_storage.h"
#include "bag_writer.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_bag.h"
#include "test_util.h"

#define CV_T0 INT64_C(1700000000000000000) /* 1700000000 s */
#define CV_MS INT64_C(1000000)
#define CV_N 100 /* messages per topic, CV_T0 + i * 10 ms */

/* The crafted bag's topics: ROS ones, a hidden one and a plain DDS one. */
static const char *const cv_names[] = {"/alpha", "/beta", "/_hidden", "DDSPerfData"};
#define CV_TOPICS (sizeof cv_names / sizeof cv_names[0])

/* ---- running bagtop ---- */

/* bagtop ARGS... (NULL-terminated); exit status, output in *out (freed by
 * the caller). */
static int cv_bagtop(char **out, const char *const *args)
{
	const char *argv[32] = {getenv("BAGTOP_BIN")};
	size_t n = 1;
	for (; args[n - 1]; n++) {
		assert_true(n < 31);
		argv[n] = args[n - 1];
	}
	argv[n] = NULL;
	*out = NULL;
	return tu_run_bounded((char *const *)argv, out, 120);
}

/* Runs convert and wants exit 0. */
static void cv_ok(const char *const *args)
{
	char *out;
	int rc = cv_bagtop(&out, args);
	if (rc != 0)
		fail_msg("bagtop %s %s %s...: exit %d\n%s", args[0], args[1], args[2], rc, out);
	free(out);
}

/* Runs a failing command: exit `want`, exactly one line containing `says`. */
static void cv_fails(const char *const *args, int want, const char *says)
{
	char *out;
	int rc = cv_bagtop(&out, args);
	size_t lines = 0;
	for (const char *p = out ? out : ""; *p; p++)
		lines += *p == '\n';
	if (rc != want || lines != 1 || !strstr(out, says))
		fail_msg("bagtop %s %s %s...: exit %d (want %d), want one line with '%s':\n%s",
			 args[0], args[1], args[2], rc, want, says, out ? out : "");
	free(out);
}

/* ---- the messages of a bag, as the reader gives them ---- */

struct cv_msg {
	char *topic;
	int64_t t;
	uint8_t *data;
	size_t len;
};

struct cv_msgs {
	struct cv_msg *v;
	size_t n, cap;
};

static void cv_collect(const struct bag_read_msg *m, const struct bag_reader_topic *t,
		       void *arg)
{
	struct cv_msgs *s = arg;
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = bt_xrealloc(s->v, s->cap * sizeof *s->v);
	}
	assert_non_null(t);
	uint8_t *d = bt_xmalloc(m->len ? m->len : 1);
	if (m->len)
		memcpy(d, m->data, m->len);
	s->v[s->n++] = (struct cv_msg){bt_xstrdup(t->topic.name), m->timestamp, d, m->len};
}

static void cv_msgs_fini(struct cv_msgs *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].topic);
		free(s->v[i].data);
	}
	free(s->v);
}

/* OUT holds IN's messages exactly (same order, topic, time, bytes). */
static void cv_same_messages(const char *in, const char *out)
{
	struct cv_msgs a = {0}, b = {0};
	tb_each(in, 0, cv_collect, &a);
	tb_each(out, 0, cv_collect, &b);
	if (a.n != b.n)
		fail_msg("%s: %zu messages, its copy %zu", in, a.n, b.n);
	for (size_t i = 0; i < a.n; i++) {
		const struct cv_msg *x = &a.v[i], *y = &b.v[i];
		if (strcmp(x->topic, y->topic) || x->t != y->t || x->len != y->len ||
		    (x->len && memcmp(x->data, y->data, x->len)))
			fail_msg("%s: message %zu (%s at %lld, %zu bytes) differs in the copy "
				 "(%s at %lld, %zu bytes)", in, i, x->topic, (long long)x->t, x->len,
				 y->topic, (long long)y->t, y->len);
	}
	cv_msgs_fini(&a);
	cv_msgs_fini(&b);
}

/* ---- topics and definitions ---- */

static const struct bag_reader_topic *cv_topic(const struct bag_reader *r, const char *name)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].topic.name, name))
			return &t[i];
	return NULL;
}

static const struct bag_msgdef *cv_def(const struct bag_msgdef *d, size_t n, const char *type)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].topic_type, type))
			return &d[i];
	return NULL;
}

static void cv_same_qos(const char *in, const struct bag_topic *a, const struct bag_topic *b)
{
	if (a->n_qos != b->n_qos)
		fail_msg("%s %s: %zu QoS profiles, the copy %zu", in, a->name, a->n_qos, b->n_qos);
	for (size_t q = 0; q < a->n_qos; q++) {
		const struct bag_qos *x = &a->qos[q], *y = &b->qos[q];
		if (x->reliability != y->reliability || x->durability != y->durability ||
		    x->history != y->history || x->depth != y->depth)
			fail_msg("%s %s: QoS profile %zu differs in the copy", in, a->name, q);
	}
}

/* Every topic of IN is in OUT with its type, format, QoS and hash, and
 * every definition IN has is OUT's, byte for byte. */
static void cv_same_topics(const char *in, const char *out)
{
	struct bag_reader *ra, *rb;
	struct bt_error err;
	assert_int_equal(bag_reader_open(in, 0, &ra, &err), BT_OK);
	assert_int_equal(bag_reader_open(out, 0, &rb, &err), BT_OK);
	size_t n, nb;
	const struct bag_reader_topic *t = bag_reader_topics(ra, &n);
	(void)bag_reader_topics(rb, &nb);
	assert_int_equal(n, nb);
	struct bag_msgdef *da, *db;
	size_t nda, ndb;
	assert_int_equal(bag_msgdefs_read(ra, &da, &nda, &err), BT_OK);
	assert_int_equal(bag_msgdefs_read(rb, &db, &ndb, &err), BT_OK);
	for (size_t i = 0; i < n; i++) {
		const struct bag_topic *a = &t[i].topic;
		const struct bag_reader_topic *bt = cv_topic(rb, a->name);
		if (!bt)
			fail_msg("%s: topic %s missing in the copy", in, a->name);
		const struct bag_topic *b = &bt->topic;
		if (strcmp(a->type, b->type) || strcmp(a->serialization_format,
							b->serialization_format) ||
		    strcmp(a->type_description_hash, b->type_description_hash))
			fail_msg("%s %s: type, format or hash differs in the copy", in, a->name);
		cv_same_qos(in, a, b);
		const struct bag_msgdef *x = cv_def(da, nda, a->type), *y = cv_def(db, ndb, a->type);
		if (x && (!y || strcmp(x->encoding, y->encoding) ||
			  strcmp(x->encoded_message_definition, y->encoded_message_definition)))
			fail_msg("%s: the definition of %s differs in the copy", in, a->type);
	}
	bag_msgdefs_free(da, nda);
	bag_msgdefs_free(db, ndb);
	bag_reader_close(ra);
	bag_reader_close(rb);
}

/* ---- the fixtures ---- */

/* Converts fixture bag `in` into <tmp>/<name>: the same messages and topics. */
static void cv_fixture(const char *in, const char *name, void *tmp)
{
	char *out = bt_fs_join(tmp, name);
	cv_ok((const char *[]){"convert", in, out, NULL});
	cv_same_messages(in, out);
	cv_same_topics(in, out);
	tu_check_bag(out);
	free(out);
}

static void test_fixtures(void **state)
{
	assert_true(tu_each_fixture(cv_fixture, *state) >= 9);
}

/* A single storage file as IN, and IN's compression given up (MESSAGE ->
 * none, FILE -> MESSAGE). */
static void test_fixture_forms(void **state)
{
	const char *tmp = *state;
	char *f = bt_fs_join(tu_fixtures(), "topics_and_services/topics_and_services.db3");
	char *o1 = bt_fs_join(tmp, "single");
	cv_ok((const char *[]){"convert", f, o1, NULL});
	cv_same_messages(f, o1);
	tu_check_bag(o1);
	char *mc = bt_fs_join(tu_fixtures(), "message_compression");
	char *o2 = bt_fs_join(tmp, "plain");
	cv_ok((const char *[]){"convert", mc, o2, "--compression-mode", "none", NULL});
	cv_same_messages(mc, o2);
	tu_check_bag(o2);
	char *fc = bt_fs_join(tu_fixtures(), "file_compression");
	char *o3 = bt_fs_join(tmp, "msg");
	cv_ok((const char *[]){"convert", fc, o3, "--compression-mode", "message", "-b", "84K",
			       NULL});
	cv_same_messages(fc, o3);
	tu_check_bag(o3);
	free(f), free(o1), free(mc), free(o2), free(fc), free(o3);
}

/* ---- a bag of known timestamps ---- */

/* CV_N messages per topic at CV_T0 + i * 10 ms, `len` bytes each (of a
 * pseudo-random sequence, so that compression does not shrink them), a
 * definition for the type. */
static char *cv_make_bag(const char *tmp, size_t len)
{
	char *dir = bt_fs_join(tmp, "known");
	struct bag_writer_options o = {.uri = dir, .ros_distro = "jazzy"};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	uint32_t h[CV_TOPICS];
	struct bag_msgdef def = {"std_msgs/msg/String", "ros2msg", "string data\n", ""};
	for (size_t i = 0; i < CV_TOPICS; i++) {
		struct bag_qos q;
		bag_qos_default(&q);
		struct bag_topic t = {(char *)cv_names[i], "std_msgs/msg/String", "cdr", &q, 1, ""};
		assert_int_equal(bag_writer_add_topic(w, &t, &def, &h[i], &err), BT_OK);
	}
	uint8_t *data = bt_xcalloc(len, 1);
	uint32_t x = 12345;
	for (int i = 0; i < CV_N; i++)
		for (size_t k = 0; k < CV_TOPICS; k++) {
			for (size_t j = 0; j < len; j++) {
				x = x * 1103515245u + 12345u;
				data[j] = (uint8_t)(x >> 16);
			}
			struct bag_message m = {h[k], CV_T0 + i * 10 * CV_MS, data, len, 0};
			assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_OK);
		}
	free(data);
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	return dir;
}

/* convert IN OUT ARGS... into a fresh OUT; *count set per topic. */
static void cv_counts(const char *tmp, const char *in, const char *const *args,
		      unsigned long long count[CV_TOPICS])
{
	static unsigned seq;
	char name[32];
	snprintf(name, sizeof name, "out%u", seq++);
	char *out = bt_fs_join(tmp, name);
	const char *argv[24] = {"convert", in, out};
	size_t n = 3;
	for (; args[n - 3]; n++)
		argv[n] = args[n - 3];
	argv[n] = NULL;
	cv_ok(argv);
	tu_check_bag(out);
	for (size_t k = 0; k < CV_TOPICS; k++)
		count[k] = tb_count(out, cv_names[k], TB_ALL);
	free(out);
}

/* convert IN OUT args... must leave a, b, c, d messages of cv_names. */
static void cv_want(const char *tmp, const char *in, const char *const *args,
		    unsigned long long a, unsigned long long b, unsigned long long c,
		    unsigned long long d)
{
	unsigned long long got[CV_TOPICS];
	cv_counts(tmp, in, args, got);
	unsigned long long want[CV_TOPICS] = {a, b, c, d};
	for (size_t k = 0; k < CV_TOPICS; k++)
		if (got[k] != want[k])
			fail_msg("convert %s %s...: %s has %llu messages, want %llu", args[0],
				 args[1] ? args[1] : "", cv_names[k], got[k], want[k]);
}

/* [--start, --end): start inclusive, end exclusive, to the nanosecond, as
 * offsets, as epoch seconds and mixed. */
static void test_window(void **state)
{
	const char *tmp = *state;
	char *in = cv_make_bag(tmp, 16);
	cv_want(tmp, in, (const char *[]){"--start", "+0.5", NULL}, 50, 50, 50, 50);
	cv_want(tmp, in, (const char *[]){"--end", "+0.5", NULL}, 50, 50, 50, 50);
	cv_want(tmp, in, (const char *[]){"--start", "+0.5", "--end", "+0.75", NULL},
		25, 25, 25, 25);
	cv_want(tmp, in, (const char *[]){"--start", "1700000000.2", "--end", "1700000000.3", NULL},
		10, 10, 10, 10);
	cv_want(tmp, in, (const char *[]){"--start", "+0.1", "--end", "1700000000.15", NULL},
		5, 5, 5, 5);
	/* one nanosecond either side of a message's stamp */
	cv_want(tmp, in,
		(const char *[]){"--start", "1700000000.010000001", "--end", "1700000000.030000001",
				 NULL},
		2, 2, 2, 2);
	cv_want(tmp, in, (const char *[]){"--start", "+0.99", NULL}, 1, 1, 1, 1);
	cv_want(tmp, in, (const char *[]){"--start", "+0.991", NULL}, 0, 0, 0, 0);
	free(in);
}

/* record's selection rules on the bag's names; hidden and DDS topics are
 * copied like any other. */
static void test_filter(void **state)
{
	const char *tmp = *state;
	char *in = cv_make_bag(tmp, 16);
	cv_want(tmp, in, (const char *[]){"-x", "^$", NULL}, 100, 100, 100, 100);
	cv_want(tmp, in, (const char *[]){"--topics", "/alpha", NULL}, 100, 0, 0, 0);
	cv_want(tmp, in, (const char *[]){"--topics", "/alpha", "/_hidden", "--", NULL},
		100, 0, 100, 0);
	cv_want(tmp, in, (const char *[]){"--topics", "rt/beta", NULL}, 0, 100, 0, 0);
	cv_want(tmp, in, (const char *[]){"-e", "^DDS", NULL}, 0, 0, 0, 100);
	cv_want(tmp, in, (const char *[]){"-e", "a$", NULL}, 100, 100, 0, 100);
	cv_want(tmp, in, (const char *[]){"-e", "a$", "-x", "^rt/b", NULL}, 100, 0, 0, 100);
	cv_want(tmp, in, (const char *[]){"--topics", "/beta", "-e", "hid", NULL},
		0, 100, 100, 0);
	cv_want(tmp, in, (const char *[]){"--exclude-topics", "/alpha", "DDSPerfData", "--", NULL},
		0, 100, 100, 0);
	cv_want(tmp, in, (const char *[]){"-x", "_", NULL}, 100, 100, 0, 100);
	cv_want(tmp, in,
		(const char *[]){"--start", "+0.5", "--end", "+0.6", "--topics", "/alpha", NULL},
		10, 0, 0, 0);
	/* a name the bag does not have: copied what there is, and said */
	char *o2 = bt_fs_join(tmp, "typo"), *said;
	assert_int_equal(cv_bagtop(&said, (const char *[]){"convert", in, o2, "--topics", "/alpah",
							   "/beta", NULL}), 0);
	if (!strstr(said, "--topics /alpah: the bag has no such topic"))
		fail_msg("no warning for a topic the bag lacks:\n%s", said);
	assert_int_equal(tb_count(o2, NULL, TB_ALL), CV_N);
	free(said);
	free(o2);
	/* a list, then -- before IN OUT */
	char *out = bt_fs_join(tmp, "dashdash");
	cv_ok((const char *[]){"convert", "--topics", "/alpha", "DDSPerfData", "--",
			       in, out, NULL});
	assert_int_equal(tb_count(out, NULL, TB_ALL), 2 * CV_N);
	assert_int_equal(tb_count(out, "DDSPerfData", TB_ALL), CV_N);
	free(out);
	free(in);
}

/* --services / --exclude-services take a service's events
 * (SVC/_service_event), with or without the leading /, as play does. */
static void test_services(void **state)
{
	const char *tmp = *state;
	char *in = bt_fs_join(tmp, "svc");
	struct bag_writer_options o = {.uri = in};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	static const char *const names[] = {"/a", "/s/_service_event", "/t/_service_event"};
	for (size_t i = 0; i < 3; i++) {
		struct bag_qos q;
		bag_qos_default(&q);
		struct bag_topic t = {(char *)names[i], i ? "p/srv/S_Event" : "std_msgs/msg/String",
				      "cdr", &q, 1, ""};
		uint32_t h;
		assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h, &err), BT_OK);
		for (size_t k = 0; k <= i; k++) {
			struct bag_message m = {h, CV_T0 + (int64_t)(i * 10 + k) * CV_MS, "\0\1\0\0", 4, 0};
			assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_OK);
		}
	}
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	static const struct {
		const char *args[5];
		unsigned long long a, s, t;
	} cases[] = {
		{{"--services", "s", NULL}, 0, 2, 0},
		{{"--services", "/s", "t", NULL}, 0, 2, 3},
		{{"--topics", "/a", "--services", "t", NULL}, 1, 0, 3},
		{{"--exclude-services", "s", NULL}, 1, 0, 3},
		{{"-e", "_event", "--exclude-services", "/t", NULL}, 0, 2, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out = bt_xasprintf("%s/svc_out%zu", tmp, i);
		const char *argv[8] = {"convert", in, out};
		for (size_t k = 0; cases[i].args[k]; k++)
			argv[3 + k] = cases[i].args[k];
		cv_ok(argv);
		unsigned long long got[3];
		for (size_t k = 0; k < 3; k++)
			got[k] = tb_count(out, names[k], TB_ALL);
		if (got[0] != cases[i].a || got[1] != cases[i].s || got[2] != cases[i].t)
			fail_msg("case %zu: %llu %llu %llu", i, got[0], got[1], got[2]);
		free(out);
	}
	free(in);
}

/* OUT, converted from IN, holds IN's messages in a split bag that passes
 * check; and converted back (bagtop's own bag as IN), still the same. */
static void cv_same_and_back(const char *tmp, const char *in, const char *out)
{
	cv_same_messages(in, out);
	tu_check_bag(out);
	struct bag_reader *r;
	struct bt_error err;
	assert_int_equal(bag_reader_open(out, 0, &r, &err), BT_OK);
	if (bag_reader_n_files(r) < 3)
		fail_msg("%s: %zu files, want a split bag", out, bag_reader_n_files(r));
	bag_reader_close(r);
	char *back = bt_fs_join(tmp, "back");
	cv_ok((const char *[]){"convert", out, back, NULL});
	cv_same_messages(in, back);
	tu_check_bag(back);
	tu_rmrf(back);
	free(back);
}

/* Every layout with every compression, split by size: checked, and the
 * messages kept byte for byte. */
static void test_compat_compression(void **state)
{
	const char *tmp = *state;
	char *in = cv_make_bag(tmp, 2000); /* 800 KB: splits at 84K */
	static const char *const compat[] = {"humble", "iron", "jazzy"};
	static const char *const mode[] = {"none", "file", "message"};
	for (size_t c = 0; c < 3; c++)
		for (size_t m = 0; m < 3; m++) {
			char name[64];
			snprintf(name, sizeof name, "%s-%s", compat[c], mode[m]);
			char *out = bt_fs_join(tmp, name);
			cv_ok((const char *[]){"convert", in, out, "--compat", compat[c],
					       "--compression-mode", mode[m], "-b", "84K", NULL});
			cv_same_and_back(tmp, in, out);
			free(out);
		}
	free(in);
}

/* -s with every backend bagtop has (sqlite3; mcap once registered), split,
 * and back to the default: the same messages, check passing. */
static void test_every_storage(void **state)
{
	const char *tmp = *state;
	char *in = cv_make_bag(tmp, 2000);
	const struct bag_storage_ops *ops;
	for (size_t i = 0; (ops = bag_storage_at(i)) != NULL; i++) {
		char *out = bt_fs_join(tmp, ops->identifier);
		cv_ok((const char *[]){"convert", in, out, "-s", ops->identifier, "-b", "100K", NULL});
		cv_same_topics(in, out);
		cv_same_and_back(tmp, in, out);
		free(out);
	}
	free(in);
}

/* ---- send times (MCAP's publish_time) ---- */

#define ST_N 40

/* Message i's send time: 7 ms and i ns before its receive time, or, for
 * every fifth, not known. */
static int64_t st_send(int i)
{
	return i % 5 == 0 ? 0 : CV_T0 + i * 10 * CV_MS - 7 * CV_MS - i;
}

/* An MCAP bag of ST_N messages on /alpha with those send times. */
static char *st_make_bag(const char *tmp)
{
	char *dir = bt_fs_join(tmp, "sent");
	struct bag_writer_options o = {.uri = dir, .ros_distro = "jazzy", .storage_id = "mcap"};
	struct bag_writer *w = tb_writer_open(&o);
	struct bt_error err;
	struct bag_qos q;
	bag_qos_default(&q);
	struct bag_topic t = {(char *)cv_names[0], "std_msgs/msg/String", "cdr", &q, 1, ""};
	uint32_t h;
	assert_int_equal(bag_writer_add_topic(w, &t, NULL, &h, &err), BT_OK);
	for (int i = 0; i < ST_N; i++) {
		struct bag_message m = {h, CV_T0 + i * 10 * CV_MS, "\0\1\0\0", 4, st_send(i)};
		assert_int_equal(bag_writer_write(w, &m, 1, &err), BT_OK);
	}
	assert_int_equal(bag_writer_close(w, &err), BT_OK);
	return dir;
}

/* What a bag's send times must be: as written (KEPT), none (sqlite3 keeps
 * none: DROPPED), or the receive times standing for them (RECV). */
enum st_want { ST_KEPT, ST_DROPPED, ST_RECV };

struct st_check {
	enum st_want want;
	int n, bad;
};

static void st_check_msg(const struct bag_read_msg *m, const struct bag_reader_topic *t, void *arg)
{
	(void)t;
	struct st_check *c = arg;
	int i = (int)((m->timestamp - CV_T0) / (10 * CV_MS));
	int64_t want = c->want == ST_DROPPED ? 0
		       : c->want == ST_RECV || st_send(i) == 0 ? m->timestamp : st_send(i);
	c->bad += m->send_time != want;
	c->n++;
}

static void st_expect(const char *dir, enum st_want want)
{
	struct st_check c = {want, 0, 0};
	tb_each(dir, 0, st_check_msg, &c);
	if (c.n != ST_N || c.bad)
		fail_msg("%s: %d messages, %d with another send time", dir, c.n, c.bad);
}

/* MCAP to MCAP keeps each message's publish_time; through sqlite3, which
 * has no place for it, it is lost and the receive time stands for it. */
static void test_send_time(void **state)
{
	const char *tmp = *state;
	char *in = st_make_bag(tmp);
	st_expect(in, ST_KEPT);
	char *mc = bt_fs_join(tmp, "to_mcap"), *db = bt_fs_join(tmp, "to_db"),
	     *back = bt_fs_join(tmp, "back");
	cv_ok((const char *[]){"convert", in, mc, "-s", "mcap", NULL});
	st_expect(mc, ST_KEPT);
	cv_ok((const char *[]){"convert", in, db, "-s", "sqlite3", NULL});
	st_expect(db, ST_DROPPED);
	cv_ok((const char *[]){"convert", db, back, "-s", "mcap", NULL});
	st_expect(back, ST_RECV);
	free(in), free(mc), free(db), free(back);
}

/* IN without metadata.yaml (a recorder killed before writing it): the
 * files are read as they are. */
static void test_no_metadata(void **state)
{
	const char *tmp = *state;
	char *in = cv_make_bag(tmp, 16);
	char *copy = bt_fs_join(tmp, "with-md");
	cv_ok((const char *[]){"convert", in, copy, NULL});
	char *md = bt_fs_join(in, "metadata.yaml");
	assert_int_equal(unlink(md), 0);
	char *out = bt_fs_join(tmp, "from-files");
	cv_ok((const char *[]){"convert", in, out, NULL});
	cv_same_messages(copy, out);
	tu_check_bag(out);
	free(out);
	free(md);
	free(copy);
	free(in);
}

/* ---- errors ---- */

/* OUT existing: exit 1, one line, OUT as it was. */
static void test_out_exists(void **state)
{
	const char *tmp = *state;
	char *in = cv_make_bag(tmp, 16);
	char *out = bt_fs_join(tmp, "exists");
	struct bt_error err;
	assert_int_equal(bt_fs_mkdir_new(out, &err), BT_OK);
	char *keep = bt_fs_join(out, "keep.txt");
	tu_write_file(keep, "precious\n", 9);
	cv_fails((const char *[]){"convert", in, out, NULL}, 1, "already exists");
	char **names;
	size_t n;
	assert_int_equal(bt_fs_list_dir(out, &names, &n, &err), BT_OK);
	assert_int_equal(n, 1);
	assert_string_equal(names[0], "keep.txt");
	free(names[0]);
	free(names);
	/* an existing file too */
	cv_fails((const char *[]){"convert", in, keep, NULL}, 1, "already exists");
	free(keep);
	free(out);
	free(in);
}

/* Bad input: one line, exit 2 (usage) or 1 (runtime), OUT never created. */
static void test_bad_input(void **state)
{
	const char *tmp = *state;
	char *in = cv_make_bag(tmp, 16);
	char *out = bt_fs_join(tmp, "never");
	char *none = bt_fs_join(tmp, "no-such-bag");
	char *junk = bt_fs_join(tmp, "junk.db3");
	tu_write_file(junk, "not sqlite at all, not at all\n", 30);
	cv_fails((const char *[]){"convert", none, out, NULL}, 1, "bagtop: error: ");
	cv_fails((const char *[]){"convert", junk, out, NULL}, 1, "bagtop: error: ");
	cv_fails((const char *[]){"convert", in, out, "--start", "1700000000.5", "--end",
				  "1700000000.5", NULL}, 2, "--end must be after --start");
	cv_fails((const char *[]){"convert", in, out, "--start", "+2", "--end", "+1", NULL}, 2,
		 "--end must be after --start");
	/* known to be after only once the bag's start is */
	cv_fails((const char *[]){"convert", in, out, "--start", "+0.5", "--end", "1700000000.4",
				  NULL}, 2, "--end");
	static const char *const bad[] = {"abc", "-1", "+-1", "1e9", "1.", "+", "", "1,5", "++1",
					  "99999999999"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		cv_fails((const char *[]){"convert", in, out, "--start", bad[i], NULL}, 2,
			 "--start wants");
	cv_fails((const char *[]){"convert", in, out, "--end", "soon", NULL}, 2, "--end wants");
	cv_fails((const char *[]){"convert", in, out, "-s", "tape", NULL}, 2, "unknown storage");
	cv_fails((const char *[]){"convert", in, out, "--max-bag-files", "2", NULL}, 2,
		 "max-bag-files");
	cv_fails((const char *[]){"convert", in, NULL}, 2, "wants IN and OUT");
	cv_fails((const char *[]){"convert", in, out, "-e", "(", NULL}, 2, "--regex");
	cv_fails((const char *[]){"convert", in, out, "--compat", "rolling2", NULL}, 2, "--compat");
	assert_false(bt_fs_exists(out));
	free(junk);
	free(none);
	free(out);
	free(in);
}

int main(void)
{
	if (!getenv("BAGTOP_BIN")) {
		printf("SKIP: BAGTOP_BIN is not set (run through ctest)\n");
		return 77;
	}
	const struct CMUnitTest own[] = {
		TU_SCRATCH_TEST(test_window),
		TU_SCRATCH_TEST(test_filter),
		TU_SCRATCH_TEST(test_services),
		TU_SCRATCH_TEST(test_compat_compression),
		TU_SCRATCH_TEST(test_every_storage),
		TU_SCRATCH_TEST(test_send_time),
		TU_SCRATCH_TEST(test_no_metadata),
		TU_SCRATCH_TEST(test_out_exists),
		TU_SCRATCH_TEST(test_bad_input),
	};
	int failed = cmocka_run_group_tests_name("convert", own, NULL, NULL);
	if (!tu_fixtures()) {
		/* visible in the output; the tests above ran */
		printf("SKIP: rosbag2 fixtures not found (BAGTOP_FIXTURES): the fixture copies "
		       "did not run\n");
		return failed;
	}
	const struct CMUnitTest fixtures[] = {
		TU_SCRATCH_TEST(test_fixtures),
		TU_SCRATCH_TEST(test_fixture_forms),
	};
	return failed + cmocka_run_group_tests_name("convert fixtures", fixtures, NULL, NULL);
}
