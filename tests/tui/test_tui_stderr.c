/* stderr capture: nothing reaches the real stderr while curses would be
 * up; all of it arrives after, in order. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"
#include "tui_stderr.h"

static off_t file_size(int fd)
{
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	return st.st_size;
}

static void test_capture_and_replay(void **state)
{
	(void)state;
	char *dir = tu_mkdtemp("tui_stderr");
	char path[4096];
	snprintf(path, sizeof path, "%s/stderr.txt", dir);
	/* The "terminal": fd 2 of this test goes to a file we can read. */
	int outer = open(path, O_CREAT | O_RDWR | O_TRUNC, 0644);
	assert_true(outer >= 0);
	int real = dup(STDERR_FILENO);
	assert_true(dup2(outer, STDERR_FILENO) >= 0);

	struct tui_stderr c;
	struct bt_error err;
	assert_int_equal(tui_stderr_start(&c, &err), BT_OK);
	fprintf(stderr, "hello ");
	assert_int_equal(write(STDERR_FILENO, "from fd 2\n", 10), 10);
	assert_int_equal(file_size(outer), 0); /* nothing over the screen */
	assert_int_equal(tui_stderr_stop(&c), 16);
	assert_int_equal(tui_stderr_stop(&c), 0); /* idempotent */
	fprintf(stderr, "after\n");

	assert_true(dup2(real, STDERR_FILENO) >= 0);
	close(real);
	char buf[128] = {0};
	assert_true(pread(outer, buf, sizeof buf - 1, 0) > 0);
	assert_string_equal(buf, "hello from fd 2\nafter\n");
	close(outer);
	tu_rmrf(dir);
	free(dir);
}

TU_MAIN(
	cmocka_unit_test(test_capture_and_replay))
