/* app_snapfile — how `bagtop snapshot --pid PID` learns what a recorder did
 * with its SIGUSR1. The recorder keeps a small state file, named after its
 * pid in $XDG_RUNTIME_DIR (when set) or /tmp, rewritten atomically at start
 * and after every trigger's outcome:
 *
 *   bagtop-snapshot 1
 *   seq N              outcomes so far (0 at start)
 *   result R           ok | empty | busy | stopping | not-snapshot | failed
 *   messages M         in the snapshot file (ok)
 *   file PATH          the snapshot's storage file (ok, failed)
 *   message TEXT       one line for the user
 *
 * and removes it at exit. */
#ifndef APP_SNAPFILE_H
#define APP_SNAPFILE_H

#include <stdint.h>
#include <sys/types.h>

#include "bt_status.h"

#define APP_SNAPFILE_PATH_MAX 4096

struct app_snapstate {
	uint64_t seq;
	char result[32];
	uint64_t messages;
	char file[APP_SNAPFILE_PATH_MAX];
	char message[512];
};

/* The state file path for `pid` in directory `dir` (NULL: the writer's
 * choice, $XDG_RUNTIME_DIR or /tmp). */
void app_snapfile_path(pid_t pid, const char *dir, char *out, size_t cap);
/* Writes the state of this process atomically. */
BT_MUST_CHECK bt_status app_snapfile_write(const struct app_snapstate *s, struct bt_error *err);
void app_snapfile_remove(void);
/* Reads `pid`'s state, looking in $XDG_RUNTIME_DIR then /tmp.
 * BT_ERR_NOTFOUND when there is none; BT_ERR_FORMAT when unreadable. */
BT_MUST_CHECK bt_status app_snapfile_read(pid_t pid, struct app_snapstate *s,
					  struct bt_error *err);

#endif
