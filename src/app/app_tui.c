/* app_tui — the live view over a recording session: fills the view-model
 * from the recorder at the update rate, turns the view's commands into
 * recorder calls, and keeps the signals on a thread of its own while the
 * UI (main) thread owns the terminal.
 *
 * Threads, all started and joined here:
 *  - main: tui_run (fill, command, done). The view's commands go to the
 *    recorder's command queue (app_run_submit), whose thread runs them and
 *    says each one with its result; but `q`, which starts the stop here.
 *  - "app-signals": SIGINT/SIGTERM/SIGHUP start the stop; SIGUSR1 and the
 *    snapshot, pause and resume signals (`bagtop snapshot|pause|resume`)
 *    become commands (app_run_take_signal); --duration.
 *  - "app-stop": rec_recorder_stop, which finishes the bag; the view shows
 *    "finishing bag" until it is done.
 * What is said to the user goes through the event queue (tui_events). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "app__run.h"
#include "bt_fmt.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "rec_cmd.h"
#include "tui_run.h"
#include "tui_stderr.h"

#define APP_TUI_SIG_WAIT_NS 200000000L

_Static_assert(TUI_SNAP_LIST_MAX == REC_CMD_SNAP_LIST_MAX, "the dialog's lists fit the command");
_Static_assert(TUI_SNAP_NAME_MAX == REC_CMD_SNAP_NAME_MAX, "the dialog's name fits the command");

struct app_tui {
	struct app_run *run;
	struct rec_rate_total write_rate;
	atomic_bool stop_started;
	atomic_bool quit; /* the signal thread may go */
	pthread_mutex_t stop_mu; /* guards starting the stopper */
	pthread_t stopper, signals;
	bool stopper_started, signals_started;
	bt_status stop_status;
	struct bt_error stop_err;
};

/* ---- stopping ---- */

static void *app_tui_stopper(void *arg)
{
	struct app_tui *t = arg;
	pthread_setname_np(pthread_self(), "app-stop");
	t->stop_status = app_run_stop(t->run, &t->stop_err);
	return NULL;
}

/* Starts finishing the bag, once; from the UI, signal or command thread. A
 * second request abandons what is not written yet, unless `may_abandon` is
 * false (a request the user did not repeat). */
static void app_tui_stop_request(struct app_tui *t, const char *why, bool may_abandon)
{
	pthread_mutex_lock(&t->stop_mu);
	bool first = !atomic_exchange(&t->stop_started, true);
	if (first)
		t->stopper_started = pthread_create(&t->stopper, NULL, app_tui_stopper, t) == 0;
	pthread_mutex_unlock(&t->stop_mu);
	if (first)
		app_run_say(t->run, TUI_SEV_INFO, "%s: finishing the bag %s (q or Ctrl-C again: "
			    "abandon what is not written yet)", why, t->run->bag);
	else if (may_abandon)
		app_run_abandon(t->run, why);
	if (first && !t->stopper_started) /* no thread: finish here */
		app_tui_stopper(t);
}

static void app_tui_begin_stop(struct app_tui *t, const char *why)
{
	app_tui_stop_request(t, why, true);
}

/* REC_CMD_SNAPSHOT_STOP's result (command thread): the snapshot is
 * triggered (or refused), now the bag is finished. A q pressed while it
 * waited has started the stop already: this is not a second request. */
static void app_tui_snapped(void *ctx, const struct bt_cmd *c, const struct bt_cmd_result *r)
{
	(void)c;
	(void)r;
	app_tui_stop_request(ctx, "quit after a snapshot", false);
}

static void *app_tui_signals(void *arg)
{
	struct app_tui *t = arg;
	pthread_setname_np(pthread_self(), "app-signals");
	struct app_run *run = t->run;
	int64_t duration = run->cfg->duration_ns;
	while (!atomic_load(&t->quit)) {
		struct timespec ts = {0, APP_TUI_SIG_WAIT_NS};
		int sig = app_run_take_signal(run, &ts);
		if (sig > 0)
			app_tui_begin_stop(t, strsignal(sig));
		if (duration > 0 && !atomic_load(&t->stop_started) &&
		    bt_time_monotonic_ns() - run->t0 >= duration)
			app_tui_begin_stop(t, "--duration reached");
		app_run_stop_tick(run);
	}
	return NULL;
}

