/* The reducer: selection by topic id, sorting, filtering, scrolling, the
 * quit confirmation, the depth prompt, the snapshot dialog and the
 * commands keys emit. */
#include <string.h>

#include "test_util.h"
#include "tui_fixture.h"
#include "tui_state.h"

static uint32_t sel(const struct tui_state *s)
{
	assert_true(s->has_sel);
	return s->sel_id;
}

static void test_default_order_and_selection(struct tui_model *m, struct tui_state *s)
{
	/* Busiest first; the selection starts on the first row. */
	assert_string_equal(tf_order(s, m),
			    "/tf /camera/front/image_raw/compressed /rosout /tf_static");
	assert_int_equal(sel(s), 1);
}

static void test_selection_survives_resort(struct tui_model *m, struct tui_state *s)
{
	tf_keys(s, m, TF_KEYS('j', 'j')); /* /rosout */
	assert_int_equal(sel(s), 3);
	assert_int_equal(s->sel_pos, 2);
	tf_keys(s, m, TF_KEYS('N'));
	assert_string_equal(tf_order(s, m),
			    "/camera/front/image_raw/compressed /rosout /tf /tf_static");
	assert_int_equal(sel(s), 3);
	assert_int_equal(s->sel_pos, 1);
	/* The rates change under it (a tick): still /rosout. */
	m->topics[3].rate_hz = 1000;
	tf_keys(s, m, TF_KEYS('R'));
	tui_state_sync(s, m);
	assert_int_equal(sel(s), 3);
	assert_int_equal(s->sel_pos, 0);
	/* A topic appears above it. */
	tf_add(m, 7, "/scan", "sensor_msgs/msg/LaserScan", 5000, 10);
	tui_state_sync(s, m);
	assert_int_equal(sel(s), 3);
	assert_int_equal(s->sel_pos, 1);
}

