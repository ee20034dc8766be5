/* app_record — the capture options `bagtop record` and `bagtop demo`
 * share (names mirror `ros2 bag record`), and the choice between the live
 * view and the headless loop (app_tui.c, app_run_headless.c). */
#include "app_record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "app__run.h"
#include "app_hook.h"
#include "app_read_opts.h"
#include "app_ros_env.h"
#include "bag_compat.h"
#include "defs.h"
#include "bt_fmt.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "btdds_rosbag2.h"
#include "rec_guard.h"

#define APP_RATE_MIN_HZ 0.001 /* a status every 1000 s */
#define APP_RATE_MAX_HZ 100.0
#define APP_DEFAULT_CACHE (UINT64_C(100) * 1024 * 1024)
/* Under this, --max-cache-size loses ordinary messages (a camera image, a
 * point cloud): a warning, not a refusal (small tests are legitimate). */
#define APP_SMALL_CACHE (UINT64_C(1024) * 1024)
#define APP_DEFAULT_STOP_TIMEOUT_NS (INT64_C(30) * 1000000000)
#define APP_DEFAULT_HOOK_TIMEOUT_NS (INT64_C(30) * 1000000000)

void app_record_cfg_init(struct app_record_cfg *c)
{
	memset(c, 0, sizeof *c);
	app_writer_cfg_init(&c->w);
	c->ro.domain_id = REC_DOMAIN_DEFAULT;
	c->ro.max_cache_size = APP_DEFAULT_CACHE;
	c->update_rate = 1.0;
	c->stop_timeout_ns = APP_DEFAULT_STOP_TIMEOUT_NS;
	c->hook_jobs = 1;
	c->hook_timeout_ns = APP_DEFAULT_HOOK_TIMEOUT_NS;
}

void app_record_cfg_fini(struct app_record_cfg *c)
{
	app_writer_cfg_fini(&c->w);
	btdds_env_fini(&c->env);
	for (size_t i = 0; i < c->n_repeat; i++)
		free((char *)c->repeat[i].name);
	free(c->repeat);
	free(c->topics);
	free(c->exclude);
	free(c->types);
	free(c->exclude_types);
	free(c->services);
	free(c->exclude_services);
	free(c->defs_paths);
	defs_source_free(c->defs);
	free(c->throttle_specs);
	rec_throttle_free(c->throttle);
	free(c->snapwin_specs);
	rec_snapwin_free(c->snapwin);
	memset(c, 0, sizeof *c);
}

static int app_r_numbers(const struct app_cmd *cmd, struct app_record_cfg *c, int id,
			 const char *arg)
{
	uint64_t u;
	switch (id) {
	case APP_R_DOMAIN: return app_ros_env_domain(cmd, arg, &c->ro.domain_id);
	case APP_R_MIN_FREE:
		if (bt_parse_size(arg, &u) != BT_OK)
			return app_usage_error(cmd, "--min-free-space wants a byte count (0 = off), "
					       "got '%s'", arg);
		c->ro.min_free_space = u;
		c->min_free_given = true;
		return 0;
	case APP_R_CACHE:
		if (bt_parse_size(arg, &u) != BT_OK || u > SIZE_MAX / 2)
			return app_usage_error(cmd, "--max-cache-size wants a byte count, got '%s'",
					       arg);
		c->ro.max_cache_size = (size_t)u;
		return 0;
	case APP_R_POLLING:
	case APP_R_COMP_QUEUE:
		/* only checked, as rosbag2 checks them: a number */
		if (bt_parse_u64(arg, 0, INT32_MAX, &u) != BT_OK)
			return app_usage_error(cmd, "--%s wants %s, 0 or more, got '%s'",
					       id == APP_R_POLLING ? "polling-interval"
								   : "compression-queue-size",
					       id == APP_R_POLLING ? "milliseconds" : "a count", arg);
		return 0;
	default: { /* APP_R_STATS_RATE */
		double hz;
		/* Under 1/1000 Hz a period would outlast any recording (and
		 * 1e9 / rate overflows far below). */
		if (bt_parse_decimal(arg, 0.0, APP_RATE_MAX_HZ, &hz) != BT_OK ||
		    (hz != 0.0 && hz < APP_RATE_MIN_HZ))
			return app_usage_error(cmd, "--statistics-update-rate wants 0 or a decimal "
					       "number from 0.001 to 100 (Hz), got '%s'", arg);
		c->update_rate = hz;
		return 0;
	}
	}
}

