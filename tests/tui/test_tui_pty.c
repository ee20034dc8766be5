/* tui_run and the curses renderer on a real pseudo-terminal, against a fake
 * engine: the first frame shows the topics, a key reaches the engine as a
 * command and is drawn at once (not at the next tick), ticks write only
 * what changed (no full clears; Ctrl-L clears), a resize below 60x12
 * shows one line and back the table, NO_COLOR and the C locale
 * give monochrome ASCII, and q + y finishes, restores the terminal and
 * replays the captured stderr. */
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "bt_time.h"
#include "test_util.h"
#include "tui_run.h"
#include "tui_stderr.h"

/* ---- the child: tui_run with a fake engine -------------------------------- */

#define FAKE_MAX 64

struct fake {
	int cmd_fd;     /* commands are reported here, one line each */
	double hz;
	uint64_t ticks;
	uint32_t n;     /* topics */
	bool all_change; /* every row's numbers change each tick */
	bool enabled[FAKE_MAX];
	int64_t quit_at;
};

static void fake_fill(void *ctx, struct tui_model *m)
{
	struct fake *f = ctx;
	static const char *const names[] = {
		"/robot/a", "/robot/b",
		"/robot/c_with_a_very_long_name_that_never_fits_in_the_column"};
	m->hdr.state = f->quit_at ? TUI_REC_STOPPING : TUI_REC_RECORDING;
	m->hdr.update_hz = f->hz;
	m->hdr.pid = 1;
	m->hdr.finishing_bytes_left = UINT64_C(5) * 1024 * 1024;
	snprintf(m->hdr.bag_dir, sizeof m->hdr.bag_dir, "/tmp/bag");
	tui_model_set_topic_count(m, f->n);
	for (uint32_t i = 0; i < f->n; i++) {
		struct tui_topic *t = &m->topics[i];
		t->id = i;
		if (i < 3)
			snprintf(t->name, sizeof t->name, "%s", names[i]);
		else
			snprintf(t->name, sizeof t->name, "/robot/sensor_%02u/points", i);
		t->enabled = f->enabled[i];
		t->rate_hz = 100.0 - i;
		if (f->all_change) { /* a busy robot: counts, bytes, bandwidth */
			t->total.messages = f->ticks * (100 - i) + i * 7919;
			t->total.bytes = t->total.messages * 1013;
			t->bandwidth = 100000.0 + (double)((f->ticks * 37 + i) % 900) * 1000.0;
		}
	}
	m->topics[0].total.messages = f->ticks++; /* at least one number changes per tick */
}

static void fake_command(void *ctx, const struct tui_cmd *c)
{
	struct fake *f = ctx;
	char line[64];
	int n = snprintf(line, sizeof line, "%d %u %u\n", (int)c->kind, c->topic_id, c->depth);
	if (write(f->cmd_fd, line, (size_t)n) != n)
		_exit(3);
	if (c->kind == TUI_CMD_TOGGLE_TOPIC)
		f->enabled[c->topic_id] = !f->enabled[c->topic_id];
	if (c->kind == TUI_CMD_SPLIT)
		f->hz = f->all_change ? 1 : 20; /* the test's signal to start ticking */
	if (c->kind == TUI_CMD_QUIT)
		f->quit_at = bt_time_monotonic_ns();
	fprintf(stderr, "engine said something on stderr\n");
}

static bool fake_done(void *ctx)
{
	struct fake *f = ctx;
	return f->quit_at && bt_time_monotonic_ns() - f->quit_at > BT_NS_PER_S / 2;
}

static void child(int cmd_fd, uint32_t n, bool all_change)
{
	struct fake f = {.cmd_fd = cmd_fd, .hz = 0.2, .n = n, .all_change = all_change};
	for (uint32_t i = 0; i < n; i++)
		f.enabled[i] = true;
	struct tui_run_ops ops = {fake_fill, fake_command, fake_done};
	struct tui_stderr cap;
	struct bt_error err;
	if (tui_stderr_start(&cap, &err) != BT_OK)
		_exit(4);
	bt_status st = tui_run(&ops, &f, &err);
	tui_stderr_stop(&cap);
	if (st != BT_OK)
		fprintf(stderr, "tui_run: %s\n", err.msg);
	_exit(st == BT_OK ? 0 : 5);
}

/* ---- the parent: a terminal that only records bytes ------------------------ */

struct term {
	pid_t pid;
	int master;
	int cmd_rd;
	char *out; /* everything the child wrote to the terminal */
	size_t len, cap;
	bool eof;
};

