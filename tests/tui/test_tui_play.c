/* The live view of `bagtop play`: its frames (golden/play_*.txt: plain
 * text, and with the colour scheme's styles) and its reducer, key by key:
 * each of play's keys gives its command, the selection shows on demand and
 * Space then mutes the selected topic. */
#include <string.h>

#include "test_util.h"
#include "tui_fixture.h"
#include "tui_view.h"

#define KEYS(...) ((const int[]){__VA_ARGS__, 0})

struct play_fx {
	struct tui_model m;
	struct tui_state s;
};

static int play_setup(void **state)
{
	struct play_fx *fx = test_malloc(sizeof *fx);
	tf_play_model(&fx->m);
	tf_state(&fx->s, &fx->m, 10);
	*state = fx;
	return 0;
}

static int play_teardown(void **state)
{
	struct play_fx *fx = *state;
	tui_state_fini(&fx->s);
	tui_model_fini(&fx->m);
	test_free(fx);
	return 0;
}

/* ---- frames ---- */

static void test_playing(void **state)
{
	struct play_fx *fx = *state;
	tf_golden("play_80x24", &fx->m, &fx->s, 80, 24, true, TEXT);
	tf_golden("play_80x24_colour", &fx->m, &fx->s, 80, 24, true, COLOUR);
	tf_golden("play_60x12_ascii", &fx->m, &fx->s, 60, 12, false, TEXT);
	tf_golden("play_132x43", &fx->m, &fx->s, 132, 43, true, TEXT);
}

/* Paused, the selection shown (the key bar says Space mutes), /rosout
 * muted: M and the disabled style. */
static void test_paused_muted(void **state)
{
	struct play_fx *fx = *state;
	struct tui_model *m = &fx->m;
	m->hdr.play.state = TUI_PLAY_PAUSED;
	m->topics[3].enabled = false;
	tui_model_event_push(m, TF_T0 + INT64_C(5) * 1000000000, TUI_SEV_INFO,
			     "/rosout: muted");
	tf_keys(&fx->s, m, KEYS('j', 'j'));
	tf_golden("play_paused_muted_80x24", m, &fx->s, 80, 24, true, TEXT);
	tf_golden("play_paused_muted_80x24_colour", m, &fx->s, 80, 24, true, COLOUR);
}

/* Looping: pass 2 of 3, and pass 5 of forever (∞, or "inf" in ASCII). */
static void test_looping(void **state)
{
	struct play_fx *fx = *state;
	struct tui_play_header *p = &fx->m.hdr.play;
	p->loop = true;
	p->loop_index = 2;
	p->loop_count = 3;
	p->rate = 1.331;
	tf_golden("play_loop_80x24", &fx->m, &fx->s, 80, 24, true, TEXT);
	p->loop_index = 5;
	p->loop_count = 0;
	tf_golden("play_loop_forever_80x24_ascii", &fx->m, &fx->s, 80, 24, false, TEXT);
}

/* The end: DONE, the bar full; then waiting for acks. */
static void test_done(void **state)
{
	struct play_fx *fx = *state;
	struct tui_play_header *p = &fx->m.hdr.play;
	p->state = TUI_PLAY_DONE;
	p->bag_pos_ns = p->bag_total_ns;
	p->wall_elapsed_ns = INT64_C(75) * 1000000000;
	p->wall_left_ns = 0;
	p->published = p->total;
	for (size_t i = 0; i < fx->m.n_topics; i++) {
		fx->m.topics[i].total.messages = fx->m.topics[i].bag_messages;
		fx->m.topics[i].rate_hz = fx->m.topics[i].bandwidth = 0;
	}
	tf_golden("play_done_80x24", &fx->m, &fx->s, 80, 24, true, TEXT);
	p->state = TUI_PLAY_WAITING_ACKS;
	tf_golden("play_acks_80x24_colour", &fx->m, &fx->s, 80, 24, true, COLOUR);
}

