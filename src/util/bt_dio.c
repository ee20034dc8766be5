/* bt_dio — see the header. */
#include "bt_dio.h"

#include "bt_fs.h"
#include "bt_time.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h> /* statx */
#include <sys/uio.h>
#include <unistd.h>

/* Where the file system says nothing (no STATX_DIOALIGN) we do not guess. */
int bt_dio_supported(int fd)
{
#ifdef STATX_DIOALIGN
	struct statx sx;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) != 0)
		return errno;
	if (!(sx.stx_mask & STATX_DIOALIGN) || sx.stx_dio_offset_align == 0 ||
	    sx.stx_dio_offset_align > BT_DIO_BLOCK || sx.stx_dio_mem_align > BT_DIO_BLOCK)
		return EOPNOTSUPP;
	return 0;
#else
	(void)fd;
	return EOPNOTSUPP;
#endif
}

static int dio_set_direct(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return errno;
	int want = on ? fl | O_DIRECT : fl & ~O_DIRECT;
	return want == fl || fcntl(fd, F_SETFL, want) == 0 ? 0 : errno;
}

int bt_dio_start(struct bt_dio *d, int fd, bool force)
{
	*d = (struct bt_dio){.fd = fd};
	int e = force ? 0 : bt_dio_supported(fd);
	if (e == 0 && !force)
		e = dio_set_direct(fd, true);
	if (e != 0)
		return e;
	void *buf;
	if (posix_memalign(&buf, BT_DIO_BLOCK, BT_DIO_STAGE) != 0) {
		if (!force)
			dio_set_direct(fd, false);
		return ENOMEM;
	}
	d->buf = buf;
	d->usable = d->direct = !force;
	d->force = force;
	d->stall_ns = BT_DIO_STALL_NS;
	d->stall_long_ns = BT_DIO_STALL_LONG_NS;
	d->last_ns = bt_time_monotonic_ns();
	return 0;
}

/* pwrite of src[0, n) at base (src: the stage, or a placed write's
 * buffer), n a multiple of BT_DIO_BLOCK of which the first `valid` bytes
 * were appended (the rest is padding). A refusal of
 * direct I/O at the first write is met by writing buffered instead. */
static int dio_put(struct bt_dio *d, const uint8_t *src, size_t n, size_t valid)
{
	size_t off = 0;
	while (off < n) {
		ssize_t k = pwrite(d->fd, src + off, n - off, (off_t)(d->base + off));
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EINVAL && d->direct && d->done == 0 && off == 0) {
			int e = dio_set_direct(d->fd, false);
			if (e != 0)
				return d->failed = true, e;
			d->usable = d->direct = false;
			continue;
		}
		if (k <= 0) {
			d->failed = true;
			return k < 0 ? errno : EIO;
		}
		off += (size_t)k;
		uint64_t in = d->base + (off < valid ? off : valid);
		if (in > d->done)
			d->done = in;
		if (d->base + off > d->end)
			d->end = d->base + off;
	}
	return 0;
}

/* O_DIRECT on again once a pause is over (not after a refusal). */
static void dio_resume_due(struct bt_dio *d, int64_t now)
{
	if (d->usable && !d->direct && now >= d->paused_until_ns)
		d->direct = dio_set_direct(d->fd, true) == 0;
}

/* The pause (see the header): O_DIRECT off once writes keep the writer
 * busy or one write took stall_long_ns, on again once the pause is
 * over. Advisory: a refusal keeps it as is. The busy share is averaged
 * over the last ~8 writes, so that a slow write among fast ones (the
 * disk's hiccup, which the recorder's cache absorbs) does not cost a
 * second of buffered writes. */
static void dio_pace(struct bt_dio *d, int64_t start)
{
	int64_t end = bt_time_monotonic_ns();
	int64_t took = end - start, gap = end - d->last_ns;
	d->last_ns = end;
	double share = gap <= 0 || took >= gap ? 1.0 : (double)took / (double)gap;
	d->busy += (share - d->busy) / 8;
	bool stalled = took >= d->stall_ns && (d->busy > BT_DIO_BUSY || took >= d->stall_long_ns);
	if (d->direct && stalled) {
		if (dio_set_direct(d->fd, false) == 0) {
			d->direct = false;
			d->paused_until_ns = end + BT_DIO_PAUSE_NS;
			d->n_paused++;
		}
	} else {
		dio_resume_due(d, end);
	}
}

