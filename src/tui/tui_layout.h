/* tui_layout — where things go at a terminal size: which table columns
 * show and how wide (each mode has its columns, as data; they hide by
 * priority as the width shrinks; the topic name and the two loss columns
 * go last), the rows of the header,
 * table, event line and key bar, and "too small" below 60x12. Also the
 * one text fitter (cut to a width with an ellipsis). Pure. */
#ifndef TUI_LAYOUT_H
#define TUI_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui_keys.h"

#define TUI_MIN_COLS 60
#define TUI_MIN_ROWS 12
#define TUI_HEADER_ROWS 3 /* state/bag, totals, cache/disk */

enum tui_col {
	TUI_COL_ON = 0, /* recorded mark */
	TUI_COL_TL,     /* repeat-transient-local depth */
	TUI_COL_NAME,
	TUI_COL_TYPE,
	TUI_COL_PUBS,
	TUI_COL_QOS,
	TUI_COL_MSGS,
	TUI_COL_RATE,
	TUI_COL_BW,
	TUI_COL_BYTES,
	TUI_COL_LOST_T,
	TUI_COL_LOST_R,
	TUI_COL_THROTTLED, /* optional: only while some topic has a --throttle rule */
	/* play */
	TUI_COL_MUTED,
	TUI_COL_SENT, /* published / in the bag */
	TUI_COL_SUBS,
	TUI_COL_LATE,
	TUI_COL_COUNT
};

struct tui_layout_col {
	enum tui_col col;
	int x;
	int width;
};

struct tui_layout {
	int cols, rows;
	bool too_small;
	size_t n_cols; /* shown columns, left to right */
	struct tui_layout_col c[TUI_COL_COUNT];
	unsigned visible; /* bit (1u << col) per shown column */
	int head_y;       /* column titles */
	int table_y;      /* first topic row */
	int table_h;      /* topic rows that fit */
	int event_y;
	int bar_y;
};

/* Lays out a cols x rows terminal for a recording, without the optional
 * columns. */
void tui_layout_build(struct tui_layout *l, int cols, int rows);
/* The same, with the Thrtl column when `throttled` (tui_header.throttling):
 * it hides, as the width shrinks, right after the Written column. */
void tui_layout_build_opt(struct tui_layout *l, int cols, int rows, bool throttled);
/* The same for the mode's columns (throttled: record only). */
void tui_layout_build_mode(struct tui_layout *l, int cols, int rows, enum tui_mode mode,
			   bool throttled);
/* The mode's columns: bit (1u << col) each (the optional ones too). */
unsigned tui_layout_mode_columns(enum tui_mode mode);
/* The mode's columns from left to right into out[TUI_COL_COUNT]; returns
 * how many. */
size_t tui_layout_mode_order(enum tui_mode mode, enum tui_col *out);
/* The column's title ("Topic", "Hz"...) and whether its values are
 * right-aligned. */
const char *tui_layout_col_title(enum tui_col c);
bool tui_layout_col_right(enum tui_col c);
/* Writes `s` cut to `width` display columns into out (NUL-terminated),
 * ending in an ellipsis when cut: "…" when utf8, "~" otherwise. Without
 * utf8, bytes outside ASCII become '?'; with it, each code point counts
 * as one column and broken sequences become '?'. Returns the columns
 * used. */
int tui_layout_fit(const char *s, int width, bool utf8, char *out, size_t n);
/* Length of the valid UTF-8 sequence that starts at s (1 for ASCII and
 * NUL), 0 when the bytes are not valid UTF-8. */
size_t tui_layout_u8len(const char *s);

#endif
