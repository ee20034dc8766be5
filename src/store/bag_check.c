/* bag_check: every comparison between what metadata.yaml says and what the
 * storage files hold, each mismatch reported as one line. Recording
 * statistics, when present, are checked too: messages and bytes against
 * the data, rates against the durations, totals against the sums over
 * files, causes against the loss totals. Loss figures themselves cannot be
 * checked against anything. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_metadata.h"
#include "bag_storage.h"
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
	/* files[].path keeps the plain name after FILE compression. */
	const char *z = BAG_STORAGE_FILE_COMPRESSED;
	bool same = !strcmp(a, b) ||
		    (lb == la + strlen(z) && !strncmp(a, b, la) && !strcmp(b + la, z));
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
		bc_cmp_i64(c, what, fi->duration, f->message_count ? bag_span(f->start, f->end) : 0);
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

/* A key twice in one mapping: bagtop reads the first, rosbag2 refuses the
 * file. */
static void bc_duplicate_keys(struct bc *c, const struct bag_reader *r)
{
	char *key;
	size_t line;
	struct bt_error err;
	if (bag_metadata_duplicate_key(bag_reader_dir(r), &key, &line, &err) != BT_OK) {
		bc_problem(c, "%s", err.msg);
		return;
	}
	if (key)
		bc_problem(c, "metadata.yaml line %zu: key '%s' appears twice in the same mapping "
			   "(invalid YAML: rosbag2 refuses the file)", line, key);
	free(key);
}

static void bc_metadata(struct bc *c, const struct bag_reader *r, const struct bag_metadata *md)
{
	bc_duplicate_keys(c, r);
	/* The backend that read the files says what the bag's storage is. */
	const struct bag_reader_file *f0 = bag_reader_file(r, 0);
	const char *id = (f0 && f0->storage ? f0->storage : bag_storage_default())->identifier;
	if (strcmp(md->storage_identifier, id) != 0)
		bc_problem(c, "storage_identifier is '%s', not %s", md->storage_identifier, id);
	uint64_t count = bag_reader_message_count(r);
	bc_cmp_u64(c, "message count", md->message_count, count);
	bc_cmp_i64(c, "starting time", md->starting_time, count ? bag_reader_start(r) : BAG_TIME_NONE);
	bc_cmp_i64(c, "duration", md->duration,
		   count ? bag_span(bag_reader_start(r), bag_reader_end(r)) : 0);
	bc_topics(c, r, md);
	bc_files_entries(c, r, md);
	bc_compression(c, r, md);
	bc_unlisted(c, r);
}

/* ---- recording statistics (bagtop's additional keys) ---- */

/* Bytes read back per (file, topic): bytes[file * n_topics + topic]. */
struct bc_bytes {
	uint64_t *bytes;
	size_t n_topics;
	bool complete; /* every message was read */
};

/* Reader topic `name`; topic `guess` is tried first (metadata lists the
 * topics in the order the files do, and a bag may have thousands). */
static size_t bc_topic_index(const struct bag_reader *r, const char *name, size_t guess)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	if (guess < n && !strcmp(t[guess].topic.name, name))
		return guess;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].topic.name, name))
			return i;
	return SIZE_MAX;
}

/* Rates are written with 6 decimals. */
static void bc_cmp_rate(struct bc *c, const char *what, double md, double want)
{
	double d = md > want ? md - want : want - md;
	if (d > 1e-6 + 1e-9 * want)
		bc_problem(c, "%s: average_rate_hz is %.6f, messages / duration gives %.6f", what, md,
			   want);
}

static void bc_stats_data(struct bc *c, const char *what, const struct bag_stats *st,
			  uint64_t count, uint64_t bytes, const struct bc_bytes *b)
{
	char w[600];
	snprintf(w, sizeof w, "%s: messages_recorded", what);
	bc_cmp_u64(c, w, st->messages_recorded, count);
	snprintf(w, sizeof w, "%s: bytes_written", what);
	if (b->complete)
		bc_cmp_u64(c, w, st->bytes_written, bytes);
}

