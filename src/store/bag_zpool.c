/* DESIGN: the batch is an array of jobs; workers claim the next index with
 * one compare-and-swap on `claim` (batch generation in the high 32 bits,
 * next index in the low 32), so a worker never claims a job of a batch it
 * did not see start, and at 1 KiB messages the claims do not queue on the
 * mutex. They compress without any lock held, then publish `done`. The mutex
 * only guards sleeping: a new batch or stop (cv_work), the writer (cv_done). The
 * writer sleeps on `cv_done` only when the job it needs is not finished,
 * and then waits for a whole run of jobs [wait_lo, wait_hi] (up to
 * BAG_ZPOOL_WAKE_JOBS jobs or BAG_ZPOOL_WAKE_BYTES of input): a worker
 * signals only when the writer said it is waiting and that run is complete.
 * Without the run, a writer faster than the compressors would sleep and be
 * woken once per message. All of done, writer_waiting and the run bounds are
 * sequentially consistent, so the last worker to finish a job of the run and
 * the writer always see each other.
 * Lock order: only `lock`. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zstd.h>

#include "bt_buf.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "store__zpool.h"
#include "store__zstd.h"

#define BAG_ZPOOL_WAKE_JOBS 128
#define BAG_ZPOOL_WAKE_BYTES (256u * 1024u)

struct bag_zjob {
	atomic_int done; /* 0 pending, 1 ok, -1 failed */
	struct bt_buf out;
};

struct bag_zworker {
	struct bag_zpool *pool;
	pthread_t thread;
	unsigned index;
	ZSTD_CCtx *cctx;
};

struct bag_zpool {
	pthread_mutex_t lock;
	pthread_cond_t cv_work; /* a batch arrived or stop */
	pthread_cond_t cv_done; /* the writer waits for a job */
	const struct bag_zpool_input *in;
	struct bag_zjob *jobs;
	size_t n_jobs, cap_jobs;
	_Atomic uint64_t claim; /* generation << 32 | next index */
	atomic_bool writer_waiting;
	atomic_size_t wait_lo, wait_hi; /* the run the writer waits for */
	bool stop;
	int32_t nice;      /* the workers' (fixed at start) */
	uint32_t delay_us; /* test hook */
	struct bag_zworker *workers;
	unsigned n_workers;
};

/* True when every job of the run [lo, hi] is finished. */
static bool bag_zpool_run_done(struct bag_zpool *p, size_t lo, size_t hi)
{
	for (size_t i = lo; i <= hi; i++)
		if (atomic_load(&p->jobs[i].done) == 0)
			return false;
	return true;
}

/* Called by the worker that finished job i: is the writer waiting for a run
 * that this completed? */
static bool bag_zpool_should_wake(struct bag_zpool *p, size_t i)
{
	if (!atomic_load(&p->writer_waiting))
		return false;
	size_t lo = atomic_load(&p->wait_lo), hi = atomic_load(&p->wait_hi);
	return i >= lo && i <= hi && bag_zpool_run_done(p, lo, hi);
}

static void bag_zpool_compress(struct bag_zworker *w, size_t i)
{
	struct bag_zpool *p = w->pool;
	const struct bag_zpool_input *in = &p->in[i];
	struct bag_zjob *job = &p->jobs[i];
	int result = -1;
	size_t bound = ZSTD_compressBound(in->len);
	if (p->delay_us != 0)
		usleep(p->delay_us);
	bt_buf_reset(&job->out);
	if (bt_buf_reserve(&job->out, bound) == BT_OK) {
		size_t n = ZSTD_compressCCtx(w->cctx, job->out.data, bound, in->data, in->len,
					     BAG_ZSTD_LEVEL);
		if (!ZSTD_isError(n)) {
			job->out.len = n;
			result = 1;
		}
	}
	atomic_store(&job->done, result);
	if (bag_zpool_should_wake(p, i)) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->cv_done);
		pthread_mutex_unlock(&p->lock);
	}
}

/* Claims the next job of batch `gen` (of n jobs): its index, or -1 when
 * that batch has none left or is no longer current. */
static long bag_zpool_claim(struct bag_zpool *p, uint32_t gen, size_t n)
{
	uint64_t v = atomic_load(&p->claim);
	for (;;) {
		uint32_t idx = (uint32_t)v;
		if ((uint32_t)(v >> 32) != gen || idx >= n)
			return -1;
		if (atomic_compare_exchange_weak(&p->claim, &v, v + 1))
			return (long)idx;
	}
}

static bool bag_zpool_has_work(struct bag_zpool *p)
{
	return (uint32_t)atomic_load(&p->claim) < p->n_jobs;
}

