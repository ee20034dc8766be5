#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_compat.h"
#include "bag_metadata.h"
#include "bag_storage.h"
#include "bag_tools.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "store__zstd.h"

static char *bag_reindex_plain_name(const char *name)
{
	if (bt_str_ends_with(name, BAG_STORAGE_FILE_COMPRESSED))
		return bt_xstrndup(name, strlen(name) - strlen(BAG_STORAGE_FILE_COMPRESSED));
	return bt_xstrdup(name);
}

static void bag_reindex_files(const struct bag_reader *r, struct bag_metadata *md)
{
	size_t n = bag_reader_n_files(r);
	md->relative_file_paths = bt_xcalloc(n, sizeof(char *));
	md->files = bt_xcalloc(n, sizeof *md->files);
	for (size_t i = 0; i < n; i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		char *base = bt_fs_basename(f->path);
		md->relative_file_paths[i] = base;
		struct bag_file_info *fi = &md->files[i];
		/* rosbag2 keeps the uncompressed name in files[].path. */
		fi->path = bag_reindex_plain_name(base);
		fi->starting_time = f->message_count ? f->start : BAG_TIME_NONE;
		fi->duration = f->message_count ? bag_span(f->start, f->end) : 0;
		fi->message_count = f->message_count;
	}
	md->n_paths = md->n_files = n;
}

static void bag_reindex_from_embedded(const struct bag_reader *r, struct bag_metadata *md)
{
	const struct bag_metadata *em = bag_reader_embedded(r);
	if (!em)
		return;
	free(md->ros_distro);
	md->ros_distro = bt_xstrdup(em->ros_distro);
	md->custom_data = bag_kv_dup(em->custom_data, em->n_custom_data);
	md->n_custom_data = em->n_custom_data;
}

/* The layout the files have: the version of the newest metadata row they
 * embed (Iron, Jazzy and bagtop write them); else Humble's (v5) for schema
 * 3 files, which Humble writes with an empty metadata table; else 9. */
static int bag_reindex_layout(const struct bag_reader *r)
{
	const struct bag_metadata *em = bag_reader_embedded(r);
	if (em && em->version >= BAG_MDV_QOS)
		return em->version;
	if (bag_reader_n_files(r) && bag_reader_file(r, 0)->schema_version == 3)
		return bag_compat_metadata_version(BAG_COMPAT_HUMBLE);
	return BAG_MDV_NEWEST;
}

void bag_reindex_build(const struct bag_reader *r, struct bag_metadata *md)
{
	bag_metadata_init(md);
	md->version = bag_reindex_layout(r);
	bag_reindex_files(r, md);
	md->message_count = bag_reader_message_count(r);
	md->starting_time = bag_reader_start(r);
	md->duration = md->message_count ? bag_span(md->starting_time, bag_reader_end(r)) : 0;
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	md->topics = bt_xcalloc(n, sizeof *md->topics);
	for (size_t i = 0; i < n; i++) {
		bag_topic_copy(&md->topics[i].topic, &t[i].topic);
		md->topics[i].message_count = t[i].count;
	}
	md->n_topics = n;
	const char *mode = bag_reader_compression(r);
	free(md->compression_mode);
	free(md->compression_format);
	md->compression_mode = bt_xstrdup(mode);
	md->compression_format = bt_xstrdup(*mode ? "zstd" : "");
	/* What the backend that read the files calls itself; with none but
	 * blank files, the backend their names say. */
	const struct bag_reader_file *f0 = bag_reader_file(r, 0);
	size_t n_blank;
	const char *const *blank = bag_reader_blank(r, &n_blank);
	const struct bag_storage_ops *ops = f0 ? f0->storage : NULL;
	if (!f0 && n_blank)
		ops = bag_storage_by_name(blank[0], NULL, NULL);
	if (ops) {
		free(md->storage_identifier);
		md->storage_identifier = bt_xstrdup(ops->identifier);
	}
	bag_reindex_from_embedded(r, md);
}

