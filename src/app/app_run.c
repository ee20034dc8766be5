/* app_run — the session itself (see app__run.h): starts the recorder with
 * the signals blocked, stops it (abandoning on request or after
 * --stop-timeout), ends it, and reports the summary and exit status.
 *
 * Threads: start, end and report run on the owner (main) thread; stop runs
 * on whichever thread finishes the bag; abandon and stop_tick on any other
 * thread while it does. A stop request while abandoning, or a writer that
 * has not returned 10 s after abandoning, ends the process there and then
 * (app_run_give_up): a stop always stops. */
#include "app__run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "bag_storage.h"
#include "bt_buf.h"
#include "bt_fmt.h"
#include "bt_heap.h"
#include "bt_time.h"

/* How long the bag's writer may take to return once abandoning began:
 * it stops within its current batch, unless a call is stuck in the kernel
 * (a dead NFS server, a failing disk). Then the process ends without it. */
#define APP_GIVE_UP_NS (INT64_C(10) * 1000000000)

/* The stop that must stop, when the writer does not return: the terminal
 * restored, one line, exit 1 at once. What was committed is on disk (the
 * storage survives a killed process); metadata.yaml may be behind, which
 * `bagtop reindex` rebuilds. */
static _Noreturn void app_run_give_up(struct app_run *run, const char *why)
{
	if (atomic_load(&run->screen_active)) {
		static const char leave[] = "\033[?1049l\033[?25h\r\n";
		(void)!write(STDOUT_FILENO, leave, sizeof leave - 1);
	}
	if (run->tty_saved)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &run->tty); /* exiting: best effort */
	fflush(stdout);
	int fd = atomic_load(&run->real_stderr);
	dprintf(fd >= 0 ? fd : STDERR_FILENO, "bagtop: error: %s: exiting without finishing the "
		"bag %s; what was committed is on disk: run 'bagtop reindex %s'\n", why, run->bag,
		run->bag);
	_exit(APP_EXIT_ERROR);
}

void app_run_abandon(struct app_run *run, const char *why)
{
	if (atomic_load(&run->finished))
		return;
	if (atomic_exchange(&run->abandoning, true)) {
		char what[96];
		snprintf(what, sizeof what, "%s while abandoning", why);
		app_run_give_up(run, what);
	}
	atomic_store(&run->abandon_t0, bt_time_monotonic_ns());
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
	int64_t a0 = atomic_load(&run->abandon_t0);
	if (a0 != 0 && !atomic_load(&run->finished) &&
	    bt_time_monotonic_ns() - a0 >= APP_GIVE_UP_NS)
		app_run_give_up(run, "the writer has not returned 10 s after abandoning (stuck "
				     "in I/O?)");
	int64_t t0 = atomic_load(&run->stop_t0), limit = run->cfg->stop_timeout_ns;
	if (t0 == 0 || limit <= 0 || atomic_load(&run->abandoning) ||
	    bt_time_monotonic_ns() - t0 < limit)
		return;
	char why[64];
	snprintf(why, sizeof why, "still finishing after --stop-timeout %.3g s",
		 (double)limit / 1e9);
	app_run_abandon(run, why);
}

/* The recorder's on_file_closed (writer thread): queues the command. */
static void app_run_on_file_closed(void *ctx, const struct bag_file_closed *f,
				   const char *reason)
{
	struct app_run *run = ctx;
	app_hook_file_closed(run->hook, f->path, reason, f->messages, f->ok);
}

static bt_status app_run_hook_start(struct app_run *run, struct app_record_cfg *c,
				    struct bt_error *err)
{
	if (c->hook_cmd == NULL)
		return BT_OK;
	struct app_hook_options ho = {c->hook_cmd, c->hook_jobs, c->w.output};
	bt_status st = app_hook_start(&ho, &run->hook, err);
	if (st == BT_OK) {
		c->ro.on_file_closed = app_run_on_file_closed;
		c->ro.on_file_closed_ctx = run;
	}
	return st;
}

/* After the recorder stopped: waits for the --on-file-closed commands
 * (at most --on-file-closed-timeout), saying so if there are any; the
 * lines naming those killed or never run, for the summary. */
static void app_run_hook_finish(struct app_run *run, struct bt_buf *left)
{
	if (run->hook == NULL)
		return;
	size_t n = app_hook_pending(run->hook);
	if (n != 0 && run->cfg->hook_timeout_ns > 0) {
		printf("Waiting up to %.3g s for %zu --on-file-closed command%s\n",
		       (double)run->cfg->hook_timeout_ns / 1e9, n, bt_fmt_s(n));
		fflush(stdout);
	}
	app_hook_finish(run->hook, run->cfg->hook_timeout_ns, left);
}

