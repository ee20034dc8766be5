/* DESIGN: one mutex guards the buffer, `held` (the flipped snapshot until
 * the consumer takes it), `post` (the post window) and the counters. The
 * buffer is a queue per topic (`t[topic].q`, arrival order) plus the list
 * of topics with a non-empty queue (`active`), so that a topic's own bound
 * and window evict its own oldest in O(1). A trigger trims every queue to
 * its window before T, concatenates them into `held` (pointer moves, one
 * per active topic) and leaves the buffer empty; take_wait moves `held`
 * out and sorts it by recv_time after unlocking. `busy` spans trigger →
 * release, so a second snapshot can never start while a file is written.
 *
 * Eviction: first the topic's own bound, then the global one (the oldest
 * head of all active topics: a scan of `active`), so the new message fits;
 * then time for the pushed topic against the newest recv_time seen in this
 * buffer, and for one other active topic in turn (a topic gone silent is
 * cleaned up too, not only at the trigger). Evicted messages are unlinked
 * under the lock into a local list and freed after unlocking.
 *
 * Coverage: evicting for bytes remembers the newest recv_time evicted per
 * topic (`cut`, listed in `cut_ids`); a trigger moves these to the held
 * snapshot (`held_cut`). A post message refused for bytes remembers the
 * oldest refused (`post_cut`). rec_snap_cover_get compares them with the
 * windows; release forgets them.
 *
 * Per-topic eviction counters are a fixed array of REC_TOPICS_MAX relaxed
 * atomics (64 KiB, allocated once): written under `mu`, read by the UI
 * without it. The per-topic state and id lists are allocated once too
 * (calloc: pages of topics never seen are never touched).
 *
 * Lock order: only `mu` (a leaf lock: nothing is called while holding it
 * except list and counter updates). */
#include "rec_snap.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <stdio.h>
#include <time.h>

#include "bt_mem.h"
#include "bt_sync.h"
#include "rec_topics.h"

/* One topic's part of the snap (mu). */
struct snap_topic {
	struct rec_batch q; /* buffered, arrival order */
	struct rec_snap_window w;
	bool set;           /* w was given; else the global defaults */
	uint32_t act;       /* 1 + its index in `active`; 0: queue empty */
	bool cut_listed, held_cut_listed, post_cut_listed;
	int64_t cut, held_cut; /* newest recv_time evicted for bytes */
	int64_t post_cut;      /* oldest recv_time refused from the post list */
	bool skip;             /* left out of the held snapshot (id < n_skip) */
	size_t post_bytes;     /* in the post list, valid while post_gen matches */
	uint64_t post_gen;
};

/* A list of topic ids (REC_TOPICS_MAX room). */
struct snap_ids {
	uint32_t *v;
	size_t n;
};

struct rec_snap {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* consumer: a snapshot, a wake-up or close */
	struct rec_snap_options opt;
	struct snap_topic *t;     /* REC_TOPICS_MAX */
	struct snap_ids active;   /* topics with buffered messages */
	size_t sweep;             /* the next active topic to check for time */
	size_t count, bytes;      /* in the buffer */
	struct snap_ids cut_ids;  /* topics with `cut` set */
	struct snap_ids held_cut_ids, post_cut_ids;
	struct rec_batch held;    /* flipped, not yet taken */
	bool held_ready;          /* flipped, not yet taken (may be empty) */
	int64_t held_t;           /* its trigger time */
	int64_t held_before, held_after; /* its trigger's narrowing (REC_SNAP_ALL: none) */
	char held_name[REC_SNAP_NAME_MAX]; /* its trigger's file name ("": none) */
	uint32_t n_skip;          /* t[id].skip is valid for id < n_skip */
	bool skip_rest;           /* topics >= n_skip are left out */
	struct rec_batch post;    /* the post window's messages */
	uint64_t post_gen;        /* bumped when the post list is emptied */
	uint32_t arrival;         /* the next push's rec_msg.arrival */
	int64_t newest;           /* max recv_time in the buffer */
	int64_t max_after;        /* the longest after-window of any topic */
	size_t after_only;        /* topics whose window starts at the trigger */
	int64_t post_end;         /* recv_time bound of the open window */
	bool post_open;
	bool busy; /* trigger → release */
	bool closed;
	bool woken;
	uint64_t evicted, evicted_bytes, toobig, post_full, post_discarded;
	uint64_t triggered, released, refused;
	atomic_size_t fill; /* bytes, readable without the lock (UI) */
	atomic_uint_fast64_t *topic_evicted; /* REC_TOPICS_MAX */
};

