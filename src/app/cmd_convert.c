/* bagtop convert IN OUT: copies a bag into a new one (app_convert.h), as
 * `ros2 bag convert` does, with record's topic selection, a time window
 * and the writer's options (app_writer_opts.h: one table for options,
 * help and man page). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_convert.h"
#include "app_read_opts.h"
#include "app_writer_opts.h"
#include "bag_storage.h"
#include "bt_fmt.h"
#include "bt_mem.h"
#include "btdds_select.h"

static const struct app_opt convert_own_opts[] = {
	APP_READ_TOPIC_OPT_ROWS(
		"copy", "copy these topics (ROS or DDS names; the list ends at the next option or --)"),
	APP_READ_WINDOW_OPT_ROWS("copy"),
};

static const struct app_opt convert_writer_opts[] = {APP_WRITER_OPT_ROWS};

/* The writer options convert takes: not -o (OUT is its operand), not
 * --max-bag-files (deleting files of a copy would make it no copy), and
 * none that convert's own rows already name. */
static bool convert_opt_wanted(const struct app_opt *o, const struct app_opt *have, size_t n)
{
	if (o->id == APP_W_OUTPUT || o->id == APP_W_MAX_FILES)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(have[i].lng, o->lng) || (o->shrt && have[i].shrt == o->shrt))
			return false;
	return true;
}

/* The option table: convert's own rows, then the writer's it takes. */
static struct app_opt *convert_opts(size_t *n)
{
	size_t n_own = sizeof convert_own_opts / sizeof convert_own_opts[0];
	size_t n_w = sizeof convert_writer_opts / sizeof convert_writer_opts[0];
	struct app_opt *v = bt_xcalloc(n_own + n_w, sizeof *v);
	memcpy(v, convert_own_opts, sizeof convert_own_opts);
	*n = n_own;
	for (size_t i = 0; i < n_w; i++)
		if (convert_opt_wanted(&convert_writer_opts[i], v, *n))
			v[(*n)++] = convert_writer_opts[i];
	return v;
}

struct convert_ctx {
	const struct app_cmd *cmd;
	struct app_writer_cfg w;
	struct app_read_cfg r;
	struct app_convert_options o;
};

static int convert_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct convert_ctx *c = ctx;
	int rc = app_read_opt(c->cmd, &c->r, o, arg);
	return rc != -2 ? rc : app_writer_opt(c->cmd, &c->w, o, arg);
}

/* The selection: every topic unless --topics, --services or -e names some. A bag holds
 * what was chosen when it was recorded, so hidden topics and DDS services
 * are taken like any other. */
static int convert_select(struct convert_ctx *c, struct btdds_select **out)
{
	const struct app_read_cfg *r = &c->r;
	struct btdds_select_options sel = {.include_hidden = true, .include_services = true};
	app_read_select(r, &sel);
	struct bt_error err;
	if (btdds_select_new(&sel, out, &err) != BT_OK)
		return app_usage_error(c->cmd, "%s", err.msg);
	return 0;
}

/* Checks what can be checked before the bag is opened. */
static int convert_finish(struct convert_ctx *c, int argc, char **argv, int first)
{
	if (argc - first != 2)
		return app_usage_error(c->cmd, "wants IN and OUT, got %d operand%s", argc - first,
				       bt_fmt_s((size_t)(argc - first)));
	c->o.in = argv[first];
	c->o.start = c->r.start;
	c->o.end = c->r.end;
	int rc = app_read_finish(c->cmd, &c->r);
	if (rc != 0)
		return rc;
	free(c->w.output);
	c->w.output = bt_xstrdup(argv[first + 1]);
	return app_writer_finish(c->cmd, &c->w);
}

static int convert_go(struct convert_ctx *c, const struct btdds_select *sel)
{
	c->o.select = sel;
	c->o.writer = &c->w.opt;
	struct app_convert_result res;
	struct bt_error err;
	bt_status st = app_convert(&c->o, &res, &err);
	if (st == BT_ERR_USAGE)
		return app_usage_error(c->cmd, "%s", err.msg);
	if (st != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_ERROR;
	}
	char out[1024];
	app_escape(c->o.writer->uri, out, sizeof out);
	printf("%s: %llu message%s, %zu topic%s, %zu file%s\n", out,
	       (unsigned long long)res.messages, bt_fmt_s(res.messages), res.topics,
	       bt_fmt_s(res.topics), res.files, bt_fmt_s(res.files));
	return APP_EXIT_OK;
}

static int convert_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct app_cmd me = *cmd;
	struct app_opt *opts = convert_opts(&me.n_opts);
	me.opts = opts;
	struct convert_ctx c = {.cmd = &me};
	app_writer_cfg_init(&c.w);
	int first;
	int rc = app_opts_parse(&me, argc, argv, convert_opt, &c, &first);
	struct btdds_select *sel = NULL;
	if (rc == 0)
		rc = convert_finish(&c, argc, argv, first);
	if (rc == 0)
		rc = convert_select(&c, &sel);
	if (rc == 0)
		rc = convert_go(&c, sel);
	btdds_select_free(sel);
	app_writer_cfg_fini(&c.w);
	app_read_cfg_fini(&c.r);
	free(opts);
	return rc < 0 ? APP_EXIT_OK : rc;
}

const struct app_cmd app_cmd_convert = {
	"convert", "IN OUT",
	"Copy a bag into a new one: topics, time window, storage, compression.",
	"\nIN is any bag bagtop reads (a directory, or one storage file); OUT is a\n"
	"new bag directory, never overwritten. Messages, topics (QoS, type hash)\n"
	"and message definitions are copied unchanged, in timestamp order. Without\n"
	"--topics or -e every topic is copied (hidden ones and services too); -x\n"
	"and --exclude-topics then remove some. The window is [--start, --end).\n"
	"OUT's statistics are the copy's: the input's losses are not carried over.\n",
	NULL, 0, convert_run};
