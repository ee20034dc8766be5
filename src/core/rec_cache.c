/* DESIGN: one mutex guards the producer list and the counters; producers
 * append under it, the consumer takes the whole list under it (a pointer
 * swap) and writes it after unlocking, so no lock is ever held across I/O.
 * Two condition variables on CLOCK_MONOTONIC: `cv_data` wakes the consumer
 * (data, wake-up, close), `cv_done` releases write-through pushers.
 *
 * Write-through (max_bytes 0) counts batches: a message pushed now lands in
 * batch number `taken + 1` (the next swap that takes data); that batch is
 * written once the consumer comes back for the swap after it, which sets
 * `done = taken`. A pusher waits for done >= its batch, or for close.
 *
 * Gathering: once data waits, the consumer lets more gather for up to
 * REC_CACHE_GATHER_NS after the first message, unless the buffer is half
 * full, it is woken or the cache closes. Each batch is one transaction, and
 * a commit costs far more than an insert (journal, fstat, locks): at 5000
 * messages/s over 500 topics, swapping at every message cost 0.66 of a
 * core. Write-through does not gather (its pushers wait).
 *
 * Lock order: only `mu` (a leaf lock: nothing is called while holding it). */
#include "rec_cache.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "bt_hiwater.h"
#include "bt_list.h"
#include "bt_mem.h"
#include "bt_sync.h"

#define REC_CACHE_GATHER_NS INT64_C(10000000) /* 10 ms */
#define REC_CACHE_ORDER_MAX ((size_t)1 << 16)  /* 512 KiB of pointers per side */

struct rec_cache {
	pthread_mutex_t mu;
	pthread_cond_t cv_data; /* consumer: messages, a wake-up or close */
	pthread_cond_t cv_done; /* write-through pushers: a batch was written */
	struct rec_batch prod;  /* the producer buffer */
	size_t max_bytes;       /* 0: write-through */
	bool closed;
	bool woken;
	uint64_t taken; /* batches handed to the consumer */
	uint64_t done;  /* batches the consumer has finished */
	atomic_size_t fill; /* prod.bytes, readable without the lock (UI) */
	struct timespec first; /* when the producer buffer got its first message */
	/* The producer buffer's first messages as an array (a hint for the
	 * consumer's prefetching; the list stays the truth): push stores while
	 * there is room and never allocates; the consumer sizes the array
	 * outside the lock (cache_order_room) and the two swap with the
	 * batch. */
	struct rec_msg **pv; /* producer side, under mu */
	size_t pv_n, pv_cap;
	struct rec_msg **cv; /* the consumer's: the batch it took last */
	size_t cv_n, cv_cap;
	size_t last_count;        /* messages in the batch taken last */
	struct bt_hiwater cv_hw; /* when a backlog's room goes back */
};

struct rec_cache *rec_cache_new(size_t max_bytes)
{
	struct rec_cache *c = bt_xcalloc(1, sizeof *c);
	if (pthread_mutex_init(&c->mu, NULL) != 0)
		abort();
	bt_sync_cond_init(&c->cv_data);
	bt_sync_cond_init(&c->cv_done);
	c->max_bytes = max_bytes;
	atomic_init(&c->fill, 0);
	return c;
}

void rec_cache_free(struct rec_cache *c)
{
	if (c == NULL)
		return;
	rec_msg_free_list(c->prod.head);
	free(c->pv);
	free(c->cv);
	pthread_cond_destroy(&c->cv_done);
	pthread_cond_destroy(&c->cv_data);
	pthread_mutex_destroy(&c->mu);
	free(c);
}

static void cache_append(struct rec_cache *c, struct rec_msg *m)
{
	if (c->pv_n < c->pv_cap)
		c->pv[c->pv_n++] = m;
	rec_batch_append(&c->prod, m);
	atomic_store_explicit(&c->fill, c->prod.bytes, memory_order_relaxed);
}

bt_status rec_cache_push(struct rec_cache *c, struct rec_msg *m)
{
	pthread_mutex_lock(&c->mu);
	if (c->closed) {
		pthread_mutex_unlock(&c->mu);
		rec_msg_free(m);
		return BT_ERR_STATE;
	}
	/* Written as a subtraction so a huge len cannot wrap the sum. */
	if (c->max_bytes != 0 && m->len > c->max_bytes - c->prod.bytes) {
		pthread_mutex_unlock(&c->mu);
		rec_msg_free(m);
		return BT_ERR_FULL;
	}
	bool was_empty = c->prod.count == 0;
	bool was_half = c->prod.bytes >= c->max_bytes / 2;
	cache_append(c, m);
	if (was_empty)
		clock_gettime(CLOCK_MONOTONIC, &c->first);
	if (was_empty || (!was_half && c->prod.bytes >= c->max_bytes / 2))
		pthread_cond_signal(&c->cv_data);
	if (c->max_bytes == 0) {
		uint64_t batch = c->taken + 1;
		while (c->done < batch && !c->closed)
			pthread_cond_wait(&c->cv_done, &c->mu);
	}
	pthread_mutex_unlock(&c->mu);
	return BT_OK;
}