static void bc_file_stats(struct bc *c, const struct bag_reader *r, const struct bag_metadata *md,
			  size_t i, const struct bc_bytes *b)
{
	const struct bag_file_info *fi = &md->files[i];
	const struct bag_reader_file *f = bag_reader_file(r, i);
	size_t nt;
	const struct bag_reader_topic *topics = bag_reader_topics(r, &nt);
	/* Per reader topic: messages in this file, and whether it is listed. */
	uint64_t *count = bt_xcalloc(nt + 1, sizeof *count);
	bool *listed = bt_xcalloc(nt + 1, sizeof *listed);
	for (size_t k = 0; k < f->n_topics; k++)
		count[f->topics[k].topic] += f->topics[k].count;
	size_t t = 0;
	for (size_t k = 0; k < fi->n_topics_stats; k++) {
		const struct bag_file_topic_stats *e = &fi->topics_stats[k];
		t = bc_topic_index(r, e->topic, t == SIZE_MAX ? 0 : t + 1);
		char what[512];
		snprintf(what, sizeof what, "%s: statistics of topic %s", f->name, e->topic);
		bc_stats_data(c, what, &e->stats, t == SIZE_MAX ? 0 : count[t],
			      t == SIZE_MAX ? 0 : b->bytes[i * b->n_topics + t], b);
		bc_cmp_rate(c, what, e->stats.average_rate_hz,
			    bag_stats_rate(e->stats.messages_recorded, fi->duration));
		if (t != SIZE_MAX)
			listed[t] = true;
	}
	for (size_t k = 0; k < nt; k++)
		if (!listed[k] && count[k])
			bc_problem(c, "%s: topic %s has messages but no topics_statistics entry",
				   f->name, topics[k].topic.name);
	free(listed);
	free(count);
}

static void bc_causes(struct bc *c, const char *name, const struct bag_stats *st)
{
	if (!st->losses_known || !st->has_causes)
		return;
	if (bag_losses_transport(&st->causes) != st->lost_in_transport ||
	    bag_losses_recorder(&st->causes) != st->lost_in_recorder)
		bc_problem(c, "topic %s: lost_by_cause does not add up to lost_in_transport %"
			   PRIu64 " and lost_in_recorder %" PRIu64, name, st->lost_in_transport,
			   st->lost_in_recorder);
}

/* A topic's loss totals against the sums over its files' entries. */
static void bc_topic_sums(struct bc *c, const char *name, const struct bag_stats *st,
			  const struct bag_stats *sum)
{
	if (sum->losses_known != st->losses_known)
		bc_problem(c, "topic %s: losses are %s in the totals but %s in the files", name,
			   st->losses_known ? "known" : "unknown",
			   sum->losses_known ? "known" : "unknown");
	else if (sum->lost_in_transport != st->lost_in_transport ||
		 sum->lost_in_recorder != st->lost_in_recorder)
		bc_problem(c, "topic %s: losses %" PRIu64 " + %" PRIu64 " are not the sums over "
			   "files, %" PRIu64 " + %" PRIu64, name, st->lost_in_transport,
			   st->lost_in_recorder, sum->lost_in_transport, sum->lost_in_recorder);
}

/* Topic totals against the data, and against the sums of the files'
 * entries (which bag_metadata_sum_stats computes the way the writer does). */
static void bc_topic_stats(struct bc *c, const struct bag_reader *r,
			   const struct bag_metadata *md, const struct bag_metadata *sum,
			   const struct bc_bytes *b)
{
	for (size_t i = 0; i < md->n_topics; i++) {
		const struct bag_topic_info *ti = &md->topics[i];
		if (!ti->has_stats)
			continue;
		const char *name = ti->topic.name;
		size_t t = bc_topic_index(r, name, i), nt;
		uint64_t count = t == SIZE_MAX ? 0 : bag_reader_topics(r, &nt)[t].count, bytes = 0;
		for (size_t f = 0; t != SIZE_MAX && f < bag_reader_n_files(r); f++)
			bytes += b->bytes[f * b->n_topics + t];
		char what[512];
		snprintf(what, sizeof what, "statistics of topic %s", name);
		bc_stats_data(c, what, &ti->stats, count, bytes, b);
		bc_cmp_rate(c, what, ti->stats.average_rate_hz,
			    bag_stats_rate(ti->stats.messages_recorded, md->duration));
		bc_causes(c, name, &ti->stats);
		if (sum)
			bc_topic_sums(c, name, &ti->stats, &sum->topics[i].stats);
	}
}

