/* DESIGN: the writer keeps, per storage file, the committed message count,
 * time range and per-topic tallies (messages, bytes, losses); metadata
 * (yaml and embedded rows) is always rebuilt from those, so a rotated-out
 * file simply stops counting, and the statistics of the topic totals are
 * by construction the sums over the files listed.
 * Counts of the open transaction are kept apart ("pending") and folded in
 * only after COMMIT succeeded, so metadata never claims a message that a
 * failed commit rolled back. FILE-mode completions are polled on the
 * writer's thread, which alone writes metadata.yaml. */
#include "bag_writer.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bt_fmt.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "bt_str.h"
#include "bag_storage.h"
#include "store__fcomp.h"
#include "store__storage.h"
#include "store__zpool.h"
#include "store__zstd.h"

/* One topic's figures, in a file or since open. */
struct bw_tally {
	uint64_t recorded;
	uint64_t bytes;
	struct bag_losses lost;
};

struct bw_topic {
	struct bag_topic t;
	size_t type_index;
	int64_t db_id; /* row id in the current file */
	uint64_t dropped;
	struct bw_tally total; /* since open, rotated-out files included */
};

struct bw_file {
	size_t seq;     /* unique in the bag */
	char *name;     /* "<bag>_<N><extension>", or a split_named one */
	size_t n;       /* the N of its name; SIZE_MAX: split_named */
	char *rel_path; /* name, or name + ".zstd" once compressed */
	int64_t start;  /* BAG_TIME_NONE when empty */
	int64_t end;
	uint64_t count;
	/* Indexed by topic handle; the first n_topics (the topics known while
	 * the file was the current one) are the file's topics. */
	struct bw_tally *tally;
	size_t cap_tally, n_topics;
	bool compressing; /* queued for FILE compression */
	/* on_file_closed: BW_OPEN, then BW_DONE (or BW_FAILED) once closed
	 * (and compressed), said at the next metadata.yaml write: BW_SAID. */
	unsigned char closed;
	uint64_t repeated; /* messages written by on_split at its start */
};

struct bw_pending {
	uint64_t count;
	uint64_t bytes;
	int64_t start, end;
	struct bw_tally *tally; /* recorded and bytes only */
	size_t cap;
};

struct bag_writer {
	char *dir, *base, *ros_distro;
	enum bag_compat compat;
	bool write_behind;
	bool split_on_late_definition;
	bool def_split; /* a definition the current file missed: split at the next message */
	struct bag_kv *custom;
	size_t n_custom;
	const struct bag_storage_ops *ops; /* the storage backend */
	char *preset;                      /* the backend's preset; NULL = default */
	struct bag_kv *config;             /* backend settings (journal_mode...) */
	size_t n_config;
	struct bag_kv *def_sources; /* message_definition_sources */
	size_t n_def_sources;
	uint64_t max_size, max_files;
	int64_t max_duration;
	enum bag_compression compression;
	struct bw_topic *topics;
	size_t n_topics, cap_topics;
	struct bag_msgdef *types; /* one definition per type, in first-seen order */
	size_t n_types, cap_types;
	/* The files that exist: those --max-bag-files deleted leave the array
	 * (their figures leave the bag's totals with them), so memory and
	 * the metadata rebuilt at each split do not grow with the splits. */
	struct bw_file *files;
	size_t n_files, cap_files;
	size_t next_seq; /* seq of the next file */
	size_t next_n;   /* N of the next <bag>_<N> name */
	/* Deleted while still being compressed: deleted when that ends. */
	struct bw_doomed {
		size_t seq;
		char *name;
	} *doomed;
	size_t n_doomed, cap_doomed;
	struct bag_storage *store; /* open file: files[n_files - 1] */
	bool in_txn;
	/* Split-size check: the file size last read, and how much it may have
	 * grown since (UINT64_MAX: unknown, read it). */
	uint64_t size_seen, size_slack;
	/* The open file's fixed part: what its topics, definitions and
	 * metadata row added to the empty schema before any message, plus
	 * what topics added later grew it by. It does not count towards
	 * max_size; the schema's few pages do, as in rosbag2, so with a few
	 * topics files split where rosbag2's would. */
	uint64_t base_size;
	bool warned_base; /* said once that the fixed part exceeds max_size */
	struct bw_pending pend;
	struct bag_zpool *zpool;
	struct bag_zpool_input *zin;
	size_t cap_zin;
	struct bag_fcomp *fcomp;
	struct bag_writer_stats stats;
	bt_status failed;
	struct bt_error fail_err;
	size_t (*on_split)(void *ctx, int64_t t_last, const struct bag_message **msgs);
	void *on_split_ctx;
	void (*on_file_closed)(void *ctx, const struct bag_file_closed *f);
	void *on_file_closed_ctx;
	bool closing; /* in bag_writer_close */
	bool drop_empty_last; /* bag_writer_options.drop_empty_last */
	struct bt_buf zrepeat; /* a repeated message compressed (MESSAGE mode) */
	const atomic_bool *cancel; /* bag_writer_set_cancel; NULL: never */
	size_t fcomp_cancelled;    /* FILE compressions it cancelled */
	/* The result of the write in progress (NULL outside one, or when
	 * not wanted) and its messages inserted in the open transaction,
	 * [res_lo, res_hi) of msgs, BAG_MSG_PENDING until the commit. */
	struct bag_write_result *res;
	const struct bag_message *res_msgs;
	size_t res_lo, res_hi;
	uint32_t test_write_delay_us;
	uint32_t test_close_stall_us;
};

/* ---- metadata ---- */

static void bw_stats_from_tally(struct bag_stats *st, const struct bw_tally *t)
{
	memset(st, 0, sizeof *st);
	st->messages_recorded = t->recorded;
	st->bytes_written = t->bytes;
	st->losses_known = st->has_causes = true;
	st->lost_in_transport = bag_losses_transport(&t->lost);
	st->lost_in_recorder = bag_losses_recorder(&t->lost);
	st->causes = t->lost;
}

static bool bw_tally_zero(const struct bw_tally *t)
{
	return !t->recorded && !t->bytes && !bag_losses_any(&t->lost);
}

/* Only the topics with something to show: a topic a file's entry leaves out
 * recorded and lost nothing there. metadata.yaml grows by an entry per
 * (file, active topic). */
static void bw_add_file_stats(const struct bag_writer *w, const struct bw_file *f,
			      struct bag_file_info *fi)
{
	fi->has_stats = true;
	fi->topics_stats = f->n_topics ? bt_xcalloc(f->n_topics, sizeof *fi->topics_stats) : NULL;
	for (size_t t = 0; t < f->n_topics; t++) {
		if (bw_tally_zero(&f->tally[t]))
			continue;
		struct bag_file_topic_stats *e = &fi->topics_stats[fi->n_topics_stats++];
		e->topic = bt_xstrdup(w->topics[t].t.name);
		bw_stats_from_tally(&e->stats, &f->tally[t]);
	}
}

static void bw_add_file_md(const struct bag_writer *w, const struct bw_file *f, bool final,
			   struct bag_metadata *md)
{
	md->relative_file_paths[md->n_paths++] = bt_xstrdup(f->rel_path);
	struct bag_file_info *fi = &md->files[md->n_files++];
	fi->path = bt_xstrdup(f->name);
	fi->starting_time = f->start;
	fi->duration = f->count ? bag_span(f->start, f->end) : 0;
	fi->message_count = f->count;
	md->message_count += f->count;
	if (f->count && f->start < md->starting_time)
		md->starting_time = f->start;
	if (final)
		bw_add_file_stats(w, f, fi);
}

