/* bt_fs — file-system helpers with errno mapped to bt_status once, here:
 * ENOSPC/EFBIG/EDQUOT -> BT_ERR_FULL, ENOENT -> BT_ERR_NOTFOUND,
 * EEXIST -> BT_ERR_EXISTS, anything else -> BT_ERR_IO. */
#ifndef BT_FS_H
#define BT_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

/* Sets *err from errno value `e` with "<fmt>: strerror(e)"; returns the code. */
bt_status bt_err_errno(struct bt_error *err, int e, const char *fmt, ...) BT_PRINTF(3, 4);

bool bt_fs_exists(const char *path);
bool bt_fs_is_dir(const char *path);
bool bt_fs_is_file(const char *path);
/* Opens `path` read-only (close-on-exec) if it is a regular file, else
 * BT_ERR_FORMAT "<path>: not a regular file". The open itself does not
 * block (O_NONBLOCK: a FIFO would wait for a writer forever); the
 * descriptor is made blocking again before it is returned. Every opener of
 * a file in a bag goes through this (SQLite, which opens its files itself,
 * gets only paths that are regular files). */
BT_MUST_CHECK bt_status bt_fs_open_regular(const char *path, int *fd, struct bt_error *err);
/* Size of a regular file; BT_ERR_NOTFOUND if missing. */
BT_MUST_CHECK bt_status bt_fs_file_size(const char *path, uint64_t *size, struct bt_error *err);
/* Creates `path` as a new directory; BT_ERR_EXISTS if anything is there. */
BT_MUST_CHECK bt_status bt_fs_mkdir_new(const char *path, struct bt_error *err);
/* Writes `len` bytes to `path` so that a crash leaves either the old or the
 * new content: write `path.tmp`, fsync, rename over `path`, fsync the dir. */
BT_MUST_CHECK bt_status bt_fs_write_atomic(const char *path, const void *data, size_t len,
					   struct bt_error *err);
/* fsyncs the directory holding `path` (or `path` itself if it is a dir). */
BT_MUST_CHECK bt_status bt_fs_fsync_dir_of(const char *path, struct bt_error *err);
/* Reads a whole file (at most `max` bytes, else BT_ERR_TOOBIG) into a
 * NUL-terminated malloc'ed buffer owned by the caller. */
BT_MUST_CHECK bt_status bt_fs_read_all(const char *path, size_t max, char **out, size_t *len,
				       struct bt_error *err);
/* Lists the entries of `dir` (no "." / ".."), sorted by name; the caller
 * frees each name and the array (bt_fs_free_list). */
BT_MUST_CHECK bt_status bt_fs_list_dir(const char *dir, char ***names, size_t *n,
				       struct bt_error *err);
void bt_fs_free_list(char **names, size_t n);
/* "a" + "/" + "b", malloc'ed (aborts on OOM: set-up path). */
char *bt_fs_join(const char *a, const char *b);
/* Last path component without trailing slashes, malloc'ed. */
char *bt_fs_basename(const char *path);
/* Directory part ("." if none), malloc'ed. */
char *bt_fs_dirname(const char *path);
/* Renames `from` to `to` unless `to` exists (BT_ERR_EXISTS then). */
BT_MUST_CHECK bt_status bt_fs_rename_new(const char *from, const char *to, struct bt_error *err);
/* Renames `path` to "<path><suffix>" (or "<path><suffix>.1", ".2", ...
 * when that exists: nothing is ever replaced). *moved is the new path
 * (malloc'ed) whenever the rename happened, also when the directory's
 * fsync then failed (an error returned); it is left alone otherwise. */
BT_MUST_CHECK bt_status bt_fs_set_aside(const char *path, const char *suffix, char **moved,
					struct bt_error *err);
struct iovec;
/* After a write (writev, pwritev) of k bytes of the *nv pieces at *v, k at
 * most their sum: drops the pieces written whole and starts the first one
 * left past what was written of it. */
void bt_fs_iov_advance(struct iovec **v, size_t *nv, size_t k);
/* Free bytes for unprivileged users on the filesystem holding `path`. */
BT_MUST_CHECK bt_status bt_fs_free_space(const char *path, uint64_t *avail, struct bt_error *err);

#endif
