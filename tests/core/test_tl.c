/* rec_tl: each marked topic keeps exactly its last N messages (own copies),
 * marks and depths change at run time from any thread (also before a
 * topic's first message), copies come sorted by receive time, failed
 * allocations are counted, and the `TOPIC[=N]` argument is parsed
 * strictly. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_tl.h"
#include "rec_topics.h"
#include "core_fixture.h"
#include "test_util.h"

static struct rec_msg *msg(uint32_t topic, int64_t seq, size_t len, int64_t t)
{
	return cf_msg(topic, seq, len, t, t - 1);
}

/* Offers a message the way a producer does: the store copies, the
 * producer keeps (here: frees) its own. */
static void offer(struct rec_tl *tl, uint32_t topic, int64_t seq, size_t len, int64_t t)
{
	struct rec_msg *m = msg(topic, seq, len, t);
	rec_tl_offer(tl, m);
	memset(m->data, 0xee, len); /* the store's copy must not see this */
	rec_msg_free(m);
}

/* Checks a copy list: (topic, seq) pairs in order, contents intact. */
static void check_copy(const struct rec_batch *b, const uint32_t *topics, const int64_t *seqs,
		       size_t n)
{
	size_t i = 0;
	for (const struct rec_msg *m = b->head; m != NULL && i < n; m = m->next, i++) {
		assert_int_equal(m->topic, topics[i]);
		assert_int_equal(m->writer_sn, seqs[i]);
		assert_int_equal(m->source_time, m->recv_time - 1);
	}
	cf_check_batch(b, n);
}

static void copy_check(struct rec_tl *tl, const uint32_t *topics, const int64_t *seqs, size_t n)
{
	struct rec_batch b;
	assert_int_equal(rec_tl_copy(tl, &b), 0);
	check_copy(&b, topics, seqs, n);
	rec_msg_free_list(b.head);
}

/* A new store with `topic` marked to keep `depth` messages. */
static struct rec_tl *tl_marked(uint32_t topic, uint32_t depth)
{
	struct rec_tl *tl = rec_tl_new();
	assert_int_equal(rec_tl_set_depth(tl, topic, depth), BT_OK);
	return tl;
}

/* The store's statistics, every field. */
static void stats_are(struct rec_tl *tl, size_t topics, size_t messages, size_t bytes,
		      uint64_t alloc_failed)
{
	struct rec_tl_stats st;
	rec_tl_get_stats(tl, &st);
	assert_int_equal(st.topics, topics);
	assert_int_equal(st.messages, messages);
	assert_int_equal(st.bytes, bytes);
	assert_int_equal(st.alloc_failed, alloc_failed);
}

static void test_tl_depth_one(void **state)
{
	(void)state;
	struct rec_tl *tl = tl_marked(3, 1);
	assert_int_equal(rec_tl_depth(tl, 3), 1);
	assert_int_equal(rec_tl_depth(tl, 4), 0);
	for (int64_t i = 0; i < 5; i++) {
		offer(tl, 3, i, 16, 100 + i);
		offer(tl, 4, i, 16, 100 + i); /* not marked: not kept */
	}
	uint32_t t[] = {3};
	int64_t s[] = {4};
	copy_check(tl, t, s, 1);
	/* Copies are the caller's: a second copy is the same again. */
	copy_check(tl, t, s, 1);
	stats_are(tl, 1, 1, 16, 0);
	rec_tl_free(tl);
}

static void test_tl_depth_five(void **state)
{
	(void)state;
	struct rec_tl *tl = tl_marked(7, 5);
	for (int64_t i = 0; i < 12; i++)
		offer(tl, 7, i, (size_t)i, 1000 + i);
	uint32_t t[] = {7, 7, 7, 7, 7};
	int64_t s[] = {7, 8, 9, 10, 11};
	copy_check(tl, t, s, 5);
	stats_are(tl, 1, 5, 7 + 8 + 9 + 10 + 11, 0);
	/* A smaller depth drops the oldest at once... */
	assert_int_equal(rec_tl_set_depth(tl, 7, 2), BT_OK);
	int64_t s2[] = {10, 11};
	copy_check(tl, t, s2, 2);
	/* ...a larger one keeps what is there and fills up. */
	assert_int_equal(rec_tl_set_depth(tl, 7, 5), BT_OK);
	copy_check(tl, t, s2, 2);
	offer(tl, 7, 12, 3, 1012);
	int64_t s3[] = {10, 11, 12};
	copy_check(tl, t, s3, 3);
	stats_are(tl, 1, 3, 10 + 11 + 3, 0);
	rec_tl_free(tl); /* frees the copies (ASan checks) */
}