static void bc_stats(struct bc *c, const struct bag_reader *r, const struct bag_metadata *md,
		     const struct bc_bytes *b)
{
	if (!bag_metadata_has_stats(md))
		return;
	bool files_ok = md->n_files == bag_reader_n_files(r);
	bool all_files = files_ok;
	for (size_t i = 0; files_ok && i < md->n_files; i++) {
		if (md->files[i].has_stats)
			bc_file_stats(c, r, md, i, b);
		else
			all_files = false;
	}
	struct bag_metadata sum;
	if (all_files) {
		bag_metadata_copy(&sum, md);
		bag_metadata_sum_stats(&sum);
	}
	bc_topic_stats(c, r, md, all_files ? &sum : NULL, b);
	if (all_files)
		bag_metadata_fini(&sum);
}

/* Reads every message back (decompressing MESSAGE-mode frames) and checks
 * that the per-topic counts the summary gave are what is really there;
 * sums their bytes per file and topic for the statistics. */
static void bc_messages(struct bc *c, struct bag_reader *r, struct bc_bytes *b)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	uint64_t *seen = bt_xcalloc(n ? n : 1, sizeof *seen);
	size_t nf = bag_reader_n_files(r);
	b->n_topics = n;
	b->bytes = bt_xcalloc(n * nf + 1, sizeof *b->bytes);
	struct bag_read_msg m;
	struct bt_error err;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		seen[m.topic]++;
		if (m.topic < n)
			b->bytes[m.file * n + m.topic] += m.len;
	}
	b->complete = rc == 0;
	if (rc < 0)
		bc_problem(c, "reading messages: %s", err.msg);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (seen[i] != t[i].count)
			bc_problem(c, "topic %s: %" PRIu64 " messages read, %" PRIu64 " counted",
				   t[i].topic.name, seen[i], t[i].count);
	free(seen);
}

/* A bag directory without metadata.yaml whose files do not open: what a
 * recording leaves when it stopped (disk full, killed) before its first
 * file was complete. reindex sets such a file aside. */
static void bc_open_failed(struct bc *c, const char *path, const struct bt_error *err)
{
	char *md = bt_fs_join(path, BAG_METADATA_FILE);
	char *foreign = bt_fs_is_dir(path) ? bag_reader_foreign_file(path) : NULL;
	/* Files of a storage no backend reads are no interrupted recording. */
	bool no_md = bt_fs_is_dir(path) && !bt_fs_exists(md) && !foreign;
	free(foreign);
	free(md);
	if (no_md)
		bc_problem(c, "no metadata.yaml, and %s: the recording stopped before its first "
			   "file was complete; run 'bagtop reindex %s'", err->msg, path);
	else
		bc_problem(c, "%s", err->msg);
}

size_t bag_check(const char *path, bag_check_report report, void *ctx)
{
	struct bc c = {report, ctx, 0};
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(path, BAG_READER_INTEGRITY | BAG_READER_INTEROP, &r, &err) != BT_OK) {
		bc_open_failed(&c, path, &err);
		return c.problems;
	}
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		if (f->orphans)
			bc_problem(&c, "%s: %" PRIu64 " messages name a topic id with no topic", f->name,
				   f->orphans);
		if (f->interop)
			bc_problem(&c, "%s", f->interop);
	}
	const struct bag_metadata *md = bag_reader_metadata(r);
	if (md)
		bc_metadata(&c, r, md);
	else if (bt_fs_is_dir(path))
		bc_problem(&c, "no metadata.yaml (run 'bagtop reindex %s')", path);
	struct bc_bytes b;
	bc_messages(&c, r, &b);
	if (md)
		bc_stats(&c, r, md, &b);
	free(b.bytes);
	bag_reader_close(r);
	return c.problems;
}
