/* play_view — the snapshot the live view and the headless status copy
 * (play_view_get): the state under the mutex, the counters as relaxed
 * atomics, the rates from bt_rate windows sampled at each call (view_mu,
 * never held with mu). */
#include <stdio.h>
#include <string.h>

#include "bt_time.h"
#include "play__player.h"

size_t play_n_topics(const struct play *p)
{
	return p->n_topics;
}

const char *play_warning(const struct play *p)
{
	struct play *q = (struct play *)p;
	pthread_mutex_lock(&q->mu);
	bool any = q->warning[0] != 0;
	pthread_mutex_unlock(&q->mu);
	return any ? q->warning : NULL; /* set once, never changed after */
}

const char *const *play_skipped(const struct play *p, size_t *n)
{
	*n = p->n_skipped; /* set by play_start, never changed after */
	return (const char *const *)p->skipped;
}

static void view_state(struct play *p, struct play_view *v, int64_t now)
{
	pthread_mutex_lock(&p->mu);
	v->state = (enum play_state)atomic_load(&p->state);
	v->bag_now = play_sched_pos(&p->sched, now);
	v->rate = p->sched.rate;
	v->loop = p->loop;
	v->loop_index = p->loop_index;
	v->wall_remaining_ns = play_sched_remaining(&p->sched, now);
	if (p->waiting_subs || p->subs_wait_end)
		v->waited_subs_ns = (p->subs_wait_end ? p->subs_wait_end : now) - p->started_wall;
	snprintf(v->warning, sizeof v->warning, "%s", p->warning);
	pthread_mutex_unlock(&p->mu);
}

static void view_topic(struct play_topic *t, struct play_topic_view *tv)
{
	*tv = (struct play_topic_view){
		.name = t->names.name,
		.type = t->names.type,
		.dds_name = t->names.dds_name,
		.reliable = t->qos.reliability == BAG_RELIABILITY_RELIABLE,
		.transient_local = t->qos.durability == BAG_DURABILITY_TRANSIENT_LOCAL,
		.depth = t->qos.history == BAG_HISTORY_KEEP_ALL ? 0
			 : t->qos.depth > 0 && t->qos.depth < UINT32_MAX ? (uint32_t)t->qos.depth
									    : 10,
		.qos_recorded = t->qos_recorded,
		.qos_overridden = t->qos_overridden,
		.published = atomic_load_explicit(&t->published, memory_order_relaxed),
		.service = t->svcreq != NULL,
		.answered = atomic_load_explicit(&t->answered, memory_order_relaxed),
		.unserved = atomic_load_explicit(&t->unserved, memory_order_relaxed),
		.total = atomic_load_explicit(&t->total, memory_order_relaxed),
		.bytes = atomic_load_explicit(&t->bytes, memory_order_relaxed),
		.matched = atomic_load_explicit(&t->matched, memory_order_relaxed),
		.late = atomic_load_explicit(&t->late, memory_order_relaxed),
		.max_late_ns = atomic_load_explicit(&t->max_late, memory_order_relaxed),
		.failed = atomic_load_explicit(&t->failed, memory_order_relaxed),
		.muted = atomic_load(&t->muted),
	};
}

void play_view_get(struct play *p, struct play_view *v, struct play_topic_view *topics,
		   size_t cap)
{
	int64_t now = bt_time_monotonic_ns();
	*v = (struct play_view){.bag_path = p->bag_path, .bag_start = p->bag_start,
				.bag_end = p->bag_end, .window_start = p->win_start,
				.window_end = p->win_end, .loop_count = p->o.loop_count,
				.n_topics = p->n_topics};
	view_state(p, v, now);
	v->wall_elapsed_ns = now - p->started_wall;
	int64_t span = p->win_end > p->win_start ? p->win_end - p->win_start : 0;
	v->wall_total_ns = (int64_t)((double)span / v->rate);
	v->clock_published = atomic_load_explicit(&p->clock_published, memory_order_relaxed);
	pthread_mutex_lock(&p->view_mu);
	for (size_t i = 0; i < p->n_topics; i++) {
		struct play_topic_view tv;
		view_topic(&p->topics[i], &tv);
		bt_rate_push(&p->topics[i].rate, now, tv.published, tv.bytes);
		bt_rate_get(&p->topics[i].rate, BT_RATE_WINDOW_NS, &tv.hz, &tv.bytes_per_s);
		v->published += tv.published;
		v->total += tv.total;
		v->late += tv.late;
		v->failed += tv.failed;
		if (tv.max_late_ns > v->max_late_ns)
			v->max_late_ns = tv.max_late_ns;
		if (i < cap)
			topics[i] = tv;
	}
	pthread_mutex_unlock(&p->view_mu);
	/* bucket edges: never above what was seen */
	v->late_p50_ns = bt_lathist_quantile(&p->late_hist, 0.5);
	v->late_p99_ns = bt_lathist_quantile(&p->late_hist, 0.99);
	v->late_p50_ns = v->late_p50_ns < v->max_late_ns ? v->late_p50_ns : v->max_late_ns;
	v->late_p99_ns = v->late_p99_ns < v->max_late_ns ? v->late_p99_ns : v->max_late_ns;
}

bool play_paused(struct play *p)
{
	return atomic_load(&p->state) == PLAY_STATE_PAUSED;
}

double play_rate(struct play *p)
{
	pthread_mutex_lock(&p->mu);
	double r = p->sched.rate;
	pthread_mutex_unlock(&p->mu);
	return r;
}

void play_window(const struct play *p, int64_t *start, int64_t *end)
{
	*start = p->win_start;
	*end = p->win_end;
}
