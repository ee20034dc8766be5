/* rec_events — WriteSplitEvent and MessagesLostEvent on DDS (rec_events.h).
 * Samples are laid out by hand (btdds_cdr) and written raw (btdds_raw), as
 * rmw_cyclonedds writes them: plain CDR, no type information.
 *
 * Thread: a bt_sync_ticker ("rec-events") drains the queue when woken and
 * sends the losses once a period.
 *
 * Lock: `mu` guards the queue and `dropped_said`; it is never held across
 * a DDS write nor a ticker call. The loss baseline (`prev_*`) is the
 * thread's alone (and the stopper's after the join). */
#include "rec_events.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "bt_time.h"
#include "btdds_cdr.h"
#include "btdds_raw.h"

#define EV_DEPTH 3          /* rosbag2's EventQoS */
#define EV_BLOCK_MS 100     /* a reliable write waits at most this for room */

struct ev_split {
	char *closed, *opened;
};

struct rec_events {
	struct rec_events_options o;
	char *fqn;
	dds_entity_t split_topic, split_wr, lost_topic, lost_wr;
	struct bt_sync_ticker tk;
	pthread_mutex_t mu;
	struct ev_split queue[REC_EVENTS_QUEUE_MAX];
	size_t q_head, q_len;
	bool dropped_said;
	/* Losses per topic index as the last event told them. */
	uint64_t *prev_transport, *prev_recorder;
	size_t n_prev;
	int64_t lost_t; /* monotonic ns of the last loss event, 0: none yet */
};

static void ev_write(dds_entity_t wr, struct btdds_cdr_wr *w, const char *what)
{
	btdds_cdr_wr_finish(w);
	dds_return_t rc = btdds_raw_write(wr, w->b.data, w->b.len);
	if (rc < 0)
		bt_log_warn("%s event not sent: %s", what, dds_strretcode(rc));
	btdds_cdr_wr_fini(w);
}

static void ev_write_split(struct rec_events *ev, const struct ev_split *s)
{
	struct btdds_cdr_wr w;
	btdds_cdr_wr_init(&w);
	btdds_cdr_put_string(&w, s->closed);
	btdds_cdr_put_string(&w, s->opened ? s->opened : "");
	if (ev->o.split_node_name)
		btdds_cdr_put_string(&w, ev->fqn);
	ev_write(ev->split_wr, &w, "write_split");
}

/* Appends one MessagesLostEventTopicStat per topic whose losses grew and
 * moves the baseline; returns how many. */
static uint32_t ev_loss_stats(struct rec_events *ev, struct btdds_cdr_wr *w)
{
	size_t n = rec_topics_count(ev->o.topics);
	if (n > ev->n_prev) {
		ev->prev_transport = bt_xrealloc(ev->prev_transport, n * sizeof *ev->prev_transport);
		ev->prev_recorder = bt_xrealloc(ev->prev_recorder, n * sizeof *ev->prev_recorder);
		for (size_t i = ev->n_prev; i < n; i++)
			ev->prev_transport[i] = ev->prev_recorder[i] = 0;
		ev->n_prev = n;
	}
	uint32_t k = 0;
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(ev->o.topics, i);
		uint64_t t = rec_topic_lost_transport(&tp->st), r = rec_topic_lost_recorder(&tp->st);
		if (t == ev->prev_transport[i] && r == ev->prev_recorder[i])
			continue;
		if (w != NULL) {
			btdds_cdr_put_string(w, tp->names.name);
			btdds_cdr_put_u64(w, t - ev->prev_transport[i]);
			btdds_cdr_put_u64(w, r - ev->prev_recorder[i]);
			ev->prev_transport[i] = t;
			ev->prev_recorder[i] = r;
		}
		k++;
	}
	return k;
}

/* A MessagesLostEvent when some topic lost messages since the last one. */
static void ev_losses(struct rec_events *ev)
{
	uint32_t k = ev_loss_stats(ev, NULL);
	if (k == 0)
		return;
	struct btdds_cdr_wr w;
	btdds_cdr_wr_init(&w);
	btdds_cdr_put_string(&w, ev->fqn);
	btdds_cdr_put_u32(&w, k);
	(void)ev_loss_stats(ev, &w); /* the same k: only this thread moves the baseline */
	ev->lost_t = bt_time_monotonic_ns();
	ev_write(ev->lost_wr, &w, "rosbag2_messages_lost");
}

/* Takes the oldest queued split (mu held); false when none. */
static bool ev_pop(struct rec_events *ev, struct ev_split *s)
{
	if (ev->q_len == 0)
		return false;
	*s = ev->queue[ev->q_head];
	ev->q_head = (ev->q_head + 1) % REC_EVENTS_QUEUE_MAX;
	ev->q_len--;
	return true;
}

