/* DESIGN: one mutex guards three lists and the counters: `buf` (the
 * circular buffer producers push into), `held` (the flipped snapshot until
 * the consumer takes it) and `post` (the post window). A trigger moves
 * `buf` into `held` (a struct copy) and leaves `buf` empty; take_wait moves
 * `held` out to the consumer. `busy` spans trigger → release, so a second
 * snapshot can never start while a file is being written.
 *
 * Eviction is from the front of `buf` (arrival order): first for bytes, so
 * the new message fits, then for time against the newest recv_time seen in
 * this buffer. Evicted messages are unlinked under the lock into a local
 * list and freed after unlocking.
 *
 * Per-topic eviction counters are a fixed array of REC_TOPICS_MAX relaxed
 * atomics (64 KiB, allocated once): written under `mu`, read by the UI
 * without it.
 *
 * Lock order: only `mu` (a leaf lock: nothing is called while holding it
 * except list and counter updates). */
#include "rec_snap.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "bt_mem.h"
#include "rec_topics.h"

struct rec_snap {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* consumer: a snapshot, a wake-up or close */
	struct rec_snap_options opt;
	struct rec_batch buf;  /* the circular buffer */
	struct rec_batch held; /* flipped, not yet taken */
	struct rec_batch post; /* the post window's messages */
	int64_t newest;        /* max recv_time in buf */
	int64_t post_end;      /* recv_time bound of the open window */
	bool post_open;
	bool busy; /* trigger → release */
	bool closed;
	bool woken;
	uint64_t evicted, evicted_bytes, toobig, post_full, post_discarded;
	uint64_t triggered, released, refused;
	atomic_size_t fill; /* buf.bytes, readable without the lock (UI) */
	atomic_uint_fast64_t *topic_evicted; /* REC_TOPICS_MAX */
};

static void snap_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;
	/* Set-up: failing here means the system is broken, not a runtime case. */
	if (pthread_condattr_init(&a) != 0 ||
	    pthread_condattr_setclock(&a, CLOCK_MONOTONIC) != 0 || pthread_cond_init(cv, &a) != 0)
		abort();
	pthread_condattr_destroy(&a);
}

