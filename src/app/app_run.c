/* app_run — one recording session (see app__run.h): start and stop, the
 * headless loop, and what is said to the user about snapshots and losses.
 *
 * Signals: SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2 and the pause / resume
 * signals are blocked before the recorder starts its threads (they inherit
 * the mask) and received in one place with sigtimedwait; nothing runs in a
 * signal handler. Headless, Space toggles pause when stdin is a terminal
 * (app_keys.c raises the signals). While the
 * bag is being finished a small thread answers a further stop signal, or
 * the end of --stop-timeout, by abandoning what is not written yet: the
 * bag keeps what was committed, with its metadata, and the log says what
 * was abandoned (exit status 1). */
#include "app__run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "app_keys.h"
#include "bt_buf.h"
#include "bt_fmt.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "rec_log.h"

/* A topic's loss counters as the last loss line saw them, per cause in the
 * order of app_loss_append's names. */
enum { APP_LOSS_CAUSES = 6 };
struct app_loss {
	uint64_t n[APP_LOSS_CAUSES];
};

#define APP_LOSS_TOPICS_SHOWN 4
#define APP_LOSS_PERIOD_NS INT64_C(1000000000) /* one loss line a second at most */
/* Status line periods: the option's 100 Hz .. 0.001 Hz, whatever is given. */
#define APP_MIN_PERIOD_NS INT64_C(10000000)
#define APP_MAX_PERIOD_NS (INT64_C(1000) * BT_NS_PER_S)

static void app_elapsed(const struct app_run *run, int64_t now, char *el, size_t n)
{
	int64_t secs = (now - run->t0) / 1000000000;
	snprintf(el, n, "%02lld:%02lld:%02lld", (long long)(secs / 3600),
		 (long long)(secs / 60 % 60), (long long)(secs % 60));
}

/* One line of the log file: UTC time, what, text. */
static void app_log_write(struct app_run *run, const char *what, const char *text)
{
	if (run->log == NULL)
		return;
	int64_t now = bt_time_realtime_ns();
	time_t secs = (time_t)(now / 1000000000);
	struct tm tm;
	char when[32];
	gmtime_r(&secs, &tm);
	strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
	int w = fprintf(run->log, "%s.%03dZ %s: %s\n", when, (int)(now / 1000000 % 1000), what,
			text);
	if ((w < 0 || fflush(run->log) != 0) && !atomic_exchange(&run->log_failed, true)) {
		/* Said once, and not through bt_log: this may run in its sink. */
		char msg[TUI_EVENT_TEXT_MAX];
		snprintf(msg, sizeof msg, "cannot write the log file %s: %s (said once)",
			 run->cfg->log_file, strerror(errno));
		if (run->events != NULL)
			tui_events_push(run->events, now, TUI_SEV_WARN, msg);
		else
			fprintf(stderr, "bagtop: warning: %s\n", msg);
	}
	clearerr(run->log);
}

/* bt_log's sink for the whole session (under bt_log's lock): the log file
 * gets everything; the live view's log, or stderr for warnings and errors
 * when headless. */
static void app_log_sink(void *ctx, enum bt_log_level level, const char *line)
{
	struct app_run *run = ctx;
	app_log_write(run, bt_log_level_name(level), line);
	if (run->events != NULL)
		tui_events_log_sink(run->events, level, line);
	else if (level <= BT_LOG_WARN)
		fprintf(stderr, "bagtop: %s: %s\n", bt_log_level_name(level), line);
}

void app_run_set_events(struct app_run *run, struct tui_events *events)
{
	/* No sink call may be under way while the queue changes. */
	bt_log_set_sink(NULL, NULL);
	run->events = events;
	bt_log_set_sink(app_log_sink, run);
}

