/* bt_dio on real files: what is appended, in pieces of every size around
 * its block and its buffer, is what the file holds at the end, and at each
 * sync what was appended so far followed by zeros to a block's end; with
 * direct I/O where the file system reports it (the file's pages then stay
 * out of the page cache, and writes that stall pause it), refused where
 * it does not (tmpfs) or at the first write; placed writes (from the
 * caller's buffer) among staged ones; a write that fails (the file size
 * limit), staged or placed, leaves what was written and nothing more. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bt_dio.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "test_util.h"

#define TOTAL (3u * BT_DIO_STAGE + 12345u)

/* pwrite and pwritev, wrapped (-Wl,--wrap): counted, and the next pwrite
 * of a file with O_DIRECT refused (EINVAL) when asked, as a file system
 * that reports direct I/O alignment and then refuses it would. */
ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __real_pwritev(int fd, const struct iovec *iov, int nv, off_t off);
ssize_t __wrap_pwritev(int fd, const struct iovec *iov, int nv, off_t off);
static unsigned long td_pwrites, td_pwritevs;
static bool td_refuse_direct;
/* pwrites from [td_lo, td_hi): a placed write's own buffer */
static const uint8_t *td_lo, *td_hi;
static unsigned long td_from_caller;

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	td_pwrites++;
	if ((const uint8_t *)buf >= td_lo && (const uint8_t *)buf < td_hi)
		td_from_caller++;
	if (td_refuse_direct && (fcntl(fd, F_GETFL) & O_DIRECT)) {
		td_refuse_direct = false;
		errno = EINVAL;
		return -1;
	}
	return __real_pwrite(fd, buf, n, off);
}

ssize_t __wrap_pwritev(int fd, const struct iovec *iov, int nv, off_t off)
{
	td_pwritevs++;
	return __real_pwritev(fd, iov, nv, off);
}

static uint8_t *pattern(size_t n)
{
	uint8_t *p = bt_xmalloc(n);
	uint32_t x = 2463534242u;
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		p[i] = (uint8_t)(x | 1); /* never 0: padding is told apart */
	}
	return p;
}