/* Reads what is there within ms milliseconds. */
static void term_pump(struct term *t, int ms)
{
	int64_t end = bt_time_monotonic_ns() + (int64_t)ms * 1000000;
	for (;;) {
		int64_t left = (end - bt_time_monotonic_ns()) / 1000000;
		struct pollfd p = {t->master, POLLIN, 0};
		if (t->eof || left <= 0 || poll(&p, 1, (int)left) <= 0)
			return;
		if (t->len + 4097 > t->cap) {
			t->cap = 2 * (t->len + 4097);
			t->out = realloc(t->out, t->cap);
			assert_non_null(t->out);
		}
		ssize_t n = read(t->master, t->out + t->len, 4096);
		if (n <= 0) {
			t->eof = true; /* EIO once the child has closed the slave */
			return;
		}
		t->len += (size_t)n;
		t->out[t->len] = '\0';
	}
}

/* Waits until the output after `from` contains `s`. */
static bool term_wait(struct term *t, size_t from, const char *s, int ms)
{
	int64_t end = bt_time_monotonic_ns() + (int64_t)ms * 1000000;
	do {
		if (t->out && memmem(t->out + from, t->len - from, s, strlen(s)))
			return true;
		term_pump(t, 20);
	} while (bt_time_monotonic_ns() < end && !t->eof);
	return t->out && memmem(t->out + from, t->len - from, s, strlen(s));
}

static void term_key(struct term *t, const char *keys)
{
	assert_int_equal(write(t->master, keys, strlen(keys)), (ssize_t)strlen(keys));
}

/* The next command line from the child, within ms. */
static void term_cmd(struct term *t, char *line, size_t n, int ms)
{
	size_t len = 0;
	int64_t end = bt_time_monotonic_ns() + (int64_t)ms * 1000000;
	while (len + 1 < n) {
		int left = (int)((end - bt_time_monotonic_ns()) / 1000000);
		struct pollfd p = {t->cmd_rd, POLLIN, 0};
		term_pump(t, 0);
		if (left <= 0 || poll(&p, 1, left < 20 ? left : 20) < 0)
			break;
		if (!(p.revents & POLLIN))
			continue;
		if (read(t->cmd_rd, line + len, 1) != 1 || line[len] == '\n')
			break;
		len++;
	}
	line[len] = '\0';
}

static void term_start_sized(struct term *t, const char *term, const char *lang, bool no_color,
			     unsigned short cols, unsigned short rows, uint32_t n, bool all_change)
{
	int fds[2];
	memset(t, 0, sizeof *t);
	assert_int_equal(pipe(fds), 0);
	struct winsize ws = {.ws_row = rows, .ws_col = cols};
	t->pid = forkpty(&t->master, NULL, NULL, &ws);
	assert_true(t->pid >= 0);
	if (t->pid == 0) {
		close(fds[0]);
		setenv("TERM", term, 1);
		setenv("LC_ALL", lang, 1);
		if (no_color) {
			setenv("NO_COLOR", "1", 1);
			/* As the app does (signals go to one thread): curses never
			 * sees SIGWINCH; the size poll must notice the resize. */
			sigset_t winch;
			sigemptyset(&winch);
			sigaddset(&winch, SIGWINCH);
			sigprocmask(SIG_BLOCK, &winch, NULL);
		} else {
			unsetenv("NO_COLOR");
		}
		child(fds[1], n, all_change);
	}
	close(fds[1]);
	t->cmd_rd = fds[0];
}

static void term_start(struct term *t, const char *term, const char *lang, bool no_color)
{
	term_start_sized(t, term, lang, no_color, 80, 24, 3, false);
}

static int term_finish(struct term *t)
{
	while (!t->eof)
		term_pump(t, 100);
	int st = tu_wait(t->pid, 30.0);
	assert_int_not_equal(st, TU_TIMED_OUT);
	close(t->master);
	close(t->cmd_rd);
	return st;
}

static bool has_colour_sgr(const char *s, size_t n)
{
	/* setaf/setab on xterm: ESC [ 3x m / ESC [ 4x m, or 38;5 / 48;5. */
	for (size_t i = 0; i + 4 < n; i++)
		if (s[i] == '\033' && s[i + 1] == '[' && (s[i + 2] == '3' || s[i + 2] == '4') &&
		    s[i + 3] >= '0' && s[i + 3] <= '9' && (s[i + 4] == 'm' || s[i + 4] == ';'))
			return true;
	return false;
}

