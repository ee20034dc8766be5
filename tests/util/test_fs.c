/* bt_fs on real files in a scratch directory: path helpers, the errno to
 * status mapping, atomic writes, listing, renames that never replace. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_fs.h"
#include "bt_mem.h"
#include "test_util.h"

/* <the group's scratch directory>/name, malloc'ed. */
static char *at(const char *name)
{
	return bt_fs_join(tu_group_tmp, name);
}

struct path_case {
	const char *path, *base, *dir;
};

static void test_paths(void **state)
{
	(void)state;
	static const struct path_case cases[] = {
		{"a/b/c", "c", "a/b"},
		{"a/b/c/", "c", "a/b"},
		{"a//b", "b", "a"},
		{"/abs", "abs", "/"},
		{"name", "name", "."},
		{"", "", "."},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *b = bt_fs_basename(cases[i].path), *d = bt_fs_dirname(cases[i].path);
		if (strcmp(b, cases[i].base) || strcmp(d, cases[i].dir))
			fail_msg("\"%s\": basename \"%s\" dirname \"%s\"", cases[i].path, b, d);
		free(b);
		free(d);
	}
	char *j = bt_fs_join("a", "b"), *k = bt_fs_join("a/", "b"), *l = bt_fs_join("", "b");
	assert_string_equal(j, "a/b");
	assert_string_equal(k, "a/b");
	assert_string_equal(l, "/b");
	free(j);
	free(k);
	free(l);
}

static void test_write_read(void **state)
{
	(void)state;
	struct bt_error err;
	char *p = at("w.txt"), *text = NULL;
	size_t len = 0;
	uint64_t size = 0;
	assert_false(bt_fs_exists(p));
	assert_int_equal(bt_fs_file_size(p, &size, &err), BT_ERR_NOTFOUND);
	assert_int_equal(bt_fs_read_all(p, 100, &text, &len, &err), BT_ERR_NOTFOUND);
	assert_int_equal(bt_fs_write_atomic(p, "first", 5, &err), BT_OK);
	assert_int_equal(bt_fs_write_atomic(p, "second", 6, &err), BT_OK); /* replaces */
	assert_true(bt_fs_exists(p) && bt_fs_is_file(p) && !bt_fs_is_dir(p));
	assert_int_equal(bt_fs_file_size(p, &size, &err), BT_OK);
	assert_int_equal(size, 6);
	assert_int_equal(bt_fs_read_all(p, 6, &text, &len, &err), BT_OK);
	assert_int_equal(len, 6);
	assert_string_equal(text, "second");
	free(text);
	assert_int_equal(bt_fs_read_all(p, 5, &text, &len, &err), BT_ERR_TOOBIG);
	char *leftover = bt_xasprintf("%s.tmp", p);
	assert_false(bt_fs_exists(leftover));
	free(leftover);
	free(p);
}

static void test_open_regular(void **state)
{
	(void)state;
	struct bt_error err;
	int fd = -1;
	char *file = at("r.txt"), *fifo = at("fifo"), *missing = at("missing");
	tu_write_file(file, "x", 1);
	assert_int_equal(bt_fs_open_regular(file, &fd, &err), BT_OK);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0); /* blocking again */
	close(fd);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(bt_fs_open_regular(fifo, &fd, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "not a regular file"));
	assert_int_equal(bt_fs_open_regular(tu_group_tmp, &fd, &err), BT_ERR_FORMAT);
	assert_int_equal(bt_fs_open_regular(missing, &fd, &err), BT_ERR_NOTFOUND);
	free(file);
	free(fifo);
	free(missing);
}

static void test_mkdir_list(void **state)
{
	(void)state;
	struct bt_error err;
	char *d = at("list");
	assert_int_equal(bt_fs_mkdir_new(d, &err), BT_OK);
	assert_true(bt_fs_is_dir(d));
	assert_int_equal(bt_fs_mkdir_new(d, &err), BT_ERR_EXISTS);
	char *deep = at("no/such/dir");
	assert_int_equal(bt_fs_mkdir_new(deep, &err), BT_ERR_NOTFOUND);
	free(deep);
	const char *names[] = {"b", "a", "c.db3", "B"};
	for (size_t i = 0; i < 4; i++) {
		char *f = bt_fs_join(d, names[i]);
		tu_write_file(f, "", 0);
		free(f);
	}
	char **list = NULL;
	size_t n = 0;
	assert_int_equal(bt_fs_list_dir(d, &list, &n, &err), BT_OK);
	assert_int_equal(n, 4);
	assert_string_equal(list[0], "B"); /* sorted byte-wise, no "." or ".." */
	assert_string_equal(list[1], "a");
	assert_string_equal(list[2], "b");
	assert_string_equal(list[3], "c.db3");
	bt_fs_free_list(list, n);
	char *missing = at("missing");
	assert_int_equal(bt_fs_list_dir(missing, &list, &n, &err), BT_ERR_NOTFOUND);
	free(missing);
	free(d);
}

static void test_rename_aside(void **state)
{
	(void)state;
	struct bt_error err;
	char *a = at("x.db3"), *b = at("y.db3"), *moved = NULL;
	tu_write_file(a, "A", 1);
	tu_write_file(b, "B", 1);
	assert_int_equal(bt_fs_rename_new(a, b, &err), BT_ERR_EXISTS); /* never replaces */
	assert_true(bt_fs_exists(a));
	const char *want[] = {".old", ".old.1", ".old.2"};
	for (size_t i = 0; i < 3; i++) {
		tu_write_file(a, "A", 1);
		assert_int_equal(bt_fs_set_aside(a, ".old", &moved, &err), BT_OK);
		char *expect = bt_xasprintf("%s%s", a, want[i]);
		assert_string_equal(moved, expect);
		assert_true(bt_fs_is_file(moved));
		assert_false(bt_fs_exists(a));
		free(expect);
		free(moved);
	}
	char *c = at("z.db3");
	assert_int_equal(bt_fs_rename_new(b, c, &err), BT_OK);
	assert_false(bt_fs_exists(b));
	assert_true(bt_fs_exists(c));
	assert_int_equal(bt_fs_set_aside(b, ".old", &moved, &err), BT_ERR_NOTFOUND);
	uint64_t avail = 0;
	assert_int_equal(bt_fs_free_space(tu_group_tmp, &avail, &err), BT_OK);
	assert_true(avail > 0);
	free(a);
	free(b);
	free(c);
}

TU_MAIN_GROUP(tu_group_tmp_setup, tu_group_tmp_teardown,
	cmocka_unit_test(test_paths),
	cmocka_unit_test(test_write_read),
	cmocka_unit_test(test_open_regular),
	cmocka_unit_test(test_mkdir_list),
	cmocka_unit_test(test_rename_aside))
