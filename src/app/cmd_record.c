/* bagtop record: record DDS / ROS 2 topics into a rosbag2 bag. Options and
 * their names mirror `ros2 bag record`. */
#include "app.h"
#include "app_read_opts.h"
#include "app_record.h"

static const struct app_opt record_opts[] = {APP_RECORD_SELECT_ROWS, APP_RECORD_RUN_ROWS,
					     APP_RECORD_NODE_ROWS, APP_WRITER_OPT_ROWS,
					     APP_RECORD_COMPAT_ROWS};

struct record_ctx {
	const struct app_cmd *cmd;
	struct app_record_cfg cfg;
};

static int record_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct record_ctx *r = ctx;
	return app_record_opt(r->cmd, &r->cfg, o, arg);
}

static int record_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct record_ctx r = {.cmd = cmd};
	app_record_cfg_init(&r.cfg);
	int first;
	int rc = app_opts_parse(cmd, argc, argv, record_opt, &r, &first);
	for (int i = first; rc == 0 && i < argc; i++)
		app_read_push(&r.cfg.topics, &r.cfg.n_topics, argv[i]);
	return app_record_main(cmd, &r.cfg, rc, app_record_run);
}

const struct app_cmd app_cmd_record = {
	"record", "[TOPIC...]",
	"Record DDS / ROS 2 topics into a rosbag2 bag.",
	"\nTopics are given by ROS name (/chatter) or DDS name (rt/chatter,\n"
	"DDSPerfRDataKS); -a records every topic. Publishers that appear later are\n"
	"recorded as they appear. SIGINT, SIGTERM and SIGHUP finish the bag\n"
	"cleanly. Without a terminal (or with --no-tui) a status line is printed\n"
	"every update period, and Space pauses and resumes when standard input is\n"
	"a terminal; `bagtop pause|resume --pid` do it from another shell.\n"
	"BYTES takes a suffix K, M, G or T (also KiB, MiB, GiB, TiB): powers of\n"
	"1024, so 100M is 104857600 bytes. Sizes are shown in KiB, MiB, GiB.\n",
	record_opts, sizeof record_opts / sizeof record_opts[0], record_run};
