/* bt_parse: every form a user may type for a count, a size or a duration,
 * the accepted ones with their value and the refused ones (BT_ERR_USAGE,
 * output left as it was). */
#include "bt_parse.h"
#include "test_util.h"

#define UNTOUCHED UINT64_C(0xdeadbeef)

struct u64_case {
	const char *s;
	uint64_t min, max;
	bt_status st;
	uint64_t v;
};

static void test_u64(void **state)
{
	(void)state;
	static const struct u64_case cases[] = {
		{"0", 0, UINT64_MAX, BT_OK, 0},
		{"42", 0, UINT64_MAX, BT_OK, 42},
		{"007", 0, UINT64_MAX, BT_OK, 7},
		{"18446744073709551615", 0, UINT64_MAX, BT_OK, UINT64_MAX},
		{"18446744073709551616", 0, UINT64_MAX, BT_ERR_USAGE, 0}, /* overflow */
		{"99999999999999999999999", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"5", 5, 10, BT_OK, 5},   /* the bounds are inclusive */
		{"10", 5, 10, BT_OK, 10},
		{"4", 5, 10, BT_ERR_USAGE, 0},
		{"11", 5, 10, BT_ERR_USAGE, 0},
		{"", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"-1", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"+1", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{" 1", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"1 ", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"1\n", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"0x10", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"1e3", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"1.0", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"1K", 0, UINT64_MAX, BT_ERR_USAGE, 0},
		{"abc", 0, UINT64_MAX, BT_ERR_USAGE, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct u64_case *c = &cases[i];
		uint64_t v = UNTOUCHED;
		bt_status st = bt_parse_u64(c->s, c->min, c->max, &v);
		if (st != c->st || v != (c->st == BT_OK ? c->v : UNTOUCHED))
			fail_msg("bt_parse_u64(\"%s\", %llu, %llu): status %d value %llu", c->s,
				 (unsigned long long)c->min, (unsigned long long)c->max, (int)st,
				 (unsigned long long)v);
	}
	uint64_t v = UNTOUCHED;
	assert_int_equal(bt_parse_u64(NULL, 0, 1, &v), BT_ERR_USAGE);
	assert_true(v == UNTOUCHED);
}

struct i64_case {
	const char *s;
	int64_t min, max;
	bt_status st;
	int64_t v;
};

static void test_i64(void **state)
{
	(void)state;
	static const struct i64_case cases[] = {
		{"0", INT64_MIN, INT64_MAX, BT_OK, 0},
		{"-0", INT64_MIN, INT64_MAX, BT_OK, 0},
		{"-42", INT64_MIN, INT64_MAX, BT_OK, -42},
		{"9223372036854775807", INT64_MIN, INT64_MAX, BT_OK, INT64_MAX},
		{"-9223372036854775808", INT64_MIN, INT64_MAX, BT_OK, INT64_MIN},
		{"9223372036854775808", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"-9223372036854775809", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"-5", -5, 5, BT_OK, -5},
		{"-6", -5, 5, BT_ERR_USAGE, 0},
		{"6", -5, 5, BT_ERR_USAGE, 0},
		{"", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"-", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"--1", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"+1", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{" -1", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"- 1", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"-1 ", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"-0x10", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
		{"1.5", INT64_MIN, INT64_MAX, BT_ERR_USAGE, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct i64_case *c = &cases[i];
		int64_t v = 12345;
		bt_status st = bt_parse_i64(c->s, c->min, c->max, &v);
		if (st != c->st || v != (c->st == BT_OK ? c->v : 12345))
			fail_msg("bt_parse_i64(\"%s\"): status %d value %lld", c->s, (int)st,
				 (long long)v);
	}
}

struct size_case {
	const char *s;
	bt_status st;
	uint64_t v;
};

static void test_size(void **state)
{
	(void)state;
	static const struct size_case cases[] = {
		{"0", BT_OK, 0},
		{"1", BT_OK, 1},
		{"1023", BT_OK, 1023},
		{"1K", BT_OK, 1024},
		{"1KiB", BT_OK, 1024},
		{"90K", BT_OK, 90 * 1024},
		{"100M", BT_OK, 104857600},
		{"100MiB", BT_OK, 104857600},
		{"2G", BT_OK, UINT64_C(2) << 30},
		{"2GiB", BT_OK, UINT64_C(2) << 30},
		{"3T", BT_OK, UINT64_C(3) << 40},
		{"3TiB", BT_OK, UINT64_C(3) << 40},
		{"0K", BT_OK, 0},
		{"18446744073709551615", BT_OK, UINT64_MAX},
		{"16777215T", BT_OK, UINT64_C(16777215) << 40},
		{"16777216T", BT_ERR_USAGE, 0}, /* 2^64: one past the top */
		{"17592186044416M", BT_ERR_USAGE, 0},
		{"18446744073709551616", BT_ERR_USAGE, 0},
		{"", BT_ERR_USAGE, 0},
		{"K", BT_ERR_USAGE, 0},
		{"-1", BT_ERR_USAGE, 0},
		{"-1K", BT_ERR_USAGE, 0},
		{" 1K", BT_ERR_USAGE, 0},
		{"1K ", BT_ERR_USAGE, 0},
		{"1 K", BT_ERR_USAGE, 0},
		{"1k", BT_ERR_USAGE, 0},   /* suffixes are upper case */
		{"1KB", BT_ERR_USAGE, 0},  /* KB would be ambiguous (1000 or 1024) */
		{"1Ki", BT_ERR_USAGE, 0},
		{"1kib", BT_ERR_USAGE, 0},
		{"1P", BT_ERR_USAGE, 0},
		{"1B", BT_ERR_USAGE, 0},
		{"1.5M", BT_ERR_USAGE, 0},
		{"0x10", BT_ERR_USAGE, 0},
		{"1e6", BT_ERR_USAGE, 0},
		{"1KK", BT_ERR_USAGE, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct size_case *c = &cases[i];
		uint64_t v = UNTOUCHED;
		bt_status st = bt_parse_size(c->s, &v);
		if (st != c->st || v != (c->st == BT_OK ? c->v : UNTOUCHED))
			fail_msg("bt_parse_size(\"%s\"): status %d value %llu", c->s, (int)st,
				 (unsigned long long)v);
	}
	uint64_t v = UNTOUCHED;
	assert_int_equal(bt_parse_size(NULL, &v), BT_ERR_USAGE);
}

struct sec_case {
	const char *s;
	bt_status st;
	int64_t ns;
};

static void test_seconds(void **state)
{
	(void)state;
	static const struct sec_case cases[] = {
		{"0", BT_OK, 0},
		{"1", BT_OK, 1000000000},
		{"1.5", BT_OK, 1500000000},
		{"0.000000001", BT_OK, 1},
		{"2.123456789", BT_OK, 2123456789},
		{"00.5", BT_OK, 500000000},
		{"9223372035", BT_OK, INT64_C(9223372035) * 1000000000},
		{"9223372035.999999999", BT_OK, INT64_C(9223372035999999999)},
		{"9223372036", BT_ERR_USAGE, 0}, /* its ns would not fit with a fraction */
		{"99999999999999999999", BT_ERR_USAGE, 0},
		{"", BT_ERR_USAGE, 0},
		{".5", BT_ERR_USAGE, 0},
		{"1.", BT_ERR_USAGE, 0},
		{"-1", BT_ERR_USAGE, 0},
		{" 1", BT_ERR_USAGE, 0},
		{"1 ", BT_ERR_USAGE, 0},
		{"1.5 ", BT_ERR_USAGE, 0},
		{"1.5s", BT_ERR_USAGE, 0},
		{"1..5", BT_ERR_USAGE, 0},
		{"1.-5", BT_ERR_USAGE, 0},
		{"1e3", BT_ERR_USAGE, 0},
		{"0x10", BT_ERR_USAGE, 0},
		{"inf", BT_ERR_USAGE, 0},
		{"nan", BT_ERR_USAGE, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct sec_case *c = &cases[i];
		int64_t ns = -7;
		bt_status st = bt_parse_seconds(c->s, &ns);
		if (st != c->st || ns != (c->st == BT_OK ? c->ns : -7))
			fail_msg("bt_parse_seconds(\"%s\"): status %d value %lld", c->s, (int)st,
				 (long long)ns);
	}
	int64_t ns = -7;
	assert_int_equal(bt_parse_seconds(NULL, &ns), BT_ERR_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_i64),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_seconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
