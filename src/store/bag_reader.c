/* DESIGN: opening summarises every storage file once (topics, per-topic
 * counts and time ranges, embedded metadata) and closes it again; message
 * iteration later opens every file and merges their (timestamp, id)-ordered
 * cursors, so split files whose time ranges overlap still come out in
 * timestamp order. Topics are merged across files by name: the same topic
 * has a different row id in every file. */
#include "bag_reader.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_storage.h"
#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "store__zstd.h"

struct br_cursor {
	struct bag_storage *s;
	size_t *topic_map; /* file topic id -> reader topic, by position in ids */
	int64_t *ids;
	size_t n_ids;
	bool has_row;
	struct bag_storage_msg row;
};

struct bag_reader {
	char *dir;
	unsigned flags;
	bool has_md;
	struct bag_metadata md;
	struct bag_reader_file *files;
	size_t n_files, cap_files;
	struct bag_reader_topic *topics;
	size_t n_topics, cap_topics;
	char *tmpdir; /* inflated FILE-mode files */
	size_t n_inflated;
	char **blank; /* files with no table at all (RECOVER) */
	size_t n_blank;
	struct bag_reader_skip *skipped; /* SKIP_UNREADABLE */
	size_t n_skipped, cap_skipped;
	struct br_cursor *cursors;
	bool iterating;
	size_t last; /* cursor of the message returned last; n_files if none */
	bool message_mode;
	struct bt_buf inflated;
};

/* ---- listing storage files ---- */

/* Under SKIP_UNREADABLE, notes that the file at `path` is left out for the
 * reason in *why (a message naming it) and returns BT_OK; otherwise, or
 * for a want of memory, returns st. */
static bt_status br_skip(struct bag_reader *r, const char *path, bt_status st,
			 const struct bt_error *why)
{
	if (!(r->flags & BAG_READER_SKIP_UNREADABLE) || st == BT_ERR_NOMEM)
		return st;
	bt_xgrow((void **)&r->skipped, &r->cap_skipped, r->n_skipped + 1, sizeof *r->skipped);
	r->skipped[r->n_skipped++] = (struct bag_reader_skip){bt_xstrdup(path),
							      bt_xstrdup(why->msg)};
	return BT_OK;
}

static struct bag_reader_file *br_add_file(struct bag_reader *r, const char *name, char *path)
{
	bt_xgrow((void **)&r->files, &r->cap_files, r->n_files + 1, sizeof *r->files);
	struct bag_reader_file *f = &r->files[r->n_files++];
	memset(f, 0, sizeof *f);
	f->name = bt_xstrdup(name);
	f->path = path;
	f->compressed = bt_str_ends_with(path, BAG_STORAGE_FILE_COMPRESSED);
	f->storage = bag_storage_by_name(path, NULL, NULL);
	f->start = BAG_TIME_NONE;
	f->end = INT64_MIN;
	return f;
}

/* metadata.yaml entries are bare names; v<=3 and old compressed bags wrote
 * "<bag>/<file>", and a crash can leave "<file>.zstd" where "<file>" is
 * listed (the plain file is removed only after compression completed). */
static char *br_resolve(const struct bag_reader *r, const char *entry)
{
	char *base = bt_fs_basename(entry);
	char *cand[4] = {bt_fs_join(r->dir, entry), bt_fs_join(r->dir, base), NULL, NULL};
	cand[2] = bt_xasprintf("%s" BAG_STORAGE_FILE_COMPRESSED, cand[0]);
	cand[3] = bt_xasprintf("%s" BAG_STORAGE_FILE_COMPRESSED, cand[1]);
	char *found = NULL;
	for (size_t i = 0; i < 4; i++) {
		if (!found && bt_fs_exists(cand[i]))
			found = cand[i];
		else
			free(cand[i]);
	}
	free(base);
	return found;
}

struct br_file_id {
	dev_t dev;
	ino_t ino;
	size_t file;
};