static int open_in(const char *dir, const char *name, char **path)
{
	*path = bt_xasprintf("%s/%s", dir, name);
	int fd = open(*path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	assert_true(fd >= 0);
	return fd;
}

static uint8_t *slurp(const char *path, size_t *n)
{
	char *b;
	struct bt_error err;
	assert_int_equal(bt_fs_read_all(path, 4 * TOTAL, &b, n, &err), BT_OK);
	return (uint8_t *)b;
}

/* The file is want[0, n). */
static void assert_file_is(const char *path, const uint8_t *want, size_t n)
{
	size_t got_n;
	uint8_t *got = slurp(path, &got_n);
	assert_int_equal(got_n, n);
	assert_memory_equal(got, want, n);
	free(got);
}

/* The file holds want[0, n) and then only zeros up to a block's end. */
static void assert_synced(const char *path, const uint8_t *want, size_t n)
{
	size_t got_n;
	uint8_t *got = slurp(path, &got_n);
	assert_int_equal(got_n, (n + BT_DIO_BLOCK - 1) / BT_DIO_BLOCK * BT_DIO_BLOCK);
	assert_memory_equal(got, want, n);
	for (size_t i = n; i < got_n; i++)
		assert_int_equal(got[i], 0);
	free(got);
}

/* Appends TOTAL bytes in pieces of 1 B to more than a buffer, syncing now
 * and then, checking the file at each sync (when `look`: reading it puts
 * it in the page cache) and, after *cached is set to the share of the
 * file's pages in the page cache, at the end. */
static void write_and_check(struct bt_dio *d, const char *path, bool look, double *cached)
{
	static const size_t sizes[] = {1, BT_DIO_BLOCK - 1, BT_DIO_BLOCK, BT_DIO_BLOCK + 1,
				       777, BT_DIO_STAGE - 5, 31, BT_DIO_STAGE + 3, 65536};
	uint8_t *src = pattern(TOTAL);
	size_t at = 0;
	for (size_t i = 0; at < TOTAL; i++) {
		size_t n = sizes[i % (sizeof sizes / sizeof sizes[0])];
		n = n < TOTAL - at ? n : TOTAL - at;
		assert_int_equal(bt_dio_write(d, src + at, n), 0);
		at += n;
		if (i % 3 == 2) {
			assert_int_equal(bt_dio_sync(d), 0);
			if (look)
				assert_synced(path, src, at);
		}
	}
	assert_int_equal(bt_dio_end(d), 0);
	assert_false(bt_dio_on(d));
	int rfd = open(path, O_RDONLY);
	assert_true(rfd >= 0);
	*cached = tu_cached_share(rfd, 0, TOTAL - TOTAL % BT_DIO_BLOCK);
	close(rfd);
	assert_file_is(path, src, TOTAL);
	free(src);
}

/* The staging and its blocks, on any file system (O_DIRECT left off). */
static void test_forced(void **state)
{
	char *path;
	int fd = open_in(*state, "forced", &path);
	struct bt_dio d;
	assert_int_equal(bt_dio_start(&d, fd, true), 0);
	assert_false(d.direct);
	double cached;
	write_and_check(&d, path, true, &cached);
	assert_true(cached > 0.9); /* the control: test_direct's share means something */
	close(fd);
	free(path);
}

/* A new file in dir with direct I/O started on it, or the test skipped
 * where its file system has none. */
static int start_direct(const char *dir, const char *name, char **path, struct bt_dio *d)
{
	int fd = open_in(dir, name, path);
	int e = bt_dio_start(d, fd, false);
	if (e == EOPNOTSUPP) {
		fprintf(stderr, "test_dio: no direct I/O on %s's file system\n", dir);
		close(fd);
		free(*path);
		skip();
	}
	assert_int_equal(e, 0);
	return fd;
}

/* Direct I/O where the file system takes it: O_DIRECT is on while writing
 * and off after, and a file not read never enters the page cache. */
static void direct(const char *dir, bool look)
{
	char *path;
	struct bt_dio d;
	int fd = start_direct(dir, look ? "direct_looked_at" : "direct", &path, &d);
	assert_true(d.direct);
	/* no pause, however slow the disk: its writes would be cached */
	d.stall_ns = INT64_MAX;
	assert_true(fcntl(fd, F_GETFL) & O_DIRECT);
	double cached;
	write_and_check(&d, path, look, &cached);
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	if (!look)
		assert_true(cached < 0.01);
	close(fd);
	free(path);
}

static void test_direct(void **state)
{
	direct(*state, false);
	direct(*state, true);
}

/* Writes that stall and keep the writer busy turn O_DIRECT off for the
 * pause (one among fast ones does not): the writes go to the page cache,
 * large pieces without the stage's copy, then direct again; the file is
 * whole. */
static void test_stall_pauses(void **state)
{
	char *path;
	struct bt_dio d;
	int fd = start_direct(*state, "stall", &path, &d);
	uint8_t *src = pattern(6 * BT_DIO_STAGE);
	/* Every write is a stall now: any length is enough, and with the
	 * previous one a second ahead, it takes all the time since. One such
	 * write among fast ones is not enough: */
	d.stall_ns = 0;
	d.stall_long_ns = INT64_MAX; /* a loaded machine's slow write is no stall here */
	d.last_ns = bt_time_monotonic_ns() + 1000000000;
	assert_int_equal(bt_dio_write(&d, src, BT_DIO_STAGE), 0);
	assert_int_equal(d.n_paused, 0);
	assert_true(d.direct);
	/* after the writes before kept the writer busy, it is. */
	assert_int_equal(bt_dio_end(&d), 0);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(bt_dio_start(&d, fd, false), 0);
	d.stall_ns = 0;
	d.busy = 0.9;
	d.last_ns = bt_time_monotonic_ns() + 1000000000;
	assert_int_equal(bt_dio_write(&d, src, BT_DIO_STAGE), 0);
	assert_int_equal(d.n_paused, 1);
	assert_false(d.direct);
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	/* Paused: buffered, however long the writes take (however slow the
	 * machine: the pause lasts until the test ends it). A small piece is
	 * staged; a large one goes to the file from where it is, after what
	 * is staged, and only its last part block is staged: the file holds
	 * every byte at once, and the stage stays block-aligned. */
	d.paused_until_ns = INT64_MAX;
	size_t at = BT_DIO_STAGE;
	assert_int_equal(bt_dio_write(&d, src + at, 100), 0);
	at += 100;
	assert_int_equal(d.len, 100);
	size_t big = 2 * BT_DIO_STAGE - 100 + 777;
	assert_int_equal(bt_dio_write(&d, src + at, big), 0);
	at += big;
	assert_int_equal(d.n_paused, 1);
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	assert_int_equal(d.base, 3 * BT_DIO_STAGE);
	assert_int_equal(d.len, 777);
	assert_int_equal(d.done, at);
	assert_memory_equal(d.buf, src + 3 * BT_DIO_STAGE, 777);
	assert_file_is(path, src, at);
	/* A piece just below the size is staged, the file unchanged. */
	assert_int_equal(bt_dio_write(&d, src + at, BT_DIO_THROUGH - 1), 0);
	at += BT_DIO_THROUGH - 1;
	assert_int_equal(d.len, 777 + BT_DIO_THROUGH - 1);
	assert_file_is(path, src, at - (BT_DIO_THROUGH - 1));
	/* Once the pause is over, direct again from the next write on (a
	 * large one goes through, then direct I/O resumes). */
	d.paused_until_ns = 0;
	d.stall_ns = INT64_MAX;
	assert_int_equal(bt_dio_write(&d, src + at, 4 * BT_DIO_STAGE - at), 0);
	at = 4 * BT_DIO_STAGE;
	assert_true(d.direct);
	assert_true(fcntl(fd, F_GETFL) & O_DIRECT);
	assert_int_equal(d.base % BT_DIO_BLOCK, 0);
	assert_int_equal(bt_dio_write(&d, src + at, 2 * BT_DIO_STAGE - 7), 0);
	assert_int_equal(bt_dio_end(&d), 0);
	assert_file_is(path, src, 6 * BT_DIO_STAGE - 7);
	free(src);
	close(fd);
	free(path);
}

/* A file system that reports direct I/O and refuses it at the first
 * write: the same bytes go buffered, O_DIRECT stays off for good (no
 * pause to end), and a large piece then goes to the file from where it
 * is, in one pwritev, with only its last part block staged. */
static void test_refused_at_first_write(void **state)
{
	char *path;
	struct bt_dio d;
	int fd = start_direct(*state, "refused", &path, &d);
	uint8_t *src = pattern(3 * BT_DIO_STAGE);
	td_refuse_direct = true;
	assert_int_equal(bt_dio_write(&d, src, 100), 0);
	assert_int_equal(bt_dio_write(&d, src + 100, BT_DIO_STAGE - 100), 0);
	assert_false(td_refuse_direct); /* the refusal was met */
	assert_false(d.usable);
	assert_false(d.direct);
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	assert_file_is(path, src, BT_DIO_STAGE);
	size_t at = BT_DIO_STAGE, big = BT_DIO_THROUGH + 13;
	unsigned long v0 = td_pwritevs, p0 = td_pwrites;
	assert_int_equal(bt_dio_write(&d, src + at, big), 0);
	at += big;
	assert_int_equal(td_pwritevs - v0, 1);
	assert_int_equal(td_pwrites - p0, 0);
	assert_int_equal(d.len, at % BT_DIO_BLOCK);
	assert_file_is(path, src, at);
	d.paused_until_ns = 0; /* nothing to end: refused stays refused */
	assert_int_equal(bt_dio_write(&d, src + at, 3 * BT_DIO_STAGE - at), 0);
	assert_false(fcntl(fd, F_GETFL) & O_DIRECT);
	assert_int_equal(bt_dio_end(&d), 0);
	assert_file_is(path, src, 3 * BT_DIO_STAGE);
	free(src);
	close(fd);
	free(path);
}

/* Placed writes among appended pieces and syncs. A piece laid out for what
 * is staged goes to the file from the caller's buffer, the staged bytes in
 * front of it (the room's old bytes overwritten), its last part block
 * staged; one laid out for another count, misaligned, or smaller than
 * BT_DIO_THROUGH is staged like bt_dio_write's. Each way the file is
 * every piece in order (checked at each sync, and at the end). */
enum td_how { TD_APPEND, TD_PLACED, TD_WRONG_AT, TD_MISALIGNED, TD_SYNC };

static void placed_step(struct bt_dio *d, uint8_t *buf, const uint8_t *src, size_t n,
			enum td_how how)
{
	size_t staged = bt_dio_staged(d);
	size_t at = staged + (how == TD_WRONG_AT ? BT_DIO_BLOCK : 0);
	uint8_t *b = buf + (how == TD_MISALIGNED ? 8 : 0);
	memset(b, 0xee, at);
	memcpy(b + at, src, n);
	unsigned long before = td_from_caller;
	uint64_t placed = d->n_placed;
	assert_int_equal(bt_dio_write_placed(d, b, at, n), 0);
	bool direct = how == TD_PLACED && n >= BT_DIO_THROUGH;
	assert_int_equal(td_from_caller - before, direct ? 1 : 0);
	assert_int_equal(d->n_placed - placed, direct ? 1 : 0);
	if (direct)
		assert_int_equal(bt_dio_staged(d), (staged + n) % BT_DIO_BLOCK);
}

static void placed(struct bt_dio *d, const char *path, bool look)
{
	static const struct {
		size_t n;
		enum td_how how;
	} steps[] = {
		{100, TD_APPEND},	     {200000, TD_PLACED},
		{5000, TD_APPEND},	     {BT_DIO_STAGE + 777, TD_PLACED},
		{0, TD_SYNC},		     {70000, TD_WRONG_AT},
		{3000, TD_PLACED},	     {80000, TD_MISALIGNED},
		{BT_DIO_STAGE - 3, TD_APPEND}, {0, TD_SYNC},
		{BT_DIO_THROUGH, TD_PLACED},  {BT_DIO_BLOCK * 20, TD_PLACED},
		{1, TD_APPEND},		     {0, TD_SYNC},
		{BT_DIO_STAGE + 1, TD_PLACED},
	};
	size_t cap = 3 * BT_DIO_STAGE, total = 4 * BT_DIO_STAGE;
	uint8_t *src = pattern(total), *buf;
	assert_int_equal(posix_memalign((void **)&buf, BT_DIO_BLOCK, cap), 0);
	td_lo = buf;
	td_hi = buf + cap;
	size_t at = 0;
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		size_t n = steps[i].n;
		assert_true(at + n <= total);
		if (steps[i].how == TD_SYNC) {
			assert_int_equal(bt_dio_sync(d), 0);
			if (look)
				assert_synced(path, src, at);
		} else if (steps[i].how == TD_APPEND) {
			assert_int_equal(bt_dio_write(d, src + at, n), 0);
		} else {
			placed_step(d, buf, src + at, n, steps[i].how);
		}
		at += n;
	}
	td_lo = td_hi = NULL;
	assert_int_equal(bt_dio_end(d), 0);
	assert_file_is(path, src, at);
	free(buf);
	free(src);
}