/* Statistics are written for closed files only (and for the file being
 * closed, `closing`): a file's figures are final once it is closed, and a
 * files entry that has them says so — reindex relies on it after a crash.
 * The topic totals are the sums over those files; at a split the open file
 * is new and holds nothing yet, so they are the bag's totals there too. */
/* The bag's compression mode as its files have it: FILE compression that
 * an abandoned stop cancelled before any kept file was compressed leaves
 * a plain bag, and says so. */
static enum bag_compression bw_compression_kept(const struct bag_writer *w)
{
	if (w->compression != BAG_COMPRESSION_FILE || !w->fcomp_cancelled)
		return w->compression;
	for (size_t i = 0; i < w->n_files; i++)
		if (strcmp(w->files[i].rel_path, w->files[i].name) != 0)
			return w->compression;
	return BAG_COMPRESSION_NONE;
}

static void bw_build_metadata(const struct bag_writer *w, bool closing, struct bag_metadata *md)
{
	bag_metadata_init(md);
	md->version = bag_compat_metadata_version(w->compat);
	free(md->storage_identifier);
	free(md->compression_format);
	free(md->compression_mode);
	free(md->ros_distro);
	md->storage_identifier = bt_xstrdup(w->ops->identifier);
	enum bag_compression mode = bw_compression_kept(w);
	md->compression_format = bt_xstrdup(mode ? "zstd" : "");
	md->compression_mode = bt_xstrdup(bag_compression_name(mode));
	md->ros_distro = bt_xstrdup(w->ros_distro);
	md->relative_file_paths = bt_xcalloc(w->n_files, sizeof(char *));
	md->files = bt_xcalloc(w->n_files, sizeof *md->files);
	md->topics = bt_xcalloc(w->n_topics, sizeof *md->topics);
	int64_t end = INT64_MIN;
	for (size_t i = 0; i < w->n_files; i++) {
		const struct bw_file *f = &w->files[i];
		bool open = i == w->n_files - 1 && w->store && !closing;
		bw_add_file_md(w, f, !open, md);
		if (f->count && f->end > end)
			end = f->end;
		for (size_t t = 0; t < f->n_topics; t++)
			md->topics[t].message_count += f->tally[t].recorded;
	}
	md->duration = md->message_count ? bag_span(md->starting_time, end) : 0;
	for (size_t t = 0; t < w->n_topics; t++)
		bag_topic_copy(&md->topics[t].topic, &w->topics[t].t);
	md->n_topics = w->n_topics;
	md->custom_data = bag_kv_dup(w->custom, w->n_custom);
	md->n_custom_data = w->n_custom;
	md->def_sources = bag_kv_dup(w->def_sources, w->n_def_sources);
	md->n_def_sources = w->n_def_sources;
	bag_metadata_sum_stats(md);
}

enum { BW_ROW = 1, BW_YAML = 2, BW_CLOSING = 4 };

/* Statistics in a file's rows: only in the row written when it is closed
 * (its last), with the topic totals as of then and its own files entry's
 * topics_statistics — that file's final figures, what reindex needs — not
 * the other files' (those are in their own files' rows): with every
 * file's, a row would grow with files x topics, and a file of the minimum
 * split size could be filled by metadata rows alone. The row written at
 * open stays as rosbag2 writes it (the file holds nothing yet), so a new
 * file is no larger than before. */
static bt_status bw_insert_row(struct bag_writer *w, struct bag_metadata *md, bool closing,
			       struct bt_error *err)
{
	const char *own = w->files[w->n_files - 1].name;
	bool *had = bt_xcalloc(md->n_files + md->n_topics + 1, sizeof *had);
	for (size_t i = 0; i < md->n_files; i++) {
		had[i] = md->files[i].has_stats;
		md->files[i].has_stats = closing && had[i] && !strcmp(md->files[i].path, own);
	}
	for (size_t t = 0; t < md->n_topics; t++) {
		had[md->n_files + t] = md->topics[t].has_stats;
		md->topics[t].has_stats = closing && md->topics[t].has_stats;
	}
	bt_status st = w->store->ops->write_metadata(w->store, md, err);
	for (size_t i = 0; i < md->n_files; i++)
		md->files[i].has_stats = had[i];
	for (size_t t = 0; t < md->n_topics; t++)
		md->topics[t].has_stats = had[md->n_files + t];
	free(had);
	return st;
}

enum { BW_OPEN, BW_DONE, BW_FAILED, BW_SAID };

/* Tells on_file_closed of the files finished since the last call, once
 * metadata.yaml names them as they are. */
static void bw_say_closed(struct bag_writer *w)
{
	for (size_t i = 0; w->on_file_closed != NULL && i < w->n_files; i++) {
		struct bw_file *f = &w->files[i];
		if (f->closed != BW_DONE && f->closed != BW_FAILED)
			continue;
		char *path = bt_fs_join(w->dir, f->rel_path);
		bool final = w->closing && i == w->n_files - 1;
		char *next = i + 1 < w->n_files ? bt_fs_join(w->dir, w->files[i + 1].name) : NULL;
		struct bag_file_closed c = {.path = path, .seq = f->seq, .messages = f->count,
					    .final = final, .opened = final ? NULL : next,
					    .ok = f->closed == BW_DONE};
		f->closed = BW_SAID;
		w->on_file_closed(w->on_file_closed_ctx, &c);
		free(next);
		free(path);
	}
}

/* Writes the current metadata as a row of the open file (BW_ROW) and/or as
 * metadata.yaml (BW_YAML), built once for both; BW_CLOSING when the open
 * file is being closed. */
static bt_status bw_publish(struct bag_writer *w, unsigned what, struct bt_error *err)
{
	struct bag_metadata md;
	bw_build_metadata(w, (what & BW_CLOSING) != 0, &md);
	bt_status st = BT_OK;
	if (what & BW_ROW)
		st = bw_insert_row(w, &md, (what & BW_CLOSING) != 0, err);
	if (st == BT_OK && (what & BW_YAML))
		st = bag_metadata_write(w->dir, &md, err);
	bag_metadata_fini(&md);
	if (what & BW_YAML)
		bw_say_closed(w);
	return st;
}

/* ---- failure ---- */

/* A full disk stops the recording with metadata.yaml as of the last split
 * (or none at all, if the first file never completed): the error says how
 * to make the bag whole again. */
static void bw_full_hint(const struct bag_writer *w, struct bt_error *err)
{
	struct bt_error was = *err;
	if (!w->stats.messages && w->n_files <= 1)
		bt_err_set(err, was.code, "%s; the recording stopped before its first file was "
			   "complete (no usable metadata.yaml): once there is room, run 'bagtop "
			   "reindex %s', or remove it", was.msg, w->dir);
	else
		bt_err_set(err, was.code, "%s; metadata.yaml does not count the file being "
			   "written: once there is room, run 'bagtop reindex %s'", was.msg, w->dir);
}

static bt_status bw_fail(struct bag_writer *w, bt_status st, struct bt_error *err)
{
	if (w->in_txn && w->store)
		w->store->ops->batch_abort(w->store);
	w->in_txn = false;
	if (!w->failed && st == BT_ERR_FULL && err)
		bw_full_hint(w, err);
	if (!w->failed) {
		w->failed = st;
		if (err)
			w->fail_err = *err;
		else
			bt_err_set(&w->fail_err, st, "%s", bt_status_str(st));
	}
	return st;
}

static bt_status bw_refuse(struct bag_writer *w, struct bt_error *err)
{
	if (err)
		*err = w->fail_err;
	return w->failed;
}

/* ---- files ---- */

static void bw_tally_grow(struct bw_tally **tally, size_t *cap, size_t need)
{
	bt_xgrow((void **)tally, cap, need, sizeof **tally);
}

