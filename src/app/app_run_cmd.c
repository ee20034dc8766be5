/* app_run_cmd — the session's command thread ("app-cmd"): the one consumer
 * of the recorder's command queue (rec_cmd.h) and the one owner of the
 * snapshot and pause state: it runs each command on the recorder, says it
 * with its origin and result (app_run_say: the live view's event log or
 * stdout, and --log-file), keeps the state file of `bagtop
 * snapshot|pause|resume` (app_snapfile.h) and delivers each command's
 * result (bt_cmdq_finish). A snapshot's result comes when the writer has
 * written it: the writer thread's on_snapshot stores the report and wakes
 * this thread, which answers the commands that started it.
 *
 * Threads: started by app_run_start once the recorder runs, stopped and
 * joined by app_run_cmd_stop (after the recorder stopped, before the
 * summary); everything here runs on it but app_run_on_snapshot (writer
 * thread). Lock: done_mu guards the finished snapshots' reports only. */
#include "app__run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bt_fmt.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "rec_cmd.h"

#define APP_CMD_WAIT_NS INT64_C(200000000)    /* how soon a stop is seen */
#define APP_CMD_BUSY_POLL_NS INT64_C(20000000) /* snapshot-then-stop, waiting */
#define APP_CMD_SNAPSTOP_NS INT64_C(10000000000)

static const char *const app_trigger_results[] = {
	[REC_TRIGGER_STARTED] = "started", [REC_TRIGGER_EMPTY] = "empty",
	[REC_TRIGGER_BUSY] = "busy", [REC_TRIGGER_STOPPING] = "stopping",
	[REC_TRIGGER_NOT_SNAPSHOT] = "not-snapshot"};

const char *app_run_trigger_result(int t)
{
	return t >= 0 && (size_t)t < sizeof app_trigger_results / sizeof app_trigger_results[0]
		       ? app_trigger_results[t]
		       : "failed";
}

/* Says the command's line and delivers its result (ticket 0: none). A
 * written snapshot's line ends with its file, as it always did (scripts
 * take the path from the end): "snapshot N: requested by ORIGIN, M
 * messages written to FILE". */
static void runcmd_end(struct app_run *run, const struct bt_cmd *c, uint64_t ticket,
			const struct bt_cmd_result *r)
{
	char line[TUI_EVENT_TEXT_MAX * 2];
	const char *colon = strstr(r->reason, ": ");
	if (c->kind == REC_CMD_SNAPSHOT && r->outcome == BT_CMD_DONE && colon != NULL) {
		char from[BT_CMD_DETAIL_MAX + 16];
		bt_cmd_origin_str(&c->origin, from, sizeof from);
		snprintf(line, sizeof line, "%.*s: requested by %s, %s", (int)(colon - r->reason),
			 r->reason, from, colon + 2);
	} else {
		bt_cmd_line(rec_cmd_name(c->kind), c, r, line, sizeof line);
	}
	/* A question answered changes nothing: a client polling is_paused
	 * would fill the log. */
	if (c->kind != REC_CMD_IS_PAUSED || r->outcome != BT_CMD_DONE)
		app_run_say(run, r->outcome == BT_CMD_DONE ? TUI_SEV_INFO : TUI_SEV_WARN, "%s",
			    line);
	if (ticket != 0)
		bt_cmdq_finish(run->cmdq, ticket, r);
}

/* ---- snapshots ---- */

void app_run_snap_publish(struct app_run *run, const char *result, const char *msg)
{
	run->snap.seq++;
	snprintf(run->snap.result, sizeof run->snap.result, "%s", result);
	snprintf(run->snap.message, sizeof run->snap.message, "%s", msg);
	struct bt_error e = {0};
	if (app_snapfile_write(&run->snap, &e) != BT_OK)
		bt_log_warn("snapshot state for `bagtop snapshot`: %s", e.msg);
}

/* The refusal of a trigger `t`: its line, the state file. */
static void runcmd_snap_refused(struct app_run *run, const struct bt_cmd *c, uint64_t ticket,
				 enum rec_trigger t)
{
	struct bt_cmd_result r;
	/* rec_trigger_str's sentence, without its "snapshot[ refused]: " */
	const char *why = strchr(rec_trigger_str(t), ':');
	bt_cmd_result_set(&r, BT_CMD_REFUSED, "%s", why != NULL ? why + 2 : rec_trigger_str(t));
	r.value = t;
	runcmd_end(run, c, ticket, &r);
	app_run_snap_publish(run, app_trigger_results[t], rec_trigger_str(t));
}

