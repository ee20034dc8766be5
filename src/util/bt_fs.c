#include "bt_fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bt_mem.h"

bt_status bt_err_errno(struct bt_error *err, int e, const char *fmt, ...)
{
	bt_status code = BT_ERR_IO;
	if (e == ENOSPC || e == EFBIG || e == EDQUOT)
		code = BT_ERR_FULL;
	else if (e == ENOENT)
		code = BT_ERR_NOTFOUND;
	else if (e == EEXIST)
		code = BT_ERR_EXISTS;
	else if (e == ENOMEM)
		code = BT_ERR_NOMEM;
	if (err) {
		char head[BT_ERROR_MSG_MAX];
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(head, sizeof head, fmt, ap);
		va_end(ap);
		bt_err_set(err, code, "%s: %s", head, strerror(e));
	}
	return code;
}

bool bt_fs_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

bool bt_fs_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

bool bt_fs_is_file(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

bt_status bt_fs_file_size(const char *path, uint64_t *size, struct bt_error *err)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return bt_err_errno(err, errno, "%s", path);
	*size = (uint64_t)st.st_size;
	return BT_OK;
}

bt_status bt_fs_mkdir_new(const char *path, struct bt_error *err)
{
	if (mkdir(path, 0755) == 0)
		return BT_OK;
	int e = errno;
	if (e != ENOENT)
		return bt_err_errno(err, e, "cannot create bag directory %s", path);
	/* ENOENT alone reads as if the bag were missing: say which part is.
	 * A parent that exists (/proc) does not allow new directories. */
	char *dir = bt_fs_dirname(path);
	bt_status st;
	if (bt_fs_is_dir(dir))
		st = bt_err_set(err, BT_ERR_IO, "cannot create bag directory %s: %s does not allow "
				"new directories (mkdir: %s)", path, dir, strerror(e));
	else
		st = bt_err_set(err, BT_ERR_NOTFOUND, "cannot create bag directory %s: %s is not a "
				"directory or does not exist", path, dir);
	free(dir);
	return st;
}

bt_status bt_fs_fsync_dir_of(const char *path, struct bt_error *err)
{
	char *dir = bt_fs_is_dir(path) ? bt_xstrdup(path) : bt_fs_dirname(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	bt_status st = BT_OK;
	if (fd < 0 || fsync(fd) != 0)
		st = bt_err_errno(err, errno, "cannot sync directory %s", dir);
	if (fd >= 0)
		close(fd);
	free(dir);
	return st;
}

static bt_status bt_fs_write_fd(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return BT_ERR_IO;
		}
		p += w;
		len -= (size_t)w;
	}
	return BT_OK;
}

bt_status bt_fs_write_atomic(const char *path, const void *data, size_t len, struct bt_error *err)
{
	char *tmp = bt_xasprintf("%s.tmp", path);
	bt_status st = BT_OK;
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		st = bt_err_errno(err, errno, "cannot write %s", tmp);
		goto out;
	}
	if (bt_fs_write_fd(fd, data, len) != BT_OK || fsync(fd) != 0) {
		st = bt_err_errno(err, errno, "cannot write %s", tmp);
		close(fd);
		unlink(tmp);
		goto out;
	}
	if (close(fd) != 0) {
		st = bt_err_errno(err, errno, "cannot write %s", tmp);
		unlink(tmp);
		goto out;
	}
	if (rename(tmp, path) != 0) {
		st = bt_err_errno(err, errno, "cannot rename %s", tmp);
		unlink(tmp);
		goto out;
	}
	st = bt_fs_fsync_dir_of(path, err);
out:
	free(tmp);
	return st;
}

bt_status bt_fs_open_regular(const char *path, int *fd, struct bt_error *err)
{
	int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (f < 0)
		return bt_err_errno(err, errno, "cannot open %s", path);
	struct stat st;
	if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(f);
		return bt_err_set(err, BT_ERR_FORMAT, "%s: not a regular file", path);
	}
	int fl = fcntl(f, F_GETFL);
	if (fl < 0 || fcntl(f, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		bt_status rc = bt_err_errno(err, errno, "cannot open %s", path);
		close(f);
		return rc;
	}
	*fd = f;
	return BT_OK;
}

