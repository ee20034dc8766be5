/* bt_pool: a freed block of a class comes back for the next block of that
 * class (outside ASan, where nothing is kept), blocks are usable over their
 * whole size, large blocks bypass the pool, and blocks freed on one thread
 * are taken on another; bt_pool_trim frees exactly the blocks no
 * allocation took since its previous call. */
#include <pthread.h>
#include <string.h>

#include "bt_pool.h"
#include "test_util.h"

#if defined(__SANITIZE_ADDRESS__)
#define KEEPS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KEEPS 0
#endif
#endif
#ifndef KEEPS
#define KEEPS 1
#endif

static void test_reuse(void **state)
{
	(void)state;
	void *a = bt_pool_alloc(1000);
	assert_non_null(a);
	memset(a, 0xab, 1000);
	bt_pool_free(a, 1000);
	/* 1000 and 1020 round to the same class. */
	void *b = bt_pool_alloc(1020);
	assert_non_null(b);
	if (KEEPS)
		assert_ptr_equal(a, b);
	memset(b, 0xcd, 1020);
	bt_pool_free(b, 1020);
	void *big = bt_pool_alloc(BT_POOL_MAX + 1);
	assert_non_null(big);
	memset(big, 0, BT_POOL_MAX + 1);
	bt_pool_free(big, BT_POOL_MAX + 1);
	bt_pool_free(NULL, 100);
}

/* More free blocks than the pool keeps: the rest go back to malloc (ASan
 * and LSan see no leak either way). */
static void test_bound(void **state)
{
	(void)state;
	enum { N = 2 * BT_POOL_KEEP / BT_POOL_MAX };
	static void *p[N];
	for (size_t i = 0; i < N; i++)
		assert_non_null(p[i] = bt_pool_alloc(BT_POOL_MAX));
	for (size_t i = 0; i < N; i++)
		bt_pool_free(p[i], BT_POOL_MAX);
}

/* Ten blocks of one class freed into the pool: the first trim restarts the
 * low-water mark (a block may be taken before the next one), a trim with
 * three of them taken in between frees the seven never taken, the next
 * (after the three came back) frees those three, and then nothing. */
static void test_trim(void **state)
{
	(void)state;
	enum { N = 10, SZ = 3 * BT_POOL_STEP };
	void *p[N];
	(void)bt_pool_trim(); /* whatever earlier tests left */
	(void)bt_pool_trim();
	assert_int_equal(bt_pool_trim(), 0);
	for (size_t i = 0; i < N; i++)
		assert_non_null(p[i] = bt_pool_alloc(SZ));
	for (size_t i = 0; i < N; i++)
		bt_pool_free(p[i], SZ);
	assert_int_equal(bt_pool_trim(), 0);
	for (size_t i = 0; i < 3; i++)
		assert_non_null(p[i] = bt_pool_alloc(SZ));
	assert_int_equal(bt_pool_trim(), KEEPS ? 7 * SZ : 0);
	for (size_t i = 0; i < 3; i++)
		bt_pool_free(p[i], SZ);
	assert_int_equal(bt_pool_trim(), 0);
	assert_int_equal(bt_pool_trim(), KEEPS ? 3 * SZ : 0);
	assert_int_equal(bt_pool_trim(), 0);
}

#define XN 20000

static void *freer(void *arg)
{
	void **p = arg;
	for (size_t i = 0; i < XN; i++)
		bt_pool_free(p[i], 300 + i % 1500);
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	static void *p[XN];
	for (int round = 0; round < 3; round++) {
		for (size_t i = 0; i < XN; i++) {
			assert_non_null(p[i] = bt_pool_alloc(300 + i % 1500));
			memset(p[i], (int)i, 300 + i % 1500);
		}
		pthread_t t;
		assert_int_equal(pthread_create(&t, NULL, freer, p), 0);
		assert_int_equal(pthread_join(t, NULL), 0);
	}
}

TU_MAIN(
	cmocka_unit_test(test_reuse),
	cmocka_unit_test(test_bound),
	cmocka_unit_test(test_threads),
	cmocka_unit_test(test_trim))
