/* bagtop pause / bagtop resume: pause or resume a running `bagtop record`
 * from another shell. The request is a real-time signal (APP_SIG_PAUSE /
 * APP_SIG_RESUME), sent only to a process whose state file says it is a
 * live recorder; the answer is the state file's pause_seq moving on, with
 * the state it now has (app_snapfile.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "app_snapfile.h"
#include "bt_parse.h"
#include "bt_time.h"

#define PAUSE_POLL_NS 20000000L
#define PAUSE_TIMEOUT_NS (INT64_C(10) * 1000000000)

enum { PAUSE_O_PID = 1, PAUSE_O_TIMEOUT };

static const struct app_opt pause_opts[] = {
	{"pid", 'p', "PID", "the bagtop record process (required)", PAUSE_O_PID},
	{"timeout", 0, "SECONDS", "give up after SECONDS (default 10)", PAUSE_O_TIMEOUT},
};

struct pause_ctx {
	const struct app_cmd *cmd;
	bool pause; /* else resume */
	long pid;
	int64_t timeout_ns;
};

static int pause_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct pause_ctx *p = ctx;
	uint64_t u;
	if (o->id == PAUSE_O_PID) {
		if (bt_parse_u64(arg, 1, 4194304, &u) != BT_OK)
			return app_usage_error(p->cmd, "--pid wants a process id, got '%s'", arg);
		p->pid = (long)u;
		return 0;
	}
	if (bt_parse_seconds(arg, &p->timeout_ns) != BT_OK || p->timeout_ns <= 0)
		return app_usage_error(p->cmd, "--timeout wants seconds above 0, got '%s'", arg);
	return 0;
}

/* Polls the state file until pause_seq passes `seq0`; prints the state. */
static int pause_wait(const struct pause_ctx *p, uint64_t seq0)
{
	int64_t end = bt_time_monotonic_ns() + p->timeout_ns;
	struct app_snapstate st;
	struct bt_error err = {0};
	for (;;) {
		struct timespec ts = {0, PAUSE_POLL_NS};
		nanosleep(&ts, NULL);
		bt_status rc = app_snapfile_read((pid_t)p->pid, &st, &err);
		if (rc == BT_OK && st.pause_seq > seq0)
			break;
		if (rc == BT_ERR_NOTFOUND || kill((pid_t)p->pid, 0) != 0) {
			app_error("process %ld stopped before it confirmed", p->pid);
			return APP_EXIT_ERROR;
		}
		if (bt_time_monotonic_ns() > end) {
			app_error("process %ld did not confirm within the timeout (is it finishing "
				  "its bag?)", p->pid);
			return APP_EXIT_ERROR;
		}
	}
	if (st.paused != p->pause) {
		app_error("process %ld is %s: another request came in between", p->pid,
			  st.paused ? "paused" : "recording");
		return APP_EXIT_ERROR;
	}
	printf("%s\n", p->pause ? "paused" : "resumed");
	return APP_EXIT_OK;
}

static int pause_run_as(const struct app_cmd *cmd, bool pause, int argc, char **argv)
{
	struct pause_ctx p = {.cmd = cmd, .pause = pause, .timeout_ns = PAUSE_TIMEOUT_NS};
	int first;
	int rc = app_opts_parse(cmd, argc, argv, pause_opt, &p, &first);
	if (rc != 0)
		return rc < 0 ? APP_EXIT_OK : rc;
	if (first < argc)
		return app_usage_error(cmd, "unexpected argument '%s'", argv[first]);
	if (p.pid == 0)
		return app_usage_error(cmd, "--pid PID is required");
	struct app_snapstate st;
	struct bt_error err = {0};
	if (kill((pid_t)p.pid, 0) != 0 && errno == ESRCH) {
		app_error("no process %ld", p.pid);
		return APP_EXIT_ERROR;
	}
	if (app_snapfile_read((pid_t)p.pid, &st, &err) != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_ERROR;
	}
	if (!st.has_pause) {
		app_error("process %ld is a bagtop record without pause/resume requests", p.pid);
		return APP_EXIT_ERROR;
	}
	if (kill((pid_t)p.pid, pause ? APP_SIG_PAUSE : APP_SIG_RESUME) != 0) {
		app_error("cannot signal process %ld: %s", p.pid, strerror(errno));
		return APP_EXIT_ERROR;
	}
	return pause_wait(&p, st.pause_seq);
}

static int pause_run(const struct app_cmd *cmd, int argc, char **argv)
{
	return pause_run_as(cmd, true, argc, argv);
}

static int resume_run(const struct app_cmd *cmd, int argc, char **argv)
{
	return pause_run_as(cmd, false, argc, argv);
}

const struct app_cmd app_cmd_pause = {
	"pause", "--pid PID",
	"Pause a running `bagtop record` (nothing is written until resumed).",
	"\nAsks process PID to pause recording and waits until it confirms, then\n"
	"prints \"paused\". Topics stay subscribed; what arrives meanwhile is not\n"
	"written. Exits 1 with the reason when PID is gone, is not a bagtop\n"
	"recorder, or does not confirm in time.\n",
	pause_opts, sizeof pause_opts / sizeof pause_opts[0], pause_run};

const struct app_cmd app_cmd_resume = {
	"resume", "--pid PID",
	"Resume a paused `bagtop record` (e.g. one started with --start-paused).",
	"\nAsks process PID to resume recording and waits until it confirms, then\n"
	"prints \"resumed\". Exits 1 with the reason when PID is gone, is not a\n"
	"bagtop recorder, or does not confirm in time.\n",
	pause_opts, sizeof pause_opts / sizeof pause_opts[0], resume_run};
