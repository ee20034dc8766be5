/* bag_check: every comparison between what metadata.yaml says and what the
 * storage files hold, each mismatch reported as one line. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_metadata.h"
#include "bag_tools.h"
#include "bt_fs.h"
#include "bt_mem.h"

struct bc {
	bag_check_report report;
	void *ctx;
	size_t problems;
};

static void bc_problem(struct bc *c, const char *fmt, ...) BT_PRINTF(2, 3);

static void bc_problem(struct bc *c, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	c->problems++;
	if (c->report)
		c->report(c->ctx, line);
}

static void bc_cmp_u64(struct bc *c, const char *what, uint64_t md, uint64_t data)
{
	if (md != data)
		bc_problem(c, "%s: metadata.yaml says %" PRIu64 ", the files hold %" PRIu64, what, md,
			   data);
}

static void bc_cmp_i64(struct bc *c, const char *what, int64_t md, int64_t data)
{
	if (md != data)
		bc_problem(c, "%s: metadata.yaml says %" PRId64 ", the files hold %" PRId64, what, md,
			   data);
}

static bool bc_same_file(const char *listed, const char *path)
{
	char *a = bt_fs_basename(listed), *b = bt_fs_basename(path);
	size_t la = strlen(a), lb = strlen(b);
	/* files[].path keeps the .db3 name after FILE compression. */
	bool same = !strcmp(a, b) || (lb == la + 5 && !strncmp(a, b, la) && !strcmp(b + la, ".zstd"));
	free(a);
	free(b);
	return same;
}

static void bc_files_entries(struct bc *c, const struct bag_reader *r,
			     const struct bag_metadata *md)
{
	size_t n = bag_reader_n_files(r);
	if (!md->n_files)
		return; /* optional (version < 5, or written by rosbag2's reindex) */
	if (md->n_files != n) {
		bc_problem(c, "metadata.yaml has %zu 'files' entries for %zu storage files",
			   md->n_files, n);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct bag_file_info *fi = &md->files[i];
		const struct bag_reader_file *f = bag_reader_file(r, i);
		char what[512];
		if (!bc_same_file(fi->path, f->path))
			bc_problem(c, "files[%zu].path is '%s' but storage file %zu is '%s'", i,
				   fi->path, i, f->name);
		snprintf(what, sizeof what, "%s: message count", f->name);
		bc_cmp_u64(c, what, fi->message_count, f->message_count);
		snprintf(what, sizeof what, "%s: starting time", f->name);
		bc_cmp_i64(c, what, fi->starting_time, f->message_count ? f->start : BAG_TIME_NONE);
		snprintf(what, sizeof what, "%s: duration", f->name);
		bc_cmp_i64(c, what, fi->duration, f->message_count ? f->end - f->start : 0);
	}
}

static const struct bag_topic_info *bc_md_topic(const struct bag_metadata *md, const char *name)
{
	for (size_t i = 0; i < md->n_topics; i++)
		if (!strcmp(md->topics[i].topic.name, name))
			return &md->topics[i];
	return NULL;
}

static void bc_topics(struct bc *c, const struct bag_reader *r, const struct bag_metadata *md)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	for (size_t i = 0; i < n; i++) {
		const struct bag_topic_info *mt = bc_md_topic(md, t[i].topic.name);
		char what[512];
		if (!mt) {
			bc_problem(c, "topic %s (%" PRIu64 " messages) is missing from metadata.yaml",
				   t[i].topic.name, t[i].count);
			continue;
		}
		snprintf(what, sizeof what, "topic %s: message count", t[i].topic.name);
		bc_cmp_u64(c, what, mt->message_count, t[i].count);
		if (strcmp(mt->topic.type, t[i].topic.type) != 0)
			bc_problem(c, "topic %s: metadata.yaml says type %s, the files say %s",
				   t[i].topic.name, mt->topic.type, t[i].topic.type);
	}
	for (size_t i = 0; i < md->n_topics; i++) {
		bool found = false;
		for (size_t k = 0; k < n && !found; k++)
			found = !strcmp(t[k].topic.name, md->topics[i].topic.name);
		if (!found)
			bc_problem(c, "topic %s is in metadata.yaml but in no storage file",
				   md->topics[i].topic.name);
	}
}