void app_run_say(struct app_run *run, enum tui_severity sev, const char *fmt, ...)
{
	char text[TUI_EVENT_TEXT_MAX * 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	app_log_write(run, "event", text);
	if (run->events != NULL) {
		tui_events_push(run->events, bt_time_realtime_ns(), sev, text);
		return;
	}
	char el[32];
	app_elapsed(run, bt_time_monotonic_ns(), el, sizeof el);
	printf("[%s] %s\n", el, text);
	fflush(stdout);
}

static struct app_loss app_loss_of(struct rec_topic *tp)
{
	struct rec_topic_stats *s = &tp->st;
	return (struct app_loss){{atomic_load(&s->lost_transport), atomic_load(&s->rejected),
				  atomic_load(&s->lost_cache), atomic_load(&s->lost_compression),
				  atomic_load(&s->lost_toobig), atomic_load(&s->lost_write)}};
}

/* Appends "TOPIC +N cause, +M cause" for what grew since `was`. */
static void app_loss_append(struct bt_buf *b, const char *name, const struct app_loss *was,
			    const struct app_loss *now)
{
	static const char *const cause[APP_LOSS_CAUSES] = {
		"in transport", "in transport (rejected: DDS resource limits)",
		"in the recorder (cache full)",
		"in the recorder (cache full: compression behind)", "in the recorder (too large)",
		"in the recorder (write failed)"};
	/* Out of memory only shortens the line. */
	if (bt_buf_printf(b, "%s%s", b->len ? "; " : "", name) != BT_OK)
		return;
	for (size_t k = 0, shown = 0; k < APP_LOSS_CAUSES; k++)
		if (now->n[k] > was->n[k] &&
		    bt_buf_printf(b, "%s +%llu %s", shown++ ? "," : "",
				  (unsigned long long)(now->n[k] - was->n[k]), cause[k]) != BT_OK)
			return;
}

/* One line naming the topics whose losses started or grew since the last
 * such line; called once per status period at most. */
/* A split (by size, duration or request) starts the next file. Not in
 * snapshot mode: there every snapshot gets a file of its own, opened just
 * before it is written and finished with it, and the snapshot's own line
 * names it; "now writing" it, said after that line, read as if the file
 * were for the next snapshot, one behind. */
static void app_file_check(struct app_run *run)
{
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	if (st.file_index == run->file_index)
		return;
	run->file_index = st.file_index;
	if (st.snapshot_mode)
		return;
	const char *slash = strrchr(st.current_file, '/');
	app_run_say(run, TUI_SEV_INFO, "split: now writing %s",
		    slash ? slash + 1 : st.current_file);
}

void app_run_loss_check(struct app_run *run, int64_t now)
{
	app_file_check(run);
	if (run->loss_t != 0 && now - run->loss_t < APP_LOSS_PERIOD_NS)
		return;
	const struct rec_topics *t = rec_recorder_topics(run->rec);
	size_t n = rec_topics_count(t), grew = 0;
	if (n > run->n_loss) {
		run->loss = bt_xrealloc(run->loss, n * sizeof *run->loss);
		memset(run->loss + run->n_loss, 0, (n - run->n_loss) * sizeof *run->loss);
		run->n_loss = n;
	}
	struct bt_buf b = {0};
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(t, i);
		struct app_loss cur = app_loss_of(tp);
		if (memcmp(&cur, &run->loss[i], sizeof cur) == 0)
			continue;
		if (grew++ < APP_LOSS_TOPICS_SHOWN)
			app_loss_append(&b, tp->name, &run->loss[i], &cur);
		run->loss[i] = cur;
	}
	if (grew == 0)
		return;
	run->loss_t = now;
	if (grew > APP_LOSS_TOPICS_SHOWN)
		app_run_say(run, TUI_SEV_WARN, "LOST %s; and %zu more topic%s", b.data ? b.data : "",
			    grew - APP_LOSS_TOPICS_SHOWN, bt_fmt_s(grew - APP_LOSS_TOPICS_SHOWN));
	else
		app_run_say(run, TUI_SEV_WARN, "LOST %s", b.data ? b.data : "");
	bt_buf_fini(&b);
}