static int br_cmp_file_id(const void *a, const void *b)
{
	const struct br_file_id *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/* A file listed twice (under any spelling) would be read, and counted,
 * twice. Sorted by inode: metadata.yaml may list very many entries. */
static bt_status br_files_distinct(struct bag_reader *r, struct bt_error *err)
{
	struct br_file_id *ids = bt_xcalloc(r->n_files, sizeof *ids);
	for (size_t i = 0; i < r->n_files; i++) {
		struct stat st;
		if (stat(r->files[i].path, &st) == 0)
			ids[i] = (struct br_file_id){st.st_dev, st.st_ino, i};
		else
			ids[i] = (struct br_file_id){0, 0, i}; /* reported when opened */
	}
	qsort(ids, r->n_files, sizeof *ids, br_cmp_file_id);
	bt_status st = BT_OK;
	for (size_t i = 1; st == BT_OK && i < r->n_files; i++) {
		if (!ids[i].ino || ids[i].dev != ids[i - 1].dev || ids[i].ino != ids[i - 1].ino)
			continue;
		const char *a = r->files[ids[i - 1].file].name, *b = r->files[ids[i].file].name;
		st = bt_err_set(err, BT_ERR_FORMAT, "%s: metadata.yaml lists storage file '%s' "
				"twice%s%s%s", r->dir, a, strcmp(a, b) ? " (also as '" : "",
				strcmp(a, b) ? b : "", strcmp(a, b) ? "')" : "");
	}
	free(ids);
	return st;
}

static bt_status br_files_from_metadata(struct bag_reader *r, struct bt_error *err)
{
	if (r->md.n_paths == 0 && r->md.message_count == 0)
		return BT_OK;
	if (r->md.n_paths == 0)
		return bt_err_set(err, BT_ERR_FORMAT, "%s/metadata.yaml lists no storage files",
				  r->dir);
	for (size_t i = 0; i < r->md.n_paths; i++) {
		const char *entry = r->md.relative_file_paths[i];
		char *path = br_resolve(r, entry);
		if (!path) {
			struct bt_error why;
			bt_status st = bt_err_set(&why, BT_ERR_NOTFOUND, "%s: storage file '%s' "
						  "listed in metadata.yaml is missing", r->dir,
						  entry);
			char *expected = bt_fs_join(r->dir, entry);
			st = br_skip(r, expected, st, &why);
			free(expected);
			if (st != BT_OK)
				return bt_err_set(err, why.code, "%s", why.msg);
			continue;
		}
		struct bag_reader_file *f = br_add_file(r, entry, path);
		/* A name no backend knows: the one metadata.yaml names, if any. */
		if (!f->storage)
			f->storage = bag_storage_find(r->md.storage_identifier);
	}
	return br_files_distinct(r, err);
}

/* rosbag2 names files "<bag>_<N><extension>": sort by N, other names after. */
static long br_split_number(const char *name)
{
	size_t stem;
	const char *dot = bag_storage_by_name(name, &stem, NULL) ? name + stem : NULL;
	const char *p = dot;
	while (p && p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!dot || p == dot || p == name || p[-1] != '_')
		return -1;
	return strtol(p, NULL, 10);
}

bool bag_reader_is_storage_name(const char *name)
{
	return bag_storage_by_name(name, NULL, NULL) != NULL;
}

static int br_cmp_names(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;
	long nx = br_split_number(x), ny = br_split_number(y);
	if (nx >= 0 && ny >= 0 && nx != ny)
		return nx < ny ? -1 : 1;
	if ((nx >= 0) != (ny >= 0))
		return nx >= 0 ? -1 : 1;
	return strcmp(x, y);
}

static bool br_listed(char **names, size_t n, const char *want)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], want))
			return true;
	return false;
}

/* "<prefix>_<N>.<ext>", ext letters and digits: named as rosbag2 names
 * storage files (a side file, "x_0.db3-journal", is not). */
static bool br_split_like(const char *name)
{
	const char *dot = strrchr(name, '.');
	const char *p = dot;
	while (p && p > name && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!dot || !dot[1] || p == dot || p <= name + 1 || p[-1] != '_')
		return false;
	for (const char *e = dot + 1; *e; e++)
		if (!isalnum((unsigned char)*e))
			return false;
	return true;
}

char *bag_reader_foreign_file(const char *dir)
{
	char **names;
	size_t n;
	char *found = NULL;
	if (bt_fs_list_dir(dir, &names, &n, NULL) != BT_OK)
		return NULL;
	for (size_t i = 0; !found && i < n; i++)
		if (br_split_like(names[i]) && !bag_reader_is_storage_name(names[i]))
			found = bt_xstrdup(names[i]);
	bt_fs_free_list(names, n);
	return found;
}

/* No file any backend reads: one line, naming a file that looks like a
 * storage file of a backend bagtop does not have. */
static bt_status br_no_files(const struct bag_reader *r, struct bt_error *err)
{
	char *known = bag_storage_known_list();
	char *foreign = bag_reader_foreign_file(r->dir);
	bt_status st;
	if (foreign)
		st = bt_err_set(err, BT_ERR_FORMAT, "%s: no storage backend reads %s (its extension "
				"'%s' is unknown; known: %s)", r->dir, foreign, strrchr(foreign, '.'),
				known);
	else
		st = bt_err_set(err, BT_ERR_NOTFOUND, "%s: no rosbag2 storage files in this "
				"directory (known: %s)", r->dir, known);
	free(foreign);
	free(known);
	return st;
}

