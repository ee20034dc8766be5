/* bt_wbehind on real files: what lags BT_WBEHIND_LAG behind the end leaves
 * the page cache (mincore of a mapping says which pages are there), what is
 * newer stays; a write-back that stalls pauses it; a pipe turns it off.
 * The same writes without it are the control: they must stay cached, or
 * this machine's page cache proves nothing and the test says so. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_mem.h"
#include "bt_time.h"
#include "bt_wbehind.h"
#include "test_util.h"

#define MIB (1u << 20)
#define FILE_MIB 48u

/* Writes FILE_MIB MiB in 1 MiB writes, noting each in wb when it is given;
 * from the first MiB that can make a window drop on, fdatasync before each
 * write, so that what lags is on disk (clean, so droppable) when dropped:
 * the test does not depend on how fast the disk is. */
static void write_file(int fd, struct bt_wbehind *wb)
{
	char *buf = malloc(MIB);
	assert_non_null(buf);
	memset(buf, 0x5a, MIB);
	for (unsigned i = 0; i < FILE_MIB; i++) {
		if ((uint64_t)i * MIB >= BT_WBEHIND_LAG)
			assert_int_equal(fdatasync(fd), 0);
		assert_int_equal(write(fd, buf, MIB), (ssize_t)MIB);
		if (wb)
			bt_wbehind_wrote(wb, MIB);
	}
	free(buf);
}

static int open_in(const char *dir, const char *name)
{
	char *p = bt_xasprintf("%s/%s", dir, name);
	int fd = open(p, O_RDWR | O_CREAT | O_EXCL, 0644);
	assert_true(fd >= 0);
	free(p);
	return fd;
}

static void test_drops_what_lags_behind(void **state)
{
	const char *dir = *state;
	tu_skip_on_tmpfs(dir);
	int plain = open_in(dir, "plain"), fd = open_in(dir, "behind");
	write_file(plain, NULL);
	if (tu_cached_share(plain, 0, 16 * MIB) < 0.9) {
		fprintf(stderr, "test_wbehind: written pages do not stay cached here\n");
		skip();
	}
	struct bt_wbehind wb;
	bt_wbehind_init(&wb, fd, 0);
	wb.stall_ns = INT64_MAX; /* a loaded machine's slow call is test_stall_pauses' */
	write_file(fd, &wb);
	assert_int_equal(wb.n_paused, 0);
	assert_true(wb.fd == fd);
	/* Dropped up to the end less the lag: [0, 16) MiB. */
	assert_int_equal(wb.dropped, (uint64_t)FILE_MIB * MIB - BT_WBEHIND_LAG);
	assert_true(tu_cached_share(fd, 0, 16 * MIB) < 0.1);
	/* The last window is not dropped; the bytes read back. */
	assert_true(tu_cached_share(fd, (uint64_t)(FILE_MIB - 8) * MIB, 8 * MIB) > 0.9);
	unsigned char b[4];
	assert_int_equal(pread(fd, b, sizeof b, 5 * MIB), (ssize_t)sizeof b);
	assert_int_equal(b[0], 0x5a);
	close(plain);
	close(fd);
}

static void test_stall_pauses(void **state)
{
	int fd = open_in(*state, "stall");
	struct bt_wbehind wb;
	bt_wbehind_init(&wb, fd, 0);
	/* Every call is a stall now: any length is enough, and with the
	 * previous window a second ahead, the call is more than a quarter of
	 * the time since (however fast it returns). */
	wb.stall_ns = 0;
	wb.last_ns = bt_time_monotonic_ns() + 1000000000;
	bt_wbehind_wrote(&wb, BT_WBEHIND_WINDOW);
	assert_int_equal(wb.n_paused, 1);
	assert_int_equal(wb.started, BT_WBEHIND_WINDOW);
	/* Paused: the windows are skipped, nothing is dropped later. */
	for (unsigned i = 0; i < 8; i++)
		bt_wbehind_wrote(&wb, BT_WBEHIND_WINDOW);
	assert_int_equal(wb.n_paused, 1);
	assert_int_equal(wb.started, 9ull * BT_WBEHIND_WINDOW);
	assert_int_equal(wb.dropped, 9ull * BT_WBEHIND_WINDOW);
	/* Once the pause is over, it works again from there. */
	wb.paused_until_ns = 0;
	wb.stall_ns = INT64_MAX;
	for (unsigned i = 0; i < 5; i++)
		bt_wbehind_wrote(&wb, BT_WBEHIND_WINDOW);
	assert_int_equal(wb.started, 14ull * BT_WBEHIND_WINDOW);
	assert_int_equal(wb.dropped, 14ull * BT_WBEHIND_WINDOW - BT_WBEHIND_LAG);
	close(fd);
}

static void test_pipe_turns_it_off(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct bt_wbehind wb;
	bt_wbehind_init(&wb, p[1], 0);
	bt_wbehind_wrote(&wb, BT_WBEHIND_WINDOW - 1);
	assert_int_equal(wb.fd, p[1]);
	bt_wbehind_wrote(&wb, 1);
	assert_int_equal(wb.fd, -1);
	bt_wbehind_wrote(&wb, BT_WBEHIND_WINDOW); /* off: nothing more */
	assert_int_equal(wb.started, 0);
	close(p[0]);
	close(p[1]);
}

TU_MAIN(TU_SCRATCH_TEST(test_drops_what_lags_behind), TU_SCRATCH_TEST(test_stall_pauses),
	cmocka_unit_test(test_pipe_turns_it_off))
