/* bt_lathist — a histogram of delays (how late something happened), for
 * percentiles without keeping every sample: 1 µs buckets up to 1 ms, then
 * 16 buckets per power of two (within 6.25 %) up to 2^41 µs (25 days), the
 * last open-ended. A percentile is the upper edge of its bucket: exact to
 * 1 µs under 1 ms, at most 6.25 % high above.
 *
 * One thread adds (bt_lathist_add: relaxed atomics, no lock, so it can sit
 * on a publishing path); any thread may read at the same time
 * (bt_lathist_quantile), seeing each count as of some recent moment. */
#ifndef BT_LATHIST_H
#define BT_LATHIST_H

#include <stdatomic.h>
#include <stdint.h>

#define BT_LATHIST_FINE 1000 /* 1 µs buckets: [0, 1 ms) */
#define BT_LATHIST_SUB 16    /* buckets per power of two from 1 ms */
#define BT_LATHIST_COARSE (32 * BT_LATHIST_SUB) /* [2^9, 2^41) µs */
#define BT_LATHIST_N (BT_LATHIST_FINE + BT_LATHIST_COARSE)

struct bt_lathist {
	_Atomic uint64_t n[BT_LATHIST_N];
};

/* Zeroes the histogram (before any thread uses it). */
void bt_lathist_init(struct bt_lathist *h);
/* Counts one delay of `ns` (negative: early, counted as 0). */
void bt_lathist_add(struct bt_lathist *h, int64_t ns);
/* The delay in ns that a fraction q (0..1) of the counted ones do not
 * exceed, as the upper edge of its bucket; 0 when none was counted. */
int64_t bt_lathist_quantile(const struct bt_lathist *h, double q);

#endif
