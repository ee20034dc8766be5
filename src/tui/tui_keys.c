#include "tui_keys.h"

#include <stdio.h>
#include <string.h>

#define K(...) {__VA_ARGS__}

/* The bindings both modes have, in both tables. */
#define TUI_KB_HELP \
	{K('?', TUI_KEY_F(1), 'h'), TUI_ACT_HELP, "Help", "show this help; any other key closes it"}
#define TUI_KB_FILTER_SORT \
	{K('/', TUI_KEY_F(4)), TUI_ACT_FILTER, "Filter", \
	 "filter by topic name (Enter keeps the filter, Esc clears it)"}, \
	{K(TUI_KEY_F(6), '>'), TUI_ACT_SORT_NEXT, "SortBy", "sort by the next column"}, \
	{K('<'), TUI_ACT_SORT_PREV, NULL, "sort by the previous column"}, \
	{K('I'), TUI_ACT_SORT_INVERT, NULL, "invert the sort order"}, \
	{K('N'), TUI_ACT_SORT_NAME, NULL, "sort by topic name (again: invert)"}, \
	{K('R'), TUI_ACT_SORT_RATE, NULL, "sort by rate (again: invert)"}
#define TUI_KB_LOG \
	{K(TUI_KEY_TAB), TUI_ACT_LOG_VIEW, "Log", "switch between the topic table and the event log"}
#define TUI_KB_REDRAW {K(TUI_KEY_CTRL_L), TUI_ACT_REDRAW, NULL, "redraw the whole screen"}

/* Every F-key has a letter twin (htop); quick sort keys are capitals. */
static const struct tui_key_binding tui_record_keys[] = {
	TUI_KB_HELP,
	TUI_KB_FILTER_SORT,
	{K('B'), TUI_ACT_SORT_BYTES, NULL, "sort by bytes written (again: invert)"},
	{K('L'), TUI_ACT_SORT_LOSSES, NULL,
	 "sort by losses, in transport then in the recorder (again: invert)"},
	{K(TUI_KEY_SPACE), TUI_ACT_TOGGLE_TOPIC, "Rec",
	 "start or stop recording the selected topic"},
	{K('t'), TUI_ACT_MARK_TL, "TL",
	 "(un)mark the selected topic for repeat-transient-local, depth 1"},
	{K('T'), TUI_ACT_ASK_TL_DEPTH, NULL,
	 "as t, asking for the repeat-transient-local depth"},
	{K('s'), TUI_ACT_SNAPSHOT, "Snap",
	 "write a snapshot (with --snapshot-mode): a dialog narrows its window (Before, After), "
	 "topics (Topics, Exclude) and names its file; Enter writes it, Esc cancels"},
	{K('p'), TUI_ACT_PAUSE, "Pause", "pause or resume recording"},
	{K('n'), TUI_ACT_SPLIT, "Split", "split: continue in a new bag file now"},
	TUI_KB_LOG,
	{K('f'), TUI_ACT_FILE_COUNTS, NULL,
	 "show Rcvd, Written, LostT and LostR for the file being written (again: since start)"},
	TUI_KB_REDRAW,
	{K(TUI_KEY_UP, 'k'), TUI_ACT_UP, NULL, "select the row above"},
	{K(TUI_KEY_DOWN, 'j'), TUI_ACT_DOWN, NULL, "select the row below"},
	{K(TUI_KEY_PGUP), TUI_ACT_PGUP, NULL, "one page up"},
	{K(TUI_KEY_PGDN), TUI_ACT_PGDN, NULL, "one page down"},
	{K(TUI_KEY_HOME), TUI_ACT_HOME, NULL, "select the first row"},
	{K(TUI_KEY_END), TUI_ACT_END, NULL, "select the last row"},
	{K('q', TUI_KEY_F(10)), TUI_ACT_QUIT, "Quit",
	 "quit: finish the bag and exit (asks first while recording; in snapshot mode, says "
	 "what the buffer holds and s writes it as a snapshot first)"},
};

/* Play: the arrows and Home drive the player (the keys), so the
 * selection moves with j, k and the pages. It is shown only on demand
 * (Enter, j, k...): then Space mutes the selected topic; otherwise Space
 * pauses (p always does). */
