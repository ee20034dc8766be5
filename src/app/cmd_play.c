/* bagtop play BAG [TOPIC...]: republishes a bag on DDS (src/play, play.h)
 * with `ros2 bag play`'s options, status lines and keys (app_play_run.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_play.h"
#include "app_read_opts.h"
#include "app_ros_env.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "btdds_rosbag2.h"

enum {
	APP_P_RATE = 400,
	APP_P_LOOP,
	APP_P_LOOP_COUNT,
	APP_P_REMAP,
	APP_P_CLOCK,
	APP_P_DELAY,
	APP_P_START_OFFSET,
	APP_P_DURATION,
	APP_P_UNTIL_SEC,
	APP_P_UNTIL_NSEC,
	APP_P_START_PAUSED,
	APP_P_WAIT_ACKED,
	APP_P_WAIT_SUBS,
	APP_P_CLOCK_TOPICS,
	APP_P_CLOCK_TOPICS_ALL,
	APP_P_NO_KEYS,
	APP_P_NO_TUI,
	APP_P_DOMAIN,
	APP_P_READ_AHEAD,
	APP_P_QOS,
	APP_P_STRICT,
	APP_P_NODE_NAME,
	APP_P_NO_REMOTE,
	APP_P_LOG_LEVEL,
	APP_P_NUM_MESSAGES,
	APP_P_SVC_REQUESTS,
	APP_P_SVC_SOURCE,
	APP_P_NO_LOAN,
};

/* The rows of play's table, in groups, so that burst's table (the same
 * options but the timing of a whole run: loops, -d, -p) is built from the
 * same rows, not a copy of them. */
#define PLAY_OPT_ROWS_SELECT                                                                     \
	APP_READ_TOPIC_OPT_ROWS(                                                                 \
		"play",                                                                          \
		"play these topics only (ROS or DDS names, each in the bag; also TOPIC operands)"), \
	{"remap", 'm', "OLD:=NEW...",                                                            \
	 "publish topic OLD as NEW (ROS or DDS names; one or more)", APP_P_REMAP},              \
	{"clock", 0, "[HZ]",                                                                     \
	 "publish rosgraph_msgs/msg/Clock on /clock from the bag time, HZ a second (default "   \
	 "40)",                                                                                  \
	 APP_P_CLOCK},                                                                           \
	{"clock-topics", 0, "TOPIC...",                                                          \
	 "publish /clock right before each message of these topics, with its time (not with "   \
	 "--clock)",                                                                             \
	 APP_P_CLOCK_TOPICS},                                                                    \
	{"clock-topics-all", 0, NULL, "publish /clock right before every message, with its time", \
	 APP_P_CLOCK_TOPICS_ALL},                                                                \
	{"publish-service-requests", 0, NULL,                                                    \
	 "call the services of recorded service events with their requests, instead of "        \
	 "publishing the events",                                                                \
	 APP_P_SVC_REQUESTS},                                                                    \
	{"service-requests-source", 0, "SOURCE",                                                 \
	 "whose events give the requests: service_introspection (the servers', default) or "     \
	 "client_introspection",                                                                 \
	 APP_P_SVC_SOURCE}

#define PLAY_OPT_ROWS_WINDOW                                                                     \
	{"start-offset", 0, "SECONDS", "start this long after the bag's first message",          \
	 APP_P_START_OFFSET},                                                                    \
	{"playback-duration", 0, "SECONDS", "play this much bag time from the start",            \
	 APP_P_DURATION},                                                                        \
	{"playback-until-sec", 0, "SECONDS",                                                     \
	 "play messages stamped up to this time (seconds since the epoch)", APP_P_UNTIL_SEC},    \
	{"playback-until-nsec", 0, "NS",                                                         \
	 "play messages stamped up to this time (nanoseconds since the epoch)",                  \
	 APP_P_UNTIL_NSEC},                                                                      \
	APP_READ_WINDOW_OPT_ROWS("play"), APP_READ_STORAGE_OPT_ROW

