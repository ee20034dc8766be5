#include "app_read_opts.h"

#include <stdlib.h>

#include "bt_mem.h"

void app_read_push(const char ***v, size_t *n, const char *s)
{
	bt_xappend((void **)v, n, &s, sizeof s);
}

static int app_read_time(const struct app_cmd *cmd, const char *opt, const char *arg,
			 struct app_convert_time *t)
{
	if (app_convert_time_parse(arg, t) != BT_OK)
		return app_usage_error(cmd, "--%s wants seconds since the epoch (1700000000.25) "
				       "or +SECONDS after the bag's start (+10.5), got '%s'", opt, arg);
	return 0;
}

int app_read_opt(const struct app_cmd *cmd, struct app_read_cfg *c, const struct app_opt *o,
		 const char *arg)
{
	switch (o->id) {
	case APP_S_TOPICS: app_read_push(&c->topics, &c->n_topics, arg); return 0;
	case APP_S_EXCLUDE_TOPICS: app_read_push(&c->exclude, &c->n_exclude, arg); return 0;
	case APP_S_REGEX: c->regex = arg; return 0;
	case APP_S_EXCLUDE_REGEX: c->exclude_regex = arg; return 0;
	case APP_S_START: return app_read_time(cmd, o->lng, arg, &c->start);
	case APP_S_END: return app_read_time(cmd, o->lng, arg, &c->end);
	default: return -2;
	}
}

int app_read_finish(const struct app_cmd *cmd, const struct app_read_cfg *c)
{
	const struct app_convert_time *s = &c->start, *e = &c->end;
	if (s->given && e->given && s->rel == e->rel && s->ns >= e->ns)
		return app_usage_error(cmd, "--end must be after --start");
	return 0;
}

void app_read_cfg_fini(struct app_read_cfg *c)
{
	free((void *)c->topics);
	free((void *)c->exclude);
}
