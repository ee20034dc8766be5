/* rec_cache: the byte bound is exact, order is kept, close and timeouts
 * behave as the contract says, write-through pushers are released only by
 * the consumer's next swap, and many producers against one consumer lose
 * nothing uncounted. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec_cache.h"
#include "core_fixture.h"
#include "test_util.h"

#define MS INT64_C(1000000)

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A message whose first bytes say who pushed it and in which order. */
static struct rec_msg *msg(uint32_t producer, uint32_t seq, size_t len)
{
	return cf_msg(producer, seq, len, 0, 0);
}

static void test_cache_bound(void **state)
{
	(void)state;
	struct rec_cache *c = rec_cache_new(1000);
	assert_int_equal(rec_cache_max_bytes(c), 1000);
	for (uint32_t i = 0; i < 9; i++)
		assert_int_equal(rec_cache_push(c, msg(0, i, 100)), BT_OK);
	assert_int_equal(rec_cache_fill(c), 900);
	assert_int_equal(rec_cache_push(c, msg(0, 9, 101)), BT_ERR_FULL); /* 1001 > 1000 */
	assert_int_equal(rec_cache_fill(c), 900);
	assert_int_equal(rec_cache_push(c, msg(0, 10, 100)), BT_OK); /* exactly 1000 */
	assert_int_equal(rec_cache_fill(c), 1000);
	assert_int_equal(rec_cache_push(c, msg(0, 11, 1)), BT_ERR_FULL);
	assert_int_equal(rec_cache_push(c, msg(0, 12, 0)), BT_OK); /* adds no bytes */
	struct rec_batch b;
	assert_true(rec_cache_swap_wait(c, 0, &b));
	assert_int_equal(b.count, 11);
	assert_int_equal(b.bytes, 1000);
	assert_int_equal(rec_cache_fill(c), 0);
	/* The producer side is empty again: the whole bound is available. */
	assert_int_equal(rec_cache_push(c, msg(0, 14, 1001)), BT_ERR_FULL);
	assert_int_equal(rec_cache_push(c, msg(0, 15, 1000)), BT_OK);
	assert_int_equal(rec_cache_fill(c), 1000);
	rec_msg_free_list(b.head);
	rec_cache_free(c); /* frees the queued message (ASan checks) */
}

static void test_cache_order(void **state)
{
	(void)state;
	struct rec_cache *c = rec_cache_new(1 << 20);
	size_t bytes = 0;
	for (uint32_t i = 0; i < 1000; i++) {
		assert_int_equal(rec_cache_push(c, msg(0, i, i % 37)), BT_OK);
		bytes += i % 37;
	}
	struct rec_batch b;
	assert_true(rec_cache_swap_wait(c, 0, &b));
	assert_int_equal(b.count, 1000);
	assert_int_equal(b.bytes, bytes);
	uint32_t i = 0;
	const struct rec_msg *last = NULL;
	for (const struct rec_msg *m = b.head; m != NULL; m = m->next, i++) {
		assert_int_equal(m->writer_sn, i);
		assert_int_equal(m->len, i % 37);
		last = m;
	}
	assert_int_equal(i, 1000);
	assert_ptr_equal(last, b.tail);
	rec_msg_free_list(b.head);
	rec_cache_free(c);
}

/* rec_cache_order: a prefix of the batch, in list order, growing with the
 * batches (the first has none: the array is sized between swaps). */
