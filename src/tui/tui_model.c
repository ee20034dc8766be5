#include "tui_model.h"

#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"

void tui_model_init(struct tui_model *m)
{
	memset(m, 0, sizeof *m);
}

void tui_model_fini(struct tui_model *m)
{
	free(m->topics);
	memset(m, 0, sizeof *m);
}

void tui_model_set_topic_count(struct tui_model *m, size_t n)
{
	if (n > m->cap_topics) {
		void *p = m->topics;
		bt_xgrow(&p, &m->cap_topics, n, sizeof *m->topics);
		m->topics = p;
	}
	if (n > m->n_topics)
		memset(&m->topics[m->n_topics], 0, (n - m->n_topics) * sizeof *m->topics);
	m->n_topics = n;
}

long tui_model_find_topic(const struct tui_model *m, uint32_t id)
{
	/* Rows usually sit at their id (the engine's append-only index). */
	if (id < m->n_topics && m->topics[id].id == id)
		return (long)id;
	for (size_t i = 0; i < m->n_topics; i++)
		if (m->topics[i].id == id)
			return (long)i;
	return -1;
}

void tui_model_event_push(struct tui_model *m, int64_t time_ns, enum tui_severity sev,
			  const char *text)
{
	size_t slot = (m->ev_first + m->ev_count) % TUI_EVENTS_MAX;
	if (m->ev_count == TUI_EVENTS_MAX)
		m->ev_first = (m->ev_first + 1) % TUI_EVENTS_MAX;
	else
		m->ev_count++;
	struct tui_event *e = &m->events[slot];
	e->time_ns = time_ns;
	e->severity = sev;
	size_t len = strlen(text);
	if (len > sizeof e->text - 1)
		len = sizeof e->text - 1;
	memcpy(e->text, text, len);
	e->text[len] = '\0';
	m->ev_total++;
}

const struct tui_event *tui_model_event_get(const struct tui_model *m, size_t i)
{
	if (i >= m->ev_count)
		return NULL;
	return &m->events[(m->ev_first + i) % TUI_EVENTS_MAX];
}

const char *tui_model_state_str(enum tui_rec_state s)
{
	switch (s) {
	case TUI_REC_RECORDING:
		return "RECORDING";
	case TUI_REC_PAUSED:
		return "PAUSED";
	case TUI_REC_SNAPSHOT_ARMED:
		return "SNAPSHOT-ARMED";
	case TUI_REC_WRITING_SNAPSHOT:
		return "WRITING SNAPSHOT";
	case TUI_REC_STOPPING:
		return "STOPPING";
	case TUI_REC_WAITING_CLOCK:
		return "WAITING FOR /clock";
	}
	return "?";
}

const char *tui_model_play_state_str(enum tui_play_state s)
{
	switch (s) {
	case TUI_PLAY_PLAYING: return "PLAYING";
	case TUI_PLAY_PAUSED: return "PAUSED";
	case TUI_PLAY_WAITING_ACKS: return "WAITING FOR ACKS";
	case TUI_PLAY_DONE: return "DONE";
	case TUI_PLAY_WAITING_SUBS: return "WAITING FOR SUBSCRIBERS";
	}
	return "?";
}

const struct tui_counts *tui_topic_counts(const struct tui_topic *t, bool file)
{
	return file ? &t->file : &t->total;
}
