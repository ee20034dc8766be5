#include "tui_keys.h"

#include <stdio.h>
#include <string.h>

#define K(...) {__VA_ARGS__}

/* Every F-key has a letter twin (htop); quick sort keys are capitals. */
static const struct tui_key_binding tui_key_table[] = {
	{K('?', TUI_KEY_F(1), 'h'), TUI_ACT_HELP, "Help",
	 "show this help; any other key closes it"},
	{K('/', TUI_KEY_F(4)), TUI_ACT_FILTER, "Filter",
	 "filter by topic name (Enter keeps the filter, Esc clears it)"},
	{K(TUI_KEY_F(6), '>'), TUI_ACT_SORT_NEXT, "SortBy", "sort by the next column"},
	{K('<'), TUI_ACT_SORT_PREV, NULL, "sort by the previous column"},
	{K('I'), TUI_ACT_SORT_INVERT, NULL, "invert the sort order"},
	{K('N'), TUI_ACT_SORT_NAME, NULL, "sort by topic name (again: invert)"},
	{K('R'), TUI_ACT_SORT_RATE, NULL, "sort by rate (again: invert)"},
	{K('B'), TUI_ACT_SORT_BYTES, NULL, "sort by bytes written (again: invert)"},
	{K('L'), TUI_ACT_SORT_LOSSES, NULL,
	 "sort by losses, in transport then in the recorder (again: invert)"},
	{K(TUI_KEY_SPACE), TUI_ACT_TOGGLE_TOPIC, "Rec",
	 "start or stop recording the selected topic"},
	{K('t'), TUI_ACT_MARK_TL, "TL",
	 "(un)mark the selected topic for repeat-transient-local, depth 1"},
	{K('T'), TUI_ACT_ASK_TL_DEPTH, NULL,
	 "as t, asking for the repeat-transient-local depth"},
	{K('s'), TUI_ACT_SNAPSHOT, "Snap", "write a snapshot (with --snapshot-mode)"},
	{K('p'), TUI_ACT_PAUSE, "Pause", "pause or resume recording"},
	{K('n'), TUI_ACT_SPLIT, "Split", "split: continue in a new bag file now"},
	{K(TUI_KEY_TAB), TUI_ACT_LOG_VIEW, "Log",
	 "switch between the topic table and the event log"},
	{K('f'), TUI_ACT_FILE_COUNTS, NULL,
	 "show Rcvd, Written, LostT and LostR for the file being written (again: since start)"},
	{K(TUI_KEY_CTRL_L), TUI_ACT_REDRAW, NULL, "redraw the whole screen"},
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

#define TUI_KEYS_N (sizeof tui_key_table / sizeof tui_key_table[0])
#define TUI_HELP_KEYS_WIDTH 14

const struct tui_key_binding *tui_keys_table(size_t *n)
{
	*n = TUI_KEYS_N;
	return tui_key_table;
}

enum tui_action tui_keys_action(int key)
{
	if (key == 0 || key == TUI_KEY_NONE)
		return TUI_ACT_NONE;
	for (size_t i = 0; i < TUI_KEYS_N; i++)
		for (size_t k = 0; k < TUI_KEYS_PER_ACTION && tui_key_table[i].keys[k]; k++)
			if (tui_key_table[i].keys[k] == key)
				return tui_key_table[i].action;
	return TUI_ACT_NONE;
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

void tui_keys_help_line(size_t i, char *out, size_t n)
{
	char keys[48];
	if (i >= TUI_KEYS_N) {
		snprintf(out, n, "%s", "");
		return;
	}
	tui_keys_names(&tui_key_table[i], keys, sizeof keys);
	snprintf(out, n, "%-*s %s", TUI_HELP_KEYS_WIDTH, keys, tui_key_table[i].help);
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

int tui_keys_man(FILE *out)
{
	if (fputs(".SH \"INTERACTIVE COMMANDS\"\n"
		  "While recording with the live view, these keys act at once:\n",
		  out) < 0)
		return -1;
	for (size_t i = 0; i < TUI_KEYS_N; i++) {
		char keys[48];
		tui_keys_names(&tui_key_table[i], keys, sizeof keys);
		if (fputs(".TP\n.B \"", out) < 0 || tui_keys_man_text(out, keys) < 0 ||
		    fputs("\"\n", out) < 0)
			return -1;
		char help[160];
		snprintf(help, sizeof help, "%s", tui_key_table[i].help);
		help[0] = (char)(help[0] >= 'a' && help[0] <= 'z' ? help[0] - 'a' + 'A' : help[0]);
		if (tui_keys_man_text(out, help) < 0 || fputs(".\n", out) < 0)
			return -1;
	}
	return 0;
}
