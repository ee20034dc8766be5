/* The command queue: bounded (the excess refused at once and counted),
 * every command gets exactly one result (callback or waiter, now or
 * later), order kept, a waiter that times out gives its result up, close
 * and free refuse what is left; concurrent submitters against one consumer
 * (run under TSan in CI). */
#include <pthread.h>
#include <stdio.h>
#include <stdatomic.h>
#include <string.h>

#include "test_util.h"
#include "bt_cmdq.h"
#include "bt_time.h"

#define MS INT64_C(1000000)

struct tally {
	atomic_uint calls, done, refused, failed;
	atomic_ullong last_tag;
	char reason[BT_CMD_REASON_MAX];
};

static void tally_done(void *ctx, const struct bt_cmd *cmd, const struct bt_cmd_result *res)
{
	struct tally *t = ctx;
	atomic_fetch_add(&t->calls, 1);
	if (res->outcome == BT_CMD_DONE)
		atomic_fetch_add(&t->done, 1);
	else if (res->outcome == BT_CMD_REFUSED)
		atomic_fetch_add(&t->refused, 1);
	else
		atomic_fetch_add(&t->failed, 1);
	atomic_store(&t->last_tag, cmd->tag);
	if (res->outcome != BT_CMD_DONE)
		snprintf(t->reason, sizeof t->reason, "%s", res->reason);
}

static struct bt_cmd cmd_n(uint64_t tag)
{
	return (struct bt_cmd){.kind = 1, .tag = tag, .origin = {.kind = BT_CMD_FROM_KEY}};
}

/* capacity 4: the 5th and 6th are refused at once, counted, and told so. */
static void test_bounded(void **state)
{
	(void)state;
	struct bt_cmdq *q = bt_cmdq_new(4);
	assert_non_null(q);
	struct tally t = {0};
	for (uint64_t i = 1; i <= 6; i++) {
		struct bt_cmd c = cmd_n(i);
		bt_status st = bt_cmdq_submit(q, &c, tally_done, &t, NULL);
		assert_int_equal(st, i <= 4 ? BT_OK : BT_ERR_FULL);
	}
	assert_int_equal(atomic_load(&t.refused), 2);
	assert_non_null(strstr(t.reason, "too many commands"));
	struct bt_cmdq_stats s;
	bt_cmdq_get_stats(q, &s);
	assert_int_equal(s.submitted, 4);
	assert_int_equal(s.refused_full, 2);
	assert_int_equal(s.outstanding, 4);
	/* Taken, in order; a taken command still counts until finished. */
	struct bt_cmd c;
	uint64_t ticket;
	assert_true(bt_cmdq_take(q, 0, &c, &ticket));
	assert_int_equal(c.tag, 1);
	struct bt_cmd more = cmd_n(7);
	assert_int_equal(bt_cmdq_submit(q, &more, tally_done, &t, NULL), BT_ERR_FULL);
	struct bt_cmd_result r;
	bt_cmd_result_set(&r, BT_CMD_DONE, "ok");
	bt_cmdq_finish(q, ticket, &r);
	assert_int_equal(atomic_load(&t.done), 1);
	assert_int_equal(atomic_load(&t.last_tag), 1);
	bt_cmdq_finish(q, ticket, &r); /* twice: ignored */
	assert_int_equal(atomic_load(&t.done), 1);
	assert_int_equal(bt_cmdq_submit(q, &more, tally_done, &t, NULL), BT_OK);
	for (uint64_t want = 2; want <= 4; want++) {
		assert_true(bt_cmdq_take(q, 0, &c, &ticket));
		assert_int_equal(c.tag, want);
	}
	/* Closing refuses every later submission; the queued one (7) is
	 * still taken, then none; freeing finishes the four taken ones. */
	bt_cmdq_close(q, "recording has stopped");
	assert_int_equal(bt_cmdq_submit(q, &more, tally_done, &t, NULL), BT_ERR_STATE);
	assert_int_equal(atomic_load(&t.refused), 4);
	assert_string_equal(t.reason, "recording has stopped");
	assert_true(bt_cmdq_take(q, 10 * MS, &c, &ticket));
	assert_int_equal(c.tag, 7);
	assert_false(bt_cmdq_take(q, 10 * MS, &c, &ticket));
	bt_cmdq_free(q);
	/* 2 + 1 refused when full, 1 done, 1 after the close, 4 by free. */
	assert_int_equal(atomic_load(&t.calls), 9);
	assert_int_equal(atomic_load(&t.refused), 8);
	/* Free also refuses what was never taken. */
	q = bt_cmdq_new(2);
	assert_int_equal(bt_cmdq_submit(q, &more, tally_done, &t, NULL), BT_OK);
	bt_cmdq_free(q);
	assert_int_equal(atomic_load(&t.refused), 9);
	assert_string_equal(t.reason, "shutting down");
}