/* Every topic into a new file, each type's definition with the first
 * topic of that type. */
static bt_status bw_create_topic_rows(struct bag_writer *w, struct bt_error *err)
{
	bool *done = bt_xcalloc(w->n_types + 1, sizeof *done);
	bt_status st = BT_OK;
	for (size_t i = 0; st == BT_OK && i < w->n_topics; i++) {
		size_t ti = w->topics[i].type_index;
		st = w->store->ops->create_topic(w->store, &w->topics[i].t,
						 done[ti] ? NULL : &w->types[ti],
						 &w->topics[i].db_id, err);
		done[ti] = true;
	}
	free(done);
	return st;
}

static void bw_storage_options(const struct bag_writer *w, struct bag_storage_options *o)
{
	*o = (struct bag_storage_options){.ros_distro = w->ros_distro,
					  .compat = w->compat,
					  .max_file_size = w->max_size,
					  .preset = w->preset,
					  .config = w->config,
					  .n_config = w->n_config,
					  .write_behind = w->write_behind};
}

static void bw_remove_outputs(struct bag_writer *w, const char *name);

/* Says once when the topics alone need more than max_size per file: each
 * file then holds up to max_size of messages beyond its fixed part. */
static void bw_check_base(struct bag_writer *w)
{
	if (!w->max_size || w->warned_base || w->base_size < w->max_size)
		return;
	w->warned_base = true;
	char need[32], lim[32];
	bt_fmt_iec(w->base_size, need, sizeof need);
	bt_fmt_iec(w->max_size, lim, sizeof lim);
	bt_log_warn("each file's topics, definitions and metadata (%s for %zu topics) alone exceed "
		    "--max-bag-size %s: that part does not count, a file splits once its messages "
		    "reach %s", need, w->n_topics, lim, lim);
}

/* Is `name` taken: a file of the bag, or in its directory as it is, compressed
 * or with a side file of the storage's? */
static bool bw_name_taken(const struct bag_writer *w, const char *name)
{
	for (size_t i = 0; i < w->n_files; i++)
		if (strcmp(w->files[i].name, name) == 0)
			return true;
	static const char *const ours[] = {"", BAG_STORAGE_FILE_COMPRESSED, NULL};
	const char *const *lists[] = {ours, w->ops->side_suffixes};
	for (size_t l = 0; l < 2; l++) {
		for (const char *const *sfx = lists[l]; sfx != NULL && *sfx; sfx++) {
			char *p = bt_xasprintf("%s/%s%s", w->dir, name, *sfx);
			bool there = bt_fs_exists(p);
			free(p);
			if (there)
				return true;
		}
	}
	return false;
}

/* The next file's name, never one taken: "<stem><ext>", else the first
 * free "<stem>_2<ext>", "<stem>_3<ext>", …; without a stem "<bag>_<N><ext>"
 * for the first free N from next_n (a named file may hold one), *n = N
 * (SIZE_MAX with a stem). */
static char *bw_next_name(struct bag_writer *w, const char *stem, size_t *n)
{
	const char *ext = w->ops->extension;
	size_t k = stem == NULL ? w->next_n : 1;
	for (;; k++) {
		char *name = stem == NULL ? bt_xasprintf("%s_%zu%s", w->base, k, ext)
			     : k == 1	  ? bt_xasprintf("%s%s", stem, ext)
					  : bt_xasprintf("%s_%zu%s", stem, k, ext);
		if (!bw_name_taken(w, name)) {
			*n = stem == NULL ? k : SIZE_MAX;
			return name;
		}
		free(name);
	}
}

/* Opens the next file: named after stem (NULL: <bag>_<N>). */
static bt_status bw_open_file(struct bag_writer *w, const char *stem, struct bt_error *err)
{
	bt_xgrow((void **)&w->files, &w->cap_files, w->n_files + 1, sizeof *w->files);
	size_t n;
	char *name = bw_next_name(w, stem, &n);
	struct bw_file *f = &w->files[w->n_files];
	memset(f, 0, sizeof *f);
	f->seq = w->next_seq;
	f->name = name;
	f->n = n;
	f->rel_path = bt_xstrdup(f->name);
	f->start = BAG_TIME_NONE;
	f->end = INT64_MIN;
	f->n_topics = w->n_topics;
	bw_tally_grow(&f->tally, &f->cap_tally, w->n_topics);
	char *path = bt_fs_join(w->dir, f->name);
	struct bag_storage_options so;
	bw_storage_options(w, &so);
	bt_status st = bag_storage_create(w->ops, path, &so, &w->store, err);
	free(path);
	if (st != BT_OK) {
		/* A half-created file (disk full) holds nothing; one that
		 * appeared since bw_next_name looked is not ours to delete. */
		if (st != BT_ERR_EXISTS)
			bw_remove_outputs(w, f->name);
		free(f->name);
		free(f->rel_path);
		free(f->tally);
		return st;
	}
	w->n_files++;
	w->next_seq++;
	if (n != SIZE_MAX)
		w->next_n = n + 1;
	w->stats.file_index = f->seq;
	w->size_slack = UINT64_MAX;
	uint64_t empty = 0;
	st = w->store->ops->size(w->store, &empty, err);
	if (st == BT_OK)
		st = bw_create_topic_rows(w, err);
	if (st == BT_OK)
		st = bw_publish(w, BW_ROW | BW_YAML, err);
	if (st == BT_OK)
		st = w->store->ops->size(w->store, &w->base_size, err);
	if (st == BT_OK) {
		w->base_size = w->base_size > empty ? w->base_size - empty : 0;
		bw_check_base(w);
	}
	return st;
}

static void bw_remove_outputs(struct bag_writer *w, const char *name)
{
	static const char *const ours[] = {"", BAG_STORAGE_FILE_COMPRESSED,
					   BAG_STORAGE_FILE_COMPRESSED ".tmp", NULL};
	const char *const *lists[] = {ours, w->ops->side_suffixes};
	for (size_t l = 0; l < 2; l++) {
		for (const char *const *sfx = lists[l]; *sfx; sfx++) {
			char *p = bt_xasprintf("%s/%s%s", w->dir, name, *sfx);
			unlink(p);
			free(p);
		}
	}
}

static void bw_file_fini(struct bw_file *f)
{
	free(f->name);
	free(f->rel_path);
	free(f->tally);
}

/* Deletes the oldest closed files so at most max_files remain, counting the
 * one about to be opened, and forgets them. A file still being compressed
 * is deleted when its compression finishes. */
static void bw_rotate(struct bag_writer *w)
{
	if (!w->max_files)
		return;
	size_t gone = 0;
	while (w->n_files - gone + 1 > w->max_files && gone < w->n_files) {
		struct bw_file *f = &w->files[gone++];
		w->stats.files_removed++;
		bt_log_info("removed %s (--max-bag-files %llu)", f->name,
			    (unsigned long long)w->max_files);
		if (f->compressing) {
			bt_xgrow((void **)&w->doomed, &w->cap_doomed, w->n_doomed + 1,
				 sizeof *w->doomed);
			w->doomed[w->n_doomed++] = (struct bw_doomed){f->seq, f->name};
			f->name = NULL; /* the doomed entry's now */
		} else {
			bw_remove_outputs(w, f->name);
		}
		bw_file_fini(f);
	}
	memmove(w->files, w->files + gone, (w->n_files - gone) * sizeof *w->files);
	w->n_files -= gone;
}

/* The file whose N is `seq`, or NULL if it was deleted. */
static struct bw_file *bw_file_by_seq(struct bag_writer *w, size_t seq)
{
	for (size_t i = 0; i < w->n_files; i++)
		if (w->files[i].seq == seq)
			return &w->files[i];
	return NULL;
}