/* One --throttle argument (its regex is compiled by app_record_finish). */
static int app_r_throttle(const struct app_cmd *cmd, struct app_record_cfg *c, const char *arg)
{
	struct rec_throttle_spec sp;
	struct bt_error err;
	if (rec_throttle_parse(arg, &sp, &err) != BT_OK)
		return app_usage_error(cmd, "%s", err.msg);
	bt_xappend((void **)&c->throttle_specs, &c->n_throttle, &sp, sizeof sp);
	return 0;
}

/* One --snapshot-window or --snapshot-topic-cache argument (checked
 * against the others by app_record_finish). */
static int app_r_snapwin(const struct app_cmd *cmd, struct app_record_cfg *c, int id,
			 const char *arg)
{
	struct rec_snapwin_spec sp;
	struct bt_error err;
	if (rec_snapwin_parse(arg, id == APP_R_SNAP_TOPIC_CACHE, &sp, &err) != BT_OK)
		return app_usage_error(cmd, "%s", err.msg);
	bt_xappend((void **)&c->snapwin_specs, &c->n_snapwin, &sp, sizeof sp);
	return 0;
}

/* --on-file-closed and its two companions. */
static int app_r_hook(const struct app_cmd *cmd, struct app_record_cfg *c, int id,
		      const char *arg)
{
	uint64_t u;
	int64_t ns;
	switch (id) {
	case APP_R_HOOK:
		if (arg[strspn(arg, " \t")] == '\0')
			return app_usage_error(cmd, "--on-file-closed wants a command, got '%s'", arg);
		c->hook_cmd = arg;
		return 0;
	case APP_R_HOOK_JOBS:
		if (bt_parse_u64(arg, 1, APP_HOOK_JOBS_MAX, &u) != BT_OK)
			return app_usage_error(cmd, "--on-file-closed-jobs wants 1..%d, got '%s'",
					       APP_HOOK_JOBS_MAX, arg);
		c->hook_jobs = (unsigned)u;
		c->hook_jobs_given = true;
		return 0;
	default: /* APP_R_HOOK_TIMEOUT */
		if (bt_parse_seconds(arg, &ns) != BT_OK || ns < 0)
			return app_usage_error(cmd, "--on-file-closed-timeout wants seconds (0 or "
					       "more), got '%s'", arg);
		c->hook_timeout_ns = ns;
		c->hook_timeout_given = true;
		return 0;
	}
}

static int app_r_snapshot(const struct app_cmd *cmd, struct app_record_cfg *c, int id,
			  const char *arg)
{
	if (id == APP_R_REPEAT) {
		char *name;
		uint32_t depth;
		struct bt_error e = {0};
		if (rec_tl_parse_spec(arg, &name, &depth, &e) != BT_OK)
			return app_usage_error(cmd, "--repeat-transient-local: %s", e.msg);
		struct rec_repeat_topic rt = {name, depth};
		bt_xappend((void **)&c->repeat, &c->n_repeat, &rt, sizeof rt);
		return 0;
	}
	int64_t ns;
	if (bt_parse_seconds(arg, &ns) != BT_OK || ns < 0)
		return app_usage_error(cmd, "--%s wants seconds (0 or more), got '%s'",
				       id == APP_R_SNAP_POST	? "snapshot-post"
				       : id == APP_R_STOP_TIMEOUT ? "stop-timeout"
								  : "snapshot-duration",
				       arg);
	if (id == APP_R_STOP_TIMEOUT) {
		c->stop_timeout_ns = ns;
		return 0;
	}
	if (id == APP_R_SNAP_POST)
		c->ro.snapshot_post_ns = ns;
	else
		c->ro.snapshot_duration_ns = ns;
	c->snapshot_timing = true;
	return 0;
}

