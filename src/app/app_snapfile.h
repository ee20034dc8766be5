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
 *   requests 1         it answers APP_SIG_SNAPSHOT requests (below)
 *
 * and removes it at exit. Readers ignore keys they do not know, so the
 * magic stays at 1. `starttime` tells a stale file (its recorder was
 * killed and the pid reused) from a live one: no signal goes to a process
 * that is not the recorder that wrote the file.
 *
 * Two `bagtop snapshot` at once must each get their own answer: SIGUSR1s
 * sent together merge into one, and both would read the one outcome the
 * state file then holds. So `bagtop snapshot` sends APP_SIG_SNAPSHOT, a
 * real-time signal (queued, one per request) carrying a request number
 * (sigqueue); the recorder knows the requester's pid (si_pid) and answers
 * in a file of that requester's own, next to the state file
 * (app_snapfile_answer_path), in the same format, with `request N`: the
 * outcome of this request's trigger ("busy" only when another snapshot was
 * being written at that moment), or, once written, the snapshot's file.
 * The requester removes it. SIGUSR1 (kill -USR1) stays as
 * it was: answered through the state file's seq.
 *
 * A request's parameters (`bagtop snapshot --before --after --topics
 * --exclude --name`; a signal carries only an int) travel in a request file of
 * the requester's own, written atomically BEFORE the signal is sent:
 * "bagtop-REC.snapreq-REQ" next to the state file (app_snapfile_request_*),
 * holding the request number. The recorder takes (reads and removes) it
 * when the signal with that number arrives; a file with another number (left
 * by an earlier process with this pid) is ignored. One file per requester
 * and a requester sends one request at a time, so concurrent requesters
 * never share a file. The state file says `params 1` when the recorder
 * reads them, and `names 1` when it also reads `name`: a requester with
 * parameters refuses an older recorder that would ignore them. */
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
#define APP_SIG_SNAPSHOT (SIGRTMIN + 3) /* sival_int: the request number */

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
	bool requests;      /* the recorder answers APP_SIG_SNAPSHOT */
	uint64_t request;   /* an answer's request number */
	bool params;        /* the recorder reads request files (above) */
	bool names;         /* … and their `name` */
};

/* Writes this process's request file for recorder `rec`: request number
 * `request` and its parameters (rec_cmd.h), atomically. */
struct rec_cmd_snap;
BT_MUST_CHECK bt_status app_snapfile_request_write(pid_t rec, uint64_t request,
						   const struct rec_cmd_snap *p,
						   struct bt_error *err);
/* The recorder: takes (reads and removes) requester `req`'s request file
 * when it is for request number `request`: BT_OK with *p filled; else
 * BT_ERR_NOTFOUND and *p as configured (no parameters). */
bt_status app_snapfile_request_take(pid_t req, uint64_t request, struct rec_cmd_snap *p);
/* The requester: removes its request file (after the answer, or when the
 * signal could not be sent). */
void app_snapfile_request_remove(pid_t rec);

/* The state file path for `pid` in directory `dir` (NULL: the writer's
 * choice, $XDG_RUNTIME_DIR or /tmp). */
void app_snapfile_path(pid_t pid, const char *dir, char *out, size_t cap);
/* Start time of process `pid` (/proc/PID/stat), 0 when unknown. */
uint64_t app_snapfile_starttime(pid_t pid);
/* Writes the state of this process atomically (starttime filled in). */
BT_MUST_CHECK bt_status app_snapfile_write(const struct app_snapstate *s, struct bt_error *err);
void app_snapfile_remove(void);
/* The answer file for requester `req` of recorder `rec` in `dir` (NULL:
 * the writer's choice, as for the state file). */
void app_snapfile_answer_path(pid_t rec, pid_t req, const char *dir, char *out, size_t cap);
/* Writes the answer to requester `req` atomically (this process is the
 * recorder). */
BT_MUST_CHECK bt_status app_snapfile_answer_write(pid_t req, const struct app_snapstate *s,
						  struct bt_error *err);
/* Reads and removes this process's answer from recorder `rec` when its
 * request number is `request`: BT_OK; BT_ERR_NOTFOUND when there is none
 * (yet); an answer to another request (left from an earlier process with
 * this pid) is removed. */
BT_MUST_CHECK bt_status app_snapfile_answer_take(pid_t rec, uint64_t request,
						 struct app_snapstate *s);
/* Reads `pid`'s state, looking in $XDG_RUNTIME_DIR then /tmp.
 * BT_ERR_NOTFOUND when there is none or it is stale (`pid` is another
 * process now); BT_ERR_FORMAT when unreadable. */
BT_MUST_CHECK bt_status app_snapfile_read(pid_t pid, struct app_snapstate *s,
					  struct bt_error *err);

#endif
