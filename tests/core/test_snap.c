/* rec_snap: the circular buffer's byte and time bounds evict exactly the
 * oldest messages and count them per topic; a trigger flips the buffers,
 * is refused while a snapshot is held and says when the buffer is empty;
 * the post window takes exactly the messages stamped up to its end; and
 * under concurrent producers every message is in exactly one snapshot or
 * counted as evicted. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rec_snap.h"
#include "core_fixture.h"
#include "test_util.h"

#define MS INT64_C(1000000)

/* A message of `topic` saying its sequence number, stamped at t. */
static struct rec_msg *msg(uint32_t topic, int64_t seq, size_t len, int64_t t)
{
	return cf_msg(topic, seq, len, t, 0);
}

static struct rec_snap *snap_new(size_t max_bytes, int64_t duration, int64_t post)
{
	struct rec_snap_options o = {max_bytes, duration, post};
	return rec_snap_new(&o);
}

/* Checks that b holds exactly the given sequence numbers, in order. */
static void check_seqs(const struct rec_batch *b, const int64_t *seqs, size_t n)
{
	size_t i = 0;
	for (const struct rec_msg *m = b->head; m != NULL && i < n; m = m->next, i++)
		assert_int_equal(m->writer_sn, seqs[i]);
	cf_check_batch(b, n);
}

/* check_seqs, then frees b's messages (the snapshot has been written). */
static void check_free(const struct rec_batch *b, const int64_t *seqs, size_t n)
{
	check_seqs(b, seqs, n);
	rec_msg_free_list(b->head);
}

/* Triggers and takes the snapshot (the consumer's two steps). */
static struct rec_batch trigger_take(struct rec_snap *s, int64_t now, uint64_t want_id)
{
	struct rec_snap_trigger_info info;
	assert_int_equal(rec_snap_trigger(s, now, &info), REC_SNAP_TRIGGERED);
	assert_int_equal(info.id, want_id);
	struct rec_batch b;
	uint64_t id = 0;
	assert_true(rec_snap_take_wait(s, 1000 * MS, &b, &id));
	assert_int_equal(id, want_id);
	assert_int_equal(b.count, info.count);
	assert_int_equal(b.bytes, info.bytes);
	return b;
}

static void test_snap_byte_bound(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(1000, 0, 0);
	assert_int_equal(rec_snap_max_bytes(s), 1000);
	/* Topics alternate 0/1: evictions are counted per topic. */
	for (int64_t i = 0; i < 10; i++)
		assert_int_equal(rec_snap_push(s, msg((uint32_t)(i % 2), i, 100, i)), BT_OK);
	assert_int_equal(rec_snap_fill(s), 1000);
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 0);
	assert_int_equal(st.fill_count, 10);
	/* One more: the oldest (seq 0, topic 0) goes. */
	assert_int_equal(rec_snap_push(s, msg(0, 10, 100, 10)), BT_OK);
	assert_int_equal(rec_snap_topic_evicted(s, 0), 1);
	assert_int_equal(rec_snap_topic_evicted(s, 1), 0);
	/* 250 bytes need 3 more out (seqs 1, 2, 3): 700 + 250 = 950. */
	assert_int_equal(rec_snap_push(s, msg(1, 11, 250, 11)), BT_OK);
	assert_int_equal(rec_snap_fill(s), 950);
	assert_int_equal(rec_snap_topic_evicted(s, 0), 2);
	assert_int_equal(rec_snap_topic_evicted(s, 1), 2);
	/* An empty message costs no bytes; exactly the bound evicts nothing. */
	assert_int_equal(rec_snap_push(s, msg(0, 12, 0, 12)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(0, 13, 50, 13)), BT_OK);
	assert_int_equal(rec_snap_fill(s), 1000);
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 4);
	assert_int_equal(st.evicted_bytes, 400);
	assert_int_equal(st.fill_count, 10);
	struct rec_batch b = trigger_take(s, 100, 1);
	int64_t want[] = {4, 5, 6, 7, 8, 9, 10, 11, 12, 13};
	assert_int_equal(b.bytes, 1000);
	assert_int_equal(rec_snap_fill(s), 0);
	check_free(&b, want, 10);
	rec_snap_release(s);
	rec_snap_free(s);
}