static bt_status br_files_from_listing(struct bag_reader *r, struct bt_error *err)
{
	char **names;
	size_t n;
	bt_status st = bt_fs_list_dir(r->dir, &names, &n, err);
	if (st != BT_OK)
		return st;
	size_t keep = 0;
	for (size_t i = 0; i < n; i++) {
		if (bag_reader_is_storage_name(names[i]))
			names[keep++] = names[i];
		else
			free(names[i]);
	}
	if (keep) /* names is NULL for an empty directory */
		qsort(names, keep, sizeof *names, br_cmp_names);
	for (size_t i = 0; i < keep; i++) {
		/* Both X and X.zstd: the plain file is complete (it is
		 * compressed only after it was closed); prefer it. */
		if (bt_str_ends_with(names[i], BAG_STORAGE_FILE_COMPRESSED)) {
			char *plain = bt_xstrndup(names[i], strlen(names[i]) -
						  strlen(BAG_STORAGE_FILE_COMPRESSED));
			bool dup = br_listed(names, keep, plain);
			free(plain);
			if (dup)
				continue;
		}
		br_add_file(r, names[i], bt_fs_join(r->dir, names[i]));
	}
	bt_fs_free_list(names, keep);
	return r->n_files ? BT_OK : br_no_files(r, err);
}

/* ---- summarising one file ---- */

static bt_status br_tmpdir(struct bag_reader *r, struct bt_error *err)
{
	if (r->tmpdir)
		return BT_OK;
	const char *base = getenv("TMPDIR");
	char *tmpl = bt_xasprintf("%s/bagtop-XXXXXX", base && *base ? base : "/tmp");
	if (!mkdtemp(tmpl)) {
		bt_status st = bt_err_errno(err, errno, "cannot create a temporary directory %s",
					    tmpl);
		free(tmpl);
		return st;
	}
	r->tmpdir = tmpl;
	return BT_OK;
}

/* Where the storage file of f is readable: itself, or an inflated copy
 * (named with its backend's extension). */
static bt_status br_materialise(struct bag_reader *r, size_t i, char **db_path,
				struct bt_error *err)
{
	struct bag_reader_file *f = &r->files[i];
	if (!f->compressed || f->inflated) {
		*db_path = bt_xstrdup(f->compressed ? f->inflated : f->path);
		return BT_OK;
	}
	bt_status st = br_tmpdir(r, err);
	if (st != BT_OK)
		return st;
	char *dst = bt_xasprintf("%s/%zu%s", r->tmpdir, r->n_inflated++, f->storage->extension);
	st = bag_zstd_decompress_file(f->path, dst, err);
	if (st != BT_OK) {
		unlink(dst);
		free(dst);
		return st;
	}
	f->inflated = dst;
	*db_path = bt_xstrdup(dst);
	return BT_OK;
}

static size_t br_topic_index(struct bag_reader *r, const struct bag_topic *t)
{
	for (size_t i = 0; i < r->n_topics; i++)
		if (!strcmp(r->topics[i].topic.name, t->name))
			return i;
	bt_xgrow((void **)&r->topics, &r->cap_topics, r->n_topics + 1, sizeof *r->topics);
	struct bag_reader_topic *rt = &r->topics[r->n_topics];
	memset(rt, 0, sizeof *rt);
	bag_topic_copy(&rt->topic, t);
	return r->n_topics++;
}

static void br_take_topics(struct bag_reader *r, struct bag_reader_file *f,
			   const struct bag_storage_topic *t, size_t n)
{
	f->topics = bt_xcalloc(n, sizeof *f->topics);
	f->n_topics = n;
	for (size_t i = 0; i < n; i++) {
		struct bag_reader_file_topic *ft = &f->topics[i];
		ft->topic = br_topic_index(r, &t[i].topic);
		ft->id = t[i].id;
		ft->count = t[i].count;
		ft->start = t[i].min_ts;
		ft->end = t[i].max_ts;
		r->topics[ft->topic].count += t[i].count;
		f->message_count += t[i].count;
		if (t[i].count && t[i].min_ts < f->start)
			f->start = t[i].min_ts;
		if (t[i].count && t[i].max_ts > f->end)
			f->end = t[i].max_ts;
	}
}

/* metadata.yaml's entry for file f, by its bare name, or NULL. */
static const struct bag_file_info *br_md_file(const struct bag_reader *r,
					      const struct bag_reader_file *f)
{
	char *base = bt_fs_basename(f->name);
	const struct bag_file_info *found = NULL;
	for (size_t i = 0; !found && i < r->md.n_files; i++)
		if (!strcmp(r->md.files[i].path, f->name) || !strcmp(r->md.files[i].path, base))
			found = &r->md.files[i];
	free(base);
	return found;
}

/* metadata.yaml's message count of topic `name` in the file of entry fi:
 * the topic total when the bag is that one file, else the file's
 * topics_statistics (a topic left out there has none); false when it
 * gives none. */
static bool br_md_topic_count(const struct bag_metadata *md, const struct bag_file_info *fi,
			      const char *name, uint64_t *n)
{
	*n = 0;
	if (md->n_files == 1 && md->n_paths == 1) {
		for (size_t i = 0; i < md->n_topics; i++)
			if (!strcmp(md->topics[i].topic.name, name))
				*n = md->topics[i].message_count;
		return true;
	}
	if (!fi->has_stats)
		return false;
	for (size_t i = 0; i < fi->n_topics_stats; i++)
		if (!strcmp(fi->topics_stats[i].topic, name))
			*n = fi->topics_stats[i].stats.messages_recorded;
	return true;
}