/* ---- statistics ---- */

/* Messages and bytes per (file, reader topic), read back decompressed. */
struct bag_rx_tally {
	uint64_t count, bytes;
	size_t order; /* first-seen position among the file's topics, + 1 */
};

static bt_status bag_reindex_read_all(struct bag_reader *r, struct bag_rx_tally *tl, size_t nt,
				      struct bt_error *err)
{
	struct bag_read_msg m;
	int rc;
	while ((rc = bag_reader_next(r, &m, err)) == 1) {
		if (m.topic >= nt)
			return bt_err_set(err, BT_ERR_FORMAT, "%s changed while being read",
					  bag_reader_file(r, m.file)->path);
		tl[m.file * nt + m.topic].bytes += m.len;
	}
	return rc < 0 ? (bt_status)rc : BT_OK;
}

/* A file's topics_statistics, in the order of its topics rows; a name
 * with two rows in one file gets one entry. */
static void bag_reindex_file_stats(const struct bag_reader *r, size_t i, struct bag_rx_tally *tl,
				   struct bag_file_info *fi)
{
	const struct bag_reader_file *f = bag_reader_file(r, i);
	size_t nt;
	const struct bag_reader_topic *topics = bag_reader_topics(r, &nt);
	fi->has_stats = true;
	fi->topics_stats = f->n_topics ? bt_xcalloc(f->n_topics, sizeof *fi->topics_stats) : NULL;
	for (size_t k = 0; k < f->n_topics; k++) {
		struct bag_rx_tally *t = &tl[f->topics[k].topic];
		if (!t->order) {
			t->order = ++fi->n_topics_stats;
			fi->topics_stats[t->order - 1].topic =
				bt_xstrdup(topics[f->topics[k].topic].topic.name);
		}
		t->count += f->topics[k].count;
	}
	for (size_t k = 0; k < nt; k++) {
		if (!tl[k].order)
			continue;
		struct bag_stats *st = &fi->topics_stats[tl[k].order - 1].stats;
		st->messages_recorded = tl[k].count;
		st->bytes_written = tl[k].bytes;
	}
}

/* Entry `topic` of an old files entry; entries usually come in the same
 * order, so entry `guess` is tried first (a bag may have thousands of
 * topics). */
static const struct bag_file_topic_stats *bag_reindex_old_entry(const struct bag_file_info *f,
							       const char *topic, size_t guess)
{
	if (guess < f->n_topics_stats && !strcmp(f->topics_stats[guess].topic, topic))
		return &f->topics_stats[guess];
	for (size_t i = 0; i < f->n_topics_stats; i++)
		if (!strcmp(f->topics_stats[i].topic, topic))
			return &f->topics_stats[i];
	return NULL;
}

static const struct bag_file_info *bag_reindex_find_file(const struct bag_metadata *md,
							 const char *path)
{
	for (size_t i = 0; md && i < md->n_files; i++)
		if (!strcmp(md->files[i].path, path))
			return &md->files[i];
	return NULL;
}

/* Does an old files entry describe this file's data? The writer gives a
 * files entry statistics only once the file is closed, so a matching
 * entry's losses are the file's final ones. A topic the entry leaves out
 * recorded and lost nothing there. */
static bool bag_reindex_matches(const struct bag_file_info *of, const struct bag_file_info *fi)
{
	if (!of || !of->has_stats || of->message_count != fi->message_count)
		return false;
	for (size_t k = 0; k < fi->n_topics_stats; k++) {
		const struct bag_file_topic_stats *o =
			bag_reindex_old_entry(of, fi->topics_stats[k].topic, k);
		const struct bag_stats *n = &fi->topics_stats[k].stats;
		if (!o ? n->messages_recorded || n->bytes_written
		       : !o->stats.losses_known ||
				 o->stats.messages_recorded != n->messages_recorded ||
				 o->stats.bytes_written != n->bytes_written)
			return false;
	}
	return true;
}

