/* app_run — the session itself (see app__run.h): starts the recorder with
 * the signals blocked, stops it (abandoning on request or after
 * --stop-timeout), ends it, and reports the summary and exit status.
 *
 * Threads: start, end and report run on the owner (main) thread; stop runs
 * on whichever thread finishes the bag; abandon and stop_tick on any other
 * thread while it does. */
#include "app__run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bag_storage.h"
#include "bt_fmt.h"
#include "bt_time.h"

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
	atomic_init(&run->stop_t0, 0);
	atomic_init(&run->abandoning, false);
	c->ro.on_snapshot = app_run_on_snapshot;
	c->ro.on_snapshot_ctx = run;
	if (!app_run_log_open(run)) {
		pthread_mutex_destroy(&run->done_mu);
		return APP_EXIT_ERROR;
	}
	pthread_sigmask(SIG_BLOCK, &run->all_sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	app_run_log_start(run);
	struct bt_error err = {0};
	bt_status st = rec_recorder_start(&c->ro, &run->rec, &err);
	if (st != BT_OK) {
		app_run_end(run);
		return app_start_error(cmd, st, &err);
	}
	run->snap.paused = c->ro.start_paused;
	app_run_snap_publish(run, "ready", "recording");
	run->t0 = bt_time_monotonic_ns();
	return 0;
}

void app_run_end(struct app_run *run)
{
	app_snapfile_remove();
	rec_recorder_free(run->rec);
	run->rec = NULL;
	free(run->loss);
	run->loss = NULL;
	app_run_log_end(run);
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
	/* An append-only storage (mcap) makes a commit durable once its chunk
	 * is written, within a second: the last second's may be gone. */
	const struct bag_storage_ops *ops = bag_storage_find(run->cfg->w.opt.storage_id);
	app_error("%s (the %llu messages committed before%s are kept in %s)", err->msg,
		  (unsigned long long)rs.recorded,
		  ops && ops->append_only ? ", but for those of the last second," : "", run->bag);
	return APP_EXIT_ERROR;
}
