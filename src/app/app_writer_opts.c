#include "app_writer_opts.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bag_storage.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "bt_sync.h"
#include "bt_time.h"

#define APP_MIN_SPLIT_DURATION_NS INT64_C(1000000) /* -d: 1 ms */

void app_writer_cfg_init(struct app_writer_cfg *c)
{
	memset(c, 0, sizeof *c);
}

void app_writer_cfg_fini(struct app_writer_cfg *c)
{
	bag_kv_free(c->custom, c->n_custom);
	bag_kv_free(c->config, c->n_config);
	free(c->output);
	memset(c, 0, sizeof *c);
}

static int app_w_custom(const struct app_cmd *cmd, struct app_writer_cfg *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return app_usage_error(cmd, "--custom-data wants KEY=VALUE, got '%s'", arg);
	size_t klen = (size_t)(eq - arg);
	/* A key twice would be written twice: invalid YAML that rosbag2 refuses. */
	for (size_t i = 0; i < c->n_custom; i++)
		if (strlen(c->custom[i].key) == klen && !strncmp(c->custom[i].key, arg, klen))
			return app_usage_error(cmd, "--custom-data key '%s' given twice",
					       c->custom[i].key);
	c->custom = bt_xrealloc(c->custom, (c->n_custom + 1) * sizeof *c->custom);
	c->custom[c->n_custom].key = bt_xstrndup(arg, klen);
	c->custom[c->n_custom].value = bt_xstrdup(eq + 1);
	c->n_custom++;
	return 0;
}

static int app_w_numbers(const struct app_cmd *cmd, struct app_writer_cfg *c, int id,
			 const char *arg)
{
	uint64_t u;
	switch (id) {
	case APP_W_MAX_SIZE:
		/* its minimum is the storage's: app_writer_finish checks it */
		if (bt_parse_size(arg, &c->opt.max_bagfile_size) != BT_OK)
			return app_usage_error(cmd, "--max-bag-size wants a byte count, got '%s'", arg);
		return 0;
	case APP_W_MAX_DURATION:
		if (bt_parse_seconds(arg, &c->opt.max_bagfile_duration) != BT_OK)
			return app_usage_error(cmd, "--max-bag-duration wants seconds, got '%s'", arg);
		/* A value that is not 0 must not round to 0 (never) or split at
		 * every message. */
		if ((c->opt.max_bagfile_duration == 0 && strpbrk(arg, "123456789") != NULL) ||
		    (c->opt.max_bagfile_duration > 0 &&
		     c->opt.max_bagfile_duration < APP_MIN_SPLIT_DURATION_NS))
			return app_usage_error(cmd, "--max-bag-duration must be 0 (never) or at least "
					       "0.001 seconds, got '%s'", arg);
		return 0;
	case APP_W_MAX_FILES:
		if (bt_parse_u64(arg, 0, UINT32_MAX, &c->opt.max_bag_files) != BT_OK)
			return app_usage_error(cmd, "--max-bag-files wants a count, got '%s'", arg);
		return 0;
	default: /* APP_W_COMP_THREADS */
		if (bt_parse_u64(arg, 0, 256, &u) != BT_OK)
			return app_usage_error(cmd, "--compression-threads wants 0..256, got '%s'",
					       arg);
		c->opt.compression_threads = (unsigned)u;
		return 0;
	}
}

int app_writer_opt(const struct app_cmd *cmd, struct app_writer_cfg *c, const struct app_opt *o,
		   const char *arg)
{
	switch (o->id) {
	case APP_W_OUTPUT:
		free(c->output);
		c->output = bt_xstrdup(arg);
		return 0;
	case APP_W_MAX_SIZE:
	case APP_W_MAX_DURATION:
	case APP_W_MAX_FILES:
	case APP_W_COMP_THREADS:
		return app_w_numbers(cmd, c, o->id, arg);
	case APP_W_PRESET:
		/* The store reads "" as the default (metadata.yaml's way of
		 * saying none); on the command line it is a mistake. Which
		 * names are known depends on -s: app_writer_finish. */
		if (arg[0] == '\0')
			return app_usage_error(cmd, "--storage-preset-profile is none or resilient "
					       "(sqlite3), fastwrite, zstd_fast or zstd_small (mcap), "
					       "not ''");
		c->preset_arg = arg;
		return 0;
	case APP_W_STORAGE: {
		const struct bag_storage_ops *ops;
		struct bt_error e;
		if (bag_storage_lookup(arg, &ops, &e) != BT_OK)
			return app_usage_error(cmd, "--storage: %s", e.msg);
		c->opt.storage_id = ops->identifier;
		return 0;
	}
	case APP_W_CONFIG:
		c->config_arg = arg;
		return 0;
	case APP_W_COMP_NICE: {
		int64_t v;
		if (bt_parse_i64(arg, BT_SYNC_NICE_MIN, BT_SYNC_NICE_MAX, &v) != BT_OK)
			return app_usage_error(cmd, "--compression-threads-priority wants a nice "
					       "value, -20..19, got '%s'", arg);
		c->opt.compression_nice = (int32_t)v;
		c->opt.compression_nice_set = true;
		return 0;
	}
	case APP_W_COMP_MODE:
		if (arg[0] == '\0' || bag_compression_parse(arg, &c->opt.compression) != BT_OK)
			return app_usage_error(cmd, "--compression-mode is none, file or message, "
					       "not '%s'", arg);
		return 0;
	case APP_W_COMP_FORMAT:
		if (strcasecmp(arg, "zstd") != 0)
			return app_usage_error(cmd, "--compression-format: only zstd is supported, "
					       "not '%s'", arg);
		c->format_given = true;
		return 0;
	case APP_W_CUSTOM:
		return app_w_custom(cmd, c, arg);
	case APP_W_COMPAT:
		if (bag_compat_parse(arg, &c->compat.compat) != BT_OK)
			return app_usage_error(cmd, "--compat is humble, iron or jazzy, not '%s'", arg);
		c->compat_arg = arg;
		return 0;
	default:
		return -2;
	}
}

