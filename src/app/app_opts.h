/* app_opts — one table per command drives both option parsing (getopt_long)
 * and the --help text, so they cannot disagree. */
#ifndef APP_OPTS_H
#define APP_OPTS_H

#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>

/* Exit statuses (man page, EXIT STATUS). */
enum { APP_EXIT_OK = 0, APP_EXIT_ERROR = 1, APP_EXIT_USAGE = 2, APP_EXIT_DDS = 3 };

struct app_opt {
	const char *lng;  /* long name without "--" */
	int shrt;         /* short letter, or 0 */
	const char *arg;  /* argument name ("BYTES"), or NULL for a flag; a name
			     ending in "..." takes one or more values, as
			     ros2 bag's nargs='+': the argument and the words
			     after it up to the next option, each handed to
			     the handler; a name in brackets ("[HZ]") may be
			     left out (the handler gets NULL): --opt=V, or
			     the next word when that is a number */
	const char *help; /* one sentence; --help wraps it (README says the same) */
	int id;           /* handed to the command's handler */
};

struct app_cmd {
	const char *name;     /* "info" */
	const char *operands; /* "BAG" */
	const char *summary;  /* one line */
	const char *details;  /* more lines for --help, or NULL */
	const struct app_opt *opts;
	size_t n_opts;
	int (*run)(const struct app_cmd *cmd, int argc, char **argv);
};

/* Called for each option; returns 0, or an APP_EXIT_* status to stop. */
typedef int (*app_opt_fn)(void *ctx, const struct app_opt *opt, const char *arg);

/* Parses argv[1..] against cmd's table; --help prints help and returns -1
 * (caller exits 0). On a bad option prints one line and returns
 * APP_EXIT_USAGE. On success *first_operand is the index of the first
 * non-option argument (getopt permutes them to the end). */
int app_opts_parse(const struct app_cmd *cmd, int argc, char **argv, app_opt_fn fn, void *ctx,
		   int *first_operand);
void app_opts_help(const struct app_cmd *cmd);
/* Prints one help row: "  LEFT  TEXT", TEXT starting in the column after a
 * left part of `width` (at most 28) and wrapped to 80 columns. */
void app_opts_row(const char *left, int width, const char *text);
/* Parses a command that takes exactly one operand, its options handed to
 * fn: 0 with *operand set, -1 after --help, or a usage exit status. */
int app_opts_one_operand(const struct app_cmd *cmd, int argc, char **argv, app_opt_fn fn,
			 void *ctx, const char **operand);
/* Parses a command that takes no operands: 0, -1 after --help, or a usage
 * exit status (also for an operand). */
int app_opts_no_operand(const struct app_cmd *cmd, int argc, char **argv, app_opt_fn fn,
			void *ctx);
/* Copies `in` to `out` (truncated to cap - 1) with control characters
 * escaped (\n, \t, \r, \xHH): names from the command line or from a bag
 * must not break a one-line message. */
void app_escape(const char *in, char *out, size_t cap);
/* Formats a message and escapes it as app_escape does, into `out`: the one
 * line of an error. */
void app_vformat_line(char *out, size_t cap, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* Prints "bagtop CMD: <msg>" + the help hint; returns APP_EXIT_USAGE. */
int app_usage_error(const struct app_cmd *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