/* ---- the view-model ---- */

static enum tui_rec_state app_tui_state(struct app_tui *t, const struct rec_status *st)
{
	if (atomic_load(&t->stop_started))
		return TUI_REC_STOPPING;
	if (st->waiting_clock)
		return TUI_REC_WAITING_CLOCK;
	if (st->snapshot_mode)
		return st->snapshot_busy ? TUI_REC_WRITING_SNAPSHOT : TUI_REC_SNAPSHOT_ARMED;
	return st->paused ? TUI_REC_PAUSED : TUI_REC_RECORDING;
}

/* The configured snapshot windows: the `s` dialog's defaults, and the
 * widest window any topic has, which its parameters may only narrow. */
static void app_tui_snap_windows(const struct app_record_cfg *c, struct tui_header *h)
{
	int64_t before = c->ro.snapshot_duration_ns, after = c->ro.snapshot_post_ns;
	h->snapshot_before_ns = before;
	h->snapshot_after_ns = after;
	int64_t bmax = before > 0 ? before : REC_SNAPWIN_MAX_NS, amax = after;
	for (size_t i = 0; i < c->n_snapwin; i++) {
		const struct rec_snapwin_spec *w = &c->snapwin_specs[i];
		if (w->cache)
			continue;
		bmax = w->before_ns > bmax ? w->before_ns : bmax;
		amax = w->after_ns > amax ? w->after_ns : amax; /* REC_SNAPWIN_GLOBAL: after's */
	}
	h->snapshot_before_max_ns = bmax;
	h->snapshot_after_max_ns = amax;
}

static void app_tui_header(struct app_tui *t, struct tui_header *h, const struct rec_status *st,
			   int64_t now)
{
	const struct app_record_cfg *c = t->run->cfg;
	h->state = app_tui_state(t, st);
	h->snapshot_mode = st->snapshot_mode;
	h->queue_triggers = c->queue_triggers;
	h->throttling = c->n_throttle != 0;
	snprintf(h->bag_dir, sizeof h->bag_dir, "%s", t->run->bag);
	const char *slash = strrchr(st->current_file, '/');
	snprintf(h->current_file, sizeof h->current_file, "%s",
		 slash ? slash + 1 : st->current_file);
	h->split_index = (uint32_t)st->file_index;
	h->elapsed_ns = now - t->run->t0;
	h->total_msgs = st->recorded;
	h->total_bytes = st->bytes;
	h->write_rate = t->write_rate.committed_bps;
	struct statvfs vfs;
	if (statvfs(t->run->bag, &vfs) == 0) {
		h->disk_free = (uint64_t)vfs.f_bavail * vfs.f_frsize;
		h->disk_total = (uint64_t)vfs.f_blocks * vfs.f_frsize;
	}
	h->min_free = st->min_free_space;
	h->disk_guard = st->disk_guard;
	h->cache_fill = st->cache_fill;
	h->cache_max = st->cache_max;
	const char *comp = bag_compression_name(c->w.opt.compression);
	snprintf(h->compression, sizeof h->compression, "%s",
		 comp[0] == '\0' ? "none" : comp[0] == 'F' ? "file" : "message");
	h->pid = (long)getpid();
	h->update_hz = c->update_rate;
	h->finishing_bytes_left = st->cache_fill;
	h->snapshot_buffered = st->snapshot_buffered;
	h->snapshot_bytes = st->snapshot_mode ? st->cache_fill : 0;
	app_tui_snap_windows(c, h);
}

/* Topic i's rates into its row (rec_rates_fn): every arrival, recorded or
 * not, so a topic switched off keeps its rates. */
static void app_tui_rate(void *ctx, size_t i, const struct rec_rate_row *r)
{
	struct tui_topic *row = &((struct tui_model *)ctx)->topics[i];
	row->rate_hz = r->arrived_hz;
	row->bandwidth = r->arrived_bps;
}

