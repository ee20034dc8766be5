/* bagtop demo: built-in publishers of real ROS 2 types (demo_pub) in a
 * child process, recorded by this process exactly as `bagtop record -a`
 * would record a robot. When CYCLONEDDS_URI is unset, both use a
 * loopback-only configuration, so a first run never sends DDS traffic
 * onto the network. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "app.h"
#include "app_record.h"
#include "bt_parse.h"
#include "demo_pub.h"

#define APP_D_DURATION 300

static const struct app_opt demo_opts[] = {
	{"duration", 0, "SECONDS", "stop after SECONDS (default: until Ctrl-C)", APP_D_DURATION},
	APP_RECORD_RUN_ROWS,
	APP_WRITER_OPT_ROWS};

/* Cyclone accepts the XML itself in CYCLONEDDS_URI. */
static const char demo_loopback_xml[] =
	"<CycloneDDS><Domain Id=\"any\"><General>"
	"<Interfaces><NetworkInterface address=\"127.0.0.1\"/></Interfaces>"
	"<AllowMulticast>false</AllowMulticast></General><Discovery>"
	"<ParticipantIndex>auto</ParticipantIndex>"
	"<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>"
	"<Peers><Peer address=\"127.0.0.1\"/></Peers></Discovery></Domain></CycloneDDS>";

struct demo_ctx {
	const struct app_cmd *cmd;
	struct app_record_cfg cfg;
};

static int demo_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct demo_ctx *d = ctx;
	if (o->id != APP_D_DURATION)
		return app_record_opt(d->cmd, &d->cfg, o, arg);
	if (bt_parse_seconds(arg, &d->cfg.duration_ns) != BT_OK || d->cfg.duration_ns <= 0)
		return app_usage_error(d->cmd, "--duration wants seconds > 0, got '%s'", arg);
	return 0;
}

static volatile sig_atomic_t demo_child_stop;

static void demo_child_signal(int sig)
{
	(void)sig;
	demo_child_stop = 1;
}

/* The publisher process: ends when the recorder does (or is killed). */
static pid_t demo_spawn(uint32_t domain, const struct btdds_env *env, bool quiet)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	if (quiet) { /* nothing may print over the live view */
		int fd = open("/dev/null", O_WRONLY);
		if (fd >= 0 && (dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0))
			_exit(126);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	signal(SIGINT, SIG_IGN); /* Ctrl-C is for the recorder; it stops us */
	signal(SIGTERM, demo_child_signal);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == 1)
		_exit(0);
	_exit(demo_publish(domain, env, &demo_child_stop, 0));
}

static int demo_record(const struct app_cmd *cmd, struct app_record_cfg *cfg)
{
	cfg->ro.select.all = true;
	pid_t child = demo_spawn(cfg->ro.domain_id, cfg->ro.env,
				 !cfg->no_tui && isatty(STDOUT_FILENO));
	if (child < 0) {
		app_error("cannot start the demo publishers: fork failed");
		return APP_EXIT_ERROR;
	}
	int rc = app_record_run(cmd, cfg);
	kill(child, SIGTERM);
	int wst = 0;
	if (waitpid(child, &wst, 0) == child && WIFEXITED(wst) && WEXITSTATUS(wst) != 0 &&
	    rc == APP_EXIT_OK)
		rc = WEXITSTATUS(wst);
	return rc;
}

static int demo_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct demo_ctx d = {.cmd = cmd};
	app_record_cfg_init(&d.cfg);
	d.cfg.own_publishers = true;
	int rc = app_opts_no_operand(cmd, argc, argv, demo_opt, &d);
	/* before the environment is read: the domain is joined with it */
	if (rc == 0 && getenv("CYCLONEDDS_URI") == NULL)
		setenv("CYCLONEDDS_URI", demo_loopback_xml, 1);
	return app_record_main(cmd, &d.cfg, rc, demo_record);
}

const struct app_cmd app_cmd_demo = {
	"demo", NULL,
	"Record built-in ROS 2 publishers: a first run, and a bag to look at.",
	"\nStarts publishers in a child process (/chatter, /tf_static, /map, /imu,\n"
	"/points, /scan and the plain DDS topic DemoRobotStatus, real ROS 2 types)\n"
	"and records all of them as 'bagtop record -a' would. When CYCLONEDDS_URI\n"
	"is unset, DDS stays on 127.0.0.1 (a loopback-only configuration).\n"
	"BYTES takes a suffix K, M, G or T (also KiB, MiB, GiB, TiB): powers of\n"
	"1024, so 100M is 104857600 bytes. Sizes are shown in KiB, MiB, GiB.\n",
	demo_opts, sizeof demo_opts / sizeof demo_opts[0], demo_run};
