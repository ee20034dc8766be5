/* app_record — what `bagtop record` and `bagtop demo` share: the capture
 * options (names mirror `ros2 bag record`) and app_record_run, which runs
 * the session (app__run.h) in the live view or headless. */
#ifndef APP_RECORD_H
#define APP_RECORD_H

#include "app_opts.h"
#include "app_writer_opts.h"
#include "bt_log.h"
#include "btdds_env.h"
#include "rec_recorder.h"
#include "rec_snapwin.h"
#include "rec_throttle.h"

enum {
	APP_R_ALL = 200,
	APP_R_REGEX,
	APP_R_EXCLUDE_REGEX,
	APP_R_EXCLUDE_TOPICS,
	APP_R_HIDDEN,
	APP_R_DOMAIN,
	APP_R_QOS_OVERRIDES,
	APP_R_CACHE,
	APP_R_START_PAUSED,
	APP_R_NO_TUI,
	APP_R_STATS_RATE,
	APP_R_SNAPSHOT,
	APP_R_SNAP_DURATION,
	APP_R_SNAP_POST,
	APP_R_REPEAT,
	APP_R_LOG_FILE,
	APP_R_NO_KEYS,
	APP_R_STOP_TIMEOUT,
	APP_R_DEFS_PATH,
	APP_R_HOOK,
	APP_R_HOOK_JOBS,
	APP_R_HOOK_TIMEOUT,
	APP_R_MIN_FREE,
	APP_R_THROTTLE,
	APP_R_NODE_NAME,
	APP_R_NO_REMOTE,
	APP_R_SNAP_WINDOW,
	APP_R_SNAP_TOPIC_CACHE,
	APP_R_QUEUE_TRIGGERS,
	APP_R_TOPICS,
	APP_R_TOPIC_TYPES,
	APP_R_EXCLUDE_TYPES,
	APP_R_ALL_TOPICS,
	APP_R_ALL_SERVICES,
	APP_R_SERVICES,
	APP_R_EXCLUDE_SERVICES,
	APP_R_UNPUBLISHED,
	APP_R_IGNORE_LEAF,
	APP_R_NO_DISCOVERY,
	APP_R_USE_SIM_TIME,
	APP_R_SERIALIZATION,
	APP_R_LOG_LEVEL,
	APP_R_POLLING,
	APP_R_COMP_QUEUE,
};

/* Which topics (record only; demo records everything). The help texts are
 * README's too (tests/docs/options_agree.sh compares them). */
#define APP_RECORD_SELECT_ROWS                                                                   \
	{"topics", 0, "TOPIC...",                                                                  \
	 "record these topics (ROS or DDS names, one or more; also TOPIC operands)",              \
	 APP_R_TOPICS},                                                                            \
	{"all", 'a', NULL,                                                                         \
	 "record every topic, service events too (hidden ones, a name part starting _, only "      \
	 "with --include-hidden-topics)",                                                          \
	 APP_R_ALL},                                                                               \
	{"all-topics", 0, NULL, "record every topic but service events (-a less --all-services)", \
	 APP_R_ALL_TOPICS},                                                                        \
	{"all-services", 0, NULL,                                                                  \
	 "record every service's events (its /SVC/_service_event topic, when introspection is "    \
	 "on)",                                                                                    \
	 APP_R_ALL_SERVICES},                                                                      \
	{"services", 0, "SVC...", "record these services' events (one or more service names)",    \
	 APP_R_SERVICES},                                                                          \
	{"regex", 'e', "REGEX",                                                                    \
	 "also record topics whose ROS or DDS name matches REGEX (POSIX extended, searched)",     \
	 APP_R_REGEX},                                                                             \
	{"exclude-regex", 'x', "REGEX", "do not record topics whose name matches REGEX",          \
	 APP_R_EXCLUDE_REGEX},                                                                     \
	{"exclude-topics", 0, "TOPIC...", "do not record these topics (one or more names)",       \
	 APP_R_EXCLUDE_TOPICS},                                                                    \
	{"exclude-services", 0, "SVC...",                                                          \
	 "do not record these services' events (one or more service names)",                      \
	 APP_R_EXCLUDE_SERVICES},                                                                  \
	{"topic-types", 0, "TYPE...",                                                              \
	 "also record topics of these types (pkg/msg/Type, or DDS type names; one or more)",      \
	 APP_R_TOPIC_TYPES},                                                                       \
	{"exclude-topic-types", 0, "TYPE...",                                                      \
	 "do not record topics of these types (one or more), whatever selected them",             \
	 APP_R_EXCLUDE_TYPES},                                                                     \
	{"include-hidden-topics", 0, NULL, "also record hidden topics (a name part starting _)",  \
	 APP_R_HIDDEN},                                                                            \
	{"include-unpublished-topics", 0, NULL,                                                    \
	 "also subscribe to selected topics that have subscribers but no publisher yet (in the "   \
	 "bag from the start)",                                                                    \
	 APP_R_UNPUBLISHED},                                                                       \
	{"ignore-leaf-topics", 0, NULL,                                                            \
	 "do not record a selected topic nobody else subscribes to, until someone does",          \
	 APP_R_IGNORE_LEAF},                                                                       \
	{"no-discovery", 0, NULL,                                                                  \
	 "record only topics found at the start (in discovery's first 2 s), none that appears "   \
	 "later",                                                                                  \
	 APP_R_NO_DISCOVERY},                                                                      \
	{"serialization-format", 'f', "FORMAT",                                                    \
	 "the messages' serialization format: cdr, the only one DDS has (as rosbag2's default)",  \
	 APP_R_SERIALIZATION}