static void app_status_line(struct app_run *run)
{
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	int64_t now = bt_time_monotonic_ns();
	double dt = (double)(now - run->last_t) / 1e9;
	uint64_t rate = dt > 0 ? (uint64_t)((double)(st.bytes - run->last_bytes) / dt) : 0;
	run->last_t = now;
	run->last_bytes = st.bytes;
	char el[32], bytes[32], bw[32];
	app_elapsed(run, now, el, sizeof el);
	bt_fmt_iec(st.bytes, bytes, sizeof bytes);
	bt_fmt_iec(rate, bw, sizeof bw);
	const char *file = strrchr(st.current_file, '/');
	printf("[%s] %s%zu/%zu topic%s | %llu recorded, %s (%s/s) | lost %llu transport, %llu "
	       "recorder | cache %zu%% | %s\n",
	       el, st.paused ? "PAUSED " : "", st.topics_recorded, st.topics_seen,
	       bt_fmt_s(st.topics_seen), (unsigned long long)st.recorded, bytes, bw, (unsigned long long)st.lost_transport,
	       (unsigned long long)st.lost_recorder,
	       st.cache_max ? (size_t)(100.0 * (double)st.cache_fill / (double)st.cache_max) : 0,
	       file ? file + 1 : st.current_file);
	fflush(stdout);
}

/* ---- snapshots ---- */

static void app_snap_publish(struct app_run *run, const char *result, const char *msg)
{
	run->snap.seq++;
	snprintf(run->snap.result, sizeof run->snap.result, "%s", result);
	snprintf(run->snap.message, sizeof run->snap.message, "%s", msg);
	struct bt_error e = {0};
	if (app_snapfile_write(&run->snap, &e) != BT_OK)
		bt_log_warn("snapshot state for `bagtop snapshot`: %s", e.msg);
}

static const char *const app_trigger_results[] = {
	[REC_TRIGGER_STARTED] = "started", [REC_TRIGGER_EMPTY] = "empty",
	[REC_TRIGGER_BUSY] = "busy", [REC_TRIGGER_STOPPING] = "stopping",
	[REC_TRIGGER_NOT_SNAPSHOT] = "not-snapshot"};

/* Triggers a snapshot and says what the trigger did; *id: the snapshot's
 * id when it started. */
static enum rec_trigger app_snap_start(struct app_run *run, uint64_t *id)
{
	enum rec_trigger t = rec_recorder_snapshot(run->rec, id);
	app_run_say(run, t == REC_TRIGGER_STARTED ? TUI_SEV_INFO : TUI_SEV_WARN, "%s",
		    rec_trigger_str(t));
	return t;
}

/* SIGUSR1 (and the TUI's `s`). */
void app_run_snap_trigger(struct app_run *run)
{
	uint64_t id = 0;
	enum rec_trigger t = app_snap_start(run, &id);
	if (t != REC_TRIGGER_STARTED) /* else: when it is written */
		app_snap_publish(run, app_trigger_results[t], rec_trigger_str(t));
}

/* Answers one `bagtop snapshot` in its own file. */
static void app_snap_answer(pid_t to, uint64_t request, const char *result, uint64_t messages,
			    const char *file, const char *msg)
{
	struct app_snapstate a = {.request = request, .messages = messages};
	snprintf(a.result, sizeof a.result, "%s", result);
	snprintf(a.file, sizeof a.file, "%s", file);
	snprintf(a.message, sizeof a.message, "%s", msg);
	struct bt_error e = {0};
	if (app_snapfile_answer_write(to, &a, &e) != BT_OK)
		bt_log_warn("answer to `bagtop snapshot` (process %ld): %s", (long)to, e.msg);
}