bt_status bt_fs_read_all(const char *path, size_t max, char **out, size_t *len,
			 struct bt_error *err)
{
	int fd;
	bt_status rc = bt_fs_open_regular(path, &fd, err);
	if (rc != BT_OK)
		return rc;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		rc = bt_err_errno(err, errno, "cannot read %s", path);
		close(fd);
		return rc;
	}
	if ((uint64_t)st.st_size > max) {
		close(fd);
		return bt_err_set(err, BT_ERR_TOOBIG, "%s: file too large (%lld bytes)", path,
				  (long long)st.st_size);
	}
	size_t cap = (size_t)st.st_size + 1, n = 0;
	char *buf = bt_xmalloc(cap);
	for (;;) {
		if (n + 1 >= cap) {
			if (cap > max + 1)
				break;
			cap *= 2;
			buf = bt_xrealloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return bt_err_errno(err, e, "cannot read %s", path);
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	if (n > max) {
		free(buf);
		return bt_err_set(err, BT_ERR_TOOBIG, "%s: file too large", path);
	}
	buf[n] = '\0';
	*out = buf;
	if (len)
		*len = n;
	return BT_OK;
}

static int bt_fs_cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

bt_status bt_fs_list_dir(const char *dir, char ***names, size_t *n, struct bt_error *err)
{
	DIR *d = opendir(dir);
	if (!d)
		return bt_err_errno(err, errno, "cannot open directory %s", dir);
	char **v = NULL;
	size_t cnt = 0, cap = 0;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		bt_xgrow((void **)&v, &cap, cnt + 1, sizeof *v);
		v[cnt++] = bt_xstrdup(e->d_name);
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof *v, bt_fs_cmp_names);
	*names = v;
	*n = cnt;
	return BT_OK;
}

void bt_fs_free_list(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

char *bt_fs_join(const char *a, const char *b)
{
	size_t la = strlen(a);
	if (la && a[la - 1] == '/')
		return bt_xasprintf("%s%s", a, b);
	return bt_xasprintf("%s/%s", a, b);
}

char *bt_fs_basename(const char *path)
{
	size_t end = strlen(path);
	while (end > 1 && path[end - 1] == '/')
		end--;
	size_t start = end;
	while (start > 0 && path[start - 1] != '/')
		start--;
	return bt_xstrndup(path + start, end - start);
}

char *bt_fs_dirname(const char *path)
{
	size_t end = strlen(path);
	while (end > 1 && path[end - 1] == '/')
		end--;
	while (end > 0 && path[end - 1] != '/')
		end--;
	if (end == 0)
		return bt_xstrdup(".");
	while (end > 1 && path[end - 1] == '/')
		end--;
	return bt_xstrndup(path, end);
}

bt_status bt_fs_free_space(const char *path, uint64_t *avail, struct bt_error *err)
{
	struct statvfs sv;
	if (statvfs(path, &sv) != 0)
		return bt_err_errno(err, errno, "%s", path);
	*avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	return BT_OK;
}

/* Renames without replacing: link() fails with EEXIST where rename()
 * would overwrite; a file system without hard links gets rename() after a
 * check (a race there only matters if something else writes the bag). */
static int bt_fs_rename_new_errno(const char *from, const char *to)
{
	if (link(from, to) == 0)
		return unlink(from);
	if (errno == EEXIST)
		return -1;
	if (bt_fs_exists(to)) {
		errno = EEXIST;
		return -1;
	}
	return rename(from, to);
}

bt_status bt_fs_rename_new(const char *from, const char *to, struct bt_error *err)
{
	if (bt_fs_rename_new_errno(from, to) != 0)
		return bt_err_errno(err, errno, "cannot rename %s to %s", from, to);
	return BT_OK;
}

bt_status bt_fs_set_aside(const char *path, const char *suffix, char **moved,
			  struct bt_error *err)
{
	for (unsigned i = 0; i < 1000; i++) {
		char *to = i ? bt_xasprintf("%s%s.%u", path, suffix, i)
			     : bt_xasprintf("%s%s", path, suffix);
		if (bt_fs_rename_new_errno(path, to) == 0) {
			*moved = to; /* moved, even if the fsync below fails */
			return bt_fs_fsync_dir_of(path, err);
		}
		int e = errno;
		free(to);
		if (e != EEXIST)
			return bt_err_errno(err, e, "cannot move %s aside", path);
	}
	return bt_err_set(err, BT_ERR_EXISTS, "cannot move %s aside: too many set-aside copies",
			  path);
}

void bt_fs_iov_advance(struct iovec **v, size_t *nv, size_t k)
{
	struct iovec *p = *v;
	size_t n = *nv;
	for (; n > 0 && k >= p->iov_len; n--, p++)
		k -= p->iov_len;
	if (n > 0) {
		p->iov_base = (char *)p->iov_base + k;
		p->iov_len -= k;
	}
	*v = p;
	*nv = n;
}