static void bag_reindex_take_losses(const struct bag_file_info *of, struct bag_file_info *fi)
{
	for (size_t k = 0; k < fi->n_topics_stats; k++) {
		const struct bag_file_topic_stats *o =
			bag_reindex_old_entry(of, fi->topics_stats[k].topic, k);
		struct bag_stats *n = &fi->topics_stats[k].stats;
		n->losses_known = true;
		n->lost_in_transport = o ? o->stats.lost_in_transport : 0;
		n->lost_in_recorder = o ? o->stats.lost_in_recorder : 0;
	}
	/* Leave out what has nothing to show, as the writer does. */
	size_t keep = 0;
	for (size_t k = 0; k < fi->n_topics_stats; k++) {
		const struct bag_stats *n = &fi->topics_stats[k].stats;
		if (n->messages_recorded || n->bytes_written || n->lost_in_transport ||
		    n->lost_in_recorder)
			fi->topics_stats[keep++] = fi->topics_stats[k];
		else
			free(fi->topics_stats[k].topic);
	}
	fi->n_topics_stats = keep;
}

/* A file's own entry in its last row: the one entry with statistics (the
 * writer gives a row no other file's), whatever its path says — the file
 * may have been renamed since. */
static const struct bag_file_info *bag_reindex_own_entry(const struct bag_reader_file *f,
							 const char *path)
{
	if (!f->has_embedded)
		return NULL;
	const struct bag_file_info *own = NULL;
	for (size_t i = 0; i < f->embedded.n_files; i++) {
		if (!f->embedded.files[i].has_stats)
			continue;
		if (own)
			return bag_reindex_find_file(&f->embedded, path);
		own = &f->embedded.files[i];
	}
	return own;
}

/* Takes a file's losses from its entry in the old metadata.yaml, or else
 * from the file's own last metadata row (written when it was closed);
 * true when one of them describes the same data. */
static bool bag_reindex_keep_file(const struct bag_metadata *old, const struct bag_reader_file *f,
				  struct bag_file_info *fi)
{
	const struct bag_file_info *of = bag_reindex_find_file(old, fi->path);
	if (!bag_reindex_matches(of, fi))
		of = bag_reindex_own_entry(f, fi->path);
	if (!bag_reindex_matches(of, fi))
		return false;
	bag_reindex_take_losses(of, fi);
	return true;
}

/* The breakdown by cause of a topic whose every file matched, from the old
 * totals when they add up to the same figures. */
static void bag_reindex_keep_causes(const struct bag_metadata *old, struct bag_topic_info *ti)
{
	for (size_t i = 0; i < old->n_topics; i++) {
		const struct bag_topic_info *o = &old->topics[i];
		if (strcmp(o->topic.name, ti->topic.name) != 0)
			continue;
		if (o->has_stats && o->stats.losses_known && o->stats.has_causes &&
		    ti->stats.losses_known &&
		    o->stats.lost_in_transport == ti->stats.lost_in_transport &&
		    o->stats.lost_in_recorder == ti->stats.lost_in_recorder &&
		    bag_losses_transport(&o->stats.causes) == o->stats.lost_in_transport &&
		    bag_losses_recorder(&o->stats.causes) == o->stats.lost_in_recorder) {
			ti->stats.has_causes = true;
			ti->stats.causes = o->stats.causes;
		}
		return;
	}
}

/* The totals' breakdown by cause comes from the old metadata.yaml, or else
 * from the newest embedded row (the last file's, written at close). */
static const struct bag_metadata *bag_reindex_causes_source(const struct bag_reader *r,
							    const struct bag_metadata *old)
{
	if (old && bag_metadata_has_stats(old))
		return old;
	return bag_reader_embedded(r);
}