/* Triggers a snapshot for command c: refused now, or waiting for its file
 * (answered by runcmd_snap_report). */
static void runcmd_snapshot(struct app_run *run, const struct bt_cmd *c, uint64_t ticket)
{
	uint64_t id = 0;
	struct rec_cmd_snap p;
	rec_cmd_snap_get(c, &p);
	enum rec_trigger t = rec_recorder_snapshot_with(run->rec, &p, &id);
	if (t == REC_TRIGGER_BUSY && run->cfg->queue_triggers && run->n_queued < APP_SNAP_REQ_MAX) {
		run->queued[run->n_queued++] = (struct app_snap_req){*c, ticket, 0};
		char from[BT_CMD_DETAIL_MAX + 16];
		bt_cmd_origin_str(&c->origin, from, sizeof from);
		app_run_say(run, TUI_SEV_INFO, "snapshot queued until the one being written is "
			    "done (requested by %s)", from);
		return;
	}
	if (t != REC_TRIGGER_STARTED) {
		runcmd_snap_refused(run, c, ticket, t);
		return;
	}
	if (run->n_reqs == APP_SNAP_REQ_MAX) { /* one at a time is written: cannot be */
		struct bt_cmd_result r;
		bt_cmd_result_set(&r, BT_CMD_FAILED, "snapshot started, but too many requests "
				  "are waiting to be answered");
		runcmd_end(run, c, ticket, &r);
		return;
	}
	run->reqs[run->n_reqs++] = (struct app_snap_req){*c, ticket, id};
	/* Said now: the file comes only after the after-window (seconds). */
	char from[BT_CMD_DETAIL_MAX + 16];
	bt_cmd_origin_str(&c->origin, from, sizeof from);
	app_run_say(run, TUI_SEV_INFO, "snapshot %llu started (requested by %s)",
		    (unsigned long long)id, from);
}

/* The writer thread finished a snapshot: hand it to the command thread. */
void app_run_on_snapshot(void *ctx, const struct rec_snapshot_done *d)
{
	struct app_run *run = ctx;
	pthread_mutex_lock(&run->done_mu);
	if (run->n_done == APP_SNAP_DONE_MAX) { /* the oldest's requests: "not reported" */
		memmove(run->done, run->done + 1, (APP_SNAP_DONE_MAX - 1) * sizeof *run->done);
		run->n_done--;
	}
	run->done[run->n_done++] = *d;
	pthread_mutex_unlock(&run->done_mu);
	bt_cmdq_wake(run->cmdq);
}

static bool app_snap_done_pop(struct app_run *run, struct rec_snapshot_done *d)
{
	pthread_mutex_lock(&run->done_mu);
	bool any = run->n_done > 0;
	if (any) {
		*d = run->done[0];
		memmove(run->done, run->done + 1, --run->n_done * sizeof *run->done);
	}
	pthread_mutex_unlock(&run->done_mu);
	return any;
}

/* Answers the commands that started snapshot `d->id` with *r (or an
 * earlier one, which no report will come for). */
static void app_snap_answer_done(struct app_run *run, const struct rec_snapshot_done *d,
				 const struct bt_cmd_result *r)
{
	size_t kept = 0;
	for (size_t i = 0; i < run->n_reqs; i++) {
		struct app_snap_req *q = &run->reqs[i];
		if (q->id > d->id) {
			run->reqs[kept++] = *q;
		} else if (q->id == d->id) {
			runcmd_end(run, &q->cmd, q->ticket, r);
		} else {
			struct bt_cmd_result nr;
			bt_cmd_result_set(&nr, BT_CMD_FAILED, "snapshot not reported");
			runcmd_end(run, &q->cmd, q->ticket, &nr);
		}
	}
	run->n_reqs = kept;
}

