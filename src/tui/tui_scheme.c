#include "tui_scheme.h"

#include <stdio.h>

#define ST(fg, bg, fl) {TUI_C_##fg, TUI_C_##bg, fl}

const struct tui_scheme tui_scheme_colour = {
	"colour",
	{
		[TUI_E_NORMAL] = ST(DEFAULT, DEFAULT, 0),
		[TUI_E_HEADER] = ST(CYAN, DEFAULT, 0),
		[TUI_E_VALUE] = ST(DEFAULT, DEFAULT, TUI_S_BOLD),
		[TUI_E_STATE] = ST(GREEN, DEFAULT, TUI_S_BOLD),
		[TUI_E_STATE_IDLE] = ST(YELLOW, DEFAULT, TUI_S_BOLD),
		[TUI_E_COLS] = ST(BLACK, GREEN, 0),
		[TUI_E_COLS_SORT] = ST(BLACK, CYAN, TUI_S_BOLD),
		[TUI_E_SELECTED] = ST(BLACK, CYAN, 0),
		[TUI_E_DISABLED] = ST(DEFAULT, DEFAULT, TUI_S_DIM),
		[TUI_E_LOSS] = ST(RED, DEFAULT, TUI_S_BOLD),
		[TUI_E_WARNING] = ST(YELLOW, DEFAULT, TUI_S_BOLD),
		[TUI_E_ERROR] = ST(RED, DEFAULT, TUI_S_BOLD),
		[TUI_E_BAR] = ST(GREEN, DEFAULT, 0),
		[TUI_E_DIM] = ST(DEFAULT, DEFAULT, TUI_S_DIM),
		[TUI_E_KEY] = ST(DEFAULT, DEFAULT, 0),
		[TUI_E_KEY_LABEL] = ST(BLACK, CYAN, 0),
		[TUI_E_DIALOG] = ST(WHITE, BLUE, TUI_S_BOLD),
		[TUI_E_DIALOG_ERROR] = ST(YELLOW, BLUE, TUI_S_BOLD),
	},
};

/* Readable without colour: nothing depends on dim alone (the recorded
 * mark and the event text carry the meaning too). */
const struct tui_scheme tui_scheme_mono = {
	"mono",
	{
		[TUI_E_NORMAL] = ST(DEFAULT, DEFAULT, 0),
		[TUI_E_HEADER] = ST(DEFAULT, DEFAULT, 0),
		[TUI_E_VALUE] = ST(DEFAULT, DEFAULT, TUI_S_BOLD),
		[TUI_E_STATE] = ST(DEFAULT, DEFAULT, TUI_S_BOLD),
		[TUI_E_STATE_IDLE] = ST(DEFAULT, DEFAULT, TUI_S_BOLD | TUI_S_UNDERLINE),
		[TUI_E_COLS] = ST(DEFAULT, DEFAULT, TUI_S_BOLD),
		[TUI_E_COLS_SORT] = ST(DEFAULT, DEFAULT, TUI_S_BOLD | TUI_S_UNDERLINE),
		[TUI_E_SELECTED] = ST(DEFAULT, DEFAULT, TUI_S_REVERSE),
		[TUI_E_DISABLED] = ST(DEFAULT, DEFAULT, TUI_S_DIM),
		[TUI_E_LOSS] = ST(DEFAULT, DEFAULT, TUI_S_BOLD),
		[TUI_E_WARNING] = ST(DEFAULT, DEFAULT, TUI_S_UNDERLINE),
		[TUI_E_ERROR] = ST(DEFAULT, DEFAULT, TUI_S_BOLD | TUI_S_UNDERLINE),
		[TUI_E_BAR] = ST(DEFAULT, DEFAULT, TUI_S_BOLD),
		[TUI_E_DIM] = ST(DEFAULT, DEFAULT, 0),
		[TUI_E_KEY] = ST(DEFAULT, DEFAULT, TUI_S_BOLD),
		[TUI_E_KEY_LABEL] = ST(DEFAULT, DEFAULT, TUI_S_REVERSE),
		[TUI_E_DIALOG] = ST(DEFAULT, DEFAULT, TUI_S_REVERSE),
		[TUI_E_DIALOG_ERROR] = ST(DEFAULT, DEFAULT, TUI_S_REVERSE | TUI_S_UNDERLINE),
	},
};

static const char *const tui_elem_names[TUI_E_COUNT] = {
	"normal", "header", "value",    "state", "state-idle", "cols",  "cols-sort", "selected",
	"disabled", "loss", "warning", "error", "bar",        "dim",   "key",       "key-label",
	"dialog", "dialog-error",
};

static const char *const tui_colour_names[] = {"default", "black", "red",     "green", "yellow",
					       "blue",    "magenta", "cyan", "white"};

const char *tui_scheme_elem_name(enum tui_elem e)
{
	return e < TUI_E_COUNT ? tui_elem_names[e] : "?";
}

static void tui_style_add(char *out, size_t n, size_t *len, const char *what)
{
	int w = snprintf(out + *len, n - *len, "%s%s", *len ? "," : "", what);
	if (w > 0 && (size_t)w < n - *len)
		*len += (size_t)w;
}

void tui_style_describe(const struct tui_style *s, char *out, size_t n)
{
	size_t len = 0;
	char c[24];
	out[0] = '\0';
	if (s->flags & TUI_S_BOLD)
		tui_style_add(out, n, &len, "b");
	if (s->flags & TUI_S_REVERSE)
		tui_style_add(out, n, &len, "r");
	if (s->flags & TUI_S_UNDERLINE)
		tui_style_add(out, n, &len, "u");
	if (s->flags & TUI_S_DIM)
		tui_style_add(out, n, &len, "d");
	if (s->fg != TUI_C_DEFAULT && s->fg <= TUI_C_WHITE) {
		snprintf(c, sizeof c, "fg=%s", tui_colour_names[s->fg]);
		tui_style_add(out, n, &len, c);
	}
	if (s->bg != TUI_C_DEFAULT && s->bg <= TUI_C_WHITE) {
		snprintf(c, sizeof c, "bg=%s", tui_colour_names[s->bg]);
		tui_style_add(out, n, &len, c);
	}
}