static const struct tui_key_binding tui_play_keys[] = {
	TUI_KB_HELP,
	{K(TUI_KEY_SEL(TUI_KEY_SPACE)), TUI_ACT_MUTE, "Mute",
	 "mute or unmute the selected topic (while a row is selected)"},
	{K(TUI_KEY_SPACE, 'p'), TUI_ACT_PAUSE, "Pause",
	 "pause or resume playing (Space: while no row is selected)"},
	{K('.', TUI_KEY_RIGHT), TUI_ACT_STEP, "Step", "play the next message (while paused)"},
	{K(TUI_KEY_UP, '+'), TUI_ACT_FASTER, "Faster", "play faster: rate x 1.1"},
	{K(TUI_KEY_DOWN, '-'), TUI_ACT_SLOWER, "Slower", "play slower: rate / 1.1"},
	{K('['), TUI_ACT_SEEK_BACK, "-5s", "seek 5 s back in bag time"},
	{K(']'), TUI_ACT_SEEK_FWD, "+5s", "seek 5 s forward in bag time"},
	{K(TUI_KEY_HOME), TUI_ACT_RESTART, "Restart", "play again from the start"},
	{K('l'), TUI_ACT_LOOP, "Loop", "loop on or off"},
	{K(TUI_KEY_ENTER), TUI_ACT_SELECT, NULL,
	 "select a topic row (then Space mutes it; Esc hides the selection)"},
	TUI_KB_FILTER_SORT,
	{K('L'), TUI_ACT_SORT_LATE, NULL, "sort by messages sent late (again: invert)"},
	TUI_KB_LOG,
	TUI_KB_REDRAW,
	{K('k'), TUI_ACT_UP, NULL, "select the row above"},
	{K('j'), TUI_ACT_DOWN, NULL, "select the row below"},
	{K(TUI_KEY_PGUP), TUI_ACT_PGUP, NULL, "one page up"},
	{K(TUI_KEY_PGDN), TUI_ACT_PGDN, NULL, "one page down"},
	{K(TUI_KEY_END), TUI_ACT_END, NULL, "select the last row"},
	{K('q', TUI_KEY_F(10)), TUI_ACT_QUIT, "Quit", "quit: stop playing and exit at once"},
};

static const struct {
	const struct tui_key_binding *table;
	size_t n;
	const char *section; /* the man page's */
	const char *intro;
} tui_keymaps[TUI_MODE_COUNT] = {
	[TUI_MODE_RECORD] = {tui_record_keys, sizeof tui_record_keys / sizeof tui_record_keys[0],
			     "INTERACTIVE COMMANDS",
			     "While recording with the live view, these keys act at once (s in "
			     "snapshot mode and T ask first):"},
	[TUI_MODE_PLAY] = {tui_play_keys, sizeof tui_play_keys / sizeof tui_play_keys[0],
			   "INTERACTIVE COMMANDS (play)",
			   "While playing with the live view (bagtop play), these keys act at "
			   "once:"},
};

#define TUI_HELP_KEYS_WIDTH 14

const struct tui_key_binding *tui_keys_table(enum tui_mode mode, size_t *n)
{
	*n = tui_keymaps[mode].n;
	return tui_keymaps[mode].table;
}

static enum tui_action tui_keys_find(enum tui_mode mode, int key)
{
	size_t n;
	const struct tui_key_binding *kt = tui_keys_table(mode, &n);
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < TUI_KEYS_PER_ACTION && kt[i].keys[k]; k++)
			if (kt[i].keys[k] == key)
				return kt[i].action;
	return TUI_ACT_NONE;
}

enum tui_action tui_keys_action(enum tui_mode mode, int key, bool sel)
{
	if (key == 0 || key == TUI_KEY_NONE)
		return TUI_ACT_NONE;
	enum tui_action a = sel ? tui_keys_find(mode, TUI_KEY_SEL(key)) : TUI_ACT_NONE;
	return a != TUI_ACT_NONE ? a : tui_keys_find(mode, key);
}

int tui_keys_live_key(enum tui_mode mode, const struct tui_key_binding *b, bool sel)
{
	for (size_t k = 0; k < TUI_KEYS_PER_ACTION && b->keys[k]; k++) {
		int key = b->keys[k] & ~TUI_KEY_SEL_FLAG;
		if ((b->keys[k] & TUI_KEY_SEL_FLAG) && !sel)
			continue;
		if (tui_keys_action(mode, key, sel) == b->action)
			return key;
	}
	return 0;
}

