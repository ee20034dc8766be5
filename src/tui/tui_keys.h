/* tui_keys — the key tables of the live view, one per mode (record,
 * play): key codes → action, short label (the F-key bar) and help text.
 * The key handler, the help screen, the key bar and the man page's
 * INTERACTIVE COMMANDS sections are all generated from them, so they
 * cannot disagree.
 *
 * Key codes are our own (this file must not include curses.h): printable
 * characters and control characters are their ASCII values; the renderer
 * maps curses' KEY_* codes to the TUI_KEY_* constants below. Pure. */
#ifndef TUI_KEYS_H
#define TUI_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum {
	TUI_KEY_NONE = -1, /* no key (read timed out) */
	TUI_KEY_TAB = 9,
	TUI_KEY_ENTER = 10,
	TUI_KEY_CTRL_L = 12,
	TUI_KEY_ESC = 27,
	TUI_KEY_SPACE = ' ',
	TUI_KEY_DEL = 127,
	TUI_KEY_UP = 0x1000,
	TUI_KEY_DOWN,
	TUI_KEY_LEFT,
	TUI_KEY_RIGHT,
	TUI_KEY_PGUP,
	TUI_KEY_PGDN,
	TUI_KEY_HOME,
	TUI_KEY_END,
	TUI_KEY_BACKSPACE,
	TUI_KEY_RESIZE, /* the terminal changed size */
	TUI_KEY_F0 = 0x1100
};
#define TUI_KEY_F(n) (TUI_KEY_F0 + (n)) /* F1..F12 */

/* Which session the live view shows: each has its own key table, columns,
 * header and help. */
enum tui_mode { TUI_MODE_RECORD = 0, TUI_MODE_PLAY, TUI_MODE_COUNT };

enum tui_action {
	TUI_ACT_NONE = 0,
	TUI_ACT_HELP,
	TUI_ACT_FILTER,
	TUI_ACT_SORT_NEXT,
	TUI_ACT_SORT_PREV,
	TUI_ACT_SORT_INVERT,
	TUI_ACT_SORT_NAME,
	TUI_ACT_SORT_RATE,
	TUI_ACT_SORT_BYTES,
	TUI_ACT_SORT_LOSSES,
	TUI_ACT_TOGGLE_TOPIC,
	TUI_ACT_MARK_TL,
	TUI_ACT_ASK_TL_DEPTH,
	TUI_ACT_SNAPSHOT,
	TUI_ACT_PAUSE,
	TUI_ACT_SPLIT,
	TUI_ACT_LOG_VIEW,
	TUI_ACT_FILE_COUNTS,
	TUI_ACT_REDRAW,
	TUI_ACT_UP,
	TUI_ACT_DOWN,
	TUI_ACT_PGUP,
	TUI_ACT_PGDN,
	TUI_ACT_HOME,
	TUI_ACT_END,
	TUI_ACT_QUIT,
	/* play */
	TUI_ACT_SORT_LATE,
	TUI_ACT_STEP,    /* play the next message (while paused) */
	TUI_ACT_FASTER,  /* rate x 1.1 */
	TUI_ACT_SLOWER,  /* rate / 1.1 */
	TUI_ACT_SEEK_BACK,
	TUI_ACT_SEEK_FWD,
	TUI_ACT_RESTART,
	TUI_ACT_LOOP,
	TUI_ACT_SELECT, /* show the selection (play: Space then mutes) */
	TUI_ACT_MUTE,   /* mute or unmute the selected topic */
	TUI_ACT_COUNT
};

/* A key that means something else while the selection is shown: play
 * shows its selection only on demand, and Space is "mute the selected
 * topic" while it is shown, "pause" otherwise. In a table,
 * TUI_KEY_SEL(' ') binds Space while a row is selected; it wins over the
 * plain key then. */
#define TUI_KEY_SEL_FLAG 0x10000
#define TUI_KEY_SEL(k) ((k) | TUI_KEY_SEL_FLAG)

#define TUI_KEYS_PER_ACTION 4

struct tui_key_binding {
	int keys[TUI_KEYS_PER_ACTION]; /* 0-terminated when shorter */
	enum tui_action action;
	const char *label; /* in the key bar, NULL = not shown there */
	const char *help;  /* one line, lower case, no final period */
};

/* The mode's table, in the order of the help screen and the man page. */
const struct tui_key_binding *tui_keys_table(enum tui_mode mode, size_t *n);
/* The action bound to `key` in the mode (sel: the selection is shown,
 * and a TUI_KEY_SEL binding of the key wins); TUI_ACT_NONE when none. */
enum tui_action tui_keys_action(enum tui_mode mode, int key, bool sel);
/* The first key of binding b that means its action now (sel as above),
 * without TUI_KEY_SEL_FLAG; 0 when none does (b does not apply now). */
int tui_keys_live_key(enum tui_mode mode, const struct tui_key_binding *b, bool sel);
/* A key's name: "q", "Space", "Tab", "Ctrl-L", "F10", "Up", "PgDn" (the
 * same with TUI_KEY_SEL). */
void tui_keys_name(int key, char *out, size_t n);
/* Every key of a binding: "?, F1, h". */
void tui_keys_names(const struct tui_key_binding *b, char *out, size_t n);
/* Help screen line i (of the table's n): keys padded to a column, then
 * the help text. */
void tui_keys_help_line(enum tui_mode mode, size_t i, char *out, size_t n);
/* Prints the mode's man page section, INTERACTIVE COMMANDS or INTERACTIVE
 * COMMANDS (play) (.SH, then one .TP entry per binding, groff-escaped).
 * Returns 0, or -1 on a write error. */
int tui_keys_man(enum tui_mode mode, FILE *out);

#endif
