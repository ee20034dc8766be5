#include "app_read_opts.h"

#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bag_reader.h"
#include "bag_storage.h"
#include "bt_mem.h"

void app_read_push(const char ***v, size_t *n, const char *s)
{
	bt_xappend((void **)v, n, &s, sizeof s);
}

static int app_read_time(const struct app_cmd *cmd, const char *opt, const char *arg,
			 struct app_convert_time *t)
{
	/* Times are int64 ns: at most 9223372036 s, so 9999999999 (a "far
	 * future" some type) is refused; the line says why. */
	if (app_convert_time_parse(arg, t) != BT_OK)
		return app_usage_error(cmd, "--%s wants seconds since the epoch (1700000000.25; "
				       "at most 9223372036) or +SECONDS after the bag's start "
				       "(+10.5), got '%s'", opt, arg);
	return 0;
}

int app_read_opt(const struct app_cmd *cmd, struct app_read_cfg *c, const struct app_opt *o,
		 const char *arg)
{
	bool named = o->id == APP_S_TOPICS || o->id == APP_S_EXCLUDE_TOPICS ||
		     o->id == APP_S_SERVICES || o->id == APP_S_EXCLUDE_SERVICES;
	if (named && *arg == '\0') /* no topic or service has it, and '' is a slip */
		return app_usage_error(cmd, "--%s wants names, got ''", o->lng);
	switch (o->id) {
	case APP_S_TOPICS: app_read_push(&c->topics, &c->n_topics, arg); return 0;
	case APP_S_EXCLUDE_TOPICS: app_read_push(&c->exclude, &c->n_exclude, arg); return 0;
	case APP_S_REGEX: c->regex = arg; return 0;
	case APP_S_EXCLUDE_REGEX: c->exclude_regex = arg; return 0;
	case APP_S_START: return app_read_time(cmd, o->lng, arg, &c->start);
	case APP_S_END: return app_read_time(cmd, o->lng, arg, &c->end);
	case APP_S_STORAGE: return app_read_storage_arg(cmd, arg, &c->storage);
	case APP_S_SERVICES: app_read_push(&c->services, &c->n_services, arg); return 0;
	case APP_S_EXCLUDE_SERVICES:
		app_read_push(&c->exclude_services, &c->n_exclude_services, arg);
		return 0;
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

int app_read_storage_arg(const struct app_cmd *cmd, const char *arg, const char **id)
{
	const struct bag_storage_ops *ops;
	struct bt_error e;
	if (bag_storage_lookup(arg, &ops, &e) != BT_OK)
		return app_usage_error(cmd, "--storage: %s", e.msg);
	*id = ops->identifier;
	return 0;
}

int app_read_storage_expect(const char *path, const char *id)
{
	const struct bag_storage_ops *ops = id ? bag_reader_storage_of(path) : NULL;
	if (!ops || !strcmp(ops->identifier, id))
		return 0;
	app_error("%s: the bag is in %s storage, not %s (-s)", path, ops->identifier, id);
	return APP_EXIT_ERROR;
}

struct app_read_storage_ctx {
	const struct app_cmd *cmd;
	const char *id;
};

static int app_read_storage_only(void *ctx, const struct app_opt *o, const char *arg)
{
	struct app_read_storage_ctx *c = ctx;
	return o->id == APP_S_STORAGE ? app_read_storage_arg(c->cmd, arg, &c->id)
				       : app_usage_error(c->cmd, "unhandled option --%s", o->lng);
}

int app_read_bag_operand(const struct app_cmd *cmd, int argc, char **argv, const char **bag)
{
	struct app_read_storage_ctx c = {cmd, NULL};
	int rc = app_opts_one_operand(cmd, argc, argv, app_read_storage_only, &c, bag);
	return rc ? rc : app_read_storage_expect(*bag, c.id);
}

void app_read_select(const struct app_read_cfg *c, struct btdds_select_options *o)
{
	o->topics = c->topics;
	o->n_topics = c->n_topics;
	o->services = c->services;
	o->n_services = c->n_services;
	o->regex = c->regex;
	o->exclude_regex = c->exclude_regex;
	o->exclude_topics = c->exclude;
	o->n_exclude_topics = c->n_exclude;
	o->exclude_services = c->exclude_services;
	o->n_exclude_services = c->n_exclude_services;
	o->all = btdds_select_names_nothing(o);
}

void app_read_cfg_fini(struct app_read_cfg *c)
{
	free((void *)c->topics);
	free((void *)c->exclude);
	free((void *)c->services);
	free((void *)c->exclude_services);
}