static void test_placed(void **state)
{
	char *path;
	int fd = open_in(*state, "placed_forced", &path);
	struct bt_dio d;
	assert_int_equal(bt_dio_start(&d, fd, true), 0);
	placed(&d, path, true);
	close(fd);
	free(path);
	fd = start_direct(*state, "placed_direct", &path, &d);
	d.stall_ns = INT64_MAX; /* no pause: a placed write would be staged */
	placed(&d, path, false);
	close(fd);
	free(path);
}

/* tmpfs says nothing of direct I/O alignment: refused, the fd unchanged. */
static void test_refused_on_tmpfs(void **state)
{
	(void)state;
	struct stat st;
	if (stat("/dev/shm", &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "test_dio: no /dev/shm\n");
		skip();
	}
	char *dir = bt_xasprintf("/dev/shm/test_dio.%d", (int)getpid());
	assert_int_equal(mkdir(dir, 0700), 0);
	char *path;
	int fd = open_in(dir, "f", &path);
	int fl = fcntl(fd, F_GETFL);
	struct bt_dio d;
	assert_int_equal(bt_dio_start(&d, fd, false), EOPNOTSUPP);
	assert_false(bt_dio_on(&d));
	assert_int_equal(fcntl(fd, F_GETFL), fl);
	assert_int_equal(bt_dio_end(&d), 0);
	close(fd);
	unlink(path);
	rmdir(dir);
	free(path);
	free(dir);
}

