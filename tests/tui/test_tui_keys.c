/* The key table: every action reachable, no key bound twice, names, the
 * help lines and the man page section generated from it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tui_keys.h"

/* Each table binds an action once; every action is in some table. */
static void test_every_action_bound_once(void **state)
{
	(void)state;
	int in_some[TUI_ACT_COUNT] = {0};
	for (int mode = 0; mode < TUI_MODE_COUNT; mode++) {
		size_t n;
		const struct tui_key_binding *kt = tui_keys_table((enum tui_mode)mode, &n);
		int bound[TUI_ACT_COUNT] = {0};
		for (size_t i = 0; i < n; i++) {
			assert_true(kt[i].action > TUI_ACT_NONE && kt[i].action < TUI_ACT_COUNT);
			bound[kt[i].action]++;
			in_some[kt[i].action]++;
			assert_non_null(kt[i].help);
			assert_true(strlen(kt[i].help) > 5);
			assert_int_not_equal(kt[i].keys[0], 0);
		}
		for (int a = TUI_ACT_NONE + 1; a < TUI_ACT_COUNT; a++)
			assert_true(bound[a] <= 1); /* one entry per action */
	}
	for (int a = TUI_ACT_NONE + 1; a < TUI_ACT_COUNT; a++)
		assert_true(in_some[a] >= 1);
}

/* No key is bound twice in a table (TUI_KEY_SEL(k) is a key of its own),
 * and every key reaches its binding's action: a TUI_KEY_SEL key while a
 * row is selected, the others at least while none is. */
static void test_no_key_bound_twice(void **state)
{
	(void)state;
	for (int mode = 0; mode < TUI_MODE_COUNT; mode++) {
		enum tui_mode md = (enum tui_mode)mode;
		size_t n;
		const struct tui_key_binding *kt = tui_keys_table(md, &n);
		for (size_t i = 0; i < n; i++)
			for (size_t k = 0; k < TUI_KEYS_PER_ACTION && kt[i].keys[k]; k++) {
				int key = kt[i].keys[k];
				for (size_t j = 0; j < n; j++)
					for (size_t l = 0; l < TUI_KEYS_PER_ACTION && kt[j].keys[l]; l++)
						if (i != j || k != l)
							assert_int_not_equal(kt[j].keys[l], key);
				bool sel = (key & TUI_KEY_SEL_FLAG) != 0;
				assert_int_equal(tui_keys_action(md, key & ~TUI_KEY_SEL_FLAG, sel),
						 kt[i].action);
			}
		assert_int_equal(tui_keys_action(md, 'x', true), TUI_ACT_NONE);
		assert_int_equal(tui_keys_action(md, TUI_KEY_NONE, true), TUI_ACT_NONE);
	}
	/* The one key that changes with the selection. */
	assert_int_equal(tui_keys_action(TUI_MODE_PLAY, ' ', true), TUI_ACT_MUTE);
	assert_int_equal(tui_keys_action(TUI_MODE_PLAY, ' ', false), TUI_ACT_PAUSE);
	assert_int_equal(tui_keys_action(TUI_MODE_PLAY, 'p', true), TUI_ACT_PAUSE);
	assert_int_equal(tui_keys_action(TUI_MODE_RECORD, ' ', false), TUI_ACT_TOGGLE_TOPIC);
}

/* A key and the action it must have. */
struct key_want {
	int key;
	enum tui_action a;
};

/* Each key of `want` has its action in `mode` (with a row selected: `sel`). */
static void expect_actions(enum tui_mode mode, bool sel, const struct key_want *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(tui_keys_action(mode, want[i].key, sel), want[i].a);
}

/* The keys the issue names, each to its action. */
static void test_issue_keys(void **state)
{
	(void)state;
	static const struct key_want want[] = {
		{'s', TUI_ACT_SNAPSHOT}, {' ', TUI_ACT_TOGGLE_TOPIC}, {'t', TUI_ACT_MARK_TL},
		{'T', TUI_ACT_ASK_TL_DEPTH}, {'p', TUI_ACT_PAUSE}, {'n', TUI_ACT_SPLIT},
		{'?', TUI_ACT_HELP}, {TUI_KEY_F(1), TUI_ACT_HELP}, {'h', TUI_ACT_HELP},
		{'q', TUI_ACT_QUIT}, {TUI_KEY_F(10), TUI_ACT_QUIT},
		{TUI_KEY_CTRL_L, TUI_ACT_REDRAW}, {TUI_KEY_TAB, TUI_ACT_LOG_VIEW},
		{TUI_KEY_F(6), TUI_ACT_SORT_NEXT}, {'>', TUI_ACT_SORT_NEXT},
		{'<', TUI_ACT_SORT_PREV}, {'I', TUI_ACT_SORT_INVERT}, {'N', TUI_ACT_SORT_NAME},
		{'R', TUI_ACT_SORT_RATE}, {'B', TUI_ACT_SORT_BYTES}, {'L', TUI_ACT_SORT_LOSSES},
		{'/', TUI_ACT_FILTER}, {TUI_KEY_F(4), TUI_ACT_FILTER}, {TUI_KEY_UP, TUI_ACT_UP},
		{'k', TUI_ACT_UP}, {TUI_KEY_DOWN, TUI_ACT_DOWN}, {'j', TUI_ACT_DOWN},
		{TUI_KEY_PGUP, TUI_ACT_PGUP}, {TUI_KEY_PGDN, TUI_ACT_PGDN},
		{TUI_KEY_HOME, TUI_ACT_HOME}, {TUI_KEY_END, TUI_ACT_END},
	};
	expect_actions(TUI_MODE_RECORD, true, want, sizeof want / sizeof want[0]);
}

