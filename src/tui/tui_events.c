#include "tui_events.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_time.h"

struct tui_events {
	pthread_mutex_t lock;
	struct tui_event ring[TUI_EVENTS_MAX];
	size_t first, count;
	uint64_t dropped;
};

struct tui_events *tui_events_new(void)
{
	struct tui_events *q = bt_xcalloc(1, sizeof *q);
	pthread_mutex_init(&q->lock, NULL);
	return q;
}

void tui_events_free(struct tui_events *q)
{
	if (!q)
		return;
	pthread_mutex_destroy(&q->lock);
	free(q);
}

void tui_events_push(struct tui_events *q, int64_t time_ns, enum tui_severity sev,
		     const char *text)
{
	struct tui_event e = {time_ns, sev, ""};
	snprintf(e.text, sizeof e.text, "%s", text);
	pthread_mutex_lock(&q->lock);
	if (q->count == TUI_EVENTS_MAX) {
		q->first = (q->first + 1) % TUI_EVENTS_MAX;
		q->count--;
		q->dropped++;
	}
	q->ring[(q->first + q->count) % TUI_EVENTS_MAX] = e;
	q->count++;
	pthread_mutex_unlock(&q->lock);
}

void tui_events_log_sink(void *ctx, enum bt_log_level level, const char *line)
{
	enum tui_severity sev = level == BT_LOG_ERROR  ? TUI_SEV_ERROR
				: level == BT_LOG_WARN ? TUI_SEV_WARN
						       : TUI_SEV_INFO;
	tui_events_push(ctx, bt_time_realtime_ns(), sev, line);
}

/* Takes the oldest queued event; false when empty. */
static bool tui_events_pop(struct tui_events *q, struct tui_event *e, uint64_t *dropped)
{
	pthread_mutex_lock(&q->lock);
	bool any = q->count > 0;
	if (any) {
		*e = q->ring[q->first];
		q->first = (q->first + 1) % TUI_EVENTS_MAX;
		q->count--;
	}
	*dropped += q->dropped;
	q->dropped = 0;
	pthread_mutex_unlock(&q->lock);
	return any;
}

size_t tui_events_drain(struct tui_events *q, struct tui_model *m)
{
	struct tui_event e = {0, TUI_SEV_INFO, ""};
	uint64_t dropped = 0;
	size_t n = 0;
	while (tui_events_pop(q, &e, &dropped)) {
		tui_model_event_push(m, e.time_ns, e.severity, e.text);
		n++;
	}
	/* Last, so the event line shows it. */
	if (dropped) {
		char note[64];
		snprintf(note, sizeof note, "%llu older events dropped (too many at once)",
			 (unsigned long long)dropped);
		tui_model_event_push(m, e.time_ns, TUI_SEV_WARN, note);
	}
	return n;
}
