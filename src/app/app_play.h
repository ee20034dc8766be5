/* app_play — `bagtop play`'s and `bagtop burst`'s configuration (cmd_play.c
 * parses it) and its run: the player started (a burst asked), status lines
 * and keys without the live view, a stop signal, the end summary
 * (app_play_run.c). */
#ifndef APP_PLAY_H
#define APP_PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "app_opts.h"
#include "app_read_opts.h"
#include "bt_log.h"
#include "btdds_env.h"
#include "play.h"

struct app_play_cfg {
	const struct app_cmd *cmd;
	struct play_options po; /* points into the members below and argv */
	struct app_read_cfg r; /* topics, regexes, window */
	struct play_remap *remaps; /* owned strings */
	size_t n_remaps;
	const char **clock_topics; /* --clock-topics: owned array of argv's strings */
	size_t n_clock_topics;
	struct btdds_env env;
	bool no_keys, no_tui;
	const char *node_name; /* --node-name (argv), NULL: the default */
	bool no_remote_control;
	enum bt_log_level log_level; /* --log-level; BT_LOG_INFO by default */
	bool burst;       /* bagtop burst: po.start_paused, then play_burst(burst_n) */
	uint64_t burst_n; /* -n: 0 the whole window */
	bool svc_source_given; /* --service-requests-source (wants --publish-service-requests) */
};

/* Plays c->po to the end or a stop signal (SIGINT, SIGTERM, SIGHUP) and
 * prints the summary. Returns an APP_EXIT_* status. */
int app_play_run(struct app_play_cfg *c);

#endif