static void runcmd_snap_report(struct app_run *run, const struct rec_snapshot_done *d)
{
	run->snap_count += d->status == BT_OK;
	struct bt_cmd_result r;
	if (d->status == BT_OK)
		bt_cmd_result_set(&r, BT_CMD_DONE, "snapshot %llu: %llu message%s written to %s/%s",
				  (unsigned long long)d->id, (unsigned long long)d->messages,
				  bt_fmt_s(d->messages), run->bag, d->file);
	else
		bt_cmd_result_set(&r, BT_CMD_FAILED, "snapshot %llu failed: %s",
				  (unsigned long long)d->id, bt_status_str(d->status));
	r.messages = d->status == BT_OK ? d->messages : 0;
	/* `bagtop snapshot` runs elsewhere: give it an absolute path. */
	char *rel = bt_xasprintf("%s/%s", run->bag, d->file);
	char *abs = realpath(rel, NULL);
	snprintf(r.file, sizeof r.file, "%s", abs != NULL ? abs : rel);
	free(abs);
	free(rel);
	run->snap.messages = d->messages;
	snprintf(run->snap.file, sizeof run->snap.file, "%s", r.file);
	bool answered = false;
	for (size_t i = 0; i < run->n_reqs && !answered; i++)
		answered = run->reqs[i].id == d->id;
	if (!answered) /* no command started it (cannot be): said all the same */
		app_run_say(run, d->status == BT_OK ? TUI_SEV_INFO : TUI_SEV_ERROR, "%s", r.reason);
	app_snap_answer_done(run, d, &r);
	if (d->coverage[0] != '\0') /* memory ran out inside some topic's window */
		app_run_say(run, TUI_SEV_WARN, "snapshot %llu: windows cut short by memory: %s",
			    (unsigned long long)d->id, d->coverage);
	app_run_snap_publish(run, d->status == BT_OK ? "ok" : "failed", r.reason);
}

/* Reports the finished snapshots, oldest first; then the oldest queued
 * trigger runs (--queue-triggers), once no snapshot is being written. */
static void runcmd_snap_done(struct app_run *run)
{
	struct rec_snapshot_done d;
	while (app_snap_done_pop(run, &d))
		runcmd_snap_report(run, &d);
	if (run->n_queued == 0)
		return;
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	if (st.snapshot_busy)
		return;
	struct app_snap_req q = run->queued[0];
	memmove(run->queued, run->queued + 1, --run->n_queued * sizeof *run->queued);
	runcmd_snapshot(run, &q.cmd, q.ticket);
}

/* REC_CMD_SNAPSHOT_STOP: waits (without holding up the other commands)
 * while a snapshot is being written, 10 s at most, then triggers. */
static void runcmd_snapstop_tick(struct app_run *run)
{
	if (!run->snapstop.pending)
		return;
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	if (st.snapshot_busy && bt_time_monotonic_ns() < run->snapstop.deadline)
		return;
	run->snapstop.pending = false;
	struct bt_cmd c = run->snapstop.cmd;
	uint64_t id = 0;
	enum rec_trigger t = rec_recorder_snapshot(run->rec, &id);
	struct bt_cmd_result r;
	if (t == REC_TRIGGER_STARTED && run->n_reqs < APP_SNAP_REQ_MAX) {
		/* Its file is said as a snapshot's; the stop begins now. */
		c.kind = REC_CMD_SNAPSHOT;
		run->reqs[run->n_reqs++] = (struct app_snap_req){c, 0, id};
		bt_cmd_result_set(&r, BT_CMD_DONE, "snapshot started, then stopping");
		bt_cmdq_finish(run->cmdq, run->snapstop.ticket, &r);
		return;
	}
	if (t == REC_TRIGGER_STARTED)
		t = REC_TRIGGER_BUSY;
	runcmd_snap_refused(run, &c, run->snapstop.ticket, t);
}

static void runcmd_snapstop(struct app_run *run, const struct bt_cmd *c, uint64_t ticket)
{
	if (run->snapstop.pending) { /* one quit at a time */
		struct bt_cmd_result r;
		bt_cmd_result_set(&r, BT_CMD_REFUSED, "already waiting to write a snapshot");
		runcmd_end(run, c, ticket, &r);
		return;
	}
	run->snapstop = (struct app_snapstop){true, ticket, *c,
					      bt_time_monotonic_ns() + APP_CMD_SNAPSTOP_NS};
	runcmd_snapstop_tick(run);
}