/* Fills the figures of the file's topics t (from read_outline: `count`
 * messages from `first` to `last`) from metadata.yaml's entry fi: true
 * when it gives every topic's count and they add up to the file's count
 * both there and in the file. A topic's time range is the file's. */
static bool br_counts_from_md(const struct bag_metadata *md, const struct bag_file_info *fi,
			      struct bag_storage_topic *t, size_t n, uint64_t count,
			      int64_t first, int64_t last)
{
	if (fi->message_count != count)
		return false;
	uint64_t sum = 0;
	for (size_t i = 0; i < n; i++) {
		if (!br_md_topic_count(md, fi, t[i].topic.name, &t[i].count))
			return false;
		sum += t[i].count;
		t[i].min_ts = t[i].count ? first : BAG_TIME_NONE;
		t[i].max_ts = t[i].count ? last : INT64_MIN;
	}
	return sum == count;
}

/* The file's topics with their figures: from metadata.yaml under
 * COUNTS_FROM_METADATA when it gives them (br_counts_from_md), else
 * counted by the backend. */
static bt_status br_read_topics(struct bag_reader *r, struct bag_reader_file *f,
				struct bag_storage *s, struct bag_storage_topic **t, size_t *n,
				struct bt_error *err)
{
	const struct bag_file_info *fi = NULL;
	if ((r->flags & BAG_READER_COUNTS_FROM_METADATA) && r->has_md && s->ops->read_outline)
		fi = br_md_file(r, f);
	if (fi) {
		uint64_t count;
		int64_t first, last;
		bt_status st = s->ops->read_outline(s, t, n, &count, &first, &last, err);
		if (st != BT_OK)
			return st;
		if (br_counts_from_md(&r->md, fi, *t, *n, count, first, last)) {
			f->orphans = 0; /* the topics' counts add up to every message */
			return BT_OK;
		}
		bag_storage_topics_free(*t, *n);
		*t = NULL;
		*n = 0;
	}
	return s->ops->read_topics(s, t, n, &f->orphans, err);
}

static bt_status br_summarise_db(struct bag_reader *r, struct bag_reader_file *f,
				 struct bag_storage *s, struct bt_error *err)
{
	struct bag_storage_topic *t = NULL;
	size_t n = 0;
	bt_status st = BT_OK;
	if (r->flags & BAG_READER_INTEGRITY)
		st = s->ops->check(s, (r->flags & BAG_READER_INTEROP) ? &f->interop : NULL, err);
	struct bt_error dmg;
	if (st == BT_OK && (r->flags & BAG_READER_NOTE_DAMAGE) &&
	    s->ops->check(s, NULL, &dmg) != BT_OK)
		f->damage = bt_xstrdup(dmg.msg);
	if (st == BT_OK)
		st = br_read_topics(r, f, s, &t, &n, err);
	if (st != BT_OK)
		return st;
	f->schema_version = s->ops->version(s);
	st = s->ops->read_metadata(s, &f->embedded, &f->has_embedded, err);
	if (st == BT_OK)
		st = s->ops->peek_compressed(s, &f->message_compressed, err);
	/* Last, so that a file failing (and skipped) adds no topic or count. */
	if (st == BT_OK)
		br_take_topics(r, f, t, n);
	bag_storage_topics_free(t, n);
	return st;
}

/* f opened with its backend; one line naming the file when it has none. */
static bt_status br_storage_open(const struct bag_reader *r, const struct bag_reader_file *f,
				 const char *readable, enum bag_storage_mode mode,
				 struct bag_storage **s, struct bt_error *err)
{
	*s = NULL;
	if (f->storage)
		return f->storage->open(readable, mode, s, err);
	char *known = bag_storage_known_list();
	bt_status st = bt_err_set(err, BT_ERR_FORMAT, "%s: no storage backend reads this file "
				  "(%s%s%s; known: %s)", f->path,
				  r->has_md ? "storage_identifier '" : "unknown file name extension",
				  r->has_md ? r->md.storage_identifier : "", r->has_md ? "'" : "",
				  known);
	free(known);
	return st;
}

static bt_status br_summarise(struct bag_reader *r, size_t i, struct bt_error *err)
{
	struct bag_reader_file *f = &r->files[i];
	char *db_path = NULL;
	struct bag_storage *s = NULL;
	enum bag_storage_mode mode = (r->flags & BAG_READER_RECOVER) ? BAG_STORAGE_RECOVER
								      : BAG_STORAGE_READ;
	bt_status st = bt_fs_file_size(f->path, &f->size, err);
	if (st == BT_OK && !bt_fs_is_file(f->path))
		st = bt_err_set(err, BT_ERR_FORMAT, "%s: not a regular file", f->path);
	if (st == BT_OK && !f->storage)
		st = br_storage_open(r, f, f->path, mode, &s, err);
	if (st == BT_OK)
		st = br_materialise(r, i, &db_path, err);
	if (st == BT_OK)
		st = br_storage_open(r, f, db_path, mode, &s, err);
	if (st == BT_OK && s->ops->version(s) == 0)
		f->schema_version = 0; /* blank: bag_reader_open drops it */
	else if (st == BT_OK)
		st = br_summarise_db(r, f, s, err);
	bag_storage_discard(s);
	free(db_path);
	return st;
}