static void test_snap_oversized(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(1000, 0, 0);
	for (int64_t i = 0; i < 3; i++)
		assert_int_equal(rec_snap_push(s, msg(0, i, 100, i)), BT_OK);
	/* Larger than the whole bound: refused, the buffer untouched. */
	assert_int_equal(rec_snap_push(s, msg(2, 3, 1001, 3)), BT_ERR_TOOBIG);
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.toobig, 1);
	assert_int_equal(st.evicted, 0);
	assert_int_equal(st.fill_count, 3);
	assert_int_equal(rec_snap_topic_evicted(s, 2), 0);
	/* Exactly the bound is kept, alone: everything else goes. */
	assert_int_equal(rec_snap_push(s, msg(2, 4, 1000, 4)), BT_OK);
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 3);
	assert_int_equal(rec_snap_topic_evicted(s, 0), 3);
	struct rec_batch b = trigger_take(s, 10, 1);
	int64_t want[] = {4};
	check_free(&b, want, 1);
	rec_snap_release(s);
	rec_snap_free(s);
}

static void test_snap_time_bound(void **state)
{
	(void)state;
	/* Keep recv_time >= newest - 50. */
	struct rec_snap *s = snap_new(1 << 20, 50, 0);
	for (int64_t t = 0; t <= 100; t += 10)
		assert_int_equal(rec_snap_push(s, msg(0, t, 10, t)), BT_OK);
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 5); /* 0..40; 50 is exactly on the edge: kept */
	assert_int_equal(st.fill_count, 6);
	/* A late arrival stamped 40 of another topic waits in its own queue
	 * (time eviction trims the pushed topic, and one other in turn)... */
	assert_int_equal(rec_snap_push(s, msg(1, 40, 10, 40)), BT_OK);
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 5);
	/* ...and goes when the next push's turn comes to topic 1: 200 keeps
	 * >= 150. */
	assert_int_equal(rec_snap_push(s, msg(0, 200, 10, 200)), BT_OK);
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 12);
	assert_int_equal(rec_snap_topic_evicted(s, 0), 11);
	assert_int_equal(rec_snap_topic_evicted(s, 1), 1);
	assert_int_equal(st.fill_count, 1);
	struct rec_batch b = trigger_take(s, 0, 1);
	int64_t want1[] = {200};
	check_free(&b, want1, 1);
	rec_snap_release(s);
	/* The new buffer's window starts afresh: older stamps are fine there. */
	assert_int_equal(rec_snap_push(s, msg(0, 1, 10, 1)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(0, 30, 10, 30)), BT_OK);
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 12);
	rec_snap_free(s); /* frees the buffer (ASan checks) */
}

static void test_snap_both_bounds(void **state)
{
	(void)state;
	/* 300 bytes and 100 ns: whichever is tighter wins. */
	struct rec_snap *s = snap_new(300, 100, 0);
	for (int64_t i = 0; i < 5; i++) /* 5 x 100 bytes, close in time */
		assert_int_equal(rec_snap_push(s, msg(0, i, 100, i)), BT_OK);
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 2); /* bytes */
	assert_int_equal(rec_snap_push(s, msg(0, 5, 10, 150)), BT_OK);
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.evicted, 5); /* bytes: 2; time: 3, 4 are older than 50 */
	assert_int_equal(st.fill_bytes, 10);
	rec_snap_free(s);
}

static void test_snap_trigger_states(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(1000, 0, 0);
	struct rec_batch b;
	uint64_t id;
	/* Empty: nothing to write, nothing held. */
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_EMPTY);
	assert_true(rec_snap_take_wait(s, 20 * MS, &b, &id));
	assert_int_equal(b.count, 0);
	assert_null(b.head);
	assert_int_equal(rec_snap_push(s, msg(0, 0, 10, 0)), BT_OK);
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_TRIGGERED);
	/* Held, not yet taken: refused, even with data waiting. */
	assert_int_equal(rec_snap_push(s, msg(0, 1, 10, 1)), BT_OK);
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_BUSY);
	assert_string_equal(rec_snap_trigger_str(REC_SNAP_BUSY), "snapshot still being written");
	assert_true(rec_snap_take_wait(s, 1000 * MS, &b, &id));
	assert_int_equal(id, 1);
	int64_t want1[] = {0};
	check_free(&b, want1, 1);
	/* Taken, being written: still refused; an empty trigger too. */
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_BUSY);
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	assert_true(st.busy);
	assert_int_equal(st.refused, 2);
	assert_int_equal(st.triggered, 1);
	assert_int_equal(st.released, 0);
	/* Nothing more to take meanwhile. */
	assert_true(rec_snap_take_wait(s, 0, &b, &id));
	assert_int_equal(b.count, 0);
	rec_snap_release(s);
	rec_snap_get_stats(s, &st);
	assert_false(st.busy);
	assert_int_equal(st.released, 1);
	/* The message pushed while busy is in the next snapshot. */
	b = trigger_take(s, 0, 2);
	int64_t want2[] = {1};
	check_free(&b, want2, 1);
	rec_snap_release(s);
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_EMPTY);
	rec_snap_free(s);
}

