#include "tui_layout.h"

#include <string.h>

/* What a column is, whatever the mode. */
static const struct {
	const char *title;
	bool right; /* values right-aligned */
} tui_col_names[TUI_COL_COUNT] = {
	[TUI_COL_ON] = {"R", false},          [TUI_COL_TL] = {"TL", true},
	[TUI_COL_NAME] = {"Topic", false},    [TUI_COL_TYPE] = {"Type", false},
	[TUI_COL_PUBS] = {"Pub", true},       [TUI_COL_QOS] = {"QoS", false},
	[TUI_COL_MSGS] = {"Rcvd", true},      [TUI_COL_RATE] = {"Hz", true},
	[TUI_COL_BW] = {"BW/s", true},        [TUI_COL_BYTES] = {"Written", true},
	[TUI_COL_LOST_T] = {"LostT", true},   [TUI_COL_LOST_R] = {"LostR", true},
	[TUI_COL_THROTTLED] = {"Thrtl", true}, [TUI_COL_MUTED] = {"M", false},
	[TUI_COL_SENT] = {"Sent/Total", true}, [TUI_COL_SUBS] = {"Sub", true},
	[TUI_COL_LATE] = {"Late", true},
};

/* A mode's column, in its place from left to right. */
struct tui_col_spec {
	enum tui_col col;
	int min;   /* narrowest useful width */
	int ideal; /* flexible columns grow to this first, 0 = fixed */
	int drop;  /* hiding order as the width shrinks: 1 first, 0 never */
};

/* Fixed widths fit the formatters: counts and rates at most 5 columns,
 * bytes 7 ("999 KiB"). */
static const struct tui_col_spec tui_record_cols[] = {
	{TUI_COL_ON, 1, 0, 9},     {TUI_COL_TL, 3, 0, 7},      {TUI_COL_NAME, 12, 32, 0},
	{TUI_COL_TYPE, 14, 28, 1}, {TUI_COL_PUBS, 3, 0, 2},    {TUI_COL_QOS, 5, 0, 4},
	{TUI_COL_MSGS, 5, 0, 3},   {TUI_COL_RATE, 5, 0, 8},    {TUI_COL_BW, 7, 0, 6},
	{TUI_COL_BYTES, 7, 0, 5},  {TUI_COL_LOST_T, 5, 0, 10}, {TUI_COL_LOST_R, 5, 0, 10},
	{TUI_COL_THROTTLED, 5, 0, 5},
};

/* Sent/Total: two counts and a slash. */
static const struct tui_col_spec tui_play_cols[] = {
	{TUI_COL_MUTED, 1, 0, 9}, {TUI_COL_NAME, 12, 32, 0}, {TUI_COL_TYPE, 14, 28, 1},
	{TUI_COL_QOS, 5, 0, 4},   {TUI_COL_SENT, 11, 0, 0},  {TUI_COL_RATE, 5, 0, 6},
	{TUI_COL_BW, 7, 0, 3},    {TUI_COL_SUBS, 3, 0, 2},   {TUI_COL_LATE, 5, 0, 10},
};

static const struct {
	const struct tui_col_spec *c;
	size_t n;
} tui_mode_cols[TUI_MODE_COUNT] = {
	[TUI_MODE_RECORD] = {tui_record_cols, sizeof tui_record_cols / sizeof tui_record_cols[0]},
	[TUI_MODE_PLAY] = {tui_play_cols, sizeof tui_play_cols / sizeof tui_play_cols[0]},
};

const char *tui_layout_col_title(enum tui_col c)
{
	return tui_col_names[c].title;
}

bool tui_layout_col_right(enum tui_col c)
{
	return tui_col_names[c].right;
}

unsigned tui_layout_mode_columns(enum tui_mode mode)
{
	unsigned set = 0;
	for (size_t i = 0; i < tui_mode_cols[mode].n; i++)
		set |= 1u << tui_mode_cols[mode].c[i].col;
	return set;
}

size_t tui_layout_mode_order(enum tui_mode mode, enum tui_col *out)
{
	for (size_t i = 0; i < tui_mode_cols[mode].n; i++)
		out[i] = tui_mode_cols[mode].c[i].col;
	return tui_mode_cols[mode].n;
}

/* The mode's spec of column c; NULL when it has none. */
static const struct tui_col_spec *tui_layout_spec(enum tui_mode mode, int c)
{
	for (size_t i = 0; i < tui_mode_cols[mode].n; i++)
		if ((int)tui_mode_cols[mode].c[i].col == c)
			return &tui_mode_cols[mode].c[i];
	return NULL;
}

/* Width of the shown columns at their minimum, with one space between. */
static int tui_layout_min_width(enum tui_mode mode, unsigned visible)
{
	int w = -1;
	for (size_t i = 0; i < tui_mode_cols[mode].n; i++)
		if (visible & (1u << tui_mode_cols[mode].c[i].col))
			w += tui_mode_cols[mode].c[i].min + 1;
	return w;
}

