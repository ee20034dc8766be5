/* The one curses.h includer: its macros (clear, move, timeout, ...) stay
 * in this file. */
#include "tui_screen.h"

#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bt_mem.h"
#include "tui_keys.h"

#define TUI_SCREEN_ESCDELAY_MS 25 /* a lone Esc is a key, not a sequence */

struct tui_screen {
	SCREEN *scr;
	bool utf8;
	const struct tui_scheme *scheme;
	attr_t attr[TUI_E_COUNT];
	short pair[TUI_E_COUNT];
	struct tui_frame prev; /* what the terminal shows */
};

static const short tui_curses_colour[] = {
	[TUI_C_DEFAULT] = -1,          [TUI_C_BLACK] = COLOR_BLACK, [TUI_C_RED] = COLOR_RED,
	[TUI_C_GREEN] = COLOR_GREEN,   [TUI_C_YELLOW] = COLOR_YELLOW, [TUI_C_BLUE] = COLOR_BLUE,
	[TUI_C_MAGENTA] = COLOR_MAGENTA, [TUI_C_CYAN] = COLOR_CYAN, [TUI_C_WHITE] = COLOR_WHITE,
};

static bool tui_screen_want_colour(void)
{
	const char *nc = getenv("NO_COLOR"); /* no-color.org: set and non-empty */
	return !(nc && nc[0]) && has_colors();
}

/* Element → curses attributes (and a colour pair in the colour scheme). */
static void tui_screen_scheme_init(struct tui_screen *s)
{
	bool colour = tui_screen_want_colour() && start_color() == OK;
	if (colour && use_default_colors() != OK)
		colour = false;
	colour = colour && COLOR_PAIRS > TUI_E_COUNT;
	s->scheme = colour ? &tui_scheme_colour : &tui_scheme_mono;
	for (int e = 0; e < TUI_E_COUNT; e++) {
		const struct tui_style *st = &s->scheme->s[e];
		attr_t a = A_NORMAL;
		a |= (st->flags & TUI_S_BOLD) ? A_BOLD : 0;
		a |= (st->flags & TUI_S_REVERSE) ? A_REVERSE : 0;
		a |= (st->flags & TUI_S_UNDERLINE) ? A_UNDERLINE : 0;
		a |= (st->flags & TUI_S_DIM) ? A_DIM : 0;
		s->pair[e] = 0;
		if (colour && (st->fg != TUI_C_DEFAULT || st->bg != TUI_C_DEFAULT)) {
			s->pair[e] = (short)(e + 1);
			init_pair(s->pair[e], tui_curses_colour[st->fg], tui_curses_colour[st->bg]);
		}
		s->attr[e] = a;
	}
}

bt_status tui_screen_open(struct tui_screen **out, struct bt_error *err)
{
	const char *term = getenv("TERM");
	if (!term || !term[0])
		return bt_err_set(err, BT_ERR_USAGE, "TERM is not set");
	setlocale(LC_CTYPE, "");
	struct tui_screen *s = bt_xcalloc(1, sizeof *s);
	s->utf8 = strcmp(nl_langinfo(CODESET), "UTF-8") == 0;
	/* newterm, not initscr: an unknown TERM is an error we report, not an
	 * exit inside curses. */
	s->scr = newterm(NULL, stdout, stdin);
	if (!s->scr) {
		free(s);
		return bt_err_set(err, BT_ERR_USAGE, "cannot use terminal type '%s'", term);
	}
	set_escdelay(TUI_SCREEN_ESCDELAY_MS);
	cbreak(); /* Ctrl-C still raises SIGINT: the app stops cleanly */
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	leaveok(stdscr, TRUE);
	curs_set(0);
	tui_screen_scheme_init(s);
	tui_frame_init(&s->prev, s->utf8);
	*out = s;
	return BT_OK;
}

void tui_screen_close(struct tui_screen *s)
{
	if (!s)
		return;
	curs_set(1);
	endwin();
	delscreen(s->scr);
	tui_frame_fini(&s->prev);
	free(s);
}

bool tui_screen_utf8(const struct tui_screen *s)
{
	return s->utf8;
}

const struct tui_scheme *tui_screen_scheme(const struct tui_screen *s)
{
	return s->scheme;
}

void tui_screen_size(const struct tui_screen *s, int *cols, int *rows)
{
	(void)s;
	getmaxyx(stdscr, *rows, *cols);
}