/* Waits (mu held) until something is waiting, a wake-up or close, or until
 * the deadline. */
static void cache_wait_data(struct rec_cache *c, int64_t timeout_ns)
{
	if (timeout_ns <= 0)
		return;
	struct timespec dl = bt_sync_deadline(timeout_ns);
	/* Any error ends the wait like a timeout (the caller polls again). */
	while (c->prod.count == 0 && !c->woken && !c->closed)
		if (pthread_cond_timedwait(&c->cv_data, &c->mu, &dl) != 0)
			break;
}

/* Data waits (mu held): let more gather; see the top of the file. */
static void cache_gather(struct rec_cache *c)
{
	if (c->max_bytes == 0)
		return;
	struct timespec dl = c->first;
	dl.tv_nsec += REC_CACHE_GATHER_NS;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_nsec -= 1000000000;
		dl.tv_sec++;
	}
	while (c->prod.bytes < c->max_bytes / 2 && !c->woken && !c->closed)
		if (pthread_cond_timedwait(&c->cv_data, &c->mu, &dl) != 0)
			break;
}

/* Consumer only, before its swap: room in its array (which becomes the
 * producer's) for twice the last batch, up to REC_CACHE_ORDER_MAX; when
 * growing fails it keeps its size. Room a backlog's batches grew it to
 * goes back once the batches have long been much smaller (bt_hiwater; the
 * two arrays take turns, so each shrinks at its own turn). */
static void cache_order_room(struct rec_cache *c)
{
	size_t want = c->last_count < REC_CACHE_ORDER_MAX / 2 ? 2 * c->last_count
							     : REC_CACHE_ORDER_MAX;
	if (want < 64)
		want = 64;
	size_t shrink = bt_hiwater_note(&c->cv_hw, want, c->cv_cap, 64);
	if (shrink != 0)
		want = shrink;
	else if (c->cv_cap >= want)
		return;
	struct rec_msg **v = realloc(c->cv, want * sizeof *v);
	if (v == NULL)
		return;
	c->cv = v;
	c->cv_cap = want;
}

bool rec_cache_swap_wait(struct rec_cache *c, int64_t timeout_ns, struct rec_batch *out)
{
	*out = (struct rec_batch){0};
	cache_order_room(c);
	c->cv_n = 0;
	pthread_mutex_lock(&c->mu);
	if (c->done != c->taken) {
		c->done = c->taken;
		pthread_cond_broadcast(&c->cv_done);
	}
	cache_wait_data(c, timeout_ns);
	if (c->prod.count != 0)
		cache_gather(c);
	c->woken = false;
	if (c->prod.count != 0) {
		*out = c->prod;
		c->prod = (struct rec_batch){0};
		struct rec_msg **v = c->cv;
		size_t cap = c->cv_cap;
		c->cv = c->pv;
		c->cv_cap = c->pv_cap;
		c->cv_n = c->pv_n;
		c->pv = v;
		c->pv_cap = cap;
		c->pv_n = 0;
		c->last_count = out->count;
		c->taken++;
		atomic_store_explicit(&c->fill, 0, memory_order_relaxed);
	}
	bool go_on = !c->closed || out->count != 0;
	pthread_mutex_unlock(&c->mu);
	return go_on;
}

struct rec_msg *const *rec_cache_order(const struct rec_cache *c, size_t *n)
{
	*n = c->cv_n;
	return c->cv;
}

void rec_cache_wake(struct rec_cache *c)
{
	bt_sync_raise(&c->mu, &c->cv_data, &c->woken);
}

void rec_cache_close(struct rec_cache *c)
{
	pthread_mutex_lock(&c->mu);
	c->closed = true;
	pthread_cond_signal(&c->cv_data);
	pthread_cond_broadcast(&c->cv_done);
	pthread_mutex_unlock(&c->mu);
}

size_t rec_cache_fill(const struct rec_cache *c)
{
	return atomic_load_explicit(&((struct rec_cache *)c)->fill, memory_order_relaxed);
}

size_t rec_cache_max_bytes(const struct rec_cache *c)
{
	return c->max_bytes;
}

void rec_batch_append(struct rec_batch *b, struct rec_msg *m)
{
	BT_LIST_APPEND(b->head, b->tail, m);
	b->count++;
	b->bytes += m->len;
}
