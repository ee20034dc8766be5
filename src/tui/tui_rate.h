/* tui_rate — rates over a sliding window from counters sampled once per
 * tick (the engine keeps counters since start; the front end computes
 * rates itself, so a burst fades out of the Hz column within the window
 * instead of being averaged into the whole run). One struct per topic,
 * plus one for the header's write rate. Pure; no clock reads: the caller
 * passes the sample time. */
#ifndef TUI_RATE_H
#define TUI_RATE_H

#include <stddef.h>
#include <stdint.h>

#define TUI_RATE_SAMPLES 32
#define TUI_RATE_WINDOW_NS (INT64_C(5) * 1000000000) /* default window */

struct tui_rate {
	int64_t t[TUI_RATE_SAMPLES]; /* monotonic ns */
	uint64_t count[TUI_RATE_SAMPLES];
	uint64_t bytes[TUI_RATE_SAMPLES];
	size_t head; /* slot of the newest sample */
	size_t n;    /* samples held */
};

/* An empty window. */
void tui_rate_init(struct tui_rate *r);
/* Adds a sample of the counters at time now_ns (not earlier than the last
 * sample; a sample at the same time replaces it). */
void tui_rate_push(struct tui_rate *r, int64_t now_ns, uint64_t count, uint64_t bytes);
/* Messages/s and bytes/s between the newest sample and the oldest one not
 * older than window_ns before it (or the oldest held); 0 with fewer than
 * two samples, and for a counter that went backwards. */
void tui_rate_get(const struct tui_rate *r, int64_t window_ns, double *hz, double *bytes_per_s);

#endif
