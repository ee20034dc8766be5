/* app_writer_opts — the bag-writing options of the commands that write
 * bags (record and demo, through app_record). Names mirror
 * `ros2 bag record`. */
#ifndef APP_WRITER_OPTS_H
#define APP_WRITER_OPTS_H

#include "app_opts.h"
#include "bag_writer.h"

enum {
	APP_W_OUTPUT = 100,
	APP_W_MAX_SIZE,
	APP_W_MAX_DURATION,
	APP_W_MAX_FILES,
	APP_W_PRESET,
	APP_W_COMP_MODE,
	APP_W_COMP_FORMAT,
	APP_W_COMP_THREADS,
	APP_W_CUSTOM,
	APP_W_COMPAT,
	APP_W_STORAGE,
	APP_W_CONFIG,
	APP_W_COMP_NICE,
};

/* Table rows, to put inside a command's option table; README and the man
 * page say the same (tests/docs/options_agree.sh compares them). */
#define APP_WRITER_OPT_ROWS                                                                      \
	{"output", 'o', "DIR",                                                                     \
	 "bag directory to create; never overwritten (default rosbag2_YYYY_MM_DD-HH_MM_SS)",       \
	 APP_W_OUTPUT},                                                                            \
	{"max-bag-size", 'b', "BYTES",                                                             \
	 "split when a file's messages reach BYTES (its topic rows do not count; 0 = never, else " \
	 "at least 86016 = 84K; mcap: 1024)",                                                      \
	 APP_W_MAX_SIZE},                                                                          \
	{"max-bag-duration", 'd', "SECONDS",                                                       \
	 "split when a message is more than SECONDS after the file's first (0 = never, else at "  \
	 "least 0.001)",                                                                           \
	 APP_W_MAX_DURATION},                                                                      \
	{"max-bag-files", 0, "N", "keep only the newest N files, deleting the oldest (0 = keep all)",\
	 APP_W_MAX_FILES},                                                                         \
	{"storage", 's', "ID", "storage backend: sqlite3 (default) or mcap", APP_W_STORAGE},        \
	{"storage-preset-profile", 0, "PRESET",                                                    \
	 "none (default); sqlite3: resilient; mcap: fastwrite, zstd_fast or zstd_small",          \
	 APP_W_PRESET},                                                                            \
	{"storage-config-file", 0, "FILE",                                                         \
	 "mcap: YAML of rosbag2's MCAP writer settings (chunkSize, compression, noChunking...)",    \
	 APP_W_CONFIG},                                                                            \
	{"compression-mode", 0, "MODE", "none (default), file or message", APP_W_COMP_MODE},      \
	{"compression-format", 0, "FORMAT", "zstd, the only format", APP_W_COMP_FORMAT},          \
	{"compression-threads", 0, "N", "message-mode compression threads (0 = one per core)",    \
	 APP_W_COMP_THREADS},                                                                      \
	{"compression-threads-priority", 0, "NICE",                                               \
	 "the compression threads' nice value, -20 (first) to 19 (last); default: bagtop's",      \
	 APP_W_COMP_NICE},                                                                         \
	{"custom-data", 0, "KEY=VALUE",                                                           \
	 "stored under custom_data in the metadata; repeatable, each KEY once", APP_W_CUSTOM},    \
	{"compat", 0, "DISTRO",                                                                   \
	 "write the bag as DISTRO's rosbag2 does: humble, iron or jazzy (default $ROS_DISTRO "     \
	 "when it is one of them, else jazzy)",                                                   \
	 APP_W_COMPAT}

struct app_writer_cfg {
	struct bag_writer_options opt;
	char *output; /* owned */
	struct bag_kv *custom; /* owned; --custom-data pairs */
	size_t n_custom;
	bool format_given; /* --compression-format given */
	const char *preset_arg; /* --storage-preset-profile value, NULL when absent */
	const char *config_arg; /* --storage-config-file value, NULL when absent */
	struct bag_kv *config; /* owned; that file's settings */
	size_t n_config;
	const char *compat_arg; /* --compat value, NULL when absent */
	/* The layout chosen (set by app_writer_finish; also in opt.compat):
	 * whether it was defaulted tells whether a hint "use --compat X" may
	 * help when the publishers look like another distro. */
	struct bag_compat_choice compat;
};

void app_writer_cfg_init(struct app_writer_cfg *c);
void app_writer_cfg_fini(struct app_writer_cfg *c);
/* Handles one APP_W_* option; returns 0 or an APP_EXIT_USAGE after
 * printing the one-line reason. Other ids return -2 (not mine). */
int app_writer_opt(const struct app_cmd *cmd, struct app_writer_cfg *c, const struct app_opt *o,
		   const char *arg);
/* Checks combinations and fills defaults (output name, layout from --compat
 * or $ROS_DISTRO); 0 or usage exit.
 * c->opt then points into *c (uri, custom data) until fini. */
int app_writer_finish(const struct app_cmd *cmd, struct app_writer_cfg *c);
/* Logs once (info) that $ROS_DISTRO named a distro without a layout of its
 * own, so Jazzy's was taken; nothing otherwise. Call once logging is set up. */
void app_writer_note_compat(const struct app_writer_cfg *c);

#endif