/* How to capture and run. */
#define APP_RECORD_RUN_ROWS                                                                      \
	{"domain", 0, "ID", "DDS domain id, 0..232 (default: ROS_DOMAIN_ID, else 0)",             \
	 APP_R_DOMAIN},                                                                            \
	{"qos-profile-overrides-path", 0, "FILE", "per-topic reader QoS in rosbag2's YAML format", \
	 APP_R_QOS_OVERRIDES},                                                                     \
	{"max-cache-size", 0, "BYTES",                                                             \
	 "cache between DDS and the writer thread (default 100M; 0 = write-through; under 1M a "   \
	 "warning); overflow is counted as lost in the recorder",                                  \
	 APP_R_CACHE},                                                                             \
	{"start-paused", 0, NULL,                                                                  \
	 "start with recording paused (resume: p in the live view, Space without it, "             \
	 "bagtop resume --pid)",                                                                   \
	 APP_R_START_PAUSED},                                                                      \
	{"no-tui", 0, NULL, "status lines instead of the live view (also without a terminal)",    \
	 APP_R_NO_TUI},                                                                            \
	{"disable-keyboard-controls", 0, NULL,                                                     \
	 "without the live view, leave the terminal alone (else Space pauses/resumes when stdin "  \
	 "is a terminal)",                                                                         \
	 APP_R_NO_KEYS},                                                                           \
	{"statistics-update-rate", 0, "HZ",                                                        \
	 "status lines, live view and DDS statistics per second (default 1; 0 = none; else "    \
	 "0.001 to 100)",                                                                          \
	 APP_R_STATS_RATE},                                                                        \
	{"snapshot-mode", 0, NULL,                                                                 \
	 "keep the newest messages in memory (--max-cache-size); write them only on a trigger "    \
	 "(SIGUSR1, bagtop snapshot --pid, s)",                                                    \
	 APP_R_SNAPSHOT},                                                                          \
	{"snapshot-duration", 0, "SECONDS",                                                        \
	 "snapshot mode: keep at most SECONDS of messages (0 = size only)", APP_R_SNAP_DURATION},  \
	{"snapshot-post", 0, "SECONDS",                                                            \
	 "snapshot mode: the messages of SECONDS after a trigger join its file", APP_R_SNAP_POST}, \
	{"snapshot-window", 0, "TOPIC_OR_REGEX=BEFORE[:AFTER]",                                    \
	 "snapshot mode: the topics it names keep BEFORE seconds before a trigger (0 = none) "    \
	 "and AFTER after it (0 = none; default --snapshot-post); repeatable, the first match "    \
	 "wins; others take --snapshot-duration / --snapshot-post",                                \
	 APP_R_SNAP_WINDOW},                                                                       \
	{"snapshot-topic-cache", 0, "TOPIC_OR_REGEX=BYTES",                                        \
	 "snapshot mode: the topics it names keep at most BYTES each in memory (within "           \
	 "--max-cache-size); a window cut short is reported; repeatable, the first match wins",   \
	 APP_R_SNAP_TOPIC_CACHE},                                                                  \
	{"queue-triggers", 0, NULL,                                                                \
	 "snapshot mode: a trigger while a snapshot is being written waits and runs after it "     \
	 "(at most 32) instead of being refused",                                                  \
	 APP_R_QUEUE_TRIGGERS},                                                                    \
	{"repeat-transient-local", 0, "TOPIC[=N]...",                                             \
	 "write these topics' last N messages (default 1) at the start of every file and into "    \
	 "every snapshot",                                                                         \
	 APP_R_REPEAT},                                                                            \
	{"log-file", 0, "FILE",                                                                    \
	 "also append log lines (bagtop's and Cyclone's) and live-view events to FILE, with UTC "  \
	 "times; a failed write is reported once",                                                 \
	 APP_R_LOG_FILE},                                                                          \
	{"log-level", 0, "LEVEL",                                                                  \
	 "debug, info, warn, error or fatal: the log lines kept, and without the live view those " \
	 "shown on stderr (default: info kept, warnings shown)",                                   \
	 APP_R_LOG_LEVEL},                                                                         \
	{"stop-timeout", 0, "SECONDS",                                                             \
	 "finishing the bag longer than SECONDS abandons what is not written yet, as a second "   \
	 "Ctrl-C does (default 30; 0 = no limit)",                                                 \
	 APP_R_STOP_TIMEOUT},                                                                      \
	{"message-definitions-path", 0, "DIR",                                                     \
	 "look for message definitions (.msg/.srv/.idl) in DIR first, before AMENT_PREFIX_PATH "   \
	 "and the built-in set: an install prefix, a colcon install directory or a share "         \
	 "directory; repeatable",                                                                  \
	 APP_R_DEFS_PATH},                                                                         \
	{"on-file-closed", 0, "CMD",                                                               \
	 "run CMD (/bin/sh -c) for each finished file (split, snapshot, close) with BAGTOP_FILE, " \
	 "BAGTOP_BAG, BAGTOP_REASON, BAGTOP_MESSAGES, BAGTOP_BYTES; status and stderr logged",     \
	 APP_R_HOOK},                                                                              \
	{"on-file-closed-jobs", 0, "N",                                                            \
	 "run at most N --on-file-closed commands at once, queue the rest (default 1; 1 to 64)",   \
	 APP_R_HOOK_JOBS},                                                                         \
	{"on-file-closed-timeout", 0, "SECONDS",                                                   \
	 "at exit, wait at most SECONDS for --on-file-closed commands, then kill them (default "   \
	 "30; 0 = no wait)",                                                                       \
	 APP_R_HOOK_TIMEOUT},                                                                      \
	{"min-free-space", 0, "BYTES",                                                             \
	 "below BYTES free on the bag's filesystem, close the file and stop writing (counted as "  \
	 "lost: disk guard) until there is room (default 1G, or 5% up to 20G disks; 0 = off)",     \
	 APP_R_MIN_FREE},                                                                          \
	{"throttle", 0, "TOPIC_OR_REGEX=RATE",                                                     \
	 "record at most RATE of the topics it names (10Hz, 0.5Hz, 500KiB/s, 2MB/s = 2 MiB/s), "   \
	 "evenly spread; the rest is counted as throttled, not lost; repeatable, the first "       \
	 "match wins",                                                                             \
	 APP_R_THROTTLE}