static void snap_ids_init(struct snap_ids *l)
{
	l->v = bt_xcalloc(REC_TOPICS_MAX, sizeof *l->v);
	l->n = 0;
}

struct rec_snap *rec_snap_new(const struct rec_snap_options *opt)
{
	assert(opt->max_bytes > 0);
	struct rec_snap *s = bt_xcalloc(1, sizeof *s);
	if (pthread_mutex_init(&s->mu, NULL) != 0)
		abort();
	bt_sync_cond_init(&s->cv);
	s->opt = *opt;
	s->newest = INT64_MIN;
	s->max_after = opt->post_ns > 0 ? opt->post_ns : 0;
	s->held_before = s->held_after = REC_SNAP_ALL;
	s->post_gen = 1;
	s->t = bt_xcalloc(REC_TOPICS_MAX, sizeof *s->t);
	snap_ids_init(&s->active);
	snap_ids_init(&s->cut_ids);
	snap_ids_init(&s->held_cut_ids);
	snap_ids_init(&s->post_cut_ids);
	atomic_init(&s->fill, 0);
	s->topic_evicted = bt_xcalloc(REC_TOPICS_MAX, sizeof *s->topic_evicted);
	for (size_t i = 0; i < REC_TOPICS_MAX; i++)
		atomic_init(&s->topic_evicted[i], 0);
	return s;
}

void rec_snap_free(struct rec_snap *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->active.n; i++)
		rec_msg_free_list(s->t[s->active.v[i]].q.head);
	rec_msg_free_list(s->held.head);
	rec_msg_free_list(s->post.head);
	free(s->active.v);
	free(s->cut_ids.v);
	free(s->held_cut_ids.v);
	free(s->post_cut_ids.v);
	free(s->t);
	free(s->topic_evicted);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* The topic's window: its own, or the global defaults (mu held). */
static struct rec_snap_window snap_win(const struct rec_snap *s, uint32_t topic)
{
	if (s->t[topic].set)
		return s->t[topic].w;
	int64_t d = s->opt.max_duration_ns;
	return (struct rec_snap_window){d > 0 ? d : REC_SNAP_ALL, s->opt.post_ns, 0};
}

/* Is topic left out of the held snapshot by its trigger (mu held)? */
static bool snap_skipped(const struct rec_snap *s, uint32_t topic)
{
	return topic < s->n_skip ? s->t[topic].skip : s->skip_rest;
}

/* The topic's window in the held snapshot: narrowed by its trigger. */
static struct rec_snap_window snap_hwin(const struct rec_snap *s, uint32_t topic)
{
	struct rec_snap_window w = snap_win(s, topic);
	if (w.before_ns > s->held_before)
		w.before_ns = s->held_before;
	if (w.after_ns > s->held_after)
		w.after_ns = s->held_after;
	return w;
}

void rec_snap_topic_set(struct rec_snap *s, uint32_t topic, const struct rec_snap_window *w)
{
	assert(topic < REC_TOPICS_MAX);
	pthread_mutex_lock(&s->mu);
	struct rec_snap_window old = snap_win(s, topic);
	s->after_only -= old.before_ns == 0 && old.after_ns > 0;
	s->after_only += w->before_ns == 0 && w->after_ns > 0;
	s->t[topic].w = *w;
	s->t[topic].set = true;
	if (w->after_ns > s->max_after)
		s->max_after = w->after_ns;
	pthread_mutex_unlock(&s->mu);
}

/* t - d, or INT64_MIN when that is below (no bound). */
static int64_t snap_sub(int64_t t, int64_t d)
{
	return d == REC_SNAP_ALL || t < INT64_MIN + d ? INT64_MIN : t - d;
}

/* t + d, saturated. */
static int64_t snap_add(int64_t t, int64_t d)
{
	return t > INT64_MAX - d ? INT64_MAX : t + d;
}

