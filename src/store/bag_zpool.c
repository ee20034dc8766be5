/* DESIGN: the batch is an array of jobs; workers claim the next index under
 * the mutex, compress without any lock held, then publish `done` with a
 * release store. The writer reads `done` with an acquire load and sleeps on
 * `cv_done` only when the job it needs is not finished; a worker signals
 * only when the writer said it is waiting (both flags sequentially
 * consistent, so one of the two always sees the other).
 * Lock order: only `lock`. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <zstd.h>

#include "bt_buf.h"
#include "bt_mem.h"
#include "store__zpool.h"
#include "store__zstd.h"

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
	size_t n_jobs, cap_jobs, next;
	atomic_bool writer_waiting;
	bool stop;
	struct bag_zworker *workers;
	unsigned n_workers;
};

static void bag_zpool_compress(struct bag_zworker *w, size_t i)
{
	struct bag_zpool *p = w->pool;
	const struct bag_zpool_input *in = &p->in[i];
	struct bag_zjob *job = &p->jobs[i];
	int result = -1;
	size_t bound = ZSTD_compressBound(in->len);
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
	if (atomic_load(&p->writer_waiting)) {
		pthread_mutex_lock(&p->lock);
		pthread_cond_broadcast(&p->cv_done);
		pthread_mutex_unlock(&p->lock);
	}
}

static void *bag_zpool_main(void *arg)
{
	struct bag_zworker *w = arg;
	struct bag_zpool *p = w->pool;
	char name[16];
	snprintf(name, sizeof name, "rec-zstd-%u", w->index + 1);
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&p->lock);
	for (;;) {
		while (!p->stop && p->next >= p->n_jobs)
			pthread_cond_wait(&p->cv_work, &p->lock);
		if (p->stop)
			break;
		size_t i = p->next++;
		pthread_mutex_unlock(&p->lock);
		bag_zpool_compress(w, i);
		pthread_mutex_lock(&p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

bt_status bag_zpool_new(unsigned threads, struct bag_zpool **out, struct bt_error *err)
{
	struct bag_zpool *p = bt_xcalloc(1, sizeof *p);
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
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	pthread_cond_broadcast(&p->cv_work);
	pthread_mutex_unlock(&p->lock);
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
	p->next = 0;
	pthread_cond_broadcast(&p->cv_work);
	pthread_mutex_unlock(&p->lock);
}

bt_status bag_zpool_wait(struct bag_zpool *p, size_t i, const void **data, size_t *len)
{
	struct bag_zjob *job = &p->jobs[i];
	int d = atomic_load(&job->done);
	if (d == 0) {
		pthread_mutex_lock(&p->lock);
		atomic_store(&p->writer_waiting, true);
		while ((d = atomic_load(&job->done)) == 0)
			pthread_cond_wait(&p->cv_done, &p->lock);
		atomic_store(&p->writer_waiting, false);
		pthread_mutex_unlock(&p->lock);
	}
	if (d < 0)
		return BT_ERR_NOMEM;
	*data = job->out.data;
	*len = job->out.len;
	return BT_OK;
}

void bag_zpool_drain(struct bag_zpool *p)
{
	const void *d;
	size_t l;
	for (size_t i = 0; i < p->n_jobs; i++)
		(void)!bag_zpool_wait(p, i, &d, &l);
}
