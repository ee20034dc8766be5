/* app_play_tui — the live view over the player; see the header.
 *
 * The fill keeps the last view it saw (state, rate, loop, warning, failed
 * writes) so every change is said once in the event log, whoever made it:
 * a key, --start-paused, the end of a pass. */
#include "app_play_tui.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "tui_events.h"
#include "tui_run.h"
#include "tui_stderr.h"

#define APT_SIG_WAIT_NS 100000000L /* how soon the signal thread sees the end */

struct app_play_tui {
	struct play *p;
	const sigset_t *sigs;
	double update_hz;
	struct tui_events *events;
	struct play_topic_view *topics; /* play_n_topics rows, the last fill's */
	size_t n_topics;
	struct play_view last; /* the last fill's view, for what changed */
	bool filled;           /* `last` is set */
	unsigned done_fills;   /* fills that saw DONE: the end is on screen */
	atomic_bool quit;      /* q or a signal: the view ends */
	atomic_bool sig_stop;  /* the signal thread may go */
};

static void apt_say(struct app_play_tui *t, enum tui_severity sev, const char *fmt, ...)
	BT_PRINTF(3, 4);

static void apt_say(struct app_play_tui *t, enum tui_severity sev, const char *fmt, ...)
{
	char text[TUI_EVENT_TEXT_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	tui_events_push(t->events, bt_time_realtime_ns(), sev, text);
}

/* ---- signals ---- */

static void *apt_signals(void *arg)
{
	struct app_play_tui *t = arg;
	pthread_setname_np(pthread_self(), "app-play-sig");
	while (!atomic_load(&t->sig_stop)) {
		struct timespec ts = {0, APT_SIG_WAIT_NS};
		int sig = sigtimedwait(t->sigs, NULL, &ts);
		if (sig > 0) {
			apt_say(t, TUI_SEV_INFO, "%s: stopping", strsignal(sig));
			play_request_stop(t->p);
			atomic_store(&t->quit, true);
		} else if (sig < 0 && errno != EAGAIN && errno != EINTR) {
			apt_say(t, TUI_SEV_ERROR, "waiting for signals: %s", strerror(errno));
			break; /* would fail again at once; q still quits */
		}
	}
	return NULL;
}

/* ---- the view-model ---- */

static enum tui_play_state apt_state(enum play_state s)
{
	switch (s) {
	case PLAY_STATE_PLAYING: return TUI_PLAY_PLAYING;
	case PLAY_STATE_PAUSED: return TUI_PLAY_PAUSED;
	case PLAY_STATE_WAITING_ACKS: return TUI_PLAY_WAITING_ACKS;
	case PLAY_STATE_WAITING_SUBSCRIBERS: return TUI_PLAY_WAITING_SUBS;
	case PLAY_STATE_DONE: break;
	}
	return TUI_PLAY_DONE;
}

const char *app_play_state_str(enum play_state s)
{
	return tui_model_play_state_str(apt_state(s));
}

static void apt_header(struct app_play_tui *t, struct tui_header *h, const struct play_view *v)
{
	struct tui_play_header *ph = &h->play;
	snprintf(h->bag_dir, sizeof h->bag_dir, "%s", v->bag_path ? v->bag_path : "");
	h->pid = (long)getpid();
	h->update_hz = t->update_hz;
	ph->state = apt_state(v->state);
	ph->bag_pos_ns = v->bag_now - v->window_start;
	ph->bag_total_ns = v->window_end - v->window_start;
	ph->wall_elapsed_ns = v->wall_elapsed_ns;
	ph->wall_left_ns = v->wall_remaining_ns;
	ph->rate = v->rate;
	ph->loop = v->loop;
	ph->loop_index = v->loop_index;
	ph->loop_count = v->loop_count;
	ph->published = v->published;
	ph->total = v->total;
}

static void apt_row(struct tui_topic *row, uint32_t id, const struct play_topic_view *tv)
{
	row->id = id;
	row->enabled = !tv->muted;
	snprintf(row->name, sizeof row->name, "%s", tv->name ? tv->name : "?");
	snprintf(row->type, sizeof row->type, "%s", tv->type ? tv->type : "?");
	row->reliable = tv->reliable;
	row->transient_local = tv->transient_local;
	row->rate_hz = tv->hz;
	row->bandwidth = tv->bytes_per_s;
	row->total = (struct tui_counts){.messages = tv->published, .bytes = tv->bytes};
	row->bag_messages = tv->total;
	row->subscribers = tv->matched;
	row->late = tv->late;
}

/* What changed since the last fill, said once. */
static void apt_changes(struct app_play_tui *t, const struct play_view *v)
{
	const struct play_view *o = &t->last;
	if (v->warning[0] && (!t->filled || strcmp(v->warning, o->warning) != 0))
		apt_say(t, TUI_SEV_WARN, "%s", v->warning);
	if (!t->filled)
		return;
	if (v->state != o->state)
		apt_say(t, TUI_SEV_INFO, "%s at %.1f s of bag time", app_play_state_str(v->state),
			(double)(v->bag_now - v->window_start) / (double)BT_NS_PER_S);
	if (v->rate != o->rate)
		apt_say(t, TUI_SEV_INFO, "rate %.3gx", v->rate);
	if (v->loop != o->loop)
		apt_say(t, TUI_SEV_INFO, "loop %s", v->loop ? "on" : "off");
	else if (v->loop_index != o->loop_index)
		apt_say(t, TUI_SEV_INFO, "pass %u", (unsigned)v->loop_index);
	if (v->failed > o->failed)
		apt_say(t, TUI_SEV_ERROR, "%llu write%s refused by DDS",
			(unsigned long long)(v->failed - o->failed), v->failed - o->failed == 1 ? "" : "s");
}

static void apt_fill(void *ctx, struct tui_model *m)
{
	struct app_play_tui *t = ctx;
	struct play_view v;
	play_view_get(t->p, &v, t->topics, t->n_topics);
	m->mode = TUI_MODE_PLAY;
	apt_header(t, &m->hdr, &v);
	size_t n = v.n_topics < t->n_topics ? v.n_topics : t->n_topics;
	tui_model_set_topic_count(m, n);
	for (size_t i = 0; i < n; i++)
		apt_row(&m->topics[i], (uint32_t)i, &t->topics[i]);
	apt_changes(t, &v);
	t->last = v;
	t->filled = true;
	if (v.state == PLAY_STATE_DONE)
		t->done_fills++;
	tui_events_drain(t->events, m);
}

/* ---- commands ---- */

/* A control's refusal, said; OK says `ok` (NULL: nothing). */
static void apt_result(struct app_play_tui *t, const char *what, enum play_result r,
		       const char *ok)
{
	if (r != PLAY_OK)
		apt_say(t, TUI_SEV_WARN, "%s: %s", what, play_result_str(r));
	else if (ok)
		apt_say(t, TUI_SEV_INFO, "%s", ok);
}

static void apt_mute(struct app_play_tui *t, uint32_t id)
{
	if (id >= t->n_topics)
		return;
	const char *name = t->topics[id].name ? t->topics[id].name : "?";
	bool was = t->topics[id].muted; /* as the last fill saw it */
	enum play_result r = play_toggle_topic_muted(t->p, id);
	char ok[TUI_EVENT_TEXT_MAX];
	snprintf(ok, sizeof ok, "%s: %s", name, was ? "unmuted" : "muted");
	apt_result(t, name, r, ok);
}

static void apt_command(void *ctx, const struct tui_cmd *cmd)
{
	struct app_play_tui *t = ctx;
	char ok[64];
	bool on;
	enum play_result r;
	switch (cmd->kind) {
	/* State, rate and loop changes are said by the next fill (apt_changes). */
	case TUI_CMD_PAUSE_TOGGLE: apt_result(t, "pause", play_toggle_pause(t->p), NULL); break;
	case TUI_CMD_STEP: apt_result(t, "next message", play_next(t->p), NULL); break;
	case TUI_CMD_RATE_MUL:
		apt_result(t, "rate", play_multiply_rate(t->p, cmd->value), NULL);
		break;
	case TUI_CMD_SEEK:
		snprintf(ok, sizeof ok, "seek %+.0f s", cmd->value);
		r = play_seek_by(t->p, (int64_t)(cmd->value * (double)BT_NS_PER_S));
		apt_result(t, "seek", r, ok);
		break;
	case TUI_CMD_RESTART: apt_result(t, "restart", play_restart(t->p), "restart"); break;
	case TUI_CMD_LOOP_TOGGLE: apt_result(t, "loop", play_toggle_loop(t->p, &on), NULL); break;
	case TUI_CMD_TOGGLE_TOPIC: apt_mute(t, cmd->topic_id); break;
	case TUI_CMD_QUIT:
		play_request_stop(t->p);
		atomic_store(&t->quit, true);
		break;
	default: break;
	}
}

/* q, a signal, or the end once it has been on screen for a refresh. */
static bool apt_done(void *ctx)
{
	struct app_play_tui *t = ctx;
	return atomic_load(&t->quit) || t->done_fills >= 2;
}

/* ---- the session ---- */

bt_status app_play_tui_run(struct play *p, const sigset_t *sigs, double update_hz,
			   struct bt_error *err)
{
	struct app_play_tui t = {.p = p, .sigs = sigs};
	t.update_hz = update_hz > 0 ? update_hz : APP_PLAY_TUI_HZ_DEFAULT;
	atomic_init(&t.quit, false);
	atomic_init(&t.sig_stop, false);
	t.n_topics = play_n_topics(p);
	t.topics = bt_xcalloc(t.n_topics ? t.n_topics : 1, sizeof *t.topics);
	t.events = tui_events_new();
	bt_log_set_sink(tui_events_log_sink, t.events);
	struct tui_stderr cap = {.saved_fd = -1};
	struct bt_error cap_err = {0};
	bool capturing = tui_stderr_start(&cap, &cap_err) == BT_OK;
	pthread_t sig_thread;
	bool sig_started = pthread_create(&sig_thread, NULL, apt_signals, &t) == 0;
	struct tui_run_ops ops = {apt_fill, apt_command, apt_done};
	bt_status st = tui_run(&ops, &t, err);
	atomic_store(&t.sig_stop, true);
	if (sig_started)
		pthread_join(sig_thread, NULL);
	bt_log_set_sink(NULL, NULL);
	if (capturing)
		(void)tui_stderr_stop(&cap); /* what was printed meanwhile, now */
	tui_events_free(t.events);
	free(t.topics);
	return st;
}