/* History fetched after a mark: goes before what arrived since, without
 * the messages the store already holds, trimmed to the depth; an unmarked
 * topic keeps nothing. */
static void test_tl_fill(void **state)
{
	(void)state;
	struct rec_tl *tl = tl_marked(2, 3);
	offer(tl, 2, 5, 8, 500); /* arrived after the mark */
	struct rec_batch b = {0};
	rec_batch_append(&b, msg(2, 3, 8, 300));
	rec_batch_append(&b, msg(2, 4, 8, 400));
	rec_batch_append(&b, msg(2, 5, 8, 500)); /* the same as the stored one */
	assert_int_equal(rec_tl_fill(tl, 2, &b), 2);
	assert_null(b.head);
	uint32_t t[] = {2, 2, 2};
	int64_t s[] = {3, 4, 5};
	copy_check(tl, t, s, 3);
	rec_batch_append(&b, msg(2, 1, 8, 100));
	rec_batch_append(&b, msg(2, 2, 8, 200));
	assert_int_equal(rec_tl_fill(tl, 2, &b), 2);
	copy_check(tl, t, s, 3); /* the oldest went: depth 3 */
	stats_are(tl, 1, 3, 24, 0);
	rec_batch_append(&b, msg(9, 1, 8, 100));
	assert_int_equal(rec_tl_fill(tl, 9, &b), 0); /* not marked */
	/* A fetched message newer than the oldest stored is placed before
	 * it all the same, its time clamped so the copy stays in order. */
	assert_int_equal(rec_tl_set_depth(tl, 4, 2), BT_OK);
	offer(tl, 4, 8, 4, 800);
	rec_batch_append(&b, msg(4, 7, 4, 900));
	assert_int_equal(rec_tl_fill(tl, 4, &b), 1);
	struct rec_batch c;
	assert_int_equal(rec_tl_copy(tl, &c), 0);
	assert_int_equal(c.count, 5);
	const struct rec_msg *m = c.head;
	for (int i = 0; i < 3; i++)
		m = m->next;
	assert_int_equal(m->writer_sn, 7);
	assert_int_equal(m->recv_time, 799);
	assert_int_equal(m->next->writer_sn, 8);
	rec_msg_free_list(c.head);
	rec_tl_free(tl);
}

static void test_tl_sorted(void **state)
{
	(void)state;
	struct rec_tl *tl = tl_marked(1, 2);
	assert_int_equal(rec_tl_set_depth(tl, 2, 1), BT_OK);
	assert_int_equal(rec_tl_set_depth(tl, 0, 3), BT_OK);
	offer(tl, 2, 20, 4, 50);
	offer(tl, 1, 10, 4, 30);
	offer(tl, 0, 30, 4, 40);
	offer(tl, 1, 11, 4, 40); /* same time as topic 0's: offer order */
	offer(tl, 0, 31, 4, 10);  /* stamped earlier, offered later */
	uint32_t t[] = {0, 1, 0, 1, 2};
	int64_t s[] = {31, 10, 30, 11, 20};
	copy_check(tl, t, s, 5);
	rec_tl_free(tl);
}

