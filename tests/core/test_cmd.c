/* rec_cmd: a snapshot's parameters survive the trip through a command
 * (bt_cmd's text), the name included and at its longest; which names may
 * name a snapshot's file. No DDS. */
#include <stdio.h>
#include <string.h>

#include "rec_cmd.h"
#include "test_util.h"

static void test_snap_roundtrip(void **state)
{
	(void)state;
	struct rec_cmd_snap p = {.before_ns = 1500000000, .after_ns = 0}, q;
	memset(p.topics, 'a', sizeof p.topics - 1);
	memset(p.exclude, 'b', sizeof p.exclude - 1);
	memset(p.name, 'c', sizeof p.name - 1);
	struct bt_cmd c = rec_cmd_make(REC_CMD_SNAPSHOT, BT_CMD_FROM_KEY, 0, "test");
	rec_cmd_snap_put(&c, &p);
	rec_cmd_snap_get(&c, &q);
	assert_int_equal(q.before_ns, p.before_ns);
	assert_int_equal(q.after_ns, 0);
	assert_string_equal(q.topics, p.topics);
	assert_string_equal(q.exclude, p.exclude);
	assert_string_equal(q.name, p.name);
	/* Without parameters: as configured, no name. */
	struct bt_cmd none = rec_cmd_make(REC_CMD_SNAPSHOT, BT_CMD_FROM_KEY, 0, "test");
	rec_cmd_snap_get(&none, &q);
	assert_int_equal(q.before_ns, -1);
	assert_int_equal(q.after_ns, -1);
	assert_string_equal(q.topics, "");
	assert_string_equal(q.exclude, "");
	assert_string_equal(q.name, "");
	/* Only a name. */
	struct rec_cmd_snap n = {.before_ns = -1, .after_ns = -1, .name = "ev1"};
	rec_cmd_snap_put(&c, &n);
	rec_cmd_snap_get(&c, &q);
	assert_string_equal(q.topics, "");
	assert_string_equal(q.exclude, "");
	assert_string_equal(q.name, "ev1");
}

static void test_snap_name_valid(void **state)
{
	(void)state;
	char longest[REC_CMD_SNAP_NAME_MAX], too_long[REC_CMD_SNAP_NAME_MAX + 1];
	memset(longest, 'x', sizeof longest - 1);
	longest[sizeof longest - 1] = '\0';
	memset(too_long, 'x', sizeof too_long - 1);
	too_long[sizeof too_long - 1] = '\0';
	static const char *const good[] = {"ev1", "a.b", "...", "-x", "ünï", "bag_3", " x"};
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		assert_true(rec_cmd_snap_name_valid(good[i]));
	assert_true(rec_cmd_snap_name_valid(longest));
	static const char *const bad[] = {"", ".", "..", "a/b", "/x", "x/", "a\tb", "a\nb",
					  "a\x7f"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_false(rec_cmd_snap_name_valid(bad[i]));
	assert_false(rec_cmd_snap_name_valid(too_long));
}

TU_MAIN(
	cmocka_unit_test(test_snap_roundtrip),
	cmocka_unit_test(test_snap_name_valid))