struct consumer {
	struct bt_cmdq *q;
	atomic_bool quit;
	int64_t delay_ns; /* before each finish */
	atomic_uint taken;
};

static void *consume(void *arg)
{
	struct consumer *k = arg;
	while (!atomic_load(&k->quit)) {
		struct bt_cmd c;
		uint64_t ticket;
		if (!bt_cmdq_take(k->q, 20 * MS, &c, &ticket))
			continue;
		atomic_fetch_add(&k->taken, 1);
		if (k->delay_ns > 0) {
			struct timespec ts = bt_time_timespec(k->delay_ns);
			nanosleep(&ts, NULL);
		}
		struct bt_cmd_result r;
		bt_cmd_result_set(&r, BT_CMD_DONE, "done %llu", (unsigned long long)c.tag);
		r.value = (int64_t)c.tag * 2;
		bt_cmdq_finish(k->q, ticket, &r);
	}
	return NULL;
}

/* A waiter gets its own result; one that times out gives it up. */
static void test_call(void **state)
{
	(void)state;
	struct consumer k = {.q = bt_cmdq_new(8)};
	atomic_init(&k.quit, false);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, consume, &k), 0);
	struct bt_cmd c = cmd_n(21);
	struct bt_cmd_result r;
	assert_int_equal(bt_cmdq_call(k.q, &c, 5000 * MS, &r), BT_OK);
	assert_int_equal(r.outcome, BT_CMD_DONE);
	assert_int_equal(r.value, 42);
	assert_string_equal(r.reason, "done 21");
	k.delay_ns = 300 * MS; /* slower than the waiter's patience */
	c = cmd_n(5);
	assert_int_equal(bt_cmdq_call(k.q, &c, 50 * MS, &r), BT_ERR_NOTFOUND);
	assert_int_equal(r.outcome, BT_CMD_FAILED);
	struct bt_cmdq_stats s;
	int64_t end = bt_time_monotonic_ns() + 5000 * MS;
	do { /* the consumer finishes it: the slot comes back */
		bt_cmdq_get_stats(k.q, &s);
	} while (s.outstanding != 0 && bt_time_monotonic_ns() < end);
	assert_int_equal(s.outstanding, 0);
	assert_int_equal(s.abandoned, 1);
	assert_int_equal(s.done, 2);
	atomic_store(&k.quit, true);
	pthread_join(th, NULL);
	bt_cmdq_free(k.q);
}

/* A result can come later, from another thread (a snapshot's file); wake
 * makes a waiting take return at once. */
static void test_deferred(void **state)
{
	(void)state;
	struct bt_cmdq *q = bt_cmdq_new(2);
	struct tally t = {0};
	struct bt_cmd c = cmd_n(9), got;
	uint64_t ticket, t2;
	assert_int_equal(bt_cmdq_submit(q, &c, tally_done, &t, &ticket), BT_OK);
	assert_true(bt_cmdq_take(q, 0, &got, &t2));
	assert_int_equal(t2, ticket);
	bt_cmdq_wake(q);
	int64_t t0 = bt_time_monotonic_ns();
	assert_false(bt_cmdq_take(q, 5000 * MS, &got, &t2));
	assert_true(bt_time_monotonic_ns() - t0 < 2000 * MS);
	assert_int_equal(atomic_load(&t.calls), 0);
	struct bt_cmd_result r;
	bt_cmd_result_set(&r, BT_CMD_DONE, "%s", "");
	snprintf(r.file, sizeof r.file, "/bags/x/x_3.db3");
	r.messages = 120;
	bt_cmdq_finish(q, ticket, &r);
	assert_int_equal(atomic_load(&t.done), 1);
	char line[256];
	c.origin.kind = BT_CMD_FROM_SIGNAL;
	snprintf(c.origin.detail, sizeof c.origin.detail, "SIGUSR1 from pid 123");
	bt_cmd_line("snapshot", &c, &r, line, sizeof line);
	assert_string_equal(line, "snapshot: wrote /bags/x/x_3.db3 (120 messages) (signal SIGUSR1 "
			    "from pid 123)");
	bt_cmd_result_set(&r, BT_CMD_REFUSED, "nothing buffered");
	bt_cmd_line("snapshot", &c, &r, line, sizeof line);
	assert_string_equal(line, "snapshot refused: nothing buffered (signal SIGUSR1 from pid 123)");
	bt_cmd_result_set(&r, BT_CMD_DONE, "recording paused");
	c.origin = (struct bt_cmd_origin){.kind = BT_CMD_FROM_KEY, .detail = "p"};
	bt_cmd_line("pause", &c, &r, line, sizeof line);
	assert_string_equal(line, "recording paused (key p)");
	bt_cmdq_free(q);
}