/* ---- opening ---- */

static bt_status br_open_dir(struct bag_reader *r, struct bt_error *err)
{
	char *mdpath = bt_fs_join(r->dir, BAG_METADATA_FILE);
	bool have = !(r->flags & BAG_READER_IGNORE_METADATA) && bt_fs_exists(mdpath);
	free(mdpath);
	if (!have)
		return br_files_from_listing(r, err);
	bt_status st = bag_metadata_read(r->dir, &r->md, err);
	if (st != BT_OK)
		return st;
	r->has_md = true;
	return br_files_from_metadata(r, err);
}

/* The first bytes of the file at `path` into head[0..cap): how many (0 if
 * it cannot be read). */
static size_t br_read_head(const char *path, char *head, size_t cap)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return 0;
	size_t n = fread(head, 1, cap, fp);
	fclose(fp);
	return n;
}

#define BR_ROS1_MAGIC "#ROSBAG V2.0"

/* A file named freely (no backend's extension): its backend by the bytes
 * it starts with. An empty or unreadable one goes to the default backend,
 * which says what it makes of it. */
static bt_status br_sniff(struct bag_reader_file *f, struct bt_error *err)
{
	char head[BAG_STORAGE_MAGIC_MAX + 1] = "";
	size_t n = br_read_head(f->path, head, BAG_STORAGE_MAGIC_MAX);
	f->storage = n ? bag_storage_by_magic(head, n) : bag_storage_default();
	if (f->storage)
		return BT_OK;
	char *known = bag_storage_known_list();
	bt_status st = bt_err_set(err, BT_ERR_FORMAT, "%s: not a storage file bagtop reads%s "
				  "(known: %s)", f->path,
				  !strncmp(head, BR_ROS1_MAGIC, strlen(BR_ROS1_MAGIC))
					  ? ": a ROS 1 bag, which rosbag2 does not read either (the "
					    "'rosbags' tools convert it)"
					  : "",
				  known);
	free(known);
	return st;
}

static bt_status br_open_path(struct bag_reader *r, const char *path, struct bt_error *err)
{
	if (!bt_fs_exists(path))
		return bt_err_set(err, BT_ERR_NOTFOUND, "%s: no such file or directory", path);
	if (bt_fs_is_dir(path)) {
		r->dir = bt_xstrdup(path);
		return br_open_dir(r, err);
	}
	if (!bt_fs_is_file(path))
		return bt_err_set(err, BT_ERR_FORMAT, "%s: not a file or directory", path);
	char *base = bt_fs_basename(path);
	r->dir = bt_fs_dirname(path);
	bt_status st = BT_OK;
	if (!strcmp(base, BAG_METADATA_FILE))
		st = br_open_dir(r, err);
	else if (!br_add_file(r, base, bt_xstrdup(path))->storage)
		st = br_sniff(&r->files[0], err);
	free(base);
	return st;
}

static void br_file_fini(struct bag_reader_file *f)
{
	free(f->inflated);
	free(f->damage);
	free(f->interop);
	free(f->name);
	free(f->path);
	free(f->topics);
	if (f->has_embedded)
		bag_metadata_fini(&f->embedded);
}

/* Moves blank files (schema 0) out of the file list. Their inflated copies,
 * if any, stay in the temporary directory until close. */
static void br_drop_blank(struct bag_reader *r)
{
	size_t keep = 0;
	for (size_t i = 0; i < r->n_files; i++) {
		struct bag_reader_file *f = &r->files[i];
		if (f->schema_version != 0) {
			r->files[keep++] = *f;
			continue;
		}
		r->blank = bt_xrealloc(r->blank, (r->n_blank + 1) * sizeof *r->blank);
		r->blank[r->n_blank++] = f->path;
		f->path = NULL;
		br_file_fini(f);
	}
	r->n_files = keep;
}

/* Files found by listing the directory (no metadata.yaml) come in name
 * order, <bag>_<N> by N, other names after (a snapshot's --name): put
 * those holding messages in the order of their first message (stable, as
 * the recorder listed them), so that a reindexed metadata.yaml lists them
 * as written and rosbag2, which reads them in that order, plays them in
 * time order. Files without messages keep their places. */
