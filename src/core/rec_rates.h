/* rec_rates — the one place bagtop computes rates: per topic and in total,
 * over one window (BT_RATE_WINDOW_NS, 5 s), for the live view, the status
 * lines and the live statistics alike, so they agree. Whoever reads first
 * after a step (REC_RATES_STEP_NS) samples every topic's counters; there
 * is no thread of its own. Thread-safe (a mutex held while sampling a few
 * atomics per topic, never across I/O). */
#ifndef REC_RATES_H
#define REC_RATES_H

#include <stddef.h>
#include <stdint.h>

#include "rec_topics.h"

/* Samples at most this often: the samples held span more than the window. */
#define REC_RATES_STEP_NS (INT64_C(5) * 1000000000 / 24)

/* One topic's rates, per second over the window. */
struct rec_rate_row {
	double arrived_hz, arrived_bps; /* every arrival, recorded or not (paused, off) */
	double received_hz;             /* received while recording */
	double committed_bps;           /* payload bytes committed to the bag */
};

/* The bag's rates: messages and payload bytes committed per second. */
struct rec_rate_total {
	double recorded_hz, committed_bps;
};

struct rec_rates;

/* Rates of the topics of `t` (borrowed; outlives it). Aborts on OOM. */
struct rec_rates *rec_rates_new(const struct rec_topics *t);
void rec_rates_free(struct rec_rates *r);
/* Called with topic i's rates; it only stores them (the mutex is held). */
typedef void (*rec_rates_fn)(void *ctx, size_t i, const struct rec_rate_row *row);
/* Samples if the last sample is REC_RATES_STEP_NS older than `now`
 * (monotonic ns), then calls fn for topics 0..n-1 (n may be 0, fn NULL)
 * and fills *total (may be NULL). A topic not sampled yet reads 0. */
void rec_rates_get(struct rec_rates *r, int64_t now, size_t n, rec_rates_fn fn, void *ctx,
		   struct rec_rate_total *total);

#endif
