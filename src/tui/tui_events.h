/* tui_events — the inbox of the event line and log view. Any thread
 * pushes (the bt_log sink below, engine callbacks: splits, snapshots,
 * topics appearing, QoS incompatibilities, loss onsets); the UI thread's
 * fill drains it into the model. Bounded: when full, the oldest events are
 * dropped and the drain says how many.
 *
 * Locking: one mutex, held only to copy an event in or out (no I/O, no
 * logging under it), so pushing never waits on the screen. */
#ifndef TUI_EVENTS_H
#define TUI_EVENTS_H

#include <stddef.h>
#include <stdint.h>

#include "bt_log.h"
#include "tui_model.h"

struct tui_events;

/* Aborts on out-of-memory (set-up code). */
struct tui_events *tui_events_new(void);
void tui_events_free(struct tui_events *q);
/* Queues an event (text cut to TUI_EVENT_TEXT_MAX - 1 bytes). Any thread. */
void tui_events_push(struct tui_events *q, int64_t time_ns, enum tui_severity sev,
		     const char *text);
/* A bt_log_sink (ctx = the queue): stamps the line with CLOCK_REALTIME and
 * maps ERROR/WARN/other to the severities. Install it with
 * bt_log_set_sink(tui_events_log_sink, q) while the screen is up. */
void tui_events_log_sink(void *ctx, enum bt_log_level level, const char *line);
/* Moves the queued events into m's ring, oldest first, then one warning
 * when some were dropped. Returns how many were moved. UI thread. */
size_t tui_events_drain(struct tui_events *q, struct tui_model *m);

#endif
