/* play_sched, pure: deadlines from an anchor (a late message does not
 * move the next), re-anchoring on pause/resume, rate and seek, clamping to
 * the window. */
#include "play_sched.h"
#include "test_util.h"

#define S INT64_C(1000000000)

static void test_deadlines(void **state)
{
	(void)state;
	struct play_sched s;
	play_sched_init(&s, 100 * S, 1000 * S, 2.0, 1000 * S, 1010 * S);
	assert_int_equal(play_sched_deadline(&s, 1000 * S), 100 * S);
	assert_int_equal(play_sched_deadline(&s, 1004 * S), 102 * S);
	/* a deadline depends on the anchor only: publishing late moves nothing */
	assert_int_equal(play_sched_deadline(&s, 1006 * S), 103 * S);
	assert_int_equal(play_sched_pos(&s, 101 * S), 1002 * S);
	assert_int_equal(play_sched_pos(&s, 50 * S), 1000 * S); /* before the anchor: a delay */
	assert_int_equal(play_sched_pos(&s, 200 * S), 1010 * S); /* clamped to the window */
	assert_int_equal(play_sched_remaining(&s, 101 * S), 4 * S);
}

static void test_pause_rate_move(void **state)
{
	(void)state;
	struct play_sched s;
	play_sched_init(&s, 0, 1000 * S, 1.0, 1000 * S, 1100 * S);
	play_sched_pause(&s, 10 * S);
	assert_int_equal(play_sched_deadline(&s, 1011 * S), INT64_MAX);
	assert_int_equal(play_sched_pos(&s, 50 * S), 1010 * S); /* stands still */
	play_sched_resume(&s, 60 * S);
	assert_int_equal(play_sched_deadline(&s, 1011 * S), 61 * S);
	play_sched_set_rate(&s, 62 * S, 4.0); /* at 1012 s of bag time */
	assert_int_equal(play_sched_deadline(&s, 1016 * S), 63 * S);
	play_sched_move(&s, 70 * S, 990 * S); /* clamped to the window's start */
	assert_int_equal(play_sched_pos(&s, 70 * S), 1000 * S);
	assert_int_equal(play_sched_deadline(&s, 1004 * S), 71 * S);
	play_sched_pause(&s, 71 * S);
	play_sched_move(&s, 80 * S, 1050 * S); /* a seek while paused stays paused */
	assert_int_equal(play_sched_pos(&s, 90 * S), 1050 * S);
	play_sched_set_rate(&s, 95 * S, 0.5);
	play_sched_resume(&s, 100 * S);
	assert_int_equal(play_sched_deadline(&s, 1051 * S), 102 * S);
}

/* Held (--wait-for-subscribers): no deadline comes and the position stands
 * still through a resume, a rate and a seek; released, it runs from there
 * at the wall time given (a -d delay later). */
static void test_hold(void **state)
{
	(void)state;
	struct play_sched s;
	play_sched_init(&s, 0, 1000 * S, 1.0, 1000 * S, 1100 * S);
	play_sched_hold(&s, 0);
	assert_int_equal(play_sched_deadline(&s, 1000 * S), INT64_MAX);
	assert_int_equal(play_sched_pos(&s, 50 * S), 1000 * S);
	play_sched_pause(&s, 51 * S);
	play_sched_resume(&s, 52 * S);
	play_sched_set_rate(&s, 53 * S, 2.0);
	assert_int_equal(play_sched_pos(&s, 60 * S), 1000 * S);
	play_sched_move(&s, 61 * S, 1010 * S);
	assert_int_equal(play_sched_pos(&s, 70 * S), 1010 * S);
	assert_int_equal(play_sched_deadline(&s, 1010 * S), INT64_MAX);
	play_sched_release(&s, 80 * S); /* at 70 s, with a 10 s delay */
	assert_int_equal(play_sched_pos(&s, 75 * S), 1010 * S);
	assert_int_equal(play_sched_deadline(&s, 1014 * S), 82 * S);
	assert_int_equal(play_sched_pos(&s, 82 * S), 1014 * S);
	/* held while paused: released, it stays paused until a resume */
	play_sched_pause(&s, 90 * S);
	play_sched_hold(&s, 91 * S);
	play_sched_release(&s, 92 * S);
	assert_int_equal(play_sched_deadline(&s, 1030 * S), INT64_MAX);
	play_sched_resume(&s, 100 * S);
	assert_int_equal(play_sched_deadline(&s, 1046 * S), 108 * S); /* from 1030 at 2x */
}

TU_MAIN(
	cmocka_unit_test(test_deadlines),
	cmocka_unit_test(test_pause_rate_move),
	cmocka_unit_test(test_hold))
