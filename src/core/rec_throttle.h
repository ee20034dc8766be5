/* rec_throttle — `--throttle TOPIC_OR_REGEX=RATE`: the rules, which topic
 * each applies to, and the per-topic bucket the DDS listener asks.
 *
 * The bucket is a token bucket holding one message (GCRA, virtual
 * scheduling): one atomic time per topic, when the next message's slot
 * starts, advanced by each admitted message's cost (1/rate s, or its bytes
 * / rate). A message is admitted once its slot has started; one late by
 * up to half a slot fills the slot that started, so the admitted messages
 * keep the rate exactly on average (no drift), evenly spaced to within the
 * publisher's period, never closer than half a slot (no burst: also not
 * at the start, after idling or after a receive thread was held up).
 * Lock-free (one compare-and-swap), so the receive threads decide at
 * once and a throttled message is never copied nor cached. */
#ifndef REC_THROTTLE_H
#define REC_THROTTLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

#define REC_THROTTLE_MAX_HZ 1e9 /* above: refused as absurd */

/* One --throttle argument, parsed. */
struct rec_throttle_spec {
	const char *pattern; /* TOPIC_OR_REGEX: its first pattern_len bytes */
	size_t pattern_len;
	double rate;         /* per second: messages, or bytes when `bytes` */
	bool bytes;
};

/* Parses "TOPIC_OR_REGEX=RATE" (split at the last '='): RATE is "10Hz",
 * "0.5Hz" (> 0, at most 1e9), or a byte count as -b takes it with "/s"
 * ("500KiB/s", "2M/s"; "2MB/s" is read as 2 MiB/s, as for -b: IEC). The
 * pattern points into `arg` (not NUL-terminated: "=RATE" follows).
 * BT_ERR_USAGE with a one-line reason. */
BT_MUST_CHECK bt_status rec_throttle_parse(const char *arg, struct rec_throttle_spec *out,
					   struct bt_error *err);

/* The rules, compiled (their patterns as btdds_select_new_pattern, copied:
 * in the rules, each pattern is NUL-terminated). */
struct rec_throttle;
/* BT_ERR_USAGE when a pattern's regex does not compile. n == 0 gives
 * NULL, which matches nothing. */
BT_MUST_CHECK bt_status rec_throttle_new(const struct rec_throttle_spec *v, size_t n,
					 struct rec_throttle **out, struct bt_error *err);
void rec_throttle_free(struct rec_throttle *t);
/* The first rule that applies to the topic (the first given wins), or
 * NULL. `t` may be NULL. Pure: any thread. */
const struct rec_throttle_spec *rec_throttle_find(const struct rec_throttle *t,
						  const char *dds_name, const char *ros_name);
/* "10 Hz", "2 MiB/s" into buf. */
const char *rec_throttle_rate_str(const struct rec_throttle_spec *s, char *buf, size_t len);

/* A topic's bucket. All zero: no throttle. */
struct rec_bucket {
	double ns_per_unit;        /* ns per message, or per byte; 0 = off */
	bool bytes;
	atomic_int_fast64_t tat;   /* monotonic ns: when the bucket is empty again */
};

/* Sets the bucket for `s` (NULL: off). Before any listener can run. */
void rec_bucket_init(struct rec_bucket *b, const struct rec_throttle_spec *s);
/* May a message of `len` bytes arriving at `now` (monotonic ns) be
 * recorded? Always true when off. Any thread, lock-free. */
bool rec_bucket_admit(struct rec_bucket *b, int64_t now, size_t len);

#endif
