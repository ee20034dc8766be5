/* rec_throttle: --throttle's arguments, the first rule that names a topic,
 * and the bucket: the rate held without drift and without bursts, the
 * byte rate, concurrent callers. Pure (no DDS). */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rec_throttle.h"
#include "test_util.h"

#define MS INT64_C(1000000)
#define SEC INT64_C(1000000000)

static void test_parse_good(void **state)
{
	(void)state;
	static const struct {
		const char *arg, *pattern;
		double rate;
		bool bytes;
	} v[] = {
		{"/imu=10Hz", "/imu", 10, false},
		{"/imu=0.5hz", "/imu", 0.5, false},
		{"rt/a=1000000000Hz", "rt/a", 1e9, false},
		{"/cam.*=2MB/s", "/cam.*", 2 * 1024 * 1024, true},
		{"/cam=2M/s", "/cam", 2 * 1024 * 1024, true},
		{"/cam=2MiB/s", "/cam", 2 * 1024 * 1024, true},
		{"/x=500KiB/s", "/x", 500 * 1024, true},
		{"/x=100B/s", "/x", 100, true},
		{"/x=100/s", "/x", 100, true},
		{"a=b=3Hz", "a=b", 3, false}, /* the last '=' splits */
	};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		struct rec_throttle_spec s;
		struct bt_error err;
		assert_int_equal(rec_throttle_parse(v[i].arg, &s, &err), BT_OK);
		assert_ptr_equal(s.pattern, v[i].arg);
		assert_int_equal(s.pattern_len, strlen(v[i].pattern));
		assert_memory_equal(s.pattern, v[i].pattern, s.pattern_len);
		assert_true(s.rate == v[i].rate);
		assert_int_equal(s.bytes, v[i].bytes);
	}
}

static void test_parse_bad(void **state)
{
	(void)state;
	static const char *bad[] = {
		"/imu",          "/imu=",       "=10Hz",       "/imu=0Hz",   "/imu=0.0Hz",
		"/imu=-1Hz",     "/imu=1e3Hz",  "/imu=2e9Hz",  "/imu=1000000001Hz",
		"/imu=10",       "/imu=Hz",     "/imu=10 Hz",  "/imu=0/s",   "/imu=0MB/s",
		"/imu=2XB/s",    "/imu=-2MB/s", "/imu=2TiB/s", "/imu=1.5MB/s", "/imu=abc",
		"/imu=nanHz",    "/imu=infHz",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rec_throttle_spec s = {0};
		struct bt_error err = {0};
		if (rec_throttle_parse(bad[i], &s, &err) != BT_ERR_USAGE)
			fail_msg("'%s' was accepted", bad[i]);
		assert_non_null(strstr(err.msg, "--throttle"));
		assert_null(strchr(err.msg, '\n'));
	}
}

static struct rec_throttle *rules(const char *const *args, size_t n, bt_status want)
{
	struct rec_throttle_spec v[8];
	for (size_t i = 0; i < n; i++)
		assert_int_equal(rec_throttle_parse(args[i], &v[i], NULL), BT_OK);
	struct rec_throttle *t = NULL;
	struct bt_error err = {0};
	assert_int_equal(rec_throttle_new(v, n, &t, &err), want);
	if (want != BT_OK) {
		assert_null(t);
		assert_non_null(strstr(err.msg, "--throttle"));
	}
	return t;
}

/* A plain name names one topic exactly (ROS or DDS name); anything else
 * is a regex searched as -e; the first rule that names a topic wins. */
static void test_find(void **state)
{
	(void)state;
	static const char *args[] = {"/imu=10Hz", "/cam.*=2MB/s", "rt/imu_raw=5Hz", "imu=1Hz"};
	struct rec_throttle *t = rules(args, 4, BT_OK);
	const struct rec_throttle_spec *s = rec_throttle_find(t, "rt/imu", "/imu");
	assert_non_null(s);
	assert_string_equal(s->pattern, "/imu");
	assert_true(s->rate == 10);
	/* "/imu" is a name: not /imu_raw, which the third rule names by its
	 * DDS name before the fourth ("imu", a name too: no such topic) */
	s = rec_throttle_find(t, "rt/imu_raw", "/imu_raw");
	assert_non_null(s);
	assert_string_equal(s->pattern, "rt/imu_raw");
	s = rec_throttle_find(t, "rt/camera/left", "/camera/left");
	assert_non_null(s);
	assert_true(s->bytes);
	assert_null(rec_throttle_find(t, "rt/other", "/other"));
	assert_null(rec_throttle_find(t, "DDSPerfRDataKS", NULL));
	rec_throttle_free(t);
	/* the first given wins when two name the topic */
	static const char *two[] = {"/im.=3Hz", "/imu=10Hz"};
	t = rules(two, 2, BT_OK);
	assert_true(rec_throttle_find(t, "rt/imu", "/imu")->rate == 3);
	rec_throttle_free(t);
	assert_null(rec_throttle_find(NULL, "rt/imu", "/imu"));
	static const char *badre[] = {"/ok=1Hz", "/imu[=10Hz"};
	assert_null(rules(badre, 2, BT_ERR_USAGE));
	static const char *badre2[] = {"(=10Hz"};
	assert_null(rules(badre2, 1, BT_ERR_USAGE));
}

/* Offers a message every `period` for `dur`; counts the admitted ones per
 * second and checks their spacing. */
