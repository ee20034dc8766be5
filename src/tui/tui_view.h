/* tui_view — builds a frame (the screen as a grid of cells in memory, as
 * tmux's grid) from the model, the UI state and the layout: the topic
 * table with its header, cache bar, event line and key bar (in play: the
 * player's header with its progress bar, and play's columns and keys); the help and
 * log views; the quit, depth and snapshot dialogs; "finishing bag"; "too
 * small".
 * Only the renderer turns a frame into terminal bytes, so tests compare
 * frames as text (tui_frame_text) or as text with style markup
 * (tui_frame_markup). Deterministic: no clock reads (times come from the
 * model; event times are shown in local time, TZ decides). Pure. */
#ifndef TUI_VIEW_H
#define TUI_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "tui_layout.h"
#include "tui_model.h"
#include "tui_scheme.h"
#include "tui_state.h"

/* One screen column: a character (UTF-8, one code point) and an element. */
struct tui_cell {
	char ch[5];
	uint8_t elem; /* enum tui_elem */
};

struct tui_frame {
	int cols, rows;
	bool utf8; /* glyphs: "…" and box lines when set, ASCII otherwise */
	struct tui_cell *cells; /* rows * cols, row-major */
	size_t cap;
};

/* An empty 0x0 frame. fini frees the cells. */
void tui_frame_init(struct tui_frame *f, bool utf8);
void tui_frame_fini(struct tui_frame *f);
/* Sets the size and blanks every cell. Aborts on out-of-memory. */
void tui_frame_reset(struct tui_frame *f, int cols, int rows);
/* The cell at (x, y); NULL outside the frame. */
struct tui_cell *tui_frame_at(const struct tui_frame *f, int x, int y);
/* Writes `text` from (x, y), at most `max` columns and never past the
 * right edge, one code point per column (bytes outside ASCII become '?'
 * without utf8). Returns the column after the last one written. */
int tui_frame_put(struct tui_frame *f, int x, int y, enum tui_elem e, const char *text, int max);
/* The frame as text: each row with its trailing blanks removed and a
 * '\n'. Malloc'ed; the caller frees. */
char *tui_frame_text(const struct tui_frame *f);
/* As tui_frame_text, with each run of styled cells wrapped in
 * "{style}...{/}" (tui_style_describe under `sc`). Malloc'ed. */
char *tui_frame_markup(const struct tui_frame *f, const struct tui_scheme *sc);

/* Lines of the mode's help view at this width (for
 * tui_state_set_help_lines). */
size_t tui_view_help_lines(enum tui_mode mode, int cols);
/* Builds the whole screen for the layout's size into f (resized to it). */
void tui_view_build(struct tui_frame *f, const struct tui_model *m, const struct tui_state *s,
		    const struct tui_layout *l);

#endif
