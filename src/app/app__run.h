/* app__run — one recording session, shared by the headless loop and the
 * live view (app_tui.c): the recorder, the signals, snapshot triggers and
 * reports, loss lines and the summary. Private to src/app. One file a job:
 *   app_run.c          the session: start, stop (and abandon), end, report
 *   app_run_log.c      the log sink and app_run_say: what is said, where
 *   app_run_headless.c the loop without the live view: status lines, stop
 *   app_run_loss.c     the loss and split announcer, the heap trim
 *   app_run_pidcmd.c   the signals: snapshot, pause and resume requests
 *                      (`bagtop snapshot|pause|resume`, kill -USR1) as
 *                      commands
 *   app_run_cmd.c      the command thread: the one consumer of the
 *                      recorder's command queue (rec_cmd.h), owner of the
 *                      snapshot and pause state and of the state file
 *
 * Threads: the owner (main) thread starts and stops the recorder; every
 * control source (keys, signals, `bagtop … --pid`, the DDS services)
 * submits commands to the queue, which the command thread ("app-cmd")
 * alone runs; the writer thread only calls app_run_on_snapshot (it stores
 * the report and wakes the command thread). Messages to the user go
 * through app_run_say from any of these threads. */
#ifndef APP__RUN_H
#define APP__RUN_H

#include <pthread.h>
#include <signal.h>
#include <termios.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "app_hook.h"
#include "app_record.h"
#include "app_snapfile.h"
#include "bt_cmdq.h"
#include "bt_time.h"
#include "rec_recorder.h"
#include "tui_events.h"


/* A snapshot command waiting for the snapshot it started. */
struct app_snap_req {
	struct bt_cmd cmd; /* as submitted: its origin, for its line */
	uint64_t ticket;   /* its result's (0: none) */
	uint64_t id;       /* the snapshot it started */
};

#define APP_SNAP_REQ_MAX 32

/* REC_CMD_SNAPSHOT_STOP waiting for the snapshot being written. */
struct app_snapstop {
	bool pending;
	uint64_t ticket;
	struct bt_cmd cmd;
	int64_t deadline; /* monotonic ns: trigger then, busy or not */
};

#define APP_SNAP_DONE_MAX 8 /* reports not yet taken; beyond, the oldest go */

struct app_run {
	/* The session (app_run.c); fixed after app_run_start. */
	struct rec_recorder *rec;
	const struct app_record_cfg *cfg;
	const char *bag;
	sigset_t sigs;     /* stop: SIGINT, SIGTERM, SIGHUP */
	sigset_t all_sigs; /* + SIGUSR1 (trigger) + APP_SIG_PAUSE /
			    * APP_SIG_RESUME + APP_SIG_SNAPSHOT */
	int64_t t0;        /* monotonic start */
	atomic_bool finished; /* the bag is complete */
	atomic_int_fast64_t stop_t0; /* monotonic ns the stop began; 0: not yet */
	atomic_bool abandoning;      /* app_run_abandon was called */
	atomic_int_fast64_t abandon_t0; /* monotonic ns it was; 0: not yet */
	/* Monotonic ns the last stop signal that counted was taken; 0: none
	 * (app_run_sig_echo; the thread that takes stop signals). */
	atomic_int_fast64_t stop_sig_t;
	/* The terminal as it was at the start (stdin a terminal): what a stop
	 * that gives up restores before it exits (app_run_give_up). */
	struct termios tty;
	bool tty_saved;
	/* The live view holds the terminal; its stderr is captured, and the
	 * real one is this fd (-1: fd 2). */
	atomic_bool screen_active;
	atomic_int real_stderr;
	/* What is said, where (app_run_log.c). */
	pthread_mutex_t say_mu;    /* guards `events` for app_run_say (not its I/O) */
	struct tui_events *events; /* live view: messages go there, else stdout */
	FILE *log;                 /* --log-file, or NULL */
	atomic_bool log_failed;    /* a write to it failed (said once) */
	/* The loss and split announcer (app_run_loss.c). */
	struct bag_losses *loss; /* by topic index: as the last loss line saw them */
	size_t n_loss;
	int64_t loss_t;    /* when the last loss line was said */
	size_t file_index; /* the storage file last said to be current */
	bool compat_said;  /* the "use --compat humble" hint was given */
	int64_t trim_t;    /* when app_run_trim last gave memory back */
	/* The command queue (rec_cmd.h): made before the recorder, freed
	 * after it; consumed by the command thread (app_run_cmd.c). */
	struct bt_cmdq *cmdq;
	pthread_t cmd_thread;
	bool cmd_started;
	atomic_bool cmd_quit;
	/* The command thread's own, but `done`: finished snapshots queued by
	 * the writer thread (app_run_on_snapshot), taken in order; a second
	 * snapshot can finish before the first is taken. */
	pthread_mutex_t done_mu;
	struct rec_snapshot_done done[APP_SNAP_DONE_MAX];
	size_t n_done;
	struct app_snapstate snap; /* the state file: `bagtop snapshot|pause|resume` */
	struct app_snap_req reqs[APP_SNAP_REQ_MAX]; /* waiting for their snapshot */
	/* --queue-triggers: snapshot commands that came while one was being
	 * written, run in order once it is (id unused). */
	struct app_snap_req queued[APP_SNAP_REQ_MAX];
	size_t n_queued;
	size_t n_reqs;
	struct app_snapstop snapstop;
	uint64_t snap_count; /* snapshots written; read after app_run_cmd_stop */
	uint64_t refused_said; /* commands refused when full, said so far */
	int64_t refused_t;     /* when last said */
	/* --on-file-closed (app_hook.h), NULL = none: started before the
	 * recorder (whose writer thread feeds it), finished after the
	 * recorder stopped (app_run_report), freed after the recorder. */
	struct app_hook *hook;
};