int app_record_opt(const struct app_cmd *cmd, struct app_record_cfg *c, const struct app_opt *o,
		   const char *arg)
{
	struct btdds_select_options *s = &c->ro.select;
	switch (o->id) {
	case APP_R_ALL: s->all = true; return 0;
	case APP_R_REGEX: s->regex = arg; return 0;
	case APP_R_EXCLUDE_REGEX: s->exclude_regex = arg; return 0;
	case APP_R_EXCLUDE_TOPICS: app_read_push(&c->exclude, &c->n_exclude, arg); return 0;
	case APP_R_TOPICS: app_read_push(&c->topics, &c->n_topics, arg); return 0;
	case APP_R_TOPIC_TYPES: app_read_push(&c->types, &c->n_types, arg); return 0;
	case APP_R_EXCLUDE_TYPES:
		app_read_push(&c->exclude_types, &c->n_exclude_types, arg);
		return 0;
	case APP_R_ALL_TOPICS: s->all_topics = true; return 0;
	case APP_R_ALL_SERVICES: s->all_services = true; return 0;
	case APP_R_SERVICES: app_read_push(&c->services, &c->n_services, arg); return 0;
	case APP_R_EXCLUDE_SERVICES:
		app_read_push(&c->exclude_services, &c->n_exclude_services, arg);
		return 0;
	case APP_R_DEFS_PATH: app_read_push(&c->defs_paths, &c->n_defs_paths, arg); return 0;
	case APP_R_HIDDEN: s->include_hidden = true; return 0;
	case APP_R_UNPUBLISHED: c->ro.include_unpublished = true; return 0;
	case APP_R_IGNORE_LEAF: c->ro.ignore_leaf = true; return 0;
	case APP_R_NO_DISCOVERY: c->ro.no_discovery = true; return 0;
	case APP_R_USE_SIM_TIME: c->ro.use_sim_time = true; return 0;
	case APP_R_SERIALIZATION:
		if (strcmp(arg, "cdr") != 0)
			return app_usage_error(cmd, "--serialization-format: bagtop records what DDS "
					       "sends, cdr; '%s' is no DDS format", arg);
		return 0;
	case APP_R_QOS_OVERRIDES: c->ro.qos_overrides_path = arg; return 0;
	case APP_R_START_PAUSED: c->ro.start_paused = true; return 0;
	case APP_R_NO_TUI: c->no_tui = true; return 0;
	case APP_R_NO_KEYS: c->no_keys = true; return 0;
	case APP_R_SNAPSHOT: c->ro.snapshot_mode = true; return 0;
	case APP_R_QUEUE_TRIGGERS: c->queue_triggers = true; return 0;
	case APP_R_LOG_FILE: c->log_file = arg; return 0;
	case APP_R_LOG_LEVEL:
		c->log_level_given = true;
		return app_ros_env_log_level(cmd, arg, &c->log_level);
	case APP_R_SNAP_DURATION:
	case APP_R_SNAP_POST:
	case APP_R_STOP_TIMEOUT:
	case APP_R_REPEAT: return app_r_snapshot(cmd, c, o->id, arg);
	case APP_R_HOOK:
	case APP_R_HOOK_JOBS:
	case APP_R_HOOK_TIMEOUT: return app_r_hook(cmd, c, o->id, arg);
	case APP_R_DOMAIN:
	case APP_R_CACHE:
	case APP_R_MIN_FREE:
	case APP_R_POLLING:
	case APP_R_COMP_QUEUE:
	case APP_R_STATS_RATE: return app_r_numbers(cmd, c, o->id, arg);
	case APP_R_THROTTLE: return app_r_throttle(cmd, c, arg);
	case APP_R_NODE_NAME: return app_ros_env_node_name(cmd, o->lng, arg, &c->node_name);
	case APP_R_NO_REMOTE: c->no_remote_control = true; return 0;
	case APP_R_SNAP_WINDOW:
	case APP_R_SNAP_TOPIC_CACHE: return app_r_snapwin(cmd, c, o->id, arg);
	default: return app_writer_opt(cmd, &c->w, o, arg);
	}
}

