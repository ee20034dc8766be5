/* rec_repeat: at a split the repeated messages open the new file, restamped
 * to T_last, exactly once (also when the message is still on its way
 * through the cache); in a snapshot they are merged in timestamp order —
 * older ones restamped to T_earliest and first, in-window ones not
 * duplicated — and an empty snapshot stays empty. The last tests run the
 * real rec_tl and rec_snap through a consumer's steps. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec_repeat.h"
#include "rec_snap.h"
#include "rec_tl.h"
#include "core_fixture.h"
#include "test_util.h"

static struct rec_msg *msg(uint32_t topic, int64_t seq, size_t len, int64_t t)
{
	return cf_msg(topic, seq, len, t, t);
}

/* What a file received: (topic, seq, timestamp) in write order. */
struct wrote {
	uint32_t topic;
	int64_t seq;
	int64_t ts;
};

struct file {
	struct wrote w[256];
	size_t n;
};

static void check_list(const struct rec_batch *b, const struct wrote *want, size_t n)
{
	size_t i = 0;
	for (const struct rec_msg *m = b->head; m != NULL && i < n; m = m->next, i++)
		if (m->topic != want[i].topic || m->writer_sn != want[i].seq ||
		    m->recv_time != want[i].ts)
			fail_msg("entry %zu: got (%u, %lld, %lld), want (%u, %lld, %lld)", i,
				 m->topic, (long long)m->writer_sn, (long long)m->recv_time,
				 want[i].topic, (long long)want[i].seq, (long long)want[i].ts);
	cf_check_batch(b, n);
}

/* Does `seen` know m once its writer_sn and recv_time are these (its
 * other fields as they are)? */
static bool seen_as(const struct rec_repeat_seen *seen, struct rec_msg *m, int64_t sn,
		    int64_t recv_time)
{
	m->writer_sn = sn;
	m->recv_time = recv_time;
	return rec_repeat_seen_has(seen, m);
}

/* ---- split ---- */

static void test_repeat_split(void **state)
{
	(void)state;
	struct rec_tl *tl = rec_tl_new();
	assert_int_equal(rec_tl_set_depth(tl, 1, 1), BT_OK); /* /map */
	assert_int_equal(rec_tl_set_depth(tl, 2, 5), BT_OK); /* /tf_static */
	for (int64_t i = 1; i <= 7; i++) {
		struct rec_msg *m = msg(2, i, 10, i);
		rec_tl_offer(tl, m);
		rec_msg_free(m);
	}
	struct rec_msg *map = msg(1, 1, 100, 5);
	rec_tl_offer(tl, map);
	struct rec_batch rep, out;
	assert_int_equal(rec_tl_copy(tl, &rep), 0);
	struct rec_repeat_seen *seen = rec_repeat_seen_new();
	assert_int_equal(rec_repeat_for_split(&rep, 100, seen, &out), 0);
	assert_int_equal(rep.count, 0);
	assert_null(rep.head);
	/* Each topic's last N, in their original order (ties: offer order),
	 * all at T_last. */
	struct wrote want[] = {{2, 3, 100}, {2, 4, 100}, {2, 5, 100},
			       {1, 1, 100}, {2, 6, 100}, {2, 7, 100}};
	check_list(&out, want, 6);
	for (const struct rec_msg *m = out.head; m != NULL; m = m->next)
		assert_int_equal(m->source_time, 100);
	assert_int_equal(rec_repeat_seen_count(seen), 6);
	/* The seen set knows them by their original identity. */
	assert_true(rec_repeat_seen_has(seen, map));
	assert_false(seen_as(seen, map, 2, 5)); /* a re-publish: another message */
	assert_false(seen_as(seen, map, 1, 6));
	map->len = 99;
	assert_false(seen_as(seen, map, 1, 5));
	rec_msg_free(map);
	rec_msg_free_list(out.head);
	/* Nothing marked: nothing repeated, the set empties. */
	struct rec_tl *none = rec_tl_new();
	assert_int_equal(rec_tl_copy(none, &rep), 0);
	assert_int_equal(rec_repeat_for_split(&rep, 200, seen, &out), 0);
	assert_int_equal(out.count, 0);
	assert_null(out.head);
	assert_int_equal(rec_repeat_seen_count(seen), 0);
	rec_tl_free(none);
	/* T_last unknown: the original times stay. */
	assert_int_equal(rec_tl_copy(tl, &rep), 0);
	assert_int_equal(rec_repeat_for_split(&rep, REC_REPEAT_KEEP_TIME, seen, &out), 0);
	struct wrote keep[] = {{2, 3, 3}, {2, 4, 4}, {2, 5, 5}, {1, 1, 5}, {2, 6, 6}, {2, 7, 7}};
	check_list(&out, keep, 6);
	rec_msg_free_list(out.head);
	rec_repeat_seen_free(seen);
	rec_tl_free(tl);
}

