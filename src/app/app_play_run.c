/* app_play_run — `bagtop play` (and `burst`: its burst asked first)
 * without the live view: the player started with SIGINT, SIGTERM and
 * SIGHUP blocked (every thread inherits it; the main thread alone receives
 * them with sigtimedwait), a status line a second, keys on the terminal
 * (app_keys.c's thread: Space pause/resume, . or Right one message,
 * Up/Down rate x1.1 / /1.1), then the summary. */
#include "app_play.h"
#include "app_play_tui.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_keys.h"
#include "bt_fmt.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"

#define PLAY_STATUS_PERIOD_NS BT_NS_PER_S
#define PLAY_RATE_STEP 1.1

/* The key thread's state: an escape sequence may come in pieces. */
struct play_keys {
	struct play *p;
	int esc; /* 0, 1 after ESC, 2 after ESC [ */
};

static void play_key(struct play_keys *k, char ch)
{
	if (k->esc == 1) {
		k->esc = ch == '[' || ch == 'O' ? 2 : 0;
		return;
	}
	if (k->esc == 2) {
		k->esc = 0;
		if (ch == 'A')
			(void)play_multiply_rate(k->p, PLAY_RATE_STEP);
		else if (ch == 'B')
			(void)play_multiply_rate(k->p, 1.0 / PLAY_RATE_STEP);
		else if (ch == 'C')
			(void)play_next(k->p);
		return;
	}
	if (ch == 0x1b)
		k->esc = 1;
	else if (ch == ' ')
		(void)play_toggle_pause(k->p);
	else if (ch == '.')
		(void)play_next(k->p);
}

static void play_keys_fn(void *ctx, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++)
		play_key(ctx, buf[i]);
}

static void play_status(struct play *p)
{
	struct play_view v;
	play_view_get(p, &v, NULL, 0);
	char el[32], at[32], total[32], loop[32] = "";
	bt_fmt_duration(v.wall_elapsed_ns, el, sizeof el);
	bt_fmt_duration(v.bag_now - v.window_start, at, sizeof at);
	bt_fmt_duration(v.window_end - v.window_start, total, sizeof total);
	if (v.loop && v.loop_count)
		snprintf(loop, sizeof loop, " | loop %u/%u", v.loop_index, v.loop_count);
	else if (v.loop)
		snprintf(loop, sizeof loop, " | loop %u", v.loop_index);
	printf("[%s] %s %.3gx | %s / %s | %llu/%llu published | late %llu (max %.1f ms)%s\n", el,
	       app_play_state_str(v.state), v.rate, at, total, (unsigned long long)v.published,
	       (unsigned long long)v.total, (unsigned long long)v.late,
	       (double)v.max_late_ns / 1e6, loop);
	fflush(stdout);
}

/* The storage files left out, so that a summary never passes for the
 * whole bag's. */
static void play_summary_skipped(const struct play *p)
{
	size_t n;
	const char *const *skipped = play_skipped(p, &n);
	if (n == 0)
		return;
	printf("Skipped %zu file%s that could not be read (not played):", n, bt_fmt_s(n));
	for (size_t i = 0; i < n; i++) {
		char path[1024];
		app_escape(skipped[i], path, sizeof path);
		printf(" %s", path);
	}
	printf("\n");
}

static void play_summary(struct play *p)
{
	size_t n = play_n_topics(p);
	struct play_topic_view *t = bt_xcalloc(n ? n : 1, sizeof *t);
	struct play_view v;
	play_view_get(p, &v, t, n);
	for (size_t i = 0; i < n; i++) {
		char name[512], svc[128] = "";
		app_escape(t[i].name, name, sizeof name);
		if (t[i].service)
			snprintf(svc, sizeof svc, " as requests, %llu answered, %llu not sent (no server)",
				 (unsigned long long)t[i].answered, (unsigned long long)t[i].unserved);
		printf("  %s: %llu published%s, %llu late (max %.1f ms)%s\n", name,
		       (unsigned long long)t[i].published, svc, (unsigned long long)t[i].late,
		       (double)t[i].max_late_ns / 1e6, t[i].failed ? ", write failures" : "");
	}
	char waited[64] = "";
	if (v.waited_subs_ns > 0)
		snprintf(waited, sizeof waited, " (%.3f s of it waiting for subscribers)",
			 (double)v.waited_subs_ns / 1e9);
	printf("Played %llu message%s on %zu topic%s in %.3f s%s, %llu late (> 1 ms), max %.1f ms "
	       "late\n",
	       (unsigned long long)v.published, bt_fmt_s(v.published), n, bt_fmt_s(n),
	       (double)v.wall_elapsed_ns / 1e9, waited, (unsigned long long)v.late,
	       (double)v.max_late_ns / 1e6);
	printf("Lateness: p50 %lld us, p99 %lld us, max %lld us\n",
	       (long long)(v.late_p50_ns / 1000), (long long)(v.late_p99_ns / 1000),
	       (long long)(v.max_late_ns / 1000));
	if (v.failed)
		printf("%llu write%s failed\n", (unsigned long long)v.failed, bt_fmt_s(v.failed));
	play_summary_skipped(p);
	fflush(stdout);
	free(t);
}