/* Every column sorts, in its natural direction, and I inverts. */
static void test_sort_each_column(struct tui_model *m, struct tui_state *s)
{
	static const struct {
		enum tui_col col;
		const char *want;
	} cases[] = {
		{TUI_COL_ON, "/camera/front/image_raw/compressed /tf /tf_static /rosout"},
		{TUI_COL_TL, "/tf_static /camera/front/image_raw/compressed /rosout /tf"},
		{TUI_COL_NAME, "/camera/front/image_raw/compressed /rosout /tf /tf_static"},
		{TUI_COL_TYPE, "/rosout /camera/front/image_raw/compressed /tf /tf_static"},
		{TUI_COL_PUBS, "/rosout /camera/front/image_raw/compressed /tf /tf_static"},
		{TUI_COL_QOS, "/tf_static /camera/front/image_raw/compressed /tf /rosout"},
		{TUI_COL_MSGS, "/tf /camera/front/image_raw/compressed /rosout /tf_static"},
		{TUI_COL_RATE, "/tf /camera/front/image_raw/compressed /rosout /tf_static"},
		{TUI_COL_BW, "/tf /camera/front/image_raw/compressed /rosout /tf_static"},
		{TUI_COL_BYTES, "/camera/front/image_raw/compressed /tf /rosout /tf_static"},
		{TUI_COL_LOST_T, "/tf /rosout /camera/front/image_raw/compressed /tf_static"},
		{TUI_COL_LOST_R, "/rosout /camera/front/image_raw/compressed /tf /tf_static"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		s->sort_col = cases[i].col;
		s->sort_invert = false;
		tui_state_sync(s, m);
		assert_string_equal(tf_order(s, m), cases[i].want);
	}
	/* Inverted: distinct values come out reversed. */
	s->sort_col = TUI_COL_BYTES;
	tf_keys(s, m, TF_KEYS('I'));
	assert_true(s->sort_invert);
	assert_string_equal(tf_order(s, m),
			    "/tf_static /rosout /tf /camera/front/image_raw/compressed");
	tf_keys(s, m, TF_KEYS('I'));
	assert_string_equal(tf_order(s, m),
			    "/camera/front/image_raw/compressed /tf /rosout /tf_static");
}

static void test_sort_keys(struct tui_model *m, struct tui_state *s)
{
	tf_keys(s, m, TF_KEYS('B'));
	assert_int_equal(s->sort_col, TUI_COL_BYTES);
	assert_false(s->sort_invert);
	tf_keys(s, m, TF_KEYS('B')); /* again: inverted */
	assert_true(s->sort_invert);
	tf_keys(s, m, TF_KEYS('L'));
	assert_int_equal(s->sort_col, TUI_COL_LOST_T);
	assert_false(s->sort_invert);
	tf_keys(s, m, TF_KEYS('R'));
	assert_int_equal(s->sort_col, TUI_COL_RATE);
	/* F6 / > / < step through the shown columns only. */
	unsigned shown = (1u << TUI_COL_NAME) | (1u << TUI_COL_RATE) | (1u << TUI_COL_LOST_T);
	tui_state_set_page(s, 10, shown);
	tf_keys(s, m, TF_KEYS(TUI_KEY_F(6)));
	assert_int_equal(s->sort_col, TUI_COL_LOST_T);
	tf_keys(s, m, TF_KEYS('>'));
	assert_int_equal(s->sort_col, TUI_COL_NAME);
	tf_keys(s, m, TF_KEYS('<', '<'));
	assert_int_equal(s->sort_col, TUI_COL_RATE);
}

static void test_filter(struct tui_model *m, struct tui_state *s)
{
	struct tui_cmd c;
	tf_keys(s, m, TF_KEYS('/', 't', 'F'));
	assert_int_equal(s->input, TUI_INPUT_FILTER);
	assert_string_equal(s->filter, "tF");
	assert_string_equal(tf_order(s, m), "/tf /tf_static"); /* case-insensitive */
	/* Keys that are commands elsewhere are text here: no command. */
	assert_int_equal(tui_state_handle_key(s, m, '_', &c) & TUI_F_COMMAND, 0);
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_string_equal(tf_order(s, m), "/tf_static");
	assert_int_equal(sel(s), 2);
	tf_keys(s, m, TF_KEYS(TUI_KEY_BACKSPACE, TUI_KEY_ENTER)); /* Enter keeps it */
	assert_int_equal(s->input, TUI_INPUT_NONE);
	assert_string_equal(tf_order(s, m), "/tf /tf_static");
	tf_keys(s, m, TF_KEYS('/', 'z', 'z'));
	assert_int_equal(s->n_order, 0);
	assert_false(s->has_sel);
	tf_keys(s, m, TF_KEYS(TUI_KEY_ESC)); /* Esc while typing clears */
	assert_string_equal(s->filter, "");
	assert_int_equal(s->n_order, 4);
	tf_keys(s, m, TF_KEYS('/', 'r', 'o', 's', TUI_KEY_ENTER));
	assert_int_equal(s->n_order, 1);
	tf_keys(s, m, TF_KEYS(TUI_KEY_ESC)); /* and Esc in the table */
	assert_int_equal(s->n_order, 4);
}

static void test_scroll(void **state)
{
	(void)state;
	struct tui_model m;
	struct tui_state s;
	tf_model_many(&m, 50);
	tf_state(&s, &m, 10);
	tf_keys(&s, &m, TF_KEYS('N', TUI_KEY_HOME));
	for (int i = 0; i < 15; i++)
		tf_keys(&s, &m, TF_KEYS('j'));
	assert_int_equal(s.sel_pos, 15);
	assert_int_equal(sel(&s), 15);
	assert_int_equal(s.scroll, 6); /* the selection is the last row shown */
	tf_keys(&s, &m, TF_KEYS(TUI_KEY_PGDN));
	assert_int_equal(s.sel_pos, 25);
	assert_int_equal(s.scroll, 16);
	tf_keys(&s, &m, TF_KEYS(TUI_KEY_END));
	assert_int_equal(s.sel_pos, 49);
	assert_int_equal(s.scroll, 40);
	tf_keys(&s, &m, TF_KEYS(TUI_KEY_PGDN, 'j', TUI_KEY_DOWN)); /* stays at the end */
	assert_int_equal(s.sel_pos, 49);
	tf_keys(&s, &m, TF_KEYS(TUI_KEY_PGUP));
	assert_int_equal(s.sel_pos, 39);
	assert_int_equal(s.scroll, 39);
	tf_keys(&s, &m, TF_KEYS('k', TUI_KEY_UP));
	assert_int_equal(s.sel_pos, 37);
	assert_int_equal(s.scroll, 37);
	tf_keys(&s, &m, TF_KEYS(TUI_KEY_HOME));
	assert_int_equal(s.sel_pos, 0);
	assert_int_equal(s.scroll, 0);
	/* A taller terminal: the last page stays full. */
	tf_keys(&s, &m, TF_KEYS(TUI_KEY_END));
	tui_state_set_page(&s, 30, 0);
	tui_state_sync(&s, &m);
	assert_int_equal(s.scroll, 20);
	/* Rows vanish under the selection: it moves to the last one. */
	tui_model_set_topic_count(&m, 5);
	tui_state_sync(&s, &m);
	assert_int_equal(sel(&s), 4);
	assert_int_equal(s.scroll, 0);
	tui_state_fini(&s);
	tui_model_fini(&m);
}

static void test_confirm_quit(void **state)
{
	(void)state;
	struct tui_model m;
	struct tui_state s;
	struct tui_cmd c;
	tf_model(&m);
	tf_state(&s, &m, 10);
	unsigned f = tui_state_handle_key(&s, &m, 'q', &c);
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(f & TUI_F_COMMAND, 0);
	assert_int_equal(s.input, TUI_INPUT_CONFIRM_QUIT);
	c = tf_keys(&s, &m, TF_KEYS('n'));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(s.input, TUI_INPUT_NONE);
	assert_false(s.finishing);
	c = tf_keys(&s, &m, TF_KEYS(TUI_KEY_F(10), TUI_KEY_ESC));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	f = tui_state_handle_key(&s, &m, 'q', &c);
	f = tui_state_handle_key(&s, &m, 'y', &c);
	assert_int_equal(c.kind, TUI_CMD_QUIT);
	assert_true(f & TUI_F_COMMAND);
	assert_true(s.finishing);
	/* Finishing: keys do nothing more, but q again asks to abandon. */
	f = tui_state_handle_key(&s, &m, 'p', &c);
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(f, 0);
	f = tui_state_handle_key(&s, &m, 'q', &c);
	assert_int_equal(c.kind, TUI_CMD_QUIT);
	assert_true(f & TUI_F_COMMAND);
	tui_state_fini(&s);
	/* q q and F10 F10 confirm too; paused, q quits at once. */
	tf_state(&s, &m, 10);
	c = tf_keys(&s, &m, TF_KEYS(TUI_KEY_F(10), TUI_KEY_F(10)));
	assert_int_equal(c.kind, TUI_CMD_QUIT);
	tui_state_fini(&s);
	tf_state(&s, &m, 10);
	m.hdr.state = TUI_REC_PAUSED;
	c = tf_keys(&s, &m, TF_KEYS('q'));
	assert_int_equal(c.kind, TUI_CMD_QUIT);
	tui_state_fini(&s);
	/* Snapshot mode: q then s writes a snapshot before quitting, when the
	 * buffer holds something; an empty buffer has nothing to write (s is
	 * "any other key": back). */
	m.hdr.state = TUI_REC_SNAPSHOT_ARMED;
	m.hdr.snapshot_mode = true;
	tf_state(&s, &m, 10);
	c = tf_keys(&s, &m, TF_KEYS('q', 's'));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(s.input, TUI_INPUT_NONE);
	assert_false(s.finishing);
	m.hdr.snapshot_buffered = 3;
	c = tf_keys(&s, &m, TF_KEYS('q', 's'));
	assert_int_equal(c.kind, TUI_CMD_SNAPSHOT_QUIT);
	assert_true(s.finishing);
	tui_state_fini(&s);
	tf_state(&s, &m, 10);
	c = tf_keys(&s, &m, TF_KEYS('q', 'y'));
	assert_int_equal(c.kind, TUI_CMD_QUIT);
	tui_state_fini(&s);
	tui_model_fini(&m);
}

static void test_depth_prompt(struct tui_model *m, struct tui_state *s)
{
	struct tui_cmd c;
	/* /tf selected */
	c = tf_keys(s, m, TF_KEYS('T', '0', TUI_KEY_ENTER));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(s->input, TUI_INPUT_DEPTH);
	assert_non_null(strstr(s->message, "1 to 10000"));
	c = tf_keys(s, m, TF_KEYS('x'));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_string_equal(s->depth, "");
	assert_non_null(strstr(s->message, "digits only"));
	c = tf_keys(s, m, TF_KEYS(TUI_KEY_ENTER)); /* empty */
	assert_int_equal(c.kind, TUI_CMD_NONE);
	c = tf_keys(s, m, TF_KEYS('9', '9', '9', '9', '9', TUI_KEY_ENTER));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(s->input, TUI_INPUT_DEPTH);
	c = tf_keys(s, m, TF_KEYS('1', '2', '3', TUI_KEY_BACKSPACE, TUI_KEY_ENTER));
	assert_int_equal(c.kind, TUI_CMD_MARK_TL);
	assert_int_equal(c.topic_id, 1);
	assert_int_equal(c.depth, 12);
	assert_int_equal(s->input, TUI_INPUT_NONE);
	c = tf_keys(s, m, TF_KEYS('T', '5', TUI_KEY_ESC));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(s->input, TUI_INPUT_NONE);
}

static void test_commands(struct tui_model *m, struct tui_state *s)
{
	struct tui_cmd c;
	c = tf_keys(s, m, TF_KEYS('j', ' '));
	assert_int_equal(c.kind, TUI_CMD_TOGGLE_TOPIC);
	assert_int_equal(c.topic_id, 0);
	c = tf_keys(s, m, TF_KEYS('t')); /* not marked: depth 1 */
	assert_int_equal(c.kind, TUI_CMD_MARK_TL);
	assert_int_equal(c.depth, 1);
	c = tf_keys(s, m, TF_KEYS(TUI_KEY_END, 't')); /* /tf_static is marked: unmark */
	assert_int_equal(c.kind, TUI_CMD_MARK_TL);
	assert_int_equal(c.topic_id, 2);
	assert_int_equal(c.depth, 0);
	assert_int_equal(tf_keys(s, m, TF_KEYS('p')).kind, TUI_CMD_PAUSE_TOGGLE);
	assert_int_equal(tf_keys(s, m, TF_KEYS('n')).kind, TUI_CMD_SPLIT);
	/* Snapshot only in snapshot mode; otherwise the event line says why. */
	assert_int_equal(tf_keys(s, m, TF_KEYS('s')).kind, TUI_CMD_NONE);
	assert_non_null(strstr(s->message, "--snapshot-mode"));
	m->hdr.snapshot_mode = true;
	m->hdr.state = TUI_REC_SNAPSHOT_ARMED;
	assert_int_equal(tf_keys(s, m, TF_KEYS('s')).kind, TUI_CMD_NONE); /* the dialog */
	assert_int_equal(s->input, TUI_INPUT_SNAPSHOT);
	assert_int_equal(tf_keys(s, m, TF_KEYS(TUI_KEY_ENTER)).kind, TUI_CMD_SNAPSHOT);
	assert_int_equal(s->input, TUI_INPUT_NONE);
	assert_string_equal(s->message, "");
	/* No rows: topic keys do nothing. */
	tui_model_set_topic_count(m, 0);
	tui_state_sync(s, m);
	assert_int_equal(tf_keys(s, m, TF_KEYS(' ')).kind, TUI_CMD_NONE);
	assert_int_equal(tf_keys(s, m, TF_KEYS('t')).kind, TUI_CMD_NONE);
}

/* Snapshot mode with --snapshot-duration 10 --snapshot-post 2, a topic
 * window of 15 s before. */
static void snap_model(struct tui_model *m)
{
	tf_snapshot_mode(m, 10, 2000, 15, 2000);
}

/* Enter in the dialog: the error it says (NULL: none, a snapshot sent). */
static void snap_enter(struct tui_state *s, const struct tui_model *m, const char *error,
		       enum tui_snap_field focus)
{
	struct tui_cmd c = tf_keys(s, m, TF_KEYS(TUI_KEY_ENTER));
	if (!error) {
		assert_int_equal(c.kind, TUI_CMD_SNAPSHOT);
		assert_int_equal(s->input, TUI_INPUT_NONE);
		return;
	}
	assert_int_equal(c.kind, TUI_CMD_NONE);
	assert_int_equal(s->input, TUI_INPUT_SNAPSHOT);
	assert_non_null(strstr(s->snap.error, error));
	assert_int_equal(s->snap.focus, focus);
}

static void test_snapshot_dialog_values(struct tui_model *m, struct tui_state *s)
{
	snap_model(m);
	/* Opened with the configured defaults; s Enter is today's s. */
	tf_keys(s, m, TF_KEYS('s'));
	assert_string_equal(s->snap.text[TUI_SNAP_BEFORE], "10");
	assert_string_equal(s->snap.text[TUI_SNAP_AFTER], "2");
	assert_string_equal(s->snap.text[TUI_SNAP_TOPICS], "");
	assert_int_equal(s->snap.focus, TUI_SNAP_BEFORE);
	struct tui_cmd c = tf_keys(s, m, TF_KEYS(TUI_KEY_ENTER));
	assert_int_equal(c.kind, TUI_CMD_SNAPSHOT);
	assert_false(c.snap.before_set);
	assert_false(c.snap.after_set);
	assert_string_equal(c.snap.topics, "");
	assert_string_equal(c.snap.exclude, "");
	assert_string_equal(c.snap.name, "");
	/* Before 1.5, topics without their blanks, exclude, a name. */
	c = tf_keys(s, m, TF_KEYS('s', TUI_KEY_BACKSPACE, TUI_KEY_BACKSPACE, '1', '.', '5',
			       TUI_KEY_TAB, TUI_KEY_DOWN, '/', 't', 'f', ',', ' ', '/', 'a',
			       TUI_KEY_TAB, '/', 'b', TUI_KEY_TAB, 'e', 'v', '1', TUI_KEY_ENTER));
	assert_int_equal(c.kind, TUI_CMD_SNAPSHOT);
	assert_true(c.snap.before_set);
	assert_int_equal(c.snap.before_ns, INT64_C(1500000000));
	assert_false(c.snap.after_set);
	assert_string_equal(c.snap.topics, "/tf,/a");
	assert_string_equal(c.snap.exclude, "/b");
	assert_string_equal(c.snap.name, "ev1");
	/* The widest topic window bounds Before; After 0 is set; Up wraps. */
	c = tf_keys(s, m, TF_KEYS('s', 21, '1', '5', TUI_KEY_UP, TUI_KEY_UP, TUI_KEY_UP,
			       TUI_KEY_UP, 21, '0', TUI_KEY_ENTER));
	assert_int_equal(c.kind, TUI_CMD_SNAPSHOT);
	assert_int_equal(c.snap.before_ns, INT64_C(15000000000));
	assert_true(c.snap.after_set);
	assert_int_equal(c.snap.after_ns, 0);
	/* No time bound configured: Before opens empty, which keeps it. */
	m->hdr.snapshot_before_ns = 0;
	tf_keys(s, m, TF_KEYS('s'));
	assert_string_equal(s->snap.text[TUI_SNAP_BEFORE], "");
	c = tf_keys(s, m, TF_KEYS(TUI_KEY_ENTER));
	assert_int_equal(c.kind, TUI_CMD_SNAPSHOT);
	assert_false(c.snap.before_set);
}

static void test_snapshot_dialog_errors(struct tui_model *m, struct tui_state *s)
{
	snap_model(m);
	tf_keys(s, m, TF_KEYS('s', 21, 'x'));
	snap_enter(s, m, "Before (s): not a number", TUI_SNAP_BEFORE);
	tf_keys(s, m, TF_KEYS(21, '-', '1'));
	assert_string_equal(s->snap.error, ""); /* an edit clears it */
	snap_enter(s, m, "Before (s): not negative", TUI_SNAP_BEFORE);
	tf_keys(s, m, TF_KEYS(21, '1', '6'));
	snap_enter(s, m, "Before (s): at most 15 ", TUI_SNAP_BEFORE);
	tf_keys(s, m, TF_KEYS(21, '1', TUI_KEY_TAB, 21, '2', '.', '5'));
	snap_enter(s, m, "After (s): at most 2 ", TUI_SNAP_AFTER);
	tf_keys(s, m,
		TF_KEYS(TUI_KEY_BACKSPACE, TUI_KEY_BACKSPACE, TUI_KEY_UP, TUI_KEY_UP, '.', '.'));
	snap_enter(s, m, "Name: a file name", TUI_SNAP_NAME);
	tf_keys(s, m, TF_KEYS(TUI_KEY_BACKSPACE, '/'));
	snap_enter(s, m, "Name: a file name", TUI_SNAP_NAME);
	/* Esc: nothing sent, the dialog gone. */
	assert_int_equal(tf_keys(s, m, TF_KEYS(TUI_KEY_ESC)).kind, TUI_CMD_NONE);
	assert_int_equal(s->input, TUI_INPUT_NONE);
	assert_int_equal(s->view, TUI_VIEW_TABLE);
	/* Fixed: sent; a snapshot being written: not opened, said why. */
	tf_keys(s, m, TF_KEYS('s', 21, '1', TUI_KEY_TAB, 21, '2'));
	snap_enter(s, m, NULL, 0);
	m->hdr.state = TUI_REC_WRITING_SNAPSHOT;
	assert_int_equal(tf_keys(s, m, TF_KEYS('s')).kind, TUI_CMD_NONE);
	assert_int_equal(s->input, TUI_INPUT_NONE);
	assert_non_null(strstr(s->message, "being written"));
	/* With --queue-triggers the recorder queues it: opened. */
	m->hdr.queue_triggers = true;
	tf_keys(s, m, TF_KEYS('s'));
	assert_int_equal(s->input, TUI_INPUT_SNAPSHOT);
	assert_int_equal(tf_keys(s, m, TF_KEYS(TUI_KEY_ESC)).kind, TUI_CMD_NONE);
	m->hdr.queue_triggers = false;
	/* From the log view: the dialog over the table. */
	m->hdr.state = TUI_REC_SNAPSHOT_ARMED;
	tf_keys(s, m, TF_KEYS(TUI_KEY_TAB, 's'));
	assert_int_equal(s->view, TUI_VIEW_TABLE);
	assert_int_equal(s->input, TUI_INPUT_SNAPSHOT);
}

static void test_views_and_flags(struct tui_model *m, struct tui_state *s)
{
	struct tui_cmd c;
	assert_int_equal(tui_state_handle_key(s, m, TUI_KEY_CTRL_L, &c),
			 TUI_F_REDRAW | TUI_F_CLEAR);
	assert_true(tui_state_handle_key(s, m, TUI_KEY_RESIZE, &c) & TUI_F_RELAYOUT);
	assert_int_equal(tui_state_handle_key(s, m, 'x', &c), 0); /* unbound: nothing */
	tui_state_set_help_lines(s, 30); /* 13 lines (10 rows + 3) on screen */
	tf_keys(s, m, TF_KEYS('?'));
	assert_int_equal(s->view, TUI_VIEW_HELP);
	tf_keys(s, m, TF_KEYS('j', 'j'));
	assert_int_equal(s->help_scroll, 2);
	tf_keys(s, m, TF_KEYS(TUI_KEY_END));
	assert_int_equal(s->help_scroll, 17);
	tf_keys(s, m, TF_KEYS('k')); /* one back from the end, not from "infinity" */
	assert_int_equal(s->help_scroll, 16);
	c = tf_keys(s, m, TF_KEYS('q')); /* closes the help, does not quit */
	assert_int_equal(s->view, TUI_VIEW_TABLE);
	assert_int_equal(s->input, TUI_INPUT_NONE);
	tf_keys(s, m, TF_KEYS(TUI_KEY_TAB));
	assert_int_equal(s->view, TUI_VIEW_LOG);
	tf_keys(s, m, TF_KEYS('k', 'k', 'j'));
	assert_int_equal(s->log_scroll, 0); /* one event: nothing to scroll */
	for (int i = 0; i < 20; i++)
		tui_model_event_push(m, TF_T0 + i, TUI_SEV_INFO, "more");
	tf_keys(s, m, TF_KEYS('k', 'k', 'j'));
	assert_int_equal(s->log_scroll, 1);
	tf_keys(s, m, TF_KEYS(TUI_KEY_HOME)); /* the oldest: 21 events, 10 shown */
	assert_int_equal(s->log_scroll, 11);
	tf_keys(s, m, TF_KEYS('j'));
	assert_int_equal(s->log_scroll, 10);
	assert_int_equal(sel(s), 1); /* the table's selection did not move */
	tf_keys(s, m, TF_KEYS(TUI_KEY_TAB));
	assert_int_equal(s->view, TUI_VIEW_TABLE);
}

TU_MAIN(
	TF_TEST(test_default_order_and_selection),
	TF_TEST(test_selection_survives_resort),
	TF_TEST(test_sort_each_column),
	TF_TEST(test_sort_keys),
	TF_TEST(test_filter),
	cmocka_unit_test(test_scroll),
	cmocka_unit_test(test_confirm_quit),
	TF_TEST(test_depth_prompt),
	TF_TEST(test_commands),
	TF_TEST(test_snapshot_dialog_values),
	TF_TEST(test_snapshot_dialog_errors),
	TF_TEST(test_views_and_flags))
