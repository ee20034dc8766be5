/* app_read_opts — the options that choose what of a bag a command reads
 * (convert and play): topics by name or regex, and a time window. README
 * and the man page say the same (tests/docs/options_agree.sh). */
#ifndef APP_READ_OPTS_H
#define APP_READ_OPTS_H

#include <stddef.h>

#include "app_convert.h"
#include "app_opts.h"
#include "btdds_select.h"

enum {
	APP_S_TOPICS = 500,
	APP_S_REGEX,
	APP_S_EXCLUDE_REGEX,
	APP_S_EXCLUDE_TOPICS,
	APP_S_START,
	APP_S_END,
	APP_S_STORAGE,
	APP_S_SERVICES,
	APP_S_EXCLUDE_SERVICES,
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
	 APP_S_EXCLUDE_TOPICS},                                                                 \
	{"services", 0, "SERVICE...",                                                           \
	 VERB " these services' recorded events (their SERVICE/_service_event topics)",         \
	 APP_S_SERVICES},                                                                       \
	{"exclude-services", 0, "SERVICE...", "do not " VERB " these services' events",         \
	 APP_S_EXCLUDE_SERVICES}
#define APP_READ_WINDOW_OPT_ROWS(VERB)                                                          \
	{"start", 0, "TIME",                                                                    \
	 VERB " messages stamped at or after TIME: seconds since the epoch (1700000000.25) "    \
	      "or +SECONDS after the bag's first message (+10.5)",                              \
	 APP_S_START},                                                                          \
	{"end", 0, "TIME", VERB " messages stamped before TIME (the forms of --start)",         \
	 APP_S_END}

/* -s, as ros2 bag's readers take it (info, play, check, reindex): bagtop
 * finds the storage from the files, so -s only asserts it. */
#define APP_READ_STORAGE_OPT_ROW                                                                \
	{"storage", 's', "ID",                                                                  \
	 "the bag's storage, sqlite3 or mcap (found from its files without it): a bag in "     \
	 "another is refused",                                                                  \
	 APP_S_STORAGE}

struct app_read_cfg {
	const char **topics, **exclude; /* owned arrays of borrowed strings (argv) */
	size_t n_topics, n_exclude;
	const char **services, **exclude_services; /* the same */
	size_t n_services, n_exclude_services;
	const char *regex, *exclude_regex; /* borrowed; NULL when not given */
	struct app_convert_time start, end;  /* the window [start, end) */
	const char *storage;                  /* -s's identifier, or NULL */
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
/* -s's argument: 0 with *id its backend's identifier, or APP_EXIT_USAGE
 * (said) for one no backend has. */
int app_read_storage_arg(const struct app_cmd *cmd, const char *arg, const char **id);
/* 0, or APP_EXIT_ERROR (said, one line) when the bag at `path` is in
 * another storage than `id` (NULL: none asked). A bag whose storage is not
 * known passes: opening it says why. */
int app_read_storage_expect(const char *path, const char *id);
/* check and reindex: their one BAG operand and -s (their only option,
 * APP_READ_STORAGE_OPT_ROW), checked. 0, -1 after --help, or an
 * APP_EXIT_* status (said). */
int app_read_bag_operand(const struct app_cmd *cmd, int argc, char **argv, const char **bag);
/* The selection c's options make (the TOPIC operands pushed to topics
 * first): names borrowed from c; `all` when no topic, service or -e
 * names any. The caller sets include_hidden / include_services. */
void app_read_select(const struct app_read_cfg *c, struct btdds_select_options *o);
/* Frees the arrays; the strings are argv's. */
void app_read_cfg_fini(struct app_read_cfg *c);

#endif