/* A deleted file whose compression ended: delete its outputs now. */
static void bw_doomed_done(struct bag_writer *w, size_t seq)
{
	for (size_t i = 0; i < w->n_doomed; i++) {
		if (w->doomed[i].seq != seq)
			continue;
		bw_remove_outputs(w, w->doomed[i].name);
		free(w->doomed[i].name);
		w->doomed[i] = w->doomed[--w->n_doomed];
		return;
	}
}

static bt_status bw_close_file(struct bag_writer *w, struct bt_error *err)
{
	struct bw_file *f = &w->files[w->n_files - 1];
	bt_status st = bw_publish(w, BW_ROW | BW_CLOSING, err);
	bt_status st2 = bag_storage_close(w->store, st == BT_OK ? err : NULL);
	w->store = NULL;
	if (st == BT_OK)
		st = st2;
	/* A metadata row that no longer fit (disk full) leaves the committed
	 * messages intact: the file still gets compressed, so the bag stays
	 * consistent with its compression mode. */
	if (st2 == BT_OK && w->fcomp) {
		char *path = bt_fs_join(w->dir, f->name);
		f->compressing = true;
		bag_fcomp_push(w->fcomp, f->seq, path);
		free(path);
	}
	/* A file the writer failed in (disk full) may lack what it was
	 * given last, even when it closed. */
	if (st != BT_OK || w->failed || w->fcomp == NULL)
		f->closed = st == BT_OK && !w->failed ? BW_DONE : BW_FAILED;
	return st;
}

/* Applies finished FILE compressions; returns true if metadata changed. */
static bool bw_poll_fcomp(struct bag_writer *w, bool wait)
{
	struct bag_fcomp_result r;
	bool changed = false;
	while (w->fcomp && bag_fcomp_poll(w->fcomp, wait, &r)) {
		struct bw_file *f = bw_file_by_seq(w, r.file_index);
		if (f == NULL) {
			bw_doomed_done(w, r.file_index);
			continue;
		}
		f->compressing = false;
		if (r.status == BT_ERR_STATE) { /* cancelled: said once at close */
			w->fcomp_cancelled++;
			if (f->closed == BW_OPEN) /* finished as it is, plain */
				f->closed = BW_DONE;
			changed = true;
			continue;
		}
		if (r.status != BT_OK) {
			bt_log_warn("%s stays uncompressed: %s", f->name, r.msg);
			if (f->closed == BW_OPEN)
				f->closed = BW_DONE;
			changed = true;
			continue;
		}
		free(f->rel_path);
		f->rel_path = bt_xasprintf("%s.zstd", f->name);
		if (f->closed == BW_OPEN)
			f->closed = BW_DONE;
		changed = true;
	}
	return changed;
}

/* ---- topics ---- */

static size_t bw_type_index(struct bag_writer *w, const char *type, const struct bag_msgdef *def,
			    bool *added)
{
	*added = false;
	for (size_t i = 0; i < w->n_types; i++)
		if (!strcmp(w->types[i].topic_type, type))
			return i;
	bt_xgrow((void **)&w->types, &w->cap_types, w->n_types + 1, sizeof *w->types);
	struct bag_msgdef empty = {(char *)type, "", "", ""};
	bag_msgdef_copy(&w->types[w->n_types], def ? def : &empty);
	free(w->types[w->n_types].topic_type);
	w->types[w->n_types].topic_type = bt_xstrdup(type);
	*added = true;
	return w->n_types++;
}

bt_status bag_writer_add_topic(struct bag_writer *w, const struct bag_topic *t,
			       const struct bag_msgdef *def, uint32_t *handle, struct bt_error *err)
{
	if (w->failed)
		return bw_refuse(w, err);
	if (!t->name || !t->name[0] || !t->type)
		return bt_err_set(err, BT_ERR_USAGE, "a topic needs a name and a type");
	for (size_t i = 0; i < w->n_topics; i++) {
		if (strcmp(w->topics[i].t.name, t->name) != 0)
			continue;
		if (strcmp(w->topics[i].t.type, t->type) != 0)
			return bt_err_set(err, BT_ERR_EXISTS, "topic %s is already recorded with type "
					  "%s, not %s", t->name, w->topics[i].t.type, t->type);
		*handle = (uint32_t)i;
		return BT_OK;
	}
	bt_xgrow((void **)&w->topics, &w->cap_topics, w->n_topics + 1, sizeof *w->topics);
	struct bw_topic *nt = &w->topics[w->n_topics];
	memset(nt, 0, sizeof *nt);
	bag_topic_copy(&nt->t, t);
	bool new_type;
	nt->type_index = bw_type_index(w, t->type, def, &new_type);
	w->n_topics++;
	w->size_slack = UINT64_MAX;
	/* Sized here so that writing and adding losses never allocate. */
	struct bw_file *f = &w->files[w->n_files - 1];
	bw_tally_grow(&f->tally, &f->cap_tally, w->n_topics);
	f->n_topics = w->n_topics;
	bw_tally_grow(&w->pend.tally, &w->pend.cap, w->n_topics);
	/* The rows added here are part of the file's fixed part. */
	uint64_t before = 0, after = 0;
	bt_status st = w->max_size ? w->store->ops->size(w->store, &before, err) : BT_OK;
	if (st == BT_OK)
		st = w->store->ops->create_topic(w->store, &nt->t,
						 new_type ? &w->types[nt->type_index] : NULL,
						 &nt->db_id, err);
	if (st == BT_OK && w->max_size &&
	    (st = w->store->ops->size(w->store, &after, err)) == BT_OK) {
		w->base_size += after > before ? after - before : 0;
		bw_check_base(w);
	}
	if (st != BT_OK)
		return bw_fail(w, st, err);
	*handle = (uint32_t)(w->n_topics - 1);
	return BT_OK;
}

/* The new list goes into the current file's topics row at once (so a file
 * recovered after a crash has it too) and, through w->topics, into every
 * metadata write and every file opened later. */
bt_status bag_writer_set_topic_qos(struct bag_writer *w, uint32_t handle,
				   const struct bag_qos *profiles, size_t n, struct bt_error *err)
{
	if (handle >= w->n_topics || (n != 0 && profiles == NULL))
		return bt_err_set(err, BT_ERR_USAGE, "unknown topic handle %u", handle);
	struct bag_topic *t = &w->topics[handle].t;
	struct bag_qos *copy = n ? bt_xcalloc(n, sizeof *copy) : NULL;
	if (n)
		memcpy(copy, profiles, n * sizeof *copy);
	free(t->qos);
	t->qos = copy;
	t->n_qos = n;
	/* After a failure the file takes no more statements; the profiles
	 * still reach the final metadata, like losses added then. */
	if (w->failed || w->store == NULL)
		return BT_OK;
	bt_status st = w->store->ops->update_topic_qos(w->store, w->topics[handle].db_id, copy, n,
						       err);
	return st == BT_OK ? BT_OK : bw_fail(w, st, err);
}

bt_status bag_writer_set_custom(struct bag_writer *w, const char *key, const char *value,
				struct bt_error *err)
{
	if (bag_compat_metadata_version(w->compat) < BAG_MDV_CUSTOM_DATA)
		return bt_err_set(err, BT_ERR_STATE, "%s's metadata has no custom_data",
				  bag_compat_name(w->compat));
	bag_kv_set(&w->custom, &w->n_custom, key, value);
	return BT_OK;
}

static struct bw_file *bw_cur(struct bag_writer *w)
{
	return &w->files[w->n_files - 1];
}