static void app_run_summary(struct app_run *run)
{
	const struct rec_topics *t = rec_recorder_topics(run->rec);
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	char bytes[32];
	bt_fmt_iec(st.bytes, bytes, sizeof bytes);
	printf("Recorded %llu message%s (%s) on %zu topic%s into %s; lost %llu in transport, "
	       "%llu in the recorder",
	       (unsigned long long)st.recorded, bt_fmt_s(st.recorded), bytes, st.topics_recorded,
	       bt_fmt_s(st.topics_recorded), run->bag,
	       (unsigned long long)st.lost_transport, (unsigned long long)st.lost_recorder);
	/* not a loss: said apart, and only when a --throttle took some */
	if (st.throttled != 0)
		printf("; throttled %llu (--throttle, not lost)", (unsigned long long)st.throttled);
	printf("\n");
	if (st.snapshot_mode)
		printf("Snapshot mode: %llu snapshot%s; not written by design: %llu message%s "
		       "evicted from the buffer, %llu still in it at the end\n",
		       (unsigned long long)run->snap_count, bt_fmt_s(run->snap_count),
		       (unsigned long long)st.evicted, bt_fmt_s(st.evicted),
		       (unsigned long long)st.snapshot_buffered);
	if (st.repeated != 0)
		printf("Repeated transient-local messages written: %llu\n",
		       (unsigned long long)st.repeated);
	struct bt_cmdq_stats cs;
	bt_cmdq_get_stats(run->cmdq, &cs);
	if (cs.refused_full != 0)
		printf("Commands: %llu run, %llu refused because too many were waiting\n",
		       (unsigned long long)cs.submitted, (unsigned long long)cs.refused_full);
	size_t n = rec_topics_count(t);
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(t, i);
		if (!atomic_load(&tp->subscribed))
			continue;
		struct rec_topic_stats *s = &tp->st;
		printf("  %-32s %10llu recorded  lost %llu transport, %llu recorder",
		       tp->names.name, (unsigned long long)atomic_load(&s->recorded),
		       (unsigned long long)rec_topic_lost_transport(s),
		       (unsigned long long)rec_topic_lost_recorder(s));
		if (tp->throttle != NULL)
			printf("  throttled %llu", (unsigned long long)atomic_load(&s->throttled));
		printf("\n");
	}
	struct bt_buf left = {0};
	app_run_hook_finish(run, &left);
	if (left.len != 0)
		fwrite(left.data, 1, left.len, stdout);
	bt_buf_fini(&left);
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
	/* What the writer frees at once is at most the cache (bt_heap.h). */
	bt_heap_setup(c->ro.max_cache_size);
	run->bag = c->w.output;
	sigemptyset(&run->sigs);
	sigaddset(&run->sigs, SIGINT);
	sigaddset(&run->sigs, SIGTERM);
	sigaddset(&run->sigs, SIGHUP);
	run->all_sigs = run->sigs;
	sigaddset(&run->all_sigs, SIGUSR1);
	sigaddset(&run->all_sigs, APP_SIG_SNAPSHOT);
	/* No longer sent by us; still taken, so that a stray one does not end
	 * the recording (the default action) as it never did. */
	sigaddset(&run->all_sigs, SIGUSR2);
	sigaddset(&run->all_sigs, APP_SIG_PAUSE);
	sigaddset(&run->all_sigs, APP_SIG_RESUME);
	if (pthread_mutex_init(&run->done_mu, NULL) != 0 ||
	    pthread_mutex_init(&run->say_mu, NULL) != 0)
		abort(); /* cannot fail on Linux */
	atomic_init(&run->finished, false);
	atomic_init(&run->stop_t0, 0);
	atomic_init(&run->abandoning, false);
	atomic_init(&run->abandon_t0, 0);
	atomic_init(&run->stop_sig_t, 0);
	atomic_init(&run->screen_active, false);
	atomic_init(&run->real_stderr, -1);
	run->tty_saved = isatty(STDIN_FILENO) && tcgetattr(STDIN_FILENO, &run->tty) == 0;
	c->ro.on_snapshot = app_run_on_snapshot;
	c->ro.on_snapshot_ctx = run;
	run->cmdq = bt_cmdq_new(BT_CMDQ_CAPACITY_DEFAULT);
	c->ro.cmdq = run->cmdq;
	if (run->cmdq == NULL || !app_run_log_open(run)) {
		if (run->cmdq == NULL)
			app_error("out of memory");
		bt_cmdq_free(run->cmdq);
		pthread_mutex_destroy(&run->say_mu);
		pthread_mutex_destroy(&run->done_mu);
		return APP_EXIT_ERROR;
	}
	pthread_sigmask(SIG_BLOCK, &run->all_sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	app_run_log_start(run);
	struct bt_error err = {0};
	bt_status st = app_run_hook_start(run, c, &err);
	if (st == BT_OK)
		st = rec_recorder_start(&c->ro, &run->rec, &err);
	if (st != BT_OK) {
		app_run_end(run);
		return app_start_error(cmd, st, &err);
	}
	run->snap.paused = c->ro.start_paused;
	app_run_snap_publish(run, "ready", "recording");
	run->t0 = bt_time_monotonic_ns();
	if (!app_run_cmd_start(run)) {
		app_error("cannot start the command thread");
		struct bt_error e = {0};
		(void)app_run_stop(run, &e); /* failing anyway: its error would be a second */
		app_run_end(run);
		return APP_EXIT_ERROR;
	}
	return 0;
}

void app_run_end(struct app_run *run)
{
	app_run_cmd_stop(run);
	app_snapfile_remove();
	rec_recorder_free(run->rec);
	run->rec = NULL;
	bt_cmdq_free(run->cmdq); /* after the recorder: its services submit to it */
	run->cmdq = NULL;
	app_hook_free(run->hook); /* after the recorder: its writer feeds the hook */
	run->hook = NULL;
	free(run->loss);
	run->loss = NULL;
	app_run_log_end(run);
	pthread_mutex_destroy(&run->say_mu);
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
	app_run_cmd_stop(run); /* the last snapshots said and counted */
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
	/* An append-only storage (mcap) makes a commit durable once its chunk
	 * is written, within a second: the last second's may be gone. */
	const struct bag_storage_ops *ops = bag_storage_find(run->cfg->w.opt.storage_id);
	app_error("%s (the %llu messages committed before%s are kept in %s)", err->msg,
		  (unsigned long long)rs.recorded,
		  ops && ops->append_only ? ", but for those of the last second," : "", run->bag);
	return APP_EXIT_ERROR;
}