/* ---- pause and resume ---- */

static void runcmd_pause(struct app_run *run, const struct bt_cmd *c, uint64_t ticket,
			  bool paused)
{
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	rec_recorder_pause(run->rec, paused);
	struct bt_cmd_result r;
	bool already = st.paused == paused;
	if (already)
		bt_cmd_result_set(&r, BT_CMD_DONE, "recording already %s",
				  paused ? "paused" : "running");
	else
		bt_cmd_result_set(&r, BT_CMD_DONE, "recording %s", paused ? "paused" : "resumed");
	r.value = already;
	run->snap.paused = paused;
	run->snap.pause_seq++;
	struct bt_error e = {0};
	if (app_snapfile_write(&run->snap, &e) != BT_OK)
		bt_log_warn("state for `bagtop pause` and `bagtop resume`: %s", e.msg);
	runcmd_end(run, c, ticket, &r);
}

/* ---- topics ---- */

static const char *runcmd_topic(struct app_run *run, uint64_t id)
{
	const struct rec_topics *tt = rec_recorder_topics(run->rec);
	return id < rec_topics_count(tt) ? rec_topics_get(tt, (size_t)id)->names.name : NULL;
}

static void runcmd_toggle(struct app_run *run, const struct bt_cmd *c, struct bt_cmd_result *r)
{
	const char *name = runcmd_topic(run, c->arg[0]);
	if (name == NULL) {
		bt_cmd_result_set(r, BT_CMD_REFUSED, "no topic %llu", (unsigned long long)c->arg[0]);
		return;
	}
	struct rec_topic *tp = rec_topics_get(rec_recorder_topics(run->rec), (size_t)c->arg[0]);
	bool on = !atomic_load(&tp->enabled);
	rec_recorder_set_topic_enabled(run->rec, (size_t)c->arg[0], on);
	bt_cmd_result_set(r, BT_CMD_DONE, "%s: recording %s", name, on ? "on" : "off");
	r->value = on;
}

static void runcmd_mark(struct app_run *run, const struct bt_cmd *c, struct bt_cmd_result *r)
{
	const char *name = runcmd_topic(run, c->arg[0]);
	uint64_t depth = c->arg[1];
	if (name == NULL || depth > UINT32_MAX ||
	    rec_recorder_set_repeat(run->rec, (size_t)c->arg[0], (uint32_t)depth) != BT_OK)
		bt_cmd_result_set(r, BT_CMD_REFUSED, "%s: cannot repeat %llu message%s",
				  name ? name : "?", (unsigned long long)depth, bt_fmt_s(depth));
	else if (depth == 0)
		bt_cmd_result_set(r, BT_CMD_DONE, "%s: no longer repeated", name);
	else
		bt_cmd_result_set(r, BT_CMD_DONE, "%s: its last %llu message%s start every file%s",
				  name, (unsigned long long)depth, depth == 1 ? "" : "s",
				  run->cfg->ro.snapshot_mode ? " and snapshot" : "");
}

/* ---- the thread ---- */

/* The commands answered at once. */
static void runcmd_now(struct app_run *run, const struct bt_cmd *c, uint64_t ticket)
{
	struct bt_cmd_result r;
	struct rec_status st;
	switch (c->kind) {
	case REC_CMD_SPLIT:
		if (run->cfg->ro.snapshot_mode) {
			bt_cmd_result_set(&r, BT_CMD_REFUSED, "no split in snapshot mode: every "
					  "snapshot gets a file of its own");
			break;
		}
		rec_recorder_split(run->rec);
		bt_cmd_result_set(&r, BT_CMD_DONE, "split requested");
		break;
	case REC_CMD_IS_PAUSED:
		rec_recorder_get_status(run->rec, &st);
		bt_cmd_result_set(&r, BT_CMD_DONE, "recording is %s", st.paused ? "paused" : "running");
		r.value = st.paused;
		break;
	case REC_CMD_TOGGLE_TOPIC: runcmd_toggle(run, c, &r); break;
	case REC_CMD_MARK_TL: runcmd_mark(run, c, &r); break;
	default: bt_cmd_result_set(&r, BT_CMD_REFUSED, "not a recorder command (%d)", c->kind);
	}
	runcmd_end(run, c, ticket, &r);
}