bt_status bag_writer_set_type_def(struct bag_writer *w, const char *type, const char *encoding,
				  const char *text, const char *source, struct bt_error *err)
{
	size_t i = 0;
	while (i < w->n_types && strcmp(w->types[i].topic_type, type) != 0)
		i++;
	if (i == w->n_types)
		return bt_err_set(err, BT_ERR_NOTFOUND, "no topic of type %s", type);
	bag_kv_set(&w->def_sources, &w->n_def_sources, type, source);
	if (encoding == NULL)
		return BT_OK;
	struct bag_msgdef *d = &w->types[i];
	free(d->encoding);
	free(d->encoded_message_definition);
	d->encoding = bt_xstrdup(encoding);
	d->encoded_message_definition = bt_xstrdup(text);
	if (w->failed || w->store == NULL || w->store->ops->update_msgdef == NULL)
		return BT_OK;
	bool missed = false;
	bt_status st = w->store->ops->update_msgdef(w->store, d, &missed, err);
	if (st != BT_OK)
		return bw_fail(w, st, err);
	if (missed && w->split_on_late_definition && !w->def_split) {
		bt_log_info("%s: the definition of %s came after the file's record of the type; "
			    "the next file carries it", bw_cur(w)->name, type);
		w->def_split = true;
	}
	return BT_OK;
}

/* ---- writing ---- */

static void bw_pend_reset(struct bag_writer *w)
{
	w->pend.count = 0;
	w->pend.bytes = 0;
	w->pend.start = BAG_TIME_NONE;
	w->pend.end = INT64_MIN;
	if (w->pend.tally)
		memset(w->pend.tally, 0, w->pend.cap * sizeof *w->pend.tally);
}

static void bw_pend_add(struct bag_writer *w, const struct bag_message *m)
{
	struct bw_pending *p = &w->pend;
	p->tally[m->topic].recorded++;
	p->tally[m->topic].bytes += m->len;
	p->count++;
	p->bytes += m->len;
	if (m->timestamp < p->start)
		p->start = m->timestamp;
	if (m->timestamp > p->end)
		p->end = m->timestamp;
}

static void bw_pend_fold(struct bag_writer *w)
{
	struct bw_file *f = bw_cur(w);
	struct bw_pending *p = &w->pend;
	if (!p->count)
		return;
	for (size_t i = 0; i < w->n_topics; i++) {
		f->tally[i].recorded += p->tally[i].recorded;
		f->tally[i].bytes += p->tally[i].bytes;
		w->topics[i].total.recorded += p->tally[i].recorded;
		w->topics[i].total.bytes += p->tally[i].bytes;
	}
	f->count += p->count;
	if (p->start < f->start)
		f->start = p->start;
	if (p->end > f->end)
		f->end = p->end;
	w->stats.messages += p->count;
	w->stats.bytes += p->bytes;
	bw_pend_reset(w);
}

/* The transaction's messages of the current write are committed (or not). */
static void bw_res_settle(struct bag_writer *w, bool committed)
{
	struct bag_write_result *r = w->res;
	for (size_t k = w->res_lo; r != NULL && k < w->res_hi; k++) {
		if (r->fate[k] != BAG_MSG_PENDING)
			continue;
		r->fate[k] = committed ? BAG_MSG_RECORDED : BAG_MSG_NOT_WRITTEN;
		if (committed) {
			r->recorded++;
			r->bytes += w->res_msgs[k].len;
		}
	}
	w->res_lo = w->res_hi;
}

static bt_status bw_commit(struct bag_writer *w, struct bt_error *err)
{
	if (!w->in_txn)
		return BT_OK;
	w->in_txn = false;
	bt_status st = w->store->ops->batch_commit(w->store, err);
	bw_res_settle(w, st == BT_OK);
	if (st != BT_OK) {
		bw_pend_reset(w);
		return st;
	}
	bw_pend_fold(w);
	return BT_OK;
}

/* The backend's bound on what a message of `len` adds: the split decision
 * stays exact without reading the size at every message. */
static void bw_size_grow(struct bag_writer *w, size_t len)
{
	/* Only a split size reads the slack: no call per message without. */
	if (!w->max_size || w->size_slack == UINT64_MAX)
		return;
	uint64_t add = w->store->ops->growth_bound(w->store, len);
	w->size_slack = UINT64_MAX - w->size_slack > add ? w->size_slack + add : UINT64_MAX;
}

/* rosbag2's check before each message: size >= limit, or the message is
 * more than max_duration after the file's first message. The size is that
 * of the messages: the file's fixed part (base_size) does not count, or
 * with many topics and a small limit every file would be over it with
 * its first message, and every message would split again. */
static bt_status bw_need_split(struct bag_writer *w, const struct bag_message *m, bool *yes,
			       struct bt_error *err)
{
	const struct bw_file *f = bw_cur(w);
	*yes = false;
	/* Empty, or only what on_split repeated: splitting again would loop. */
	if (f->count + w->pend.count <= f->repeated)
		return BT_OK;
	if (w->def_split) {
		*yes = true;
		return BT_OK;
	}
	if (w->max_duration) {
		int64_t start = f->start < w->pend.start ? f->start : w->pend.start;
		int64_t age;
		if (!__builtin_sub_overflow(m->timestamp, start, &age) && age > w->max_duration) {
			*yes = true;
			return BT_OK;
		}
	}
	/* Reading the size may cost as much as writing a message (SQLite
	 * re-prepares PRAGMA page_count at every step: ~1 us, as much as
	 * inserting 1 KiB). So read it only when the file may have reached the
	 * limit. */
	uint64_t limit = w->max_size + w->base_size;
	if (limit < w->max_size)
		limit = UINT64_MAX;
	if (w->max_size && (w->size_slack == UINT64_MAX ||
			    w->size_seen + w->size_slack >= limit)) {
		bt_status st = w->store->ops->size(w->store, &w->size_seen, err);
		if (st != BT_OK)
			return st;
		w->size_slack = 0;
		*yes = w->size_seen >= limit;
	}
	return BT_OK;
}

static bt_status bw_payload(struct bag_writer *w, size_t i, const struct bag_message *m,
			    const void **data, size_t *len, struct bt_error *err)
{
	if (!w->zpool) {
		*data = m->data;
		*len = m->len;
		return BT_OK;
	}
	if (bag_zpool_wait(w->zpool, i, data, len) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "cannot compress a %zu-byte message", m->len);
	return BT_OK;
}

static void bw_drop_toobig(struct bag_writer *w, const struct bag_message *m, struct bt_error *e)
{
	struct bw_topic *t = &w->topics[m->topic];
	if (!t->dropped)
		bt_log_warn("topic %s: message dropped: %s", t->t.name, e->msg);
	t->dropped++;
	w->stats.dropped_toobig++;
	/* A loss of the file being written, whatever becomes of the rest of
	 * the transaction. */
	bw_cur(w)->tally[m->topic].lost.lost_toobig++;
	t->total.lost.lost_toobig++;
}

/* Inserts m's stored bytes (data, len) into the open transaction. A
 * message too large for the store is dropped and counted, not an error;
 * *stored says whether it went in. */
static bt_status bw_insert(struct bag_writer *w, const struct bag_message *m, const void *data,
			   size_t len, bool *stored, struct bt_error *err)
{
	*stored = false;
	bt_status st = w->store->ops->write(w->store, w->topics[m->topic].db_id, m->timestamp,
					    m->send_time, data, len, err);
	if (st == BT_ERR_TOOBIG) {
		bw_drop_toobig(w, m, err);
		return BT_OK;
	}
	if (st == BT_OK) {
		bw_pend_add(w, m);
		bw_size_grow(w, len);
		*stored = true;
	}
	return st;
}

