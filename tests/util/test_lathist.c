/* Lateness percentiles from the histogram: exact to the µs under 1 ms,
 * within 6.25 % above, early counted as on time, empty is 0. */
#include <pthread.h>

#include "test_util.h"
#include "bt_lathist.h"

#define US INT64_C(1000)
#define MS INT64_C(1000000)

static void test_fine(void **state)
{
	(void)state;
	struct bt_lathist h;
	bt_lathist_init(&h);
	assert_int_equal(bt_lathist_quantile(&h, 0.5), 0);
	/* 1..100 µs, one each (+ 0.5 µs): p50 is the 50th, p99 the 99th */
	for (int64_t i = 1; i <= 100; i++)
		bt_lathist_add(&h, i * US + 500);
	assert_int_equal(bt_lathist_quantile(&h, 0.5), 51 * US);
	assert_int_equal(bt_lathist_quantile(&h, 0.99), 100 * US);
	assert_int_equal(bt_lathist_quantile(&h, 1.0), 101 * US);
	assert_int_equal(bt_lathist_quantile(&h, 0.0), 2 * US);
	bt_lathist_add(&h, -5 * MS); /* early: on time */
	assert_int_equal(bt_lathist_quantile(&h, 0.0), 1 * US);
}

static void test_coarse(void **state)
{
	(void)state;
	struct bt_lathist h;
	bt_lathist_init(&h);
	for (int i = 0; i < 98; i++)
		bt_lathist_add(&h, 10 * US);
	bt_lathist_add(&h, 3 * MS);       /* 3000 µs: [2944, 3072) µs */
	bt_lathist_add(&h, INT64_MAX / 2); /* beyond the last edge: the last bucket */
	assert_int_equal(bt_lathist_quantile(&h, 0.5), 11 * US);
	assert_int_equal(bt_lathist_quantile(&h, 0.99), 3072 * US);
	int64_t top = bt_lathist_quantile(&h, 1.0);
	assert_true(top >= (INT64_C(1) << 40)); /* the open-ended bucket's edge */
	/* the edges: exactly 1 ms is [992, 1024) µs; just under it the last
	 * µs bucket; every delay within 6.25 % under its edge */
	struct bt_lathist g;
	bt_lathist_init(&g);
	bt_lathist_add(&g, 1 * MS);
	assert_int_equal(bt_lathist_quantile(&g, 1.0), 1024 * US);
	for (int64_t d = 1 * MS; d < INT64_C(1000000) * MS; d = d * 17 / 16 + 12345) {
		bt_lathist_init(&g);
		bt_lathist_add(&g, d);
		int64_t q = bt_lathist_quantile(&g, 1.0);
		assert_true(q > d / US * US && (double)q <= (double)d * 1.0625 + 1000);
	}
	bt_lathist_init(&g);
	bt_lathist_add(&g, 999 * US + 999);
	assert_int_equal(bt_lathist_quantile(&g, 1.0), 1 * MS);
}

/* One adder, one reader at once: the reader sees counts that only grow. */
static void *adder(void *arg)
{
	struct bt_lathist *h = arg;
	for (int i = 0; i < 200000; i++)
		bt_lathist_add(h, (i % 2000) * US);
	return NULL;
}

static void test_concurrent(void **state)
{
	(void)state;
	static struct bt_lathist h;
	bt_lathist_init(&h);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, adder, &h), 0);
	for (int i = 0; i < 200; i++) {
		int64_t q = bt_lathist_quantile(&h, 0.5);
		assert_true(q >= 0 && q <= 2 * MS);
	}
	pthread_join(t, NULL);
	/* half under 1 ms in 1 µs steps: the median is at the 1 ms edge */
	assert_int_equal(bt_lathist_quantile(&h, 0.5), 1 * MS);
}

TU_MAIN(
	cmocka_unit_test(test_fine),
	cmocka_unit_test(test_coarse),
	cmocka_unit_test(test_concurrent))