void app_run_snap_request(struct app_run *run, pid_t from, uint64_t request)
{
	uint64_t id = 0;
	enum rec_trigger t = app_snap_start(run, &id);
	if (t != REC_TRIGGER_STARTED) {
		app_snap_answer(from, request, app_trigger_results[t], 0, "", rec_trigger_str(t));
		app_snap_publish(run, app_trigger_results[t], rec_trigger_str(t));
	} else if (run->n_reqs < APP_SNAP_REQ_MAX) {
		run->reqs[run->n_reqs++] = (struct app_snap_req){from, request, id};
	} else { /* it is written all the same; this requester is not told where */
		app_snap_answer(from, request, "failed", 0, "",
				"snapshot started, but too many requests are waiting to be "
				"answered");
	}
}

/* Answers the requests that started snapshot `d->id` (or an earlier one,
 * which no report will come for). */
static void app_snap_answer_done(struct app_run *run, const struct rec_snapshot_done *d,
				 const char *msg)
{
	size_t kept = 0;
	for (size_t i = 0; i < run->n_reqs; i++) {
		struct app_snap_req *q = &run->reqs[i];
		if (q->id > d->id) {
			run->reqs[kept++] = *q;
			continue;
		}
		bool ok = q->id == d->id && d->status == BT_OK;
		app_snap_answer(q->pid, q->request, ok ? "ok" : "failed", ok ? d->messages : 0,
				q->id == d->id ? run->snap.file : "",
				q->id == d->id ? msg : "snapshot not reported");
	}
	run->n_reqs = kept;
}

/* The writer thread finished a snapshot: hand it to the run loop. */
static void app_on_snapshot(void *ctx, const struct rec_snapshot_done *d)
{
	struct app_run *run = ctx;
	pthread_mutex_lock(&run->done_mu);
	run->done = *d;
	run->done_pending = true;
	pthread_mutex_unlock(&run->done_mu);
	kill(getpid(), SIGUSR2); /* blocked everywhere: the run loop takes it */
}

/* SIGUSR2: report a finished snapshot. */
void app_run_snap_done(struct app_run *run)
{
	pthread_mutex_lock(&run->done_mu);
	struct rec_snapshot_done d = run->done;
	bool pending = run->done_pending;
	run->done_pending = false;
	pthread_mutex_unlock(&run->done_mu);
	if (!pending)
		return;
	run->snap_count += d.status == BT_OK;
	char msg[sizeof run->snap.message];
	if (d.status == BT_OK)
		snprintf(msg, sizeof msg, "snapshot %llu: %llu message%s written to %s/%s",
			 (unsigned long long)d.id, (unsigned long long)d.messages,
			 bt_fmt_s(d.messages), run->bag, d.file);
	else
		snprintf(msg, sizeof msg, "snapshot %llu failed: %s", (unsigned long long)d.id,
			 bt_status_str(d.status));
	app_run_say(run, d.status == BT_OK ? TUI_SEV_INFO : TUI_SEV_ERROR, "%s", msg);
	run->snap.messages = d.messages;
	/* `bagtop snapshot` runs elsewhere: give it an absolute path. */
	char *rel = bt_xasprintf("%s/%s", run->bag, d.file);
	char *abs = realpath(rel, NULL);
	snprintf(run->snap.file, sizeof run->snap.file, "%s", abs != NULL ? abs : rel);
	free(abs);
	free(rel);
	app_snap_answer_done(run, &d, msg);
	app_snap_publish(run, d.status == BT_OK ? "ok" : "failed", msg);
}

/* ---- pause and resume ---- */

static void app_state_publish(struct app_run *run)
{
	struct bt_error e = {0};
	if (app_snapfile_write(&run->snap, &e) != BT_OK)
		bt_log_warn("state for `bagtop pause` and `bagtop resume`: %s", e.msg);
}

void app_run_set_paused(struct app_run *run, bool paused, pid_t from)
{
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	rec_recorder_pause(run->rec, paused);
	char by[48] = "";
	if (from > 0 && from != getpid())
		snprintf(by, sizeof by, " (asked by process %ld)", (long)from);
	if (st.paused == paused)
		app_run_say(run, TUI_SEV_INFO, "recording already %s%s",
			    paused ? "paused" : "running", by);
	else
		app_run_say(run, TUI_SEV_INFO, "recording %s%s", paused ? "paused" : "resumed", by);
	run->snap.paused = paused;
	run->snap.pause_seq++;
	app_state_publish(run);
}

