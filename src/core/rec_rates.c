/* Per topic two windows (arrivals, recording), one for the bag; grown with
 * the topics under the mutex. */
#include "rec_rates.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_rate.h"

struct rec_rates_topic {
	struct bt_rate arrived; /* received + ignored, rx_bytes */
	struct bt_rate rec;     /* received, committed bytes */
};

struct rec_rates {
	const struct rec_topics *topics;
	pthread_mutex_t mu;
	struct rec_rates_topic *t; /* under mu */
	size_t n, cap;
	struct bt_rate total; /* recorded, committed bytes */
	int64_t last; /* when the last sample was taken; 0: never */
};

struct rec_rates *rec_rates_new(const struct rec_topics *t)
{
	struct rec_rates *r = bt_xcalloc(1, sizeof *r);
	r->topics = t;
	pthread_mutex_init(&r->mu, NULL);
	bt_rate_init(&r->total);
	return r;
}

void rec_rates_free(struct rec_rates *r)
{
	if (r == NULL)
		return;
	pthread_mutex_destroy(&r->mu);
	free(r->t);
	free(r);
}

static uint64_t rates_ld(const atomic_uint_fast64_t *a)
{
	return atomic_load_explicit(a, memory_order_relaxed);
}

/* Every topic's counters at `now`; under mu. */
static void rates_sample(struct rec_rates *r, int64_t now)
{
	size_t n = rec_topics_count(r->topics);
	if (n > r->cap) {
		size_t cap = n < 2 * r->cap ? 2 * r->cap : n;
		r->t = bt_xrealloc(r->t, cap * sizeof *r->t);
		r->cap = cap;
	}
	for (; r->n < n; r->n++) {
		bt_rate_init(&r->t[r->n].arrived);
		bt_rate_init(&r->t[r->n].rec);
	}
	uint64_t recorded = 0, bytes = 0;
	for (size_t i = 0; i < n; i++) {
		const struct rec_topic_stats *s = &rec_topics_get(r->topics, i)->st;
		uint64_t rx = rates_ld(&s->received), b = rates_ld(&s->bytes);
		bt_rate_push(&r->t[i].arrived, now, rx + rates_ld(&s->ignored),
			     rates_ld(&s->rx_bytes));
		bt_rate_push(&r->t[i].rec, now, rx, b);
		recorded += rates_ld(&s->recorded);
		bytes += b;
	}
	bt_rate_push(&r->total, now, recorded, bytes);
	r->last = now;
}

void rec_rates_get(struct rec_rates *r, int64_t now, size_t n, rec_rates_fn fn, void *ctx,
		   struct rec_rate_total *total)
{
	pthread_mutex_lock(&r->mu);
	if (r->last == 0 || now - r->last >= REC_RATES_STEP_NS)
		rates_sample(r, now);
	for (size_t i = 0; fn != NULL && i < n; i++) {
		struct rec_rate_row w = {0};
		if (i < r->n) {
			bt_rate_get(&r->t[i].arrived, BT_RATE_WINDOW_NS, &w.arrived_hz,
				    &w.arrived_bps);
			bt_rate_get(&r->t[i].rec, BT_RATE_WINDOW_NS, &w.received_hz,
				    &w.committed_bps);
		}
		fn(ctx, i, &w);
	}
	if (total != NULL)
		bt_rate_get(&r->total, BT_RATE_WINDOW_NS, &total->recorded_hz, &total->committed_bps);
	pthread_mutex_unlock(&r->mu);
}
