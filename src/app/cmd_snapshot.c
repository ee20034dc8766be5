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
#include "rec_snapwin.h"
#include "bt_parse.h"
#include "bt_time.h"
#include "rec_cmd.h"

enum {
	SNAP_O_BEFORE = APP_PIDCMD_O_TIMEOUT + 1,
	SNAP_O_AFTER,
	SNAP_O_TOPICS,
	SNAP_O_EXCLUDE,
	SNAP_O_NAME
};

extern const struct app_cmd app_cmd_snapshot;

static const struct app_opt snapshot_opts[] = {
	{"pid", 'p', "PID", "the recorder's process id (required)", APP_PIDCMD_O_PID},
	{"timeout", 0, "SECONDS", "give up after SECONDS (default 60)", APP_PIDCMD_O_TIMEOUT},
	{"before", 0, "SECONDS", "at most SECONDS before the trigger (narrows each topic's window)",
	 SNAP_O_BEFORE},
	{"after", 0, "SECONDS", "at most SECONDS after the trigger (narrows each topic's window)",
	 SNAP_O_AFTER},
	{"topics", 0, "LIST", "only these topics (comma-separated, recorded or DDS names)",
	 SNAP_O_TOPICS},
	{"exclude", 0, "LIST", "not these topics (comma-separated, recorded or DDS names)",
	 SNAP_O_EXCLUDE},
	{"name", 0, "NAME", "name the snapshot's file NAME plus the storage's extension "
	 "(NAME_2, ... when taken)", SNAP_O_NAME},
};

/* A list option's value: comma-separated names, no newline. */
static int snapshot_list(const struct app_cmd *cmd, const char *opt, const char *arg,
			 char *out, size_t cap)
{
	if (arg[0] == '\0' || !rec_cmd_snap_list_valid(arg) || strlen(arg) >= cap)
		return app_usage_error(cmd, "%s wants a comma-separated list of topic names (at "
				       "most %zu bytes), got '%s'", opt, cap - 1, arg);
	snprintf(out, cap, "%s", arg);
	return 0;
}

int app_snapshot_param(const struct app_cmd *cmd, const char *lng, const char *arg,
		       struct rec_cmd_snap *p)
{
	bool before = strcmp(lng, "before") == 0;
	if (before || strcmp(lng, "after") == 0) {
		int64_t ns;
		if (bt_parse_seconds(arg, &ns) != BT_OK || ns > REC_SNAPWIN_MAX_NS)
			return app_usage_error(cmd, "--%s wants seconds from 0 to 86400, got '%s'",
					       lng, arg);
		*(before ? &p->before_ns : &p->after_ns) = ns;
		return 0;
	}
	if (strcmp(lng, "name") == 0) {
		if (!rec_cmd_snap_name_valid(arg))
			return app_usage_error(cmd, "--name wants a file name without '/' or control "
					       "characters, not '.' or '..', 1 to %d bytes",
					       REC_CMD_SNAP_NAME_MAX - 1);
		snprintf(p->name, sizeof p->name, "%s", arg);
		return 0;
	}
	if (strcmp(lng, "topics") == 0)
		return snapshot_list(cmd, "--topics", arg, p->topics, sizeof p->topics);
	return snapshot_list(cmd, "--exclude", arg, p->exclude, sizeof p->exclude);
}

/* --before, --after, --topics, --exclude, --name into the rec_cmd_snap ctx. */
static int snapshot_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	return app_snapshot_param(&app_cmd_snapshot, o->lng, arg, ctx);
}

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
	struct rec_cmd_snap p = {.before_ns = -1, .after_ns = -1};
	struct app_pidcmd a = {.timeout_ns = INT64_C(60) * 1000000000, snapshot_opt, &p};
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
	bool has_params = p.before_ns >= 0 || p.after_ns >= 0 || p.topics[0] || p.exclude[0] ||
			  p.name[0];
	if ((has_params && !st.params) || (p.name[0] && !st.names)) {
		app_error("process %ld takes no snapshot %s: an older bagtop", a.pid,
			  st.params ? "--name" : "parameters (--before, --after, --topics, --exclude, "
						 "--name)");
		return APP_EXIT_ERROR;
	}
	if (st.requests) {
		request = ((uint64_t)bt_time_realtime_ns() & 0x7ffffffe) | 1u;
		/* The parameters first: the signal's arrival is when they are read. */
		if (has_params && app_snapfile_request_write((pid_t)a.pid, request, &p, &err) != BT_OK) {
			app_error("%s", err.msg);
			return APP_EXIT_ERROR;
		}
		union sigval v = {.sival_int = (int)request};
		sent = sigqueue((pid_t)a.pid, APP_SIG_SNAPSHOT, v);
	} else {
		sent = kill((pid_t)a.pid, SIGUSR1);
	}
	if (sent != 0) {
		app_error("cannot signal process %ld: %s", a.pid, strerror(errno));
		app_snapfile_request_remove((pid_t)a.pid);
		return APP_EXIT_ERROR;
	}
	rc = snapshot_wait(&a, request, st.seq);
	app_snapfile_request_remove((pid_t)a.pid); /* not taken: the recorder stopped */
	return rc;
}

const struct app_cmd app_cmd_snapshot = {
	"snapshot", "--pid PID",
	"Make a `bagtop record --snapshot-mode` process write a snapshot.",
	"\nSignals PID and waits until the snapshot file is complete, then prints\n"
	"its path. Exits non-zero, with the recorder's reason, when no snapshot\n"
	"was written for this request (nothing buffered, another one still being\n"
	"written and no --queue-triggers, not in snapshot mode, the process\n"
	"stopped). Requests made at the same time each get their own answer.\n"
	"\n--before, --after, --topics and --exclude narrow this snapshot only:\n"
	"a topic's window becomes at most --before seconds before the trigger and\n"
	"--after seconds after it (never wider than configured); a topic left\n"
	"out keeps its messages buffered for the next snapshot.\n"
	"\n--name NAME writes the snapshot to NAME.db3 (NAME.mcap, ...) in the bag\n"
	"directory instead of the next numbered file; never overwriting: when\n"
	"that file exists, the first free NAME_2, NAME_3, ... The path printed\n"
	"is the one used.\n",
	snapshot_opts, sizeof snapshot_opts / sizeof snapshot_opts[0], snapshot_run};
