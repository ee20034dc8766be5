/* Sliding-window rates: a burst leaves the window; fewer than two samples
 * or a counter going backwards give 0. */
#include "test_util.h"
#include "bt_rate.h"

#define S INT64_C(1000000000)

static void test_window(void **state)
{
	(void)state;
	struct bt_rate r;
	double hz, bw;
	bt_rate_init(&r);
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz == 0.0 && bw == 0.0);
	bt_rate_push(&r, 10 * S, 0, 0);
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz == 0.0);
	/* A burst of 1000 messages in the first second, then 10 Hz. */
	bt_rate_push(&r, 11 * S, 1000, 100000);
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz == 1000.0 && bw == 100000.0);
	uint64_t n = 1000;
	for (int64_t t = 12; t <= 20; t++) {
		n += 10;
		bt_rate_push(&r, t * S, n, n * 100);
	}
	/* The window (5 s) no longer holds the burst: 10 Hz, not (1090/10). */
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz == 10.0);
	assert_true(bw == 1000.0);
	/* A 20 s window reaches back to the start. */
	bt_rate_get(&r, 20 * S, &hz, &bw);
	assert_true(hz == 109.0);
}

static void test_odd_samples(void **state)
{
	(void)state;
	struct bt_rate r;
	double hz, bw;
	bt_rate_init(&r);
	bt_rate_push(&r, 1 * S, 10, 10);
	bt_rate_push(&r, 1 * S, 20, 20); /* same time: replaces */
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz == 0.0);
	bt_rate_push(&r, 2 * S, 5, 5); /* backwards (a restart): no rate */
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz == 0.0 && bw == 0.0);
	/* Ticks farther apart than the window: the last interval counts. */
	bt_rate_push(&r, 100 * S, 105, 5);
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz > 1.02 && hz < 1.03); /* 100 in 98 s */
	/* More samples than the ring holds. */
	for (int64_t i = 0; i < 3 * BT_RATE_SAMPLES; i++)
		bt_rate_push(&r, 200 * S + i * S / 10, (uint64_t)i * 3, 0);
	bt_rate_get(&r, BT_RATE_WINDOW_NS, &hz, &bw);
	assert_true(hz > 29.99 && hz < 30.01);
}

TU_MAIN(
	cmocka_unit_test(test_window),
	cmocka_unit_test(test_odd_samples))
