/* app_record — shared capture options and the headless run loop.
 *
 * Signals: SIGINT, SIGTERM and SIGHUP are blocked before the recorder
 * starts its threads (they inherit the mask), and received in one place,
 * sigtimedwait in the run loop; nothing exits from a signal handler. While
 * the bag is being finished a small thread answers further signals by
 * saying what is still being written: nothing is cut short. */
#include "app_record.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "bt_fmt.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "bt_time.h"

#define APP_DEFAULT_CACHE (UINT64_C(100) * 1024 * 1024)

void app_record_cfg_init(struct app_record_cfg *c)
{
	memset(c, 0, sizeof *c);
	app_writer_cfg_init(&c->w);
	c->ro.domain_id = REC_DOMAIN_DEFAULT;
	c->ro.max_cache_size = APP_DEFAULT_CACHE;
	c->update_rate = 1.0;
}

void app_record_cfg_fini(struct app_record_cfg *c)
{
	app_writer_cfg_fini(&c->w);
	free(c->topics);
	free(c->exclude);
	memset(c, 0, sizeof *c);
}

static void app_push_str(const char ***arr, size_t *n, const char *s)
{
	*arr = bt_xrealloc((void *)*arr, (*n + 1) * sizeof **arr);
	(*arr)[(*n)++] = s;
}

static int app_r_numbers(const struct app_cmd *cmd, struct app_record_cfg *c, int id,
			 const char *arg)
{
	uint64_t u;
	switch (id) {
	case APP_R_DOMAIN:
		/* DDSI maps domain ids to ports: 232 is the largest that fits. */
		if (bt_parse_u64(arg, 0, 232, &u) != BT_OK)
			return app_usage_error(cmd, "--domain wants 0..232, got '%s'", arg);
		c->ro.domain_id = (uint32_t)u;
		return 0;
	case APP_R_CACHE:
		if (bt_parse_size(arg, &u) != BT_OK || u > SIZE_MAX / 2)
			return app_usage_error(cmd, "--max-cache-size wants a byte count, got '%s'",
					       arg);
		c->ro.max_cache_size = (size_t)u;
		return 0;
	default: { /* APP_R_STATS_RATE */
		char *end = NULL;
		double hz = strtod(arg, &end);
		if (end == arg || *end != '\0' || !(hz >= 0.0 && hz <= 100.0))
			return app_usage_error(cmd, "--statistics-update-rate wants 0..100 Hz, "
					       "got '%s'", arg);
		c->update_rate = hz;
		return 0;
	}
	}
}

int app_record_opt(const struct app_cmd *cmd, struct app_record_cfg *c, const struct app_opt *o,
		   const char *arg)
{
	struct rec_select_options *s = &c->ro.select;
	switch (o->id) {
	case APP_R_ALL: s->all = true; return 0;
	case APP_R_REGEX: s->regex = arg; return 0;
	case APP_R_EXCLUDE_REGEX: s->exclude_regex = arg; return 0;
	case APP_R_EXCLUDE_TOPICS: app_push_str(&c->exclude, &c->n_exclude, arg); return 0;
	case APP_R_HIDDEN: s->include_hidden = true; return 0;
	case APP_R_QOS_OVERRIDES: c->ro.qos_overrides_path = arg; return 0;
	case APP_R_START_PAUSED: c->ro.start_paused = true; return 0;
	case APP_R_NO_TUI: c->no_tui = true; return 0;
	case APP_R_DOMAIN:
	case APP_R_CACHE:
	case APP_R_STATS_RATE: return app_r_numbers(cmd, c, o->id, arg);
	default: return app_writer_opt(cmd, &c->w, o, arg);
	}
}

int app_record_finish(const struct app_cmd *cmd, struct app_record_cfg *c)
{
	int rc = app_writer_finish(cmd, &c->w);
	if (rc != 0)
		return rc;
	c->ro.writer = c->w.opt;
	c->ro.select.topics = c->topics;
	c->ro.select.n_topics = c->n_topics;
	c->ro.select.exclude_topics = c->exclude;
	c->ro.select.n_exclude_topics = c->n_exclude;
	/* Test hook (not an option): a slow disk, on purpose. */
	const char *delay = getenv("BAGTOP_TEST_CONSUMER_DELAY_US");
	uint64_t us;
	if (delay != NULL && bt_parse_u64(delay, 0, 10000000, &us) == BT_OK)
		c->ro.test_consumer_delay_us = (uint32_t)us;
	return 0;
}

/* ---- the run loop ------------------------------------------------------ */

