/* rec_snapwin — see rec_snapwin.h: parsing and checking the rules. */
#include "rec_snapwin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_fmt.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "rec_rules.h"

struct rec_snapwin {
	struct rec_rules *win, *cache;       /* in the order given */
	struct rec_snapwin_spec *wv, *cv;    /* their values, same order */
	size_t nw, nc;
};

/* Seconds from 0 to a day, to ns. */
static bool snapwin_seconds(const char *s, int64_t *ns)
{
	return bt_parse_seconds(s, ns) == BT_OK && *ns >= 0 && *ns <= REC_SNAPWIN_MAX_NS;
}

/* "BEFORE[:AFTER]". */
static bool snapwin_parse_window(const char *v, struct rec_snapwin_spec *s)
{
	char before[64];
	const char *colon = strchr(v, ':');
	size_t n = colon != NULL ? (size_t)(colon - v) : strlen(v);
	if (n >= sizeof before)
		return false;
	memcpy(before, v, n);
	before[n] = '\0';
	s->after_ns = REC_SNAPWIN_GLOBAL;
	return snapwin_seconds(before, &s->before_ns) &&
	       (colon == NULL || snapwin_seconds(colon + 1, &s->after_ns));
}

bt_status rec_snapwin_parse(const char *arg, bool cache, struct rec_snapwin_spec *out,
			    struct bt_error *err)
{
	const char *opt = cache ? "snapshot-topic-cache" : "snapshot-window";
	struct rec_snapwin_spec s = {.pattern = arg, .cache = cache};
	const char *v;
	bt_status st = rec_rules_split(arg, opt, cache ? "BYTES" : "BEFORE[:AFTER]",
				       cache ? "/camera=50M" : "/camera=60:5", &s.pattern_len, &v, err);
	if (st != BT_OK)
		return st;
	if (cache) {
		uint64_t u;
		if (bt_parse_size(v, &u) != BT_OK || u == 0 || u > REC_SNAPWIN_MAX_CACHE)
			return bt_err_set(err, BT_ERR_USAGE, "--%s '%s': want a byte count above 0 "
					  "and at most 1T, got '%s'", opt, arg, v);
		s.max_bytes = (size_t)u;
	} else if (!snapwin_parse_window(v, &s)) {
		return bt_err_set(err, BT_ERR_USAGE, "--%s '%s': want BEFORE[:AFTER], seconds from 0 "
				  "to 86400 (a day), got '%s'", opt, arg, v);
	} else if (s.before_ns == 0 && s.after_ns == 0) {
		return bt_err_set(err, BT_ERR_USAGE, "--%s '%s': a window of 0 before and 0 after "
				  "keeps nothing (leave the topic out with --exclude-topics)", opt, arg);
	}
	*out = s;
	return BT_OK;
}

static bool snapwin_same_pattern(const struct rec_snapwin_spec *a, const struct rec_snapwin_spec *b)
{
	return a->pattern_len == b->pattern_len && memcmp(a->pattern, b->pattern, a->pattern_len) == 0;
}

/* A pattern given twice for the same option must say the same. */
static bt_status snapwin_check(const struct rec_snapwin_spec *v, size_t n, size_t max_cache,
			       struct bt_error *err)
{
	for (size_t i = 0; i < n; i++) {
		const char *opt = v[i].cache ? "snapshot-topic-cache" : "snapshot-window";
		if (v[i].cache && v[i].max_bytes > max_cache)
			return bt_err_set(err, BT_ERR_USAGE, "--%s '%s': above --max-cache-size (the "
					  "bound of all topics together)", opt, v[i].pattern);
		for (size_t j = 0; j < i; j++) {
			if (v[j].cache != v[i].cache || !snapwin_same_pattern(&v[i], &v[j]))
				continue;
			if (v[j].before_ns != v[i].before_ns || v[j].after_ns != v[i].after_ns ||
			    v[j].max_bytes != v[i].max_bytes)
				return bt_err_set(err, BT_ERR_USAGE, "--%s: '%.*s' is given twice with "
						  "different values ('%s' and '%s')", opt,
						  (int)v[i].pattern_len, v[i].pattern, v[j].pattern,
						  v[i].pattern);
		}
	}
	return BT_OK;
}

bt_status rec_snapwin_new(const struct rec_snapwin_spec *v, size_t n, size_t max_cache,
			  struct rec_snapwin **out, struct bt_error *err)
{
	*out = NULL;
	if (n == 0)
		return BT_OK;
	bt_status st = snapwin_check(v, n, max_cache, err);
	if (st != BT_OK)
		return st;
	struct rec_snapwin *w = bt_xcalloc(1, sizeof *w);
	w->wv = bt_xcalloc(n, sizeof *w->wv);
	w->cv = bt_xcalloc(n, sizeof *w->cv);
	for (size_t i = 0; i < n && st == BT_OK; i++) {
		const char *opt = v[i].cache ? "--snapshot-topic-cache" : "--snapshot-window";
		st = rec_rules_add(v[i].cache ? &w->cache : &w->win, v[i].pattern, v[i].pattern_len,
				   opt, err);
		if (st == BT_OK && v[i].cache)
			w->cv[w->nc++] = v[i];
		else if (st == BT_OK)
			w->wv[w->nw++] = v[i];
	}
	if (st != BT_OK) {
		rec_snapwin_free(w);
		return st;
	}
	*out = w;
	return BT_OK;
}

void rec_snapwin_free(struct rec_snapwin *w)
{
	if (w == NULL)
		return;
	rec_rules_free(w->win);
	rec_rules_free(w->cache);
	free(w->wv);
	free(w->cv);
	free(w);
}

bool rec_snapwin_find(const struct rec_snapwin *w, const char *dds_name, const char *ros_name,
		      int64_t duration_ns, int64_t post_ns, struct rec_snap_window *out)
{
	*out = (struct rec_snap_window){duration_ns > 0 ? duration_ns : REC_SNAP_ALL, post_ns, 0};
	long i = w != NULL ? rec_rules_find(w->win, dds_name, ros_name) : -1;
	long c = w != NULL ? rec_rules_find(w->cache, dds_name, ros_name) : -1;
	if (i >= 0) {
		out->before_ns = w->wv[i].before_ns;
		if (w->wv[i].after_ns != REC_SNAPWIN_GLOBAL)
			out->after_ns = w->wv[i].after_ns;
	}
	if (c >= 0)
		out->max_bytes = w->cv[c].max_bytes;
	return i >= 0 || c >= 0;
}

const char *rec_snapwin_str(const struct rec_snap_window *w, char *buf, size_t len)
{
	char b[32] = "all", a[32], m[32] = "";
	if (w->before_ns != REC_SNAP_ALL)
		snprintf(b, sizeof b, "%g s", (double)w->before_ns / 1e9);
	snprintf(a, sizeof a, "%g s", (double)w->after_ns / 1e9);
	if (w->max_bytes != 0) {
		char sz[24];
		bt_fmt_iec(w->max_bytes, sz, sizeof sz);
		snprintf(m, sizeof m, ", %s", sz);
	}
	snprintf(buf, len, "%s before, %s after%s", b, a, m);
	return buf;
}