/* Until the end or a stop signal; the signal's number, or 0. */
static int play_wait_loop(struct play *p, const sigset_t *sigs)
{
	int64_t next = bt_time_monotonic_ns() + PLAY_STATUS_PERIOD_NS;
	while (!play_done(p)) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		int sig = sigtimedwait(sigs, NULL, &ts);
		if (sig > 0)
			return sig;
		if (sig < 0 && errno != EAGAIN && errno != EINTR) {
			app_error("waiting for signals: %s", strerror(errno));
			return SIGTERM;
		}
		int64_t now = bt_time_monotonic_ns();
		if (now >= next) {
			play_status(p);
			next = now + PLAY_STATUS_PERIOD_NS;
		}
	}
	return 0;
}

static int play_exit_of(bt_status st)
{
	return st == BT_ERR_USAGE ? APP_EXIT_USAGE : st == BT_ERR_DDS ? APP_EXIT_DDS
								    : APP_EXIT_ERROR;
}

/* bagtop burst's end: said in the event log (stderr without the live
 * view); from the publishing thread, so it only logs. */
static void play_burst_said(void *ctx, uint64_t n)
{
	uint64_t asked = *(const uint64_t *)ctx; /* the cfg's, which outlives the player */
	bt_log_info("burst: %llu message%s published%s", (unsigned long long)n, bt_fmt_s(n),
		    asked != 0 && n == asked ? "; paused" : "");
}

/* bagtop burst: the player started paused, the burst asked at once (it
 * waits for subscribers with --wait-for-subscribers, as playing does). */
static void play_burst_start(const struct app_play_cfg *c, struct play *p)
{
	if (!c->burst)
		return;
	enum play_result r = play_burst(p, c->burst_n, play_burst_said, (void *)&c->burst_n);
	if (r != PLAY_OK)
		bt_log_warn("burst: %s", play_result_str(r));
}

/* The live view (app_play_tui) when stdout is a terminal, unless --no-tui
 * or --disable-keyboard-controls (it owns the terminal and its keys);
 * false when it did not run: then status lines. */
static bool play_live_view(const struct app_play_cfg *c, struct play *p, const sigset_t *sigs)
{
	if (c->no_tui || c->no_keys || !isatty(STDOUT_FILENO))
		return false;
	struct bt_error err = {0};
	if (app_play_tui_run(p, sigs, 0, &err) == BT_OK)
		return true;
	fprintf(stderr, "bagtop: %s; going on without the live view\n", err.msg);
	return false;
}

int app_play_run(struct app_play_cfg *c)
{
	sigset_t sigs, old;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, &old);
	struct play *p = NULL;
	struct bt_error err = {0};
	bt_log_set_level(c->log_level);
	bt_status st = play_start(&c->po, &p, &err);
	if (st != BT_OK) {
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		if (st == BT_ERR_USAGE)
			return app_usage_error(c->cmd, "%s", err.msg);
		app_error("%s%s", err.msg, st == BT_ERR_DDS ? "" : ": nothing played");
		return play_exit_of(st);
	}
	struct play_keys pk = {.p = p};
	struct app_keys keys = {.started = false};
	int sig = 0;
	play_burst_start(c, p);
	if (!play_live_view(c, p, &sigs)) {
		char bag[1024], burst[64] = "";
		app_escape(c->po.bag_path, bag, sizeof bag);
		if (c->burst && c->burst_n)
			snprintf(burst, sizeof burst, ", a burst of %llu first",
				 (unsigned long long)c->burst_n);
		else if (c->burst)
			snprintf(burst, sizeof burst, ", a burst of all");
		printf("Playing %s (%zu topic%s%s%s; Ctrl-C to stop)\n", bag, play_n_topics(p),
		       bt_fmt_s(play_n_topics(p)), c->po.start_paused ? ", paused" : "", burst);
		if (!c->no_keys && app_keys_start_fn(&keys, play_keys_fn, &pk))
			printf("Press SPACE to pause/resume, . or RIGHT to play one message while "
			       "paused, UP/DOWN to change the rate\n");
		fflush(stdout);
		sig = play_wait_loop(p, &sigs);
	}
	if (sig > 0) {
		fprintf(stderr, "bagtop: %s: stopping\n", strsignal(sig));
		play_request_stop(p);
	}
	st = play_join(p, &err);
	app_keys_stop(&keys);
	play_summary(p);
	play_free(p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (st != BT_OK) {
		app_error("%s", err.msg);
		return play_exit_of(st);
	}
	return APP_EXIT_OK;
}
