#include "app_opts.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_str.h"

static const struct app_opt app_help_opt = {"help", 'h', NULL, "show this help and exit", -1};

static void app_opts_left(const struct app_opt *o, char *out, size_t n)
{
	if (o->shrt)
		snprintf(out, n, "-%c, --%s%s%s", o->shrt, o->lng, o->arg ? " " : "",
			 o->arg ? o->arg : "");
	else
		snprintf(out, n, "    --%s%s%s", o->lng, o->arg ? " " : "", o->arg ? o->arg : "");
}

/* Help lines fit an 80-column terminal: descriptions start in one column
 * (a left part wider than APP_HELP_LEFT_MAX puts its description on the
 * next line) and wrap at word boundaries. */
#define APP_HELP_COLS 80
#define APP_HELP_LEFT_MAX 28

void app_opts_row(const char *left, int width, const char *text)
{
	if (width > APP_HELP_LEFT_MAX)
		width = APP_HELP_LEFT_MAX;
	int indent = 2 + width + 2;
	int col = printf("  %-*s", width, left);
	if ((int)strlen(left) > width) {
		printf("\n");
		col = 0;
	}
	const char *p = text;
	bool first = true;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (!first && col + 1 + (int)w > APP_HELP_COLS) {
			printf("\n");
			col = 0;
			first = true;
		}
		if (col < indent)
			col += printf("%*s", indent - col, "");
		else if (!first)
			col += printf(" ");
		col += printf("%.*s", (int)w, p);
		first = false;
		p += w;
		p += strspn(p, " ");
	}
	printf("\n");
}

void app_opts_help(const struct app_cmd *cmd)
{
	printf("Usage: bagtop %s%s%s%s\n\n%s\n", cmd->name, cmd->n_opts ? " [OPTIONS]" : "",
	       cmd->operands ? " " : "", cmd->operands ? cmd->operands : "", cmd->summary);
	if (cmd->details)
		printf("%s", cmd->details);
	printf("\nOptions:\n");
	char left[96];
	int width = 0;
	for (size_t i = 0; i <= cmd->n_opts; i++) {
		app_opts_left(i < cmd->n_opts ? &cmd->opts[i] : &app_help_opt, left, sizeof left);
		if ((int)strlen(left) > width)
			width = (int)strlen(left);
	}
	for (size_t i = 0; i <= cmd->n_opts; i++) {
		const struct app_opt *o = i < cmd->n_opts ? &cmd->opts[i] : &app_help_opt;
		app_opts_left(o, left, sizeof left);
		app_opts_row(left, width, o->help);
	}
}

int app_opts_one_operand(const struct app_cmd *cmd, int argc, char **argv, app_opt_fn fn,
			 void *ctx, const char **operand)
{
	int first;
	int rc = app_opts_parse(cmd, argc, argv, fn, ctx, &first);
	if (rc)
		return rc;
	if (argc - first != 1)
		return app_usage_error(cmd, "expects one %s", cmd->operands);
	*operand = argv[first];
	return 0;
}

int app_opts_no_operand(const struct app_cmd *cmd, int argc, char **argv, app_opt_fn fn,
			void *ctx)
{
	int first;
	int rc = app_opts_parse(cmd, argc, argv, fn, ctx, &first);
	if (rc == 0 && first != argc)
		rc = app_usage_error(cmd, "takes no operands (got '%s')", argv[first]);
	return rc;
}

void app_escape(const char *in, char *out, size_t cap)
{
	size_t k = 0;
	if (!cap)
		return;
	for (const unsigned char *p = (const unsigned char *)in; *p && k + 5 < cap; p++) {
		if (*p == '\n' || *p == '\t' || *p == '\r')
			k += (size_t)snprintf(out + k, cap - k, "\\%c",
					      *p == '\n' ? 'n' : *p == '\t' ? 't' : 'r');
		else if (*p < 0x20 || *p == 0x7f)
			k += (size_t)snprintf(out + k, cap - k, "\\x%02x", *p);
		else
			out[k++] = (char)*p;
	}
	out[k] = '\0';
}