static void bag_reindex_losses(const struct bag_reader *r, const struct bag_metadata *old,
			       struct bag_metadata *md, struct bag_reindex_result *res)
{
	res->files_losses_known = 0;
	for (size_t i = 0; i < md->n_files; i++)
		res->files_losses_known +=
			bag_reindex_keep_file(old, bag_reader_file(r, i), &md->files[i]);
	bag_metadata_sum_stats(md);
	const struct bag_metadata *src = bag_reindex_causes_source(r, old);
	for (size_t t = 0; src && t < md->n_topics; t++)
		bag_reindex_keep_causes(src, &md->topics[t]);
	if (res->files_losses_known == md->n_files)
		res->losses = BAG_REINDEX_LOSSES_KEPT;
	else if (res->files_losses_known)
		res->losses = BAG_REINDEX_LOSSES_PARTIAL;
	else if (!old)
		res->losses = BAG_REINDEX_LOSSES_NO_METADATA;
	else if (!bag_metadata_has_stats(old))
		res->losses = BAG_REINDEX_LOSSES_NONE;
	else
		res->losses = BAG_REINDEX_LOSSES_PARTIAL;
}

/* Adds the statistics to `md` (built by bag_reindex_build from `r`); `old`
 * is the previous metadata.yaml, or NULL. A bag whose messages cannot all
 * be read back gets none (a warning, and why in *err): half-counted bytes
 * would be invented figures. */
static void bag_reindex_stats(struct bag_reader *r, const struct bag_metadata *old,
			      struct bag_metadata *md, struct bag_reindex_result *res,
			      struct bt_error *err)
{
	size_t nt, nf = bag_reader_n_files(r);
	(void)bag_reader_topics(r, &nt);
	struct bag_rx_tally *tl = bt_xcalloc(nf * nt + 1, sizeof *tl);
	if (bag_reindex_read_all(r, tl, nt, err) != BT_OK) {
		bt_log_warn("no statistics written: %s", err->msg);
		res->losses = BAG_REINDEX_LOSSES_NO_STATS;
		res->files_losses_known = 0;
		free(tl);
		return;
	}
	for (size_t i = 0; i < nf; i++)
		bag_reindex_file_stats(r, i, tl + i * nt, &md->files[i]);
	free(tl);
	bag_reindex_losses(r, old, md, res);
}

/* A writer killed mid-way can leave "<file>.tmp" (metadata.yaml or a FILE
 * compression in progress); they are incomplete by construction. */
static size_t bag_reindex_remove_leftovers(const char *dir)
{
	char **names;
	size_t n, removed = 0;
	if (bt_fs_list_dir(dir, &names, &n, NULL) != BT_OK)
		return 0;
	for (size_t i = 0; i < n; i++) {
		bool ours = !strcmp(names[i], BAG_METADATA_FILE ".tmp");
		if (bt_str_ends_with(names[i], BAG_STORAGE_FILE_COMPRESSED ".tmp")) {
			char *done = bt_xstrndup(names[i], strlen(names[i]) - 4);
			bool z = false;
			ours = bag_storage_by_name(done, NULL, &z) != NULL && z;
			free(done);
		}
		if (!ours)
			continue;
		char *p = bt_fs_join(dir, names[i]);
		if (unlink(p) == 0) {
			removed++;
			bt_log_info("removed incomplete %s", p);
		}
		free(p);
	}
	bt_fs_free_list(names, n);
	return removed;
}

/* What reindex moves out of the way gets this suffix: it no longer looks
 * like a storage file, and says who moved it. */
#define BAG_REINDEX_ASIDE ".set-aside-by-reindex"

/* Moves storage file `path`, with the side files its backend keeps beside
 * it (SQLite's journals), to "<path>.set-aside-by-reindex" (never over
 * anything), and says why. */
