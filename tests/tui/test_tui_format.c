#include <string.h>

#include "test_util.h"
#include "tui_format.h"

#define CHECK(fn, v, want)                                                                       \
	do {                                                                                     \
		char b[32];                                                                      \
		fn(v, b, sizeof b);                                                              \
		assert_string_equal(b, want);                                                    \
	} while (0)

static void test_counts(void **state)
{
	(void)state;
	CHECK(tui_format_count, 0, "0");
	CHECK(tui_format_count, 999, "999");
	CHECK(tui_format_count, 1000, "1.0k");
	CHECK(tui_format_count, 1234, "1.2k");
	CHECK(tui_format_count, 12345, "12k");
	CHECK(tui_format_count, 999499, "999k");
	CHECK(tui_format_count, 999500, "1.0M");
	CHECK(tui_format_count, UINT64_MAX, "18E");
}

static void test_bytes_and_rates(void **state)
{
	(void)state;
	CHECK(tui_format_bytes, 0, "0 B");
	CHECK(tui_format_bytes, 999, "999 B");
	/* IEC, as everywhere else: a 100M cache is 100 MiB, not "105 MB". */
	CHECK(tui_format_bytes, 100 * 1024 * 1024, "100 MiB");
	CHECK(tui_format_bytes, 1000, "1.0 KiB");
	CHECK(tui_format_bytes, 1024, "1.0 KiB");
	CHECK(tui_format_bytes, 1536, "1.5 KiB");
	CHECK(tui_format_bytes, 1023 * 1024, "1.0 MiB"); /* never "1023 KiB" */
	CHECK(tui_format_bytes, 999 * 1024, "999 KiB");
	CHECK(tui_format_bytes, 1500000, "1.4 MiB");
	CHECK(tui_format_bytes, UINT64_C(3) << 30, "3.0 GiB");
	CHECK(tui_format_bytes, UINT64_MAX, "16 EiB");
	CHECK(tui_format_rate, 0.0, "0");
	CHECK(tui_format_rate, -1.0, "0");
	CHECK(tui_format_rate, 0.5, "0.50");
	CHECK(tui_format_rate, 10.0, "10.0");
	CHECK(tui_format_rate, 999.0, "999");
	CHECK(tui_format_rate, 20000.0, "20k");
}

TU_MAIN(
	cmocka_unit_test(test_counts),
	cmocka_unit_test(test_bytes_and_rates))