#define SUBMITTERS 4
#define PER_SUBMITTER 2000

struct submitter {
	struct bt_cmdq *q;
	struct tally *t;
	unsigned id;
	unsigned accepted, refused_now;
	unsigned calls, calls_refused; /* of those, through bt_cmdq_call */
};

/* tally_done without the reason: called on many threads at once. */
static void count_done(void *ctx, const struct bt_cmd *cmd, const struct bt_cmd_result *res)
{
	(void)cmd;
	struct tally *t = ctx;
	atomic_fetch_add(&t->calls, 1);
	atomic_fetch_add(res->outcome == BT_CMD_DONE ? &t->done : &t->refused, 1);
}

static void *submit_many(void *arg)
{
	struct submitter *s = arg;
	for (unsigned i = 0; i < PER_SUBMITTER; i++) {
		struct bt_cmd c = cmd_n((uint64_t)s->id * 1000000 + i);
		struct bt_cmd_result r;
		bool call = i % 16 == 0;
		bt_status st = call ? bt_cmdq_call(s->q, &c, 5000 * MS, &r)
				    : bt_cmdq_submit(s->q, &c, count_done, s->t, NULL);
		s->calls += call;
		if (st == BT_OK)
			s->accepted++;
		else if (st == BT_ERR_FULL)
			s->refused_now++;
		if (call && st == BT_OK)
			assert_int_equal(r.value, (int64_t)c.tag * 2);
		if (call && st == BT_ERR_FULL)
			s->calls_refused++;
	}
	return NULL;
}

/* Four threads submit 8000 commands at once into 16 slots: each accepted
 * one is done once, each refused one told once, the counts add up. */
static void test_concurrent(void **state)
{
	(void)state;
	/* A consumer a little slower than the submitters: the queue fills. */
	struct consumer k = {.q = bt_cmdq_new(16), .delay_ns = 10000};
	atomic_init(&k.quit, false);
	struct tally t = {0};
	pthread_t cons, th[SUBMITTERS];
	struct submitter s[SUBMITTERS];
	assert_int_equal(pthread_create(&cons, NULL, consume, &k), 0);
	for (unsigned i = 0; i < SUBMITTERS; i++) {
		s[i] = (struct submitter){.q = k.q, .t = &t, .id = i + 1};
		assert_int_equal(pthread_create(&th[i], NULL, submit_many, &s[i]), 0);
	}
	unsigned accepted = 0, refused = 0, calls = 0, calls_refused = 0;
	for (unsigned i = 0; i < SUBMITTERS; i++) {
		pthread_join(th[i], NULL);
		accepted += s[i].accepted;
		refused += s[i].refused_now;
		calls += s[i].calls;
		calls_refused += s[i].calls_refused;
	}
	struct bt_cmdq_stats st;
	int64_t end = bt_time_monotonic_ns() + 10000 * MS;
	do {
		bt_cmdq_get_stats(k.q, &st);
	} while (st.outstanding != 0 && bt_time_monotonic_ns() < end);
	atomic_store(&k.quit, true);
	pthread_join(cons, NULL);
	assert_int_equal(accepted + refused, SUBMITTERS * PER_SUBMITTER);
	assert_int_equal(st.submitted, accepted);
	assert_int_equal(st.refused_full, refused);
	assert_int_equal(st.done, accepted);
	assert_int_equal(atomic_load(&k.taken), accepted);
	assert_true(st.high_water <= 16);
	/* Callbacks: the accepted ones done, the refused ones refused (the
	 * calls have no callback). */
	assert_int_equal(atomic_load(&t.calls) + calls, SUBMITTERS * PER_SUBMITTER);
	assert_int_equal(atomic_load(&t.refused) + calls_refused, refused);
	assert_true(refused > 0); /* 4 threads against 16 slots: some were */
	bt_cmdq_free(k.q);
}

TU_MAIN(
	cmocka_unit_test(test_bounded),
	cmocka_unit_test(test_call),
	cmocka_unit_test(test_deferred),
	cmocka_unit_test(test_concurrent))