static void app_tui_row(struct app_tui *t, struct tui_topic *row, size_t i)
{
	const struct rec_topics *tt = rec_recorder_topics(t->run->rec);
	struct rec_topic *tp = rec_topics_get(tt, i);
	struct rec_topic_stats *s = &tp->st;
	row->id = (uint32_t)i;
	row->enabled = atomic_load(&tp->enabled);
	row->tl_depth = rec_recorder_repeat_depth(t->run->rec, i);
	snprintf(row->name, sizeof row->name, "%s", tp->names.name);
	snprintf(row->type, sizeof row->type, "%s", tp->names.type);
	/* Acquire: def is final once subscribed (rec_topics.h); one found
	 * later (the node's get_type_description) is not in def. */
	row->no_definition = atomic_load_explicit(&tp->subscribed, memory_order_acquire) &&
			     tp->def.encoded_message_definition[0] == '\0' &&
			     atomic_load(&tp->def_late) != REC_DEF_LATE_FOUND;
	row->publishers = atomic_load(&tp->publishers);
	row->reliable = atomic_load(&tp->reliable);
	row->transient_local = atomic_load(&tp->transient_local);
	/* Rcvd is `received` as everywhere else (man bagtop, STATISTICS): taken
	 * while recording, not while paused or off (the rates, app_tui_rate,
	 * count every arrival). */
	uint64_t received = atomic_load(&s->received);
	row->total = (struct tui_counts){received, atomic_load(&s->bytes),
					 rec_topic_lost_transport(s), rec_topic_lost_recorder(s),
					 atomic_load(&s->throttled)};
	/* The file's figures are the bag's own tally of that file (what its
	 * statistics will say); received counts from when the file opened. */
	row->file = (struct tui_counts){rec_topic_file_received(s), atomic_load(&s->file_bytes),
					atomic_load(&s->file_lost_transport),
					atomic_load(&s->file_lost_recorder),
					atomic_load(&s->file_throttled)};
}

static void app_tui_fill(void *ctx, struct tui_model *m)
{
	struct app_tui *t = ctx;
	int64_t now = bt_time_monotonic_ns();
	struct rec_status st;
	rec_recorder_get_status(t->run->rec, &st);
	size_t n = rec_topics_count(rec_recorder_topics(t->run->rec));
	tui_model_set_topic_count(m, n);
	for (size_t i = 0; i < n; i++)
		app_tui_row(t, &m->topics[i], i);
	/* The recorder's rates, as the status lines and `bagtop stats` show. */
	rec_rates_get(rec_recorder_rates(t->run->rec), now, n, app_tui_rate, m, &t->write_rate);
	app_tui_header(t, &m->hdr, &st, now);
	if (!atomic_load(&t->stop_started)) {
		app_run_loss_check(t->run, now);
		app_run_trim(t->run, now);
	}
	tui_events_drain(t->run->events, m);
}

/* ---- commands ---- */

/* The snapshot file's name (the dialog's Name, checked) into p: the one
 * place the view's name meets the recorder's command. */
static void app_tui_snap_name(struct rec_cmd_snap *p, const char *name)
{
	snprintf(p->name, sizeof p->name, "%s", name);
}

/* The `s` dialog's parameters as `bagtop snapshot --before --after
 * --topics --exclude --name` gives them (the view checked them). */
static void app_tui_snap_params(const struct tui_snap_params *v, struct bt_cmd *c)
{
	struct rec_cmd_snap p = {.before_ns = v->before_set ? v->before_ns : -1,
				 .after_ns = v->after_set ? v->after_ns : -1};
	snprintf(p.topics, sizeof p.topics, "%s", v->topics);
	snprintf(p.exclude, sizeof p.exclude, "%s", v->exclude);
	app_tui_snap_name(&p, v->name);
	rec_cmd_snap_put(c, &p);
}

