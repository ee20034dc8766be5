/* View builders: whole frames compared with golden text under golden/ —
 * plain text, and text with the styles of the colour or the monochrome
 * scheme; UTF-8 and ASCII glyphs. BAGTOP_UPDATE_GOLDEN=1 rewrites the
 * files (then read the diff before committing it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"
#include "tui_fixture.h"
#include "tui_view.h"

static void test_table(struct tui_model *m, struct tui_state *s)
{
	tf_golden("table_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("table_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_golden("table_80x24_mono", m, s, 80, 24, true, MONO);
	tf_golden("table_60x12_ascii", m, s, 60, 12, false, TEXT);
	tf_golden("table_132x43", m, s, 132, 43, true, TEXT);
}

/* A topic recorded without a message definition: "? " before its type. */
static void test_no_definition(struct tui_model *m, struct tui_state *s)
{
	m->topics[1].no_definition = true; /* /tf */
	tf_golden("table_nodef_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("table_nodef_132x43", m, s, 132, 43, true, TEXT);
}

/* Paused, disk nearly full, write-through, a warning event, the
 * selection on a row with losses; mono and ASCII (TERM=vt100 in C). */
static void test_table_warnings_mono_ascii(struct tui_model *m, struct tui_state *s)
{
	m->hdr.state = TUI_REC_PAUSED;
	m->hdr.disk_free = 20000000000ULL; /* 4 % */
	m->hdr.cache_max = 0;
	snprintf(m->hdr.compression, sizeof m->hdr.compression, "file");
	tui_model_event_push(m, TF_T0 + INT64_C(61) * 1000000000, TUI_SEV_WARN,
			     "/rosout: 12 messages lost in the recorder (cache full)");
	tui_state_sync(s, m);
	struct tui_cmd c = tf_keys(s, m, TF_KEYS('j', 'j'));
	assert_int_equal(c.kind, TUI_CMD_NONE);
	tf_golden("warnings_80x24_mono_ascii", m, s, 80, 24, false, MONO);
	tf_golden("warnings_80x24_colour", m, s, 80, 24, true, COLOUR);
	/* At the narrowest, the disk warning still fits beside the cache bar. */
	m->hdr.cache_max = 1000000000;
	m->hdr.cache_fill = 990000000;
	m->hdr.disk_free = 24900000000ULL; /* 4.98 %: still low */
	tf_golden("warnings_60x12_mono", m, s, 60, 12, true, MONO);
}

/* --min-free-space: the disk is "low" from twice the threshold (here 30 %
 * free, far above 5 %), and while the guard stops recording the header
 * says so in warning colour. */
static void test_disk_guard(struct tui_model *m, struct tui_state *s)
{
	m->hdr.min_free = m->hdr.disk_total / 5; /* 20 %: low under 40 % free */
	m->hdr.disk_free = m->hdr.disk_total / 10 * 3;
	tui_state_sync(s, m);
	tf_golden("guard_low_80x24_colour", m, s, 80, 24, true, COLOUR);
	m->hdr.disk_guard = true;
	m->hdr.disk_free = m->hdr.disk_total / 10;
	tf_golden("guard_stopped_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_golden("guard_stopped_80x24", m, s, 80, 24, true, TEXT);
}

/* --use-sim-time before the first /clock: the state says why nothing is
 * recorded, in the idle state's colour. */
static void test_waiting_clock(struct tui_model *m, struct tui_state *s)
{
	m->hdr.state = TUI_REC_WAITING_CLOCK;
	tui_state_sync(s, m);
	tf_golden("waiting_clock_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_golden("waiting_clock_60x12", m, s, 60, 12, true, TEXT);
}

static void test_many_rows_scrolled(void **state)
{
	(void)state;
	struct tui_model m;
	struct tui_state s;
	tf_model_many(&m, 40);
	m.hdr.state = TUI_REC_SNAPSHOT_ARMED;
	m.hdr.snapshot_mode = true;
	tf_state(&s, &m, 10);
	tf_keys(&s, &m, TF_KEYS(TUI_KEY_PGDN, TUI_KEY_PGDN, 'j'));
	tf_golden("scrolled_80x24", &m, &s, 80, 24, true, TEXT);
	tui_state_fini(&s);
	tui_model_fini(&m);
}

/* --throttle: the Thrtl column (only then) with each topic's throttled
 * count, no loss colour for it; at 60 columns still shown (Type, Pub,
 * Rcvd, QoS hide first). Without a rule, no column. */
static void test_throttled(struct tui_model *m, struct tui_state *s)
{
	m->hdr.throttling = true;
	m->topics[0].total.throttled = 5400; /* the camera, throttled to 10 Hz */
	tui_state_sync(s, m);
	tf_golden("throttled_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("throttled_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_golden("throttled_132x43", m, s, 132, 43, true, TEXT);
	tf_golden("throttled_60x12_ascii", m, s, 60, 12, false, TEXT);
	struct tui_layout l;
	tui_layout_build_opt(&l, 80, 24, true);
	assert_true(l.visible & (1u << TUI_COL_THROTTLED));
	tui_layout_build_opt(&l, 60, 12, true); /* the narrowest: still there */
	assert_true(l.visible & (1u << TUI_COL_THROTTLED));
	assert_true(l.visible & (1u << TUI_COL_LOST_R));
	tui_layout_build(&l, 132, 43);
	assert_false(l.visible & (1u << TUI_COL_THROTTLED));
}

/* `f`: the counter columns show the current file's figures, the Topic
 * title says so, and sorting follows what is shown; `f` again goes back. */
static void test_file_counts(struct tui_model *m, struct tui_state *s)
{
	for (size_t i = 0; i < m->n_topics; i++) {
		struct tui_topic *t = &m->topics[i];
		/* Bytes in the file in the opposite order of the totals. */
		t->file = (struct tui_counts){t->total.messages / 10, 1000 * (i + 1),
					      t->total.lost_transport, t->total.lost_recorder / 2, 0};
	}
	m->topics[0].file.lost_transport = 7; /* only in the file view */
	tui_state_sync(s, m);
	tf_keys(s, m, TF_KEYS('f', 'B'));
	assert_true(s->file_counts);
	assert_int_equal(s->order[0], 3); /* most bytes in this file: /rosout */
	tf_golden("file_counts_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("file_counts_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_keys(s, m, TF_KEYS('f'));
	assert_false(s->file_counts);
	tui_state_sync(s, m);
	assert_int_equal(s->order[0], 0); /* most bytes since start: the camera */
}

static void test_filter_and_message(struct tui_model *m, struct tui_state *s)
{
	tf_keys(s, m, TF_KEYS('s', '/', 't', 'f'));
	tf_golden("filter_editing_80x24", m, s, 80, 24, true, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_ENTER, 's'));
	tf_golden("filter_kept_80x24", m, s, 80, 24, true, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_ESC, '/', 'x', 'y'));
	tf_golden("filter_nothing_80x24", m, s, 80, 24, true, TEXT);
}

static void test_dialogs(struct tui_model *m, struct tui_state *s)
{
	tf_keys(s, m, TF_KEYS('q'));
	tf_golden("confirm_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("confirm_80x24_ascii_mono", m, s, 80, 24, false, MONO);
	/* Snapshot mode: what quitting loses, and `s` to write it first. */
	m->hdr.snapshot_mode = true;
	m->hdr.state = TUI_REC_SNAPSHOT_ARMED;
	m->hdr.snapshot_buffered = 12345;
	m->hdr.snapshot_bytes = 40u << 20;
	tf_golden("confirm_snapshot_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("confirm_snapshot_60x12_ascii", m, s, 60, 12, false, TEXT);
	m->hdr.snapshot_mode = false;
	m->hdr.state = TUI_REC_RECORDING;
	tf_keys(s, m, TF_KEYS(TUI_KEY_ESC, 'j', 'T', '4', '2'));
	tf_golden("depth_80x24_ascii", m, s, 80, 24, false, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_ESC, 'T', '0', TUI_KEY_ENTER));
	tf_golden("depth_rejected_60x12", m, s, 60, 12, true, TEXT);
}

/* `s` in snapshot mode: the dialog as opened, edited (a long topic list
 * shows its end), refusing a value, and gone after Esc. */
static void test_snapshot_dialog(struct tui_model *m, struct tui_state *s)
{
	tf_snapshot_mode(m, 30, 2500, 60, 2500);
	tf_keys(s, m, TF_KEYS('s'));
	tf_golden("snapdlg_open_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("snapdlg_open_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_golden("snapdlg_open_60x12_ascii", m, s, 60, 12, false, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_BACKSPACE, TUI_KEY_BACKSPACE, '1', TUI_KEY_TAB, TUI_KEY_TAB));
	static const char topics[] = "/camera/front/image_raw/compressed,/camera/rear/image_raw,/tf";
	for (const char *c = topics; *c; c++)
		tf_keys(s, m, TF_KEYS(*c));
	tf_golden("snapdlg_edit_80x24", m, s, 80, 24, true, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_UP, TUI_KEY_UP, '0', '0', TUI_KEY_ENTER));
	tf_golden("snapdlg_error_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("snapdlg_error_80x24_colour", m, s, 80, 24, true, COLOUR);
	tf_keys(s, m, TF_KEYS(TUI_KEY_ESC));
	tf_golden("snapdlg_cancel_80x24", m, s, 80, 24, true, TEXT);
}

static void test_help_and_log(struct tui_model *m, struct tui_state *s)
{
	for (int i = 1; i <= 30; i++) {
		char text[64];
		snprintf(text, sizeof text, "event %d", i);
		tui_model_event_push(m, TF_T0 + INT64_C(1000000000) * i,
				     i % 10 == 0 ? TUI_SEV_ERROR : TUI_SEV_INFO, text);
	}
	tui_state_sync(s, m);
	tf_keys(s, m, TF_KEYS('?'));
	tf_golden("help_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("help_60x12", m, s, 60, 12, true, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_END));
	tf_golden("help_60x12_end", m, s, 60, 12, true, TEXT);
	tf_keys(s, m, TF_KEYS('x', TUI_KEY_TAB));
	tf_golden("log_80x24", m, s, 80, 24, true, TEXT);
	tf_keys(s, m, TF_KEYS(TUI_KEY_PGUP, 'k'));
	tf_golden("log_80x24_scrolled", m, s, 80, 24, true, COLOUR);
}

static void test_finishing_and_too_small(struct tui_model *m, struct tui_state *s)
{
	tf_golden("too_small_59x12", m, s, 59, 12, true, TEXT);
	tf_golden("too_small_60x11", m, s, 60, 11, false, MONO);
	tf_keys(s, m, TF_KEYS('q', 'y'));
	assert_true(s->finishing);
	m->hdr.finishing_bytes_left = 12500000;
	tf_golden("finishing_80x24", m, s, 80, 24, true, TEXT);
	tf_golden("finishing_50x10", m, s, 50, 10, true, TEXT);
	tui_state_fini(s);
	/* The engine stopping on its own (SIGINT) shows the same screen. */
	tf_state(s, m, 10);
	m->hdr.state = TUI_REC_STOPPING;
	tf_golden("finishing_80x24", m, s, 80, 24, true, TEXT);
}

/* Frame basics the renderer relies on. */
static void test_frame(void **state)
{
	(void)state;
	struct tui_frame f;
	tui_frame_init(&f, false);
	tui_frame_reset(&f, 4, 2);
	assert_int_equal(tui_frame_put(&f, 2, 1, TUI_E_LOSS, "abcdef", 10), 4);
	assert_null(tui_frame_at(&f, 4, 1));
	assert_null(tui_frame_at(&f, 0, 2));
	assert_int_equal(tui_frame_at(&f, 3, 1)->elem, TUI_E_LOSS);
	tui_frame_put(&f, 0, 0, TUI_E_NORMAL, "\xc3\xa4", 4); /* ASCII frame: '?' per byte */
	char *t = tui_frame_text(&f);
	assert_string_equal(t, "??\n  ab\n");
	free(t);
	t = tui_frame_markup(&f, &tui_scheme_colour);
	assert_string_equal(t, "??\n  {b,fg=red}ab{/}\n");
	free(t);
	tui_frame_fini(&f);
}

TU_MAIN(
	TF_TEST(test_table),
	TF_TEST(test_no_definition),
	TF_TEST(test_table_warnings_mono_ascii),
	TF_TEST(test_disk_guard),
	TF_TEST(test_waiting_clock),
	cmocka_unit_test(test_many_rows_scrolled),
	TF_TEST(test_file_counts),
	TF_TEST(test_throttled),
	TF_TEST(test_filter_and_message),
	TF_TEST(test_dialogs),
	TF_TEST(test_snapshot_dialog),
	TF_TEST(test_help_and_log),
	TF_TEST(test_finishing_and_too_small),
	cmocka_unit_test(test_frame))