/* ---- app_run.c: the session ---- */

/* Prepares signals (all blocked from here on, inherited by the recorder's
 * threads) and starts the recorder. Exit status on error (one line said). */
int app_run_start(struct app_run *run, const struct app_cmd *cmd, struct app_record_cfg *c);
/* Frees what start made, drains late signals and unblocks them. */
void app_run_end(struct app_run *run);
/* While the bag is being finished, from any thread but the stopping one:
 * abandons what is not written yet (rec_recorder_abandon), once, saying
 * why and how much the cache still holds. The stop then ends at once with
 * what was committed; app_run_report exits 1. Called again while
 * abandoning (a third stop request), it ends the process at once. */
void app_run_abandon(struct app_run *run, const char *why);
/* Abandons once the stop has lasted --stop-timeout (0: never), and ends
 * the process when the writer has not returned 10 s after abandoning.
 * Call it periodically while the bag is being finished. */
void app_run_stop_tick(struct app_run *run);
/* Stops the recorder (finishes the bag) and sets `finished`. Any one
 * thread; a snapshot finished meanwhile is reported by the command
 * thread. */
bt_status app_run_stop(struct app_run *run, struct bt_error *err);
/* After the stop: ends the command thread (app_run_cmd_stop), then the
 * summary on stdout and, after a failure, the error line: exit status. */
int app_run_report(struct app_run *run, bt_status st, const struct bt_error *err);

/* ---- app_run_log.c: what is said, where ---- */

/* Shows the live view's event queue (NULL: back to stdout/stderr); log
 * lines and messages follow at once. */
void app_run_set_events(struct app_run *run, struct tui_events *events);
/* A message for the user: "[HH:MM:SS] text" on stdout, or the live view's
 * event line; and the log file. */
void app_run_say(struct app_run *run, enum tui_severity sev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Opens --log-file for appending, if given: false after saying why. */
bool app_run_log_open(struct app_run *run);
/* From here bt_log's lines and Cyclone's go to the session's sink: the log
 * file, and the live view's log or (warnings and errors) stderr. */
void app_run_log_start(struct app_run *run);
/* Back to bt_log's own sink; closes the log file. */
void app_run_log_end(struct app_run *run);
/* "HH:MM:SS" since the session started, at monotonic `now`. */
void app_run_elapsed(const struct app_run *run, int64_t now, char *el, size_t n);

/* ---- app_run_headless.c: the loop without the live view ---- */

/* Headless: status lines until a stop signal or the duration, then stop. */
int app_run_headless(struct app_run *run);

/* ---- app_run_loss.c: the loss and split announcer, the heap trim ---- */

/* Says which topics lost messages since the last loss line (one a second
 * at most), and when the bag moved on to another file (a split). */
void app_run_loss_check(struct app_run *run, int64_t now);

/* Gives the sample pool's unused blocks and the heap's free pages back to
 * the system, every APP_TRIM_PERIOD at most; called where
 * app_run_loss_check is (the session's periodic work). */
void app_run_trim(struct app_run *run, int64_t now);

/* ---- app_run_pidcmd.c: the signals that are commands ---- */

/* A stop signal taken less than this after the one before is that one
 * again, not a second request: timeout(1) sends its signal to bagtop and
 * then to its whole process group, two copies at once, and the second
 * would abandon what is not written yet. A person's second Ctrl-C comes
 * later (the tests wait 1 s). */
#define APP_RUN_SIG_ECHO_NS (BT_NS_PER_S / 4)

/* Waits up to `wait` for a signal; submits SIGUSR1, APP_SIG_SNAPSHOT and
 * the pause signals as commands and returns a stop signal's number, or 0
 * (also for an echo: app_run_sig_echo). */
int app_run_take_signal(struct app_run *run, const struct timespec *wait);
/* Called for each stop signal taken: true when it is an echo of the last
 * one that counted (within APP_RUN_SIG_ECHO_NS), to be ignored; else it
 * counts, and the next is measured from it. */
bool app_run_sig_echo(struct app_run *run);
/* A signal wait failed with errno `e` (not a timeout, not an
 * interruption): said once, then a short pause so that no loop spins. */
void app_run_wait_failed(int e);

/* ---- app_run_cmd.c: the command thread ---- */

/* Starts it (after the recorder): false when it could not be. */
bool app_run_cmd_start(struct app_run *run);
/* After the recorder stopped: refuses further commands, runs (or refuses)
 * what is queued, reports the last snapshots and joins the thread. Any
 * time after app_run_cmd_start; idempotent. */
void app_run_cmd_stop(struct app_run *run);
/* Submits command *c (any thread, never waits): `done` (may be NULL) gets
 * its result. A refusal (too many waiting, stopped) is told to `done`,
 * counted and said once a second by the command thread. */
void app_run_submit(struct app_run *run, const struct bt_cmd *c, bt_cmd_done_fn done, void *ctx);
/* The recorder's on_snapshot callback (writer thread): stores the report
 * and wakes the command thread. */
void app_run_on_snapshot(void *ctx, const struct rec_snapshot_done *d);
/* Bumps the state file's snapshot counter with `result` and `msg`
 * (command thread; the owner thread before it starts). */
void app_run_snap_publish(struct app_run *run, const char *result, const char *msg);
/* The state file's `result` word for a refused trigger (enum rec_trigger). */
const char *app_run_trigger_result(int t);

/* ---- app_tui.c ---- */

/* The live view until the bag is complete. -1: no usable terminal (nothing
 * drawn; go on headless); else the exit status. */
int app_tui_run(struct app_run *run);

#endif
