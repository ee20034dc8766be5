/* app_convert — reader → selection and window → writer (app_convert.h).
 * Messages are copied in batches (one write transaction each) because the
 * reader's data is valid only until its next message: each batch owns
 * copies in one buffer. */
#include "app_convert.h"

#include <stdlib.h>
#include <string.h>

#include "bag_msgdefs.h"
#include "bag_reader.h"
#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "btdds_names.h"
#include "btdds_select.h"

#define CONVERT_BATCH_MSGS 512
#define CONVERT_BATCH_BYTES ((size_t)8 << 20)
#define CONVERT_SKIP UINT32_MAX /* a topic not selected */

struct convert_batch {
	struct bag_message msg[CONVERT_BATCH_MSGS];
	size_t off[CONVERT_BATCH_MSGS]; /* of each message's data in buf */
	size_t n;
	struct bt_buf buf;
};

bt_status app_convert_time_parse(const char *s, struct app_convert_time *t)
{
	bool rel = s[0] == '+';
	int64_t ns;
	if (bt_parse_seconds(s + rel, &ns) != BT_OK)
		return BT_ERR_USAGE;
	*t = (struct app_convert_time){true, rel, ns};
	return BT_OK;
}

/* The time t means in a bag starting at `first` (BAG_TIME_NONE: empty). */
static int64_t convert_time_abs(const struct app_convert_time *t, int64_t first)
{
	if (!t->rel || first == BAG_TIME_NONE)
		return t->ns;
	return first > INT64_MAX - t->ns ? INT64_MAX : first + t->ns;
}

/* The window [*from, *to) of o in bag r; BT_ERR_USAGE when it is empty. */
static bt_status convert_window(const struct app_convert_options *o, const struct bag_reader *r,
				int64_t *from, int64_t *to, struct bt_error *err)
{
	int64_t first = bag_reader_start(r);
	*from = o->start.given ? convert_time_abs(&o->start, first) : INT64_MIN;
	*to = o->end.given ? convert_time_abs(&o->end, first) : INT64_MAX;
	if (o->start.given && o->end.given && *from >= *to)
		return bt_err_set(err, BT_ERR_USAGE, "--end (%lld ns) must be after --start (%lld "
				  "ns)%s", (long long)*to, (long long)*from,
				  first == BAG_TIME_NONE ? "" : " in this bag");
	return BT_OK;
}

/* A bag's topic name as btdds_select takes it: "/x" is a ROS topic (DDS
 * "rt/x"); any other name is a DDS topic recorded as it is. *dds is
 * malloc'ed; *ros is `name` or NULL. */
static void convert_names(const char *name, char **dds, const char **ros)
{
	bool is_ros = name[0] == '/';
	*dds = is_ros ? btdds_names_dds_topic(name) : bt_xstrdup(name);
	*ros = is_ros ? name : NULL;
}

static bool convert_selected(const struct btdds_select *s, const char *name)
{
	if (s == NULL)
		return true;
	char *dds;
	const char *ros;
	convert_names(name, &dds, &ros);
	bool take = btdds_select_match(s, dds, ros);
	free(dds);
	return take;
}

/* Says which --topics names no topic of the bag (a typo copies nothing). */
static void convert_warn_absent(const struct btdds_select *s, const struct bag_reader_topic *t,
				size_t n)
{
	for (size_t i = 0; s && i < btdds_select_explicit_count(s); i++) {
		bool seen = false;
		for (size_t k = 0; !seen && k < n; k++) {
			char *dds;
			const char *ros;
			convert_names(t[k].topic.name, &dds, &ros);
			seen = btdds_select_explicit_matches(s, i, dds, ros);
			free(dds);
		}
		if (!seen)
			bt_log_warn("--topics %s: the bag has no such topic",
				    btdds_select_explicit(s, i));
	}
}

static const struct bag_msgdef *convert_def(const struct bag_msgdef *d, size_t n,
					    const char *type)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].topic_type, type))
			return &d[i];
	return NULL;
}

/* Adds the selected topics of r to w with their definitions; handle[i]
 * is reader topic i's writer handle, or CONVERT_SKIP. */
static bt_status convert_topics(const struct app_convert_options *o, struct bag_reader *r,
				struct bag_writer *w, uint32_t *handle, size_t *n_selected,
				struct bt_error *err)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	struct bag_msgdef *defs = NULL;
	size_t n_defs = 0;
	bt_status st = bag_msgdefs_read(r, &defs, &n_defs, err);
	*n_selected = 0;
	for (size_t i = 0; st == BT_OK && i < n; i++) {
		handle[i] = CONVERT_SKIP;
		if (!convert_selected(o->select, t[i].topic.name))
			continue;
		const struct bag_msgdef *d = convert_def(defs, n_defs, t[i].topic.type);
		st = bag_writer_add_topic(w, &t[i].topic, d, &handle[i], err);
		(*n_selected)++;
	}
	bag_msgdefs_free(defs, n_defs);
	if (st == BT_OK)
		convert_warn_absent(o->select, t, n);
	return st;
}