/* A consumer in miniature: files of (topic, seq, timestamp); the TL store
 * is fed by the "producer" when a message arrives, the file when the
 * "consumer" writes it; a split repeats. */
struct sim {
	struct rec_tl *tl;
	struct rec_repeat_seen *seen;
	struct file files[8];
	size_t cur;
	int64_t t_last;
	size_t skipped;
	struct rec_batch pending; /* arrived, not yet written (the cache) */
};

static void sim_write(struct sim *s, const struct rec_msg *m)
{
	struct file *f = &s->files[s->cur];
	assert_true(f->n < 256);
	f->w[f->n++] = (struct wrote){m->topic, m->writer_sn, m->recv_time};
	s->t_last = m->recv_time;
}

static void sim_arrive(struct sim *s, uint32_t topic, int64_t seq, int64_t t)
{
	struct rec_msg *m = msg(topic, seq, 8, t);
	rec_tl_offer(s->tl, m);
	rec_batch_append(&s->pending, m);
}

/* The consumer writes what waits, skipping what the repeat already put
 * into this file. */
static void sim_drain(struct sim *s)
{
	for (struct rec_msg *m = s->pending.head; m != NULL; m = m->next) {
		if (rec_repeat_seen_has(s->seen, m))
			s->skipped++;
		else
			sim_write(s, m);
	}
	rec_msg_free_list(s->pending.head);
	s->pending = (struct rec_batch){0};
}

static void sim_split(struct sim *s)
{
	s->cur++;
	struct rec_batch rep, out;
	assert_int_equal(rec_tl_copy(s->tl, &rep), 0);
	assert_int_equal(rec_repeat_for_split(&rep, s->t_last, s->seen, &out), 0);
	for (const struct rec_msg *m = out.head; m != NULL; m = m->next)
		sim_write(s, m);
	rec_msg_free_list(out.head);
}

/* The file's first n writes are `want`, in that order. */
static void file_starts_with(const struct file *f, const struct wrote *want, size_t n)
{
	assert_true(f->n >= n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(f->w[i].topic, want[i].topic);
		assert_int_equal(f->w[i].seq, want[i].seq);
		assert_int_equal(f->w[i].ts, want[i].ts);
	}
}

/* Counts (topic, seq) in a file. */
static size_t file_has(const struct file *f, uint32_t topic, int64_t seq, int64_t *ts)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		if (f->w[i].topic == topic && f->w[i].seq == seq) {
			n++;
			*ts = f->w[i].ts;
		}
	return n;
}

static void test_repeat_split_files(void **state)
{
	(void)state;
	enum { TF = 0, FAST = 1, MAP = 2 };
	struct sim s = {.tl = rec_tl_new(), .seen = rec_repeat_seen_new()};
	assert_int_equal(rec_tl_set_depth(s.tl, TF, 1), BT_OK);
	assert_int_equal(rec_tl_set_depth(s.tl, MAP, 5), BT_OK);
	/* File 0: /tf_static once at start, /map twice, a fast topic. */
	sim_arrive(&s, TF, 1, 1);
	sim_arrive(&s, MAP, 1, 2);
	sim_arrive(&s, MAP, 2, 3);
	for (int64_t t = 4; t <= 10; t++)
		sim_arrive(&s, FAST, t, t);
	sim_drain(&s);
	sim_split(&s);
	/* File 1: a /tf_static re-publish (new sequence number). */
	for (int64_t t = 11; t <= 20; t++) {
		sim_arrive(&s, FAST, t, t);
		if (t == 15)
			sim_arrive(&s, TF, 2, 15);
	}
	sim_drain(&s);
	sim_split(&s);
	/* File 2: /tf_static 3 arrives (offered) but the split comes before
	 * the consumer writes it: it is repeated, and not written again. */
	for (int64_t t = 21; t <= 24; t++)
		sim_arrive(&s, FAST, t, t);
	sim_drain(&s);
	sim_arrive(&s, TF, 3, 25);
	sim_split(&s); /* T_last = 24 */
	sim_arrive(&s, FAST, 26, 26);
	sim_drain(&s);
	int64_t ts = 0;
	/* File 0 is what happened, nothing repeated. */
	assert_int_equal(s.files[0].n, 10);
	assert_int_equal(file_has(&s.files[0], TF, 1, &ts), 1);
	/* File 1 starts with /tf_static 1 and both /map at T_last = 10, then
	 * records the re-publish once, at its own time. */
	const struct file *f1 = &s.files[1];
	assert_int_equal(f1->n, 3 + 10 + 1);
	file_starts_with(f1, (const struct wrote[]){{TF, 1, 10}, {MAP, 1, 10}, {MAP, 2, 10}}, 3);
	assert_int_equal(file_has(f1, TF, 2, &ts), 1);
	assert_int_equal(ts, 15);
	/* File 2: the newest /tf_static (depth 1) after both /map (original
	 * order), all at T_last = 20, once. */
	const struct file *f2 = &s.files[2];
	file_starts_with(f2, (const struct wrote[]){{MAP, 1, 20}, {MAP, 2, 20}, {TF, 2, 20}}, 3);
	assert_int_equal(file_has(f2, TF, 1, &ts), 0);
	assert_int_equal(file_has(f2, TF, 2, &ts), 1);
	assert_int_equal(file_has(f2, MAP, 2, &ts), 1);
	assert_int_equal(f2->n, 3 + 4);
	/* File 3: /tf_static 3 exactly once, at the start (T_last = 24). */
	const struct file *f3 = &s.files[3];
	assert_int_equal(file_has(f3, TF, 3, &ts), 1);
	assert_int_equal(ts, 24);
	assert_int_equal(f3->w[2].topic, TF);
	assert_int_equal(f3->w[2].seq, 3);
	assert_int_equal(file_has(f3, TF, 2, &ts), 0);
	assert_int_equal(file_has(f3, FAST, 26, &ts), 1);
	assert_int_equal(f3->n, 3 + 1);
	assert_int_equal(s.skipped, 1);
	rec_repeat_seen_free(s.seen);
	rec_tl_free(s.tl);
}

