/* rec_snapwin: --snapshot-window and --snapshot-topic-cache arguments, the
 * checks between them, and each topic's window (the first matching rule,
 * the global defaults for the rest). Pure (no DDS). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "rec_snapwin.h"
#include "test_util.h"

#define SEC INT64_C(1000000000)

static struct rec_snapwin_spec parse(const char *arg, bool cache)
{
	struct rec_snapwin_spec s;
	struct bt_error err;
	assert_int_equal(rec_snapwin_parse(arg, cache, &s, &err), BT_OK);
	return s;
}

static void test_snapwin_parse(void **state)
{
	(void)state;
	struct rec_snapwin_spec s = parse("/cam=60:5", false);
	assert_int_equal(s.pattern_len, 4);
	assert_int_equal(s.before_ns, 60 * SEC);
	assert_int_equal(s.after_ns, 5 * SEC);
	s = parse("/a=b=1.5", false); /* split at the last '=' */
	assert_int_equal(s.pattern_len, 4);
	assert_int_equal(s.before_ns, 3 * SEC / 2);
	assert_int_equal(s.after_ns, REC_SNAPWIN_GLOBAL);
	s = parse("/brake=0:10", false);
	assert_int_equal(s.before_ns, 0);
	s = parse("/x=86400:0", false);
	assert_int_equal(s.before_ns, 86400 * SEC);
	s = parse("/cam=2M", true);
	assert_int_equal(s.max_bytes, 2 * 1024 * 1024);
	static const char *bad[] = {"/a=-1", "/a=x", "/a=1:", "/a=1:x", "/a=86401", "/a=0:0",
				    "/a=", "=1", "/a", "/a=1:2:3", "/a=1e3"};
	struct bt_error err;
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		assert_int_equal(rec_snapwin_parse(bad[i], false, &s, &err), BT_ERR_USAGE);
		assert_non_null(strstr(err.msg, "--snapshot-window"));
	}
	static const char *badc[] = {"/a=0", "/a=x", "/a=2T", "/a=", "/a"};
	for (size_t i = 0; i < sizeof badc / sizeof *badc; i++) {
		assert_int_equal(rec_snapwin_parse(badc[i], true, &s, &err), BT_ERR_USAGE);
		assert_non_null(strstr(err.msg, "--snapshot-topic-cache"));
	}
}

static void test_snapwin_new(void **state)
{
	(void)state;
	struct rec_snapwin *w;
	struct bt_error err;
	struct rec_snapwin_spec v[3] = {parse("/a=1", false), parse("/a=1", false),
					parse("/a=1M", true)};
	/* the same rule twice: fine; a cache above the global bound: not */
	assert_int_equal(rec_snapwin_new(v, 3, 1 << 20, &w, &err), BT_OK);
	rec_snapwin_free(w);
	assert_int_equal(rec_snapwin_new(v, 3, (1 << 20) - 1, &w, &err), BT_ERR_USAGE);
	assert_null(w);
	v[1] = parse("/a=1:0", false); /* contradicts /a=1 */
	assert_int_equal(rec_snapwin_new(v, 3, 1 << 20, &w, &err), BT_ERR_USAGE);
	assert_non_null(strstr(err.msg, "twice"));
	v[1] = parse("/a=2M", true);
	assert_int_equal(rec_snapwin_new(v, 2, 4 << 20, &w, &err), BT_OK); /* window + cache */
	rec_snapwin_free(w);
	v[2] = parse("/a=1K", true);
	assert_int_equal(rec_snapwin_new(v, 3, 4 << 20, &w, &err), BT_ERR_USAGE);
	v[0] = parse("/(=1", false); /* a regex that does not compile */
	assert_int_equal(rec_snapwin_new(v, 1, 4 << 20, &w, &err), BT_ERR_USAGE);
	assert_int_equal(rec_snapwin_new(v, 0, 4 << 20, &w, &err), BT_OK);
	assert_null(w);
}

static void test_snapwin_find(void **state)
{
	(void)state;
	struct rec_snapwin_spec v[] = {parse("/cam=60:5", false), parse("/ca.*=1:1", false),
				       parse("/lidar=15", false), parse("/c.*=1K", true)};
	struct rec_snapwin *w;
	struct bt_error err;
	assert_int_equal(rec_snapwin_new(v, 4, 1 << 20, &w, &err), BT_OK);
	struct rec_snap_window o;
	/* the first window rule wins; a cache rule applies beside it */
	assert_true(rec_snapwin_find(w, "rt/cam", "/cam", 10 * SEC, 2 * SEC, &o));
	assert_int_equal(o.before_ns, 60 * SEC);
	assert_int_equal(o.after_ns, 5 * SEC);
	assert_int_equal(o.max_bytes, 1024);
	assert_true(rec_snapwin_find(w, "rt/cams", "/cams", 10 * SEC, 2 * SEC, &o));
	assert_int_equal(o.before_ns, 1 * SEC);
	/* AFTER left out: --snapshot-post's */
	assert_true(rec_snapwin_find(w, "rt/lidar", "/lidar", 10 * SEC, 2 * SEC, &o));
	assert_int_equal(o.before_ns, 15 * SEC);
	assert_int_equal(o.after_ns, 2 * SEC);
	assert_int_equal(o.max_bytes, 0);
	/* no rule: the globals (duration 0: no bound) */
	assert_false(rec_snapwin_find(w, "rt/imu", "/imu", 0, 0, &o));
	assert_int_equal(o.before_ns, REC_SNAP_ALL);
	assert_int_equal(o.after_ns, 0);
	assert_false(rec_snapwin_find(NULL, "rt/imu", "/imu", 3 * SEC, 0, &o));
	assert_int_equal(o.before_ns, 3 * SEC);
	char buf[96];
	rec_snapwin_find(w, "rt/cam", "/cam", 0, 0, &o);
	assert_string_equal(rec_snapwin_str(&o, buf, sizeof buf), "60 s before, 5 s after, 1.0 KiB");
	rec_snapwin_free(w);
}

TU_MAIN(
	cmocka_unit_test(test_snapwin_parse),
	cmocka_unit_test(test_snapwin_new),
	cmocka_unit_test(test_snapwin_find))