static void test_snap_close(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(1000, 0, 0);
	assert_int_equal(rec_snap_push(s, msg(0, 0, 10, 0)), BT_OK);
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_TRIGGERED);
	assert_int_equal(rec_snap_push(s, msg(0, 1, 10, 1)), BT_OK);
	rec_snap_close(s);
	assert_int_equal(rec_snap_push(s, msg(0, 2, 10, 2)), BT_ERR_STATE);
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_CLOSED);
	/* The held snapshot is still handed out, then the consumer finishes
	 * without waiting; the buffer (seq 1) is freed with the snap. */
	struct rec_batch b;
	uint64_t id;
	assert_true(rec_snap_take_wait(s, 5000 * MS, &b, &id));
	assert_int_equal(b.count, 1);
	rec_msg_free_list(b.head);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_false(rec_snap_take_wait(s, 5000 * MS, &b, &id));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 2);
	assert_int_equal(b.count, 0);
	rec_snap_release(s);
	rec_snap_free(s);
}

static void trigger_later(void *arg)
{
	assert_int_equal(rec_snap_trigger(arg, 0, NULL), REC_SNAP_TRIGGERED);
}

static void wake_later(void *arg)
{
	rec_snap_wake(arg);
}

static void test_snap_wait(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(1000, 0, 0);
	struct rec_batch b;
	uint64_t id;
	assert_int_equal(rec_snap_push(s, msg(0, 0, 10, 0)), BT_OK);
	/* A trigger from another thread ends the consumer's wait. */
	struct cf_later th;
	cf_later_start(&th, trigger_later, s);
	assert_true(rec_snap_take_wait(s, 10000 * MS, &b, &id));
	cf_later_join(&th);
	assert_int_equal(b.count, 1);
	rec_msg_free_list(b.head);
	rec_snap_release(s);
	/* So does a wake-up, with nothing in it. */
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	cf_later_start(&th, wake_later, s);
	assert_true(rec_snap_take_wait(s, 10000 * MS, &b, &id));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cf_later_join(&th);
	assert_int_equal(b.count, 0);
	assert_true(t1.tv_sec - t0.tv_sec < 5);
	rec_snap_free(s);
}

/* ---- snapshot-post ---- */

static void test_snap_post(void **state)
{
	(void)state;
	/* Window of 1000 ns after the trigger at T = 10000. */
	struct rec_snap *s = snap_new(1000, 0, 1000);
	const int64_t T = 10000, G = REC_SNAP_POST_GRACE_NS;
	assert_int_equal(rec_snap_push(s, msg(0, 1, 10, 9000)), BT_OK);
	struct rec_batch b = trigger_take(s, T, 1);
	rec_msg_free_list(b.head);
	/* Stamped before the trigger but pushed after the flip: it belongs
	 * to this file, in the post list. Up to T + 1000 inclusive. */
	assert_int_equal(rec_snap_push(s, msg(0, 2, 10, 9999)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(0, 3, 10, 10500)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(0, 4, 10, 11000)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(0, 5, 10, 11001)), BT_OK); /* buffer */
	assert_int_equal(rec_snap_fill(s), 10);
	assert_true(rec_snap_post_take(s, 10600, &b));
	int64_t w1[] = {2, 3, 4};
	check_free(&b, w1, 3);
	/* A trigger during the window: the file is not finished. */
	assert_int_equal(rec_snap_trigger(s, 10700, NULL), REC_SNAP_BUSY);
	assert_int_equal(rec_snap_push(s, msg(1, 6, 10, 10800)), BT_OK);
	/* Open until now is past the end plus the grace. */
	assert_true(rec_snap_post_take(s, T + 1000 + G, &b));
	int64_t w2[] = {6};
	check_free(&b, w2, 1);
	assert_int_equal(rec_snap_push(s, msg(1, 7, 10, 10900)), BT_OK); /* in the grace */
	assert_false(rec_snap_post_take(s, T + 1000 + G + 1, &b));
	int64_t w3[] = {7};
	check_free(&b, w3, 1);
	/* Closed: a late one (stamped inside) goes to the buffer. */
	assert_int_equal(rec_snap_push(s, msg(1, 8, 10, 10950)), BT_OK);
	assert_false(rec_snap_post_take(s, T + 1000 + G + 2, &b));
	assert_int_equal(b.count, 0);
	rec_snap_release(s);
	b = trigger_take(s, 20000, 2);
	int64_t w4[] = {8, 5}; /* by recv_time, not arrival */
	check_free(&b, w4, 2);
	rec_snap_release(s);
	rec_snap_free(s);
}