static bt_status convert_flush(struct bag_writer *w, struct convert_batch *b,
			       struct bt_error *err)
{
	for (size_t i = 0; i < b->n; i++)
		b->msg[i].data = b->buf.data ? b->buf.data + b->off[i] : ""; /* all empty */
	bt_status st = b->n ? bag_writer_write(w, b->msg, b->n, err) : BT_OK;
	b->n = 0;
	bt_buf_reset(&b->buf);
	return st;
}

static bt_status convert_push(struct bag_writer *w, struct convert_batch *b, uint32_t handle,
			      const struct bag_read_msg *m, struct bt_error *err)
{
	if (b->n == CONVERT_BATCH_MSGS || (b->n && b->buf.len + m->len > CONVERT_BATCH_BYTES)) {
		bt_status st = convert_flush(w, b, err);
		if (st != BT_OK)
			return st;
	}
	b->off[b->n] = b->buf.len;
	if (bt_buf_append(&b->buf, m->data, m->len) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "out of memory copying a message of %zu bytes",
				  m->len);
	b->msg[b->n++] = (struct bag_message){handle, m->timestamp, NULL, m->len,
						m->send_time};
	return BT_OK;
}

/* Every message of r in [from, to) on a selected topic, into w. */
static bt_status convert_copy(struct bag_reader *r, struct bag_writer *w,
			      const uint32_t *handle, int64_t from, int64_t to,
			      uint64_t *copied, struct bt_error *err)
{
	struct convert_batch *b = bt_xcalloc(1, sizeof *b);
	struct bag_read_msg m;
	bt_status st = BT_OK;
	int rc;
	while (st == BT_OK && (rc = bag_reader_next(r, &m, err)) != 0) {
		if (rc < 0) {
			st = err->code != BT_OK ? err->code : BT_ERR_FORMAT;
			break;
		}
		if (handle[m.topic] == CONVERT_SKIP || m.timestamp < from || m.timestamp >= to)
			continue;
		st = convert_push(w, b, handle[m.topic], &m, err);
		(*copied)++;
	}
	if (st == BT_OK)
		st = convert_flush(w, b, err);
	bt_buf_fini(&b->buf);
	free(b);
	return st;
}

/* Topics and messages of r into the open writer w; *res filled. */
static bt_status convert_into(const struct app_convert_options *o, struct bag_reader *r,
			      struct bag_writer *w, int64_t from, int64_t to,
			      struct app_convert_result *res, struct bt_error *err)
{
	size_t n;
	(void)bag_reader_topics(r, &n);
	uint32_t *handle = bt_xcalloc(n ? n : 1, sizeof *handle);
	bt_status st = convert_topics(o, r, w, handle, &res->topics, err);
	if (st == BT_OK)
		st = convert_copy(r, w, handle, from, to, &res->messages, err);
	free(handle);
	if (st == BT_OK) {
		struct bag_writer_stats ws;
		bag_writer_get_stats(w, &ws);
		if (ws.dropped_toobig)
			st = bt_err_set(err, BT_ERR_TOOBIG, "%llu messages too large for storage "
					"'%s' were not copied", (unsigned long long)ws.dropped_toobig,
					o->writer->storage_id ? o->writer->storage_id : "sqlite3");
	}
	res->files = bag_writer_file_count(w);
	return st;
}

bt_status app_convert(const struct app_convert_options *o, struct app_convert_result *res,
		      struct bt_error *err)
{
	memset(res, 0, sizeof *res);
	/* Before the input is read (a FILE-compressed bag is inflated first). */
	if (bt_fs_exists(o->writer->uri))
		return bt_err_set(err, BT_ERR_EXISTS, "%s already exists; convert never overwrites "
				  "(name a new directory)", o->writer->uri);
	struct bag_reader *r;
	bt_status st = bag_reader_open(o->in, 0, &r, err);
	if (st != BT_OK)
		return st;
	int64_t from, to;
	struct bag_writer *w = NULL;
	st = convert_window(o, r, &from, &to, err);
	if (st == BT_OK)
		st = bag_writer_open(o->writer, &w, err);
	if (st == BT_OK) {
		st = convert_into(o, r, w, from, to, res, err);
		struct bt_error cerr;
		bt_status cst = bag_writer_close(w, &cerr);
		if (st == BT_OK && cst != BT_OK) {
			st = cst;
			*err = cerr;
		}
		if (st != BT_OK)
			(void)bt_err_prefix(err, "%s is incomplete: ", o->writer->uri);
	}
	bag_reader_close(r);
	return st;
}
