#include "bt_sync.h"

#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bt_log.h"
#include "bt_time.h"

void bt_sync_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t a;
	if (pthread_condattr_init(&a) != 0 ||
	    pthread_condattr_setclock(&a, CLOCK_MONOTONIC) != 0 || pthread_cond_init(cv, &a) != 0)
		abort();
	pthread_condattr_destroy(&a);
}

struct timespec bt_sync_deadline(int64_t timeout_ns)
{
	int64_t now = bt_time_monotonic_ns();
	if (timeout_ns < 0)
		timeout_ns = 0;
	return bt_time_timespec(timeout_ns > INT64_MAX - now ? INT64_MAX : now + timeout_ns);
}

bool bt_sync_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_ns,
			const char *who)
{
	struct timespec ts = bt_time_timespec(deadline_ns);
	int rc = pthread_cond_timedwait(cv, mu, &ts);
	if (rc != 0 && rc != ETIMEDOUT)
		bt_log_error("%s: timed wait failed: %s", who, strerror(rc));
	return rc == 0;
}

void bt_sync_raise(pthread_mutex_t *mu, pthread_cond_t *cv, bool *flag)
{
	pthread_mutex_lock(mu);
	*flag = true;
	pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
}

void bt_sync_ticker_init(struct bt_sync_ticker *t, const char *name, int64_t period_ns,
			 void (*tick)(void *arg, bool due), void *arg)
{
	*t = (struct bt_sync_ticker){.period_ns = period_ns, .tick = tick, .arg = arg};
	snprintf(t->name, sizeof t->name, "%s", name);
	if (pthread_mutex_init(&t->mu, NULL) != 0)
		abort(); /* set-up: cannot fail on Linux */
	bt_sync_cond_init(&t->cv);
}

/* Sleeps until `deadline` (monotonic), a wake-up or a stop, and takes the
 * wake-up; true: stop. */
static bool ticker_sleep(struct bt_sync_ticker *t, int64_t deadline)
{
	pthread_mutex_lock(&t->mu);
	while (!t->stop && !t->woken && bt_sync_wait_until(&t->cv, &t->mu, deadline, t->name))
		;
	bool stop = t->stop;
	t->woken = false;
	pthread_mutex_unlock(&t->mu);
	return stop;
}

static void *ticker_main(void *arg)
{
	struct bt_sync_ticker *t = arg;
	pthread_setname_np(pthread_self(), t->name);
	int64_t next = bt_time_monotonic_ns() + t->period_ns;
	while (!ticker_sleep(t, next)) {
		int64_t now = bt_time_monotonic_ns();
		bool due = now >= next;
		t->tick(t->arg, due);
		/* From this wake-up, not the grid: never two due ticks less
		 * than a period apart, even after a late one. */
		if (due)
			next = now + t->period_ns;
	}
	return NULL;
}

int bt_sync_ticker_start(struct bt_sync_ticker *t)
{
	assert(!t->started);
	int rc = pthread_create(&t->thread, NULL, ticker_main, t);
	t->started = rc == 0;
	return rc;
}

void bt_sync_ticker_wake(struct bt_sync_ticker *t)
{
	bt_sync_raise(&t->mu, &t->cv, &t->woken);
}

bool bt_sync_ticker_stop(struct bt_sync_ticker *t)
{
	if (!t->started || t->joined)
		return false;
	bt_sync_raise(&t->mu, &t->cv, &t->stop);
	(void)pthread_join(t->thread, NULL);
	t->joined = true;
	return true;
}

void bt_sync_ticker_fini(struct bt_sync_ticker *t)
{
	(void)bt_sync_ticker_stop(t);
	pthread_cond_destroy(&t->cv);
	pthread_mutex_destroy(&t->mu);
}

void bt_sync_nice(int32_t nice, const char *who)
{
	if (nice == BT_SYNC_NICE_KEEP)
		return;
	/* PRIO_PROCESS with a thread id sets that thread's alone (Linux). */
	id_t tid = (id_t)syscall(SYS_gettid);
	if (setpriority(PRIO_PROCESS, tid, nice) == 0)
		return;
	int e = errno;
	int now = getpriority(PRIO_PROCESS, tid);
	bt_log_warn("%s: cannot set its nice value to %d: %s; it runs at %d", who, (int)nice,
		    strerror(e), now);
}
