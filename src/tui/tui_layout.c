#include "tui_layout.h"

#include <string.h>

struct tui_col_spec {
	const char *title;
	int min;     /* narrowest useful width */
	int ideal;   /* flexible columns grow to this first, 0 = fixed */
	int drop;    /* hiding order as the width shrinks: 1 first, 0 never */
	bool right;
};

/* Fixed widths fit the formatters: counts and rates at most 5 columns,
 * bytes 7 ("999 KiB"). */
static const struct tui_col_spec tui_cols[TUI_COL_COUNT] = {
	[TUI_COL_ON] = {"R", 1, 0, 9, false},
	[TUI_COL_TL] = {"TL", 3, 0, 7, true},
	[TUI_COL_NAME] = {"Topic", 12, 32, 0, false},
	[TUI_COL_TYPE] = {"Type", 14, 28, 1, false},
	[TUI_COL_PUBS] = {"Pub", 3, 0, 2, true},
	[TUI_COL_QOS] = {"QoS", 5, 0, 4, false},
	[TUI_COL_MSGS] = {"Rcvd", 5, 0, 3, true},
	[TUI_COL_RATE] = {"Hz", 5, 0, 8, true},
	[TUI_COL_BW] = {"BW/s", 7, 0, 6, true},
	[TUI_COL_BYTES] = {"Written", 7, 0, 5, true},
	[TUI_COL_LOST_T] = {"LostT", 5, 0, 10, true},
	[TUI_COL_LOST_R] = {"LostR", 5, 0, 10, true},
	[TUI_COL_THROTTLED] = {"Thrtl", 5, 0, 5, true},
};

const char *tui_layout_col_title(enum tui_col c)
{
	return tui_cols[c].title;
}

bool tui_layout_col_right(enum tui_col c)
{
	return tui_cols[c].right;
}

/* Width of the shown columns at their minimum, with one space between. */
static int tui_layout_min_width(unsigned visible)
{
	int w = -1;
	for (int c = 0; c < TUI_COL_COUNT; c++)
		if (visible & (1u << c))
			w += tui_cols[c].min + 1;
	return w;
}

/* Hides the next column in dropping order; false when none is left. */
static bool tui_layout_drop_one(unsigned *visible)
{
	int best = -1;
	for (int c = 0; c < TUI_COL_COUNT; c++)
		if ((*visible & (1u << c)) && tui_cols[c].drop > 0 &&
		    (best < 0 || tui_cols[c].drop < tui_cols[best].drop))
			best = c;
	if (best < 0)
		return false;
	*visible &= ~(1u << best);
	return true;
}

static void tui_layout_columns(struct tui_layout *l, bool throttled)
{
	unsigned visible = (1u << TUI_COL_COUNT) - 1;
	if (!throttled)
		visible &= ~(1u << TUI_COL_THROTTLED);
	while (tui_layout_min_width(visible) > l->cols && tui_layout_drop_one(&visible))
		;
	int width[TUI_COL_COUNT] = {0};
	int spare = l->cols - tui_layout_min_width(visible);
	for (int c = 0; c < TUI_COL_COUNT; c++)
		width[c] = tui_cols[c].min;
	/* Name grows to its ideal, then type, then name takes the rest. */
	static const enum tui_col grow[] = {TUI_COL_NAME, TUI_COL_TYPE};
	for (size_t g = 0; g < 2; g++) {
		enum tui_col c = grow[g];
		if (!(visible & (1u << c)))
			continue;
		int add = tui_cols[c].ideal - width[c];
		add = add < spare ? add : spare;
		width[c] += add;
		spare -= add;
	}
	width[TUI_COL_NAME] += spare > 0 ? spare : 0;
	l->visible = visible;
	l->n_cols = 0;
	for (int c = 0, x = 0; c < TUI_COL_COUNT; c++) {
		if (!(visible & (1u << c)))
			continue;
		l->c[l->n_cols++] = (struct tui_layout_col){(enum tui_col)c, x, width[c]};
		x += width[c] + 1;
	}
}

void tui_layout_build(struct tui_layout *l, int cols, int rows)
{
	tui_layout_build_opt(l, cols, rows, false);
}

void tui_layout_build_opt(struct tui_layout *l, int cols, int rows, bool throttled)
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
	tui_layout_columns(l, throttled);
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
