/* bt_sync: a deadline is CLOCK_MONOTONIC now + the timeout (a negative one
 * is now, a huge one saturates), a timed wait on a bt_sync condition ends
 * at it, and a raised flag is seen by the waiter. A ticker ticks once a
 * period, never two due ticks less than a period apart, ticks early when
 * woken, and stops at once however long its period. */
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

/* A ticker and what its callback saw; `mu` orders the test's reads. */
struct ticks {
	struct bt_sync_ticker t;
	pthread_mutex_t mu;
	int due, early;
	int64_t first, last, min_gap; /* monotonic ns of due ticks; min_gap: INT64_MAX */
};

static void count_tick(void *arg, bool due)
{
	struct ticks *k = arg;
	int64_t now = bt_time_monotonic_ns();
	pthread_mutex_lock(&k->mu);
	if (!due) {
		k->early++;
	} else {
		if (k->due == 0)
			k->first = now;
		else if (now - k->last < k->min_gap)
			k->min_gap = now - k->last;
		k->due++;
		k->last = now;
	}
	pthread_mutex_unlock(&k->mu);
}

/* A ticker calling count_tick on k, not started. */
static void ticks_init(struct ticks *k, const char *name, int64_t period_ns)
{
	*k = (struct ticks){.min_gap = INT64_MAX};
	assert_int_equal(pthread_mutex_init(&k->mu, NULL), 0);
	bt_sync_ticker_init(&k->t, name, period_ns, count_tick, k);
}

static void ticks_fini(struct ticks *k)
{
	bt_sync_ticker_fini(&k->t);
	pthread_mutex_destroy(&k->mu);
}

/* Polls until *n (under k->mu) reaches want or 10 s pass; its last value. */
static int ticks_await(struct ticks *k, const int *n, int want)
{
	int64_t end = bt_time_monotonic_ns() + 10000 * MS;
	struct timespec d = bt_time_timespec(MS);
	for (;;) {
		pthread_mutex_lock(&k->mu);
		int v = *n;
		pthread_mutex_unlock(&k->mu);
		if (v >= want || bt_time_monotonic_ns() > end)
			return v;
		nanosleep(&d, NULL);
	}
}

static void test_ticker_period(void **state)
{
	(void)state;
	struct ticks k;
	ticks_init(&k, "test-ticker-with-a-long-name", 40 * MS);
	assert_string_equal(k.t.name, "test-ticker-wit"); /* a thread name's 15 */
	int64_t t0 = bt_time_monotonic_ns();
	assert_int_equal(bt_sync_ticker_start(&k.t), 0);
	assert_true(ticks_await(&k, &k.due, 3) >= 3);
	assert_true(bt_sync_ticker_stop(&k.t));
	assert_false(bt_sync_ticker_stop(&k.t)); /* joined already */
	assert_int_equal(k.early, 0);
	assert_true(k.first - t0 >= 40 * MS);
	/* The ticker measures its period from its own clock reading just
	 * before calling back; ours comes a little later: some slack. */
	assert_true(k.min_gap >= 30 * MS);
	ticks_fini(&k);
}

static void test_ticker_wake_and_stop(void **state)
{
	(void)state;
	struct ticks k;
	ticks_init(&k, "test-wake", 1000 * BT_NS_PER_S);
	assert_false(bt_sync_ticker_stop(&k.t)); /* never started */
	bt_sync_ticker_wake(&k.t);               /* before the thread: kept */
	assert_int_equal(bt_sync_ticker_start(&k.t), 0);
	assert_int_equal(ticks_await(&k, &k.early, 1), 1);
	bt_sync_ticker_wake(&k.t);
	assert_int_equal(ticks_await(&k, &k.early, 2), 2);
	/* A 1000 s period: the stop does not wait for it. */
	int64_t t0 = bt_time_monotonic_ns();
	assert_true(bt_sync_ticker_stop(&k.t));
	assert_true(bt_time_monotonic_ns() - t0 < 5000 * MS);
	assert_int_equal(k.due, 0);
	assert_int_equal(k.early, 2);
	ticks_fini(&k);
}

TU_MAIN(
	cmocka_unit_test(test_deadline),
	cmocka_unit_test(test_wait_and_raise),
	cmocka_unit_test(test_ticker_period),
	cmocka_unit_test(test_ticker_wake_and_stop))