static void test_cache_order_array(void **state)
{
	(void)state;
	struct rec_cache *c = rec_cache_new(1 << 20);
	size_t seen[5];
	for (int round = 0; round < 5; round++) {
		for (uint32_t i = 0; i < 300; i++)
			assert_int_equal(rec_cache_push(c, msg(0, i, 8)), BT_OK);
		struct rec_batch b;
		assert_true(rec_cache_swap_wait(c, 0, &b));
		assert_int_equal(b.count, 300);
		size_t n;
		struct rec_msg *const *v = rec_cache_order(c, &n);
		assert_true(n <= b.count);
		const struct rec_msg *m = b.head;
		for (size_t i = 0; i < n; i++, m = m->next)
			assert_ptr_equal(v[i], m);
		seen[round] = n;
		rec_msg_free_list(b.head);
	}
	assert_int_equal(seen[0], 0);
	assert_int_equal(seen[4], 300); /* grown to twice the last batch */
	/* No batch: nothing to read ahead. */
	struct rec_batch e;
	assert_true(rec_cache_swap_wait(c, 0, &e));
	assert_int_equal(e.count, 0);
	size_t n;
	(void)rec_cache_order(c, &n);
	assert_int_equal(n, 0);
	rec_cache_free(c);
}

static void test_cache_close(void **state)
{
	(void)state;
	struct rec_cache *c = rec_cache_new(1000);
	for (uint32_t i = 0; i < 3; i++)
		assert_int_equal(rec_cache_push(c, msg(0, i, 10)), BT_OK);
	rec_cache_close(c);
	assert_int_equal(rec_cache_push(c, msg(0, 3, 10)), BT_ERR_STATE);
	struct rec_batch b;
	/* What was queued is still handed out... */
	assert_true(rec_cache_swap_wait(c, 5000 * MS, &b));
	assert_int_equal(b.count, 3);
	assert_int_equal(b.bytes, 30);
	rec_msg_free_list(b.head);
	/* ...then the consumer is told to finish, without waiting. */
	int64_t t0 = now_ns();
	assert_false(rec_cache_swap_wait(c, 5000 * MS, &b));
	assert_int_equal(b.count, 0);
	assert_null(b.head);
	assert_false(rec_cache_swap_wait(c, 5000 * MS, &b));
	assert_true(now_ns() - t0 < 1000 * MS);
	rec_cache_free(c);
}

static void waker(void *arg)
{
	rec_cache_wake(arg);
}

static void test_cache_timeout(void **state)
{
	(void)state;
	struct rec_cache *c = rec_cache_new(1000);
	struct rec_batch b;
	int64_t t0 = now_ns();
	assert_true(rec_cache_swap_wait(c, 50 * MS, &b));
	int64_t dt = now_ns() - t0;
	assert_int_equal(b.count, 0);
	assert_null(b.head);
	assert_true(dt >= 50 * MS);
	assert_true(dt < 2000 * MS);
	/* A wake-up ends a long wait early, with nothing in it. */
	struct cf_later th;
	cf_later_start(&th, waker, c);
	t0 = now_ns();
	assert_true(rec_cache_swap_wait(c, 10000 * MS, &b));
	dt = now_ns() - t0;
	cf_later_join(&th);
	assert_int_equal(b.count, 0);
	assert_true(dt < 5000 * MS);
	/* The wake-up is consumed: the next wait lasts its timeout again. */
	t0 = now_ns();
	assert_true(rec_cache_swap_wait(c, 20 * MS, &b));
	assert_true(now_ns() - t0 >= 20 * MS);
	assert_int_equal(b.count, 0);
	rec_cache_free(c);
}

/* ---- write-through ---- */

struct wt_pusher {
	struct rec_cache *c;
	uint32_t seq;
	pthread_t th;
	atomic_bool returned;
	bt_status st;
};

static void *wt_push(void *arg)
{
	struct wt_pusher *p = arg;
	p->st = rec_cache_push(p->c, msg(0, p->seq, 8));
	atomic_store(&p->returned, true);
	return NULL;
}

static void wt_start(struct wt_pusher *p, struct rec_cache *c, uint32_t seq)
{
	p->c = c;
	p->seq = seq;
	atomic_init(&p->returned, false);
	assert_int_equal(pthread_create(&p->th, NULL, wt_push, p), 0);
}

/* Waits (bounded) for the pusher to return; returns whether it did. */
static bool wt_returns(struct wt_pusher *p, int64_t within_ns)
{
	int64_t end = now_ns() + within_ns;
	while (!atomic_load(&p->returned) && now_ns() < end)
		usleep(1000);
	return atomic_load(&p->returned);
}