static bt_status bag_reindex_set_aside(const char *path, const char *why, struct bt_error *err)
{
	static const char *const none[] = {NULL};
	bool z = false;
	const struct bag_storage_ops *ops = bag_storage_by_name(path, NULL, &z);
	const char *const *side = ops && !z ? ops->side_suffixes : none;
	char *moved = NULL;
	bt_status st = bt_fs_set_aside(path, BAG_REINDEX_ASIDE, &moved, err);
	/* The storage file moved: its side files follow it, even when the
	 * directory's fsync failed, so a hot journal never stays behind. */
	for (size_t i = 0; moved != NULL && side[i] != NULL; i++) {
		char *from = bt_xasprintf("%s%s", path, side[i]);
		char *to = bt_xasprintf("%s%s", moved, side[i]);
		struct bt_error e2;
		if (bt_fs_exists(from) && bt_fs_rename_new(from, to, &e2) != BT_OK && st == BT_OK) {
			st = e2.code;
			if (err != NULL)
				*err = e2;
		}
		free(from);
		free(to);
	}
	if (moved != NULL) {
		char *name = bt_fs_basename(moved);
		bt_log_warn("set aside %s as %s: %s", path, name, why);
		free(name);
		free(moved);
	}
	return st;
}

/* Messages in one storage file read on its own (its pending transaction
 * rolled back); -1 when it does not open. */
static int64_t bag_reindex_count(const char *path)
{
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(path, BAG_READER_RECOVER, &r, &err) != BT_OK)
		return -1;
	int64_t n = (int64_t)bag_reader_message_count(r);
	bag_reader_close(r);
	return n;
}

/* "X.db3" beside "X.db3.zstd" (or another backend's X): a crash between
 * compressing and removing the plain file, or a stray copy. Keep the one
 * with more messages (the .zstd when equal: it is renamed into place only
 * once complete) and set the other aside, so nothing below can compress
 * one over the other. */
static bt_status bag_reindex_settle_pair(const char *dir, const char *zname,
					 struct bt_error *err)
{
	char *zpath = bt_fs_join(dir, zname);
	char *ppath = bag_reindex_plain_name(zpath);
	int64_t nz = bag_reindex_count(zpath), np = bag_reindex_count(ppath);
	bool keep_plain = np > nz;
	const char *lose = keep_plain ? zpath : ppath, *keep = keep_plain ? ppath : zpath;
	int64_t nl = keep_plain ? nz : np, nk = keep_plain ? np : nz;
	char *keep_name = bt_fs_basename(keep);
	char *why = nl < 0 ? bt_xasprintf("it does not open, and %s holds %" PRId64 " messages",
					  keep_name, nk)
			   : bt_xasprintf("it holds %" PRId64 " messages, %s holds %" PRId64 "%s", nl,
					  keep_name, nk, nl == nk ? " (the same: a finished compression)" : "");
	bt_status st = bag_reindex_set_aside(lose, why, err);
	free(why);
	free(keep_name);
	free(zpath);
	free(ppath);
	return st;
}

static int bag_reindex_cmp_name(const void *key, const void *name)
{
	return strcmp(key, *(char *const *)name);
}

static bt_status bag_reindex_settle_pairs(const char *dir, struct bt_error *err)
{
	char **names;
	size_t n;
	bt_status st = bt_fs_list_dir(dir, &names, &n, err);
	if (st != BT_OK)
		return st;
	for (size_t i = 0; st == BT_OK && i < n; i++) {
		bool z = false;
		if (!bag_storage_by_name(names[i], NULL, &z) || !z)
			continue;
		char *plain = bag_reindex_plain_name(names[i]);
		if (bsearch(plain, names, n, sizeof *names, bag_reindex_cmp_name)) /* sorted */
			st = bag_reindex_settle_pair(dir, names[i], err);
		free(plain);
	}
	bt_fs_free_list(names, n);
	return st;
}

/* Length of <prefix> in "<prefix>_<N><extension>" (or <extension>.zstd),
 * the recorder's names; 0 for any other name. */
static size_t bag_reindex_prefix_len(const char *name)
{
	size_t stem;
	if (!bag_storage_by_name(name, &stem, NULL))
		return 0;
	const char *end = name + stem;
	const char *p = end;
	while (p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == end || p - name < 2 || p[-1] != '_')
		return 0;
	return (size_t)(p - 1 - name);
}

