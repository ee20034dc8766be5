#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "store__fcomp.h"
#include "store__zstd.h"

struct bag_fcomp_job {
	struct bag_fcomp_job *next;
	size_t file_index;
	char *path;
	struct bag_fcomp_result res;
};

struct bag_fcomp {
	pthread_mutex_t lock;
	pthread_cond_t cv; /* work queued, work finished, or stop */
	struct bag_fcomp_job *todo_head, **todo_tail;
	struct bag_fcomp_job *done_head, **done_tail;
	size_t pending; /* queued + in progress */
	bool stop;
	const atomic_bool *cancel; /* set: no more compressing (under lock) */
	uint32_t test_delay_us;    /* fixed at start */
	int32_t nice;              /* the thread's (fixed at start) */
	pthread_t thread;
};

static bool bag_fcomp_cancelled(const atomic_bool *cancel)
{
	return cancel != NULL && atomic_load_explicit(cancel, memory_order_relaxed);
}

/* The test hook's wait, in 10 ms steps that a cancel ends. */
static void bag_fcomp_test_delay(uint32_t us, const atomic_bool *cancel)
{
	for (uint32_t slept = 0; slept < us && !bag_fcomp_cancelled(cancel); slept += 10000)
		usleep(us - slept < 10000 ? us - slept : 10000);
}

static void bag_fcomp_run(struct bag_fcomp_job *j, const atomic_bool *cancel, uint32_t delay_us)
{
	struct bt_error err;
	bag_fcomp_test_delay(delay_us, cancel);
	char *dst = bt_xasprintf("%s.zstd", j->path);
	j->res.file_index = j->file_index;
	j->res.status = bag_zstd_compress_file(j->path, dst, cancel, &err);
	if (j->res.status == BT_OK && unlink(j->path) != 0)
		j->res.status = bt_err_errno(&err, errno, "cannot remove %s", j->path);
	if (j->res.status != BT_OK)
		memcpy(j->res.msg, err.msg, sizeof j->res.msg);
	free(dst);
}

static void *bag_fcomp_main(void *arg)
{
	struct bag_fcomp *c = arg;
	pthread_setname_np(pthread_self(), "rec-zstd-file");
	bt_sync_nice(c->nice, "rec-zstd-file");
	pthread_mutex_lock(&c->lock);
	for (;;) {
		while (!c->todo_head && !c->stop)
			pthread_cond_wait(&c->cv, &c->lock);
		struct bag_fcomp_job *j = c->todo_head;
		if (!j)
			break; /* stop, and nothing left to do */
		c->todo_head = j->next;
		if (!c->todo_head)
			c->todo_tail = &c->todo_head;
		const atomic_bool *cancel = c->cancel;
		pthread_mutex_unlock(&c->lock);
		bag_fcomp_run(j, cancel, c->test_delay_us);
		pthread_mutex_lock(&c->lock);
		j->next = NULL;
		*c->done_tail = j;
		c->done_tail = &j->next;
		c->pending--;
		pthread_cond_broadcast(&c->cv);
	}
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

bt_status bag_fcomp_start(struct bag_fcomp **out, int32_t nice, uint32_t test_delay_us,
			  struct bt_error *err)
{
	struct bag_fcomp *c = bt_xcalloc(1, sizeof *c);
	c->test_delay_us = test_delay_us;
	c->nice = nice;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cv, NULL);
	c->todo_tail = &c->todo_head;
	c->done_tail = &c->done_head;
	if (pthread_create(&c->thread, NULL, bag_fcomp_main, c) != 0) {
		pthread_cond_destroy(&c->cv);
		pthread_mutex_destroy(&c->lock);
		free(c);
		return bt_err_set(err, BT_ERR_NOMEM, "cannot start the file compression thread");
	}
	*out = c;
	return BT_OK;
}

void bag_fcomp_push(struct bag_fcomp *c, size_t file_index, const char *path)
{
	struct bag_fcomp_job *j = bt_xcalloc(1, sizeof *j);
	j->file_index = file_index;
	j->path = bt_xstrdup(path);
	pthread_mutex_lock(&c->lock);
	*c->todo_tail = j;
	c->todo_tail = &j->next;
	c->pending++;
	pthread_cond_broadcast(&c->cv);
	pthread_mutex_unlock(&c->lock);
}

bool bag_fcomp_poll(struct bag_fcomp *c, bool wait, struct bag_fcomp_result *res)
{
	pthread_mutex_lock(&c->lock);
	while (wait && !c->done_head && c->pending)
		pthread_cond_wait(&c->cv, &c->lock);
	struct bag_fcomp_job *j = c->done_head;
	if (j) {
		c->done_head = j->next;
		if (!c->done_head)
			c->done_tail = &c->done_head;
	}
	pthread_mutex_unlock(&c->lock);
	if (!j)
		return false;
	*res = j->res;
	free(j->path);
	free(j);
	return true;
}

void bag_fcomp_set_cancel(struct bag_fcomp *c, const atomic_bool *cancel)
{
	pthread_mutex_lock(&c->lock);
	c->cancel = cancel;
	pthread_mutex_unlock(&c->lock);
}

size_t bag_fcomp_pending(struct bag_fcomp *c)
{
	pthread_mutex_lock(&c->lock);
	size_t n = c->pending;
	pthread_mutex_unlock(&c->lock);
	return n;
}

void bag_fcomp_stop(struct bag_fcomp *c)
{
	if (!c)
		return;
	bt_sync_raise(&c->lock, &c->cv, &c->stop);
	pthread_join(c->thread, NULL);
	struct bag_fcomp_result r;
	while (bag_fcomp_poll(c, false, &r))
		;
	pthread_cond_destroy(&c->cv);
	pthread_mutex_destroy(&c->lock);
	free(c);
}
