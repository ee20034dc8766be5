/* bt_cmdq — a bounded, thread-safe queue of commands, each with exactly one
 * result: the one path every control source (keys, signals, `bagtop
 * snapshot|pause|resume --pid`, DDS services) takes to an engine. The
 * mechanism is generic: the command kinds and what they do are the user's
 * (the recorder's: rec_cmd.h; the player's likewise).
 *
 * Submitters (any thread) call bt_cmdq_submit, or bt_cmdq_call to wait for
 * the result. A submission never blocks beyond a short critical section that
 * only copies the command: when `capacity` commands are outstanding the new
 * one is refused at once (BT_ERR_FULL) and counted (stats.refused_full), so
 * a flood of requests never slows anyone, least of all the data path.
 *
 * One consumer thread (the engine's command owner) takes commands in
 * submission order with bt_cmdq_take and delivers each one's result with
 * bt_cmdq_finish, at once or later (a snapshot's result is the file written,
 * known only when the writer has finished it): a command is "outstanding"
 * from submit until finish, and counts against `capacity` all that time.
 * The result goes to whoever asked: the submitter's callback (called on the
 * finishing thread, with no lock held: it must not block for long) or the
 * waiter in bt_cmdq_call; a waiter that timed out no longer gets it (nor
 * does anyone: the command still ran).
 *
 * bt_cmdq_close refuses further submissions with the given reason; the
 * commands already queued are still taken (and so said) by the consumer.
 * bt_cmdq_free finishes any left as refused ("shutting down"), so every
 * submitter gets exactly one result.
 *
 * Lock: one mutex per queue, never held while a callback runs or across
 * I/O; two condition variables (consumer: work arrived; waiters: a result
 * arrived). */
#ifndef BT_CMDQ_H
#define BT_CMDQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

#define BT_CMDQ_CAPACITY_DEFAULT 64
#define BT_CMD_DETAIL_MAX 96   /* an origin's detail, e.g. "SIGUSR1 from pid 123" */
#define BT_CMD_REASON_MAX 256  /* a result's reason or note */
#define BT_CMD_FILE_MAX 4096   /* a result's file (an absolute path) */
#define BT_CMD_TEXT_MAX 1280   /* a command's text argument */

/* Where a command came from: said with its result in the event log and
 * --log-file. */
enum bt_cmd_origin_kind {
	BT_CMD_FROM_INTERNAL = 0, /* the engine itself (e.g. quit with a snapshot) */
	BT_CMD_FROM_KEY,          /* the live view's or a headless recording's keys */
	BT_CMD_FROM_SIGNAL,       /* kill -USR1, APP_SIG_PAUSE / APP_SIG_RESUME */
	BT_CMD_FROM_PIDCMD,       /* `bagtop snapshot|pause|resume --pid` */
	BT_CMD_FROM_SERVICE,      /* a DDS service request (~/snapshot, …) */
};

struct bt_cmd_origin {
	enum bt_cmd_origin_kind kind;
	long pid; /* the requesting process (signal, pidcmd), else 0 */
	/* What to say after the kind, free text: "s" (key), "SIGUSR1 from pid
	 * 123", "/rosbag2_recorder/snapshot from client 01.0f.…". "" = none. */
	char detail[BT_CMD_DETAIL_MAX];
};

/* One command. `kind` and the arguments mean what the user's kinds say
 * (rec_cmd.h). */
struct bt_cmd {
	int kind;
	uint64_t arg[2]; /* e.g. topic index and depth; a count; a time in ns */
	double real;     /* e.g. a rate */
	char text[BT_CMD_TEXT_MAX]; /* a text argument as the kind says (NUL-terminated) */
	struct bt_cmd_origin origin;
	uint64_t tag;    /* the submitter's own (e.g. a request number); not read */
};

enum bt_cmd_outcome {
	BT_CMD_DONE = 0, /* done; `file`/`value` as the kind says */
	BT_CMD_REFUSED,  /* not done, `reason` says why (already paused, queue full, …) */
	BT_CMD_FAILED,   /* tried and failed, `reason` says how */
};

struct bt_cmd_result {
	enum bt_cmd_outcome outcome;
	char reason[BT_CMD_REASON_MAX]; /* refused/failed: why; done: a note or "" */
	char file[BT_CMD_FILE_MAX];     /* the file written (snapshot), or "" */
	int64_t value;                  /* a query's answer (is_paused: 1/0), a count */
	uint64_t messages;              /* messages in `file` */
};

