/* app_snapfile — how `bagtop snapshot --pid PID` learns what a recorder did
 * with its SIGUSR1, and `bagtop pause|resume --pid PID` with APP_SIG_PAUSE /
 * APP_SIG_RESUME. The recorder keeps a small state file, named after its
 * pid in $XDG_RUNTIME_DIR (when set) or /tmp, rewritten atomically at start,
 * after every trigger's outcome and after every pause or resume:
 *
 *   bagtop-snapshot 1
 *   seq N              snapshot outcomes so far (0 at start)
 *   result R           ok | empty | busy | stopping | not-snapshot | failed
 *   messages M         in the snapshot file (ok)
 *   file PATH          the snapshot's storage file (ok, failed)
 *   message TEXT       one line for the user
 *   pause_seq N        pause/resume requests handled so far (0 at start)
 *   paused 0|1         recording is paused now
 *   starttime T        the recorder's start time (/proc/PID/stat field 22)
 *
 * and removes it at exit. Readers ignore keys they do not know, so the
 * magic stays at 1. `starttime` tells a stale file (its recorder was
 * killed and the pid reused) from a live one: no signal goes to a process
 * that is not the recorder that wrote the file. */
#ifndef APP_SNAPFILE_H
#define APP_SNAPFILE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "bt_status.h"

#define APP_SNAPFILE_PATH_MAX 4096

/* Pause / resume requests: real-time signals, queued and apart from
 * SIGUSR1/SIGUSR2. SIGRTMIN itself is left to libraries that take one. */
#define APP_SIG_PAUSE (SIGRTMIN + 1)
#define APP_SIG_RESUME (SIGRTMIN + 2)

struct app_snapstate {
	uint64_t seq;
	char result[32];
	uint64_t messages;
	char file[APP_SNAPFILE_PATH_MAX];
	char message[512];
	uint64_t pause_seq;
	bool paused;
	bool has_pause; /* read: the file has pause_seq (a recorder that knows pause) */
	uint64_t starttime; /* 0: unknown */
};

/* The state file path for `pid` in directory `dir` (NULL: the writer's
 * choice, $XDG_RUNTIME_DIR or /tmp). */
void app_snapfile_path(pid_t pid, const char *dir, char *out, size_t cap);
/* Start time of process `pid` (/proc/PID/stat), 0 when unknown. */
uint64_t app_snapfile_starttime(pid_t pid);
/* Writes the state of this process atomically (starttime filled in). */
BT_MUST_CHECK bt_status app_snapfile_write(const struct app_snapstate *s, struct bt_error *err);
void app_snapfile_remove(void);
/* Reads `pid`'s state, looking in $XDG_RUNTIME_DIR then /tmp.
 * BT_ERR_NOTFOUND when there is none or it is stale (`pid` is another
 * process now); BT_ERR_FORMAT when unreadable. */
BT_MUST_CHECK bt_status app_snapfile_read(pid_t pid, struct app_snapstate *s,
					  struct bt_error *err);

#endif