/* One repeated message, compressed here in MESSAGE mode (the pool holds
 * the batch being written). */
static bt_status bw_insert_repeat(struct bag_writer *w, const struct bag_message *m,
				  struct bt_error *err)
{
	const void *data = m->data;
	size_t len = m->len;
	if (w->zpool) {
		bt_status st = bag_zstd_compress_msg(m->data, m->len, &w->zrepeat, err);
		if (st != BT_OK)
			return st;
		data = w->zrepeat.data;
		len = w->zrepeat.len;
	}
	bool stored;
	bt_status st = bw_insert(w, m, data, len, &stored, err);
	if (stored) {
		bw_cur(w)->repeated++;
		w->stats.repeated++;
		if (w->res != NULL)
			w->res->repeated++;
	}
	return st;
}

/* on_split's messages, first in the new file, in one transaction. */
static bt_status bw_write_repeats(struct bag_writer *w, int64_t t_last, struct bt_error *err)
{
	const struct bag_message *msgs = NULL;
	size_t n = w->on_split(w->on_split_ctx, t_last, &msgs);
	if (n == 0)
		return BT_OK;
	bt_status st = w->store->ops->batch_begin(w->store, err);
	if (st == BT_OK)
		w->in_txn = true;
	for (size_t i = 0; st == BT_OK && i < n; i++)
		st = msgs[i].topic < w->n_topics ? bw_insert_repeat(w, &msgs[i], err)
						 : bt_err_set(err, BT_ERR_USAGE, "repeated "
							      "message for unknown topic %u",
							      msgs[i].topic);
	return st == BT_OK ? bw_commit(w, err) : st;
}

static void bw_drop_current(struct bag_writer *w);

/* Closes the current file and opens the next, named after stem (NULL: as
 * usual); with a stem, a current file without messages is dropped. */
static bt_status bw_do_split(struct bag_writer *w, const char *stem, struct bt_error *err)
{
	const struct bw_file *f = bw_cur(w);
	int64_t t_last = f->count ? f->end : BAG_TIME_NONE;
	bt_status st = BT_OK;
	if (stem != NULL && f->count == 0)
		bw_drop_current(w);
	else
		st = bw_close_file(w, err);
	if (st == BT_OK) {
		bw_poll_fcomp(w, false);
		bw_rotate(w);
		st = bw_open_file(w, stem, err);
		w->def_split = false; /* the new file has every definition known */
	}
	if (st == BT_OK && w->on_split)
		st = bw_write_repeats(w, t_last, err);
	return st;
}

static bool bw_cancelled(const struct bag_writer *w)
{
	return w->cancel != NULL && atomic_load_explicit(w->cancel, memory_order_relaxed);
}

static bt_status bw_write_one(struct bag_writer *w, size_t i, const struct bag_message *m,
			      struct bt_error *err)
{
	bool split;
	bt_status st = bw_need_split(w, m, &split, err);
	if (st == BT_OK && split && (st = bw_commit(w, err)) == BT_OK)
		st = bw_do_split(w, NULL, err);
	if (st == BT_OK && split && bw_cancelled(w))
		return BT_OK; /* cancelled during the split: m is not written */
	if (st == BT_OK && !w->in_txn && (st = w->store->ops->batch_begin(w->store, err)) == BT_OK)
		w->in_txn = true;
	const void *data = NULL;
	size_t len = 0;
	if (st == BT_OK && w->test_write_delay_us != 0)
		usleep(w->test_write_delay_us); /* a wedged disk, for the stop tests */
	if (st == BT_OK)
		st = bw_payload(w, i, m, &data, &len, err);
	if (st != BT_OK)
		return st;
	bool stored = false;
	st = bw_insert(w, m, data, len, &stored, err);
	if (w->res != NULL && stored) {
		w->res->fate[i] = BAG_MSG_PENDING;
		w->res_hi = i + 1;
	} else if (w->res != NULL && st == BT_OK) { /* not stored, no error: too large */
		w->res->fate[i] = BAG_MSG_TOOBIG;
		w->res->toobig++;
	}
	return st;
}

static void bw_submit(struct bag_writer *w, const struct bag_message *msgs, size_t n)
{
	bt_xgrow((void **)&w->zin, &w->cap_zin, n, sizeof *w->zin);
	for (size_t i = 0; i < n; i++) {
		w->zin[i].data = msgs[i].data;
		w->zin[i].len = msgs[i].len;
	}
	bag_zpool_submit(w->zpool, w->zin, n);
}

void bag_writer_set_cancel(struct bag_writer *w, const atomic_bool *flag)
{
	w->cancel = flag;
	if (w->fcomp)
		bag_fcomp_set_cancel(w->fcomp, flag);
}

bool bag_writer_compression_behind(const struct bag_writer *w)
{
	return w->zpool != NULL && bag_zpool_writer_waiting(w->zpool);
}

/* While a message is written, the first bytes of the one BW_AHEAD further
 * on are fetched into the cache. Each message's bytes are a block of their
 * own that another thread wrote, on another core (the recorder's receive
 * thread), so without this every message began with a wait for memory.
 * Measured in the recorder at fixed rates, alternate batches with and
 * without it in one run: the writer thread's time per message -20 to -25 %
 * at 1 KiB (4 to 16 ahead alike), -40 % at 100 B, no change at 64 KiB. */
#define BW_AHEAD 8
#define BW_AHEAD_BYTES 2048 /* beyond, the hardware's prefetcher follows the copy */
#define BW_LINE 64

static void bw_prefetch(const struct bag_message *m)
{
	const char *d = m->data;
	size_t n = m->len < BW_AHEAD_BYTES ? m->len : BW_AHEAD_BYTES;
	for (size_t k = 0; k < n; k += BW_LINE)
		__builtin_prefetch(d + k);
}

static bt_status bw_write(struct bag_writer *w, const struct bag_message *msgs, size_t n,
			  struct bt_error *err)
{
	if (w->failed)
		return bw_refuse(w, err);
	for (size_t i = 0; i < n; i++)
		if (msgs[i].topic >= w->n_topics || (!msgs[i].data && msgs[i].len))
			return bt_err_set(err, BT_ERR_USAGE, "message %zu: unknown topic handle %u",
					  i, msgs[i].topic);
	if (bw_poll_fcomp(w, false)) {
		bt_status st = bw_publish(w, BW_YAML, err);
		if (st != BT_OK)
			return bw_fail(w, st, err);
	}
	if (w->zpool && n)
		bw_submit(w, msgs, n);
	bt_status st = BT_OK;
	size_t i = 0;
	for (; st == BT_OK && i < n && !bw_cancelled(w); i++) {
		if (i + BW_AHEAD < n)
			bw_prefetch(&msgs[i + BW_AHEAD]);
		st = bw_write_one(w, i, &msgs[i], err);
	}
	if (st == BT_OK)
		st = bw_commit(w, err);
	if (w->zpool && (st != BT_OK || i < n))
		bag_zpool_drain(w->zpool); /* the rest of the batch, unused */
	return st == BT_OK ? BT_OK : bw_fail(w, st, err);
}

bt_status bag_writer_write_batch(struct bag_writer *w, const struct bag_message *msgs,
				 size_t n, struct bag_write_result *res, struct bt_error *err)
{
	res->recorded = res->bytes = res->toobig = res->repeated = 0;
	memset(res->fate, BAG_MSG_NOT_WRITTEN, n * sizeof *res->fate);
	w->res = res;
	w->res_msgs = msgs;
	w->res_lo = w->res_hi = 0;
	bt_status st = bw_write(w, msgs, n, err);
	bw_res_settle(w, false); /* nothing is left pending */
	w->res = NULL;
	w->res_msgs = NULL;
	return st;
}

