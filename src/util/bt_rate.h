/* bt_rate — rates over a sliding window from counters sampled now and then
 * (counters since start; the rate over the window, so a burst fades out
 * within it instead of being averaged into the whole run). Pure; no clock
 * reads: the caller passes the sample time. rec_rates (src/core) keeps one
 * per topic for everything that shows a rate. */
#ifndef BT_RATE_H
#define BT_RATE_H

#include <stddef.h>
#include <stdint.h>

#define BT_RATE_SAMPLES 32
#define BT_RATE_WINDOW_NS (INT64_C(5) * 1000000000) /* bagtop's one window */

struct bt_rate {
	int64_t t[BT_RATE_SAMPLES]; /* monotonic ns */
	uint64_t count[BT_RATE_SAMPLES];
	uint64_t bytes[BT_RATE_SAMPLES];
	size_t head; /* slot of the newest sample */
	size_t n;    /* samples held */
};

/* An empty window. */
void bt_rate_init(struct bt_rate *r);
/* Adds a sample of the counters at time now_ns (not earlier than the last
 * sample; a sample at the same time replaces it). */
void bt_rate_push(struct bt_rate *r, int64_t now_ns, uint64_t count, uint64_t bytes);
/* Messages/s and bytes/s between the newest sample and the oldest one not
 * older than window_ns before it (or the oldest held); 0 with fewer than
 * two samples, and for a counter that went backwards. */
void bt_rate_get(const struct bt_rate *r, int64_t window_ns, double *hz, double *bytes_per_s);

#endif
