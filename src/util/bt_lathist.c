/* bt_lathist — see bt_lathist.h. */
#include "bt_lathist.h"

#define US INT64_C(1000)

void bt_lathist_init(struct bt_lathist *h)
{
	for (int i = 0; i < BT_LATHIST_N; i++)
		atomic_init(&h->n[i], 0);
}

/* Above 1 ms: v µs in [2^e, 2^(e+1)) (e >= 9) has sub-bucket s, the four
 * bits after its leading one. */
static int lathist_bucket(int64_t ns)
{
	int64_t us = ns > 0 ? ns / US : 0;
	if (us < BT_LATHIST_FINE)
		return (int)us;
	int e = 63 - __builtin_clzll((unsigned long long)us);
	int s = (int)((us >> (e - 4)) & (BT_LATHIST_SUB - 1));
	int i = BT_LATHIST_FINE + (e - 9) * BT_LATHIST_SUB + s;
	return i < BT_LATHIST_N ? i : BT_LATHIST_N - 1;
}

/* The upper edge of bucket i, in ns. */
static int64_t lathist_edge(int i)
{
	if (i < BT_LATHIST_FINE)
		return (int64_t)(i + 1) * US;
	int e = 9 + (i - BT_LATHIST_FINE) / BT_LATHIST_SUB;
	int s = (i - BT_LATHIST_FINE) % BT_LATHIST_SUB;
	return ((int64_t)(BT_LATHIST_SUB + s + 1) << (e - 4)) * US;
}

void bt_lathist_add(struct bt_lathist *h, int64_t ns)
{
	atomic_fetch_add_explicit(&h->n[lathist_bucket(ns)], 1, memory_order_relaxed);
}

int64_t bt_lathist_quantile(const struct bt_lathist *h, double q)
{
	uint64_t c[BT_LATHIST_N], total = 0;
	for (int i = 0; i < BT_LATHIST_N; i++) {
		c[i] = atomic_load_explicit(&((struct bt_lathist *)h)->n[i], memory_order_relaxed);
		total += c[i];
	}
	if (total == 0)
		return 0;
	q = q < 0 ? 0 : q > 1 ? 1 : q;
	/* the smallest bucket holding the ceil(q * total)-th delay */
	double x = (double)total * q;
	uint64_t rank = (uint64_t)x;
	rank += (double)rank < x || rank == 0; /* ceil, and at least the first */
	uint64_t seen = 0;
	for (int i = 0; i < BT_LATHIST_N; i++) {
		seen += c[i];
		if (seen >= rank)
			return lathist_edge(i);
	}
	return lathist_edge(BT_LATHIST_N - 1);
}