static void test_tl_mark_unmark(void **state)
{
	(void)state;
	struct rec_tl *tl = rec_tl_new();
	/* Marked before any message of it exists. */
	assert_int_equal(rec_tl_set_depth(tl, 100, 1), BT_OK);
	struct rec_batch b;
	assert_int_equal(rec_tl_copy(tl, &b), 0);
	assert_int_equal(b.count, 0);
	assert_null(b.head);
	offer(tl, 100, 1, 8, 1);
	uint32_t t[] = {100};
	int64_t s[] = {1};
	copy_check(tl, t, s, 1);
	/* Unmarked: what it kept is freed, new messages are ignored. */
	assert_int_equal(rec_tl_set_depth(tl, 100, 0), BT_OK);
	assert_int_equal(rec_tl_depth(tl, 100), 0);
	offer(tl, 100, 2, 8, 2);
	stats_are(tl, 0, 0, 0, 0);
	/* Marked again: starts empty. Unmarking twice is harmless. */
	assert_int_equal(rec_tl_set_depth(tl, 100, 0), BT_OK);
	assert_int_equal(rec_tl_set_depth(tl, 100, 1), BT_OK);
	assert_int_equal(rec_tl_copy(tl, &b), 0);
	assert_int_equal(b.count, 0);
	offer(tl, 100, 3, 8, 3);
	int64_t s3[] = {3};
	copy_check(tl, t, s3, 1);
	/* The last index works, beyond it is refused. */
	assert_int_equal(rec_tl_set_depth(tl, REC_TOPICS_MAX - 1, 1), BT_OK);
	assert_int_equal(rec_tl_set_depth(tl, REC_TOPICS_MAX, 1), BT_ERR_USAGE);
	assert_int_equal(rec_tl_set_depth(tl, 5, REC_TL_DEPTH_MAX + 1), BT_ERR_USAGE);
	assert_int_equal(rec_tl_depth(tl, REC_TOPICS_MAX), 0);
	stats_are(tl, 2, 1, 8, 0); /* topic 100's one message */
	rec_tl_free(tl);
}

static void test_tl_alloc_failure(void **state)
{
	(void)state;
	struct rec_tl *tl = tl_marked(1, 2);
	offer(tl, 1, 1, 8, 1);
	/* A header claiming an impossible size: rec_msg_new refuses it (no
	 * data is read), like a failed malloc. The store counts it and keeps
	 * what it had. */
	struct rec_msg *m = msg(1, 2, 8, 2);
	m->len = SIZE_MAX - 8;
	rec_tl_offer(tl, m);
	rec_msg_free(m);
	stats_are(tl, 1, 1, 8, 1);
	uint32_t t[] = {1};
	int64_t s[] = {1};
	copy_check(tl, t, s, 1);
	offer(tl, 1, 3, 8, 3);
	uint32_t t2[] = {1, 1};
	int64_t s2[] = {1, 3};
	copy_check(tl, t2, s2, 2);
	rec_tl_free(tl);
}

static void test_tl_parse_spec(void **state)
{
	(void)state;
	char *name = NULL;
	uint32_t depth = 0;
	struct bt_error err = {0};
	assert_int_equal(rec_tl_parse_spec("/map", &name, &depth, &err), BT_OK);
	assert_string_equal(name, "/map");
	assert_int_equal(depth, 1);
	free(name);
	assert_int_equal(rec_tl_parse_spec("/tf_static=5", &name, &depth, &err), BT_OK);
	assert_string_equal(name, "/tf_static");
	assert_int_equal(depth, 5);
	free(name);
	const char *bad[] = {"", "=5", "/x=0", "/x=-1", "/x=abc", "/x=", "/x=1.5",
			     "/x= 2", "/x=1000001"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		name = NULL;
		depth = 77;
		bt_err_clear(&err);
		assert_int_equal(rec_tl_parse_spec(bad[i], &name, &depth, &err), BT_ERR_USAGE);
		assert_null(name);
		assert_int_equal(depth, 77);
		assert_int_equal(err.code, BT_ERR_USAGE);
		assert_non_null(strstr(err.msg, "--repeat-transient-local"));
	}
}

/* ---- threads: producers, a marker (the `t` key) and a reader ---- */

#define TT_PRODUCERS 3
#define TT_OFFERS 20000
#define TT_TOPICS 8

struct tt_ctx {
	struct rec_tl *tl;
	atomic_int running;
	atomic_int marks, reads; /* iterations: the threads really overlap */
	atomic_bool bad;
};

struct tt_producer {
	struct tt_ctx *c;
	uint32_t id;
	pthread_t th;
};

