/* tui_screen — the renderer: the only file that includes curses.h. It
 * opens the terminal (UTF-8 glyphs when the locale's character set is
 * UTF-8, ASCII otherwise; the colour scheme when the terminal has colours
 * and NO_COLOR is unset or empty, the monochrome scheme otherwise), draws
 * frames by writing only the rows that changed since the previous frame
 * (a full repaint only when asked: Ctrl-L), reads keys with a timeout
 * and notices size changes. Not thread-safe: one thread (the UI loop)
 * owns the screen. */
#ifndef TUI_SCREEN_H
#define TUI_SCREEN_H

#include <stdbool.h>

#include "bt_status.h"
#include "tui_scheme.h"
#include "tui_view.h"

struct tui_screen;

/* Sets LC_CTYPE from the environment (only LC_CTYPE: number formats stay
 * "C" for every other thread), then takes over the terminal on
 * stdin/stdout. BT_ERR_USAGE when TERM is unset or unknown; nothing is
 * changed on error. */
BT_MUST_CHECK bt_status tui_screen_open(struct tui_screen **out, struct bt_error *err);
/* Restores the terminal (cursor, echo, modes) and frees. NULL is fine. */
void tui_screen_close(struct tui_screen *s);
bool tui_screen_utf8(const struct tui_screen *s);
/* The scheme in use: tui_scheme_colour or tui_scheme_mono. */
const struct tui_scheme *tui_screen_scheme(const struct tui_screen *s);
void tui_screen_size(const struct tui_screen *s, int *cols, int *rows);
/* Writes the rows of f that differ from the last frame drawn (all of
 * them when `repaint`, after clearing the terminal), then updates the
 * terminal once. */
void tui_screen_draw(struct tui_screen *s, const struct tui_frame *f, bool repaint);
/* Waits up to `ms` milliseconds (< 0: forever) for a key. Returns a
 * tui_keys code, TUI_KEY_RESIZE when the size changed (the curses
 * screen is already resized), or TUI_KEY_NONE on timeout. */
int tui_screen_read_key(struct tui_screen *s, int ms);

#endif
