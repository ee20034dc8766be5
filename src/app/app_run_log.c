/* app_run_log — where the session's words go: the log sink for bt_log
 * (log file, live view's log or stderr) and app_run_say's messages for the
 * user (stdout or the live view's event line, and the log file).
 *
 * Threads: the sink runs on any thread, under bt_log's lock; app_run_say on
 * any (app__run.h). say_mu guards the live view's event queue pointer
 * (app_run_set_events) and is taken after bt_log's lock, never around
 * I/O. */
#include "app__run.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app.h"
#include "bt_log.h"
#include "bt_time.h"
#include "rec_log.h"

void app_run_elapsed(const struct app_run *run, int64_t now, char *el, size_t n)
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
		pthread_mutex_lock(&run->say_mu);
		bool shown = run->events != NULL;
		if (shown)
			tui_events_push(run->events, now, TUI_SEV_WARN, msg);
		pthread_mutex_unlock(&run->say_mu);
		if (!shown)
			fprintf(stderr, "bagtop: warning: %s\n", msg);
	}
	clearerr(run->log);
}

/* bt_log's sink for the whole session (under bt_log's lock): the log file
 * gets everything; the live view's log, or stderr when headless: warnings
 * and errors, or --log-level's lines. */
static void app_run_log_sink(void *ctx, enum bt_log_level level, const char *line)
{
	struct app_run *run = ctx;
	app_log_write(run, bt_log_level_name(level), line);
	if (run->events != NULL)
		tui_events_log_sink(run->events, level, line);
	else if (level <= (run->cfg->log_level_given ? run->cfg->log_level : BT_LOG_WARN))
		fprintf(stderr, "bagtop: %s: %s\n", bt_log_level_name(level), line);
}

bool app_run_log_open(struct app_run *run)
{
	atomic_init(&run->log_failed, false);
	const char *path = run->cfg->log_file;
	if (path != NULL && (run->log = fopen(path, "a")) == NULL) {
		app_error("cannot open the log file %s: %s", path, strerror(errno));
		return false;
	}
	return true;
}

void app_run_log_start(struct app_run *run)
{
	/* Info lines are for the live view and the log file, unless
	 * --log-level says otherwise. */
	bt_log_set_level(run->cfg->log_level_given ? run->cfg->log_level : BT_LOG_INFO);
	bt_log_set_sink(app_run_log_sink, run);
	rec_log_route_dds(true);
}

void app_run_log_end(struct app_run *run)
{
	rec_log_route_dds(false);
	bt_log_set_sink(NULL, NULL);
	if (run->log != NULL && fclose(run->log) != 0 && !atomic_load(&run->log_failed))
		fprintf(stderr, "bagtop: warning: closing the log file: %s\n", strerror(errno));
	run->log = NULL;
}

void app_run_set_events(struct app_run *run, struct tui_events *events)
{
	/* No sink call may be under way while the queue changes. */
	bt_log_set_sink(NULL, NULL);
	pthread_mutex_lock(&run->say_mu);
	run->events = events;
	pthread_mutex_unlock(&run->say_mu);
	bt_log_set_sink(app_run_log_sink, run);
}

void app_run_say(struct app_run *run, enum tui_severity sev, const char *fmt, ...)
{
	char text[TUI_EVENT_TEXT_MAX * 2];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	app_log_write(run, "event", text);
	/* Locked: the live view may end (and free its queue) meanwhile. */
	pthread_mutex_lock(&run->say_mu);
	bool shown = run->events != NULL;
	if (shown)
		tui_events_push(run->events, bt_time_realtime_ns(), sev, text);
	pthread_mutex_unlock(&run->say_mu);
	if (shown)
		return;
	char el[32];
	app_run_elapsed(run, bt_time_monotonic_ns(), el, sizeof el);
	printf("[%s] %s\n", el, text);
	fflush(stdout);
}
