#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_tools.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "store__zstd.h"

static char *bag_reindex_plain_name(const char *name)
{
	if (bt_str_ends_with(name, ".zstd"))
		return bt_xstrndup(name, strlen(name) - 5);
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
		fi->duration = f->message_count ? f->end - f->start : 0;
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

void bag_reindex_build(const struct bag_reader *r, struct bag_metadata *md)
{
	bag_metadata_init(md);
	bag_reindex_files(r, md);
	md->message_count = bag_reader_message_count(r);
	md->starting_time = bag_reader_start(r);
	md->duration = md->message_count ? bag_reader_end(r) - md->starting_time : 0;
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
	bag_reindex_from_embedded(r, md);
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
		bool ours = bt_str_ends_with(names[i], ".db3.zstd.tmp") ||
			    !strcmp(names[i], BAG_METADATA_FILE ".tmp");
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

/* A storage file with no table at all was being created when the writer
 * died: it never held a message. */
static size_t bag_reindex_remove_blank(const struct bag_reader *r)
{
	size_t n, removed = 0;
	const char *const *blank = bag_reader_blank(r, &n);
	for (size_t i = 0; i < n; i++) {
		char *journal = bt_xasprintf("%s-journal", blank[i]);
		unlink(journal);
		free(journal);
		if (unlink(blank[i]) == 0) {
			removed++;
			bt_log_info("removed %s: its creation was interrupted, it held no message",
				    blank[i]);
		}
	}
	return removed;
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
		char *dst = bt_xasprintf("%s.zstd", f->path);
		bt_status st = bag_zstd_compress_file(f->path, dst, err);
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
	const unsigned flags = BAG_READER_IGNORE_METADATA | BAG_READER_RECOVER;
	bt_status st = bag_reader_open(dir, flags, r, err);
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
	struct bag_metadata md;
	bag_reindex_build(r, &md);
	size_t removed = bag_reindex_remove_leftovers(dir) + bag_reindex_remove_blank(r);
	st = bag_metadata_write(dir, &md, err);
	if (st == BT_OK && res) {
		res->files = md.n_paths;
		res->messages = md.message_count;
		res->leftovers_removed = removed;
	}
	bag_metadata_fini(&md);
	bag_reader_close(r);
	return st;
}