static void test_snap_post_limits(void **state)
{
	(void)state;
	/* No window: post_take says so at once. */
	struct rec_snap *s = snap_new(100, 0, 0);
	struct rec_batch b;
	assert_int_equal(rec_snap_push(s, msg(0, 0, 10, 0)), BT_OK);
	rec_msg_free_list(trigger_take(s, 0, 1).head);
	assert_int_equal(rec_snap_push(s, msg(0, 1, 10, 1)), BT_OK); /* buffer */
	assert_false(rec_snap_post_take(s, 0, &b));
	assert_int_equal(b.count, 0);
	rec_snap_release(s);
	assert_int_equal(rec_snap_fill(s), 10);
	rec_snap_free(s);
	/* The post list is bounded (not circular: the window is exact or
	 * refused); an early release discards what is left, counted. */
	s = snap_new(100, 0, 1000000);
	assert_int_equal(rec_snap_push(s, msg(0, 0, 10, 0)), BT_OK);
	rec_msg_free_list(trigger_take(s, 0, 1).head);
	for (int64_t i = 1; i <= 4; i++)
		assert_int_equal(rec_snap_push(s, msg(0, i, 25, i)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(0, 5, 1, 5)), BT_ERR_FULL);
	assert_int_equal(rec_snap_push(s, msg(0, 6, 101, 6)), BT_ERR_TOOBIG);
	assert_int_equal(rec_snap_fill(s), 0);
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.post_full, 1);
	assert_int_equal(st.toobig, 1);
	assert_true(st.post_open);
	assert_true(rec_snap_post_take(s, 100, &b));
	assert_int_equal(b.count, 4);
	rec_msg_free_list(b.head);
	assert_int_equal(rec_snap_push(s, msg(0, 7, 50, 7)), BT_OK); /* room again */
	assert_int_equal(rec_snap_push(s, msg(0, 8, 50, 8)), BT_OK);
	rec_snap_release(s);
	rec_snap_get_stats(s, &st);
	assert_int_equal(st.post_discarded, 2);
	assert_false(st.post_open);
	assert_false(st.busy);
	/* Close ends a window at once. */
	assert_int_equal(rec_snap_push(s, msg(0, 9, 10, 2000000)), BT_OK);
	rec_msg_free_list(trigger_take(s, 2000000, 2).head);
	assert_int_equal(rec_snap_push(s, msg(0, 10, 10, 2000001)), BT_OK);
	rec_snap_close(s);
	assert_false(rec_snap_post_take(s, 2000002, &b));
	assert_int_equal(b.count, 1);
	rec_msg_free_list(b.head);
	rec_snap_release(s);
	rec_snap_free(s);
}

/* ---- per-topic windows ---- */

static void topic_set(struct rec_snap *s, uint32_t topic, int64_t before, int64_t after,
		      size_t max_bytes)
{
	struct rec_snap_window w = {before, after, max_bytes};
	rec_snap_topic_set(s, topic, &w);
}

/* Each topic keeps only its own window, evicted by its own time and byte
 * bound; the snapshot holds exactly each window around T, sorted by
 * recv_time; coverage says where memory cut a window short. */