/* ---- snapshot ---- */

static void test_repeat_snapshot_merge(void **state)
{
	(void)state;
	enum { X = 0, A = 1, B = 2, C = 3 };
	struct rec_batch tl = {0}, batch = {0}, out;
	/* The store's copies, sorted by recv_time: A depth 1, B depth 5, C 1. */
	rec_batch_append(&tl, msg(B, 2, 4, 2));
	rec_batch_append(&tl, msg(B, 4, 4, 4));
	rec_batch_append(&tl, msg(A, 1, 40, 5));
	rec_batch_append(&tl, msg(B, 6, 4, 6));
	rec_batch_append(&tl, msg(B, 12, 4, 12)); /* also in the batch */
	rec_batch_append(&tl, msg(B, 14, 4, 14)); /* in the window, not in the batch */
	rec_batch_append(&tl, msg(C, 1, 4, 30));  /* after the window */
	rec_batch_append(&batch, msg(X, 10, 8, 10));
	struct rec_msg *b12 = msg(B, 12, 4, 12);
	rec_batch_append(&batch, b12);
	rec_batch_append(&batch, msg(X, 13, 8, 13));
	rec_batch_append(&batch, msg(X, 15, 8, 15));
	rec_batch_append(&batch, msg(X, 20, 8, 20));
	struct rec_repeat_seen *seen = rec_repeat_seen_new();
	assert_int_equal(rec_repeat_for_snapshot(&batch, &tl, seen, &out), 0);
	assert_int_equal(batch.count, 0);
	assert_null(batch.head);
	assert_int_equal(tl.count, 0);
	assert_null(tl.head);
	struct wrote want[] = {
		{B, 2, 10}, {B, 4, 10}, {A, 1, 10}, {B, 6, 10}, /* restamped, first */
		{X, 10, 10}, {B, 12, 12}, {X, 13, 13}, {B, 14, 14}, {X, 15, 15}, {X, 20, 20},
	};
	check_list(&out, want, 10);
	/* The batch's own copy was kept (not the store's). */
	assert_ptr_equal(out.head->next->next->next->next->next, b12);
	int64_t last = INT64_MIN;
	for (const struct rec_msg *m = out.head; m != NULL; m = m->next) {
		assert_true(m->recv_time >= last);
		last = m->recv_time;
	}
	/* Seen: the five put in (by original identity), not the batch's. */
	assert_int_equal(rec_repeat_seen_count(seen), 5);
	struct rec_msg *probe = msg(B, 14, 4, 14);
	assert_true(rec_repeat_seen_has(seen, probe));
	assert_true(seen_as(seen, probe, 2, 2));
	assert_false(seen_as(seen, probe, 12, 12));
	rec_msg_free(probe);
	probe = msg(C, 1, 4, 30);
	assert_false(rec_repeat_seen_has(seen, probe));
	rec_msg_free(probe);
	rec_msg_free_list(out.head);
	rec_repeat_seen_free(seen);
}

