#include "bt_sync.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
