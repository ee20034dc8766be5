#include "bt_rate.h"

#include <string.h>

void bt_rate_init(struct bt_rate *r)
{
	memset(r, 0, sizeof *r);
}

void bt_rate_push(struct bt_rate *r, int64_t now_ns, uint64_t count, uint64_t bytes)
{
	if (r->n == 0 || now_ns != r->t[r->head]) {
		r->head = (r->head + 1) % BT_RATE_SAMPLES;
		if (r->n < BT_RATE_SAMPLES)
			r->n++;
	}
	r->t[r->head] = now_ns;
	r->count[r->head] = count;
	r->bytes[r->head] = bytes;
}

static double bt_rate_per_s(uint64_t newer, uint64_t older, int64_t dt)
{
	return newer >= older ? (double)(newer - older) * 1e9 / (double)dt : 0.0;
}

void bt_rate_get(const struct bt_rate *r, int64_t window_ns, double *hz, double *bytes_per_s)
{
	*hz = *bytes_per_s = 0.0;
	if (r->n < 2)
		return;
	size_t old = r->head;
	/* Walk back while the next older sample is still inside the window. */
	for (size_t k = 1; k < r->n; k++) {
		size_t i = (r->head + BT_RATE_SAMPLES - k) % BT_RATE_SAMPLES;
		if (r->t[r->head] - r->t[i] > window_ns && old != r->head)
			break;
		old = i;
	}
	int64_t dt = r->t[r->head] - r->t[old];
	if (dt <= 0)
		return;
	*hz = bt_rate_per_s(r->count[r->head], r->count[old], dt);
	*bytes_per_s = bt_rate_per_s(r->bytes[r->head], r->bytes[old], dt);
}
