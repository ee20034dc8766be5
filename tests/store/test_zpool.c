/* The MESSAGE-mode compression pool on its own: many batches of varied
 * sizes (empty, one job, growing the job array) with 1, 2 and 3 workers;
 * every job's output inflates to its input, waited for in order or after a
 * drain. Under TSan this checks the lock-free claim across batches. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bt_buf.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "store__zpool.h"
#include "store__zstd.h"
#include "test_util.h"

#define ZT_MAX_JOBS 600

/* Half repetitive, half pseudo-random bytes, different per (batch, job). */
static void zt_fill(uint8_t *p, size_t len, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 7u;
	for (size_t i = 0; i < len; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p[i] = (i / 64) % 2 ? (uint8_t)x : (uint8_t)(i % 7);
	}
}

static size_t zt_batch_size(unsigned b)
{
	static const size_t sizes[] = {0, 1, 2, 37, 1, 600, 5, 0, 300, 64};
	return sizes[b % (sizeof sizes / sizeof sizes[0])];
}

static void zt_check_job(struct bag_zpool *p, size_t i, const struct bag_zpool_input *in,
			 struct bt_buf *plain)
{
	const void *z;
	size_t zlen;
	struct bt_error err;
	assert_int_equal(bag_zpool_wait(p, i, &z, &zlen), BT_OK);
	assert_true(bag_zstd_is_frame(z, zlen));
	assert_int_equal(bag_zstd_decompress_msg(z, zlen, plain, &err), BT_OK);
	assert_int_equal(plain->len, in[i].len);
	assert_memory_equal(plain->data, in[i].data, in[i].len);
}

static void zt_run(unsigned threads, unsigned batches)
{
	struct bag_zpool *p;
	struct bt_error err;
	assert_int_equal(bag_zpool_new(threads, BT_SYNC_NICE_KEEP, 0, &p, &err), BT_OK);
	struct bag_zpool_input *in = bt_xcalloc(ZT_MAX_JOBS, sizeof *in);
	uint8_t **bufs = bt_xcalloc(ZT_MAX_JOBS, sizeof *bufs);
	struct bt_buf plain = {0};
	for (unsigned b = 0; b < batches; b++) {
		size_t n = zt_batch_size(b);
		for (size_t i = 0; i < n; i++) {
			size_t len = 1 + (b * 131u + i * 17u) % 3000u;
			bufs[i] = bt_xrealloc(bufs[i], len);
			zt_fill(bufs[i], len, b * 1000u + (uint32_t)i);
			in[i].data = bufs[i];
			in[i].len = len;
		}
		bag_zpool_submit(p, in, n);
		if (b % 5 == 4) {
			/* As the writer does after a failed insert, then reads on. */
			bag_zpool_drain(p);
		}
		for (size_t i = 0; i < n; i++)
			zt_check_job(p, i, in, &plain);
	}
	bag_zpool_free(p);
	bt_buf_fini(&plain);
	for (size_t i = 0; i < ZT_MAX_JOBS; i++)
		free(bufs[i]);
	free(bufs);
	free(in);
}

static void test_one_worker(void **state)
{
	(void)state;
	zt_run(1, 40);
}

static void test_two_workers(void **state)
{
	(void)state;
	zt_run(2, 60);
}

static void test_three_workers(void **state)
{
	(void)state;
	zt_run(3, 60);
}

/* A pool freed with a batch submitted and never waited for must still join
 * its workers (the writer's error path). */
static void test_free_with_batch_in_flight(void **state)
{
	(void)state;
	struct bag_zpool *p;
	struct bt_error err;
	assert_int_equal(bag_zpool_new(2, BT_SYNC_NICE_KEEP, 0, &p, &err), BT_OK);
	static uint8_t data[100][512];
	struct bag_zpool_input in[100];
	for (size_t i = 0; i < 100; i++) {
		zt_fill(data[i], sizeof data[i], (uint32_t)i);
		in[i] = (struct bag_zpool_input){data[i], sizeof data[i]};
	}
	bag_zpool_submit(p, in, 100);
	bag_zpool_free(p);
}

TU_MAIN(
	cmocka_unit_test(test_one_worker),
	cmocka_unit_test(test_two_workers),
	cmocka_unit_test(test_three_workers),
	cmocka_unit_test(test_free_with_batch_in_flight))
