/* bagtop snapshot: asks a `bagtop record --snapshot-mode` process to write
 * a snapshot (SIGUSR1) and waits until the file is complete. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_pidcmd.h"

static const struct app_opt snapshot_opts[] = {
	{"pid", 'p', "PID", "the recorder's process id (required)", APP_PIDCMD_O_PID},
	{"timeout", 0, "SECONDS", "give up after SECONDS (default 60)", APP_PIDCMD_O_TIMEOUT},
};

/* Waits until the state file reports an outcome after `seq0`. */
static int snapshot_wait(const struct app_pidcmd *a, uint64_t seq0)
{
	struct app_snapstate st;
	bt_status rc = app_pidcmd_await(a, APP_PIDCMD_SNAPSHOTS, seq0, &st);
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
	if (kill((pid_t)a.pid, SIGUSR1) != 0) {
		app_error("cannot signal process %ld: %s", a.pid, strerror(errno));
		return APP_EXIT_ERROR;
	}
	return snapshot_wait(&a, st.seq);
}

const struct app_cmd app_cmd_snapshot = {
	"snapshot", "--pid PID",
	"Make a `bagtop record --snapshot-mode` process write a snapshot.",
	"\nSends SIGUSR1 to PID and waits until the snapshot file is complete, then\n"
	"prints its path. Exits non-zero, with the recorder's reason, when no\n"
	"snapshot was written (nothing buffered, one still being written, not in\n"
	"snapshot mode, the process stopped).\n",
	snapshot_opts, sizeof snapshot_opts / sizeof snapshot_opts[0], snapshot_run};