static void run_session(const char *term, const char *lang, bool no_color)
{
	struct term t;
	char line[64];
	term_start(&t, term, lang, no_color);
	assert_true(term_wait(&t, 0, "/robot/a", 5000));
	assert_true(term_wait(&t, 0, "Hz", 2000));
	/* Space on the second row: the engine gets it, the screen shows it at
	 * once although the next tick is 5 s away. */
	size_t mark = t.len;
	int64_t t0 = bt_time_monotonic_ns();
	term_key(&t, "j ");
	term_cmd(&t, line, sizeof line, 2000);
	assert_string_equal(line, "2 1 0");
	while (t.len == mark && bt_time_monotonic_ns() - t0 < 2 * BT_NS_PER_S)
		term_pump(&t, 50);
	assert_true(t.len > mark);
	assert_true(bt_time_monotonic_ns() - t0 < 2 * BT_NS_PER_S); /* the tick is 5 s */
	/* `n` (split) makes the fake tick at 20 Hz: one number changes per
	 * tick, so a second of ticks writes a little, and never clears. */
	term_key(&t, "n");
	term_cmd(&t, line, sizeof line, 2000);
	assert_string_equal(line, "5 0 0");
	term_pump(&t, 300);
	mark = t.len;
	term_pump(&t, 1000);
	size_t per_second = t.len - mark;
	assert_true(per_second > 0);
	assert_true(per_second < 20 * 64); /* a full 80x24 frame is 1920+ */
	assert_null(memmem(t.out + mark, t.len - mark, "\033[2J", 4));
	/* Ctrl-L repaints everything. */
	mark = t.len;
	term_key(&t, "\014");
	assert_true(term_wait(&t, mark, "\033[2J", 2000));
	assert_true(term_wait(&t, mark, "/robot/b", 2000));
	/* Resize below 60x12: one line; back: the table again. */
	struct winsize small = {.ws_row = 10, .ws_col = 50}, big = {.ws_row = 24, .ws_col = 80};
	mark = t.len;
	assert_int_equal(ioctl(t.master, TIOCSWINSZ, &small), 0);
	assert_true(term_wait(&t, mark, "terminal too small", 3000));
	mark = t.len;
	assert_int_equal(ioctl(t.master, TIOCSWINSZ, &big), 0);
	assert_true(term_wait(&t, mark, "/robot/a", 3000));
	/* Glyphs and colours follow the locale and NO_COLOR. */
	bool utf8 = strstr(lang, "UTF-8") || strstr(lang, "utf8");
	assert_int_equal(memmem(t.out, t.len, "\xe2\x80\xa6", 3) != NULL, utf8);
	assert_int_equal(has_colour_sgr(t.out, t.len), !no_color);
	/* q asks first; y quits; the finishing screen; then exit, with the
	 * captured stderr printed after the terminal is restored. */
	term_key(&t, "q");
	assert_true(term_wait(&t, mark, "Quit bagtop?", 2000));
	term_key(&t, "y");
	term_cmd(&t, line, sizeof line, 2000);
	assert_string_equal(line, "6 0 0");
	assert_true(term_wait(&t, mark, "finishing bag: 5.0 MiB left", 2000));
	assert_int_equal(term_finish(&t), 0);
	const char *fin = memmem(t.out, t.len, "finishing bag", 13);
	const char *err = memmem(t.out, t.len, "engine said something on stderr", 31);
	assert_non_null(err);
	assert_true(err > fin);
	free(t.out);
}

static void test_colour_utf8(void **state)
{
	(void)state;
	run_session("xterm-256color", "C.UTF-8", false);
}

static void test_mono_ascii(void **state)
{
	(void)state;
	run_session("xterm", "C", true);
}

/* The budget: 50 changing rows at 1 Hz write at most 4 KiB/s to
 * the terminal. */
static void test_bytes_per_tick(void **state)
{
	(void)state;
	struct term t;
	char line[64];
	term_start_sized(&t, "screen", "C.UTF-8", false, 132, 60, 50, true);
	assert_true(term_wait(&t, 0, "/robot/sensor_49/points", 5000));
	term_key(&t, "n"); /* 1 Hz ticks */
	term_cmd(&t, line, sizeof line, 2000);
	assert_string_equal(line, "5 0 0");
	term_pump(&t, 300);
	size_t mark = t.len;
	term_pump(&t, 3000);
	double per_second = (double)(t.len - mark) / 3.0;
	print_message("50 changing rows at 1 Hz: %.0f bytes/s to the terminal\n", per_second);
	assert_true(per_second > 2 * 50 * 4 / 3.0); /* the rows did change */
	assert_true(per_second <= 4096.0);
	term_key(&t, "qy");
	assert_int_equal(term_finish(&t), 0);
	free(t.out);
}

static void test_no_terminal_type(void **state)
{
	(void)state;
	struct term t;
	term_start(&t, "no-such-terminal-bagtop", "C", true);
	assert_int_equal(term_finish(&t), 5);
	assert_true(memmem(t.out, t.len, "cannot use terminal type", 24) != NULL);
	free(t.out);
}

/* A write to a closed pipe fails with EPIPE instead of killing the test
 * (or the forked child, which inherits it). */
static int ignore_sigpipe(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

TU_MAIN_GROUP(ignore_sigpipe, NULL,
	cmocka_unit_test(test_colour_utf8),
	cmocka_unit_test(test_mono_ascii),
	cmocka_unit_test(test_bytes_per_tick),
	cmocka_unit_test(test_no_terminal_type))