static const struct {
	int key;
	const char *name;
} tui_key_names[] = {
	{TUI_KEY_TAB, "Tab"},       {TUI_KEY_ENTER, "Enter"},   {TUI_KEY_CTRL_L, "Ctrl-L"},
	{TUI_KEY_ESC, "Esc"},       {TUI_KEY_SPACE, "Space"},   {TUI_KEY_DEL, "Del"},
	{TUI_KEY_UP, "Up"},         {TUI_KEY_DOWN, "Down"},     {TUI_KEY_LEFT, "Left"},
	{TUI_KEY_RIGHT, "Right"},   {TUI_KEY_PGUP, "PgUp"},     {TUI_KEY_PGDN, "PgDn"},
	{TUI_KEY_HOME, "Home"},     {TUI_KEY_END, "End"},       {TUI_KEY_BACKSPACE, "Backspace"},
	{TUI_KEY_RESIZE, "Resize"},
};

void tui_keys_name(int key, char *out, size_t n)
{
	key &= ~TUI_KEY_SEL_FLAG;
	for (size_t i = 0; i < sizeof tui_key_names / sizeof tui_key_names[0]; i++)
		if (tui_key_names[i].key == key) {
			snprintf(out, n, "%s", tui_key_names[i].name);
			return;
		}
	if (key > TUI_KEY_F0 && key <= TUI_KEY_F(12))
		snprintf(out, n, "F%d", key - TUI_KEY_F0);
	else if (key > 0 && key < 32)
		snprintf(out, n, "Ctrl-%c", '@' + key);
	else if (key > 32 && key < 127)
		snprintf(out, n, "%c", key);
	else
		snprintf(out, n, "0x%x", (unsigned)key);
}

void tui_keys_names(const struct tui_key_binding *b, char *out, size_t n)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t k = 0; k < TUI_KEYS_PER_ACTION && b->keys[k] && len < n; k++) {
		char name[16];
		tui_keys_name(b->keys[k], name, sizeof name);
		int w = snprintf(out + len, n - len, "%s%s", k ? ", " : "", name);
		len += w > 0 ? (size_t)w : 0;
	}
}

void tui_keys_help_line(enum tui_mode mode, size_t i, char *out, size_t n)
{
	char keys[48];
	size_t nk;
	const struct tui_key_binding *kt = tui_keys_table(mode, &nk);
	if (i >= nk) {
		snprintf(out, n, "%s", "");
		return;
	}
	tui_keys_names(&kt[i], keys, sizeof keys);
	snprintf(out, n, "%-*s %s", TUI_HELP_KEYS_WIDTH, keys, kt[i].help);
}

/* groff: escape backslashes and hyphens, protect a leading dot or quote. */
static int tui_keys_man_text(FILE *out, const char *s)
{
	if (*s == '.' || *s == '\'')
		if (fputs("\\&", out) < 0)
			return -1;
	for (; *s; s++) {
		int rc = *s == '\\' ? fputs("\\e", out) : *s == '-' ? fputs("\\-", out)
							 : fputc(*s, out);
		if (rc < 0)
			return -1;
	}
	return 0;
}

int tui_keys_man(enum tui_mode mode, FILE *out)
{
	size_t n;
	const struct tui_key_binding *kt = tui_keys_table(mode, &n);
	if (fprintf(out, ".SH \"%s\"\n%s\n", tui_keymaps[mode].section, tui_keymaps[mode].intro) <
	    0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		char keys[48];
		tui_keys_names(&kt[i], keys, sizeof keys);
		if (fputs(".TP\n.B \"", out) < 0 || tui_keys_man_text(out, keys) < 0 ||
		    fputs("\"\n", out) < 0)
			return -1;
		char help[160];
		snprintf(help, sizeof help, "%s", kt[i].help);
		help[0] = (char)(help[0] >= 'a' && help[0] <= 'z' ? help[0] - 'a' + 'A' : help[0]);
		if (tui_keys_man_text(out, help) < 0 || fputs(".\n", out) < 0)
			return -1;
	}
	return 0;
}