static void *tt_produce(void *arg)
{
	struct tt_producer *p = arg;
	for (int64_t i = 0; i < TT_OFFERS || atomic_load(&p->c->marks) < 2000 ||
			    atomic_load(&p->c->reads) < 200;
	     i++) {
		uint32_t topic = (uint32_t)(i + p->id) % TT_TOPICS;
		struct rec_msg *m = msg(topic, i, (size_t)(i % 64), i);
		rec_tl_offer(p->c->tl, m);
		rec_msg_free(m);
	}
	atomic_fetch_sub(&p->c->running, 1);
	return NULL;
}

static void *tt_mark(void *arg)
{
	struct tt_ctx *c = arg;
	for (uint32_t k = 0; atomic_load(&c->running) > 0; k++) {
		/* Topic 0 stays marked; the others come and go. */
		uint32_t topic = 1 + k % (TT_TOPICS - 1);
		if (rec_tl_set_depth(c->tl, topic, (k / 7) % 4) != BT_OK)
			atomic_store(&c->bad, true);
		atomic_fetch_add(&c->marks, 1);
	}
	return NULL;
}

static void *tt_read(void *arg)
{
	struct tt_ctx *c = arg;
	while (atomic_load(&c->running) > 0) {
		struct rec_batch b;
		if (rec_tl_copy(c->tl, &b) != 0)
			atomic_store(&c->bad, true);
		int64_t last = INT64_MIN;
		for (const struct rec_msg *m = b.head; m != NULL; m = m->next) {
			if (m->recv_time < last || m->len != (size_t)(m->writer_sn % 64))
				atomic_store(&c->bad, true);
			last = m->recv_time;
		}
		rec_msg_free_list(b.head);
		atomic_fetch_add(&c->reads, 1);
	}
	return NULL;
}

static void test_tl_threads(void **state)
{
	(void)state;
	struct tt_ctx c = {.tl = rec_tl_new()};
	atomic_init(&c.running, TT_PRODUCERS);
	atomic_init(&c.bad, false);
	atomic_init(&c.marks, 0);
	atomic_init(&c.reads, 0);
	assert_int_equal(rec_tl_set_depth(c.tl, 0, 3), BT_OK);
	struct tt_producer p[TT_PRODUCERS];
	pthread_t marker, reader;
	for (uint32_t i = 0; i < TT_PRODUCERS; i++) {
		p[i] = (struct tt_producer){.c = &c, .id = i};
		assert_int_equal(pthread_create(&p[i].th, NULL, tt_produce, &p[i]), 0);
	}
	assert_int_equal(pthread_create(&marker, NULL, tt_mark, &c), 0);
	assert_int_equal(pthread_create(&reader, NULL, tt_read, &c), 0);
	for (int i = 0; i < TT_PRODUCERS; i++)
		assert_int_equal(pthread_join(p[i].th, NULL), 0);
	assert_int_equal(pthread_join(marker, NULL), 0);
	assert_int_equal(pthread_join(reader, NULL), 0);
	assert_false(atomic_load(&c.bad));
	/* Every topic holds at most its depth; topic 0 exactly 3. */
	struct rec_batch b;
	assert_int_equal(rec_tl_copy(c.tl, &b), 0);
	size_t per[TT_TOPICS] = {0};
	for (const struct rec_msg *m = b.head; m != NULL; m = m->next)
		per[m->topic]++;
	rec_msg_free_list(b.head);
	assert_int_equal(per[0], 3);
	size_t total = 0;
	for (uint32_t i = 0; i < TT_TOPICS; i++) {
		assert_true(per[i] <= rec_tl_depth(c.tl, i));
		total += per[i];
	}
	struct rec_tl_stats st;
	rec_tl_get_stats(c.tl, &st);
	assert_int_equal(st.messages, total);
	assert_int_equal(st.alloc_failed, 0);
	rec_tl_free(c.tl);
}

TU_MAIN(
	cmocka_unit_test(test_tl_depth_one),
	cmocka_unit_test(test_tl_depth_five),
	cmocka_unit_test(test_tl_sorted),
	cmocka_unit_test(test_tl_fill),
	cmocka_unit_test(test_tl_mark_unmark),
	cmocka_unit_test(test_tl_alloc_failure),
	cmocka_unit_test(test_tl_parse_spec),
	cmocka_unit_test(test_tl_threads))
