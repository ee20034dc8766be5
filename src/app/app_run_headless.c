/* app_run_headless — the session without the live view: status lines and
 * loss lines until a stop signal, the duration or a failed write, Space to
 * pause or resume (app_keys.c), then the stop.
 *
 * Threads: the loop runs on the owner (main) thread, which also receives
 * every signal; while the bag is being finished a small thread
 * ("app-watch") answers a further stop signal, or the end of
 * --stop-timeout, by abandoning what is not written yet. */
#include "app__run.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "app_keys.h"
#include "bt_fmt.h"
#include "bt_time.h"

/* Status line periods: the option's 100 Hz .. 0.001 Hz, whatever is given. */
#define APP_MIN_PERIOD_NS INT64_C(10000000)
#define APP_MAX_PERIOD_NS (INT64_C(1000) * BT_NS_PER_S)

static void app_status_line(struct app_run *run)
{
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	int64_t now = bt_time_monotonic_ns();
	struct rec_rate_total r;
	rec_rates_get(rec_recorder_rates(run->rec), now, 0, NULL, NULL, &r);
	uint64_t rate = (uint64_t)r.committed_bps;
	char el[32], bytes[32], bw[32];
	app_run_elapsed(run, now, el, sizeof el);
	bt_fmt_iec(st.bytes, bytes, sizeof bytes);
	bt_fmt_iec(rate, bw, sizeof bw);
	const char *file = strrchr(st.current_file, '/');
	printf("[%s] %s%s%s%zu/%zu topic%s | %llu recorded, %s (%s/s) | lost %llu transport, "
	       "%llu recorder | cache %zu%% | %s\n",
	       el, st.paused ? "PAUSED " : "", st.waiting_clock ? "WAITING FOR /clock " : "",
	       st.disk_guard ? "STOPPED: DISK GUARD " : "",
	       st.topics_recorded, st.topics_seen, bt_fmt_s(st.topics_seen),
	       (unsigned long long)st.recorded, bytes, bw, (unsigned long long)st.lost_transport,
	       (unsigned long long)st.lost_recorder,
	       st.cache_max ? (size_t)(100.0 * (double)st.cache_fill / (double)st.cache_max) : 0,
	       file ? file + 1 : st.current_file);
	fflush(stdout);
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
			app_run_trim(run, now);
			next += period;
			if (next < now)
				next = now + period;
		}
	}
}

/* While the bag is being finished: a second stop signal (not an echo of
 * the first: app_run_sig_echo), or the end of --stop-timeout, abandons
 * what is still buffered. */
static void *app_watch(void *arg)
{
	struct app_run *run = arg;
	pthread_setname_np(pthread_self(), "app-watch");
	while (!atomic_load(&run->finished)) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		int sig = sigtimedwait(&run->sigs, NULL, &ts);
		if (sig < 0 && errno != EAGAIN && errno != EINTR)
			app_run_wait_failed(errno);
		if (sig > 0 && !app_run_sig_echo(run)) {
			char why[64];
			snprintf(why, sizeof why, "%s again", strsignal(sig));
			app_run_abandon(run, why);
		}
		app_run_stop_tick(run);
	}
	return NULL;
}

int app_run_headless(struct app_run *run)
{
	const struct app_record_cfg *c = run->cfg;
	printf("Recording to %s%s (Ctrl-C to stop%s)\n", run->bag,
	       c->ro.start_paused ? ", paused" : "",
	       c->ro.snapshot_mode ? "; snapshot: kill -USR1 or bagtop snapshot --pid" : "");
	struct app_keys keys = {.started = false};
	/* Like rosbag2's "Press SPACE for pausing/resuming", once. */
	if (!c->no_keys && app_keys_start(&keys, run->cmdq))
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
	return app_run_report(run, st, &err);
}