static void test_snap_topic_windows(void **state)
{
	(void)state;
	/* Global: 50 ns before, nothing after; 10000 bytes. */
	struct rec_snap *s = snap_new(10000, 50, 0);
	topic_set(s, 1, 40, 30, 100); /* 40 before, 30 after, 100 bytes of its own */
	topic_set(s, 2, 0, 40, 0);    /* after the trigger only */
	/* Topic 3: the defaults (50 before, 0 after). */
	for (int64_t t = 0; t <= 100; t += 10) {
		assert_int_equal(rec_snap_push(s, msg(3, 3000 + t, 10, t)), BT_OK);
		assert_int_equal(rec_snap_push(s, msg(1, 1000 + t, 30, t)), BT_OK);
		assert_int_equal(rec_snap_push(s, msg(2, 2000 + t, 10, t)), BT_OK);
	}
	/* 3: 0..40 out by time; 1: its own 100 bytes keep 80, 90, 100 (70 is
	 * the last evicted for bytes, inside its window); 2: never kept. */
	assert_int_equal(rec_snap_topic_evicted(s, 3), 5);
	assert_int_equal(rec_snap_topic_evicted(s, 1), 8);
	assert_int_equal(rec_snap_topic_evicted(s, 2), 11);
	assert_int_equal(rec_snap_fill(s), 6 * 10 + 3 * 30);
	/* A topic-1 message larger than its own bound: refused. */
	assert_int_equal(rec_snap_push(s, msg(1, 1, 101, 100)), BT_ERR_TOOBIG);
	/* The trigger at 105 trims 3 to >= 55 (50 goes). */
	struct rec_batch b = trigger_take(s, 105, 1);
	int64_t want[] = {3060, 3070, 3080, 1080, 3090, 1090, 3100, 1100}; /* ties: arrival */
	check_free(&b, want, 8);
	assert_int_equal(rec_snap_topic_evicted(s, 3), 6);
	/* After: 1 up to 135 (its own 100 bytes: 60 + 50 does not fit), 2 up
	 * to 145, 3 not at all (to the buffer for the next snapshot). */
	assert_int_equal(rec_snap_push(s, msg(2, 2101, 10, 101)), BT_OK); /* before T: dropped */
	assert_int_equal(rec_snap_push(s, msg(1, 1110, 30, 110)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(3, 3111, 10, 111)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(2, 2120, 10, 120)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(1, 1130, 30, 130)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(1, 1132, 50, 132)), BT_ERR_FULL);
	assert_int_equal(rec_snap_push(s, msg(1, 1136, 30, 136)), BT_OK); /* buffer */
	assert_int_equal(rec_snap_push(s, msg(2, 2145, 10, 145)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(2, 2146, 10, 146)), BT_OK); /* dropped */
	assert_true(rec_snap_post_take(s, 146, &b));
	int64_t post[] = {1110, 2120, 1130, 2145};
	check_free(&b, post, 4);
	assert_false(rec_snap_post_take(s, 145 + REC_SNAP_POST_GRACE_NS + 1, &b));
	assert_int_equal(b.count, 0);
	/* Only topic 1 was cut: 105 - 70 = 35 of 40 before, 132 - 105 = 27
	 * of 30 after. */
	struct rec_snap_cover c[4];
	assert_int_equal(rec_snap_cover_get(s, c, 4), 1);
	assert_int_equal(c[0].topic, 1);
	assert_int_equal(c[0].before_ns, 40);
	assert_int_equal(c[0].before_kept_ns, 35);
	assert_int_equal(c[0].after_ns, 30);
	assert_int_equal(c[0].after_kept_ns, 27);
	rec_snap_release(s);
	assert_int_equal(rec_snap_cover_get(s, c, 4), 0); /* forgotten */
	/* The next snapshot: 3's 111 and 1's 136 (within 40 of 140). */
	b = trigger_take(s, 140, 2);
	int64_t next[] = {3111, 1136};
	check_free(&b, next, 2);
	assert_false(rec_snap_post_take(s, 140 + 40 + REC_SNAP_POST_GRACE_NS + 1, &b));
	assert_int_equal(rec_snap_cover_get(s, c, 4), 0);
	rec_snap_release(s);
	rec_snap_free(s);
}

/* rec_snap_trigger_with: the trigger's own before / after narrow every
 * topic's window; a left-out topic stays buffered (before and after the
 * trigger) for the next snapshot; --before 0 with an after-window is a
 * snapshot of what comes after only. */
static void test_snap_trigger_params(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(10000, 100, 50); /* 100 before, 50 after */
	for (int64_t t = 0; t <= 100; t += 10)
		for (uint32_t topic = 1; topic <= 3; topic++)
			assert_int_equal(rec_snap_push(s, msg(topic, topic * 1000 + t, 10, t)), BT_OK);
	bool skip[3] = {false, false, true}; /* topic 2 left out */
	struct rec_snap_params p = {30, 20, skip, 3, false, NULL};
	struct rec_snap_trigger_info info;
	assert_int_equal(rec_snap_trigger_with(s, 105, &p, &info), REC_SNAP_TRIGGERED);
	assert_int_equal(info.count, 6);
	assert_int_equal(rec_snap_fill(s), 10 * 10); /* topic 2, 10..100 (>= 105 - 100) */
	struct rec_batch b;
	uint64_t id = 0;
	assert_true(rec_snap_take_wait(s, 1000 * MS, &b, &id));
	int64_t want[] = {1080, 3080, 1090, 3090, 1100, 3100};
	check_free(&b, want, 6);
	assert_int_equal(rec_snap_push(s, msg(1, 1110, 10, 110)), BT_OK); /* post */
	assert_int_equal(rec_snap_push(s, msg(2, 2110, 10, 110)), BT_OK); /* left out: buffer */
	assert_int_equal(rec_snap_push(s, msg(1, 1125, 10, 125)), BT_OK); /* post: 105 + 20 */
	assert_int_equal(rec_snap_push(s, msg(3, 3126, 10, 126)), BT_OK); /* after: buffer */
	assert_false(rec_snap_post_take(s, 125 + REC_SNAP_POST_GRACE_NS + 1, &b));
	int64_t post[] = {1110, 1125};
	check_free(&b, post, 2);
	rec_snap_release(s);
	/* As configured: topic 2 from 130 - 100 on, and 3's 126. */
	b = trigger_take(s, 130, 2);
	int64_t next[] = {2030, 2040, 2050, 2060, 2070, 2080, 2090, 2100, 2110, 3126};
	check_free(&b, next, 10);
	assert_false(rec_snap_post_take(s, 130 + 50 + REC_SNAP_POST_GRACE_NS + 1, &b));
	rec_snap_release(s);
	/* Nothing before (an empty buffer), 10 after: still a snapshot. */
	struct rec_snap_params after = {0, 10, NULL, 0, false, NULL};
	assert_int_equal(rec_snap_trigger_with(s, 200, &after, &info), REC_SNAP_TRIGGERED);
	assert_true(rec_snap_take_wait(s, 1000 * MS, &b, &id));
	assert_int_equal(b.count, 0);
	assert_int_equal(rec_snap_push(s, msg(1, 1205, 10, 205)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(1, 1211, 10, 211)), BT_OK); /* after 210 */
	assert_false(rec_snap_post_take(s, 210 + REC_SNAP_POST_GRACE_NS + 1, &b));
	int64_t last[] = {1205};
	check_free(&b, last, 1);
	rec_snap_release(s);
	rec_snap_free(s);
}