/* Long names and a long bag path, wide and at 80 columns. */
static void test_long_names(void **state)
{
	struct play_fx *fx = *state;
	struct tui_model *m = &fx->m;
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
	tf_golden("play_long_132x43", m, &fx->s, 132, 43, true, TEXT);
	tf_golden("play_long_80x24", m, &fx->s, 80, 24, true, TEXT);
}

/* Play's help: its own keys and columns. */
static void test_help(void **state)
{
	struct play_fx *fx = *state;
	tf_keys(&fx->s, &fx->m, KEYS('?'));
	tf_golden("play_help_80x24", &fx->m, &fx->s, 80, 24, true, TEXT);
}

/* ---- the reducer ---- */

/* One key in the table view: its command. */
static struct tui_cmd press(struct play_fx *fx, int key, unsigned *flags)
{
	struct tui_cmd c;
	unsigned f = tui_state_handle_key(&fx->s, &fx->m, key, &c);
	if (flags)
		*flags = f;
	return c;
}

static void test_player_keys(void **state)
{
	struct play_fx *fx = *state;
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
		struct tui_cmd c = press(fx, cases[i].key, &flags);
		assert_int_equal(c.kind, cases[i].kind);
		assert_true(c.value > cases[i].value - 1e-9 && c.value < cases[i].value + 1e-9);
		assert_true(flags & TUI_F_COMMAND);
		assert_false(fx->s.selecting); /* none of them shows the selection */
	}
	/* Record's keys mean nothing here. */
	static const int none[] = {'t', 'T', 's', 'n', 'f', 'B'};
	for (size_t i = 0; i < sizeof none / sizeof none[0]; i++)
		assert_int_equal(press(fx, none[i], NULL).kind, TUI_CMD_NONE);
}

/* `.` and Right step one message while paused; while playing they say
 * how, and send nothing. */
static void test_step(void **state)
{
	struct play_fx *fx = *state;
	assert_int_equal(press(fx, '.', NULL).kind, TUI_CMD_NONE);
	assert_non_null(strstr(fx->s.message, "while paused"));
	fx->m.hdr.play.state = TUI_PLAY_PAUSED;
	assert_int_equal(press(fx, '.', NULL).kind, TUI_CMD_STEP);
	assert_string_equal(fx->s.message, "");
	assert_int_equal(press(fx, TUI_KEY_RIGHT, NULL).kind, TUI_CMD_STEP);
}

/* The selection shows on Enter or j/k; then Space mutes the selected
 * topic (by id, whatever the order); Esc hides it and Space pauses again. */
static void test_select_and_mute(void **state)
{
	struct play_fx *fx = *state;
	assert_true(fx->s.has_sel); /* kept, not shown */
	assert_false(tui_state_sel_shown(&fx->s, &fx->m));
	assert_int_equal(press(fx, TUI_KEY_ENTER, NULL).kind, TUI_CMD_NONE);
	assert_true(tui_state_sel_shown(&fx->s, &fx->m));
	struct tui_cmd c = press(fx, ' ', NULL);
	assert_int_equal(c.kind, TUI_CMD_TOGGLE_TOPIC);
	assert_int_equal(c.topic_id, 1); /* /tf, the busiest */
	press(fx, 'j', NULL);
	c = press(fx, ' ', NULL);
	assert_int_equal(c.kind, TUI_CMD_TOGGLE_TOPIC);
	assert_int_equal(c.topic_id, 0);
	assert_int_equal(press(fx, 'p', NULL).kind, TUI_CMD_PAUSE_TOGGLE); /* p still pauses */
	assert_int_equal(press(fx, TUI_KEY_ESC, NULL).kind, TUI_CMD_NONE);
	assert_false(tui_state_sel_shown(&fx->s, &fx->m));
	assert_int_equal(press(fx, ' ', NULL).kind, TUI_CMD_PAUSE_TOGGLE);
	/* k shows it again, on the row it was left on, one up. */
	press(fx, 'k', NULL);
	assert_true(fx->s.selecting);
	assert_int_equal(fx->s.sel_id, 1);
	/* Up and Down change the rate, not the selection. */
	assert_int_equal(press(fx, TUI_KEY_DOWN, NULL).kind, TUI_CMD_RATE_MUL);
	assert_int_equal(fx->s.sel_id, 1);
}