/* Is blank file `path` one of the bag's own: "<prefix>_<N>.db3", <prefix>
 * being the directory's name or that of the bag's readable files (a
 * renamed directory), or any prefix when no file is readable (the first
 * file of a renamed bag)? A user's "notes.db3" never is. */
static bool bag_reindex_own_name(const char *dir, const struct bag_reader *r, const char *path)
{
	char *bag = bt_fs_basename(dir), *name = bt_fs_basename(path);
	size_t len = bag_reindex_prefix_len(name);
	bool own = len && (bag_reader_n_files(r) == 0 ||
			   (len == strlen(bag) && !strncmp(name, bag, len)));
	for (size_t i = 0; len && !own && i < bag_reader_n_files(r); i++) {
		char *other = bt_fs_basename(bag_reader_file(r, i)->path);
		own = bag_reindex_prefix_len(other) == len && !strncmp(other, name, len);
		free(other);
	}
	free(bag);
	free(name);
	return own;
}

/* A storage file with no table at all was being created when the writer
 * died: it never held a message. The bag's own are set aside; any other
 * is not reindex's to move (and not part of the bag). */
static bt_status bag_reindex_blank(const char *dir, const struct bag_reader *r, size_t *moved,
				   struct bt_error *err)
{
	size_t n;
	const char *const *blank = bag_reader_blank(r, &n);
	bt_status st = BT_OK;
	for (size_t i = 0; st == BT_OK && i < n; i++) {
		if (!bag_reindex_own_name(dir, r, blank[i])) {
			bt_log_warn("left %s alone: it holds no table, and its name is not one of the "
				    "bag's storage files", blank[i]);
			continue;
		}
		st = bag_reindex_set_aside(blank[i], "its creation was interrupted, it holds no "
					   "message", err);
		*moved += st == BT_OK;
	}
	return st;
}

/* After metadata.yaml was rebuilt: a file that fails its backend's
 * integrity check (SQLite's quick_check) or whose messages do not all read back (`lost`, or NULL) is damaged
 * beyond what reindex repairs. Each is named on stderr; BT_ERR_FORMAT
 * then, for an exit status that is not success. */
static bt_status bag_reindex_damage(const char *dir, const struct bag_reader *r,
				    const struct bt_error *lost, struct bt_error *err)
{
	size_t damaged = 0;
	const char *format = "";
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const char *why = bag_reader_file(r, i)->damage;
		if (why) {
			format = bag_reader_file(r, i)->storage->identifier;
			/* SQLite's quick_check lists one problem a line, after a
			 * heading; other backends' say one line. */
			static const char head[] = "*** in database main ***\n";
			const char *at = strstr(why, head);
			if (at)
				bt_log_warn("%.*s%.*s", (int)(at - why), why,
					    (int)strcspn(at + sizeof head - 1, "\n"), at + sizeof head - 1);
			else
				bt_log_warn("%.*s", (int)strcspn(why, "\n"), why);
			damaged++;
		}
	}
	if (!damaged && !lost)
		return BT_OK;
	return bt_err_set(err, BT_ERR_FORMAT, "%s: metadata.yaml rebuilt, but the bag is damaged "
			  "and could not be fully recovered (%s%s%s): messages in damaged pages "
			  "are lost, and 'bagtop check' will report it", dir,
			  damaged ? "a storage file fails the integrity check of " : "",
			  damaged ? format : "", damaged ? "" : "messages do not read back");
}

/* In a FILE-mode bag whose writer died, closed files may still be plain
 * .db3: rosbag2 would try to inflate them. Finish the compressor's job. */