static void br_order_listed(struct bag_reader *r)
{
	if (r->has_md || r->n_files < 2)
		return;
	struct bag_reader_file *f = r->files;
	/* Insertion sort over the files with messages only: a few hundred. */
	for (size_t i = 1; i < r->n_files; i++) {
		if (!f[i].message_count)
			continue;
		for (size_t j = i; j > 0;) {
			size_t k = j; /* the previous file with messages */
			while (k > 0 && !f[k - 1].message_count)
				k--;
			if (k == 0 || f[k - 1].start <= f[j].start)
				break;
			struct bag_reader_file t = f[k - 1];
			f[k - 1] = f[j];
			f[j] = t;
			j = k - 1;
		}
	}
}

/* A backend's errors (SQLite's) name the inflated copy of a FILE-compressed
 * file, which lives in our private temporary directory and is gone by the
 * time the user reads the message: name the bag's own file instead. */
static void br_err_real_names(const struct bag_reader *r, struct bt_error *err)
{
	for (size_t i = 0; err && i < r->n_files; i++) {
		const struct bag_reader_file *f = &r->files[i];
		const char *at = f->inflated ? strstr(err->msg, f->inflated) : NULL;
		if (!at)
			continue;
		struct bt_buf b = BT_BUF_INIT;
		if (bt_buf_printf(&b, "%.*s%s (decompressed)%s", (int)(at - err->msg), err->msg,
				  f->path, at + strlen(f->inflated)) == BT_OK)
			bt_err_set(err, err->code, "%s", b.data);
		bt_buf_fini(&b);
	}
}

/* Summarises every file. Under SKIP_UNREADABLE, one that fails is moved
 * out to r->skipped, and only a bag left with no file at all (when it had
 * some) fails, with the first one's reason. */
static bt_status br_summarise_all(struct bag_reader *r, struct bt_error *err)
{
	bool *bad = bt_xcalloc(r->n_files + 1, sizeof *bad);
	bt_status st = BT_OK;
	for (size_t i = 0; st == BT_OK && i < r->n_files; i++) {
		struct bt_error why = {0};
		st = br_summarise(r, i, &why);
		if (st == BT_OK)
			continue;
		br_err_real_names(r, &why);
		bad[i] = true;
		st = br_skip(r, r->files[i].path, st, &why);
		if (st != BT_OK)
			bt_err_set(err, why.code, "%s", why.msg);
	}
	size_t keep = 0;
	for (size_t i = 0; st == BT_OK && i < r->n_files; i++) {
		if (bad[i])
			br_file_fini(&r->files[i]);
		else
			r->files[keep++] = r->files[i];
	}
	if (st == BT_OK)
		r->n_files = keep;
	free(bad);
	if (st == BT_OK && keep == 0 && r->n_skipped > 0)
		st = bt_err_set(err, BT_ERR_FORMAT, "%s", r->skipped[0].reason);
	return st;
}

/* A directory's backend: metadata.yaml's, else its first storage file's. */
static const struct bag_storage_ops *br_dir_storage(const char *dir)
{
	struct bag_metadata md;
	const struct bag_storage_ops *ops = NULL;
	if (bag_metadata_read(dir, &md, NULL) == BT_OK) {
		ops = bag_storage_find(md.storage_identifier);
		bag_metadata_fini(&md);
		if (ops)
			return ops;
	}
	char **names;
	size_t n;
	if (bt_fs_list_dir(dir, &names, &n, NULL) != BT_OK)
		return NULL;
	for (size_t i = 0; !ops && i < n; i++)
		ops = bag_storage_by_name(names[i], NULL, NULL);
	bt_fs_free_list(names, n);
	return ops;
}

const struct bag_storage_ops *bag_reader_storage_of(const char *path)
{
	if (bt_fs_is_dir(path))
		return br_dir_storage(path);
	char *base = bt_fs_basename(path);
	const struct bag_storage_ops *ops = NULL;
	if (!strcmp(base, BAG_METADATA_FILE)) {
		char *dir = bt_fs_dirname(path);
		ops = br_dir_storage(dir);
		free(dir);
	} else {
		char head[BAG_STORAGE_MAGIC_MAX];
		size_t n = 0;
		ops = bag_storage_by_name(base, NULL, NULL);
		if (!ops && (n = br_read_head(path, head, sizeof head)) > 0)
			ops = bag_storage_by_magic(head, n);
	}
	free(base);
	return ops;
}

/* A bag is in one storage format: metadata.yaml has one storage_identifier,
 * and rosbag2 opens every file with that plugin. Files of two backends in
 * one directory (a bag converted in place, two bags' files together) are
 * refused by name rather than read as one bag. */
static bt_status br_one_storage(const struct bag_reader *r, struct bt_error *err)
{
	for (size_t i = 1; i < r->n_files; i++) {
		const struct bag_reader_file *a = &r->files[0], *b = &r->files[i];
		if (!a->storage || !b->storage || a->storage == b->storage)
			continue;
		return bt_err_set(err, BT_ERR_FORMAT, "%s: holds %s files and %s files (%s, %s); "
				  "a bag is in one storage format: move one kind out", r->dir,
				  a->storage->identifier, b->storage->identifier, a->name, b->name);
	}
	return BT_OK;
}