/* The global bound evicts the oldest message of all topics (by recv_time),
 * and cuts that topic's window; a window outside the evicted message is
 * not reported. An empty buffer still triggers when a topic's window is
 * after the trigger only. */
static void test_snap_topic_global(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(100, 0, 0);
	topic_set(s, 0, 1000, 0, 0);
	topic_set(s, 1, 5, 0, 0);
	assert_int_equal(rec_snap_push(s, msg(0, 1, 40, 10)), BT_OK);
	assert_int_equal(rec_snap_push(s, msg(1, 2, 40, 5)), BT_OK); /* late, older */
	assert_int_equal(rec_snap_push(s, msg(0, 3, 40, 20)), BT_OK); /* evicts 2 */
	assert_int_equal(rec_snap_topic_evicted(s, 1), 1);
	assert_int_equal(rec_snap_push(s, msg(1, 4, 40, 30)), BT_OK); /* evicts 1 */
	assert_int_equal(rec_snap_topic_evicted(s, 0), 1);
	struct rec_batch b = trigger_take(s, 30, 1);
	int64_t want[] = {3, 4};
	check_free(&b, want, 2);
	struct rec_batch post;
	assert_false(rec_snap_post_take(s, 30, &post));
	/* 0 was cut at 10 (20 of 1000 covered); 1's cut (5) is outside its
	 * window [25, 30]. */
	struct rec_snap_cover c[2];
	assert_int_equal(rec_snap_cover_get(s, c, 2), 1);
	assert_int_equal(c[0].topic, 0);
	assert_int_equal(c[0].before_kept_ns, 20);
	assert_int_equal(c[0].after_kept_ns, 0);
	rec_snap_release(s);
	/* After-only topic: an empty buffer is a snapshot (its post list). */
	assert_int_equal(rec_snap_trigger(s, 40, NULL), REC_SNAP_EMPTY);
	topic_set(s, 2, 0, 10, 0);
	struct rec_snap_trigger_info info;
	assert_int_equal(rec_snap_trigger(s, 40, &info), REC_SNAP_TRIGGERED);
	assert_int_equal(info.count, 0);
	uint64_t id = 0;
	assert_true(rec_snap_take_wait(s, 1000 * MS, &b, &id));
	assert_int_equal(id, 2);
	assert_int_equal(b.count, 0);
	assert_int_equal(rec_snap_push(s, msg(2, 5, 10, 45)), BT_OK);
	assert_false(rec_snap_post_take(s, 50 + REC_SNAP_POST_GRACE_NS + 1, &post));
	int64_t pw[] = {5};
	check_free(&post, pw, 1);
	rec_snap_release(s);
	rec_snap_free(s);
}

/* ---- concurrent producers, triggers in the middle ---- */

#define CP_PRODUCERS 4
#define CP_PUSHES 40000
#define CP_MAX_BYTES 8192u
#define CP_SNAPS 5

static atomic_llong cp_clock;  /* recv_time: one shared, increasing clock */
static atomic_llong cp_pushed; /* all producers */

struct cp_producer {
	struct rec_snap *s;
	uint32_t id;
	pthread_t th;
	uint64_t ok, other;
};

static size_t cp_len(uint32_t id, int64_t seq)
{
	return 1 + (size_t)(seq * 7 + id * 13) % 200u;
}

