/* app_run_pidcmd — the recorder's side of `bagtop snapshot|pause|resume`
 * (app_pidcmd.h is the requester's side) and of kill -USR1: takes the
 * signals, triggers snapshots and pauses, reports finished snapshots, and
 * answers in the state file and the requesters' own files
 * (app_snapfile.h).
 *
 * Signals: SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 and the pause / resume
 * / snapshot-request signals are blocked (app_run_start) before the
 * recorder starts its threads (they inherit the mask) and received in one
 * place with sigtimedwait; nothing runs in a signal handler. The stop
 * signals are returned to the caller.
 *
 * Threads: everything here runs on the thread that takes the signals
 * (headless: main; live view: its signal thread), except
 * app_run_on_snapshot, which the writer thread calls. */
#include "app__run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "bt_fmt.h"
#include "bt_log.h"
#include "bt_mem.h"

/* ---- snapshots ---- */

void app_run_snap_publish(struct app_run *run, const char *result, const char *msg)
{
	run->snap.seq++;
	snprintf(run->snap.result, sizeof run->snap.result, "%s", result);
	snprintf(run->snap.message, sizeof run->snap.message, "%s", msg);
	struct bt_error e = {0};
	if (app_snapfile_write(&run->snap, &e) != BT_OK)
		bt_log_warn("snapshot state for `bagtop snapshot`: %s", e.msg);
}

static const char *const app_trigger_results[] = {
	[REC_TRIGGER_STARTED] = "started", [REC_TRIGGER_EMPTY] = "empty",
	[REC_TRIGGER_BUSY] = "busy", [REC_TRIGGER_STOPPING] = "stopping",
	[REC_TRIGGER_NOT_SNAPSHOT] = "not-snapshot"};

/* Triggers a snapshot and says what the trigger did; *id: the snapshot's
 * id when it started. */
static enum rec_trigger app_snap_start(struct app_run *run, uint64_t *id)
{
	enum rec_trigger t = rec_recorder_snapshot(run->rec, id);
	app_run_say(run, t == REC_TRIGGER_STARTED ? TUI_SEV_INFO : TUI_SEV_WARN, "%s",
		    rec_trigger_str(t));
	return t;
}

/* SIGUSR1 (and the TUI's `s`). */
void app_run_snap_trigger(struct app_run *run)
{
	uint64_t id = 0;
	enum rec_trigger t = app_snap_start(run, &id);
	if (t != REC_TRIGGER_STARTED) /* else: when it is written */
		app_run_snap_publish(run, app_trigger_results[t], rec_trigger_str(t));
}

/* Answers one `bagtop snapshot` in its own file. */
static void app_snap_answer(pid_t to, uint64_t request, const char *result, uint64_t messages,
			    const char *file, const char *msg)
{
	struct app_snapstate a = {.request = request, .messages = messages};
	snprintf(a.result, sizeof a.result, "%s", result);
	snprintf(a.file, sizeof a.file, "%s", file);
	snprintf(a.message, sizeof a.message, "%s", msg);
	struct bt_error e = {0};
	if (app_snapfile_answer_write(to, &a, &e) != BT_OK)
		bt_log_warn("answer to `bagtop snapshot` (process %ld): %s", (long)to, e.msg);
}

void app_run_snap_request(struct app_run *run, pid_t from, uint64_t request)
{
	uint64_t id = 0;
	enum rec_trigger t = app_snap_start(run, &id);
	if (t != REC_TRIGGER_STARTED) {
		app_snap_answer(from, request, app_trigger_results[t], 0, "", rec_trigger_str(t));
		app_run_snap_publish(run, app_trigger_results[t], rec_trigger_str(t));
	} else if (run->n_reqs < APP_SNAP_REQ_MAX) {
		run->reqs[run->n_reqs++] = (struct app_snap_req){from, request, id};
	} else { /* it is written all the same; this requester is not told where */
		app_snap_answer(from, request, "failed", 0, "",
				"snapshot started, but too many requests are waiting to be "
				"answered");
	}
}

/* Answers the requests that started snapshot `d->id` (or an earlier one,
 * which no report will come for). */
static void app_snap_answer_done(struct app_run *run, const struct rec_snapshot_done *d,
				 const char *msg)
{
	size_t kept = 0;
	for (size_t i = 0; i < run->n_reqs; i++) {
		struct app_snap_req *q = &run->reqs[i];
		if (q->id > d->id) {
			run->reqs[kept++] = *q;
			continue;
		}
		bool ok = q->id == d->id && d->status == BT_OK;
		app_snap_answer(q->pid, q->request, ok ? "ok" : "failed", ok ? d->messages : 0,
				q->id == d->id ? run->snap.file : "",
				q->id == d->id ? msg : "snapshot not reported");
	}
	run->n_reqs = kept;
}