static void *bag_zpool_main(void *arg)
{
	struct bag_zworker *w = arg;
	struct bag_zpool *p = w->pool;
	char name[16];
	snprintf(name, sizeof name, "rec-zstd-%u", w->index + 1);
	pthread_setname_np(pthread_self(), name);
	bt_sync_nice(p->nice, name);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && !bag_zpool_has_work(p))
			pthread_cond_wait(&p->cv_work, &p->lock);
		if (p->stop)
			break;
		/* gen and n_jobs change only under the lock, in submit. */
		uint32_t gen = (uint32_t)(atomic_load(&p->claim) >> 32);
		size_t n = p->n_jobs;
		pthread_mutex_unlock(&p->lock);
		long i;
		while ((i = bag_zpool_claim(p, gen, n)) >= 0)
			bag_zpool_compress(w, (size_t)i);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

bt_status bag_zpool_new(unsigned threads, int32_t nice, uint32_t delay_us,
			struct bag_zpool **out, struct bt_error *err)
{
	struct bag_zpool *p = bt_xcalloc(1, sizeof *p);
	p->nice = nice;
	p->delay_us = delay_us;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cv_work, NULL);
	pthread_cond_init(&p->cv_done, NULL);
	p->workers = bt_xcalloc(threads, sizeof *p->workers);
	for (unsigned i = 0; i < threads; i++) {
		struct bag_zworker *w = &p->workers[i];
		w->pool = p;
		w->index = i;
		w->cctx = ZSTD_createCCtx();
		if (!w->cctx || pthread_create(&w->thread, NULL, bag_zpool_main, w) != 0) {
			ZSTD_freeCCtx(w->cctx);
			bag_zpool_free(p);
			return bt_err_set(err, BT_ERR_NOMEM, "cannot start compression thread %u",
					  i + 1);
		}
		p->n_workers++;
	}
	*out = p;
	return BT_OK;
}

void bag_zpool_free(struct bag_zpool *p)
{
	if (!p)
		return;
	bt_sync_raise(&p->lock, &p->cv_work, &p->stop);
	for (unsigned i = 0; i < p->n_workers; i++) {
		pthread_join(p->workers[i].thread, NULL);
		ZSTD_freeCCtx(p->workers[i].cctx);
	}
	for (size_t i = 0; i < p->cap_jobs; i++)
		bt_buf_fini(&p->jobs[i].out);
	free(p->jobs);
	free(p->workers);
	pthread_cond_destroy(&p->cv_done);
	pthread_cond_destroy(&p->cv_work);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

void bag_zpool_submit(struct bag_zpool *p, const struct bag_zpool_input *in, size_t n)
{
	pthread_mutex_lock(&p->lock);
	if (n > p->cap_jobs) {
		/* Workers are idle here: the previous batch was fully waited for. */
		size_t old = p->cap_jobs;
		bt_xgrow((void **)&p->jobs, &p->cap_jobs, n, sizeof *p->jobs);
		for (size_t i = old; i < p->cap_jobs; i++)
			atomic_init(&p->jobs[i].done, 0);
	}
	for (size_t i = 0; i < n; i++)
		atomic_store_explicit(&p->jobs[i].done, 0, memory_order_relaxed);
	p->in = in;
	p->n_jobs = n;
	uint64_t gen = (atomic_load(&p->claim) >> 32) + 1;
	atomic_store(&p->claim, (gen & 0xffffffffu) << 32);
	pthread_cond_broadcast(&p->cv_work);
	pthread_mutex_unlock(&p->lock);
}

bt_status bag_zpool_wait(struct bag_zpool *p, size_t i, const void **data, size_t *len)
{
	struct bag_zjob *job = &p->jobs[i];
	int d = atomic_load(&job->done);
	if (d == 0) {
		size_t hi = i, bytes = p->in[i].len;
		while (hi + 1 < p->n_jobs && hi + 1 - i < BAG_ZPOOL_WAKE_JOBS &&
		       bytes < BAG_ZPOOL_WAKE_BYTES)
			bytes += p->in[++hi].len;
		pthread_mutex_lock(&p->lock);
		atomic_store(&p->wait_lo, i);
		atomic_store(&p->wait_hi, hi);
		atomic_store(&p->writer_waiting, true);
		while (!bag_zpool_run_done(p, i, hi))
			pthread_cond_wait(&p->cv_done, &p->lock);
		d = atomic_load(&job->done);
		atomic_store(&p->writer_waiting, false);
		pthread_mutex_unlock(&p->lock);
	}
	if (d < 0)
		return BT_ERR_NOMEM;
	*data = job->out.data;
	*len = job->out.len;
	return BT_OK;
}

bool bag_zpool_writer_waiting(const struct bag_zpool *p)
{
	return atomic_load_explicit(&p->writer_waiting, memory_order_relaxed);
}

void bag_zpool_drain(struct bag_zpool *p)
{
	const void *d;
	size_t l;
	for (size_t i = 0; i < p->n_jobs; i++)
		(void)!bag_zpool_wait(p, i, &d, &l);
}