/* A signal wait that failed (not a timeout, not an interruption): said
 * once, and a pause instead, so that no caller's loop spins. */
static void app_wait_failed(int e)
{
	static atomic_bool said;
	if (!atomic_exchange(&said, true))
		bt_log_error("waiting for signals failed: %s", strerror(e));
	struct timespec pause = {0, 10 * 1000 * 1000};
	nanosleep(&pause, NULL);
}

int app_run_take_signal(struct app_run *run, const struct timespec *wait)
{
	siginfo_t si;
	int sig = sigtimedwait(&run->all_sigs, &si, wait);
	if (sig < 0 && errno != EAGAIN && errno != EINTR)
		app_wait_failed(errno);
	if (sig == SIGUSR1)
		app_run_snap_trigger(run);
	else if (sig == APP_SIG_SNAPSHOT)
		app_run_snap_request(run, si.si_pid, (uint64_t)(unsigned)si.si_value.sival_int);
	else if (sig == SIGUSR2)
		app_run_snap_done(run);
	else if (sig == APP_SIG_PAUSE || sig == APP_SIG_RESUME)
		app_run_set_paused(run, sig == APP_SIG_PAUSE, si.si_pid);
	else if (sig > 0)
		return sig;
	return 0;
}

/* Waits for a stop signal, the end of the duration or a failed write,
 * printing a status line every period. Returns the signal, or 0. */
static int app_wait(struct app_run *run, double rate, int64_t duration_ns)
{
	int64_t period = rate > 0 ? bt_time_period_ns(rate, APP_MIN_PERIOD_NS, APP_MAX_PERIOD_NS)
				  : BT_NS_PER_S;
	int64_t next = run->t0 + period;
	for (;;) {
		int64_t now = bt_time_monotonic_ns();
		int64_t until = next;
		if (duration_ns > 0 && run->t0 + duration_ns < until)
			until = run->t0 + duration_ns;
		struct timespec ts = bt_time_timespec(until - now);
		int sig = app_run_take_signal(run, &ts);
		if (sig > 0)
			return sig;
		now = bt_time_monotonic_ns();
		if (duration_ns > 0 && now >= run->t0 + duration_ns)
			return 0;
		struct rec_status st;
		rec_recorder_get_status(run->rec, &st);
		if (st.write_failed)
			return 0;
		if (now >= next) {
			if (rate > 0)
				app_status_line(run);
			app_run_loss_check(run, now);
			next += period;
			if (next < now)
				next = now + period;
		}
	}
}

void app_run_abandon(struct app_run *run, const char *why)
{
	if (atomic_load(&run->finished) || atomic_exchange(&run->abandoning, true))
		return;
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	char fill[32];
	bt_fmt_iec(st.cache_fill, fill, sizeof fill);
	app_run_say(run, TUI_SEV_WARN, "%s: abandoning what is not written yet (%s still in the "
		    "cache) in %s: what is committed is kept, with its metadata", why, fill,
		    run->bag);
	rec_recorder_abandon(run->rec);
}

void app_run_stop_tick(struct app_run *run)
{
	int64_t t0 = atomic_load(&run->stop_t0), limit = run->cfg->stop_timeout_ns;
	if (t0 == 0 || limit <= 0 || atomic_load(&run->abandoning) ||
	    bt_time_monotonic_ns() - t0 < limit)
		return;
	char why[64];
	snprintf(why, sizeof why, "still finishing after --stop-timeout %.3g s",
		 (double)limit / 1e9);
	app_run_abandon(run, why);
}

/* While the bag is being finished: a second stop signal, or the end of
 * --stop-timeout, abandons what is still buffered. */
