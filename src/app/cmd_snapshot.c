/* bagtop snapshot: asks a `bagtop record --snapshot-mode` process to write
 * a snapshot and waits until the file is complete: a request of its own
 * (APP_SIG_SNAPSHOT, answered to this process alone: app_snapfile.h), or
 * SIGUSR1 for a recorder that does not know requests. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_pidcmd.h"
#include "bt_time.h"

static const struct app_opt snapshot_opts[] = {
	{"pid", 'p', "PID", "the recorder's process id (required)", APP_PIDCMD_O_PID},
	{"timeout", 0, "SECONDS", "give up after SECONDS (default 60)", APP_PIDCMD_O_TIMEOUT},
};

/* Waits for the answer: to request number `request`, or (0) the state
 * file's next outcome after `seq0`. */
static int snapshot_wait(const struct app_pidcmd *a, uint64_t request, uint64_t seq0)
{
	struct app_snapstate st;
	bt_status rc = request != 0 ? app_pidcmd_await_answer(a, request, &st)
				    : app_pidcmd_await(a, APP_PIDCMD_SNAPSHOTS, seq0, &st);
	if (rc == BT_ERR_NOTFOUND) {
		app_error("process %ld stopped before the snapshot was reported", a->pid);
		return APP_EXIT_ERROR;
	}
	if (rc != BT_OK) {
		app_error("no snapshot from process %ld within the timeout", a->pid);
		return APP_EXIT_ERROR;
	}
	if (strcmp(st.result, "ok") != 0) {
		app_error("%s", st.message);
		return APP_EXIT_ERROR;
	}
	printf("%s\n", st.file);
	return APP_EXIT_OK;
}

static int snapshot_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct app_pidcmd a = {.timeout_ns = INT64_C(60) * 1000000000};
	int rc = app_pidcmd_parse(cmd, argc, argv, &a);
	if (rc != 0)
		return rc < 0 ? APP_EXIT_OK : rc;
	struct app_snapstate st;
	struct bt_error err = {0};
	if (app_snapfile_read((pid_t)a.pid, &st, &err) != BT_OK || kill((pid_t)a.pid, 0) != 0) {
		app_error("%s", err.msg[0] ? err.msg : "no such process");
		return APP_EXIT_ERROR;
	}
	/* A number no other request of this pid had: the answer file is
	 * named after the pid, and one left from an earlier process with
	 * the same pid must not pass for ours. */
	uint64_t request = 0;
	int sent;
	if (st.requests) {
		request = ((uint64_t)bt_time_realtime_ns() & 0x7ffffffe) | 1u;
		union sigval v = {.sival_int = (int)request};
		sent = sigqueue((pid_t)a.pid, APP_SIG_SNAPSHOT, v);
	} else {
		sent = kill((pid_t)a.pid, SIGUSR1);
	}
	if (sent != 0) {
		app_error("cannot signal process %ld: %s", a.pid, strerror(errno));
		return APP_EXIT_ERROR;
	}
	return snapshot_wait(&a, request, st.seq);
}

const struct app_cmd app_cmd_snapshot = {
	"snapshot", "--pid PID",
	"Make a `bagtop record --snapshot-mode` process write a snapshot.",
	"\nSignals PID and waits until the snapshot file is complete, then prints\n"
	"its path. Exits non-zero, with the recorder's reason, when no snapshot\n"
	"was written for this request (nothing buffered, another one still being\n"
	"written, not in snapshot mode, the process stopped). Requests made at\n"
	"the same time each get their own answer.\n",
	snapshot_opts, sizeof snapshot_opts / sizeof snapshot_opts[0], snapshot_run};