/* ros2 bag record's options that mean nothing to bagtop, accepted so its
 * command lines run unchanged (record only). */
#define APP_RECORD_COMPAT_ROWS                                                                   \
	{"polling-interval", 'p', "MS",                                                            \
	 "ros2 bag record's topic polling period, accepted and unused: bagtop polls nothing, DDS " \
	 "discovery reports each topic as it appears (MS: 0 or more)",                             \
	 APP_R_POLLING},                                                                           \
	{"compression-queue-size", 0, "N",                                                         \
	 "ros2 bag record's, accepted and unused: nothing waiting for compression is dropped; "    \
	 "the cache (--max-cache-size) is that queue, its overflow counted as lost in the "        \
	 "recorder (N: 0 or more)",                                                                \
	 APP_R_COMP_QUEUE}

/* The recorder as a ROS 2 node (record only). */
#define APP_RECORD_NODE_ROWS                                                                     \
	{"node-name", 0, "NAME",                                                                   \
	 "the recorder's ROS 2 node name (default rosbag2_recorder): in ros2 node list, its "      \
	 "events, and its services /NAME/snapshot, split_bagfile, pause, resume, is_paused, "      \
	 "snapshot_with_parameters (--compat humble: snapshot)",                                   \
	 APP_R_NODE_NAME},                                                                         \
	{"no-remote-control", 0, NULL,                                                             \
	 "no ROS 2 node and no services: nobody on the DDS domain can snapshot, split or pause "   \
	 "the recorder (its events/write_split and events/rosbag2_messages_lost are still "       \
	 "published)",                                                                             \
	 APP_R_NO_REMOTE},                                                                         \
	{"use-sim-time", 0, NULL,                                                                  \
	 "stamp messages with the simulation time of /clock; nothing is recorded before the "     \
	 "first /clock message",                                                                   \
	 APP_R_USE_SIM_TIME}