/* The result's submitter callback: called exactly once (on the thread that
 * finishes the command, no lock held; or on the submitting thread if
 * refused at submit), with the command as submitted. Must not block long. */
typedef void (*bt_cmd_done_fn)(void *ctx, const struct bt_cmd *cmd,
			       const struct bt_cmd_result *res);

struct bt_cmdq_stats {
	uint64_t submitted;    /* accepted */
	uint64_t refused_full; /* refused at submit: `capacity` outstanding */
	uint64_t refused_closed; /* refused at submit: closed */
	uint64_t done, refused, failed; /* finished, by outcome */
	uint64_t abandoned;    /* results no one waited for any longer */
	size_t outstanding;    /* now: submitted, not finished */
	size_t high_water;     /* most outstanding at once */
};

struct bt_cmdq;

/* A queue of `capacity` (> 0) outstanding commands. NULL only when out of
 * memory. */
struct bt_cmdq *bt_cmdq_new(size_t capacity);
/* Finishes whatever is outstanding as refused ("shutting down"), then
 * frees. No submitter or consumer may use it any longer. NULL: no-op. */
void bt_cmdq_free(struct bt_cmdq *q);

/* ---- submitters: any thread ---- */

/* Queues a copy of *cmd; `done` (may be NULL: fire and forget) gets the
 * result. BT_OK: accepted, *ticket (may be NULL) names it. BT_ERR_FULL
 * (counted) or BT_ERR_STATE (closed): refused at once, and `done` has
 * already been called with the refusal. Never waits for the consumer. */
BT_MUST_CHECK bt_status bt_cmdq_submit(struct bt_cmdq *q, const struct bt_cmd *cmd,
				       bt_cmd_done_fn done, void *ctx, uint64_t *ticket);
/* Submits and waits up to timeout_ns for the result, into *res. BT_OK: *res
 * is the result (whatever its outcome). BT_ERR_FULL / BT_ERR_STATE: refused
 * at submit (*res says why). BT_ERR_NOTFOUND: no result within the
 * timeout (*res says so; the command may still run, its result is
 * dropped and counted in `abandoned`). Do not call it from the consumer. */
BT_MUST_CHECK bt_status bt_cmdq_call(struct bt_cmdq *q, const struct bt_cmd *cmd,
				     int64_t timeout_ns, struct bt_cmd_result *res);
/* Counters now (any thread). */
void bt_cmdq_get_stats(struct bt_cmdq *q, struct bt_cmdq_stats *st);

/* ---- the consumer: one thread ---- */

/* Waits up to timeout_ns (0: not at all) for the next command not yet
 * taken, oldest first. true: *cmd and *ticket filled, the command is the
 * caller's to finish. false: none (timeout, bt_cmdq_wake, or closed and
 * empty). */
bool bt_cmdq_take(struct bt_cmdq *q, int64_t timeout_ns, struct bt_cmd *cmd, uint64_t *ticket);
/* Delivers the result of taken command `ticket` (now or later, from any
 * thread, once). Unknown tickets are ignored. */
void bt_cmdq_finish(struct bt_cmdq *q, uint64_t ticket, const struct bt_cmd_result *res);
/* Makes a bt_cmdq_take under way return (any thread): the consumer has
 * something else to see to (a snapshot finished, a stop). */
void bt_cmdq_wake(struct bt_cmdq *q);
/* Refuses every later submission with `reason` (e.g. "recording has
 * stopped"); what is queued is still taken. Any thread; the first reason
 * stays. */
void bt_cmdq_close(struct bt_cmdq *q, const char *reason);

/* ---- helpers ---- */

/* Fills *res: outcome and reason (printf), file and value cleared. */
void bt_cmd_result_set(struct bt_cmd_result *res, enum bt_cmd_outcome o, const char *fmt, ...)
	BT_PRINTF(3, 4);
/* "key s", "signal SIGUSR1 from pid 123", "bagtop snapshot --pid (pid
 * 123)", "service /x/snapshot from client …", "internal" into out. */
void bt_cmd_origin_str(const struct bt_cmd_origin *o, char *out, size_t cap);
/* One line for the logs: the result, then the origin in parentheses:
 * done: its reason ("recording paused (key p)"), else "<what>: wrote FILE
 * (N messages)" or "<what> done"; "<what> refused: <reason> (…)", "<what>
 * failed: <reason> (…)". `what` is the kind's name ("snapshot"). */
void bt_cmd_line(const char *what, const struct bt_cmd *cmd, const struct bt_cmd_result *res,
		 char *out, size_t cap);

#endif