/* Play's keys as the issue names them: Space pauses, `.` and Right step,
 * Up and Down change the rate, `[` `]` seek, Home restarts, l loops, q
 * quits; the selection moves with j, k and the pages. */
static void test_play_keys(void **state)
{
	(void)state;
	static const struct key_want want[] = {
		{' ', TUI_ACT_PAUSE}, {'p', TUI_ACT_PAUSE}, {'.', TUI_ACT_STEP},
		{TUI_KEY_RIGHT, TUI_ACT_STEP}, {TUI_KEY_UP, TUI_ACT_FASTER}, {'+', TUI_ACT_FASTER},
		{TUI_KEY_DOWN, TUI_ACT_SLOWER}, {'-', TUI_ACT_SLOWER}, {'[', TUI_ACT_SEEK_BACK},
		{']', TUI_ACT_SEEK_FWD}, {TUI_KEY_HOME, TUI_ACT_RESTART}, {'l', TUI_ACT_LOOP},
		{'q', TUI_ACT_QUIT}, {TUI_KEY_F(10), TUI_ACT_QUIT}, {'?', TUI_ACT_HELP},
		{TUI_KEY_ENTER, TUI_ACT_SELECT}, {'j', TUI_ACT_DOWN}, {'k', TUI_ACT_UP},
		{TUI_KEY_PGDN, TUI_ACT_PGDN}, {'/', TUI_ACT_FILTER}, {TUI_KEY_TAB, TUI_ACT_LOG_VIEW},
		{'L', TUI_ACT_SORT_LATE}, {'s', TUI_ACT_NONE}, {'t', TUI_ACT_NONE},
		{'n', TUI_ACT_NONE},
	};
	expect_actions(TUI_MODE_PLAY, false, want, sizeof want / sizeof want[0]);
}

static void test_key_names(void **state)
{
	(void)state;
	char b[32];
	tui_keys_name(TUI_KEY_F(10), b, sizeof b);
	assert_string_equal(b, "F10");
	tui_keys_name(' ', b, sizeof b);
	assert_string_equal(b, "Space");
	tui_keys_name(TUI_KEY_CTRL_L, b, sizeof b);
	assert_string_equal(b, "Ctrl-L");
	tui_keys_name(3, b, sizeof b);
	assert_string_equal(b, "Ctrl-C");
	tui_keys_name(TUI_KEY_PGDN, b, sizeof b);
	assert_string_equal(b, "PgDn");
	tui_keys_name('?', b, sizeof b);
	assert_string_equal(b, "?");
}

static void test_help_lines(void **state)
{
	(void)state;
	size_t n;
	const struct tui_key_binding *kt = tui_keys_table(TUI_MODE_RECORD, &n);
	char line[256];
	tui_keys_help_line(TUI_MODE_RECORD, 0, line, sizeof line);
	assert_string_equal(line, "?, F1, h       show this help; any other key closes it");
	for (size_t i = 0; i < n; i++) {
		tui_keys_help_line(TUI_MODE_RECORD, i, line, sizeof line);
		assert_non_null(strstr(line, kt[i].help));
	}
	tui_keys_help_line(TUI_MODE_RECORD, n, line, sizeof line);
	assert_string_equal(line, "");
}

/* Mode's man page section (malloc'ed): it starts with `head` and has one
 * .TP entry per key of the mode's table. */
static char *man_section(enum tui_mode mode, const char *head)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(tui_keys_man(mode, f), 0);
	fclose(f);
	assert_true(strncmp(buf, head, strlen(head)) == 0);
	size_t n, tp = 0;
	tui_keys_table(mode, &n);
	for (const char *p = buf; (p = strstr(p, ".TP\n")); p++)
		tp++;
	assert_int_equal(tp, n);
	return buf;
}

static void test_man_section(void **state)
{
	(void)state;
	char *buf = man_section(TUI_MODE_RECORD, ".SH \"INTERACTIVE COMMANDS\"\n");
	assert_non_null(strstr(buf, ".TP\n.B \"q, F10\"\nQuit: finish the bag and exit (asks "
				    "first while recording; in snapshot mode, says what the buffer "
				    "holds and s writes it as a snapshot first).\n"));
	assert_non_null(strstr(buf, ".B \"Ctrl\\-L\"\n"));
	assert_non_null(strstr(buf, "repeat\\-transient\\-local, depth 1.\n"));
	free(buf);
}

/* Play's section comes right after record's, with play's keys. */
static void test_man_section_play(void **state)
{
	(void)state;
	char *buf = man_section(TUI_MODE_PLAY, ".SH \"INTERACTIVE COMMANDS (play)\"\n");
	assert_non_null(strstr(buf, ".TP\n.B \"Space, p\"\nPause or resume playing"));
	assert_non_null(strstr(buf, ".TP\n.B \"Space\"\nMute or unmute the selected topic"));
	assert_non_null(strstr(buf, ".TP\n.B \"Up, +\"\nPlay faster: rate x 1.1.\n"));
	free(buf);
}

TU_MAIN(
	cmocka_unit_test(test_every_action_bound_once),
	cmocka_unit_test(test_no_key_bound_twice),
	cmocka_unit_test(test_issue_keys),
	cmocka_unit_test(test_play_keys),
	cmocka_unit_test(test_key_names),
	cmocka_unit_test(test_help_lines),
	cmocka_unit_test(test_man_section),
	cmocka_unit_test(test_man_section_play))