/* ---- the per-topic buffer ---- */

static void snap_ids_add(struct snap_ids *l, uint32_t id, bool *listed)
{
	if (!*listed) {
		l->v[l->n++] = id;
		*listed = true;
	}
}

static void snap_activate(struct rec_snap *s, uint32_t id)
{
	s->active.v[s->active.n++] = id;
	s->t[id].act = (uint32_t)s->active.n;
}

/* Takes an emptied topic out of `active` (the last one fills its place). */
static void snap_deactivate(struct rec_snap *s, uint32_t id)
{
	size_t i = s->t[id].act - 1;
	uint32_t last = s->active.v[--s->active.n];
	s->active.v[i] = last;
	s->t[last].act = (uint32_t)i + 1;
	s->t[id].act = 0;
}

/* Unlinks the front of topic id's queue onto *gone (freed by the caller,
 * unlocked) and counts it. */
static void snap_evict_one(struct rec_snap *s, uint32_t id, struct rec_msg **gone)
{
	struct snap_topic *t = &s->t[id];
	struct rec_msg *m = t->q.head;
	t->q.head = m->next;
	if (t->q.head == NULL)
		t->q.tail = NULL;
	t->q.count--;
	t->q.bytes -= m->len;
	s->count--;
	s->bytes -= m->len;
	s->evicted++;
	s->evicted_bytes += m->len;
	atomic_fetch_add_explicit(&s->topic_evicted[id], 1, memory_order_relaxed);
	m->next = *gone;
	*gone = m;
	if (t->q.count == 0)
		snap_deactivate(s, id);
}

/* Evicts for bytes: the topic's window is cut at that message. */
static void snap_evict_cut(struct rec_snap *s, uint32_t id, struct rec_msg **gone)
{
	struct snap_topic *t = &s->t[id];
	int64_t r = t->q.head->recv_time;
	if (!t->cut_listed || r > t->cut)
		t->cut = r;
	snap_ids_add(&s->cut_ids, id, &t->cut_listed);
	snap_evict_one(s, id, gone);
}

/* The active topic with the oldest front message. */
static uint32_t snap_oldest(const struct rec_snap *s)
{
	uint32_t best = s->active.v[0];
	for (size_t i = 1; i < s->active.n; i++) {
		uint32_t id = s->active.v[i];
		if (s->t[id].q.head->recv_time < s->t[best].q.head->recv_time)
			best = id;
	}
	return best;
}

/* Evicts topic id's messages older than `from`, never `keep`. */
static void snap_trim(struct rec_snap *s, uint32_t id, int64_t from, const struct rec_msg *keep,
		      struct rec_msg **gone)
{
	struct snap_topic *t = &s->t[id];
	while (t->q.head != NULL && t->q.head != keep && t->q.head->recv_time < from)
		snap_evict_one(s, id, gone);
}

/* Time eviction of the next active topic in turn (a silent one too). */
static void snap_sweep(struct rec_snap *s, const struct rec_msg *keep, struct rec_msg **gone)
{
	if (s->active.n == 0)
		return;
	if (s->sweep >= s->active.n)
		s->sweep = 0;
	uint32_t id = s->active.v[s->sweep++];
	if (id == keep->topic && s->active.n > 1) { /* just trimmed: the next one */
		if (s->sweep >= s->active.n)
			s->sweep = 0;
		id = s->active.v[s->sweep++];
	}
	snap_trim(s, id, snap_sub(s->newest, snap_win(s, id).before_ns), keep, gone);
}

/* Appends m (m->len within both bounds) to its topic's queue: evicting
 * for bytes before (its own bound, then the global one), for time after. */