#define PLAY_OPT_ROWS_REST                                                                       \
	{"wait-for-all-acked", 0, "MS",                                                          \
	 "at the end, wait up to MS milliseconds until reliable subscribers acknowledged "       \
	 "everything (0 = no limit)",                                                            \
	 APP_P_WAIT_ACKED},                                                                      \
	{"disable-keyboard-controls", 0, NULL,                                                   \
	 "leave the terminal alone (else Space pauses/resumes, . or Right plays one message, "   \
	 "Up/Down change the rate)",                                                             \
	 APP_P_NO_KEYS},                                                                         \
	{"no-tui", 0, NULL, "status lines instead of the live view (also without a terminal)",   \
	 APP_P_NO_TUI},                                                                          \
	{"domain", 0, "ID", "DDS domain id, 0..232 (default: ROS_DOMAIN_ID, else 0)",            \
	 APP_P_DOMAIN},                                                                          \
	{"read-ahead-queue-size", 0, "N",                                                        \
	 "messages read ahead of publishing (default 1000; also at most 64 MiB)",                \
	 APP_P_READ_AHEAD},                                                                      \
	{"qos-profile-overrides-path", 0, "FILE",                                                \
	 "per-topic writer QoS in rosbag2's YAML format", APP_P_QOS},                            \
	{"strict", 0, NULL, "refuse a bag with a missing, truncated or corrupt file",            \
	 APP_P_STRICT},                                                                          \
	{"node-name", 0, "NAME",                                                                 \
	 "the ROS 2 node the player is, serving rosbag2's player services (default "            \
	 "rosbag2_player)",                                                                      \
	 APP_P_NODE_NAME},                                                                       \
	{"no-remote-control", 0, NULL, "serve no services and be no ROS 2 node",                 \
	 APP_P_NO_REMOTE},                                                                       \
	{"log-level", 0, "LEVEL",                                                                \
	 "debug, info, warn, error or fatal: the log lines shown (default info)",                \
	 APP_P_LOG_LEVEL}

#define PLAY_OPT_ROW_RATE                                                                        \
	{"rate", 'r', "RATE", "playback rate, 0.001 to 1000000 (default 1)", APP_P_RATE}

static const struct app_opt play_opts[] = {
	PLAY_OPT_ROW_RATE,
	{"loop", 'l', NULL, "play the bag again and again, until stopped", APP_P_LOOP},
	{"loop-count", 0, "N", "play the bag N times (implies --loop)", APP_P_LOOP_COUNT},
	PLAY_OPT_ROWS_SELECT,
	{"delay", 'd', "SECONDS", "wait this long before playing", APP_P_DELAY},
	PLAY_OPT_ROWS_WINDOW,
	{"start-paused", 'p', NULL, "start paused (Space resumes, . or Right plays one message)",
	 APP_P_START_PAUSED},
	{"wait-for-subscribers", 0, NULL,
	 "publish nothing until every topic played has a subscriber (-d counts from then)",
	 APP_P_WAIT_SUBS},
	PLAY_OPT_ROWS_REST,
	{"disable-loan-message", 0, NULL,
	 "ros2 bag play's, accepted and unused: bagtop loans no message (it hands DDS the "
	 "recorded bytes)",
	 APP_P_NO_LOAN},
};

static const struct app_opt burst_opts[] = {
	{"num-messages", 'n', "N",
	 "publish the first N messages at once, then pause (default 0: all of them, then end)",
	 APP_P_NUM_MESSAGES},
	PLAY_OPT_ROW_RATE,
	PLAY_OPT_ROWS_SELECT,
	PLAY_OPT_ROWS_WINDOW,
	{"wait-for-subscribers", 0, NULL,
	 "burst when every topic played has a subscriber, not before", APP_P_WAIT_SUBS},
	PLAY_OPT_ROWS_REST,
};

static int play_remap(struct app_play_cfg *c, const struct app_cmd *cmd, const char *arg)
{
	const char *sep = strstr(arg, ":=");
	if (!sep || sep == arg || !sep[2] || strstr(sep + 2, ":="))
		return app_usage_error(cmd, "--remap wants OLD:=NEW, got '%s'", arg);
	c->remaps = bt_xrealloc(c->remaps, (c->n_remaps + 1) * sizeof *c->remaps);
	c->remaps[c->n_remaps++] = (struct play_remap){bt_xstrndup(arg, (size_t)(sep - arg)),
						       bt_xstrdup(sep + 2)};
	return 0;
}

static int play_seconds(const struct app_cmd *cmd, const char *opt, const char *arg,
			int64_t *ns)
{
	if (bt_parse_seconds(arg, ns) != BT_OK)
		return app_usage_error(cmd, "--%s wants seconds (1.5), got '%s'", opt, arg);
	return 0;
}

static int play_number(const struct app_cmd *cmd, const struct app_opt *o, const char *arg,
		       uint64_t lo, uint64_t hi, uint64_t *u)
{
	if (bt_parse_u64(arg, lo, hi, u) != BT_OK)
		return app_usage_error(cmd, "--%s wants %llu..%llu, got '%s'", o->lng,
				       (unsigned long long)lo, (unsigned long long)hi, arg);
	return 0;
}

