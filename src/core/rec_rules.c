/* rec_rules — see rec_rules.h. */
#include "rec_rules.h"

#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "btdds_select.h"

struct rec_rules {
	char **pattern;
	struct btdds_select **match;
	size_t n, cap;
};

bt_status rec_rules_split(const char *arg, const char *opt, const char *form,
			  const char *example, size_t *pattern_len, const char **value,
			  struct bt_error *err)
{
	const char *eq = strrchr(arg, '=');
	if (eq == NULL || eq == arg)
		return bt_err_set(err, BT_ERR_USAGE, "--%s '%s': want TOPIC_OR_REGEX=%s (e.g. %s)",
				  opt, arg, form, example);
	*pattern_len = (size_t)(eq - arg);
	*value = eq + 1;
	return BT_OK;
}

bt_status rec_rules_add(struct rec_rules **r, const char *pattern, size_t len, const char *opt,
			struct bt_error *err)
{
	char *pat = bt_xstrndup(pattern, len);
	struct btdds_select *m;
	bt_status st = btdds_select_new_pattern(pat, opt, &m, err);
	if (st != BT_OK) {
		free(pat);
		return st;
	}
	if (*r == NULL)
		*r = bt_xcalloc(1, sizeof **r);
	struct rec_rules *rr = *r;
	if (rr->n == rr->cap) {
		size_t cap = rr->cap;
		bt_xgrow((void **)&rr->pattern, &cap, rr->n + 1, sizeof *rr->pattern);
		bt_xgrow((void **)&rr->match, &rr->cap, rr->n + 1, sizeof *rr->match);
	}
	rr->pattern[rr->n] = pat;
	rr->match[rr->n++] = m;
	return BT_OK;
}

void rec_rules_free(struct rec_rules *r)
{
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->n; i++) {
		btdds_select_free(r->match[i]);
		free(r->pattern[i]);
	}
	free(r->match);
	free(r->pattern);
	free(r);
}

long rec_rules_find(const struct rec_rules *r, const char *dds_name, const char *ros_name)
{
	for (size_t i = 0; r != NULL && i < r->n; i++)
		if (r->match[i] != NULL && btdds_select_match(r->match[i], dds_name, ros_name))
			return (long)i;
	return -1;
}

const char *rec_rules_pattern(const struct rec_rules *r, size_t i)
{
	return r->pattern[i];
}