static void test_repeat_snapshot_edges(void **state)
{
	(void)state;
	struct rec_repeat_seen *seen = rec_repeat_seen_new();
	struct rec_batch tl = {0}, batch = {0}, out;
	/* Only TL messages, empty buffer: nothing (the trigger said empty). */
	rec_batch_append(&tl, msg(1, 1, 4, 1));
	assert_int_equal(rec_repeat_for_snapshot(&batch, &tl, seen, &out), 0);
	assert_int_equal(out.count, 0);
	assert_null(out.head);
	assert_null(tl.head);
	assert_int_equal(rec_repeat_seen_count(seen), 0);
	/* No TL messages: the batch as it is. */
	rec_batch_append(&batch, msg(0, 1, 4, 5));
	rec_batch_append(&batch, msg(0, 2, 4, 3)); /* out of order: kept so */
	struct rec_msg *first = batch.head;
	assert_int_equal(rec_repeat_for_snapshot(&batch, &tl, seen, &out), 0);
	struct wrote w1[] = {{0, 1, 5}, {0, 2, 3}};
	check_list(&out, w1, 2);
	assert_ptr_equal(out.head, first);
	rec_msg_free_list(out.head);
	/* Same topic and time, another sequence number: another message.
	 * T_earliest is the smallest time in the batch; ties: batch first. */
	rec_batch_append(&batch, msg(0, 1, 4, 12));
	rec_batch_append(&batch, msg(1, 7, 4, 12));
	rec_batch_append(&batch, msg(0, 2, 4, 11));
	rec_batch_append(&batch, msg(0, 3, 4, 13));
	rec_batch_append(&tl, msg(1, 5, 4, 3));
	rec_batch_append(&tl, msg(1, 8, 4, 12));
	assert_int_equal(rec_repeat_for_snapshot(&batch, &tl, seen, &out), 0);
	struct wrote w2[] = {{1, 5, 11}, {0, 1, 12}, {1, 7, 12}, {0, 2, 11}, {1, 8, 12},
			     {0, 3, 13}};
	check_list(&out, w2, 6);
	assert_int_equal(rec_repeat_seen_count(seen), 2);
	rec_msg_free_list(out.head);
	rec_repeat_seen_free(seen);
}

/* The scenario with the real parts: /tf_static at the start, then
 * enough traffic to evict it from a small circular cache; a trigger puts it
 * in the snapshot once, at T_earliest; re-published inside the window it
 * is there once, at its own time. */
static void test_repeat_snapshot_end_to_end(void **state)
{
	(void)state;
	enum { TF = 0, FAST = 1 };
	struct rec_snap_options o = {.max_bytes = 1000};
	struct rec_snap *snap = rec_snap_new(&o);
	struct rec_tl *tl = rec_tl_new();
	struct rec_repeat_seen *seen = rec_repeat_seen_new();
	assert_int_equal(rec_tl_set_depth(tl, TF, 1), BT_OK);
	int64_t t = 0;
	/* The producers' order: offer (a copy), then push (moves m). */
#define ARRIVE(topic, seq, len)                                                  \
	do {                                                                     \
		struct rec_msg *m_ = msg(topic, seq, len, ++t);                  \
		rec_tl_offer(tl, m_);                                            \
		assert_int_equal(rec_snap_push(snap, m_), BT_OK);                \
	} while (0)
	ARRIVE(TF, 1, 50);
	for (int64_t i = 0; i < 30; i++)
		ARRIVE(FAST, i, 100);
	assert_true(rec_snap_topic_evicted(snap, TF) == 1);
	struct rec_batch b, rep, out;
	assert_int_equal(rec_snap_trigger(snap, t, NULL), REC_SNAP_TRIGGERED);
	assert_true(rec_snap_take_wait(snap, 0, &b, NULL));
	assert_int_equal(b.count, 10);
	assert_int_equal(rec_tl_copy(tl, &rep), 0);
	assert_int_equal(rec_repeat_for_snapshot(&b, &rep, seen, &out), 0);
	assert_int_equal(out.count, 11);
	assert_int_equal(out.head->topic, TF);
	assert_int_equal(out.head->recv_time, out.head->next->recv_time); /* T_earliest */
	assert_int_equal(out.head->recv_time, 22);
	rec_msg_free_list(out.head);
	rec_snap_release(snap);
	/* Re-published inside the next window: once, with its own time. */
	for (int64_t i = 30; i < 33; i++)
		ARRIVE(FAST, i, 100);
	ARRIVE(TF, 2, 50);
	int64_t tf_time = t;
	ARRIVE(FAST, 33, 100);
	assert_int_equal(rec_snap_trigger(snap, t, NULL), REC_SNAP_TRIGGERED);
	assert_true(rec_snap_take_wait(snap, 0, &b, NULL));
	assert_int_equal(rec_tl_copy(tl, &rep), 0);
	assert_int_equal(rec_repeat_for_snapshot(&b, &rep, seen, &out), 0);
	size_t tf = 0;
	for (const struct rec_msg *m = out.head; m != NULL; m = m->next)
		if (m->topic == TF) {
			tf++;
			assert_int_equal(m->writer_sn, 2);
			assert_int_equal(m->recv_time, tf_time);
		}
	assert_int_equal(tf, 1);
	assert_int_equal(out.count, 5);
	rec_msg_free_list(out.head);
	rec_snap_release(snap);
#undef ARRIVE
	rec_repeat_seen_free(seen);
	rec_tl_free(tl);
	rec_snap_free(snap);
}