static bool tui_screen_row_same(const struct tui_frame *a, const struct tui_frame *b, int y)
{
	for (int x = 0; x < a->cols; x++) {
		const struct tui_cell *ca = tui_frame_at(a, x, y), *cb = tui_frame_at(b, x, y);
		if (ca->elem != cb->elem || strcmp(ca->ch, cb->ch) != 0)
			return false;
	}
	return true;
}

/* Writes row y in runs of one element each. */
static void tui_screen_row(struct tui_screen *s, const struct tui_frame *f, int y)
{
	char run[4096];
	size_t len = 0;
	int x0 = 0;
	for (int x = 0; x <= f->cols; x++) {
		const struct tui_cell *c = x < f->cols ? tui_frame_at(f, x, y) : NULL;
		const struct tui_cell *first = tui_frame_at(f, x0, y);
		if (x > x0 && (!c || c->elem != first->elem || len + 5 >= sizeof run)) {
			run[len] = '\0';
			attr_set(s->attr[first->elem], s->pair[first->elem], NULL);
			mvaddstr(y, x0, run);
			len = 0;
			x0 = x;
		}
		if (c) {
			size_t n = strlen(c->ch);
			memcpy(run + len, c->ch, n);
			len += n;
		}
	}
}

void tui_screen_draw(struct tui_screen *s, const struct tui_frame *f, bool repaint)
{
	bool same_size = s->prev.cols == f->cols && s->prev.rows == f->rows;
	if (repaint)
		clearok(curscr, TRUE);
	for (int y = 0; y < f->rows; y++)
		if (repaint || !same_size || !tui_screen_row_same(&s->prev, f, y))
			tui_screen_row(s, f, y);
	wnoutrefresh(stdscr);
	doupdate();
	tui_frame_reset(&s->prev, f->cols, f->rows);
	if (f->cols > 0 && f->rows > 0) /* a 0x0 frame has no cells at all */
		memcpy(s->prev.cells, f->cells,
		       (size_t)f->cols * (size_t)f->rows * sizeof *f->cells);
}

static const struct {
	int curses, ours;
} tui_screen_keymap[] = {
	{KEY_UP, TUI_KEY_UP},
	{KEY_DOWN, TUI_KEY_DOWN},
	{KEY_LEFT, TUI_KEY_LEFT},
	{KEY_RIGHT, TUI_KEY_RIGHT},
	{KEY_PPAGE, TUI_KEY_PGUP},
	{KEY_NPAGE, TUI_KEY_PGDN},
	{KEY_HOME, TUI_KEY_HOME},
	{KEY_END, TUI_KEY_END},
	{KEY_FIND, TUI_KEY_HOME}, /* some terminals' Home and End */
	{KEY_SELECT, TUI_KEY_END},
	{KEY_BACKSPACE, TUI_KEY_BACKSPACE},
	{KEY_ENTER, TUI_KEY_ENTER},
	{'\r', TUI_KEY_ENTER}, /* nonl(): Enter arrives as CR */
	{KEY_RESIZE, TUI_KEY_RESIZE},
};

/* A SIGWINCH may never reach curses (the app blocks signals in its
 * threads), so a timeout also compares the tty's size with ours. */
static bool tui_screen_resized(void)
{
	struct winsize ws;
	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_row == 0 || ws.ws_col == 0)
		return false;
	if (ws.ws_row == LINES && ws.ws_col == COLS)
		return false;
	resizeterm(ws.ws_row, ws.ws_col);
	return true;
}

int tui_screen_read_key(struct tui_screen *s, int ms)
{
	(void)s;
	wtimeout(stdscr, ms);
	int ch = wgetch(stdscr);
	if (ch == ERR)
		return tui_screen_resized() ? TUI_KEY_RESIZE : TUI_KEY_NONE;
	for (size_t i = 0; i < sizeof tui_screen_keymap / sizeof tui_screen_keymap[0]; i++)
		if (tui_screen_keymap[i].curses == ch)
			return tui_screen_keymap[i].ours;
	if (ch >= KEY_F(1) && ch <= KEY_F(12))
		return TUI_KEY_F(ch - KEY_F0);
	if (ch >= KEY_MIN)
		return TUI_KEY_NONE; /* a key we have no use for */
	return ch;
}