static void snap_buffer(struct rec_snap *s, struct rec_msg *m, struct rec_msg **gone)
{
	uint32_t id = m->topic;
	struct snap_topic *t = &s->t[id];
	struct rec_snap_window w = snap_win(s, id);
	if (w.before_ns == 0) { /* its window starts at the trigger */
		m->next = *gone;
		*gone = m;
		s->evicted++;
		s->evicted_bytes += m->len;
		atomic_fetch_add_explicit(&s->topic_evicted[id], 1, memory_order_relaxed);
		return;
	}
	/* Written as subtractions so a huge len cannot wrap the sum. */
	while (w.max_bytes != 0 && m->len > w.max_bytes - t->q.bytes)
		snap_evict_cut(s, id, gone);
	while (m->len > s->opt.max_bytes - s->bytes)
		snap_evict_cut(s, snap_oldest(s), gone);
	if (t->act == 0)
		snap_activate(s, id);
	rec_batch_append(&t->q, m);
	s->count++;
	s->bytes += m->len;
	if (m->recv_time > s->newest)
		s->newest = m->recv_time;
	snap_trim(s, id, snap_sub(s->newest, w.before_ns), m, gone);
	snap_sweep(s, m, gone);
	atomic_store_explicit(&s->fill, s->bytes, memory_order_relaxed);
}

/* ---- producers ---- */

/* The post list takes m? (mu held) BT_OK appended, BT_ERR_FULL refused,
 * BT_ERR_NOTFOUND: not a post message (outside its topic's window). */
static bt_status snap_post_push(struct rec_snap *s, struct rec_msg *m)
{
	if (!s->post_open || snap_skipped(s, m->topic))
		return BT_ERR_NOTFOUND;
	struct rec_snap_window w = snap_hwin(s, m->topic);
	if (m->recv_time > snap_add(s->held_t, w.after_ns) ||
	    m->recv_time < snap_sub(s->held_t, w.before_ns) ||
	    (w.before_ns == 0 && m->recv_time < s->held_t))
		return BT_ERR_NOTFOUND;
	struct snap_topic *t = &s->t[m->topic];
	if (t->post_gen != s->post_gen) {
		t->post_gen = s->post_gen;
		t->post_bytes = 0;
	}
	if (m->len > s->opt.max_bytes - s->post.bytes ||
	    (w.max_bytes != 0 && m->len > w.max_bytes - t->post_bytes)) {
		s->post_full++;
		if (!t->post_cut_listed || m->recv_time < t->post_cut)
			t->post_cut = m->recv_time;
		snap_ids_add(&s->post_cut_ids, m->topic, &t->post_cut_listed);
		return BT_ERR_FULL;
	}
	t->post_bytes += m->len;
	rec_batch_append(&s->post, m);
	return BT_OK;
}

/* Larger than the global bound or the topic's own: never kept. (A topic
 * index out of range, which rec_topics never hands out, is refused so.) */
static bool snap_toobig(const struct rec_snap *s, const struct rec_msg *m)
{
	if (m->topic >= REC_TOPICS_MAX)
		return true;
	size_t own = s->t[m->topic].set ? s->t[m->topic].w.max_bytes : 0;
	return m->len > s->opt.max_bytes || (own != 0 && m->len > own);
}

bt_status rec_snap_push(struct rec_snap *s, struct rec_msg *m)
{
	struct rec_msg *gone = NULL;
	bt_status st = BT_OK;
	pthread_mutex_lock(&s->mu);
	if (s->closed) {
		st = BT_ERR_STATE;
	} else if (snap_toobig(s, m)) {
		s->toobig++;
		st = BT_ERR_TOOBIG;
	} else {
		m->arrival = s->arrival++;
		st = snap_post_push(s, m);
		if (st == BT_ERR_NOTFOUND) {
			snap_buffer(s, m, &gone);
			st = BT_OK;
		}
	}
	pthread_mutex_unlock(&s->mu);
	if (st != BT_OK)
		rec_msg_free(m);
	rec_msg_free_list(gone);
	return st;
}

/* ---- triggers ---- */

/* Takes the trigger's parameters for the snapshot it flips (mu held, not
 * busy: nothing reads them then). */
static void snap_params_set(struct rec_snap *s, const struct rec_snap_params *p)
{
	static const struct rec_snap_params none = {REC_SNAP_ALL, REC_SNAP_ALL, NULL, 0, false, NULL};
	if (p == NULL)
		p = &none;
	s->held_before = p->before_ns;
	s->held_after = p->after_ns;
	for (uint32_t i = p->n_skip; i < s->n_skip; i++)
		s->t[i].skip = false;
	s->n_skip = p->skip != NULL ? p->n_skip : 0;
	for (uint32_t i = 0; i < s->n_skip; i++)
		s->t[i].skip = p->skip[i];
	s->skip_rest = p->skip_rest;
	snprintf(s->held_name, sizeof s->held_name, "%s", p->name != NULL ? p->name : "");
}