static int play_opt_timing(struct app_play_cfg *c, const struct app_cmd *cmd,
			   const struct app_opt *o, const char *arg)
{
	struct play_options *po = &c->po;
	uint64_t u = 0;
	int rc = 0;
	switch (o->id) {
	case APP_P_RATE:
		if (bt_parse_decimal(arg, PLAY_RATE_MIN, PLAY_RATE_MAX, &po->rate) != BT_OK)
			return app_usage_error(cmd, "--rate wants 0.001 to 1000000, got '%s'", arg);
		return 0;
	case APP_P_CLOCK:
		po->clock_hz = PLAY_CLOCK_HZ_DEFAULT;
		if (arg && bt_parse_decimal(arg, 0.001, 10000, &po->clock_hz) != BT_OK)
			return app_usage_error(cmd, "--clock wants 0.001 to 10000 Hz, got '%s'", arg);
		return 0;
	case APP_P_DELAY: return play_seconds(cmd, o->lng, arg, &po->delay_ns);
	case APP_P_START_OFFSET: return play_seconds(cmd, o->lng, arg, &po->start_offset_ns);
	case APP_P_DURATION: return play_seconds(cmd, o->lng, arg, &po->playback_duration_ns);
	case APP_P_UNTIL_SEC: return play_seconds(cmd, o->lng, arg, &po->playback_until_ns);
	case APP_P_UNTIL_NSEC:
		rc = play_number(cmd, o, arg, 0, INT64_MAX, &u);
		po->playback_until_ns = (int64_t)u;
		return rc;
	case APP_P_WAIT_ACKED:
		rc = play_number(cmd, o, arg, 0, INT64_MAX / 1000000, &u);
		po->wait_for_acked_ns = u == 0 ? INT64_MAX : (int64_t)u * 1000000;
		return rc;
	default: return -1; /* not a timing option */
	}
}

static int play_svc_source(struct app_play_cfg *c, const struct app_cmd *cmd, const char *arg)
{
	c->svc_source_given = true;
	if (strcmp(arg, "client_introspection") == 0)
		c->po.service_requests_from_clients = true;
	else if (strcmp(arg, "service_introspection") == 0)
		c->po.service_requests_from_clients = false;
	else
		return app_usage_error(cmd, "--service-requests-source wants service_introspection "
				       "or client_introspection, got '%s'", arg);
	return 0;
}

static int play_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct app_play_cfg *c = ctx;
	const struct app_cmd *cmd = c->cmd;
	uint64_t u = 0;
	int rc = play_opt_timing(c, cmd, o, arg);
	if (rc < 0)
		rc = app_read_opt(cmd, &c->r, o, arg);
	if (rc >= 0)
		return rc;
	switch (o->id) {
	case APP_P_LOOP: c->po.loop = true; return 0;
	case APP_P_LOOP_COUNT:
		rc = play_number(cmd, o, arg, 1, UINT32_MAX, &u);
		c->po.loop_count = (uint32_t)u;
		return rc;
	case APP_P_REMAP: return play_remap(c, cmd, arg);
	case APP_P_START_PAUSED: c->po.start_paused = true; return 0;
	case APP_P_WAIT_SUBS: c->po.wait_for_subscribers = true; return 0;
	case APP_P_CLOCK_TOPICS: app_read_push(&c->clock_topics, &c->n_clock_topics, arg); return 0;
	case APP_P_CLOCK_TOPICS_ALL: c->po.clock_topics_all = true; return 0;
	case APP_P_NO_KEYS: c->no_keys = true; return 0;
	case APP_P_NO_TUI: c->no_tui = true; return 0;
	case APP_P_DOMAIN: return app_ros_env_domain(cmd, arg, &c->po.domain_id);
	case APP_P_READ_AHEAD:
		rc = play_number(cmd, o, arg, 1, 10000000, &u);
		c->po.read_ahead_count = (size_t)u;
		return rc;
	case APP_P_QOS: c->po.qos_overrides_path = arg; return 0;
	case APP_P_STRICT: c->po.strict = true; return 0;
	case APP_P_NO_LOAN: return 0;
	case APP_P_NODE_NAME: return app_ros_env_node_name(cmd, o->lng, arg, &c->node_name);
	case APP_P_LOG_LEVEL: return app_ros_env_log_level(cmd, arg, &c->log_level);
	case APP_P_NO_REMOTE: c->no_remote_control = true; return 0;
	case APP_P_NUM_MESSAGES: return play_number(cmd, o, arg, 0, INT64_MAX, &c->burst_n);
	case APP_P_SVC_REQUESTS: c->po.publish_service_requests = true; return 0;
	case APP_P_SVC_SOURCE: return play_svc_source(c, cmd, arg);
	default: return app_usage_error(cmd, "unhandled option --%s", o->lng);
	}
}

