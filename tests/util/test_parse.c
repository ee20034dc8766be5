/* bt_parse: every form a user may type for a count, a size or a duration,
 * the accepted ones with their value and the refused ones (BT_ERR_USAGE,
 * output left as it was). */
#include "bt_parse.h"
#include "test_util.h"

#define UNTOUCHED UINT64_C(0xdeadbeef)

/* One input and what a parser must make of it: the status and, on BT_OK,
 * the value (an int64_t result as its two's complement). */
struct pcase {
	const char *s;
	bt_status st;
	uint64_t v;
};

typedef bt_status parse_fn(const char *s, uint64_t *v);

static void run_cases(const char *what, parse_fn *parse, const struct pcase *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = UNTOUCHED;
		bt_status st = parse(c[i].s, &v);
		if (st != c[i].st || v != (c[i].st == BT_OK ? c[i].v : UNTOUCHED))
			fail_msg("%s(\"%s\"): status %d value %llu (%lld)", what, c[i].s, (int)st,
				 (unsigned long long)v, (long long)v);
	}
	uint64_t v = UNTOUCHED;
	assert_int_equal(parse(NULL, &v), BT_ERR_USAGE);
	assert_true(v == UNTOUCHED);
}

#define RUN(what, parse, cases) run_cases(what, parse, cases, sizeof cases / sizeof cases[0])

static bt_status u64_any(const char *s, uint64_t *v)
{
	return bt_parse_u64(s, 0, UINT64_MAX, v);
}

static bt_status u64_5_10(const char *s, uint64_t *v)
{
	return bt_parse_u64(s, 5, 10, v);
}

/* The int64_t parsers through the uint64_t runner: *v is kept on failure. */
static bt_status i64_in(const char *s, int64_t min, int64_t max, uint64_t *v)
{
	int64_t x = (int64_t)*v;
	bt_status st = bt_parse_i64(s, min, max, &x);
	*v = (uint64_t)x;
	return st;
}

static bt_status i64_any(const char *s, uint64_t *v)
{
	return i64_in(s, INT64_MIN, INT64_MAX, v);
}

static bt_status i64_5_5(const char *s, uint64_t *v)
{
	return i64_in(s, -5, 5, v);
}

static bt_status seconds(const char *s, uint64_t *v)
{
	int64_t x = (int64_t)*v;
	bt_status st = bt_parse_seconds(s, &x);
	*v = (uint64_t)x;
	return st;
}

#define OK(s, v) {s, BT_OK, (uint64_t)(v)}
#define NO(s) {s, BT_ERR_USAGE, 0}

/* Forms every parser refuses: blanks, a sign other than '-', other bases,
 * exponents, words, and more digits than any value has. */
static void test_refused_by_all(void **state)
{
	(void)state;
	static const struct pcase cases[] = {
		NO(""), NO(" 1"), NO("1 "), NO("1\n"), NO("+1"), NO("0x10"), NO("1e3"), NO("abc"),
		NO("99999999999999999999999"),
	};
	RUN("bt_parse_u64", u64_any, cases);
	RUN("bt_parse_i64", i64_any, cases);
	RUN("bt_parse_size", bt_parse_size, cases);
	RUN("bt_parse_seconds", seconds, cases);
}

static void test_u64(void **state)
{
	(void)state;
	static const struct pcase any[] = {
		OK("0", 0),
		OK("42", 42),
		OK("007", 7),
		OK("18446744073709551615", UINT64_MAX),
		NO("18446744073709551616"), /* overflow */
		NO("-1"),
		NO("1.0"),
		NO("1K"),
	};
	static const struct pcase bounded[] = {
		OK("5", 5), /* the bounds are inclusive */
		OK("10", 10),
		NO("4"),
		NO("11"),
	};
	RUN("bt_parse_u64", u64_any, any);
	RUN("bt_parse_u64 5..10", u64_5_10, bounded);
}

static void test_i64(void **state)
{
	(void)state;
	static const struct pcase any[] = {
		OK("0", 0),
		OK("-0", 0),
		OK("-42", -42),
		OK("9223372036854775807", INT64_MAX),
		OK("-9223372036854775808", INT64_MIN),
		NO("9223372036854775808"),
		NO("-9223372036854775809"),
		NO("-"),
		NO("--1"),
		NO(" -1"),
		NO("- 1"),
		NO("-1 "),
		NO("-0x10"),
		NO("1.5"),
	};
	static const struct pcase bounded[] = {
		OK("-5", -5),
		OK("5", 5),
		NO("-6"),
		NO("6"),
	};
	RUN("bt_parse_i64", i64_any, any);
	RUN("bt_parse_i64 -5..5", i64_5_5, bounded);
}

static void test_size(void **state)
{
	(void)state;
	static const struct pcase cases[] = {
		OK("0", 0),
		OK("1", 1),
		OK("1023", 1023),
		OK("1K", 1024),
		OK("1KiB", 1024),
		OK("90K", 90 * 1024),
		OK("100M", 104857600),
		OK("100MiB", 104857600),
		OK("2G", UINT64_C(2) << 30),
		OK("2GiB", UINT64_C(2) << 30),
		OK("3T", UINT64_C(3) << 40),
		OK("3TiB", UINT64_C(3) << 40),
		OK("0K", 0),
		OK("18446744073709551615", UINT64_MAX),
		OK("16777215T", UINT64_C(16777215) << 40),
		NO("16777216T"), /* 2^64: one past the top */
		NO("17592186044416M"),
		NO("18446744073709551616"),
		NO("K"),
		NO("-1"),
		NO("-1K"),
		NO(" 1K"),
		NO("1K "),
		NO("1 K"),
		NO("1k"),  /* suffixes are upper case */
		NO("1KB"), /* KB would be ambiguous (1000 or 1024) */
		NO("1Ki"),
		NO("1kib"),
		NO("1P"),
		NO("1B"),
		NO("1.5M"),
		NO("1e6"),
		NO("1KK"),
	};
	RUN("bt_parse_size", bt_parse_size, cases);
}

static void test_seconds(void **state)
{
	(void)state;
	static const struct pcase cases[] = {
		OK("0", 0),
		OK("1", 1000000000),
		OK("1.5", 1500000000),
		OK("0.000000001", 1),
		OK("2.123456789", 2123456789),
		OK("00.5", 500000000),
		OK("9223372035", INT64_C(9223372035) * 1000000000),
		OK("9223372035.999999999", INT64_C(9223372035999999999)),
		NO("9223372036"), /* its ns would not fit with a fraction */
		NO("99999999999999999999"),
		NO(".5"),
		NO("1."),
		NO("-1"),
		NO("1.5 "),
		NO("1.5s"),
		NO("1..5"),
		NO("1.-5"),
		NO("inf"),
		NO("nan"),
	};
	RUN("bt_parse_seconds", seconds, cases);
}

TU_MAIN(
	cmocka_unit_test(test_refused_by_all),
	cmocka_unit_test(test_u64),
	cmocka_unit_test(test_i64),
	cmocka_unit_test(test_size),
	cmocka_unit_test(test_seconds))