bt_status bag_reader_open(const char *path, unsigned flags, struct bag_reader **out,
			  struct bt_error *err)
{
	struct bag_reader *r = bt_xcalloc(1, sizeof *r);
	r->flags = flags;
	bt_status st = br_open_path(r, path, err);
	if (st == BT_OK)
		st = br_one_storage(r, err);
	if (st == BT_OK)
		st = br_summarise_all(r, err);
	if (st == BT_OK) {
		br_drop_blank(r);
		br_order_listed(r);
	}
	if (st != BT_OK) {
		br_err_real_names(r, err);
		bag_reader_close(r);
		return st;
	}
	const char *mode = bag_reader_compression(r);
	r->message_mode = !strcmp(mode, "MESSAGE");
	*out = r;
	return BT_OK;
}

static void br_cursors_free(struct bag_reader *r)
{
	if (!r->cursors)
		return;
	for (size_t i = 0; i < r->n_files; i++) {
		bag_storage_discard(r->cursors[i].s);
		free(r->cursors[i].topic_map);
		free(r->cursors[i].ids);
	}
	free(r->cursors);
	r->cursors = NULL;
}

/* The directory is private to this reader: everything in it is ours
 * (inflated files and the side files a backend made beside them). */
static void br_rm_tmpdir(struct bag_reader *r)
{
	if (!r->tmpdir)
		return;
	char **names;
	size_t n;
	if (bt_fs_list_dir(r->tmpdir, &names, &n, NULL) == BT_OK) {
		for (size_t i = 0; i < n; i++) {
			char *p = bt_fs_join(r->tmpdir, names[i]);
			unlink(p);
			free(p);
		}
		bt_fs_free_list(names, n);
	}
	if (rmdir(r->tmpdir) != 0)
		bt_log_warn("could not remove temporary directory %s", r->tmpdir);
	free(r->tmpdir);
}

void bag_reader_close(struct bag_reader *r)
{
	if (!r)
		return;
	br_cursors_free(r);
	br_rm_tmpdir(r);
	for (size_t i = 0; i < r->n_files; i++)
		br_file_fini(&r->files[i]);
	for (size_t i = 0; i < r->n_blank; i++)
		free(r->blank[i]);
	free(r->blank);
	for (size_t i = 0; i < r->n_skipped; i++) {
		free(r->skipped[i].path);
		free(r->skipped[i].reason);
	}
	free(r->skipped);
	for (size_t i = 0; i < r->n_topics; i++)
		bag_topic_fini(&r->topics[i].topic);
	if (r->has_md)
		bag_metadata_fini(&r->md);
	bt_buf_fini(&r->inflated);
	free(r->files);
	free(r->topics);
	free(r->dir);
	free(r);
}

/* ---- accessors ---- */

const char *bag_reader_dir(const struct bag_reader *r)
{
	return r->dir;
}

const struct bag_metadata *bag_reader_metadata(const struct bag_reader *r)
{
	return r->has_md ? &r->md : NULL;
}

const struct bag_metadata *bag_reader_embedded(const struct bag_reader *r)
{
	for (size_t i = r->n_files; i-- > 0;)
		if (r->files[i].has_embedded)
			return &r->files[i].embedded;
	return NULL;
}

const char *const *bag_reader_blank(const struct bag_reader *r, size_t *n)
{
	*n = r->n_blank;
	return (const char *const *)r->blank;
}

const struct bag_reader_skip *bag_reader_skipped(const struct bag_reader *r, size_t *n)
{
	*n = r->n_skipped;
	return r->skipped;
}

size_t bag_reader_n_files(const struct bag_reader *r)
{
	return r->n_files;
}

const struct bag_reader_file *bag_reader_file(const struct bag_reader *r, size_t i)
{
	return i < r->n_files ? &r->files[i] : NULL;
}

const struct bag_reader_topic *bag_reader_topics(const struct bag_reader *r, size_t *n)
{
	*n = r->n_topics;
	return r->topics;
}

uint64_t bag_reader_message_count(const struct bag_reader *r)
{
	uint64_t n = 0;
	for (size_t i = 0; i < r->n_files; i++)
		n += r->files[i].message_count;
	return n;
}

int64_t bag_reader_start(const struct bag_reader *r)
{
	int64_t t = BAG_TIME_NONE;
	for (size_t i = 0; i < r->n_files; i++)
		if (r->files[i].message_count && r->files[i].start < t)
			t = r->files[i].start;
	return t;
}

int64_t bag_reader_end(const struct bag_reader *r)
{
	int64_t t = INT64_MIN;
	for (size_t i = 0; i < r->n_files; i++)
		if (r->files[i].message_count && r->files[i].end > t)
			t = r->files[i].end;
	return t;
}

uint64_t bag_reader_size(const struct bag_reader *r)
{
	uint64_t n = 0;
	for (size_t i = 0; i < r->n_files; i++)
		n += r->files[i].size;
	return n;
}

