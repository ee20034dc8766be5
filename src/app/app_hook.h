/* app_hook — --on-file-closed: runs a command for each finished bag file,
 * through /bin/sh -c, at most `jobs` at once, the rest queued, on a thread
 * of its own ("app-hook") so that neither capture nor the writer ever
 * waits for it. Each command's exit status and stderr go to the log
 * (bt_log: the live view's log, --log-file, headless stderr for failures).
 *
 * Environment of the command: BAGTOP_FILE (absolute path of the file),
 * BAGTOP_BAG (absolute path of the bag directory), BAGTOP_REASON (split,
 * snapshot, close), BAGTOP_MESSAGES, BAGTOP_BYTES (the file's size). stdin
 * and stdout are /dev/null; the command runs in a process group of its own
 * with default signal handling and none of bagtop's descriptors.
 *
 * Threads: start, finish and free from the owner; app_hook_file_closed
 * from any thread (the writer's), never blocking. */
#ifndef APP_HOOK_H
#define APP_HOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_buf.h"
#include "bt_status.h"

#define APP_HOOK_QUEUE_MAX 1024 /* commands waiting; beyond, a file gets none */
#define APP_HOOK_JOBS_MAX 64

struct app_hook_options {
	const char *cmd;    /* run through /bin/sh -c */
	unsigned jobs;      /* at most this many at once, 1..APP_HOOK_JOBS_MAX */
	const char *bag;    /* the bag directory (made absolute once it exists) */
};

struct app_hook;

/* Starts the runner thread. BT_ERR_STATE (with the reason) when it
 * cannot. */
BT_MUST_CHECK bt_status app_hook_start(const struct app_hook_options *opt, struct app_hook **out,
				       struct bt_error *err);
/* Queues the command for a finished file (`ok` false: its close failed,
 * so a log line says it gets none). Any thread; never blocks; a full
 * queue drops the command with a warning. */
void app_hook_file_closed(struct app_hook *h, const char *path, const char *reason,
			  uint64_t messages, bool ok);
/* Commands running or waiting now. */
size_t app_hook_pending(struct app_hook *h);
/* Waits up to timeout_ns for the queued and running commands to end, then
 * kills those still running (SIGKILL to their process group) and drops the
 * queued ones. Appends to `out` one line per command killed or never run
 * (none: nothing appended). Idempotent; later calls append nothing. */
void app_hook_finish(struct app_hook *h, int64_t timeout_ns, struct bt_buf *out);
/* Finishes at once (no wait) if needed, joins the thread, frees. NULL ok. */
void app_hook_free(struct app_hook *h);

#endif