struct rec_snap *rec_snap_new(const struct rec_snap_options *opt)
{
	assert(opt->max_bytes > 0);
	struct rec_snap *s = bt_xcalloc(1, sizeof *s);
	if (pthread_mutex_init(&s->mu, NULL) != 0)
		abort();
	snap_cond_init(&s->cv);
	s->opt = *opt;
	s->newest = INT64_MIN;
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
	rec_msg_free_list(s->buf.head);
	rec_msg_free_list(s->held.head);
	rec_msg_free_list(s->post.head);
	free(s->topic_evicted);
	pthread_cond_destroy(&s->cv);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* ---- lists ---- */

/* Unlinks the front of buf onto *gone (freed by the caller, unlocked) and
 * counts it. */
static void snap_evict_one(struct rec_snap *s, struct rec_msg **gone)
{
	struct rec_msg *m = s->buf.head;
	s->buf.head = m->next;
	if (s->buf.head == NULL)
		s->buf.tail = NULL;
	s->buf.count--;
	s->buf.bytes -= m->len;
	s->evicted++;
	s->evicted_bytes += m->len;
	if (m->topic < REC_TOPICS_MAX)
		atomic_fetch_add_explicit(&s->topic_evicted[m->topic], 1, memory_order_relaxed);
	m->next = *gone;
	*gone = m;
}

/* Appends m to buf (m->len <= max_bytes), evicting for bytes before and
 * for time after. */
static void snap_buffer(struct rec_snap *s, struct rec_msg *m, struct rec_msg **gone)
{
	/* Written as a subtraction so a huge len cannot wrap the sum. */
	while (m->len > s->opt.max_bytes - s->buf.bytes)
		snap_evict_one(s, gone);
	rec_batch_append(&s->buf, m);
	if (m->recv_time > s->newest)
		s->newest = m->recv_time;
	int64_t d = s->opt.max_duration_ns;
	/* newest - d without overflow: only evict when the window starts
	 * after INT64_MIN. */
	if (d > 0 && s->newest > INT64_MIN + d) {
		int64_t oldest_kept = s->newest - d;
		while (s->buf.head != m && s->buf.head->recv_time < oldest_kept)
			snap_evict_one(s, gone);
	}
	atomic_store_explicit(&s->fill, s->buf.bytes, memory_order_relaxed);
}

/* ---- producers ---- */

/* The post list takes m? (mu held) BT_OK appended, BT_ERR_FULL refused,
 * BT_ERR_NOTFOUND: not a post message. */
static bt_status snap_post_push(struct rec_snap *s, struct rec_msg *m)
{
	if (!s->post_open || m->recv_time > s->post_end)
		return BT_ERR_NOTFOUND;
	if (m->len > s->opt.max_bytes - s->post.bytes) {
		s->post_full++;
		return BT_ERR_FULL;
	}
	rec_batch_append(&s->post, m);
	return BT_OK;
}

bt_status rec_snap_push(struct rec_snap *s, struct rec_msg *m)
{
	struct rec_msg *gone = NULL;
	bt_status st = BT_OK;
	pthread_mutex_lock(&s->mu);
	if (s->closed) {
		st = BT_ERR_STATE;
	} else if (m->len > s->opt.max_bytes) {
		s->toobig++;
		st = BT_ERR_TOOBIG;
	} else {
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

enum rec_snap_trigger_result rec_snap_trigger(struct rec_snap *s, int64_t now_ns,
					      struct rec_snap_trigger_info *info)
{
	enum rec_snap_trigger_result r = REC_SNAP_TRIGGERED;
	pthread_mutex_lock(&s->mu);
	if (s->closed) {
		r = REC_SNAP_CLOSED;
	} else if (s->busy) {
		s->refused++;
		r = REC_SNAP_BUSY;
	} else if (s->buf.count == 0) {
		r = REC_SNAP_EMPTY;
	} else {
		s->held = s->buf;
		s->buf = (struct rec_batch){0};
		s->newest = INT64_MIN;
		atomic_store_explicit(&s->fill, 0, memory_order_relaxed);
		s->busy = true;
		s->triggered++;
		if (s->opt.post_ns > 0) {
			s->post_open = true;
			s->post_end = now_ns > INT64_MAX - s->opt.post_ns ? INT64_MAX
									  : now_ns + s->opt.post_ns;
		}
		if (info != NULL)
			*info = (struct rec_snap_trigger_info){s->triggered, s->held.count,
							       s->held.bytes};
		pthread_cond_signal(&s->cv);
	}
	pthread_mutex_unlock(&s->mu);
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

/* CLOCK_MONOTONIC now + ns, for pthread_cond_timedwait. */
static struct timespec snap_deadline(int64_t ns)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int64_t sec = ns / 1000000000;
	int64_t nsec = ts.tv_nsec + ns % 1000000000;
	if (nsec >= 1000000000) {
		nsec -= 1000000000;
		sec++;
	}
	ts.tv_sec += (time_t)sec;
	ts.tv_nsec = (long)nsec;
	return ts;
}

bool rec_snap_take_wait(struct rec_snap *s, int64_t timeout_ns, struct rec_batch *out,
			uint64_t *id)
{
	*out = (struct rec_batch){0};
	pthread_mutex_lock(&s->mu);
	if (timeout_ns > 0) {
		struct timespec dl = snap_deadline(timeout_ns);
		while (s->held.count == 0 && !s->woken && !s->closed)
			if (pthread_cond_timedwait(&s->cv, &s->mu, &dl) != 0)
				break; /* timed out, or failed: the caller polls again */
	}
	s->woken = false;
	if (s->held.count != 0) {
		*out = s->held;
		s->held = (struct rec_batch){0};
	}
	if (id != NULL)
		*id = s->triggered;
	bool go_on = !s->closed || out->count != 0;
	pthread_mutex_unlock(&s->mu);
	return go_on;
}

bool rec_snap_post_take(struct rec_snap *s, int64_t now_ns, struct rec_batch *out)
{
	pthread_mutex_lock(&s->mu);
	*out = s->post;
	s->post = (struct rec_batch){0};
	bool open = s->post_open;
	if (open && (s->closed || now_ns - REC_SNAP_POST_GRACE_NS > s->post_end))
		open = s->post_open = false;
	pthread_mutex_unlock(&s->mu);
	return open;
}

void rec_snap_release(struct rec_snap *s)
{
	pthread_mutex_lock(&s->mu);
	struct rec_msg *left = s->post.head;
	s->post_discarded += s->post.count;
	s->post = (struct rec_batch){0};
	s->post_open = false;
	if (s->busy) {
		s->busy = false;
		s->released++;
	}
	pthread_mutex_unlock(&s->mu);
	rec_msg_free_list(left);
}

void rec_snap_wake(struct rec_snap *s)
{
	pthread_mutex_lock(&s->mu);
	s->woken = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void rec_snap_close(struct rec_snap *s)
{
	pthread_mutex_lock(&s->mu);
	s->closed = true;
	pthread_cond_signal(&s->cv);
	pthread_mutex_unlock(&s->mu);
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
		.fill_bytes = s->buf.bytes,
		.fill_count = s->buf.count,
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