/* Swaps until a batch arrives (bounded); returns it. */
static struct rec_batch wt_take(struct rec_cache *c)
{
	struct rec_batch b = {0};
	for (int i = 0; i < 50 && b.count == 0; i++)
		assert_true(rec_cache_swap_wait(c, 100 * MS, &b));
	assert_int_equal(b.count, 1);
	return b;
}

static void test_cache_write_through(void **state)
{
	(void)state;
	struct rec_cache *c = rec_cache_new(0);
	struct wt_pusher a, b2, cl;
	wt_start(&a, c, 1);
	struct rec_batch ba = wt_take(c);
	assert_int_equal(ba.head->writer_sn, 1);
	/* The consumer holds A's batch ("writing"): A stays blocked. */
	assert_false(wt_returns(&a, 150 * MS));
	/* B pushes now: its message belongs to the next batch. */
	wt_start(&b2, c, 2);
	for (int i = 0; i < 5000 && rec_cache_fill(c) == 0; i++)
		usleep(1000);
	assert_int_equal(rec_cache_fill(c), 8);
	rec_msg_free_list(ba.head);
	/* The next swap finishes A's batch and takes B's. */
	struct rec_batch bb = wt_take(c);
	assert_int_equal(bb.head->writer_sn, 2);
	assert_true(wt_returns(&a, 5000 * MS));
	assert_int_equal(a.st, BT_OK);
	assert_false(wt_returns(&b2, 150 * MS));
	rec_msg_free_list(bb.head);
	struct rec_batch none;
	assert_true(rec_cache_swap_wait(c, 0, &none)); /* finishes B's batch */
	assert_int_equal(none.count, 0);
	assert_true(wt_returns(&b2, 5000 * MS));
	assert_int_equal(b2.st, BT_OK);
	/* Close releases a pusher whose batch will never be written. */
	wt_start(&cl, c, 3);
	for (int i = 0; i < 5000 && rec_cache_fill(c) == 0; i++)
		usleep(1000);
	assert_false(wt_returns(&cl, 100 * MS));
	rec_cache_close(c);
	assert_true(wt_returns(&cl, 5000 * MS));
	assert_int_equal(cl.st, BT_OK);
	struct rec_batch last;
	assert_true(rec_cache_swap_wait(c, 0, &last));
	assert_int_equal(last.count, 1);
	rec_msg_free_list(last.head);
	assert_false(rec_cache_swap_wait(c, 0, &last));
	assert_int_equal(pthread_join(a.th, NULL), 0);
	assert_int_equal(pthread_join(b2.th, NULL), 0);
	assert_int_equal(pthread_join(cl.th, NULL), 0);
	rec_cache_free(c);
}

/* ---- many producers, one consumer ---- */

#define MP_PRODUCERS 4
#define MP_PUSHES 50000u
#define MP_MAX_BYTES 16384u

static atomic_int mp_running; /* producers not finished yet */

struct mp_producer {
	struct rec_cache *c;
	uint32_t id;
	pthread_t th;
	uint64_t accepted, refused, other;
	uint64_t accepted_bytes;
};

static size_t mp_len(uint32_t id, uint32_t seq)
{
	return 1 + (seq * 7u + id * 13u) % 256u;
}

/* Bursts of 500 pushes (the cache overflows), then 500 paced ones (the
 * consumer keeps up): many batches, and both outcomes. */
static void mp_pace(uint32_t s)
{
	if (s % 1000 >= 500 && s % 10 == 0)
		usleep(50);
}

static void *mp_run(void *arg)
{
	struct mp_producer *p = arg;
	for (uint32_t s = 0; s < MP_PUSHES; s++) {
		mp_pace(s);
		size_t len = mp_len(p->id, s);
		bt_status st = rec_cache_push(p->c, msg(p->id, s, len));
		if (st == BT_OK) {
			p->accepted++;
			p->accepted_bytes += len;
		} else if (st == BT_ERR_FULL) {
			p->refused++;
		} else {
			p->other++;
		}
	}
	atomic_fetch_sub(&mp_running, 1);
	return NULL;
}

