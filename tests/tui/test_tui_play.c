/* The live view of `bagtop play`: its frames (golden/play_*.txt: plain
 * text, and with the colour scheme's styles) and its reducer, key by key:
 * each of play's keys gives its command, the selection shows on demand and
 * Space then mutes the selected topic. */
#include <string.h>

#include "test_util.h"
#include "tui_fixture.h"
#include "tui_view.h"

/* ---- frames ---- */

static void test_playing(struct tui_model *m, struct tui_state *s)
{
	tf_golden("play_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("play_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_golden("play_60x12_ascii", m, s, 60, 12, false, TEXT);
	tf_golden("play_132x43", m, s, 132, 43, true, TEXT);
}

/* Paused, the selection shown (the key bar says Space mutes), /rosout
 * muted: M and the disabled style. */
static void test_paused_muted(struct tui_model *m, struct tui_state *s)
{
	m->hdr.play.state = TUI_PLAY_PAUSED;
	m->topics[3].enabled = false;
	tui_model_event_push(m, TF_T0 + INT64_C(5) * 1000000000, TUI_SEV_INFO,
			     "/rosout: muted");
	tf_keys(s, m, TF_KEYS('j', 'j'));
	tf_golden("play_paused_muted_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("play_paused_muted_80x24_colour", m, s, 80, 24, true, COLOUR);
}

/* Looping: pass 2 of 3, and pass 5 of forever (∞, or "inf" in ASCII). */
static void test_looping(struct tui_model *m, struct tui_state *s)
{
	struct tui_play_header *p = &m->hdr.play;
	p->loop = true;
	p->loop_index = 2;
	p->loop_count = 3;
	p->rate = 1.331;
	tf_golden("play_loop_80x24", m, s, 80, 24, true, TEXT);
	p->loop_index = 5;
	p->loop_count = 0;
	tf_golden("play_loop_forever_80x24_ascii", m, s, 80, 24, false, TEXT);
}

/* The end: DONE, the bar full; then waiting for acks. */
static void test_done(struct tui_model *m, struct tui_state *s)
{
	struct tui_play_header *p = &m->hdr.play;
	p->state = TUI_PLAY_DONE;
	p->bag_pos_ns = p->bag_total_ns;
	p->wall_elapsed_ns = INT64_C(75) * 1000000000;
	p->wall_left_ns = 0;
	p->published = p->total;
	for (size_t i = 0; i < m->n_topics; i++) {
		m->topics[i].total.messages = m->topics[i].bag_messages;
		m->topics[i].rate_hz = m->topics[i].bandwidth = 0;
	}
	tf_golden("play_done_80x24", m, s, 80, 24, true, TEXT);
	p->state = TUI_PLAY_WAITING_ACKS;
	tf_golden("play_acks_80x24_colour", m, s, 80, 24, true, COLOUR);
}

/* --wait-for-subscribers: nothing sent yet, the bag time at the start,
 * one topic without a subscriber (its Subs column says 0). */
static void test_waiting_subscribers(struct tui_model *m, struct tui_state *s)
{
	struct tui_play_header *p = &m->hdr.play;
	p->state = TUI_PLAY_WAITING_SUBS;
	p->bag_pos_ns = 0;
	p->wall_elapsed_ns = INT64_C(3) * 1000000000;
	p->published = 0;
	for (size_t i = 0; i < m->n_topics; i++) {
		m->topics[i].total.messages = 0;
		m->topics[i].rate_hz = m->topics[i].bandwidth = 0;
		m->topics[i].subscribers = i == 1 ? 0 : 1;
	}
	tui_model_event_push(m, TF_T0 + INT64_C(1) * 1000000000, TUI_SEV_INFO,
			     "WAITING FOR SUBSCRIBERS at 0.0 s of bag time");
	tf_golden("play_waiting_subs_80x24", m, s, 80, 24, true, TEXT);
}

/* Long names and a long bag path, wide and at 80 columns. */
static void test_long_names(struct tui_model *m, struct tui_state *s)
{
	snprintf(m->hdr.bag_dir, sizeof m->hdr.bag_dir,
		 "/data/bags/a_very_long_directory_name_for_the_robot_fleet/vehicle_0042/"
		 "rosbag2_2025_12_01-04_00_00");
	struct tui_topic *t = tf_add(m, 4,
				     "/perception/lidar_front_left/points_filtered/ground_removed"
				     "/clustered",
				     "sensor_msgs/msg/PointCloud2_with_a_long_package_name", 10, 0);
	t->bag_messages = 1500;
	t->total.messages = 620;
	t->subscribers = 12;
	t->late = 123456;
	tf_golden("play_long_132x43", m, s, 132, 43, true, TEXT);
	tf_golden("play_long_80x24", m, s, 80, 24, true, TEXT);
}

/* Play's help: its own keys and columns. */
static void test_help(struct tui_model *m, struct tui_state *s)
{
	tf_keys(s, m, TF_KEYS('?'));
	tf_golden("play_help_80x24", m, s, 80, 24, true, TEXT);
}

/* ---- the reducer ---- */

/* One key in the table view: its command. */
static struct tui_cmd press(struct tui_model *m, struct tui_state *s, int key, unsigned *flags)
{
	struct tui_cmd c;
	unsigned f = tui_state_handle_key(s, m, key, &c);
	if (flags)
		*flags = f;
	return c;
}

static void test_player_keys(struct tui_model *m, struct tui_state *s)
{
	static const struct {
		int key;
		enum tui_cmd_kind kind;
		double value;
	} cases[] = {
		{' ', TUI_CMD_PAUSE_TOGGLE, 0},
		{'p', TUI_CMD_PAUSE_TOGGLE, 0},
		{TUI_KEY_UP, TUI_CMD_RATE_MUL, 1.1},
		{'+', TUI_CMD_RATE_MUL, 1.1},
		{TUI_KEY_DOWN, TUI_CMD_RATE_MUL, 1 / 1.1},
		{'-', TUI_CMD_RATE_MUL, 1 / 1.1},
		{'[', TUI_CMD_SEEK, -5},
		{']', TUI_CMD_SEEK, 5},
		{TUI_KEY_HOME, TUI_CMD_RESTART, 0},
		{'l', TUI_CMD_LOOP_TOGGLE, 0},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		unsigned flags;
		struct tui_cmd c = press(m, s, cases[i].key, &flags);
		assert_int_equal(c.kind, cases[i].kind);
		assert_true(c.value > cases[i].value - 1e-9 && c.value < cases[i].value + 1e-9);
		assert_true(flags & TUI_F_COMMAND);
		assert_false(s->selecting); /* none of them shows the selection */
	}
	/* Record's keys mean nothing here. */
	static const int none[] = {'t', 'T', 's', 'n', 'f', 'B'};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
		assert_int_equal(press(m, s, none[i], NULL).kind, TUI_CMD_NONE);
}

/* `.` and Right step one message while paused; while playing they say
 * how, and send nothing. */
static void test_step(struct tui_model *m, struct tui_state *s)
{
	assert_int_equal(press(m, s, '.', NULL).kind, TUI_CMD_NONE);
	assert_non_null(strstr(s->message, "while paused"));
	m->hdr.play.state = TUI_PLAY_PAUSED;
	assert_int_equal(press(m, s, '.', NULL).kind, TUI_CMD_STEP);
	assert_string_equal(s->message, "");
	assert_int_equal(press(m, s, TUI_KEY_RIGHT, NULL).kind, TUI_CMD_STEP);
}

/* The selection shows on Enter or j/k; then Space mutes the selected
 * topic (by id, whatever the order); Esc hides it and Space pauses again. */
static void test_select_and_mute(struct tui_model *m, struct tui_state *s)
{
	assert_true(s->has_sel); /* kept, not shown */
	assert_false(tui_state_sel_shown(s, m));
	assert_int_equal(press(m, s, TUI_KEY_ENTER, NULL).kind, TUI_CMD_NONE);
	assert_true(tui_state_sel_shown(s, m));
	struct tui_cmd c = press(m, s, ' ', NULL);
	assert_int_equal(c.kind, TUI_CMD_TOGGLE_TOPIC);
	assert_int_equal(c.topic_id, 1); /* /tf, the busiest */
	press(m, s, 'j', NULL);
	c = press(m, s, ' ', NULL);
	assert_int_equal(c.kind, TUI_CMD_TOGGLE_TOPIC);
	assert_int_equal(c.topic_id, 0);
	assert_int_equal(press(m, s, 'p', NULL).kind, TUI_CMD_PAUSE_TOGGLE); /* p still pauses */
	assert_int_equal(press(m, s, TUI_KEY_ESC, NULL).kind, TUI_CMD_NONE);
	assert_false(tui_state_sel_shown(s, m));
	assert_int_equal(press(m, s, ' ', NULL).kind, TUI_CMD_PAUSE_TOGGLE);
	/* k shows it again, on the row it was left on, one up. */
	press(m, s, 'k', NULL);
	assert_true(s->selecting);
	assert_int_equal(s->sel_id, 1);
	/* Up and Down change the rate, not the selection. */
	assert_int_equal(press(m, s, TUI_KEY_DOWN, NULL).kind, TUI_CMD_RATE_MUL);
	assert_int_equal(s->sel_id, 1);
}

/* q quits at once: no confirmation, and "stopping..." until done. */
static void test_quit_at_once(struct tui_model *m, struct tui_state *s)
{
	unsigned flags;
	assert_int_equal(press(m, s, 'q', &flags).kind, TUI_CMD_QUIT);
	assert_true(flags & TUI_F_COMMAND);
	assert_true(s->finishing);
	assert_int_equal(s->input, TUI_INPUT_NONE);
	tf_golden("play_stopping_80x24", m, s, 80, 24, true, TEXT);
	/* F10 too, from a fresh state. */
	tui_state_fini(s);
	tf_state(s, m, 10);
	assert_int_equal(press(m, s, TUI_KEY_F(10), NULL).kind, TUI_CMD_QUIT);
}

/* Sorting (L: late), the filter, the log and help views as in record. */
static void test_views_sort_filter(struct tui_model *m, struct tui_state *s)
{
	assert_string_equal(tf_order(s, m),
			    "/tf /camera/front/image_raw/compressed /rosout /tf_static");
	tf_keys(s, m, TF_KEYS('L'));
	assert_int_equal(s->sort_col, TUI_COL_LATE);
	assert_string_equal(tf_order(s, m),
			    "/camera/front/image_raw/compressed /rosout /tf /tf_static");
	/* F6 steps through play's columns only. */
	tui_state_set_page(s, 10, tui_layout_mode_columns(TUI_MODE_PLAY));
	tf_keys(s, m, TF_KEYS('>'));
	assert_int_equal(s->sort_col, TUI_COL_MUTED);
	tf_keys(s, m, TF_KEYS('>', '>', '>', '>'));
	assert_int_equal(s->sort_col, TUI_COL_SENT);
	tf_keys(s, m, TF_KEYS('/', 't', 'f', TUI_KEY_ENTER));
	assert_string_equal(tf_order(s, m), "/tf /tf_static");
	tf_golden("play_filter_80x24", m, s, 80, 24, true, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_TAB));
	assert_int_equal(s->view, TUI_VIEW_LOG);
	tf_golden("play_log_80x24", m, s, 80, 24, true, TEXT);
	/* The player's keys act from the log view too. */
	assert_int_equal(press(m, s, ' ', NULL).kind, TUI_CMD_PAUSE_TOGGLE);
	tf_keys(s, m, TF_KEYS(TUI_KEY_TAB, '?'));
	assert_int_equal(s->view, TUI_VIEW_HELP);
	assert_int_equal(press(m, s, 'j', NULL).kind, TUI_CMD_NONE); /* scrolls */
	assert_int_equal(s->view, TUI_VIEW_HELP);
	assert_int_equal(press(m, s, 'x', NULL).kind, TUI_CMD_NONE); /* closes */
	assert_int_equal(s->view, TUI_VIEW_TABLE);
}

TU_MAIN(
	TF_PLAY_TEST(test_playing),
	TF_PLAY_TEST(test_paused_muted),
	TF_PLAY_TEST(test_looping),
	TF_PLAY_TEST(test_done),
	TF_PLAY_TEST(test_waiting_subscribers),
	TF_PLAY_TEST(test_long_names),
	TF_PLAY_TEST(test_help),
	TF_PLAY_TEST(test_player_keys),
	TF_PLAY_TEST(test_step),
	TF_PLAY_TEST(test_select_and_mute),
	TF_PLAY_TEST(test_quit_at_once),
	TF_PLAY_TEST(test_views_sort_filter))
