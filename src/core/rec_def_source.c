/* rec_def_source — see rec_def_source.h: the thread every late definition
 * source runs on. */
#include "rec_def_source.h"

#include <string.h>

#include "bt_mem.h"
#include "bt_sync.h"

void rec_def_thread_init(struct rec_def_thread *t, const struct rec_def_source_options *o,
			 int64_t default_call_ns)
{
	memset(t, 0, sizeof *t);
	t->o = *o;
	if (t->o.call_ns <= 0)
		t->o.call_ns = default_call_ns;
	atomic_init(&t->stop, false);
	pthread_mutex_init(&t->mu, NULL);
	bt_sync_cond_init(&t->cv);
}

bt_status rec_def_thread_start(struct rec_def_thread *t, void *(*main)(void *), void *arg,
			       const char *name, struct bt_error *err)
{
	int rc = pthread_create(&t->thread, NULL, main, arg);
	t->started = rc == 0;
	if (rc != 0)
		return bt_err_set(err, BT_ERR_STATE, "cannot start the %s thread: %s", name,
				  strerror(rc));
	return BT_OK;
}

void rec_def_thread_ask(struct rec_def_thread *t, struct rec_topic *tp, void **queue, size_t *n,
			size_t *cap, const void *job, size_t size)
{
	atomic_store(&tp->def_late, REC_DEF_LATE_ASKING);
	pthread_mutex_lock(&t->mu);
	bt_xgrow(queue, cap, *n + 1, size);
	memcpy((char *)*queue + *n * size, job, size);
	++*n;
	pthread_cond_signal(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

void rec_def_thread_fini(struct rec_def_thread *t)
{
	/* Set under mu: the thread checks stop under it before it waits. */
	pthread_mutex_lock(&t->mu);
	atomic_store(&t->stop, true);
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	if (t->started)
		pthread_join(t->thread, NULL);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
}