static void *cp_run(void *arg)
{
	struct cp_producer *p = arg;
	for (int64_t seq = 0; seq < CP_PUSHES; seq++) {
		int64_t t = atomic_fetch_add(&cp_clock, 1);
		bt_status st = rec_snap_push(p->s, msg(p->id, seq, cp_len(p->id, seq), t));
		if (st == BT_OK)
			p->ok++;
		else
			p->other++;
		atomic_fetch_add(&cp_pushed, 1);
		if (seq % 64 == 0)
			usleep(10);
	}
	return NULL;
}

struct cp_seen {
	uint64_t count;
	uint64_t post; /* of them, in post lists */
	int64_t last; /* highest seq seen in earlier snapshots + this one */
	bool bad;
};

/* Each snapshot: per producer, sequence numbers increase, and all are
 * newer than every earlier snapshot's (the flip splits each producer's
 * stream at one point); lengths are intact; the bound holds. */
static void cp_check(const struct rec_batch *b, struct cp_seen *seen)
{
	size_t bytes = 0, count = 0;
	for (const struct rec_msg *m = b->head; m != NULL; m = m->next, count++) {
		struct cp_seen *s = &seen[m->topic];
		if (m->writer_sn <= s->last || m->len != cp_len(m->topic, m->writer_sn))
			s->bad = true;
		s->last = m->writer_sn;
		s->count++;
		bytes += m->len;
	}
	assert_int_equal(count, b->count);
	assert_int_equal(bytes, b->bytes);
	assert_true(bytes <= CP_MAX_BYTES);
}

/* A post list: like a snapshot's part, in each producer's order. */
static void cp_check_post(const struct rec_batch *b, struct cp_seen *seen)
{
	for (const struct rec_msg *m = b->head; m != NULL; m = m->next)
		seen[m->topic].post++;
	cp_check(b, seen);
}

/* The clock and the count at 0, nothing seen, the producers pushing. */
static void cp_start(struct rec_snap *s, struct cp_producer *p, struct cp_seen *seen)
{
	atomic_store(&cp_clock, 0);
	atomic_store(&cp_pushed, 0);
	for (uint32_t i = 0; i < CP_PRODUCERS; i++) {
		p[i] = (struct cp_producer){.s = s, .id = i};
		seen[i] = (struct cp_seen){.last = -1};
		assert_int_equal(pthread_create(&p[i].th, NULL, cp_run, &p[i]), 0);
	}
}

/* Waits for every producer to have pushed all it pushes. */
static void cp_join(struct cp_producer *p)
{
	for (int i = 0; i < CP_PRODUCERS; i++)
		assert_int_equal(pthread_join(p[i].th, NULL), 0);
}

/* Triggers until accepted (a snapshot may still be held), takes it. */
static void cp_snapshot(struct rec_snap *s, struct cp_seen *seen, uint64_t *refused)
{
	enum rec_snap_trigger_result r;
	while ((r = rec_snap_trigger(s, 0, NULL)) != REC_SNAP_TRIGGERED) {
		assert_int_equal(r, REC_SNAP_BUSY);
		++*refused;
		struct rec_batch none;
		assert_true(rec_snap_take_wait(s, 0, &none, NULL));
		assert_int_equal(none.count, 0);
		rec_snap_release(s); /* the "write" is over */
	}
	/* Another trigger now is refused: the snapshot is held. */
	assert_int_equal(rec_snap_trigger(s, 0, NULL), REC_SNAP_BUSY);
	++*refused;
	struct rec_batch b;
	assert_true(rec_snap_take_wait(s, 1000 * MS, &b, NULL));
	assert_true(b.count > 0);
	cp_check(&b, seen);
	rec_msg_free_list(b.head);
}

