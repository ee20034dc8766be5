/* rec_snapwin — `--snapshot-window TOPIC_OR_REGEX=BEFORE[:AFTER]` and
 * `--snapshot-topic-cache TOPIC_OR_REGEX=BYTES`: the rules, checked against
 * each other, and each topic's window (rec_snap_window) when discovered.
 * The first rule that names a topic wins (rec_rules, as --throttle); a
 * topic without one takes the global --snapshot-duration / --snapshot-post
 * and only the global --max-cache-size. */
#ifndef REC_SNAPWIN_H
#define REC_SNAPWIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "rec_snap.h"

#define REC_SNAPWIN_MAX_NS (INT64_C(86400) * 1000000000) /* a day: above, absurd */
#define REC_SNAPWIN_MAX_CACHE ((uint64_t)1 << 40)        /* 1 TiB: above, absurd */
#define REC_SNAPWIN_GLOBAL (-1) /* after_ns: not given, --snapshot-post's */

/* One --snapshot-window or --snapshot-topic-cache argument, parsed. */
struct rec_snapwin_spec {
	const char *pattern; /* its first pattern_len bytes (points into arg) */
	size_t pattern_len;
	bool cache;          /* --snapshot-topic-cache: max_bytes; else the window */
	int64_t before_ns;
	int64_t after_ns;    /* REC_SNAPWIN_GLOBAL when not given */
	size_t max_bytes;
};

/* Parses "TOPIC_OR_REGEX=BEFORE[:AFTER]" (seconds, decimals allowed, 0 to
 * a day, not both 0) or, when `cache`, "TOPIC_OR_REGEX=BYTES" (as
 * --max-cache-size, above 0, at most 1 TiB). BT_ERR_USAGE with a one-line
 * reason. */
BT_MUST_CHECK bt_status rec_snapwin_parse(const char *arg, bool cache,
					  struct rec_snapwin_spec *out, struct bt_error *err);

struct rec_snapwin;
/* Compiles the rules. BT_ERR_USAGE when a pattern is given twice with
 * different values, a topic cache exceeds max_cache (the global bound),
 * or a regex does not compile. n == 0 gives NULL (no rule). */
BT_MUST_CHECK bt_status rec_snapwin_new(const struct rec_snapwin_spec *v, size_t n,
					size_t max_cache, struct rec_snapwin **out,
					struct bt_error *err);
void rec_snapwin_free(struct rec_snapwin *w);
/* The topic's window: its first matching window rule and cache rule, the
 * rest from duration_ns (0: no bound) and post_ns. Returns whether any rule
 * named it. `w` may be NULL. Pure: any thread. */
bool rec_snapwin_find(const struct rec_snapwin *w, const char *dds_name, const char *ros_name,
		      int64_t duration_ns, int64_t post_ns, struct rec_snap_window *out);
/* "3 s before, 0.5 s after, 10 MiB" into buf (the window as found). */
const char *rec_snapwin_str(const struct rec_snap_window *w, char *buf, size_t len);

#endif