/* The definition sources: --message-definitions-path (each a directory),
 * AMENT_PREFIX_PATH, the built-in set of the distro whose layout the bag
 * has (--compat, else ROS_DISTRO; Jazzy's when it names none bagtop has). */
static int app_record_defs(const struct app_cmd *cmd, struct app_record_cfg *c)
{
	for (size_t i = 0; i < c->n_defs_paths; i++)
		if (!bt_fs_is_dir(c->defs_paths[i]))
			return app_usage_error(cmd, "--message-definitions-path: '%s' is not a directory",
					       c->defs_paths[i]);
	/* the distro whose layout the bag has (--compat, else ROS_DISTRO) */
	const char *distro = bag_compat_name(c->w.compat.compat);
	if (defs_builtin_count(distro) == 0)
		distro = NULL;
	struct defs_options o = {c->defs_paths, c->n_defs_paths, getenv("AMENT_PREFIX_PATH"),
				 distro, false};
	struct bt_error err;
	if (defs_source_new(&o, &c->defs, &err) != BT_OK)
		return app_usage_error(cmd, "%s", err.msg);
	c->ro.defs = c->defs;
	return 0;
}

int app_record_finish(const struct app_cmd *cmd, struct app_record_cfg *c)
{
	int rc = app_writer_finish(cmd, &c->w);
	if (rc == 0)
		rc = app_ros_env_read(cmd, &c->env, &c->ro.domain_id);
	if (rc != 0)
		return rc;
	c->ro.env = &c->env;
	c->ro.services_humble = c->w.compat.compat == BAG_COMPAT_HUMBLE;
	if ((c->snapshot_timing || c->n_snapwin != 0 || c->queue_triggers) &&
	    !c->ro.snapshot_mode)
		return app_usage_error(cmd, "--snapshot-duration, --snapshot-post, "
				       "--snapshot-window, --snapshot-topic-cache and "
				       "--queue-triggers need --snapshot-mode");
	if ((c->hook_jobs_given || c->hook_timeout_given) && c->hook_cmd == NULL)
		return app_usage_error(cmd, "--on-file-closed-jobs and --on-file-closed-timeout "
				       "need --on-file-closed");
	if (c->ro.snapshot_mode && c->ro.max_cache_size == 0)
		return app_usage_error(cmd, "--snapshot-mode needs --max-cache-size above 0 (the "
				       "snapshot buffer's size)");

	struct bt_error err;
	if (rec_throttle_new(c->throttle_specs, c->n_throttle, &c->throttle, &err) != BT_OK)
		return app_usage_error(cmd, "%s", err.msg);
	c->ro.throttle = c->throttle;
	if (rec_snapwin_new(c->snapwin_specs, c->n_snapwin, c->ro.max_cache_size, &c->snapwin,
			    &err) != BT_OK)
		return app_usage_error(cmd, "%s", err.msg);
	c->ro.snapwin = c->snapwin;
	rc = app_record_defs(cmd, c);
	if (rc != 0)
		return rc;
	if (!c->min_free_given) {
		/* The bag does not exist yet: its parent is on the same disk. */
		char *parent = bt_fs_dirname(c->w.output);
		c->ro.min_free_space = rec_guard_default(parent);
		free(parent);
	}
	/* As rosbag2's recorder: a node with its events; without remote
	 * control, no node (and no services), the events still told. */
	c->ro.node_name = c->node_name ? c->node_name : BTDDS_RB2_RECORDER;
	c->ro.node = !c->no_remote_control;
	c->ro.events = true;
	c->ro.stats_rate = c->update_rate;
	c->ro.version = BAGTOP_VERSION;
	c->ro.repeat = c->repeat;
	c->ro.n_repeat = c->n_repeat;
	c->ro.writer = c->w.opt;
	c->ro.select.topics = c->topics;
	c->ro.select.n_topics = c->n_topics;
	c->ro.select.exclude_topics = c->exclude;
	c->ro.select.n_exclude_topics = c->n_exclude;
	c->ro.select.types = c->types;
	c->ro.select.n_types = c->n_types;
	c->ro.select.exclude_types = c->exclude_types;
	c->ro.select.n_exclude_types = c->n_exclude_types;
	c->ro.select.services = c->services;
	c->ro.select.n_services = c->n_services;
	c->ro.select.exclude_services = c->exclude_services;
	c->ro.select.n_exclude_services = c->n_exclude_services;
	/* Test hook (not an option): a slow disk, on purpose. */
	const char *delay = getenv("BAGTOP_TEST_CONSUMER_DELAY_US");
	uint64_t us;
	if (delay != NULL && bt_parse_u64(delay, 0, 10000000, &us) == BT_OK)
		c->ro.test_consumer_delay_us = (uint32_t)us;
	/* A wedged writer: each message insert stalls (the stop tests). */
	delay = getenv("BAGTOP_TEST_WRITE_DELAY_US");
	if (delay != NULL && bt_parse_u64(delay, 0, 10000000, &us) == BT_OK)
		c->ro.writer.test_write_delay_us = (uint32_t)us;
	/* A writer stuck in the kernel at close: deaf to abandoning. */
	delay = getenv("BAGTOP_TEST_CLOSE_STALL_US");
	if (delay != NULL && bt_parse_u64(delay, 0, 60000000, &us) == BT_OK)
		c->ro.writer.test_close_stall_us = (uint32_t)us;
	/* Slow MESSAGE compression, so that the cache overflows behind it. */
	delay = getenv("BAGTOP_TEST_COMPRESS_DELAY_US");
	if (delay != NULL && bt_parse_u64(delay, 0, 1000000, &us) == BT_OK)
		c->ro.writer.test_compress_delay_us = (uint32_t)us;
	/* And a slow receive path, so that samples are lost in transport. */
	delay = getenv("BAGTOP_TEST_LISTENER_DELAY_US");
	if (delay != NULL && bt_parse_u64(delay, 0, 1000000, &us) == BT_OK)
		c->ro.test_listener_delay_us = (uint32_t)us;
	/* A discovery thread slow to finish subscribing a topic. */
	delay = getenv("BAGTOP_TEST_SUBSCRIBE_DELAY_US");
	if (delay != NULL && bt_parse_u64(delay, 0, 5000000, &us) == BT_OK)
		c->ro.test_subscribe_delay_us = (uint32_t)us;
	return 0;
}