static int play_finish(struct app_play_cfg *c, int argc, char **argv, int first)
{
	if (argc - first < 1)
		return app_usage_error(c->cmd, "wants a BAG");
	c->po.bag_path = argv[first];
	struct app_read_cfg *r = &c->r;
	for (int i = first + 1; i < argc; i++)
		app_read_push(&r->topics, &r->n_topics, argv[i]);
	app_read_select(r, &c->po.select);
	c->po.clock_topics = c->clock_topics;
	c->po.n_clock_topics = c->n_clock_topics;
	c->po.start = (struct play_bound){r->start.given, r->start.rel, r->start.ns};
	c->po.end = (struct play_bound){r->end.given, r->end.rel, r->end.ns};
	c->po.remaps = c->remaps;
	c->po.n_remaps = c->n_remaps;
	int rc = app_read_finish(c->cmd, r);
	if (rc == 0 && c->svc_source_given && !c->po.publish_service_requests)
		rc = app_usage_error(c->cmd, "--service-requests-source goes with "
				     "--publish-service-requests");
	if (rc == 0)
		rc = app_read_storage_expect(c->po.bag_path, r->storage);
	if (rc == 0)
		rc = app_ros_env_read(c->cmd, &c->env, &c->po.domain_id);
	c->po.env = &c->env;
	c->po.node_name = c->no_remote_control ? NULL
			  : c->node_name	 ? c->node_name
						 : BTDDS_RB2_PLAYER;
	const char *distro = getenv("ROS_DISTRO"); /* Humble's player, as record's --compat */
	c->po.humble = distro != NULL && strcmp(distro, "humble") == 0;
	return rc;
}

static void play_cfg_fini(struct app_play_cfg *c)
{
	for (size_t i = 0; i < c->n_remaps; i++) {
		free((void *)c->remaps[i].from);
		free((void *)c->remaps[i].to);
	}
	free(c->remaps);
	free((void *)c->clock_topics);
	app_read_cfg_fini(&c->r);
	btdds_env_fini(&c->env);
}

static int play_cmd_run(const struct app_cmd *cmd, bool burst, int argc, char **argv)
{
	struct app_play_cfg c = {.cmd = cmd, .log_level = BT_LOG_INFO, .burst = burst};
	play_options_init(&c.po);
	c.po.start_paused = burst; /* the burst is the first thing done */
	int first;
	int rc = app_opts_parse(cmd, argc, argv, play_opt, &c, &first);
	if (rc == 0)
		rc = play_finish(&c, argc, argv, first);
	if (rc == 0)
		rc = app_play_run(&c);
	play_cfg_fini(&c);
	return rc < 0 ? APP_EXIT_OK : rc;
}

static int play_run(const struct app_cmd *cmd, int argc, char **argv)
{
	return play_cmd_run(cmd, false, argc, argv);
}

static int burst_run(const struct app_cmd *cmd, int argc, char **argv)
{
	return play_cmd_run(cmd, true, argc, argv);
}

const struct app_cmd app_cmd_play = {
	"play", "BAG [TOPIC...]",
	"Publish a bag's messages on DDS with their recorded timing and QoS.",
	"\nBAG is any bag bagtop reads (a directory, or one storage file: sqlite3\n"
	"or MCAP). Each message goes out as its recorded bytes at its recorded\n"
	"time (scaled by --rate) on the topic's DDS name and type, so ROS 2\n"
	"subscribers receive it; writers offer the recorded QoS when every\n"
	"recorded publisher agreed, else ROS 2's defaults. Without TOPIC,\n"
	"--topics or -e every topic is played.\n"
	"Unless --no-remote-control, the player is the ROS 2 node --node-name\n"
	"and serves rosbag2's player services (pause, resume, toggle_paused,\n"
	"is_paused, get_rate, set_rate, play_next, burst, seek, play, stop) to\n"
	"anyone on the DDS domain (`bagtop call`, `ros2 service call` on\n"
	"rmw_cyclonedds); each request is said in the event log or on stderr.\n",
	play_opts, sizeof play_opts / sizeof play_opts[0], play_run};

const struct app_cmd app_cmd_burst = {
	"burst", "BAG [TOPIC...]",
	"Publish a bag's first messages at once, as fast as DDS takes them.",
	"\nAs 'ros2 bag burst': bagtop play, started paused, publishes the first\n"
	"-n messages of the window one after the other without their timing,\n"
	"then stays paused (Space resumes at --rate, . or Right plays one more,\n"
	"the player's services work; Ctrl-C ends); without -n the whole window\n"
	"goes out and the player ends. With --wait-for-subscribers the burst\n"
	"waits until every topic played has a subscriber, so none of it goes\n"
	"out before anyone listens.\n",
	burst_opts, sizeof burst_opts / sizeof burst_opts[0], burst_run};