static uint64_t run_bucket(struct rec_bucket *b, int64_t period, int64_t dur, size_t len,
			   uint64_t per_s[], size_t n_s, int64_t *min_gap)
{
	uint64_t admitted = 0;
	int64_t last = -1;
	*min_gap = INT64_MAX;
	const int64_t t0 = 5 * SEC;
	for (int64_t t = 0; t < dur; t += period) {
		if (!rec_bucket_admit(b, t0 + t, len))
			continue;
		admitted++;
		if ((size_t)(t / SEC) < n_s)
			per_s[t / SEC]++;
		if (last >= 0 && t - last < *min_gap)
			*min_gap = t - last;
		last = t;
	}
	return admitted;
}

static void test_bucket_hz(void **state)
{
	(void)state;
	struct rec_throttle_spec s = {"/imu", 4, 10, false};
	struct rec_bucket b;
	rec_bucket_init(&b, &s);
	uint64_t per_s[20] = {0};
	int64_t gap;
	/* 200 Hz for 20 s: 200 admitted, 10 in every second, never closer
	 * than half a period (no burst), no drift */
	assert_int_equal(run_bucket(&b, 5 * MS, 20 * SEC, 8, per_s, 20, &gap), 200);
	for (size_t i = 0; i < 20; i++)
		assert_int_equal(per_s[i], 10);
	assert_true(gap >= 95 * MS && gap <= 105 * MS);
	/* a publisher period that does not divide the rate's: 7 ms at 10 Hz */
	rec_bucket_init(&b, &s);
	memset(per_s, 0, sizeof per_s);
	uint64_t n = run_bucket(&b, 7 * MS, 20 * SEC, 8, per_s, 20, &gap);
	assert_true(n >= 199 && n <= 201);
	for (size_t i = 0; i < 20; i++)
		assert_true(per_s[i] >= 9 && per_s[i] <= 11);
	/* a message late by more than half a slot (the receive thread held
	 * up) starts afresh: the next is not let through right after it */
	rec_bucket_init(&b, &s);
	assert_true(rec_bucket_admit(&b, SEC, 1));
	assert_true(rec_bucket_admit(&b, SEC + 180 * MS, 1));
	assert_false(rec_bucket_admit(&b, SEC + 230 * MS, 1));
	assert_true(rec_bucket_admit(&b, SEC + 280 * MS, 1));
	/* late by less than half a slot: the next slot keeps its time */
	assert_true(rec_bucket_admit(&b, SEC + 420 * MS, 1));
	assert_true(rec_bucket_admit(&b, SEC + 480 * MS, 1));
	/* slower than the rate: every message passes */
	rec_bucket_init(&b, &s);
	assert_int_equal(run_bucket(&b, 200 * MS, 10 * SEC, 8, per_s, 0, &gap), 50);
	/* off: everything passes */
	rec_bucket_init(&b, NULL);
	assert_int_equal(run_bucket(&b, 1 * MS, 1 * SEC, 8, per_s, 0, &gap), 1000);
}

static void test_bucket_bytes(void **state)
{
	(void)state;
	struct rec_throttle_spec s = {"/cam", 4, 100 * 1024, true}; /* 100 KiB/s */
	struct rec_bucket b;
	rec_bucket_init(&b, &s);
	uint64_t per_s[10] = {0};
	int64_t gap;
	/* 10 KiB messages at 100 Hz (1000 KiB/s offered): 10 a second */
	assert_int_equal(run_bucket(&b, 10 * MS, 10 * SEC, 10 * 1024, per_s, 10, &gap), 100);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(per_s[i], 10);
	assert_true(gap >= 90 * MS);
	/* a message bigger than a second's budget passes, then waits its cost */
	rec_bucket_init(&b, &s);
	assert_true(rec_bucket_admit(&b, SEC, 400 * 1024));
	assert_false(rec_bucket_admit(&b, 2 * SEC, 1));
	assert_true(rec_bucket_admit(&b, 5 * SEC, 1));
	/* a huge message at a tiny rate: no overflow, the bucket still ends */
	s.rate = 1;
	rec_bucket_init(&b, &s);
	assert_true(rec_bucket_admit(&b, SEC, SIZE_MAX / 2));
	assert_false(rec_bucket_admit(&b, 2 * SEC, 1));
}

/* Four threads offering at once (the receive threads, two readers of one
 * topic while one replaces the other): never more admitted than the rate
 * allows over the span offered. */
struct conc {
	struct rec_bucket *b;
	atomic_uint_fast64_t *admitted;
	int id;
};

static void *conc_main(void *arg)
{
	struct conc *c = arg;
	for (int64_t t = c->id; t < 10 * SEC; t += MS)
		if (rec_bucket_admit(c->b, SEC + t, 1))
			atomic_fetch_add(c->admitted, 1);
	return NULL;
}

static void test_bucket_threads(void **state)
{
	(void)state;
	struct rec_throttle_spec s = {"/imu", 4, 100, false};
	struct rec_bucket b;
	rec_bucket_init(&b, &s);
	atomic_uint_fast64_t admitted = 0;
	pthread_t th[4];
	struct conc c[4];
	for (int i = 0; i < 4; i++) {
		c[i] = (struct conc){&b, &admitted, i};
		assert_int_equal(pthread_create(&th[i], NULL, conc_main, &c[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	/* time goes back and forth between the threads; what is admitted
	 * still never beats the rate over the span: 10 s at 100 Hz + 1 */
	assert_true(atomic_load(&admitted) <= 1001);
	assert_true(atomic_load(&admitted) >= 100);
}

TU_MAIN(
	cmocka_unit_test(test_parse_good),
	cmocka_unit_test(test_parse_bad),
	cmocka_unit_test(test_find),
	cmocka_unit_test(test_bucket_hz),
	cmocka_unit_test(test_bucket_bytes),
	cmocka_unit_test(test_bucket_threads))
