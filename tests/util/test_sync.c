/* bt_sync: a deadline is CLOCK_MONOTONIC now + the timeout (a negative one
 * is now, a huge one saturates), a timed wait on a bt_sync condition ends
 * at it, and a raised flag is seen by the waiter. */
#include <errno.h>

#include "test_util.h"
#include "bt_sync.h"
#include "bt_time.h"

#define MS INT64_C(1000000)

static int64_t ts_ns(struct timespec ts)
{
	return (int64_t)ts.tv_sec * BT_NS_PER_S + ts.tv_nsec;
}

static void test_deadline(void **state)
{
	(void)state;
	int64_t t0 = bt_time_monotonic_ns();
	int64_t d = ts_ns(bt_sync_deadline(250 * MS));
	int64_t t1 = bt_time_monotonic_ns();
	assert_true(d >= t0 + 250 * MS && d <= t1 + 250 * MS);
	d = ts_ns(bt_sync_deadline(-5 * MS));
	assert_true(d >= t1 && d <= bt_time_monotonic_ns());
	struct timespec far = bt_sync_deadline(INT64_MAX);
	assert_true(far.tv_sec == (time_t)(INT64_MAX / BT_NS_PER_S));
	assert_true(far.tv_nsec >= 0 && far.tv_nsec < BT_NS_PER_S);
}

struct raiser {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool flag;
};

static void *raise_main(void *arg)
{
	struct raiser *r = arg;
	struct timespec d = bt_time_timespec(20 * MS);
	nanosleep(&d, NULL);
	bt_sync_raise(&r->mu, &r->cv, &r->flag);
	return NULL;
}

static void test_wait_and_raise(void **state)
{
	(void)state;
	struct raiser r = {.flag = false};
	assert_int_equal(pthread_mutex_init(&r.mu, NULL), 0);
	bt_sync_cond_init(&r.cv);
	/* Nobody raises: the wait ends at the deadline, not before. */
	int64_t t0 = bt_time_monotonic_ns();
	struct timespec dl = bt_sync_deadline(50 * MS);
	pthread_mutex_lock(&r.mu);
	int rc = 0;
	while (!r.flag && rc == 0)
		rc = pthread_cond_timedwait(&r.cv, &r.mu, &dl);
	pthread_mutex_unlock(&r.mu);
	assert_int_equal(rc, ETIMEDOUT);
	assert_true(bt_time_monotonic_ns() - t0 >= 50 * MS);
	/* Raised from another thread: seen well before a 10 s deadline. */
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, raise_main, &r), 0);
	dl = bt_sync_deadline(10000 * MS);
	pthread_mutex_lock(&r.mu);
	rc = 0;
	while (!r.flag && rc == 0)
		rc = pthread_cond_timedwait(&r.cv, &r.mu, &dl);
	pthread_mutex_unlock(&r.mu);
	assert_int_equal(rc, 0);
	assert_true(r.flag);
	assert_int_equal(pthread_join(th, NULL), 0);
	pthread_cond_destroy(&r.cv);
	pthread_mutex_destroy(&r.mu);
}

TU_MAIN(
	cmocka_unit_test(test_deadline),
	cmocka_unit_test(test_wait_and_raise))
