/* bt_buf: appends, printf, reset and steal keep the buffer NUL-terminated
 * and its length right, also across growth; bt_xappend (bt_mem) too. */
#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_mem.h"
#include "test_util.h"

static void test_append(void **state)
{
	(void)state;
	struct bt_buf b = BT_BUF_INIT;
	assert_int_equal(bt_buf_puts(&b, "ab"), BT_OK);
	assert_int_equal(bt_buf_append(&b, "cdef", 2), BT_OK);
	assert_int_equal(bt_buf_append(&b, "", 0), BT_OK);
	assert_int_equal(b.len, 4);
	assert_string_equal(b.data, "abcd");
	assert_int_equal(bt_buf_printf(&b, "-%d-%s", 42, "x"), BT_OK);
	assert_string_equal(b.data, "abcd-42-x");
	assert_int_equal(b.len, strlen(b.data));
	/* Binary bytes, NUL included, are kept as given. */
	assert_int_equal(bt_buf_append(&b, "\0z", 2), BT_OK);
	assert_int_equal(b.len, 11);
	assert_memory_equal(b.data + 9, "\0z\0", 3);
	bt_buf_fini(&b);
	assert_null(b.data);
}

static void test_growth(void **state)
{
	(void)state;
	struct bt_buf b = BT_BUF_INIT;
	for (int i = 0; i < 10000; i++)
		assert_int_equal(bt_buf_printf(&b, "%04d", i % 10000), BT_OK);
	assert_int_equal(b.len, 40000);
	assert_true(b.cap > b.len);
	assert_memory_equal(b.data + 4 * 1234, "1234", 4);
	assert_int_equal(b.data[b.len], '\0');
	/* A printf longer than any first guess. */
	char big[5000];
	memset(big, 'q', sizeof big - 1);
	big[sizeof big - 1] = '\0';
	bt_buf_reset(&b);
	assert_int_equal(bt_buf_printf(&b, "<%s>", big), BT_OK);
	assert_int_equal(b.len, 5000 + 1);
	assert_int_equal(b.data[0], '<');
	assert_int_equal(b.data[5000], '>');
	bt_buf_fini(&b);
}

static void test_reset_steal(void **state)
{
	(void)state;
	struct bt_buf b = BT_BUF_INIT;
	assert_int_equal(bt_buf_reserve(&b, 100), BT_OK);
	assert_true(b.cap >= 100);
	assert_int_equal(bt_buf_puts(&b, "hello"), BT_OK);
	char *before = b.data;
	size_t cap = b.cap;
	bt_buf_reset(&b);
	assert_int_equal(b.len, 0);
	assert_ptr_equal(b.data, before); /* storage kept */
	assert_int_equal(b.cap, cap);
	assert_int_equal(bt_buf_puts(&b, "again"), BT_OK);
	char *s = bt_buf_steal(&b);
	assert_string_equal(s, "again");
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	free(s);
	/* Stealing an empty buffer gives an empty string, not NULL. */
	s = bt_buf_steal(&b);
	assert_non_null(s);
	assert_string_equal(s, "");
	free(s);
	bt_buf_fini(&b);
}

/* bt_xappend (bt_mem): each element copied to the end, the count kept. */
static void test_xappend(void **state)
{
	(void)state;
	struct pair {
		int a;
		double b;
	} *v = NULL;
	size_t n = 0;
	for (int i = 0; i < 100; i++) {
		struct pair p = {i, i / 2.0};
		bt_xappend((void **)&v, &n, &p, sizeof p);
		assert_int_equal(n, (size_t)i + 1);
	}
	for (int i = 0; i < 100; i++) {
		assert_int_equal(v[i].a, i);
		assert_true(v[i].b == i / 2.0);
	}
	free(v);
}

TU_MAIN(
	cmocka_unit_test(test_append),
	cmocka_unit_test(test_growth),
	cmocka_unit_test(test_reset_steal),
	cmocka_unit_test(test_xappend))