void app_vformat_line(char *out, size_t cap, const char *fmt, va_list ap)
{
	char msg[1024];
	vsnprintf(msg, sizeof msg, fmt, ap);
	app_escape(msg, out, cap);
}

int app_usage_error(const struct app_cmd *cmd, const char *fmt, ...)
{
	char line[4096];
	va_list ap;
	va_start(ap, fmt);
	app_vformat_line(line, sizeof line, fmt, ap);
	va_end(ap);
	fprintf(stderr, "bagtop %s: %s (see 'bagtop %s --help')\n", cmd->name, line, cmd->name);
	return APP_EXIT_USAGE;
}

static const struct app_opt *app_opts_find(const struct app_cmd *cmd, int c, int longidx)
{
	if (longidx >= 0)
		return (size_t)longidx < cmd->n_opts ? &cmd->opts[longidx] : &app_help_opt;
	for (size_t i = 0; i < cmd->n_opts; i++)
		if (cmd->opts[i].shrt == c)
			return &cmd->opts[i];
	return c == 'h' ? &app_help_opt : NULL;
}

/* An argument named "[HZ]" may be left out (ros2 bag's nargs='?'). */
static bool app_opt_optional(const struct app_opt *o)
{
	return o->arg && o->arg[0] == '[';
}

/* The optional argument of o: "--opt=V", or the next word when it is a
 * number ("--clock 100"); NULL when left out. */
static const char *app_opts_optional_arg(const struct app_opt *o, int argc, char **argv)
{
	if (!app_opt_optional(o) || optarg)
		return optarg;
	if (optind < argc && strchr("0123456789.", argv[optind][0]) && argv[optind][0])
		return argv[optind++];
	return NULL;
}

static void app_opts_build(const struct app_cmd *cmd, struct option *lo, char *so)
{
	size_t k = 0;
	so[k++] = ':'; /* first: report a missing argument as ':', not '?' */
	for (size_t i = 0; i <= cmd->n_opts; i++) {
		const struct app_opt *o = i < cmd->n_opts ? &cmd->opts[i] : &app_help_opt;
		int has = !o->arg ? no_argument : app_opt_optional(o) ? optional_argument
									: required_argument;
		lo[i] = (struct option){o->lng, has, NULL, 0};
		if (o->shrt) {
			so[k++] = (char)o->shrt;
			if (has == required_argument)
				so[k++] = ':';
		}
	}
	lo[cmd->n_opts + 1] = (struct option){NULL, 0, NULL, 0};
	so[k] = '\0';
}

static int app_opts_bad(const struct app_cmd *cmd, int c, char **argv)
{
	const char *word = argv[optind - 1];
	if (c == ':')
		return app_usage_error(cmd, "option '%s' needs an argument", word);
	if (optopt && optopt != '?')
		return app_usage_error(cmd, "unknown option '-%c'", optopt);
	return app_usage_error(cmd, "unknown option '%s'", word);
}

int app_opts_parse(const struct app_cmd *cmd, int argc, char **argv, app_opt_fn fn, void *ctx,
		   int *first_operand)
{
	struct option *lo = bt_xcalloc(cmd->n_opts + 2, sizeof *lo);
	char *so = bt_xcalloc(2 * cmd->n_opts + 8, 1);
	app_opts_build(cmd, lo, so);
	optind = 1;
	opterr = 0;
	int rc = 0, c, longidx;
	while (rc == 0 && (longidx = -1, c = getopt_long(argc, argv, so, lo, &longidx)) != -1) {
		const struct app_opt *o = (c == '?' || c == ':') ? NULL : app_opts_find(cmd, c, longidx);
		if (!o)
			rc = app_opts_bad(cmd, c, argv);
		else if (o == &app_help_opt) {
			app_opts_help(cmd);
			rc = -1;
		} else {
			rc = fn(ctx, o, app_opts_optional_arg(o, argc, argv));
			bool list = o->arg && bt_str_ends_with(o->arg, "...");
			while (rc == 0 && list && optind < argc && argv[optind][0] != '-')
				rc = fn(ctx, o, argv[optind++]);
		}
	}
	*first_operand = optind;
	free(lo);
	free(so);
	return rc;
}