static void runcmd_run(struct app_run *run, const struct bt_cmd *c, uint64_t ticket)
{
	struct rec_status st;
	switch (c->kind) {
	case REC_CMD_SNAPSHOT: runcmd_snapshot(run, c, ticket); break;
	case REC_CMD_SNAPSHOT_STOP: runcmd_snapstop(run, c, ticket); break;
	case REC_CMD_PAUSE: runcmd_pause(run, c, ticket, true); break;
	case REC_CMD_RESUME: runcmd_pause(run, c, ticket, false); break;
	case REC_CMD_PAUSE_TOGGLE:
		rec_recorder_get_status(run->rec, &st);
		runcmd_pause(run, c, ticket, !st.paused);
		break;
	default: runcmd_now(run, c, ticket);
	}
}

/* Commands refused because too many were waiting: counted by the queue,
 * said here at most once a second (a flood must not flood the log too). */
static void runcmd_refusals(struct app_run *run, bool last)
{
	struct bt_cmdq_stats st;
	bt_cmdq_get_stats(run->cmdq, &st);
	int64_t now = bt_time_monotonic_ns();
	if (st.refused_full == run->refused_said ||
	    (!last && now - run->refused_t < BT_NS_PER_S))
		return;
	uint64_t n = st.refused_full - run->refused_said;
	app_run_say(run, TUI_SEV_WARN, "%llu command%s refused: too many waiting (%llu since the "
		    "start)", (unsigned long long)n, bt_fmt_s(n),
		    (unsigned long long)st.refused_full);
	run->refused_said = st.refused_full;
	run->refused_t = now;
}

/* After the recorder stopped: the last reports; what is still queued or
 * waiting is answered as refused. */
static void runcmd_drain(struct app_run *run)
{
	bt_cmdq_close(run->cmdq, "recording has stopped");
	runcmd_snap_done(run);
	struct bt_cmd c;
	uint64_t ticket;
	while (bt_cmdq_take(run->cmdq, 0, &c, &ticket))
		runcmd_run(run, &c, ticket); /* the recorder refuses what needs it running */
	run->snapstop.deadline = 0;
	runcmd_snapstop_tick(run);
	for (size_t i = 0; i < run->n_queued; i++)
		runcmd_snap_refused(run, &run->queued[i].cmd, run->queued[i].ticket,
				    REC_TRIGGER_STOPPING);
	run->n_queued = 0;
	/* Started, never reported (the stop ended them): every one older. */
	struct rec_snapshot_done none = {.id = UINT64_MAX};
	app_snap_answer_done(run, &none, NULL);
	runcmd_refusals(run, true);
}

static void *runcmd_main(void *arg)
{
	struct app_run *run = arg;
	pthread_setname_np(pthread_self(), "app-cmd");
	while (!atomic_load(&run->cmd_quit)) {
		struct bt_cmd c;
		uint64_t ticket;
		int64_t wait = run->snapstop.pending ? APP_CMD_BUSY_POLL_NS : APP_CMD_WAIT_NS;
		if (bt_cmdq_take(run->cmdq, wait, &c, &ticket))
			runcmd_run(run, &c, ticket);
		runcmd_snap_done(run);
		runcmd_snapstop_tick(run);
		runcmd_refusals(run, false);
	}
	runcmd_drain(run);
	return NULL;
}

bool app_run_cmd_start(struct app_run *run)
{
	atomic_init(&run->cmd_quit, false);
	run->cmd_started = pthread_create(&run->cmd_thread, NULL, runcmd_main, run) == 0;
	return run->cmd_started;
}

void app_run_cmd_stop(struct app_run *run)
{
	if (!run->cmd_started)
		return;
	atomic_store(&run->cmd_quit, true);
	bt_cmdq_wake(run->cmdq);
	pthread_join(run->cmd_thread, NULL);
	run->cmd_started = false;
}

void app_run_submit(struct app_run *run, const struct bt_cmd *c, bt_cmd_done_fn done, void *ctx)
{
	if (bt_cmdq_submit(run->cmdq, c, done, ctx, NULL) != BT_OK)
		return; /* counted by the queue, told to `done`, said by runcmd_refusals */
}