struct mp_seen {
	uint64_t count, bytes;
	int64_t last_seq;
	bool bad_order, bad_len;
};

static void mp_check_batch(const struct rec_batch *b, struct mp_seen *seen)
{
	size_t count = 0, bytes = 0;
	for (const struct rec_msg *m = b->head; m != NULL; m = m->next) {
		struct mp_seen *s = &seen[m->topic];
		if (m->writer_sn <= s->last_seq)
			s->bad_order = true;
		if (m->len != mp_len(m->topic, (uint32_t)m->writer_sn))
			s->bad_len = true;
		s->last_seq = m->writer_sn;
		s->count++;
		s->bytes += m->len;
		count++;
		bytes += m->len;
	}
	assert_int_equal(count, b->count);
	assert_int_equal(bytes, b->bytes);
	assert_true(b->bytes <= MP_MAX_BYTES);
}

static void test_cache_many_producers(void **state)
{
	(void)state;
	struct rec_cache *c = rec_cache_new(MP_MAX_BYTES);
	struct mp_producer p[MP_PRODUCERS];
	struct mp_seen seen[MP_PRODUCERS];
	atomic_store(&mp_running, MP_PRODUCERS);
	for (uint32_t i = 0; i < MP_PRODUCERS; i++) {
		p[i] = (struct mp_producer){.c = c, .id = i};
		seen[i] = (struct mp_seen){.last_seq = -1};
		assert_int_equal(pthread_create(&p[i].th, NULL, mp_run, &p[i]), 0);
	}
	/* A slowish consumer, so that bursts really hit the bound. */
	int64_t deadline = now_ns() + 100000 * MS;
	struct rec_batch b;
	uint64_t batches = 0;
	while (atomic_load(&mp_running) > 0 && now_ns() < deadline) {
		assert_true(rec_cache_fill(c) <= MP_MAX_BYTES);
		assert_true(rec_cache_swap_wait(c, 10 * MS, &b));
		mp_check_batch(&b, seen);
		rec_msg_free_list(b.head);
		batches += b.count != 0;
		usleep(200);
	}
	for (int i = 0; i < MP_PRODUCERS; i++)
		assert_int_equal(pthread_join(p[i].th, NULL), 0);
	rec_cache_close(c);
	while (rec_cache_swap_wait(c, 10 * MS, &b) && now_ns() < deadline) {
		mp_check_batch(&b, seen);
		rec_msg_free_list(b.head);
	}
	assert_false(rec_cache_swap_wait(c, 0, &b));
	uint64_t refused = 0, consumed = 0;
	for (int i = 0; i < MP_PRODUCERS; i++) {
		assert_int_equal(p[i].other, 0);
		assert_int_equal(p[i].accepted + p[i].refused, MP_PUSHES);
		assert_int_equal(seen[i].count, p[i].accepted);
		assert_int_equal(seen[i].bytes, p[i].accepted_bytes);
		assert_false(seen[i].bad_order);
		assert_false(seen[i].bad_len);
		refused += p[i].refused;
		consumed += seen[i].count;
	}
	printf("  %llu consumed, %llu refused, %llu batches\n", (unsigned long long)consumed,
	       (unsigned long long)refused, (unsigned long long)batches);
	assert_true(refused > 0);
	assert_true(consumed > 0);
	assert_true(batches >= 10);
	rec_cache_free(c);
}

TU_MAIN(
	cmocka_unit_test(test_cache_bound),
	cmocka_unit_test(test_cache_order),
	cmocka_unit_test(test_cache_order_array),
	cmocka_unit_test(test_cache_close),
	cmocka_unit_test(test_cache_timeout),
	cmocka_unit_test(test_cache_write_through),
	cmocka_unit_test(test_cache_many_producers))