static void bc_compression(struct bc *c, const struct bag_reader *r,
			   const struct bag_metadata *md)
{
	const char *data = bag_reader_compression(r);
	if (strcmp(md->compression_mode, data) != 0)
		bc_problem(c, "compression mode: metadata.yaml says '%s', the files are '%s'",
			   md->compression_mode, data);
	bool want_zstd = md->compression_mode[0] != '\0';
	if (want_zstd != (strcmp(md->compression_format, "zstd") == 0))
		bc_problem(c, "compression format '%s' does not fit compression mode '%s'",
			   md->compression_format, md->compression_mode);
	bool file_mode = !strcmp(md->compression_mode, "FILE");
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		if (f->compressed != file_mode)
			bc_problem(c, "%s is %scompressed but the bag's compression mode is '%s'",
				   f->name, f->compressed ? "" : "not ", md->compression_mode);
	}
}

/* Storage files on disk that metadata.yaml does not list. */
static void bc_unlisted(struct bc *c, const struct bag_reader *r)
{
	char **names;
	size_t n;
	if (bt_fs_list_dir(bag_reader_dir(r), &names, &n, NULL) != BT_OK)
		return;
	for (size_t i = 0; i < n; i++) {
		bool storage = bag_reader_is_storage_name(names[i]);
		bool listed = false;
		for (size_t k = 0; storage && !listed && k < bag_reader_n_files(r); k++) {
			char *b = bt_fs_basename(bag_reader_file(r, k)->path);
			listed = !strcmp(b, names[i]);
			free(b);
		}
		if (storage && !listed)
			bc_problem(c, "storage file %s is not listed in metadata.yaml", names[i]);
	}
	bt_fs_free_list(names, n);
}

static void bc_metadata(struct bc *c, const struct bag_reader *r, const struct bag_metadata *md)
{
	if (strcmp(md->storage_identifier, "sqlite3") != 0)
		bc_problem(c, "storage_identifier is '%s', not sqlite3", md->storage_identifier);
	uint64_t count = bag_reader_message_count(r);
	bc_cmp_u64(c, "message count", md->message_count, count);
	bc_cmp_i64(c, "starting time", md->starting_time, count ? bag_reader_start(r) : BAG_TIME_NONE);
	bc_cmp_i64(c, "duration", md->duration, count ? bag_reader_end(r) - bag_reader_start(r) : 0);
	bc_topics(c, r, md);
	bc_files_entries(c, r, md);
	bc_compression(c, r, md);
	bc_unlisted(c, r);
}

/* Reads every message back (decompressing MESSAGE-mode frames) and checks
 * that the per-topic counts the summary gave are what is really there. */
static void bc_messages(struct bc *c, struct bag_reader *r)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	uint64_t *seen = bt_xcalloc(n ? n : 1, sizeof *seen);
	struct bag_read_msg m;
	struct bt_error err;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1)
		seen[m.topic]++;
	if (rc < 0)
		bc_problem(c, "reading messages: %s", err.msg);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (seen[i] != t[i].count)
			bc_problem(c, "topic %s: %" PRIu64 " messages read, %" PRIu64 " counted",
				   t[i].topic.name, seen[i], t[i].count);
	free(seen);
}

size_t bag_check(const char *path, bag_check_report report, void *ctx)
{
	struct bc c = {report, ctx, 0};
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(path, BAG_READER_INTEGRITY, &r, &err) != BT_OK) {
		bc_problem(&c, "%s", err.msg);
		return c.problems;
	}
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		if (f->orphans)
			bc_problem(&c, "%s: %" PRIu64 " messages name a topic id with no topic", f->name,
				   f->orphans);
	}
	const struct bag_metadata *md = bag_reader_metadata(r);
	if (md)
		bc_metadata(&c, r, md);
	else if (bt_fs_is_dir(path))
		bc_problem(&c, "no metadata.yaml (run 'bagtop reindex %s')", path);
	bc_messages(&c, r);
	bag_reader_close(r);
	return c.problems;
}
