/* The event inbox: pushes from several threads all arrive, in order per
 * thread; overflow keeps the newest and says how many were dropped; the
 * bt_log sink maps levels. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tui_events.h"

#define THREADS 4
#define PER_THREAD 50 /* 200 < TUI_EVENTS_MAX: nothing dropped */

struct pusher {
	struct tui_events *q;
	int id;
};

static void *push_many(void *arg)
{
	struct pusher *p = arg;
	for (int i = 0; i < PER_THREAD; i++) {
		char text[32];
		snprintf(text, sizeof text, "%d %d", p->id, i);
		tui_events_push(p->q, i, TUI_SEV_INFO, text);
	}
	return NULL;
}

static void test_threads(void **state)
{
	(void)state;
	struct tui_events *q = tui_events_new();
	struct tui_model m;
	tui_model_init(&m);
	pthread_t th[THREADS];
	struct pusher p[THREADS];
	for (int i = 0; i < THREADS; i++) {
		p[i] = (struct pusher){q, i};
		assert_int_equal(pthread_create(&th[i], NULL, push_many, &p[i]), 0);
	}
	for (int i = 0; i < THREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(tui_events_drain(q, &m), THREADS * PER_THREAD);
	assert_int_equal(m.ev_count, THREADS * PER_THREAD);
	int next[THREADS] = {0};
	for (size_t i = 0; i < m.ev_count; i++) {
		int id, seq;
		assert_int_equal(sscanf(tui_model_event_get(&m, i)->text, "%d %d", &id, &seq), 2);
		assert_int_equal(seq, next[id]++);
	}
	assert_int_equal(tui_events_drain(q, &m), 0);
	tui_model_fini(&m);
	tui_events_free(q);
}

static void test_overflow_and_sink(void **state)
{
	(void)state;
	struct tui_events *q = tui_events_new();
	struct tui_model m;
	tui_model_init(&m);
	for (int i = 0; i < TUI_EVENTS_MAX + 10; i++) {
		char text[32];
		snprintf(text, sizeof text, "e%d", i);
		tui_events_push(q, i, TUI_SEV_INFO, text);
	}
	assert_int_equal(tui_events_drain(q, &m), TUI_EVENTS_MAX);
	/* The newest are kept; the note comes last, on the event line. */
	assert_int_equal(m.ev_count, TUI_EVENTS_MAX);
	assert_string_equal(tui_model_event_get(&m, m.ev_count - 1)->text,
			    "10 older events dropped (too many at once)");
	assert_int_equal(tui_model_event_get(&m, m.ev_count - 1)->severity, TUI_SEV_WARN);
	assert_string_equal(tui_model_event_get(&m, m.ev_count - 2)->text, "e265");
	assert_string_equal(tui_model_event_get(&m, 0)->text, "e11");
	tui_model_fini(&m);
	/* Counted once: the next drain has no note. */
	tui_model_init(&m);
	tui_events_push(q, 1, TUI_SEV_INFO, "x");
	assert_int_equal(tui_events_drain(q, &m), 1);
	assert_int_equal(m.ev_count, 1);
	tui_model_fini(&m);

	tui_model_init(&m);
	tui_events_log_sink(q, BT_LOG_ERROR, "disk full");
	tui_events_log_sink(q, BT_LOG_WARN, "qos");
	tui_events_log_sink(q, BT_LOG_INFO, "split");
	assert_int_equal(tui_events_drain(q, &m), 3);
	assert_int_equal(tui_model_event_get(&m, 0)->severity, TUI_SEV_ERROR);
	assert_int_equal(tui_model_event_get(&m, 1)->severity, TUI_SEV_WARN);
	assert_int_equal(tui_model_event_get(&m, 2)->severity, TUI_SEV_INFO);
	assert_true(tui_model_event_get(&m, 0)->time_ns > 0);
	tui_model_fini(&m);
	tui_events_free(q);
}

TU_MAIN(
	cmocka_unit_test(test_threads),
	cmocka_unit_test(test_overflow_and_sink))