/* q quits at once: no confirmation, and "stopping..." until done. */
static void test_quit_at_once(void **state)
{
	struct play_fx *fx = *state;
	unsigned flags;
	assert_int_equal(press(fx, 'q', &flags).kind, TUI_CMD_QUIT);
	assert_true(flags & TUI_F_COMMAND);
	assert_true(fx->s.finishing);
	assert_int_equal(fx->s.input, TUI_INPUT_NONE);
	tf_golden("play_stopping_80x24", &fx->m, &fx->s, 80, 24, true, TEXT);
	/* F10 too, from a fresh state. */
	tui_state_fini(&fx->s);
	tf_state(&fx->s, &fx->m, 10);
	assert_int_equal(press(fx, TUI_KEY_F(10), NULL).kind, TUI_CMD_QUIT);
}

/* Sorting (L: late), the filter, the log and help views as in record. */
static void test_views_sort_filter(void **state)
{
	struct play_fx *fx = *state;
	struct tui_model *m = &fx->m;
	struct tui_state *s = &fx->s;
	assert_string_equal(tf_order(s, m),
			    "/tf /camera/front/image_raw/compressed /rosout /tf_static");
	tf_keys(s, m, KEYS('L'));
	assert_int_equal(s->sort_col, TUI_COL_LATE);
	assert_string_equal(tf_order(s, m),
			    "/camera/front/image_raw/compressed /rosout /tf /tf_static");
	/* F6 steps through play's columns only. */
	tui_state_set_page(s, 10, tui_layout_mode_columns(TUI_MODE_PLAY));
	tf_keys(s, m, KEYS('>'));
	assert_int_equal(s->sort_col, TUI_COL_MUTED);
	tf_keys(s, m, KEYS('>', '>', '>', '>'));
	assert_int_equal(s->sort_col, TUI_COL_SENT);
	tf_keys(s, m, KEYS('/', 't', 'f', TUI_KEY_ENTER));
	assert_string_equal(tf_order(s, m), "/tf /tf_static");
	tf_golden("play_filter_80x24", m, s, 80, 24, true, TEXT);
	tf_keys(s, m, KEYS(TUI_KEY_TAB));
	assert_int_equal(s->view, TUI_VIEW_LOG);
	tf_golden("play_log_80x24", m, s, 80, 24, true, TEXT);
	/* The player's keys act from the log view too. */
	assert_int_equal(press(fx, ' ', NULL).kind, TUI_CMD_PAUSE_TOGGLE);
	tf_keys(s, m, KEYS(TUI_KEY_TAB, '?'));
	assert_int_equal(s->view, TUI_VIEW_HELP);
	assert_int_equal(press(fx, 'j', NULL).kind, TUI_CMD_NONE); /* scrolls */
	assert_int_equal(s->view, TUI_VIEW_HELP);
	assert_int_equal(press(fx, 'x', NULL).kind, TUI_CMD_NONE); /* closes */
	assert_int_equal(s->view, TUI_VIEW_TABLE);
}

#define T(f) cmocka_unit_test_setup_teardown(f, play_setup, play_teardown)
TU_MAIN(
	T(test_playing),
	T(test_paused_muted),
	T(test_looping),
	T(test_done),
	T(test_long_names),
	T(test_help),
	T(test_player_keys),
	T(test_step),
	T(test_select_and_mute),
	T(test_quit_at_once),
	T(test_views_sort_filter))
