/* app_run_pidcmd — the signals a recording takes, turned into commands on
 * the command queue (app_run_cmd.c runs them): kill -USR1 (a snapshot),
 * APP_SIG_SNAPSHOT / APP_SIG_PAUSE / APP_SIG_RESUME from `bagtop
 * snapshot|pause|resume --pid` (app_pidcmd.h is the requester's side); and
 * the answer to a `bagtop snapshot` in its own file (app_snapfile.h).
 *
 * Signals: SIGINT, SIGTERM, SIGHUP, SIGUSR1 and the pause / resume /
 * snapshot-request signals are blocked (app_run_start) before the recorder
 * starts its threads (they inherit the mask) and received in one place with
 * sigtimedwait; nothing runs in a signal handler. The stop signals are
 * returned to the caller.
 *
 * Threads: app_run_take_signal runs on the thread that takes the signals
 * (headless: main; live view: its signal thread); app_pid_answer on the
 * command thread (or on that one, for a command refused at once). */
#include "app__run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bt_log.h"
#include "rec_cmd.h"

/* A `bagtop snapshot` request's result, answered in the requester's own
 * file: what its trigger did, or once written the snapshot's file. */
static void app_pid_answer(void *ctx, const struct bt_cmd *c, const struct bt_cmd_result *r)
{
	(void)ctx;
	struct app_snapstate a = {.request = c->tag, .messages = r->messages};
	bool trigger = r->outcome == BT_CMD_REFUSED && r->value > REC_TRIGGER_STARTED;
	const char *result = r->outcome == BT_CMD_DONE ? "ok"
			     : trigger                 ? app_run_trigger_result((int)r->value)
						       : "failed";
	snprintf(a.result, sizeof a.result, "%s", result);
	snprintf(a.file, sizeof a.file, "%s", r->file);
	snprintf(a.message, sizeof a.message, "%s",
		 trigger ? rec_trigger_str((enum rec_trigger)r->value) : r->reason);
	struct bt_error e = {0};
	if (app_snapfile_answer_write((pid_t)c->origin.pid, &a, &e) != BT_OK)
		bt_log_warn("answer to `bagtop snapshot` (process %ld): %s", c->origin.pid, e.msg);
}

/* One command signal, from process `from`. */
static void app_sig_command(struct app_run *run, int sig, const siginfo_t *si)
{
	long from = (long)si->si_pid;
	struct bt_cmd c;
	if (sig == SIGUSR1) {
		c = rec_cmd_make(REC_CMD_SNAPSHOT, BT_CMD_FROM_SIGNAL, from, "SIGUSR1 from pid %ld",
				 from);
		app_run_submit(run, &c, NULL, NULL);
	} else if (sig == APP_SIG_SNAPSHOT) {
		c = rec_cmd_make(REC_CMD_SNAPSHOT, BT_CMD_FROM_PIDCMD, from,
				 "snapshot --pid from pid %ld", from);
		c.tag = (uint64_t)(unsigned)si->si_value.sival_int; /* its request number */
		struct rec_cmd_snap p; /* its parameters, if it wrote any */
		(void)app_snapfile_request_take((pid_t)from, c.tag, &p); /* none: as configured */
		rec_cmd_snap_put(&c, &p);
		app_run_submit(run, &c, app_pid_answer, NULL);
	} else {
		bool pause = sig == APP_SIG_PAUSE;
		c = rec_cmd_make(pause ? REC_CMD_PAUSE : REC_CMD_RESUME, BT_CMD_FROM_PIDCMD, from,
				 "%s --pid from pid %ld", pause ? "pause" : "resume", from);
		app_run_submit(run, &c, NULL, NULL);
	}
}

/* A signal wait that failed (not a timeout, not an interruption): said
 * once, and a pause instead, so that no caller's loop spins. */
void app_run_wait_failed(int e)
{
	static atomic_bool said;
	if (!atomic_exchange(&said, true))
		bt_log_error("waiting for signals failed: %s", strerror(e));
	struct timespec pause = {0, 10 * 1000 * 1000};
	nanosleep(&pause, NULL);
}

int app_run_take_signal(struct app_run *run, const struct timespec *wait)
{
	siginfo_t si;
	int sig = sigtimedwait(&run->all_sigs, &si, wait);
	if (sig < 0 && errno != EAGAIN && errno != EINTR)
		app_run_wait_failed(errno);
	if (sig == SIGUSR1 || sig == APP_SIG_SNAPSHOT || sig == APP_SIG_PAUSE ||
	    sig == APP_SIG_RESUME)
		app_sig_command(run, sig, &si);
	else if (sig > 0 && sig != SIGUSR2 && /* SIGUSR2: taken, nothing to do */
		 !app_run_sig_echo(run))
		return sig;
	return 0;
}

bool app_run_sig_echo(struct app_run *run)
{
	int64_t now = bt_time_monotonic_ns(), last = atomic_load(&run->stop_sig_t);
	if (last != 0 && now - last < APP_RUN_SIG_ECHO_NS)
		return true;
	atomic_store(&run->stop_sig_t, now);
	return false;
}
