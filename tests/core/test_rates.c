/* rec_rates: one window (5 s) for every reader. A burst followed by a
 * steady 10 Hz reads the same for the live view, the status line and the
 * live statistics (all read rec_rates), and the burst leaves the rate once
 * it is more than 5 s old, not 2 s (the statistics' window before). */
#include "rec_rates.h"
#include "test_util.h"

#define S INT64_C(1000000000)

static void set(atomic_uint_fast64_t *a, uint64_t v)
{
	atomic_store_explicit(a, v, memory_order_relaxed);
}

/* rec_rates_fn: the one topic's rates into *ctx. */
static void keep(void *ctx, size_t i, const struct rec_rate_row *row)
{
	assert_int_equal(i, 0);
	*(struct rec_rate_row *)ctx = *row;
}

static void test_one_window(void **state)
{
	(void)state;
	struct rec_topics *tt = rec_topics_new();
	struct rec_topic *tp = rec_topics_add(tt, "rt/a", "A_", false);
	assert_non_null(tp);
	struct rec_rates *r = rec_rates_new(tt);
	struct rec_rate_row row, again;
	struct rec_rate_total tot;
	rec_rates_get(r, 10 * S, 1, keep, &row, &tot); /* the first sample: no rate yet */
	assert_true(row.received_hz == 0.0 && tot.committed_bps == 0.0);
	/* 1000 messages in the first second, then 10 a second. */
	uint64_t n = 1000;
	set(&tp->st.received, n);
	set(&tp->st.recorded, n);
	set(&tp->st.bytes, n * 100);
	set(&tp->st.rx_bytes, n * 100);
	rec_rates_get(r, 11 * S, 1, keep, &row, &tot);
	assert_true(row.received_hz == 1000.0 && tot.committed_bps == 100000.0);
	for (int64_t t = 12; t <= 20; t++) {
		n += 10;
		set(&tp->st.received, n);
		set(&tp->st.recorded, n);
		set(&tp->st.bytes, n * 100);
		set(&tp->st.ignored, (uint64_t)(t - 11) * 3);
		set(&tp->st.rx_bytes, n * 100);
		rec_rates_get(r, t * S, 1, keep, &row, &tot);
		if (t == 14) /* 3 s after the burst: still in the 5 s window */
			assert_true(row.received_hz > 100.0);
	}
	assert_true(row.received_hz == 10.0);
	assert_true(row.committed_bps == 1000.0);
	assert_true(tot.recorded_hz == 10.0 && tot.committed_bps == 1000.0);
	/* Every arrival: 3 a second more arrived while paused. */
	assert_true(row.arrived_hz == 13.0);
	/* A second reader at once gets the same figures, not a window of its
	 * own (a read within the step takes no new sample). */
	rec_rates_get(r, 20 * S + 1, 1, keep, &again, NULL);
	assert_true(again.received_hz == row.received_hz &&
		    again.committed_bps == row.committed_bps);
	rec_rates_free(r);
	rec_topics_free(tt);
}

TU_MAIN(
	cmocka_unit_test(test_one_window))