/* The writer thread finished a snapshot: hand it to the run loop. */
void app_run_on_snapshot(void *ctx, const struct rec_snapshot_done *d)
{
	struct app_run *run = ctx;
	pthread_mutex_lock(&run->done_mu);
	if (run->n_done == APP_SNAP_DONE_MAX) { /* the oldest's requests: "not reported" */
		memmove(run->done, run->done + 1, (APP_SNAP_DONE_MAX - 1) * sizeof *run->done);
		run->n_done--;
	}
	run->done[run->n_done++] = *d;
	pthread_mutex_unlock(&run->done_mu);
	kill(getpid(), SIGUSR2); /* blocked everywhere: the run loop takes it */
}

static bool app_snap_done_pop(struct app_run *run, struct rec_snapshot_done *d)
{
	pthread_mutex_lock(&run->done_mu);
	bool any = run->n_done > 0;
	if (any) {
		*d = run->done[0];
		memmove(run->done, run->done + 1, --run->n_done * sizeof *run->done);
	}
	pthread_mutex_unlock(&run->done_mu);
	return any;
}

static void app_snap_report(struct app_run *run, const struct rec_snapshot_done *d)
{
	run->snap_count += d->status == BT_OK;
	char msg[sizeof run->snap.message];
	if (d->status == BT_OK)
		snprintf(msg, sizeof msg, "snapshot %llu: %llu message%s written to %s/%s",
			 (unsigned long long)d->id, (unsigned long long)d->messages,
			 bt_fmt_s(d->messages), run->bag, d->file);
	else
		snprintf(msg, sizeof msg, "snapshot %llu failed: %s", (unsigned long long)d->id,
			 bt_status_str(d->status));
	app_run_say(run, d->status == BT_OK ? TUI_SEV_INFO : TUI_SEV_ERROR, "%s", msg);
	if (d->coverage[0] != '\0') /* memory ran out inside some topic's window */
		app_run_say(run, TUI_SEV_WARN, "snapshot %llu: windows cut short by memory: %s",
			    (unsigned long long)d->id, d->coverage);
	run->snap.messages = d->messages;
	/* `bagtop snapshot` runs elsewhere: give it an absolute path. */
	char *rel = bt_xasprintf("%s/%s", run->bag, d->file);
	char *abs = realpath(rel, NULL);
	snprintf(run->snap.file, sizeof run->snap.file, "%s", abs != NULL ? abs : rel);
	free(abs);
	free(rel);
	app_snap_answer_done(run, d, msg);
	app_run_snap_publish(run, d->status == BT_OK ? "ok" : "failed", msg);
}

/* SIGUSR2: report the finished snapshots, oldest first. */
void app_run_snap_done(struct app_run *run)
{
	struct rec_snapshot_done d;
	while (app_snap_done_pop(run, &d))
		app_snap_report(run, &d);
}

/* ---- pause and resume ---- */

static void app_state_publish(struct app_run *run)
{
	struct bt_error e = {0};
	if (app_snapfile_write(&run->snap, &e) != BT_OK)
		bt_log_warn("state for `bagtop pause` and `bagtop resume`: %s", e.msg);
}

void app_run_set_paused(struct app_run *run, bool paused, pid_t from)
{
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	rec_recorder_pause(run->rec, paused);
	char by[48] = "";
	if (from > 0 && from != getpid())
		snprintf(by, sizeof by, " (asked by process %ld)", (long)from);
	if (st.paused == paused)
		app_run_say(run, TUI_SEV_INFO, "recording already %s%s",
			    paused ? "paused" : "running", by);
	else
		app_run_say(run, TUI_SEV_INFO, "recording %s%s", paused ? "paused" : "resumed", by);
	run->snap.paused = paused;
	run->snap.pause_seq++;
	app_state_publish(run);
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
	if (sig == SIGUSR1)
		app_run_snap_trigger(run);
	else if (sig == APP_SIG_SNAPSHOT)
		app_run_snap_request(run, si.si_pid, (uint64_t)(unsigned)si.si_value.sival_int);
	else if (sig == SIGUSR2)
		app_run_snap_done(run);
	else if (sig == APP_SIG_PAUSE || sig == APP_SIG_RESUME)
		app_run_set_paused(run, sig == APP_SIG_PAUSE, si.si_pid);
	else if (sig > 0)
		return sig;
	return 0;
}