int app_record_run(const struct app_cmd *cmd, struct app_record_cfg *c)
{
	/* The live view when stdout is a terminal; else status lines. Headless,
	 * warnings and errors are printed once each. */
	bool tui = !c->no_tui && isatty(STDOUT_FILENO);
	struct app_run run;
	int rc = app_run_start(&run, cmd, c);
	if (rc != 0)
		return rc;
	app_writer_note_compat(&c->w);
	if (c->ro.max_cache_size != 0 && c->ro.max_cache_size < APP_SMALL_CACHE) {
		char sz[32];
		bt_fmt_iec(c->ro.max_cache_size, sz, sizeof sz);
		bt_log_warn("--max-cache-size %s is small: every message larger than that is "
			    "lost (0 = write-through)", sz);
	}
	rc = tui ? app_tui_run(&run) : -1;
	if (rc < 0)
		rc = app_run_headless(&run);
	app_run_end(&run);
	return rc;
}

int app_record_main(const struct app_cmd *cmd, struct app_record_cfg *c, int rc,
		    int (*run)(const struct app_cmd *cmd, struct app_record_cfg *c))
{
	if (rc == 0)
		rc = app_record_finish(cmd, c);
	if (rc == 0)
		rc = run(cmd, c);
	app_record_cfg_fini(c);
	return rc < 0 ? APP_EXIT_OK : rc;
}
