/* rec_throttle — see rec_throttle.h: the rules and the lock-free bucket. */
#include "rec_throttle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bt_fmt.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "rec_rules.h"

#define THROTTLE_MAX_BPS ((uint64_t)1 << 40) /* 1 TiB/s: above, absurd */
/* A cost never beyond this (ns), so the bucket's time cannot overflow
 * for a huge message at a tiny rate (about 31 years). */
#define THROTTLE_MAX_COST_NS 1e18

struct rec_throttle {
	struct rec_throttle_spec *specs; /* patterns: the rules' */
	struct rec_rules *rules;
	size_t n;
};

/* "10Hz", "0.5hz": messages per second. */
static bool throttle_parse_hz(const char *r, double *out)
{
	size_t len = strlen(r);
	if (len < 3 || strcasecmp(r + len - 2, "hz") != 0)
		return false;
	char num[64];
	if (len - 2 >= sizeof num)
		return false;
	memcpy(num, r, len - 2);
	num[len - 2] = '\0';
	return bt_parse_decimal(num, 0.0, REC_THROTTLE_MAX_HZ, out) == BT_OK && *out > 0.0;
}

/* "2M/s", "2MB/s", "500KiB/s", "100B/s": -b's sizes (IEC: "MB" is MiB,
 * as "M"), per second. */
static bool throttle_parse_bps(const char *r, double *out)
{
	size_t len = strlen(r);
	char num[64];
	if (len < 3 || strcmp(r + len - 2, "/s") != 0 || len - 2 >= sizeof num)
		return false;
	len -= 2;
	memcpy(num, r, len);
	num[len] = '\0';
	/* "KB".."TB" and a bare "B": the B is only the unit */
	if (len >= 2 && num[len - 1] == 'B' && num[len - 2] != 'i')
		num[--len] = '\0';
	uint64_t v;
	if (bt_parse_size(num, &v) != BT_OK || v == 0 || v > THROTTLE_MAX_BPS)
		return false;
	*out = (double)v;
	return true;
}

bt_status rec_throttle_parse(const char *arg, struct rec_throttle_spec *out,
			     struct bt_error *err)
{
	struct rec_throttle_spec s = {.pattern = arg};
	const char *rate;
	bt_status st = rec_rules_split(arg, "throttle", "RATE", "/imu=10Hz", &s.pattern_len, &rate,
				       err);
	if (st != BT_OK)
		return st;
	if (throttle_parse_hz(rate, &s.rate))
		s.bytes = false;
	else if (throttle_parse_bps(rate, &s.rate))
		s.bytes = true;
	else
		return bt_err_set(err, BT_ERR_USAGE,
				  "--throttle '%s': bad rate '%s': want a message rate above 0 "
				  "and at most 1e9 (10Hz, 0.5Hz) or a byte rate above 0 "
				  "(500KiB/s, 2MB/s = 2 MiB/s)",
				  arg, rate);
	*out = s;
	return BT_OK;
}

bt_status rec_throttle_new(const struct rec_throttle_spec *v, size_t n,
			   struct rec_throttle **out, struct bt_error *err)
{
	*out = NULL;
	if (n == 0)
		return BT_OK;
	struct rec_throttle *t = bt_xcalloc(1, sizeof *t);
	t->specs = bt_xcalloc(n, sizeof *t->specs);
	for (; t->n < n; t->n++) {
		bt_status st = rec_rules_add(&t->rules, v[t->n].pattern, v[t->n].pattern_len,
					     "--throttle", err);
		if (st != BT_OK) {
			rec_throttle_free(t);
			return st;
		}
		t->specs[t->n] = v[t->n];
		t->specs[t->n].pattern = rec_rules_pattern(t->rules, t->n);
	}
	*out = t;
	return BT_OK;
}

void rec_throttle_free(struct rec_throttle *t)
{
	if (t == NULL)
		return;
	rec_rules_free(t->rules);
	free(t->specs);
	free(t);
}

const struct rec_throttle_spec *rec_throttle_find(const struct rec_throttle *t,
						  const char *dds_name, const char *ros_name)
{
	long i = t != NULL ? rec_rules_find(t->rules, dds_name, ros_name) : -1;
	return i >= 0 ? &t->specs[i] : NULL;
}

const char *rec_throttle_rate_str(const struct rec_throttle_spec *s, char *buf, size_t len)
{
	if (!s->bytes) {
		snprintf(buf, len, "%g Hz", s->rate);
		return buf;
	}
	char b[32];
	bt_fmt_iec((uint64_t)s->rate, b, sizeof b);
	snprintf(buf, len, "%s/s", b);
	return buf;
}

void rec_bucket_init(struct rec_bucket *b, const struct rec_throttle_spec *s)
{
	b->ns_per_unit = s != NULL ? 1e9 / s->rate : 0.0;
	b->bytes = s != NULL && s->bytes;
	atomic_init(&b->tat, INT64_MIN);
}

bool rec_bucket_admit(struct rec_bucket *b, int64_t now, size_t len)
{
	if (b->ns_per_unit == 0.0)
		return true;
	double c = b->bytes ? (double)len * b->ns_per_unit : b->ns_per_unit;
	int64_t cost = (int64_t)(c < THROTTLE_MAX_COST_NS ? c : THROTTLE_MAX_COST_NS);
	int64_t tat = atomic_load_explicit(&b->tat, memory_order_relaxed);
	for (;;) {
		/* `tat` is when the next message's slot starts. A message taken
		 * up to half a slot late fills its slot from there, not from
		 * `now`, so such lateness does not push the rest later (no
		 * drift below the rate); one later than that, or a bucket never
		 * used or idle, starts afresh at now. So two admitted messages
		 * are never closer than half a slot (no burst): a receive
		 * thread held up under load would otherwise catch up with the
		 * next message right after its late one. */
		if (tat > now)
			return false;
		int64_t start = tat < now - cost / 2 ? now : tat;
		if (atomic_compare_exchange_weak_explicit(&b->tat, &tat, start + cost,
							  memory_order_relaxed, memory_order_relaxed))
			return true;
	}
}