bt_status bag_writer_write(struct bag_writer *w, const struct bag_message *msgs, size_t n,
			   struct bt_error *err)
{
	return bw_write(w, msgs, n, err);
}

bt_status bag_writer_idle(struct bag_writer *w, struct bt_error *err)
{
	if (w->failed || w->in_txn || !w->store)
		return BT_OK;
	bt_status st = w->store->ops->flush(w->store, err);
	return st == BT_OK ? BT_OK : bw_fail(w, st, err);
}

bt_status bag_writer_split(struct bag_writer *w, struct bt_error *err)
{
	if (w->failed)
		return bw_refuse(w, err);
	bt_status st = bw_do_split(w, NULL, err);
	return st == BT_OK ? BT_OK : bw_fail(w, st, err);
}

bt_status bag_writer_split_named(struct bag_writer *w, const char *stem, struct bt_error *err)
{
	if (!bt_str_file_name_ok(stem, NAME_MAX + 1))
		return bt_err_set(err, BT_ERR_USAGE, "'%s' cannot name a file of the bag", stem);
	if (w->failed)
		return bw_refuse(w, err);
	bt_status st = bw_do_split(w, stem, err);
	return st == BT_OK ? BT_OK : bw_fail(w, st, err);
}

/* ---- open / close ---- */

/* The presets are the sqlite3 backend's (bag_storage_sqlite.c). */
static const char *bw_preset_name(enum bag_preset p)
{
	return p == BAG_PRESET_RESILIENT ? "resilient" : NULL;
}

void bag_preset_pragmas(enum bag_preset p, const char **journal_mode, const char **synchronous)
{
	if (!bag_storage_sqlite_preset(bw_preset_name(p), journal_mode, synchronous))
		*journal_mode = *synchronous = "";
}

static bt_status bw_check_options(const struct bag_writer_options *o,
				  const struct bag_storage_ops *ops, struct bt_error *err)
{
	if (!o->uri || !o->uri[0])
		return bt_err_set(err, BT_ERR_USAGE, "no bag directory given");
	if (o->max_bagfile_size && o->max_bagfile_size < ops->min_split_size)
		return bt_err_set(err, BT_ERR_USAGE, "--max-bag-size %llu is below the %s "
				  "minimum of %llu bytes", (unsigned long long)o->max_bagfile_size,
				  ops->identifier, (unsigned long long)ops->min_split_size);
	if (o->max_bagfile_duration < 0)
		return bt_err_set(err, BT_ERR_USAGE, "--max-bag-duration must not be negative");
	if ((unsigned)o->preset > BAG_PRESET_RESILIENT ||
	    (unsigned)o->compression > BAG_COMPRESSION_MESSAGE ||
	    (unsigned)o->compat > BAG_COMPAT_IRON)
		return bt_err_set(err, BT_ERR_USAGE, "unknown preset, compression mode or layout");
	if (o->n_custom_data && bag_compat_metadata_version(o->compat) < BAG_MDV_CUSTOM_DATA)
		return bt_err_set(err, BT_ERR_USAGE, "--custom-data: %s's metadata (version %d) has "
				  "no custom_data", bag_compat_name(o->compat),
				  bag_compat_metadata_version(o->compat));
	return BT_OK;
}

static unsigned bw_cpu_count(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n < 1024 ? (unsigned)n : 1;
}

/* The writer options that are backend settings, as key/value pairs:
 * storage_config, then the benchmarks' overrides. */
static struct bag_kv *bw_config(const struct bag_writer_options *o, size_t *n)
{
	size_t cap = o->n_storage_config + 2;
	struct bag_kv *kv = bt_xcalloc(cap, sizeof *kv);
	*n = o->n_storage_config;
	if (*n)
		memcpy(kv, o->storage_config, *n * sizeof *kv);
	if (o->journal_mode)
		kv[(*n)++] = (struct bag_kv){(char *)"journal_mode", (char *)o->journal_mode};
	if (o->synchronous)
		kv[(*n)++] = (struct bag_kv){(char *)"synchronous", (char *)o->synchronous};
	struct bag_kv *copy = bag_kv_dup(kv, *n);
	free(kv);
	return copy;
}

static void bw_copy_options(struct bag_writer *w, const struct bag_writer_options *o,
			    const struct bag_storage_ops *ops)
{
	w->dir = bt_xstrdup(o->uri);
	w->base = bt_fs_basename(o->uri);
	const char *distro = o->ros_distro ? o->ros_distro : getenv("ROS_DISTRO");
	w->ros_distro = bt_xstrdup(distro ? distro : "");
	w->compat = o->compat;
	w->write_behind = o->write_behind;
	w->split_on_late_definition = o->split_on_late_definition;
	w->custom = bag_kv_dup(o->custom_data, o->n_custom_data);
	w->n_custom = o->n_custom_data;
	w->ops = ops;
	const char *preset = o->storage_preset ? o->storage_preset : bw_preset_name(o->preset);
	w->preset = preset ? bt_xstrdup(preset) : NULL;
	w->config = bw_config(o, &w->n_config);
	w->on_split = o->on_split;
	w->on_split_ctx = o->on_split_ctx;
	w->drop_empty_last = o->drop_empty_last;
	w->on_file_closed = o->on_file_closed;
	w->on_file_closed_ctx = o->on_file_closed_ctx;
	w->max_size = o->max_bagfile_size;
	w->max_duration = o->max_bagfile_duration;
	w->max_files = o->max_bag_files;
	w->compression = o->compression;
	w->test_write_delay_us = o->test_write_delay_us;
	w->test_close_stall_us = o->test_close_stall_us;
	bw_pend_reset(w);
}

static bt_status bw_start_threads(struct bag_writer *w, const struct bag_writer_options *o,
				  struct bt_error *err)
{
	int32_t nice = o->compression_nice_set ? o->compression_nice : BT_SYNC_NICE_KEEP;
	if (o->compression == BAG_COMPRESSION_MESSAGE)
		return bag_zpool_new(o->compression_threads ? o->compression_threads : bw_cpu_count(),
				     nice, o->test_compress_delay_us, &w->zpool, err);
	if (o->compression == BAG_COMPRESSION_FILE)
		return bag_fcomp_start(&w->fcomp, nice, o->test_compress_delay_us, err);
	return BT_OK;
}

static void bw_free(struct bag_writer *w)
{
	bag_zpool_free(w->zpool);
	bag_fcomp_stop(w->fcomp);
	bag_storage_discard(w->store);
	for (size_t i = 0; i < w->n_topics; i++)
		bag_topic_fini(&w->topics[i].t);
	for (size_t i = 0; i < w->n_types; i++)
		bag_msgdef_fini(&w->types[i]);
	for (size_t i = 0; i < w->n_files; i++)
		bw_file_fini(&w->files[i]);
	for (size_t i = 0; i < w->n_doomed; i++)
		free(w->doomed[i].name);
	free(w->doomed);
	bag_kv_free(w->custom, w->n_custom);
	bag_kv_free(w->def_sources, w->n_def_sources);
	free(w->topics);
	free(w->types);
	free(w->files);
	free(w->zin);
	bt_buf_fini(&w->zrepeat);
	free(w->pend.tally);
	free(w->dir);
	free(w->base);
	free(w->ros_distro);
	free(w->preset);
	bag_kv_free(w->config, w->n_config);
	free(w);
}