static void *app_watch(void *arg)
{
	struct app_run *run = arg;
	pthread_setname_np(pthread_self(), "app-watch");
	while (!atomic_load(&run->finished)) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		int sig = sigtimedwait(&run->sigs, NULL, &ts);
		if (sig < 0 && errno != EAGAIN && errno != EINTR)
			app_wait_failed(errno);
		if (sig > 0) {
			char why[64];
			snprintf(why, sizeof why, "%s again", strsignal(sig));
			app_run_abandon(run, why);
		}
		app_run_stop_tick(run);
	}
	return NULL;
}

static void app_run_summary(struct app_run *run)
{
	const struct rec_topics *t = rec_recorder_topics(run->rec);
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	char bytes[32];
	bt_fmt_iec(st.bytes, bytes, sizeof bytes);
	printf("Recorded %llu message%s (%s) on %zu topic%s into %s; lost %llu in transport, "
	       "%llu in the recorder\n",
	       (unsigned long long)st.recorded, bt_fmt_s(st.recorded), bytes, st.topics_recorded,
	       bt_fmt_s(st.topics_recorded), run->bag,
	       (unsigned long long)st.lost_transport, (unsigned long long)st.lost_recorder);
	if (st.snapshot_mode)
		printf("Snapshot mode: %llu snapshot%s; not written by design: %llu message%s "
		       "evicted from the buffer, %llu still in it at the end\n",
		       (unsigned long long)run->snap_count, bt_fmt_s(run->snap_count),
		       (unsigned long long)st.evicted, bt_fmt_s(st.evicted),
		       (unsigned long long)st.snapshot_buffered);
	if (st.repeated != 0)
		printf("Repeated transient-local messages written: %llu\n",
		       (unsigned long long)st.repeated);
	size_t n = rec_topics_count(t);
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(t, i);
		if (!atomic_load(&tp->subscribed))
			continue;
		struct rec_topic_stats *s = &tp->st;
		printf("  %-32s %10llu recorded  lost %llu transport, %llu recorder\n", tp->name,
		       (unsigned long long)atomic_load(&s->recorded),
		       (unsigned long long)rec_topic_lost_transport(s),
		       (unsigned long long)rec_topic_lost_recorder(s));
	}
}


static int app_start_error(const struct app_cmd *cmd, bt_status st, const struct bt_error *e)
{
	if (st == BT_ERR_USAGE)
		return app_usage_error(cmd, "%s", e->msg);
	app_error("%s", e->msg);
	return st == BT_ERR_DDS ? APP_EXIT_DDS : APP_EXIT_ERROR;
}

