/* rec_snap_cover — the coverage of a snapshot's windows as one line of
 * text (rec_snap.h): for the event log, the log line and the metadata. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_snap.h"
#include "rec_topics.h"

#define COVER_MAX 64  /* topics named; a line for a human */
#define COVER_MORE 24 /* "; ... N more" */

/* "before 1.2 s of 3 s (40%)" */
static int cover_part(char *buf, size_t len, const char *what, int64_t kept, int64_t win)
{
	double pct = win > 0 ? 100.0 * (double)kept / (double)win : 0.0;
	return snprintf(buf, len, "%s %.3g s of %.3g s (%.0f%%)", what, (double)kept / 1e9,
			(double)win / 1e9, pct);
}

/* One topic's part: "/cam: before ..., after ...". */
static void cover_topic(const struct rec_snap_cover *c, const struct rec_topics *topics,
			char *buf, size_t len)
{
	const struct rec_topic *tp = rec_topics_get(topics, c->topic);
	int n = snprintf(buf, len, "%s:", tp != NULL ? tp->names.name : "?");
	if (c->before_kept_ns < c->before_ns && n >= 0 && (size_t)n < len)
		n += cover_part(buf + n, len - (size_t)n, " before", c->before_kept_ns, c->before_ns);
	if (c->after_kept_ns < c->after_ns && n >= 0 && (size_t)n < len)
		n += cover_part(buf + n, len - (size_t)n,
				c->before_kept_ns < c->before_ns ? ", after" : " after",
				c->after_kept_ns, c->after_ns);
}

bool rec_snap_cover_describe(struct rec_snap *s, const struct rec_topics *topics, char *buf,
			     size_t len)
{
	buf[0] = '\0';
	struct rec_snap_cover v[COVER_MAX]; /* the rest: "... N more" */
	size_t n = rec_snap_cover_get(s, v, COVER_MAX);
	if (n == 0)
		return false;
	size_t shown = n < COVER_MAX ? n : COVER_MAX, used = 0, i = 0;
	for (; i < shown; i++) {
		char one[256];
		cover_topic(&v[i], topics, one, sizeof one);
		if (used + strlen(one) + 2 + COVER_MORE >= len) /* room for "... N more" */
			break;
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "; " : "", one);
	}
	if (i < n)
		snprintf(buf + used, len - used, "%s... %zu more", i ? "; " : "", n - i);
	return true;
}