/* The view's command as the recorder's, with the key that asked. */
static bool app_tui_cmd(const struct tui_cmd *cmd, struct bt_cmd *c)
{
	static const struct {
		enum rec_cmd_kind kind;
		const char *key;
	} map[] = {
		[TUI_CMD_SNAPSHOT] = {REC_CMD_SNAPSHOT, "s"},
		[TUI_CMD_TOGGLE_TOPIC] = {REC_CMD_TOGGLE_TOPIC, "Space"},
		[TUI_CMD_MARK_TL] = {REC_CMD_MARK_TL, "t"},
		[TUI_CMD_PAUSE_TOGGLE] = {REC_CMD_PAUSE_TOGGLE, "p"},
		[TUI_CMD_SPLIT] = {REC_CMD_SPLIT, "n"},
		[TUI_CMD_SNAPSHOT_QUIT] = {REC_CMD_SNAPSHOT_STOP, "s at the quit prompt"},
	};
	if ((size_t)cmd->kind >= sizeof map / sizeof map[0] || map[cmd->kind].key == NULL)
		return false;
	*c = rec_cmd_make(map[cmd->kind].kind, BT_CMD_FROM_KEY, 0, "%s", map[cmd->kind].key);
	c->arg[0] = cmd->topic_id;
	c->arg[1] = cmd->depth;
	if (cmd->kind == TUI_CMD_SNAPSHOT)
		app_tui_snap_params(&cmd->snap, c);
	return true;
}

static void app_tui_command(void *ctx, const struct tui_cmd *cmd)
{
	struct app_tui *t = ctx;
	struct bt_cmd c;
	if (cmd->kind == TUI_CMD_QUIT)
		app_tui_begin_stop(t, "quit"); /* not a command: nothing may hold it up */
	else if (cmd->kind == TUI_CMD_SNAPSHOT_QUIT && app_tui_cmd(cmd, &c))
		app_run_submit(t->run, &c, app_tui_snapped, t);
	else if (app_tui_cmd(cmd, &c))
		app_run_submit(t->run, &c, NULL, NULL);
}

static bool app_tui_done(void *ctx)
{
	struct app_tui *t = ctx;
	return atomic_load(&t->run->finished);
}

/* ---- the session ---- */

static void app_tui_join(struct app_tui *t)
{
	if (t->stopper_started)
		pthread_join(t->stopper, NULL);
	atomic_store(&t->quit, true);
	if (t->signals_started)
		pthread_join(t->signals, NULL);
}

int app_tui_run(struct app_run *run)
{
	struct app_tui t = {.run = run};
	atomic_init(&t.stop_started, false);
	atomic_init(&t.quit, false);
	if (pthread_mutex_init(&t.stop_mu, NULL) != 0)
		abort(); /* cannot fail on Linux */
	struct tui_events *events = tui_events_new();
	app_run_set_events(run, events);
	struct tui_stderr cap = {.saved_fd = -1};
	struct bt_error err = {0};
	bool capturing = tui_stderr_start(&cap, &err) == BT_OK;
	atomic_store(&run->real_stderr, capturing ? cap.saved_fd : -1);
	atomic_store(&run->screen_active, true);
	t.signals_started = pthread_create(&t.signals, NULL, app_tui_signals, &t) == 0;
	struct tui_run_ops ops = {app_tui_fill, app_tui_command, app_tui_done};
	bt_status st = tui_run(&ops, &t, &err);
	atomic_store(&run->screen_active, false);
	bool no_terminal = st != BT_OK && !atomic_load(&t.stop_started);
	if (!no_terminal && !atomic_load(&t.stop_started))
		app_tui_begin_stop(&t, "the live view ended");
	if (no_terminal) {
		atomic_store(&t.quit, true);
		if (t.signals_started)
			pthread_join(t.signals, NULL);
		t.signals_started = false;
	}
	app_tui_join(&t);
	app_run_set_events(run, NULL);
	if (capturing)
		(void)tui_stderr_stop(&cap); /* what was printed meanwhile, now */
	tui_events_free(events);
	pthread_mutex_destroy(&t.stop_mu);
	if (no_terminal) {
		fprintf(stderr, "bagtop: %s; going on without the live view\n", err.msg);
		return -1;
	}
	return app_run_report(run, t.stop_status, &t.stop_err);
}