bt_status bag_writer_open(const struct bag_writer_options *o, struct bag_writer **out,
			  struct bt_error *err)
{
	const struct bag_storage_ops *ops = bag_storage_default();
	bt_status st = o->storage_id ? bag_storage_lookup(o->storage_id, &ops, err) : BT_OK;
	if (st == BT_OK)
		st = bw_check_options(o, ops, err);
	if (st != BT_OK)
		return st;
	if (bt_fs_exists(o->uri))
		return bt_err_set(err, BT_ERR_EXISTS, "bag directory %s already exists; refusing "
				  "to overwrite it", o->uri);
	struct bag_writer *w = bt_xcalloc(1, sizeof *w);
	bw_copy_options(w, o, ops);
	struct bag_storage_options so;
	bw_storage_options(w, &so);
	st = ops->check_options(&so, err);
	if (st == BT_OK)
		st = bt_fs_mkdir_new(w->dir, err);
	if (st != BT_OK) {
		bw_free(w);
		return st;
	}
	st = bw_start_threads(w, o, err);
	if (st == BT_OK)
		st = bw_open_file(w, NULL, err);
	if (st != BT_OK) {
		bag_storage_discard(w->store);
		w->store = NULL;
		for (size_t i = 0; i < w->n_files; i++)
			bw_remove_outputs(w, w->files[i].name);
		char *md = bt_fs_join(w->dir, BAG_METADATA_FILE);
		unlink(md);
		free(md);
		bool gone = rmdir(w->dir) == 0;
		if (st == BT_ERR_FULL && err) {
			struct bt_error was = *err;
			bt_err_set(err, st, "%s; no room for the bag's first file: nothing was "
				   "recorded%s", was.msg, gone ? "" : " (run 'bagtop reindex' on what is "
				   "left, or remove it)");
		}
		bw_free(w);
		return st;
	}
	*out = w;
	return BT_OK;
}

/* Once, at close: which files a cancelled FILE compression left plain. */
static void bw_say_cancelled(const struct bag_writer *w)
{
	size_t n = w->fcomp_cancelled;
	if (n == 0)
		return;
	if (bw_compression_kept(w) == BAG_COMPRESSION_NONE)
		bt_log_warn("the stop was abandoned before FILE compression finished: the bag is "
			    "left uncompressed (%zu file%s), as its metadata says", n,
			    n == 1 ? "" : "s");
	else
		bt_log_warn("the stop was abandoned before FILE compression finished: %zu file%s "
			    "stay%s uncompressed; 'bagtop reindex %s' compresses %s", n,
			    n == 1 ? "" : "s", n == 1 ? "s" : "", w->dir, n == 1 ? "it" : "them");
}

/* drop_empty_last: the file the split after the last snapshot opened,
 * still empty at the end, is deleted rather than kept (closed and told as
 * an empty file of the bag). True when it was. */
static bool bw_drop_empty_last(struct bag_writer *w)
{
	struct bw_file *f = &w->files[w->n_files - 1];
	if (!w->drop_empty_last || w->n_files < 2 || f->count != 0 || w->failed)
		return false;
	bw_drop_current(w);
	return true;
}

/* Deletes the open file, which holds no message, and forgets it: it is
 * not told to on_file_closed, nor listed in metadata.yaml again. */
static void bw_drop_current(struct bag_writer *w)
{
	struct bw_file *f = &w->files[w->n_files - 1];
	/* Closed cleanly first: no journal left behind. */
	if (bag_storage_close(w->store, NULL) != BT_OK)
		bt_log_debug("%s: the empty last file did not close cleanly", f->name);
	w->store = NULL;
	char *path = bt_fs_join(w->dir, f->name);
	if (unlink(path) != 0)
		bt_log_warn("%s: empty, not deleted: %s", path, strerror(errno));
	static const char *const side[] = {"-journal", "-wal", "-shm"};
	for (size_t i = 0; i < sizeof side / sizeof side[0]; i++) {
		char *p = bt_xasprintf("%s%s", path, side[i]);
		if (unlink(p) != 0 && errno != ENOENT)
			bt_log_warn("%s: not deleted: %s", p, strerror(errno));
		free(p);
	}
	free(path);
	if (f->n != SIZE_MAX && f->n + 1 == w->next_n)
		w->next_n = f->n; /* its N is free again: no gap in the names */
	bw_file_fini(f);
	w->n_files--;
}

bt_status bag_writer_close(struct bag_writer *w, struct bt_error *err)
{
	struct bt_error local;
	bt_status st = BT_OK;
	w->closing = true;
	if (w->test_close_stall_us != 0)
		usleep(w->test_close_stall_us); /* a stuck disk, for the stop tests */
	if (w->in_txn)
		w->store->ops->batch_abort(w->store);
	w->in_txn = false;
	if (w->store && !bw_drop_empty_last(w))
		st = bw_close_file(w, &local);
	if (w->fcomp)
		while (bag_fcomp_pending(w->fcomp) || bw_poll_fcomp(w, false))
			bw_poll_fcomp(w, true);
	bw_say_cancelled(w);
	bt_status st2 = bw_publish(w, BW_YAML, st == BT_OK ? &local : NULL);
	if (st == BT_OK)
		st = st2;
	if (w->failed) {
		st = w->failed;
		local = w->fail_err;
	}
	if (st != BT_OK && err)
		*err = local;
	bw_free(w);
	return st;
}

void bag_writer_get_stats(const struct bag_writer *w, struct bag_writer_stats *st)
{
	*st = w->stats;
}

size_t bag_writer_file_count(const struct bag_writer *w)
{
	return w->n_files;
}

const char *bag_writer_current_file(const struct bag_writer *w)
{
	return w->n_files ? w->files[w->n_files - 1].name : "";
}

uint64_t bag_writer_topic_dropped(const struct bag_writer *w, uint32_t handle)
{
	return handle < w->n_topics ? w->topics[handle].dropped : 0;
}

bt_status bag_writer_add_losses(struct bag_writer *w, uint32_t handle,
				const struct bag_losses *delta)
{
	if (handle >= w->n_topics)
		return BT_ERR_USAGE;
	bag_losses_add(&bw_cur(w)->tally[handle].lost, delta);
	bag_losses_add(&w->topics[handle].total.lost, delta);
	return BT_OK;
}

static void bw_topic_stats(const struct bw_tally *t, struct bag_writer_topic_stats *out)
{
	out->recorded = t->recorded;
	out->bytes = t->bytes;
	out->lost = t->lost;
}

bool bag_writer_get_topic_stats(const struct bag_writer *w, uint32_t handle,
				struct bag_writer_topic_stats *total,
				struct bag_writer_topic_stats *file)
{
	static const struct bw_tally none;
	bool known = handle < w->n_topics;
	if (total)
		bw_topic_stats(known ? &w->topics[handle].total : &none, total);
	if (file)
		bw_topic_stats(known ? &w->files[w->n_files - 1].tally[handle] : &none, file);
	return known;
}

bt_status bag_preset_parse(const char *s, enum bag_preset *out)
{
	if (!strcasecmp(s, "none") || !*s)
		*out = BAG_PRESET_NONE;
	else if (!strcasecmp(s, "resilient"))
		*out = BAG_PRESET_RESILIENT;
	else
		return BT_ERR_USAGE;
	return BT_OK;
}

bt_status bag_compression_parse(const char *s, enum bag_compression *out)
{
	if (!strcasecmp(s, "none") || !*s)
		*out = BAG_COMPRESSION_NONE;
	else if (!strcasecmp(s, "file"))
		*out = BAG_COMPRESSION_FILE;
	else if (!strcasecmp(s, "message"))
		*out = BAG_COMPRESSION_MESSAGE;
	else
		return BT_ERR_USAGE;
	return BT_OK;
}

const char *bag_compression_name(enum bag_compression c)
{
	return c == BAG_COMPRESSION_FILE ? "FILE" : c == BAG_COMPRESSION_MESSAGE ? "MESSAGE" : "";
}
