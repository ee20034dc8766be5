#include "test_bag.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "mcap_doctor.h"
#include "mcap_reader.h"

unsigned long long tb_each(const char *path, unsigned flags, tb_msg_fn *fn, void *arg)
{
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(path, flags, &r, &err) != BT_OK)
		fail_msg("reader %s: %s", path, err.msg);
	size_t nt;
	const struct bag_reader_topic *t = bag_reader_topics(r, &nt);
	struct bag_read_msg m;
	unsigned long long n = 0;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		if (fn)
			fn(&m, m.topic < nt ? &t[m.topic] : NULL, arg);
		n++;
	}
	if (rc != 0)
		fail_msg("reader next %s: %s", path, err.msg);
	bag_reader_close(r);
	return n;
}

struct tb_where {
	const char *topic;
	int64_t from, to;
	unsigned long long n;
};

static void tb_count_one(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			 void *arg)
{
	(void)t;
	struct tb_where *w = arg;
	w->n += (!w->topic || !strcmp(m->name, w->topic)) && m->timestamp >= w->from &&
		m->timestamp < w->to;
}

unsigned long long tb_count(const char *path, const char *topic, int64_t from, int64_t to)
{
	struct tb_where w = {topic, from, to, 0};
	tb_each(path, 0, tb_count_one, &w);
	return w.n;
}

struct bag_writer *tb_writer_open(const struct bag_writer_options *o)
{
	struct bag_writer *w = NULL;
	struct bt_error err;
	if (bag_writer_open(o, &w, &err) != BT_OK)
		fail_msg("bag_writer_open %s: %s", o->uri ? o->uri : "(no uri)", err.msg);
	return w;
}

void tb_writer_refused(const struct bag_writer_options *o, bt_status want, const char *says)
{
	struct bag_writer *w = NULL;
	struct bt_error err;
	err.msg[0] = '\0';
	assert_true(want != BT_OK);
	bt_status st = bag_writer_open(o, &w, &err);
	if (st != want)
		fail_msg("bag_writer_open %s: status %d, want %d (%s)", o->uri, (int)st, (int)want,
			 st == BT_OK ? "opened" : err.msg);
	if (says && !strstr(err.msg, says))
		fail_msg("bag_writer_open %s: \"%s\" does not say \"%s\"", o->uri, err.msg, says);
	assert_true(err.msg[0] != '\0');
}

static struct mcap_reader *tb_mcap_open(const char *path,
					bt_status (*then)(struct mcap_reader *, struct bt_error *),
					const char *what)
{
	struct mcap_reader *r = NULL;
	struct bt_error err;
	if (mcap_reader_open(&r, path, &err) != BT_OK)
		fail_msg("mcap_reader_open %s: %s", path, err.msg);
	if (then(r, &err) != BT_OK)
		fail_msg("%s %s: %s", what, path, err.msg);
	return r;
}

struct mcap_reader *tb_mcap_indexed(const char *path, const struct mcap_summary **s)
{
	struct mcap_reader *r = tb_mcap_open(path, mcap_reader_index, "mcap_reader_index");
	*s = mcap_reader_summary(r);
	return r;
}

struct mcap_reader *tb_mcap_streamed(const char *path)
{
	return tb_mcap_open(path, mcap_reader_stream_begin, "mcap_reader_stream_begin");
}

uint64_t tb_mcap_stream_each(const char *path, void (*fn)(const struct mcap_item *it, void *arg),
			     void *arg)
{
	struct mcap_reader *r = tb_mcap_streamed(path);
	struct bt_error err;
	uint64_t n = 0;
	for (bool end = false;; n++) {
		struct mcap_item it;
		if (mcap_reader_next(r, &it, &end, &err) != BT_OK)
			fail_msg("%s: %s", path, err.msg);
		if (end)
			break;
		fn(&it, arg);
	}
	mcap_reader_close(r);
	return n;
}

struct tb_doctor_run {
	const char *path;
	struct mcap_doctor *doc;
};

static void tb_doctor_item(const struct mcap_item *it, void *arg)
{
	struct tb_doctor_run *d = arg;
	char why[512];
	if (!mcap_doctor_feed(d->doc, it, why, sizeof why))
		fail_msg("%s: %s", d->path, why);
}

void tb_mcap_doctor(const char *path)
{
	struct tb_doctor_run d = {path, mcap_doctor_new()};
	assert_non_null(d.doc);
	tb_mcap_stream_each(path, tb_doctor_item, &d);
	mcap_doctor_free(d.doc);
}

struct bag_qos tb_qos_keep_last(uint64_t depth, int reliability, int durability)
{
	struct bag_qos q;
	bag_qos_default(&q);
	q.history = BAG_HISTORY_KEEP_LAST;
	q.depth = depth;
	q.reliability = reliability;
	q.durability = durability;
	return q;
}

void tb_assert_qos_time_equal(struct bag_qos_time a, struct bag_qos_time b)
{
	assert_int_equal(a.sec, b.sec);
	assert_int_equal(a.nsec, b.nsec);
}

void tb_assert_qos_equal(const struct bag_qos *a, const struct bag_qos *b)
{
	assert_int_equal(a->history, b->history);
	assert_int_equal(a->depth, b->depth);
	assert_int_equal(a->reliability, b->reliability);
	assert_int_equal(a->durability, b->durability);
	tb_assert_qos_time_equal(a->deadline, b->deadline);
	tb_assert_qos_time_equal(a->lifespan, b->lifespan);
	assert_int_equal(a->liveliness, b->liveliness);
	tb_assert_qos_time_equal(a->liveliness_lease_duration, b->liveliness_lease_duration);
	assert_int_equal(a->avoid_ros_namespace_conventions, b->avoid_ros_namespace_conventions);
}

void tb_assert_topic_equal(const struct bag_topic *a, const struct bag_topic *b)
{
	assert_string_equal(a->name, b->name);
	assert_string_equal(a->type, b->type);
	assert_string_equal(a->serialization_format, b->serialization_format);
	assert_string_equal(a->type_description_hash, b->type_description_hash);
	assert_int_equal(a->n_qos, b->n_qos);
	for (size_t i = 0; i < a->n_qos; i++)
		tb_assert_qos_equal(&a->qos[i], &b->qos[i]);
}

void tb_assert_files_equal(const struct bag_metadata *a, const struct bag_metadata *b)
{
	assert_int_equal(a->n_files, b->n_files);
	for (size_t i = 0; i < a->n_files; i++) {
		assert_string_equal(a->files[i].path, b->files[i].path);
		assert_int_equal(a->files[i].starting_time, b->files[i].starting_time);
		assert_int_equal(a->files[i].duration, b->files[i].duration);
		assert_int_equal(a->files[i].message_count, b->files[i].message_count);
	}
}

sqlite3 *tb_sql_open(const char *db)
{
	sqlite3 *h = NULL;
	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
		fail_msg("sqlite3_open %s: %s", db, h ? sqlite3_errmsg(h) : "?");
	return h;
}

sqlite3_stmt *tb_sql(sqlite3 *h, const char *sql)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(h, sql, -1, &s, NULL) != SQLITE_OK)
		fail_msg("%s: %s", sql, sqlite3_errmsg(h));
	return s;
}