struct app_record_cfg {
	struct app_writer_cfg w;
	struct rec_recorder_options ro;
	const char **topics; /* borrowed from argv */
	size_t n_topics;
	const char **exclude; /* borrowed from argv */
	size_t n_exclude;
	const char **types, **exclude_types; /* borrowed from argv */
	size_t n_types, n_exclude_types;
	const char **services, **exclude_services; /* borrowed from argv */
	size_t n_services, n_exclude_services;
	double update_rate;
	bool no_tui;
	bool no_keys; /* --disable-keyboard-controls */
	struct rec_repeat_topic *repeat; /* names malloc'ed */
	size_t n_repeat;
	bool snapshot_timing; /* --snapshot-duration or --snapshot-post given */
	bool queue_triggers;  /* --queue-triggers: a busy trigger waits (app_run_cmd.c) */
	const char *log_file; /* borrowed from argv, NULL = none */
	bool log_level_given; /* --log-level: log_level is kept and, headless, shown */
	enum bt_log_level log_level;
	int64_t duration_ns; /* demo's --duration; 0 = until stopped */
	/* demo: its own publishers announce no type hash; that says nothing
	 * of the user's distro */
	bool own_publishers;
	/* --stop-timeout: finishing the bag longer than this abandons what is
	 * not written yet (as a second stop request does); 0 = no limit. */
	int64_t stop_timeout_ns;
	struct btdds_env env; /* the ROS 2 environment; ro.env points here */
	const char **defs_paths; /* --message-definitions-path, borrowed from argv */
	size_t n_defs_paths;
	struct defs_source *defs; /* made by app_record_finish, freed by fini */
	/* --on-file-closed (app_hook.h): the command, NULL = none; jobs and
	 * the wait at exit; *_given: the option was on the command line. */
	const char *hook_cmd;
	unsigned hook_jobs;
	int64_t hook_timeout_ns;
	bool hook_jobs_given, hook_timeout_given;
	bool min_free_given; /* --min-free-space (ro.min_free_space) was given */
	/* --throttle: the arguments parsed (patterns point into argv), and
	 * compiled by app_record_finish (ro.throttle points there). */
	struct rec_throttle_spec *throttle_specs;
	size_t n_throttle;
	struct rec_throttle *throttle;
	/* --node-name (borrowed from argv; default rosbag2_recorder) and
	 * --no-remote-control: ro.node_name, ro.node. */
	const char *node_name;
	bool no_remote_control;
	/* --snapshot-window / --snapshot-topic-cache: parsed (patterns point
	 * into argv), compiled by app_record_finish (ro.snapwin points there). */
	struct rec_snapwin_spec *snapwin_specs;
	size_t n_snapwin;
	struct rec_snapwin *snapwin;
};

void app_record_cfg_init(struct app_record_cfg *c);
void app_record_cfg_fini(struct app_record_cfg *c);
/* Handles APP_W_* and APP_R_* options: 0, a usage exit, or -2 (not mine). */
int app_record_opt(const struct app_cmd *cmd, struct app_record_cfg *c, const struct app_opt *o,
		   const char *arg);
/* Fills defaults and the recorder options; 0 or a usage exit. */
int app_record_finish(const struct app_cmd *cmd, struct app_record_cfg *c);
/* Records until a stop (a signal, q in the live view, the duration or a
 * failed write), then finishes the bag; a second stop request or
 * --stop-timeout abandons what is not written yet. Returns the exit status
 * (0; 1 a runtime error or an abandoned stop; 2 usage; 3 DDS). */
int app_record_run(const struct app_cmd *cmd, struct app_record_cfg *c);
/* The end of `bagtop record` and `bagtop demo` after their options are
 * parsed (rc: the parse's result, 0, a usage exit or -1 after --help):
 * app_record_finish, then run(cmd, c) when both went well, then
 * app_record_cfg_fini. Returns the command's exit status. */
int app_record_main(const struct app_cmd *cmd, struct app_record_cfg *c, int rc,
		    int (*run)(const struct app_cmd *cmd, struct app_record_cfg *c));

#endif
