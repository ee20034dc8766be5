/* Layout at 80x24, 60x12, 132x43 and too small; the text fitter. */
#include <stdio.h>
#include <string.h>

#include "test_util.h"
#include "tui_layout.h"

/* The shown columns' titles, left to right, joined by spaces. */
static const char *titles(const struct tui_layout *l)
{
	static char buf[256];
	size_t len = 0;
	for (size_t i = 0; i < l->n_cols; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "",
					tui_layout_col_title(l->c[i].col));
	buf[len] = '\0';
	return buf;
}

static int col_width(const struct tui_layout *l, enum tui_col c)
{
	for (size_t i = 0; i < l->n_cols; i++)
		if (l->c[i].col == c)
			return l->c[i].width;
	return 0;
}

/* Columns do not overlap, are one blank apart and fit the width. */
static void check_columns(const struct tui_layout *l)
{
	int x = 0;
	for (size_t i = 0; i < l->n_cols; i++) {
		assert_int_equal(l->c[i].x, x);
		assert_true(l->c[i].width > 0);
		x += l->c[i].width + 1;
		assert_true(l->visible & (1u << l->c[i].col));
	}
	assert_true(x - 1 <= l->cols);
}

/* Builds l at cols x rows: not too small, sound columns, these titles and
 * the name column this wide. */
static void build_at(struct tui_layout *l, int cols, int rows, const char *want_titles,
		     int name_width)
{
	tui_layout_build(l, cols, rows);
	assert_false(l->too_small);
	check_columns(l);
	assert_string_equal(titles(l), want_titles);
	assert_int_equal(col_width(l, TUI_COL_NAME), name_width);
}

static void test_80x24(void **state)
{
	(void)state;
	struct tui_layout l;
	build_at(&l, 80, 24, "R TL Topic Pub QoS Rcvd Hz BW/s Written LostT LostR", 24);
	/* The name takes what is left: the last column ends at the edge. */
	assert_int_equal(l.c[l.n_cols - 1].x + l.c[l.n_cols - 1].width, 80);
	assert_int_equal(l.head_y, 3);
	assert_int_equal(l.table_y, 4);
	assert_int_equal(l.table_h, 18);
	assert_int_equal(l.event_y, 22);
	assert_int_equal(l.bar_y, 23);
}

static void test_60x12(void **state)
{
	(void)state;
	struct tui_layout l;
	build_at(&l, 60, 12, "R TL Topic QoS Hz BW/s Written LostT LostR", 14);
	assert_int_equal(l.table_h, 6);
	assert_int_equal(l.bar_y, 11);
}

static void test_132x43(void **state)
{
	(void)state;
	struct tui_layout l;
	build_at(&l, 132, 43, "R TL Topic Type Pub QoS Rcvd Hz BW/s Written LostT LostR", 47);
	assert_int_equal(col_width(&l, TUI_COL_TYPE), 28);
	assert_int_equal(l.table_h, 37);
}

/* Narrower still (never shown, the minimum is 60): name and losses are
 * the last to go. */
static void test_drop_order(void **state)
{
	(void)state;
	struct tui_layout l;
	for (int cols = 132; cols >= TUI_MIN_COLS; cols--) {
		tui_layout_build(&l, cols, 24);
		check_columns(&l);
		assert_true(l.visible & (1u << TUI_COL_NAME));
		assert_true(l.visible & (1u << TUI_COL_LOST_T));
		assert_true(l.visible & (1u << TUI_COL_LOST_R));
	}
	tui_layout_build(&l, 83, 24);
	assert_true(l.visible & (1u << TUI_COL_TYPE));
	tui_layout_build(&l, 82, 24);
	assert_false(l.visible & (1u << TUI_COL_TYPE));
}

static void test_too_small(void **state)
{
	(void)state;
	struct tui_layout l;
	tui_layout_build(&l, 59, 12);
	assert_true(l.too_small);
	assert_int_equal(l.n_cols, 0);
	tui_layout_build(&l, 60, 11);
	assert_true(l.too_small);
	tui_layout_build(&l, 50, 10);
	assert_true(l.too_small);
	tui_layout_build(&l, 0, 0);
	assert_true(l.too_small);
	tui_layout_build(&l, 60, 12);
	assert_false(l.too_small);
}

/* tui_layout_fit: the text, the width, UTF-8 or ASCII mode; the length and
 * the text it gives. */
static const struct fit_case {
	const char *in;
	int width;
	bool utf8;
	int n;
	const char *want;
} fit_cases[] = {
	{"/camera/image", 20, true, 13, "/camera/image"},
	{"/camera/image", 8, true, 8, "/camera\xe2\x80\xa6"},
	{"/camera/image", 8, false, 8, "/camera~"},
	{"/camera/image", 13, false, 13, "/camera/image"},
	/* One code point, one column; ASCII mode shows '?' for each byte. */
	{"/k\xc3\xa4se", 5, true, 5, "/k\xc3\xa4se"},
	{"/k\xc3\xa4se", 6, false, 6, "/k??se"},
	/* Broken UTF-8 and control characters never reach the terminal. */
	{"a\xc3(b\x1b", 10, true, 5, "a?(b?"},
	{"abc", 0, true, 0, ""},
	{"abc", 1, false, 1, "~"},
};

static void test_fit(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof fit_cases / sizeof fit_cases[0]; i++) {
		const struct fit_case *c = &fit_cases[i];
		char b[64];
		assert_int_equal(tui_layout_fit(c->in, c->width, c->utf8, b, sizeof b), c->n);
		assert_string_equal(b, c->want);
	}
}

TU_MAIN(
	cmocka_unit_test(test_80x24),
	cmocka_unit_test(test_60x12),
	cmocka_unit_test(test_132x43),
	cmocka_unit_test(test_drop_order),
	cmocka_unit_test(test_too_small),
	cmocka_unit_test(test_fit))
