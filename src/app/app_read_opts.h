/* app_read_opts — the options that choose what of a bag a command reads
 * (convert and play): topics by name or regex, and a time window. README
 * and the man page say the same (tests/docs/options_agree.sh). */
#ifndef APP_READ_OPTS_H
#define APP_READ_OPTS_H

#include <stddef.h>

#include "app_convert.h"
#include "app_opts.h"

enum {
	APP_S_TOPICS = 500,
	APP_S_REGEX,
	APP_S_EXCLUDE_REGEX,
	APP_S_EXCLUDE_TOPICS,
	APP_S_START,
	APP_S_END,
};

/* Table rows, to put inside a command's option table: the topic selection
 * (TOPICS_HELP is --topics' help) and the time window. VERB ("copy",
 * "play") says what the command does with what they select. */
#define APP_READ_TOPIC_OPT_ROWS(VERB, TOPICS_HELP)                                              \
	{"topics", 0, "TOPIC...", TOPICS_HELP, APP_S_TOPICS},                                   \
	{"regex", 'e', "REGEX",                                                                 \
	 "also " VERB " topics whose ROS or DDS name matches REGEX (POSIX extended, searched)", \
	 APP_S_REGEX},                                                                          \
	{"exclude-regex", 'x', "REGEX", "do not " VERB " topics whose name matches REGEX",      \
	 APP_S_EXCLUDE_REGEX},                                                                  \
	{"exclude-topics", 0, "TOPIC...", "do not " VERB " these topics (one or more names)",   \
	 APP_S_EXCLUDE_TOPICS}
#define APP_READ_WINDOW_OPT_ROWS(VERB)                                                          \
	{"start", 0, "TIME",                                                                    \
	 VERB " messages stamped at or after TIME: seconds since the epoch (1700000000.25) "    \
	      "or +SECONDS after the bag's first message (+10.5)",                              \
	 APP_S_START},                                                                          \
	{"end", 0, "TIME", VERB " messages stamped before TIME (the forms of --start)",         \
	 APP_S_END}

struct app_read_cfg {
	const char **topics, **exclude; /* owned arrays of borrowed strings (argv) */
	size_t n_topics, n_exclude;
	const char *regex, *exclude_regex; /* borrowed; NULL when not given */
	struct app_convert_time start, end;  /* the window [start, end) */
};

/* Appends `s` (borrowed) to the array *v of *n strings. */
void app_read_push(const char ***v, size_t *n, const char *s);
/* Handles one APP_S_* option; returns 0 or an APP_EXIT_USAGE after
 * printing the one-line reason. Other ids return -2 (not mine). */
int app_read_opt(const struct app_cmd *cmd, struct app_read_cfg *c, const struct app_opt *o,
		 const char *arg);
/* After the options: 0, or APP_EXIT_USAGE (said) for a window that ends
 * before it starts. */
int app_read_finish(const struct app_cmd *cmd, const struct app_read_cfg *c);
/* Frees the arrays; the strings are argv's. */
void app_read_cfg_fini(struct app_read_cfg *c);

#endif