int app_run_start(struct app_run *run, const struct app_cmd *cmd, struct app_record_cfg *c)
{
	memset(run, 0, sizeof *run);
	run->cfg = c;
	run->bag = c->w.output;
	sigemptyset(&run->sigs);
	sigaddset(&run->sigs, SIGINT);
	sigaddset(&run->sigs, SIGTERM);
	sigaddset(&run->sigs, SIGHUP);
	run->all_sigs = run->sigs;
	sigaddset(&run->all_sigs, SIGUSR1);
	sigaddset(&run->all_sigs, APP_SIG_SNAPSHOT);
	sigaddset(&run->all_sigs, SIGUSR2);
	sigaddset(&run->all_sigs, APP_SIG_PAUSE);
	sigaddset(&run->all_sigs, APP_SIG_RESUME);
	if (pthread_mutex_init(&run->done_mu, NULL) != 0)
		abort(); /* cannot fail on Linux */
	atomic_init(&run->finished, false);
	atomic_init(&run->log_failed, false);
	atomic_init(&run->stop_t0, 0);
	atomic_init(&run->abandoning, false);
	c->ro.on_snapshot = app_on_snapshot;
	c->ro.on_snapshot_ctx = run;
	if (c->log_file != NULL && (run->log = fopen(c->log_file, "a")) == NULL) {
		app_error("cannot open the log file %s: %s", c->log_file, strerror(errno));
		pthread_mutex_destroy(&run->done_mu);
		return APP_EXIT_ERROR;
	}
	pthread_sigmask(SIG_BLOCK, &run->all_sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Info lines are for the live view and the log file. */
	bt_log_set_level(BT_LOG_INFO);
	bt_log_set_sink(app_log_sink, run);
	rec_log_route_dds(true);
	struct bt_error err = {0};
	bt_status st = rec_recorder_start(&c->ro, &run->rec, &err);
	if (st != BT_OK) {
		app_run_end(run);
		return app_start_error(cmd, st, &err);
	}
	run->snap.paused = c->ro.start_paused;
	app_snap_publish(run, "ready", "recording");
	run->t0 = run->last_t = bt_time_monotonic_ns();
	return 0;
}

void app_run_end(struct app_run *run)
{
	app_snapfile_remove();
	rec_recorder_free(run->rec);
	run->rec = NULL;
	free(run->loss);
	run->loss = NULL;
	rec_log_route_dds(false);
	bt_log_set_sink(NULL, NULL);
	if (run->log != NULL && fclose(run->log) != 0 && !atomic_load(&run->log_failed))
		fprintf(stderr, "bagtop: warning: closing the log file: %s\n", strerror(errno));
	run->log = NULL;
	pthread_mutex_destroy(&run->done_mu);
	/* A trigger that came too late must not kill us once unblocked. */
	struct timespec zero = {0, 0};
	while (sigtimedwait(&run->all_sigs, NULL, &zero) > 0)
		;
	pthread_sigmask(SIG_UNBLOCK, &run->all_sigs, NULL);
}

bt_status app_run_stop(struct app_run *run, struct bt_error *err)
{
	atomic_store(&run->stop_t0, bt_time_monotonic_ns());
	bt_status st = rec_recorder_stop(run->rec, err);
	atomic_store(&run->finished, true);
	return st;
}

int app_run_report(struct app_run *run, bt_status st, const struct bt_error *err)
{
	app_run_summary(run);
	fflush(stdout);
	struct rec_status rs;
	rec_recorder_get_status(run->rec, &rs);
	if (st == BT_OK && rs.abandoned != 0) {
		char size[32];
		bt_fmt_iec(rs.abandoned_bytes, size, sizeof size);
		app_error("stopped before everything was written: %llu messages (%s) abandoned, "
			  "counted as lost; %s holds the %llu committed before",
			  (unsigned long long)rs.abandoned, size, run->bag,
			  (unsigned long long)rs.recorded);
		return APP_EXIT_ERROR;
	}
	if (st == BT_OK)
		return APP_EXIT_OK;
	app_error("%s (the %llu messages committed before are kept in %s)", err->msg,
		  (unsigned long long)rs.recorded, run->bag);
	return APP_EXIT_ERROR;
}

int app_run_headless(struct app_run *run)
{
	const struct app_record_cfg *c = run->cfg;
	printf("Recording to %s%s (Ctrl-C to stop%s)\n", run->bag,
	       c->ro.start_paused ? ", paused" : "",
	       c->ro.snapshot_mode ? "; snapshot: kill -USR1 or bagtop snapshot --pid" : "");
	struct app_keys keys = {.started = false};
	/* Like rosbag2's "Press SPACE for pausing/resuming", once. */
	if (!c->no_keys && app_keys_start(&keys, run->rec))
		printf("Press SPACE to pause/resume recording (or bagtop pause|resume --pid %ld)\n",
		       (long)getpid());
	fflush(stdout);
	int sig = app_wait(run, c->update_rate, c->duration_ns);
	app_keys_stop(&keys); /* the terminal as it was, before the summary */
	if (sig > 0)
		fprintf(stderr, "bagtop: %s: finishing the bag %s (again: abandon what is not "
			"written yet)\n", strsignal(sig), run->bag);
	pthread_t watcher;
	bool watching = pthread_create(&watcher, NULL, app_watch, run) == 0;
	struct bt_error err = {0};
	bt_status st = app_run_stop(run, &err);
	if (watching)
		pthread_join(watcher, NULL);
	app_run_snap_done(run); /* one finished while stopping */
	return app_run_report(run, st, &err);
}
