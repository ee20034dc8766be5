/* tui_scheme — semantic screen elements and the two schemes that style
 * them: colour, and monochrome (NO_COLOR or a terminal without colours:
 * reverse for the selection, bold for headers, underline for warnings).
 * Styles are described with our own colour names so the view and its
 * tests stay free of curses; the renderer maps them. Pure. */
#ifndef TUI_SCHEME_H
#define TUI_SCHEME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum tui_elem {
	TUI_E_NORMAL = 0,
	TUI_E_HEADER,     /* header labels */
	TUI_E_VALUE,      /* header values */
	TUI_E_STATE,      /* RECORDING */
	TUI_E_STATE_IDLE, /* PAUSED, STOPPING */
	TUI_E_COLS,       /* column titles */
	TUI_E_COLS_SORT,  /* title of the sort column */
	TUI_E_SELECTED,   /* the selected row */
	TUI_E_DISABLED,   /* a topic not being recorded */
	TUI_E_LOSS,       /* non-zero loss counts */
	TUI_E_WARNING,    /* disk nearly full, warnings in the event line */
	TUI_E_ERROR,
	TUI_E_BAR,        /* filled part of the cache bar */
	TUI_E_DIM,        /* secondary text (times, units) */
	TUI_E_KEY,        /* key in the key bar */
	TUI_E_KEY_LABEL,  /* its label */
	TUI_E_DIALOG,     /* dialog box and prompts */
	TUI_E_DIALOG_ERROR, /* why a dialog did not take its values, in the box */
	TUI_E_COUNT
};

enum tui_colour {
	TUI_C_DEFAULT = 0,
	TUI_C_BLACK,
	TUI_C_RED,
	TUI_C_GREEN,
	TUI_C_YELLOW,
	TUI_C_BLUE,
	TUI_C_MAGENTA,
	TUI_C_CYAN,
	TUI_C_WHITE
};

enum { TUI_S_BOLD = 1, TUI_S_REVERSE = 2, TUI_S_UNDERLINE = 4, TUI_S_DIM = 8 };

struct tui_style {
	uint8_t fg, bg; /* enum tui_colour */
	uint8_t flags;  /* TUI_S_* */
};

struct tui_scheme {
	const char *name; /* "colour", "mono" */
	struct tui_style s[TUI_E_COUNT];
};

extern const struct tui_scheme tui_scheme_colour;
extern const struct tui_scheme tui_scheme_mono;

/* The element's name ("selected"). */
const char *tui_scheme_elem_name(enum tui_elem e);
/* A style as text for golden frames: "b,r,u,d,fg=red,bg=cyan"; "" when
 * plain. */
void tui_style_describe(const struct tui_style *s, char *out, size_t n);

#endif