const char *bag_reader_compression(const struct bag_reader *r)
{
	for (size_t i = 0; i < r->n_files; i++)
		if (r->files[i].compressed)
			return "FILE";
	for (size_t i = 0; i < r->n_files; i++)
		if (r->files[i].message_compressed)
			return "MESSAGE";
	/* An empty MESSAGE-mode bag shows nothing in its data. */
	const struct bag_metadata *md = r->has_md ? &r->md : bag_reader_embedded(r);
	if (!bag_reader_message_count(r) && md && !strcmp(md->compression_mode, "MESSAGE"))
		return "MESSAGE";
	return "";
}

/* ---- iteration ---- */

/* The file's topic ids come from its summary: reading them again here
 * would count every message of the file once more (read_topics). */
static bt_status br_cursor_open(struct bag_reader *r, size_t i, struct bt_error *err)
{
	struct br_cursor *c = &r->cursors[i];
	const struct bag_reader_file *f = &r->files[i];
	char *db_path;
	bt_status st = br_materialise(r, i, &db_path, err);
	if (st == BT_OK)
		st = br_storage_open(r, f, db_path, BAG_STORAGE_READ, &c->s, err);
	free(db_path);
	if (st != BT_OK)
		return st;
	size_t n = f->n_topics;
	c->ids = n ? bt_xcalloc(n, sizeof *c->ids) : NULL;
	c->topic_map = n ? bt_xcalloc(n, sizeof *c->topic_map) : NULL;
	for (size_t k = 0; k < n; k++) {
		c->ids[k] = f->topics[k].id;
		c->topic_map[k] = f->topics[k].topic;
	}
	c->n_ids = n;
	return BT_OK;
}

static int br_cursor_advance(struct br_cursor *c, struct bt_error *err)
{
	int rc = c->s->ops->read_next(c->s, &c->row, err);
	c->has_row = rc == 1;
	return rc;
}

static bt_status br_start(struct bag_reader *r, struct bt_error *err)
{
	r->iterating = true;
	r->last = r->n_files;
	r->cursors = bt_xcalloc(r->n_files, sizeof *r->cursors);
	for (size_t i = 0; i < r->n_files; i++) {
		bt_status st = br_cursor_open(r, i, err);
		if (st != BT_OK)
			return st;
		int rc = br_cursor_advance(&r->cursors[i], err);
		if (rc < 0)
			return rc;
	}
	return BT_OK;
}

static bool br_map_topic(const struct br_cursor *c, int64_t id, size_t *topic)
{
	for (size_t k = 0; k < c->n_ids; k++) {
		if (c->ids[k] == id) {
			*topic = c->topic_map[k];
			return true;
		}
	}
	return false;
}

static bt_status br_fill(struct bag_reader *r, size_t file, struct bag_read_msg *m,
			 struct bt_error *err)
{
	const struct bag_storage_msg *row = &r->cursors[file].row;
	if (!br_map_topic(&r->cursors[file], row->topic_id, &m->topic))
		return bt_err_set(err, BT_ERR_FORMAT, "%s: message with unknown topic id %lld",
				  r->files[file].path, (long long)row->topic_id);
	m->name = r->topics[m->topic].topic.name;
	m->timestamp = row->timestamp;
	m->send_time = row->send_time;
	m->file = file;
	m->data = row->data;
	m->len = row->len;
	if (r->message_mode && bag_zstd_is_frame(row->data, row->len)) {
		bt_status st = bag_zstd_decompress_msg(row->data, row->len, &r->inflated, err);
		if (st != BT_OK)
			return bt_err_prefix(err, "%s", r->files[file].path);
		m->data = (const uint8_t *)r->inflated.data;
		m->len = r->inflated.len;
	}
	return BT_OK;
}

static int br_next(struct bag_reader *r, struct bag_read_msg *m, struct bt_error *err)
{
	if (!r->iterating) {
		bt_status st = br_start(r, err);
		if (st != BT_OK)
			return st;
	}
	/* The previous message's bytes live in its cursor's row until here. */
	if (r->last < r->n_files) {
		int rc = br_cursor_advance(&r->cursors[r->last], err);
		r->last = r->n_files;
		if (rc < 0)
			return rc;
	}
	size_t best = r->n_files;
	for (size_t i = 0; i < r->n_files; i++) {
		const struct br_cursor *c = &r->cursors[i];
		if (c->has_row && (best == r->n_files ||
				   c->row.timestamp < r->cursors[best].row.timestamp))
			best = i;
	}
	if (best == r->n_files)
		return 0;
	bt_status st = br_fill(r, best, m, err);
	if (st != BT_OK)
		return st;
	r->last = best;
	return 1;
}

int bag_reader_next(struct bag_reader *r, struct bag_read_msg *m, struct bt_error *err)
{
	int rc = br_next(r, m, err);
	if (rc < 0)
		br_err_real_names(r, err);
	return rc;
}
