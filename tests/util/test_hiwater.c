/* bt_hiwater: an array keeps its room while any use needs more than a
 * quarter of it; after BT_HIWATER_RUN small uses in a row it shrinks to
 * twice the largest of them (never under the floor); a large use restarts
 * the count. */
#include "bt_hiwater.h"
#include "test_util.h"

/* Notes `n` uses of `used` on an array of `cap`; the last call's answer
 * (the earlier ones must all be 0). */
static size_t note_n(struct bt_hiwater *h, unsigned n, size_t used, size_t cap, size_t floor)
{
	for (unsigned i = 1; i < n; i++)
		assert_int_equal(bt_hiwater_note(h, used, cap, floor), 0);
	return bt_hiwater_note(h, used, cap, floor);
}

static void test_shrinks_after_a_run(void **state)
{
	(void)state;
	struct bt_hiwater h = {0};
	/* 63 uses of 100 on 10000: not yet; then one of 300: to 600. */
	assert_int_equal(note_n(&h, BT_HIWATER_RUN - 1, 100, 10000, 64), 0);
	assert_int_equal(bt_hiwater_note(&h, 300, 10000, 64), 600);
	/* The count starts again after a shrink. */
	assert_int_equal(note_n(&h, BT_HIWATER_RUN - 1, 100, 10000, 64), 0);
}

static void test_large_use_restarts(void **state)
{
	(void)state;
	struct bt_hiwater h = {0};
	assert_int_equal(note_n(&h, BT_HIWATER_RUN - 1, 100, 10000, 64), 0);
	/* 2501 is over a quarter of 10000: the run is broken, its 100s forgotten. */
	assert_int_equal(bt_hiwater_note(&h, 2501, 10000, 64), 0);
	assert_int_equal(note_n(&h, BT_HIWATER_RUN - 1, 2500, 10000, 64), 0);
	assert_int_equal(bt_hiwater_note(&h, 10, 10000, 64), 5000);
}

static void test_floor_and_small_arrays(void **state)
{
	(void)state;
	struct bt_hiwater h = {0};
	/* Twice the largest use is under the floor: to the floor. */
	assert_int_equal(note_n(&h, BT_HIWATER_RUN, 0, 10000, 256), 256);
	/* An array at the floor or under it is never shrunk. */
	assert_int_equal(note_n(&h, 3 * BT_HIWATER_RUN, 0, 256, 256), 0);
	/* Just over the floor: to the floor. */
	assert_int_equal(note_n(&h, BT_HIWATER_RUN, 0, 300, 256), 256);
}

TU_MAIN(cmocka_unit_test(test_shrinks_after_a_run), cmocka_unit_test(test_large_use_restarts),
	cmocka_unit_test(test_floor_and_small_arrays))