/* Hides the next column in dropping order; false when none is left. */
static bool tui_layout_drop_one(enum tui_mode mode, unsigned *visible)
{
	const struct tui_col_spec *best = NULL;
	for (size_t i = 0; i < tui_mode_cols[mode].n; i++) {
		const struct tui_col_spec *c = &tui_mode_cols[mode].c[i];
		if ((*visible & (1u << c->col)) && c->drop > 0 && (!best || c->drop < best->drop))
			best = c;
	}
	if (!best)
		return false;
	*visible &= ~(1u << best->col);
	return true;
}

static void tui_layout_columns(struct tui_layout *l, enum tui_mode mode, bool throttled)
{
	unsigned visible = tui_layout_mode_columns(mode);
	if (!throttled)
		visible &= ~(1u << TUI_COL_THROTTLED);
	while (tui_layout_min_width(mode, visible) > l->cols && tui_layout_drop_one(mode, &visible))
		;
	int width[TUI_COL_COUNT] = {0};
	int spare = l->cols - tui_layout_min_width(mode, visible);
	for (size_t i = 0; i < tui_mode_cols[mode].n; i++)
		width[tui_mode_cols[mode].c[i].col] = tui_mode_cols[mode].c[i].min;
	/* Name grows to its ideal, then type, then name takes the rest. */
	static const enum tui_col grow[] = {TUI_COL_NAME, TUI_COL_TYPE};
	for (size_t g = 0; g < 2; g++) {
		enum tui_col c = grow[g];
		const struct tui_col_spec *sp = tui_layout_spec(mode, c);
		if (!sp || !(visible & (1u << c)))
			continue;
		int add = sp->ideal - width[c];
		add = add < spare ? add : spare;
		width[c] += add;
		spare -= add;
	}
	width[TUI_COL_NAME] += spare > 0 ? spare : 0;
	l->visible = visible;
	l->n_cols = 0;
	int x = 0;
	for (size_t i = 0; i < tui_mode_cols[mode].n; i++) {
		enum tui_col c = tui_mode_cols[mode].c[i].col;
		if (!(visible & (1u << c)))
			continue;
		l->c[l->n_cols++] = (struct tui_layout_col){c, x, width[c]};
		x += width[c] + 1;
	}
}

void tui_layout_build(struct tui_layout *l, int cols, int rows)
{
	tui_layout_build_mode(l, cols, rows, TUI_MODE_RECORD, false);
}

void tui_layout_build_opt(struct tui_layout *l, int cols, int rows, bool throttled)
{
	tui_layout_build_mode(l, cols, rows, TUI_MODE_RECORD, throttled);
}

void tui_layout_build_mode(struct tui_layout *l, int cols, int rows, enum tui_mode mode,
			   bool throttled)
{
	memset(l, 0, sizeof *l);
	l->cols = cols;
	l->rows = rows;
	l->too_small = cols < TUI_MIN_COLS || rows < TUI_MIN_ROWS;
	if (l->too_small)
		return;
	l->head_y = TUI_HEADER_ROWS;
	l->table_y = l->head_y + 1;
	l->bar_y = rows - 1;
	l->event_y = rows - 2;
	l->table_h = l->event_y - l->table_y;
	tui_layout_columns(l, mode, throttled);
}

size_t tui_layout_u8len(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t n;
	if (*s < 0x80)
		return 1;
	if ((*s & 0xe0) == 0xc0)
		n = 2;
	else if ((*s & 0xf0) == 0xe0)
		n = 3;
	else if ((*s & 0xf8) == 0xf0)
		n = 4;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* Columns `s` needs (one per code point, or per byte without utf8). */
static int tui_layout_width(const char *s, bool utf8)
{
	int w = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; w++) {
		size_t len = utf8 ? tui_layout_u8len((const char *)p) : 1;
		p += len ? len : 1;
	}
	return w;
}

int tui_layout_fit(const char *s, int width, bool utf8, char *out, size_t n)
{
	const char *ell = utf8 ? "\xe2\x80\xa6" : "~";
	int keep = tui_layout_width(s, utf8) > width ? width - 1 : width;
	size_t o = 0;
	int w = 0;
	const unsigned char *p = (const unsigned char *)s;
	for (; *p && w < keep && o + 5 < n; w++) {
		size_t len = utf8 ? tui_layout_u8len((const char *)p) : (*p < 0x80);
		if (len == 0 || (!utf8 && *p >= 0x80) || *p < 0x20) {
			out[o++] = '?';
			p++;
			continue;
		}
		memcpy(out + o, p, len);
		o += len;
		p += len;
	}
	if (*p && width > 0 && o + strlen(ell) < n) {
		memcpy(out + o, ell, strlen(ell));
		o += strlen(ell);
		w++;
	}
	out[o] = '\0';
	return w;
}