/* Trims every queue to its window before T, a selected topic's as its
 * trigger narrows it (mu held). Returns the selected topics' messages. */
static size_t snap_trim_all(struct rec_snap *s, int64_t T, struct rec_msg **gone)
{
	size_t n = 0;
	/* Backwards: an emptied topic is replaced by the last one. */
	for (size_t i = s->active.n; i-- > 0;) {
		uint32_t id = s->active.v[i];
		bool skip = snap_skipped(s, id);
		int64_t before = skip ? snap_win(s, id).before_ns : snap_hwin(s, id).before_ns;
		snap_trim(s, id, snap_sub(T, before), NULL, gone);
		if (!skip)
			n += s->t[id].q.count;
	}
	return n;
}

/* Moves the selected topics' queues into `held` and the cuts with them;
 * the left-out ones stay buffered (mu held). */
static void snap_flip(struct rec_snap *s, int64_t T)
{
	size_t kept = 0;
	s->count = s->bytes = 0;
	for (size_t i = 0; i < s->active.n; i++) {
		uint32_t id = s->active.v[i];
		struct snap_topic *t = &s->t[id];
		if (snap_skipped(s, id)) {
			s->active.v[kept++] = id;
			t->act = (uint32_t)kept;
			s->count += t->q.count;
			s->bytes += t->q.bytes;
			continue;
		}
		if (s->held.tail != NULL)
			s->held.tail->next = t->q.head;
		else
			s->held.head = t->q.head;
		s->held.tail = t->q.tail;
		s->held.count += t->q.count;
		s->held.bytes += t->q.bytes;
		t->q = (struct rec_batch){0};
		t->act = 0;
	}
	s->active.n = kept;
	for (size_t i = 0; i < s->cut_ids.n; i++) {
		struct snap_topic *t = &s->t[s->cut_ids.v[i]];
		t->held_cut = t->cut;
		t->held_cut_listed = true;
		t->cut_listed = false;
	}
	struct snap_ids h = s->held_cut_ids;
	s->held_cut_ids = s->cut_ids;
	s->cut_ids = h;
	s->cut_ids.n = 0;
	s->held_t = T;
	s->held_ready = true;
	if (kept == 0)
		s->newest = INT64_MIN;
	atomic_store_explicit(&s->fill, s->bytes, memory_order_relaxed);
}

/* The longest after-window of the snapshot being triggered (mu held). */
static int64_t snap_after(const struct rec_snap *s)
{
	return s->max_after < s->held_after ? s->max_after : s->held_after;
}

/* Flips the buffer at T and opens the post window (mu held). */
static void snap_trigger_locked(struct rec_snap *s, int64_t now_ns,
				struct rec_snap_trigger_info *info)
{
	snap_flip(s, now_ns);
	s->busy = true;
	s->triggered++;
	if (snap_after(s) > 0) {
		s->post_open = true;
		s->post_gen++;
		s->post_end = snap_add(now_ns, snap_after(s));
	}
	if (info != NULL)
		*info = (struct rec_snap_trigger_info){s->triggered, s->held.count, s->held.bytes};
	pthread_cond_signal(&s->cv);
}

enum rec_snap_trigger_result rec_snap_trigger(struct rec_snap *s, int64_t now_ns,
					      struct rec_snap_trigger_info *info)
{
	return rec_snap_trigger_with(s, now_ns, NULL, info);
}

