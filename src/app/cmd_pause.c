/* bagtop pause / bagtop resume: pause or resume a running `bagtop record`
 * from another shell. The request is a real-time signal (APP_SIG_PAUSE /
 * APP_SIG_RESUME), sent only to a process whose state file says it is a
 * live recorder; the answer is the state file's pause_seq moving on, with
 * the state it now has (app_snapfile.h). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_pidcmd.h"

static const struct app_opt pause_opts[] = {
	{"pid", 'p', "PID", "the recorder's process id (required)", APP_PIDCMD_O_PID},
	{"timeout", 0, "SECONDS", "give up after SECONDS (default 10)", APP_PIDCMD_O_TIMEOUT},
};

/* Waits until pause_seq passes before->pause_seq; prints the state, and
 * "already ..." when the recorder was in it before: the recorder counts
 * every pause and resume (keys too) in pause_seq, so when ours is the only
 * one handled, the state it found is the one read before sending it. */
static int pause_wait(const struct app_pidcmd *a, bool pause, const struct app_snapstate *before)
{
	uint64_t seq0 = before->pause_seq;
	struct app_snapstate st;
	bt_status rc = app_pidcmd_await(a, APP_PIDCMD_PAUSES, seq0, &st);
	if (rc == BT_ERR_NOTFOUND) {
		app_error("process %ld stopped before it confirmed", a->pid);
		return APP_EXIT_ERROR;
	}
	if (rc != BT_OK) {
		app_error("process %ld did not confirm within the timeout (is it finishing its bag?)",
			  a->pid);
		return APP_EXIT_ERROR;
	}
	if (st.paused != pause) {
		app_error("process %ld is %s: another request came in between", a->pid,
			  st.paused ? "paused" : "recording");
		return APP_EXIT_ERROR;
	}
	if (st.pause_seq == seq0 + 1 && before->paused == pause)
		printf("%s\n", pause ? "already paused" : "already running");
	else
		printf("%s\n", pause ? "paused" : "resumed");
	return APP_EXIT_OK;
}

static int pause_run_as(const struct app_cmd *cmd, bool pause, int argc, char **argv)
{
	struct app_pidcmd a = {.timeout_ns = INT64_C(10) * 1000000000};
	int rc = app_pidcmd_parse(cmd, argc, argv, &a);
	if (rc != 0)
		return rc < 0 ? APP_EXIT_OK : rc;
	struct app_snapstate st;
	struct bt_error err = {0};
	if (kill((pid_t)a.pid, 0) != 0 && errno == ESRCH) {
		app_error("no process %ld", a.pid);
		return APP_EXIT_ERROR;
	}
	if (app_snapfile_read((pid_t)a.pid, &st, &err) != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_ERROR;
	}
	if (!st.has_pause) {
		app_error("process %ld is a bagtop record without pause/resume requests", a.pid);
		return APP_EXIT_ERROR;
	}
	if (kill((pid_t)a.pid, pause ? APP_SIG_PAUSE : APP_SIG_RESUME) != 0) {
		app_error("cannot signal process %ld: %s", a.pid, strerror(errno));
		return APP_EXIT_ERROR;
	}
	return pause_wait(&a, pause, &st);
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
	"prints \"paused\" (\"already paused\" if it was). Topics stay subscribed;\n"
	"what arrives meanwhile is not written. Exits 1 with the reason when PID\n"
	"is gone, is not a bagtop recorder, or does not confirm in time.\n",
	pause_opts, sizeof pause_opts / sizeof pause_opts[0], pause_run};

const struct app_cmd app_cmd_resume = {
	"resume", "--pid PID",
	"Resume a paused `bagtop record` (e.g. one started with --start-paused).",
	"\nAsks process PID to resume recording and waits until it confirms, then\n"
	"prints \"resumed\" (\"already running\" if it was not paused). Exits 1\n"
	"with the reason when PID is gone, is not a bagtop recorder, or does not\n"
	"confirm in time.\n",
	pause_opts, sizeof pause_opts / sizeof pause_opts[0], resume_run};