/* A write the file size limit stops part way: the error comes back, the
 * file keeps the bytes written and no padding, later calls fail. With
 * `tail`, a synced tail first, whose padding the failed write leaves
 * partly in place (limit below its block's end). With `placed`, the
 * write is a placed one (bt_dio_write_placed) from a buffer of its own. */
static void write_fails(const char *dir, bool tail, bool placed, rlim_t limit)
{
	char *path;
	char name[32];
	snprintf(name, sizeof name, "limited%s%s", tail ? "_tail" : "", placed ? "_placed" : "");
	int fd = open_in(dir, name, &path);
	struct bt_dio d;
	assert_int_equal(bt_dio_start(&d, fd, true), 0);
	uint8_t *src = pattern(4 * BT_DIO_STAGE);
	size_t at = tail ? 100 : 0;
	assert_int_equal(bt_dio_write(&d, src, at), 0);
	assert_int_equal(bt_dio_sync(&d), 0);
	struct rlimit old, lim;
	assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
	lim = old;
	lim.rlim_cur = limit;
	void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	int e;
	uint8_t *buf = NULL;
	if (placed) {
		assert_int_equal(posix_memalign((void **)&buf, BT_DIO_BLOCK, 4 * BT_DIO_STAGE), 0);
		size_t room = bt_dio_staged(&d);
		memcpy(buf + room, src + at, 4 * BT_DIO_STAGE - at);
		uint64_t n_placed = d.n_placed;
		unsigned long from = td_from_caller;
		td_lo = buf;
		td_hi = buf + 4 * BT_DIO_STAGE;
		e = bt_dio_write_placed(&d, buf, room, 4 * BT_DIO_STAGE - at);
		td_lo = td_hi = NULL;
		assert_true(td_from_caller > from);   /* it was written from buf */
		assert_int_equal(d.n_placed, n_placed); /* counted only when written */
	} else {
		e = bt_dio_write(&d, src + at, 4 * BT_DIO_STAGE - at);
	}
	free(buf);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
	signal(SIGXFSZ, was);
	assert_int_equal(e, EFBIG);
	assert_int_equal(bt_dio_write(&d, src, 1), EIO);
	assert_int_equal(bt_dio_sync(&d), EIO);
	assert_int_equal(bt_dio_end(&d), EIO);
	assert_file_is(path, src, limit);
	free(src);
	close(fd);
	free(path);
}

static void test_write_fails(void **state)
{
	write_fails(*state, false, false, 2 * BT_DIO_STAGE + BT_DIO_STAGE / 2);
	write_fails(*state, true, false, BT_DIO_BLOCK / 2);
	write_fails(*state, false, true, 2 * BT_DIO_STAGE + BT_DIO_STAGE / 2);
	write_fails(*state, true, true, BT_DIO_BLOCK / 2);
}

TU_MAIN(
	TU_SCRATCH_TEST(test_forced),
	TU_SCRATCH_TEST(test_direct),
	TU_SCRATCH_TEST(test_placed),
	TU_SCRATCH_TEST(test_stall_pauses),
	TU_SCRATCH_TEST(test_refused_at_first_write),
	cmocka_unit_test(test_refused_on_tmpfs),
	TU_SCRATCH_TEST(test_write_fails))