enum rec_snap_trigger_result rec_snap_trigger_with(struct rec_snap *s, int64_t now_ns,
						   const struct rec_snap_params *p,
						   struct rec_snap_trigger_info *info)
{
	enum rec_snap_trigger_result r = REC_SNAP_TRIGGERED;
	struct rec_msg *gone = NULL;
	pthread_mutex_lock(&s->mu);
	if (s->closed) {
		r = REC_SNAP_CLOSED;
	} else if (s->busy) {
		s->refused++;
		r = REC_SNAP_BUSY;
	} else {
		snap_params_set(s, p);
		size_t n = snap_trim_all(s, now_ns, &gone);
		/* Nothing before it and nothing can come after it (a trigger
		 * with --before 0 makes every topic's window start at it). */
		bool after = snap_after(s) > 0 && (s->after_only != 0 || s->held_before == 0);
		if (n == 0 && !after)
			r = REC_SNAP_EMPTY;
		else
			snap_trigger_locked(s, now_ns, info);
		atomic_store_explicit(&s->fill, s->bytes, memory_order_relaxed);
	}
	pthread_mutex_unlock(&s->mu);
	rec_msg_free_list(gone);
	return r;
}

const char *rec_snap_trigger_str(enum rec_snap_trigger_result r)
{
	switch (r) {
	case REC_SNAP_TRIGGERED:
		return "snapshot triggered";
	case REC_SNAP_EMPTY:
		return "snapshot buffer is empty: nothing to write";
	case REC_SNAP_BUSY:
		return "snapshot still being written";
	case REC_SNAP_CLOSED:
		return "recording is stopping";
	}
	return "?";
}

/* ---- the consumer ---- */

/* Does x come before y: an earlier recv_time, or the same and pushed
 * before (wrap-safe within 2^31 arrivals)? */
static bool snap_before(const struct rec_msg *x, const struct rec_msg *y)
{
	if (x->recv_time != y->recv_time)
		return x->recv_time < y->recv_time;
	return (int32_t)(x->arrival - y->arrival) < 0;
}

/* Merge sort of a list of n messages by recv_time, then arrival. */
static struct rec_msg *snap_sort(struct rec_msg *head, size_t n)
{
	if (n < 2)
		return head;
	struct rec_msg *mid = head;
	for (size_t i = 1; i < n / 2; i++)
		mid = mid->next;
	struct rec_msg *b = mid->next;
	mid->next = NULL;
	struct rec_msg *a = snap_sort(head, n / 2);
	b = snap_sort(b, n - n / 2);
	struct rec_msg *out = NULL, **p = &out;
	while (a != NULL && b != NULL) {
		struct rec_msg **from = snap_before(b, a) ? &b : &a;
		*p = *from;
		*from = (*from)->next;
		p = &(*p)->next;
	}
	*p = a != NULL ? a : b;
	return out;
}

static void snap_batch_sort(struct rec_batch *b)
{
	b->head = snap_sort(b->head, b->count);
	b->tail = b->head;
	while (b->tail != NULL && b->tail->next != NULL)
		b->tail = b->tail->next;
}

bool rec_snap_take_wait(struct rec_snap *s, int64_t timeout_ns, struct rec_batch *out,
			uint64_t *id)
{
	*out = (struct rec_batch){0};
	pthread_mutex_lock(&s->mu);
	if (timeout_ns > 0) {
		struct timespec dl = bt_sync_deadline(timeout_ns);
		while (!s->held_ready && !s->woken && !s->closed)
			if (pthread_cond_timedwait(&s->cv, &s->mu, &dl) != 0)
				break; /* timed out, or failed: the caller polls again */
	}
	s->woken = false;
	bool taken = s->held_ready;
	if (taken) {
		*out = s->held;
		s->held = (struct rec_batch){0};
		s->held_ready = false;
	}
	if (id != NULL)
		*id = taken ? s->triggered : 0;
	bool go_on = !s->closed || taken;
	pthread_mutex_unlock(&s->mu);
	snap_batch_sort(out);
	return go_on;
}

bool rec_snap_post_take(struct rec_snap *s, int64_t now_ns, struct rec_batch *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->post;
	s->post = (struct rec_batch){0};
	s->post_gen++;
	bool open = s->post_open;
	if (open && (s->closed || now_ns - REC_SNAP_POST_GRACE_NS > s->post_end))
		open = s->post_open = false;
	pthread_mutex_unlock(&s->mu);
	snap_batch_sort(out);
	return open;
}

