/* bagtop snapshot: asks a `bagtop record --snapshot-mode` process to write
 * a snapshot (SIGUSR1) and waits until the file is complete. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "app_snapfile.h"
#include "bt_parse.h"
#include "bt_time.h"

#define SNAPSHOT_POLL_NS 50000000L

enum { SNAP_O_PID = 1, SNAP_O_TIMEOUT };

static const struct app_opt snapshot_opts[] = {
	{"pid", 'p', "PID", "the bagtop record process (required)", SNAP_O_PID},
	{"timeout", 0, "SECONDS", "give up after SECONDS (default 60)", SNAP_O_TIMEOUT},
};

struct snapshot_ctx {
	const struct app_cmd *cmd;
	long pid;
	int64_t timeout_ns;
};

static int snapshot_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct snapshot_ctx *s = ctx;
	uint64_t u;
	if (o->id == SNAP_O_PID) {
		if (bt_parse_u64(arg, 1, 4194304, &u) != BT_OK)
			return app_usage_error(s->cmd, "--pid wants a process id, got '%s'", arg);
		s->pid = (long)u;
		return 0;
	}
	if (bt_parse_seconds(arg, &s->timeout_ns) != BT_OK || s->timeout_ns <= 0)
		return app_usage_error(s->cmd, "--timeout wants seconds above 0, got '%s'", arg);
	return 0;
}

/* Polls the state file until its seq passes `seq0`. */
static int snapshot_wait(const struct snapshot_ctx *s, uint64_t seq0)
{
	int64_t end = bt_time_monotonic_ns() + s->timeout_ns;
	struct app_snapstate st;
	struct bt_error err = {0};
	for (;;) {
		struct timespec ts = {0, SNAPSHOT_POLL_NS};
		nanosleep(&ts, NULL);
		bt_status rc = app_snapfile_read((pid_t)s->pid, &st, &err);
		if (rc == BT_OK && st.seq > seq0)
			break;
		if (rc == BT_ERR_NOTFOUND || kill((pid_t)s->pid, 0) != 0) {
			app_error("process %ld stopped before the snapshot was reported", s->pid);
			return APP_EXIT_ERROR;
		}
		if (bt_time_monotonic_ns() > end) {
			app_error("no snapshot from process %ld within the timeout", s->pid);
			return APP_EXIT_ERROR;
		}
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
	struct snapshot_ctx s = {.cmd = cmd, .timeout_ns = INT64_C(60) * 1000000000};
	int first;
	int rc = app_opts_parse(cmd, argc, argv, snapshot_opt, &s, &first);
	if (rc != 0)
		return rc < 0 ? APP_EXIT_OK : rc;
	if (first < argc)
		return app_usage_error(cmd, "unexpected argument '%s'", argv[first]);
	if (s.pid == 0)
		return app_usage_error(cmd, "--pid PID is required");
	struct app_snapstate st;
	struct bt_error err = {0};
	if (app_snapfile_read((pid_t)s.pid, &st, &err) != BT_OK || kill((pid_t)s.pid, 0) != 0) {
		app_error("%s", err.msg[0] ? err.msg : "no such process");
		return APP_EXIT_ERROR;
	}
	if (kill((pid_t)s.pid, SIGUSR1) != 0) {
		app_error("cannot signal process %ld: %s", s.pid, strerror(errno));
		return APP_EXIT_ERROR;
	}
	return snapshot_wait(&s, st.seq);
}

const struct app_cmd app_cmd_snapshot = {
	"snapshot", "--pid PID",
	"Make a `bagtop record --snapshot-mode` process write a snapshot.",
	"\nSends SIGUSR1 to PID and waits until the snapshot file is complete, then\n"
	"prints its path. Exits non-zero, with the recorder's reason, when no\n"
	"snapshot was written (nothing buffered, one still being written, not in\n"
	"snapshot mode, the process stopped).\n",
	snapshot_opts, sizeof snapshot_opts / sizeof snapshot_opts[0], snapshot_run};
