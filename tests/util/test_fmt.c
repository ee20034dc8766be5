/* bt_fmt, bt_time's formatting and bt_str: the exact text the commands and
 * the view print, at the edges (0, a unit's last value and the next one,
 * the largest and the negative values). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_fmt.h"
#include "bt_str.h"
#include "bt_time.h"
#include "test_util.h"

/* A value and the text a formatter must make of it (an int64_t value as
 * its two's complement). */
struct fcase {
	uint64_t v;
	const char *text;
};

typedef void fmt_fn(uint64_t v, char *out, size_t n);

static void run_cases(const char *what, fmt_fn *fmt, const struct fcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char out[48];
		fmt(c[i].v, out, sizeof out);
		if (strcmp(out, c[i].text))
			fail_msg("%s(%llu / %lld) = \"%s\", want \"%s\"", what,
				 (unsigned long long)c[i].v, (long long)c[i].v, out, c[i].text);
	}
}

#define RUN(what, fmt, cases) run_cases(what, fmt, cases, sizeof cases / sizeof cases[0])

static void test_iec(void **state)
{
	(void)state;
	static const struct fcase cases[] = {
		{0, "0 B"},
		{1, "1 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{114688, "112.0 KiB"},
		{UINT64_C(1) << 20, "1.0 MiB"},
		{104857600, "100.0 MiB"},
		{UINT64_C(1) << 30, "1.0 GiB"},
		{UINT64_C(3650722201), "3.4 GiB"},
		{UINT64_C(1) << 40, "1.0 TiB"},
		{UINT64_C(1) << 50, "1024.0 TiB"}, /* TiB is the largest unit */
		{UINT64_MAX, "16777216.0 TiB"},
	};
	RUN("bt_fmt_iec", bt_fmt_iec, cases);
	char small[6];
	bt_fmt_iec(UINT64_MAX, small, sizeof small); /* truncated, still terminated */
	assert_string_equal(small, "16777");
}

static void test_plural(void **state)
{
	(void)state;
	assert_string_equal(bt_fmt_s(0), "s");
	assert_string_equal(bt_fmt_s(1), "");
	assert_string_equal(bt_fmt_s(2), "s");
	assert_string_equal(bt_fmt_s(UINT64_MAX), "s");
}

static void format_sec(uint64_t v, char *out, size_t n)
{
	bt_time_format_sec((int64_t)v, out, n);
}

static void test_seconds(void **state)
{
	(void)state;
	static const struct fcase cases[] = {
		{0, "0.000000000"},
		{1, "0.000000001"},
		{999999999, "0.999999999"},
		{1000000000, "1.000000000"},
		{1585866235112411371, "1585866235.112411371"},
		{(uint64_t)-1, "-0.000000001"},
		{(uint64_t)-500000000, "-0.500000000"},
		{(uint64_t)-1000000000, "-1.000000000"},
		{(uint64_t)-1500000000, "-1.500000000"},
		{INT64_MAX, "9223372036.854775807"},
		{(uint64_t)INT64_MIN, "-9223372036.854775808"},
	};
	RUN("bt_time_format_sec", format_sec, cases);
	/* A duration is the same with an "s". */
	char out[48];
	bt_fmt_duration(4531096768, out, sizeof out);
	assert_string_equal(out, "4.531096768s");
	bt_fmt_duration(-1500000000, out, sizeof out);
	assert_string_equal(out, "-1.500000000s");
	bt_fmt_duration(INT64_MIN, out, sizeof out);
	assert_string_equal(out, "-9223372036.854775808s");
}

static void test_date(void **state)
{
	(void)state;
	char out[64];
	bt_time_format_date(0, out, sizeof out);
	assert_string_equal(out, "Jan  1 1970 00:00:00.000000000");
	bt_time_format_date(1585866235112411371, out, sizeof out);
	assert_string_equal(out, "Apr  2 2020 22:23:55.112411371");
	bt_time_format_date(-1, out, sizeof out); /* the last ns before the epoch */
	assert_string_equal(out, "Dec 31 1969 23:59:59.999999999");
	bt_time_format_bagname(1585866235112411371, "rosbag2_", out, sizeof out);
	assert_string_equal(out, "rosbag2_2020_04_02-22_23_55");
	bt_time_format_bagname(0, "", out, sizeof out);
	assert_string_equal(out, "1970_01_01-00_00_00");
}

static void test_clocks(void **state)
{
	(void)state;
	int64_t a = bt_time_monotonic_ns(), b = bt_time_monotonic_ns();
	assert_true(a > 0 && b >= a);
	/* After 2020 and before 2100. */
	int64_t now = bt_time_realtime_ns();
	assert_true(now > INT64_C(1577836800) * BT_NS_PER_S);
	assert_true(now < INT64_C(4102444800) * BT_NS_PER_S);
}

static void test_ends_with(void **state)
{
	(void)state;
	assert_true(bt_str_ends_with("bag_0.db3", ".db3"));
	assert_true(bt_str_ends_with("bag_0.db3.zstd", ".zstd"));
	assert_false(bt_str_ends_with("bag_0.db3.zstd", ".db3"));
	assert_false(bt_str_ends_with(".db3", ".db3")); /* must be longer than the suffix */
	assert_false(bt_str_ends_with("db3", ".db3"));
	assert_false(bt_str_ends_with("", ""));
	assert_true(bt_str_ends_with("a", ""));
	assert_false(bt_str_ends_with("x.DB3", ".db3"));
}

static void test_file_name_ok(void **state)
{
	(void)state;
	assert_true(bt_str_file_name_ok("event_1", 8));
	assert_true(bt_str_file_name_ok("...", 8));
	assert_true(bt_str_file_name_ok(".hidden", 8));
	assert_false(bt_str_file_name_ok("event_12", 8)); /* a NUL must fit too */
	assert_false(bt_str_file_name_ok("", 8));
	assert_false(bt_str_file_name_ok(".", 8));
	assert_false(bt_str_file_name_ok("..", 8));
	assert_false(bt_str_file_name_ok("a/b", 8));
	assert_false(bt_str_file_name_ok("/", 8));
	assert_false(bt_str_file_name_ok("a\tb", 8));
	assert_false(bt_str_file_name_ok("a\x7f", 8));
}

static int utc(void **state)
{
	(void)state;
	/* The dates above are UTC; ctest sets TZ=UTC, a manual run may not. */
	setenv("TZ", "UTC", 1);
	tzset();
	return 0;
}

TU_MAIN_GROUP(utc, NULL,
	cmocka_unit_test(test_iec),
	cmocka_unit_test(test_plural),
	cmocka_unit_test(test_seconds),
	cmocka_unit_test(test_date),
	cmocka_unit_test(test_clocks),
	cmocka_unit_test(test_ends_with),
	cmocka_unit_test(test_file_name_ok))