static void test_snap_concurrent(void **state)
{
	(void)state;
	struct rec_snap *s = snap_new(CP_MAX_BYTES, 0, 0);
	struct cp_producer p[CP_PRODUCERS];
	struct cp_seen seen[CP_PRODUCERS];
	cp_start(s, p, seen);
	const long long total = (long long)CP_PRODUCERS * CP_PUSHES;
	uint64_t refused = 0, snaps = 0;
	for (int k = 1; k <= CP_SNAPS; k++) {
		/* Trigger at k/(SNAPS+1) of the run, while producers push. */
		while (atomic_load(&cp_pushed) < total * k / (CP_SNAPS + 1))
			usleep(100);
		cp_snapshot(s, seen, &refused);
		snaps++;
		if (k % 2 == 0)
			rec_snap_release(s); /* odd ones stay held a while */
	}
	cp_join(p);
	/* The rest: the buffer after the last flip. */
	cp_snapshot(s, seen, &refused);
	rec_snap_release(s);
	snaps++;
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	uint64_t evicted = 0, kept = 0;
	for (uint32_t i = 0; i < CP_PRODUCERS; i++) {
		assert_int_equal(p[i].other, 0);
		assert_int_equal(p[i].ok, CP_PUSHES);
		assert_false(seen[i].bad);
		/* Exactly: every message is in one snapshot or was evicted. */
		assert_int_equal(seen[i].count + rec_snap_topic_evicted(s, i), CP_PUSHES);
		evicted += rec_snap_topic_evicted(s, i);
		kept += seen[i].count;
	}
	assert_int_equal(st.evicted, evicted);
	assert_int_equal(st.triggered, snaps);
	assert_int_equal(st.refused, refused);
	assert_int_equal(st.fill_count, 0);
	printf("  %llu in %llu snapshots, %llu evicted, %llu refused triggers\n",
	       (unsigned long long)kept, (unsigned long long)snaps, (unsigned long long)evicted,
	       (unsigned long long)refused);
	assert_true(evicted > 0);
	rec_snap_free(s);
}

/* The post window under concurrent producers: the snapshot, its post
 * messages, the next buffer and the evictions add up exactly; every post
 * message is inside the window; each producer's stream is split in order
 * (snapshot < post < next buffer). */
static void cp_take_post(struct rec_snap *s, int64_t end, struct cp_seen *seen)
{
	struct rec_batch b;
	bool open;
	do {
		usleep(200);
		/* The test's clock is a counter: no grace is needed. */
		int64_t now = atomic_load(&cp_clock) + REC_SNAP_POST_GRACE_NS;
		open = rec_snap_post_take(s, now, &b);
		for (const struct rec_msg *m = b.head; m != NULL; m = m->next)
			assert_true(m->recv_time <= end);
		cp_check_post(&b, seen);
		rec_msg_free_list(b.head);
	} while (open);
}

static void test_snap_concurrent_post(void **state)
{
	(void)state;
	const int64_t post = 20000; /* clock ticks: some 5000 pushes each */
	struct rec_snap *s = snap_new(CP_MAX_BYTES, 0, post);
	struct cp_producer p[CP_PRODUCERS];
	struct cp_seen seen[CP_PRODUCERS];
	cp_start(s, p, seen);
	while (atomic_load(&cp_pushed) < (long long)CP_PRODUCERS * CP_PUSHES / 4)
		usleep(100);
	int64_t now = atomic_load(&cp_clock);
	uint64_t refused = 0;
	struct rec_snap_trigger_info info;
	assert_int_equal(rec_snap_trigger(s, now, &info), REC_SNAP_TRIGGERED);
	struct rec_batch b;
	assert_true(rec_snap_take_wait(s, 1000 * MS, &b, NULL));
	cp_check(&b, seen);
	rec_msg_free_list(b.head);
	cp_take_post(s, now + post, seen);
	rec_snap_release(s);
	cp_join(p);
	cp_snapshot(s, seen, &refused);
	rec_snap_release(s);
	struct rec_snap_stats st;
	rec_snap_get_stats(s, &st);
	uint64_t post_n = 0;
	for (uint32_t i = 0; i < CP_PRODUCERS; i++) {
		assert_int_equal(p[i].other + p[i].ok, CP_PUSHES);
		assert_false(seen[i].bad);
		/* Refused pushes are post-list overflows, counted as such. */
		assert_int_equal(seen[i].count + rec_snap_topic_evicted(s, i) + p[i].other,
				 CP_PUSHES);
		post_n += seen[i].post;
	}
	assert_int_equal(st.post_full, p[0].other + p[1].other + p[2].other + p[3].other);
	assert_int_equal(st.post_discarded, 0);
	printf("  %llu post messages, %llu post refused\n", (unsigned long long)post_n,
	       (unsigned long long)st.post_full);
	assert_true(post_n > 0);
	rec_snap_free(s);
}

TU_MAIN(
	cmocka_unit_test(test_snap_byte_bound),
	cmocka_unit_test(test_snap_oversized),
	cmocka_unit_test(test_snap_time_bound),
	cmocka_unit_test(test_snap_both_bounds),
	cmocka_unit_test(test_snap_trigger_states),
	cmocka_unit_test(test_snap_close),
	cmocka_unit_test(test_snap_wait),
	cmocka_unit_test(test_snap_post),
	cmocka_unit_test(test_snap_post_limits),
	cmocka_unit_test(test_snap_topic_windows),
	cmocka_unit_test(test_snap_topic_global),
	cmocka_unit_test(test_snap_trigger_params),
	cmocka_unit_test(test_snap_concurrent),
	cmocka_unit_test(test_snap_concurrent_post))