/* The post window: a TL message offered before the flip but pushed after
 * it lands in the post list; the merge already put it into the file, and
 * the seen set keeps it from being written twice. A TL message larger
 * than the whole cache still reaches the snapshot. */
static void test_repeat_snapshot_post(void **state)
{
	(void)state;
	enum { TF = 0, FAST = 1, MAP = 2 };
	struct rec_snap_options o = {.max_bytes = 1000, .post_ns = 100};
	struct rec_snap *snap = rec_snap_new(&o);
	struct rec_tl *tl = rec_tl_new();
	struct rec_repeat_seen *seen = rec_repeat_seen_new();
	assert_int_equal(rec_tl_set_depth(tl, TF, 1), BT_OK);
	assert_int_equal(rec_tl_set_depth(tl, MAP, 1), BT_OK);
	for (int64_t i = 1; i <= 5; i++)
		assert_int_equal(rec_snap_push(snap, msg(FAST, i, 10, i * 10)), BT_OK);
	/* /map, 2000 bytes: the cache refuses it, the store keeps it. */
	struct rec_msg *map = msg(MAP, 1, 2000, 25);
	rec_tl_offer(tl, map);
	assert_int_equal(rec_snap_push(snap, map), BT_ERR_TOOBIG);
	/* /tf_static stamped 45, offered; the trigger comes before its push. */
	struct rec_msg *late = msg(TF, 1, 8, 45);
	rec_tl_offer(tl, late);
	assert_int_equal(rec_snap_trigger(snap, 55, NULL), REC_SNAP_TRIGGERED);
	assert_int_equal(rec_snap_push(snap, late), BT_OK); /* post list */
	assert_int_equal(rec_snap_push(snap, msg(FAST, 6, 10, 60)), BT_OK);
	struct rec_batch b, rep, out;
	assert_true(rec_snap_take_wait(snap, 0, &b, NULL));
	assert_int_equal(rec_tl_copy(tl, &rep), 0);
	assert_int_equal(rec_repeat_for_snapshot(&b, &rep, seen, &out), 0);
	/* T_latest is 50: /tf_static (45) is merged in at its time, /map (25)
	 * too. */
	struct wrote want[] = {{FAST, 1, 10}, {FAST, 2, 20}, {MAP, 1, 25}, {FAST, 3, 30},
			       {FAST, 4, 40}, {TF, 1, 45}, {FAST, 5, 50}};
	check_list(&out, want, 7);
	rec_msg_free_list(out.head);
	/* The post messages: the consumer skips the one already written. */
	size_t written = 0, skipped = 0;
	bool open;
	int64_t now = 60;
	do {
		open = rec_snap_post_take(snap, now, &b);
		for (const struct rec_msg *m = b.head; m != NULL; m = m->next) {
			if (rec_repeat_seen_has(seen, m))
				skipped++;
			else
				written++;
		}
		rec_msg_free_list(b.head);
		now += REC_SNAP_POST_GRACE_NS;
	} while (open);
	assert_int_equal(written, 1);
	assert_int_equal(skipped, 1);
	rec_snap_release(snap);
	rec_repeat_seen_free(seen);
	rec_tl_free(tl);
	rec_snap_free(snap);
}

TU_MAIN(
	cmocka_unit_test(test_repeat_split),
	cmocka_unit_test(test_repeat_split_files),
	cmocka_unit_test(test_repeat_snapshot_merge),
	cmocka_unit_test(test_repeat_snapshot_edges),
	cmocka_unit_test(test_repeat_snapshot_end_to_end),
	cmocka_unit_test(test_repeat_snapshot_post))