struct app_run {
	struct rec_recorder *rec;
	const char *bag;
	sigset_t sigs;
	int64_t t0;
	uint64_t last_bytes;
	int64_t last_t;
	atomic_bool finished; /* the bag is complete: the watcher may go */
};

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
	int64_t secs = (now - run->t0) / 1000000000;
	snprintf(el, sizeof el, "%02lld:%02lld:%02lld", (long long)(secs / 3600),
		 (long long)(secs / 60 % 60), (long long)(secs % 60));
	bt_fmt_iec(st.bytes, bytes, sizeof bytes);
	bt_fmt_iec(rate, bw, sizeof bw);
	const char *file = strrchr(st.current_file, '/');
	printf("[%s] %s%zu/%zu topics | %llu msgs, %s (%s/s) | lost %llu transport, %llu recorder "
	       "| cache %zu%% | %s\n",
	       el, st.paused ? "PAUSED " : "", st.topics_recorded, st.topics_seen,
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
	int64_t period = rate > 0 ? (int64_t)(1e9 / rate) : INT64_C(1000000000);
	int64_t next = run->t0 + period;
	for (;;) {
		int64_t now = bt_time_monotonic_ns();
		int64_t until = next;
		if (duration_ns > 0 && run->t0 + duration_ns < until)
			until = run->t0 + duration_ns;
		int64_t wait = until > now ? until - now : 0;
		struct timespec ts = {(time_t)(wait / 1000000000), (long)(wait % 1000000000)};
		int sig = sigtimedwait(&run->sigs, NULL, &ts);
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
			next += period;
			if (next < now)
				next = now + period;
		}
	}
}

/* While the bag is being finished: a second Ctrl-C says what is going on. */
static void *app_watch(void *arg)
{
	struct app_run *run = arg;
	while (!atomic_load(&run->finished)) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		int sig = sigtimedwait(&run->sigs, NULL, &ts);
		if (sig > 0 && !atomic_load(&run->finished))
			fprintf(stderr,
				"bagtop: still finishing %s (writing what was received, then the "
				"metadata); it stops by itself, nothing is cut short\n",
				run->bag);
	}
	return NULL;
}

static void app_summary(struct app_run *run)
{
	const struct rec_topics *t = rec_recorder_topics(run->rec);
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	char bytes[32];
	bt_fmt_iec(st.bytes, bytes, sizeof bytes);
	printf("Recorded %llu messages (%s) on %zu topics into %s; lost %llu in transport, "
	       "%llu in the recorder\n",
	       (unsigned long long)st.recorded, bytes, st.topics_recorded, run->bag,
	       (unsigned long long)st.lost_transport, (unsigned long long)st.lost_recorder);
	size_t n = rec_topics_count(t);
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(t, i);
		if (!atomic_load(&tp->subscribed))
			continue;
		struct rec_topic_stats *s = &tp->st;
		printf("  %-32s %10llu msgs  lost %llu transport, %llu recorder\n", tp->name,
		       (unsigned long long)atomic_load(&s->recorded),
		       (unsigned long long)atomic_load(&s->lost_transport),
		       (unsigned long long)(atomic_load(&s->lost_cache) +
					    atomic_load(&s->lost_toobig) +
					    atomic_load(&s->lost_write)));
	}
}

static int app_start_error(const struct app_cmd *cmd, bt_status st, const struct bt_error *e)
{
	if (st == BT_ERR_USAGE)
		return app_usage_error(cmd, "%s", e->msg);
	app_error("%s", e->msg);
	return st == BT_ERR_DDS ? APP_EXIT_DDS : APP_EXIT_ERROR;
}

static int app_finish(struct app_run *run, int sig)
{
	if (sig > 0)
		fprintf(stderr, "bagtop: %s: finishing the bag %s\n", strsignal(sig), run->bag);
	atomic_init(&run->finished, false);
	pthread_t watcher;
	bool watching = pthread_create(&watcher, NULL, app_watch, run) == 0;
	struct bt_error err = {0};
	bt_status st = rec_recorder_stop(run->rec, &err);
	atomic_store(&run->finished, true);
	if (watching)
		pthread_join(watcher, NULL);
	app_summary(run);
	fflush(stdout);
	if (st != BT_OK) {
		struct rec_status rs;
		rec_recorder_get_status(run->rec, &rs);
		app_error("%s (the %llu messages committed before are kept in %s)", err.msg,
			  (unsigned long long)rs.recorded, run->bag);
		return APP_EXIT_ERROR;
	}
	return APP_EXIT_OK;
}

int app_record_run(const struct app_cmd *cmd, struct app_record_cfg *c)
{
	struct app_run run = {.bag = c->w.output};
	sigemptyset(&run.sigs);
	sigaddset(&run.sigs, SIGINT);
	sigaddset(&run.sigs, SIGTERM);
	sigaddset(&run.sigs, SIGHUP);
	sigset_t old;
	pthread_sigmask(SIG_BLOCK, &run.sigs, &old);
	signal(SIGPIPE, SIG_IGN);
	/* Headless: state changes show in the status line; warnings and errors
	 * are printed once each. */
	bt_log_set_level(BT_LOG_WARN);
	struct bt_error err = {0};
	bt_status st = rec_recorder_start(&c->ro, &run.rec, &err);
	if (st != BT_OK) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		return app_start_error(cmd, st, &err);
	}
	printf("Recording to %s%s (Ctrl-C to stop)\n", run.bag,
	       c->ro.start_paused ? ", paused" : "");
	fflush(stdout);
	run.t0 = run.last_t = bt_time_monotonic_ns();
	int sig = app_wait(&run, c->update_rate, c->duration_ns);
	int rc = app_finish(&run, sig);
	rec_recorder_free(run.rec);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}