static bt_status bag_reindex_finish_compression(const struct bag_reader *r, size_t *done,
						struct bt_error *err)
{
	*done = 0;
	if (strcmp(bag_reader_compression(r), "FILE") != 0)
		return BT_OK;
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		if (f->compressed)
			continue;
		char *dst = bt_xasprintf("%s" BAG_STORAGE_FILE_COMPRESSED, f->path);
		/* bag_reindex_settle_pairs left no pair: anything there now is new. */
		bt_status st = bt_fs_exists(dst) ? bt_err_set(err, BT_ERR_EXISTS, "%s appeared while "
							      "reindexing; not compressing %s over it",
							      dst, f->path)
						 : bag_zstd_compress_file(f->path, dst, NULL, err);
		if (st == BT_OK && unlink(f->path) != 0)
			st = bt_err_errno(err, errno, "cannot remove %s", f->path);
		free(dst);
		if (st != BT_OK)
			return st;
		bt_log_info("compressed %s, left uncompressed by the interrupted recording",
			    f->path);
		(*done)++;
	}
	return BT_OK;
}

static bt_status bag_reindex_open(const char *dir, struct bag_reader **r, struct bt_error *err)
{
	const unsigned flags = BAG_READER_IGNORE_METADATA | BAG_READER_RECOVER |
			       BAG_READER_NOTE_DAMAGE;
	bt_status st = bag_reindex_settle_pairs(dir, err);
	if (st == BT_OK)
		st = bag_reader_open(dir, flags, r, err);
	size_t compressed = 0;
	if (st == BT_OK)
		st = bag_reindex_finish_compression(*r, &compressed, err);
	if (st == BT_OK && compressed) {
		bag_reader_close(*r);
		*r = NULL;
		st = bag_reader_open(dir, flags, r, err);
	} else if (st != BT_OK && *r) {
		bag_reader_close(*r);
	}
	return st;
}

bt_status bag_reindex(const char *dir, struct bag_reindex_result *res, struct bt_error *err)
{
	if (!bt_fs_exists(dir))
		return bt_err_set(err, BT_ERR_NOTFOUND, "%s: no such bag directory", dir);
	if (!bt_fs_is_dir(dir))
		return bt_err_set(err, BT_ERR_USAGE, "%s: reindex needs a bag directory, not a file",
				  dir);
	/* Refuse before touching anything: it could not be replaced at the end. */
	char *mdpath = bt_fs_join(dir, BAG_METADATA_FILE);
	bool md_odd = bt_fs_exists(mdpath) && !bt_fs_is_file(mdpath);
	bt_status st = md_odd ? bt_err_set(err, BT_ERR_FORMAT, "%s is not a regular file; "
					   "move it away to reindex", mdpath) : BT_OK;
	free(mdpath);
	if (st != BT_OK)
		return st;
	struct bag_reader *r = NULL;
	st = bag_reindex_open(dir, &r, err);
	if (st != BT_OK)
		return st;
	struct bag_metadata md, old;
	struct bag_reindex_result local;
	if (!res)
		res = &local;
	struct bt_error old_err; /* an unreadable metadata.yaml is what reindex repairs */
	bool have_old = bag_metadata_read(dir, &old, &old_err) == BT_OK;
	bag_reindex_build(r, &md);
	/* The bag keeps its layout (a Humble bag stays readable by Humble). */
	if (have_old && old.version >= BAG_MDV_QOS)
		md.version = old.version;
	struct bt_error lost = {0};
	bag_reindex_stats(r, have_old ? &old : NULL, &md, res, &lost);
	if (have_old)
		bag_metadata_fini(&old);
	size_t removed = bag_reindex_remove_leftovers(dir);
	st = bag_reindex_blank(dir, r, &removed, err);
	if (st == BT_OK)
		st = bag_metadata_write(dir, &md, err);
	res->files = md.n_paths;
	res->messages = md.message_count;
	res->leftovers_removed = removed;
	if (st == BT_OK)
		st = bag_reindex_damage(dir, r, lost.msg[0] ? &lost : NULL, err);
	bag_metadata_fini(&md);
	bag_reader_close(r);
	return st;
}
