/* app_pidcmd — what `bagtop snapshot`, `bagtop pause` and `bagtop resume`
 * share: they take --pid PID and --timeout SECONDS, signal a running
 * `bagtop record`, and wait for its answer in its state file
 * (app_snapfile.h). */
#ifndef APP_PIDCMD_H
#define APP_PIDCMD_H

#include <stdint.h>
#include <sys/types.h>

#include "app.h"
#include "app_snapfile.h"
#include "bt_status.h"

/* Option ids for a command's table of --pid and --timeout. */
enum { APP_PIDCMD_O_PID = 1, APP_PIDCMD_O_TIMEOUT };

struct app_pidcmd {
	long pid;
	int64_t timeout_ns; /* set to the command's default before parsing */
	/* The command's own options (ids other than APP_PIDCMD_O_*); NULL: none. */
	app_opt_fn more;
	void *more_ctx;
};

/* Parses argv: 0 with *a filled, -1 after --help, or a usage exit status
 * (no operands; --pid is required). */
int app_pidcmd_parse(const struct app_cmd *cmd, int argc, char **argv, struct app_pidcmd *a);

/* Which counter of the state file answers the request. */
enum app_pidcmd_counter { APP_PIDCMD_SNAPSHOTS, APP_PIDCMD_PAUSES };

/* Polls the state file of a->pid every 20 ms until `counter` passes
 * `seq0`: BT_OK with *st read; BT_ERR_NOTFOUND when the process went away
 * first; BT_ERR_STATE when a->timeout_ns passed. */
BT_MUST_CHECK bt_status app_pidcmd_await(const struct app_pidcmd *a,
					 enum app_pidcmd_counter counter, uint64_t seq0,
					 struct app_snapstate *st);

/* Polls every 20 ms for the recorder's answer to request number
 * `request` (app_snapfile_answer_take): BT_OK with *st read; BT_ERR_NOTFOUND
 * when the process went away first; BT_ERR_STATE when a->timeout_ns
 * passed. */
BT_MUST_CHECK bt_status app_pidcmd_await_answer(const struct app_pidcmd *a, uint64_t request,
						struct app_snapstate *st);

#endif