/* A full buffer into the file. */
static int dio_put_stage(struct bt_dio *d)
{
	int64_t start = bt_time_monotonic_ns();
	int e = dio_put(d, d->buf, BT_DIO_STAGE, BT_DIO_STAGE);
	if (e != 0)
		return e;
	dio_pace(d, start);
	d->base += BT_DIO_STAGE;
	d->len = 0;
	return 0;
}

/* Paused (or refused): a large piece goes to the file from where it is,
 * after what is staged, in one buffered pwritev; its last part block is
 * staged (copied), so that the stage stays block-aligned for direct I/O
 * when the pause ends, which is looked at here too. */
static int dio_write_through(struct bt_dio *d, const uint8_t *p, size_t n)
{
	struct iovec v[2] = {{d->buf, d->len}, {(void *)p, n}};
	uint64_t to = d->base + d->len + n;
	uint64_t at = d->base;
	struct iovec *iv = v;
	size_t nv = 2;
	while (at < to) {
		ssize_t k = pwritev(d->fd, iv, (int)nv, (off_t)at);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			d->failed = true;
			return k < 0 ? errno : EIO;
		}
		at += (uint64_t)k;
		d->done = at > d->done ? at : d->done;
		d->end = at > d->end ? at : d->end;
		bt_fs_iov_advance(&iv, &nv, (size_t)k);
	}
	size_t tail = (size_t)(to % BT_DIO_BLOCK);
	memcpy(d->buf, p + n - tail, tail);
	d->base = to - tail;
	d->len = tail;
	dio_resume_due(d, bt_time_monotonic_ns());
	return 0;
}

int bt_dio_write(struct bt_dio *d, const void *p, size_t n)
{
	if (d->failed)
		return EIO;
	if (!d->direct && !d->force && n >= BT_DIO_THROUGH)
		return dio_write_through(d, p, n);
	const uint8_t *s = p;
	while (n > 0) {
		size_t k = BT_DIO_STAGE - d->len < n ? BT_DIO_STAGE - d->len : n;
		memcpy(d->buf + d->len, s, k);
		d->len += k;
		s += k;
		n -= k;
		if (d->len < BT_DIO_STAGE)
			break;
		int e = dio_put_stage(d);
		if (e != 0)
			return e;
	}
	return 0;
}

int bt_dio_write_placed(struct bt_dio *d, uint8_t *buf, size_t at, size_t n)
{
	if (d->failed)
		return EIO;
	if (at != d->len || n < BT_DIO_THROUGH || !bt_dio_placing(d) ||
	    (uintptr_t)buf % BT_DIO_BLOCK != 0)
		return bt_dio_write(d, buf + at, n);
	memcpy(buf, d->buf, d->len);
	size_t total = at + n, whole = total & ~(size_t)(BT_DIO_BLOCK - 1);
	int64_t start = bt_time_monotonic_ns();
	int e = dio_put(d, buf, whole, whole);
	if (e != 0)
		return e;
	dio_pace(d, start);
	d->n_placed++;
	d->base += whole;
	d->len = total - whole;
	memcpy(d->buf, buf + whole, d->len);
	return 0;
}

int bt_dio_sync(struct bt_dio *d)
{
	if (d->failed)
		return EIO;
	if (d->base + d->len == d->done)
		return 0;
	size_t whole = (d->len + BT_DIO_BLOCK - 1) & ~(size_t)(BT_DIO_BLOCK - 1);
	memset(d->buf + d->len, 0, whole - d->len);
	int e = dio_put(d, d->buf, whole, d->len);
	if (e != 0)
		return e;
	/* The last block, part full, stays staged: the next write rewrites it. */
	size_t keep = d->len % BT_DIO_BLOCK;
	size_t gone = d->len - keep;
	memmove(d->buf, d->buf + gone, keep);
	d->base += gone;
	d->len = keep;
	return 0;
}

int bt_dio_end(struct bt_dio *d)
{
	if (!bt_dio_on(d))
		return 0;
	int e = bt_dio_sync(d);
	if (d->end > d->done && ftruncate(d->fd, (off_t)d->done) != 0 && e == 0)
		e = errno;
	int e2 = d->direct ? dio_set_direct(d->fd, false) : 0;
	free(d->buf);
	*d = (struct bt_dio){.fd = -1};
	return e != 0 ? e : e2;
}