/* --compat, else $ROS_DISTRO, else jazzy. An explicit --compat also names
 * the distro in the bag (ros_distro), as that distro's recorder would; a
 * defaulted one leaves it to $ROS_DISTRO, as rosbag2 does. */
static int app_w_compat(const struct app_cmd *cmd, struct app_writer_cfg *c)
{
	if (bag_compat_choose(c->compat_arg, getenv("ROS_DISTRO"), &c->compat) != BT_OK)
		return app_usage_error(cmd, "--compat is humble, iron or jazzy, not '%s'",
				       c->compat_arg);
	c->opt.compat = c->compat.compat;
	if (c->compat_arg)
		c->opt.ros_distro = bag_compat_name(c->compat.compat);
	int v = bag_compat_metadata_version(c->compat.compat);
	if (c->n_custom && v < BAG_MDV_CUSTOM_DATA)
		return app_usage_error(cmd, "--custom-data: %s's rosbag2 metadata (version %d) has "
				       "no custom_data; use --compat iron or jazzy",
				       bag_compat_name(c->compat.compat), v);
	return 0;
}

void app_writer_note_compat(const struct app_writer_cfg *c)
{
	if (c->compat.env_unknown)
		bt_log_info("ROS_DISTRO=%s is not one bagtop writes a layout for (humble, iron, "
			    "jazzy): writing Jazzy's (metadata v9, sqlite schema 4); --compat "
			    "chooses", getenv("ROS_DISTRO"));
}

/* -s sqlite3: rosbag2's sqlite3 presets; no config file (rosbag2's
 * sqlite3 plugin reads pragmas from one: not supported). */
static int app_w_sqlite(const struct app_cmd *cmd, struct app_writer_cfg *c)
{
	if (c->preset_arg && bag_preset_parse(c->preset_arg, &c->opt.preset) != BT_OK)
		return app_usage_error(cmd, "--storage-preset-profile is none or resilient with "
				       "sqlite3, not '%s'%s", c->preset_arg,
				       bag_storage_find("mcap") ? " (fastwrite, zstd_fast and "
				       "zstd_small are mcap's: -s mcap)" : "");
	if (c->config_arg)
		return app_usage_error(cmd, "--storage-config-file is read with -s mcap only "
				       "(sqlite3's pragmas: --storage-preset-profile)");
	return 0;
}

/* -s mcap (or any other backend): its presets and config keys, judged by
 * the backend; chunks are its compression. */
static int app_w_backend(const struct app_cmd *cmd, struct app_writer_cfg *c,
			 const struct bag_storage_ops *ops)
{
	if (c->opt.compression != BAG_COMPRESSION_NONE)
		return app_usage_error(cmd, "--compression-mode %s: %s compresses chunks, not files "
				       "or messages; use --storage-preset-profile zstd_fast or "
				       "zstd_small (or compression: Zstd in --storage-config-file)",
				       c->opt.compression == BAG_COMPRESSION_FILE ? "file" : "message",
				       ops->identifier);
	struct bt_error e;
	if (c->config_arg &&
	    bag_storage_config_read(c->config_arg, &c->config, &c->n_config, &e) != BT_OK)
		return app_usage_error(cmd, "--storage-config-file: %s", e.msg);
	c->opt.storage_preset = c->preset_arg;
	c->opt.storage_config = c->config;
	c->opt.n_storage_config = c->n_config;
	/* the preset alone first, so the error names the option at fault */
	struct bag_storage_options so = {.preset = c->preset_arg};
	if (ops->check_options(&so, &e) != BT_OK)
		return app_usage_error(cmd, "--storage-preset-profile: %s", e.msg);
	so.config = c->config;
	so.n_config = c->n_config;
	if (ops->check_options(&so, &e) != BT_OK)
		return app_usage_error(cmd, "--storage-config-file %s: %s", c->config_arg, e.msg);
	return 0;
}

static int app_w_storage(const struct app_cmd *cmd, struct app_writer_cfg *c)
{
	const struct bag_storage_ops *ops =
		c->opt.storage_id ? bag_storage_find(c->opt.storage_id) : bag_storage_default();
	int rc = ops == bag_storage_default() ? app_w_sqlite(cmd, c) : app_w_backend(cmd, c, ops);
	if (rc == 0 && c->opt.max_bagfile_size && c->opt.max_bagfile_size < ops->min_split_size)
		return app_usage_error(cmd, "--max-bag-size must be 0 or at least %llu bytes%s%s",
				       (unsigned long long)ops->min_split_size,
				       ops == bag_storage_default() ? "" : " with -s ",
				       ops == bag_storage_default() ? "" : ops->identifier);
	return rc;
}

int app_writer_finish(const struct app_cmd *cmd, struct app_writer_cfg *c)
{
	int src = app_w_storage(cmd, c);
	if (src != 0)
		return src;
	if (c->format_given && c->opt.compression == BAG_COMPRESSION_NONE)
		return app_usage_error(cmd, "--compression-format needs --compression-mode file "
				       "or message");
	int rc = app_w_compat(cmd, c);
	if (rc != 0)
		return rc;
	if (!c->output) {
		char name[128];
		bt_time_format_bagname(bt_time_realtime_ns(), "rosbag2_", name, sizeof name);
		c->output = bt_xstrdup(name);
	}
	c->opt.uri = c->output;
	c->opt.custom_data = c->custom;
	c->opt.n_custom_data = c->n_custom;
	return 0;
}