/* Writes every queued split event, the lock released around each. */
static void ev_drain(struct rec_events *ev)
{
	struct ev_split s;
	pthread_mutex_lock(&ev->mu);
	while (ev_pop(ev, &s)) {
		pthread_mutex_unlock(&ev->mu);
		ev_write_split(ev, &s);
		free(s.closed);
		free(s.opened);
		pthread_mutex_lock(&ev->mu);
	}
	pthread_mutex_unlock(&ev->mu);
}

/* The ticker's callback: woken for a queued split, due for the losses. */
static void ev_tick(void *arg, bool due)
{
	struct rec_events *ev = arg;
	ev_drain(ev);
	if (due)
		ev_losses(ev);
}

void rec_events_file_closed(struct rec_events *ev, const char *closed, const char *opened)
{
	pthread_mutex_lock(&ev->mu);
	if (ev->q_len == REC_EVENTS_QUEUE_MAX) {
		bool say = !ev->dropped_said;
		ev->dropped_said = true;
		pthread_mutex_unlock(&ev->mu);
		if (say)
			bt_log_warn("write_split events: %d waiting, later ones dropped",
				    REC_EVENTS_QUEUE_MAX);
		return;
	}
	struct ev_split *s = &ev->queue[(ev->q_head + ev->q_len++) % REC_EVENTS_QUEUE_MAX];
	s->closed = bt_xstrdup(closed);
	s->opened = opened != NULL && opened[0] ? bt_xstrdup(opened) : NULL;
	pthread_mutex_unlock(&ev->mu);
	bt_sync_ticker_wake(&ev->tk);
}

/* ---- set-up ---- */

static bt_status ev_writer(struct rec_events *ev, const char *name, const char *type,
			   dds_entity_t *topic, dds_entity_t *wr, struct bt_error *err)
{
	*topic = btdds_raw_topic_create(ev->o.pp, name, type, false);
	if (*topic < 0)
		return bt_err_set(err, BT_ERR_DDS, "%s topic: %s", name, dds_strretcode(*topic));
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(EV_BLOCK_MS));
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, EV_DEPTH);
	*wr = dds_create_writer(ev->o.pp, *topic, q, NULL);
	dds_delete_qos(q);
	if (*wr < 0)
		return bt_err_set(err, BT_ERR_DDS, "%s writer: %s", name, dds_strretcode(*wr));
	return ev->o.node != NULL ? btdds_node_add_entity(ev->o.node, *wr, err) : BT_OK;
}

bt_status rec_events_start(const struct rec_events_options *o, struct rec_events **out,
			   struct bt_error *err)
{
	struct rec_events *ev = bt_xcalloc(1, sizeof *ev);
	ev->o = *o;
	ev->fqn = bt_xstrdup(o->node_fqn);
	if (pthread_mutex_init(&ev->mu, NULL) != 0)
		abort(); /* set-up: cannot fail on Linux */
	bt_sync_ticker_init(&ev->tk, "rec-events", o->lost_period_ns, ev_tick, ev);
	bt_status st = ev_writer(ev, REC_EVENTS_SPLIT_TOPIC, REC_EVENTS_SPLIT_TYPE,
				 &ev->split_topic, &ev->split_wr, err);
	if (st == BT_OK)
		st = ev_writer(ev, REC_EVENTS_LOST_TOPIC, REC_EVENTS_LOST_TYPE, &ev->lost_topic,
			       &ev->lost_wr, err);
	int rc = st == BT_OK ? bt_sync_ticker_start(&ev->tk) : 0;
	if (rc != 0)
		st = bt_err_set(err, BT_ERR_STATE, "cannot start the events thread: %s",
				strerror(rc));
	if (st != BT_OK) {
		rec_events_free(ev);
		return st;
	}
	*out = ev;
	return BT_OK;
}

void rec_events_stop(struct rec_events *ev)
{
	if (ev == NULL || !bt_sync_ticker_stop(&ev->tk))
		return;
	ev_drain(ev);
	/* The last losses, unless that would make two events within a period. */
	if (ev->lost_t == 0 || bt_time_monotonic_ns() - ev->lost_t >= ev->o.lost_period_ns)
		ev_losses(ev);
}

void rec_events_free(struct rec_events *ev)
{
	if (ev == NULL)
		return;
	rec_events_stop(ev);
	dds_entity_t e[] = {ev->split_wr, ev->lost_wr, ev->split_topic, ev->lost_topic};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
		if (e[i] <= 0)
			continue;
		if (ev->o.node != NULL && i < 2)
			btdds_node_remove_entity(ev->o.node, e[i]);
		(void)dds_delete(e[i]);
	}
	struct ev_split s;
	while (ev_pop(ev, &s)) {
		free(s.closed);
		free(s.opened);
	}
	bt_sync_ticker_fini(&ev->tk);
	pthread_mutex_destroy(&ev->mu);
	free(ev->prev_transport);
	free(ev->prev_recorder);
	free(ev->fqn);
	free(ev);
}