/* Topic id's coverage in the held snapshot; false when fully covered. */
static bool snap_cover_one(const struct rec_snap *s, uint32_t id, struct rec_snap_cover *c)
{
	const struct snap_topic *t = &s->t[id];
	struct rec_snap_window w = snap_hwin(s, id);
	int64_t T = s->held_t;
	if (snap_skipped(s, id))
		return false; /* not in this snapshot */
	*c = (struct rec_snap_cover){id, w.before_ns, w.after_ns, w.before_ns, w.after_ns};
	bool cut = false;
	/* Without a time bound, the buffer is whatever memory holds: no cut. */
	if (t->held_cut_listed && w.before_ns != REC_SNAP_ALL &&
	    t->held_cut >= snap_sub(T, w.before_ns)) {
		c->before_kept_ns = t->held_cut >= T ? 0 : T - t->held_cut;
		cut = true;
	}
	if (t->post_cut_listed && t->post_cut <= snap_add(T, w.after_ns)) {
		c->after_kept_ns = t->post_cut <= T ? 0 : t->post_cut - T;
		cut = true;
	}
	return cut;
}

size_t rec_snap_cover_get(struct rec_snap *s, struct rec_snap_cover *out, size_t max)
{
	size_t n = 0;
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->held_cut_ids.n + s->post_cut_ids.n; i++) {
		bool held = i < s->held_cut_ids.n;
		uint32_t id = held ? s->held_cut_ids.v[i] : s->post_cut_ids.v[i - s->held_cut_ids.n];
		if (!held && s->t[id].held_cut_listed)
			continue; /* done with the held ones */
		struct rec_snap_cover c;
		if (snap_cover_one(s, id, &c) && n++ < max)
			out[n - 1] = c;
	}
	pthread_mutex_unlock(&s->mu);
	return n;
}

/* Forgets the finished snapshot's cuts (mu held). */
static void snap_cuts_forget(struct rec_snap *s)
{
	for (size_t i = 0; i < s->held_cut_ids.n; i++)
		s->t[s->held_cut_ids.v[i]].held_cut_listed = false;
	for (size_t i = 0; i < s->post_cut_ids.n; i++)
		s->t[s->post_cut_ids.v[i]].post_cut_listed = false;
	s->held_cut_ids.n = s->post_cut_ids.n = 0;
}

void rec_snap_release(struct rec_snap *s)
{
	pthread_mutex_lock(&s->mu);
	struct rec_msg *left = s->post.head;
	s->post_discarded += s->post.count;
	s->post = (struct rec_batch){0};
	s->post_open = false;
	snap_cuts_forget(s);
	if (s->busy) {
		s->busy = false;
		s->released++;
	}
	pthread_mutex_unlock(&s->mu);
	rec_msg_free_list(left);
}

const char *rec_snap_held_name(const struct rec_snap *s)
{
	return s->held_name; /* set by the trigger, under mu, before take_wait took it */
}

void rec_snap_wake(struct rec_snap *s)
{
	bt_sync_raise(&s->mu, &s->cv, &s->woken);
}

void rec_snap_close(struct rec_snap *s)
{
	bt_sync_raise(&s->mu, &s->cv, &s->closed);
}

/* ---- getters ---- */

size_t rec_snap_fill(const struct rec_snap *s)
{
	return atomic_load_explicit(&((struct rec_snap *)s)->fill, memory_order_relaxed);
}

size_t rec_snap_max_bytes(const struct rec_snap *s)
{
	return s->opt.max_bytes;
}

void rec_snap_get_stats(struct rec_snap *s, struct rec_snap_stats *out)
{
	pthread_mutex_lock(&s->mu);
	*out = (struct rec_snap_stats){
		.fill_bytes = s->bytes,
		.fill_count = s->count,
		.evicted = s->evicted,
		.evicted_bytes = s->evicted_bytes,
		.toobig = s->toobig,
		.post_full = s->post_full,
		.post_discarded = s->post_discarded,
		.triggered = s->triggered,
		.released = s->released,
		.refused = s->refused,
		.busy = s->busy,
		.post_open = s->post_open,
	};
	pthread_mutex_unlock(&s->mu);
}

uint64_t rec_snap_topic_evicted(const struct rec_snap *s, uint32_t topic)
{
	if (topic >= REC_TOPICS_MAX)
		return 0;
	return atomic_load_explicit(&s->topic_evicted[topic], memory_order_relaxed);
}
