#include "tui_state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"

void tui_state_init(struct tui_state *s)
{
	memset(s, 0, sizeof *s);
	s->sort_col = TUI_COL_RATE;
	s->page = 1;
}

void tui_state_fini(struct tui_state *s)
{
	free(s->order);
	memset(s, 0, sizeof *s);
}

void tui_state_set_page(struct tui_state *s, size_t page, unsigned columns)
{
	s->page = page ? page : 1;
	s->columns = columns;
}

void tui_state_set_help_lines(struct tui_state *s, size_t n)
{
	s->help_lines = n;
}

/* ---- row order ---------------------------------------------------------- */

struct tui_sort_ctx {
	const struct tui_model *m;
	bool file; /* compare the current file's counters */
	enum tui_col col;
	int sign; /* -1 for descending */
};

static int tui_cmp_u64(uint64_t a, uint64_t b)
{
	return (a > b) - (a < b);
}

static int tui_cmp_dbl(double a, double b)
{
	return (a > b) - (a < b);
}

/* The value a whole-number column sorts by; 0 for the other columns. */
static uint64_t tui_col_u64(const struct tui_topic *t, enum tui_col c, bool file)
{
	const struct tui_counts *k = tui_topic_counts(t, file);
	switch (c) {
	case TUI_COL_ON: return t->enabled;
	case TUI_COL_MUTED: return !t->enabled;
	case TUI_COL_SUBS: return t->subscribers;
	case TUI_COL_LATE: return t->late;
	case TUI_COL_TL: return t->tl_depth;
	case TUI_COL_PUBS: return t->publishers;
	case TUI_COL_QOS: return t->reliable * 2u + t->transient_local;
	case TUI_COL_MSGS:
	case TUI_COL_SENT: return k->messages; /* in play: published */
	case TUI_COL_BYTES: return k->bytes;
	case TUI_COL_LOST_T: return k->lost_transport;
	case TUI_COL_LOST_R: return k->lost_recorder;
	case TUI_COL_THROTTLED: return k->throttled;
	case TUI_COL_NAME:
	case TUI_COL_TYPE:
	case TUI_COL_RATE:
	case TUI_COL_BW:
	case TUI_COL_COUNT: break;
	}
	return 0;
}

static int tui_cmp_u64_col(const struct tui_topic *a, const struct tui_topic *b, enum tui_col c,
			   bool file)
{
	return tui_cmp_u64(tui_col_u64(a, c, file), tui_col_u64(b, c, file));
}

/* Ascending comparison of one column. */
static int tui_cmp_col(const struct tui_topic *a, const struct tui_topic *b, enum tui_col c,
		       bool file)
{
	switch (c) {
	case TUI_COL_NAME: return strcmp(a->name, b->name);
	case TUI_COL_TYPE: return strcmp(a->type, b->type);
	case TUI_COL_RATE: return tui_cmp_dbl(a->rate_hz, b->rate_hz);
	case TUI_COL_BW: return tui_cmp_dbl(a->bandwidth, b->bandwidth);
	case TUI_COL_LOST_T: {
		int r = tui_cmp_u64_col(a, b, TUI_COL_LOST_T, file);
		return r ? r : tui_cmp_u64_col(a, b, TUI_COL_LOST_R, file);
	}
	default: return tui_cmp_u64_col(a, b, c, file); /* tui_col_u64 names each */
	}
}

/* Names and types read A to Z; numbers biggest first. */
static bool tui_col_ascending(enum tui_col c)
{
	return c == TUI_COL_NAME || c == TUI_COL_TYPE;
}

static int tui_sort_cmp(const void *pa, const void *pb, void *arg)
{
	const struct tui_sort_ctx *ctx = arg;
	const struct tui_topic *a = &ctx->m->topics[*(const uint32_t *)pa];
	const struct tui_topic *b = &ctx->m->topics[*(const uint32_t *)pb];
	int r = ctx->sign * tui_cmp_col(a, b, ctx->col, ctx->file);
	if (r == 0)
		r = strcmp(a->name, b->name); /* ties in a fixed order: no jitter */
	return r ? r : tui_cmp_u64(a->id, b->id);
}

static bool tui_filter_match(const struct tui_state *s, const struct tui_topic *t)
{
	return s->filter[0] == '\0' || strcasestr(t->name, s->filter) != NULL;
}

/* Scrolls so the selection is on screen and the last page is full. */
static void tui_state_show_sel(struct tui_state *s)
{
	size_t max = s->n_order > s->page ? s->n_order - s->page : 0;
	if (s->sel_pos < s->scroll)
		s->scroll = s->sel_pos;
	if (s->sel_pos >= s->scroll + s->page)
		s->scroll = s->sel_pos - s->page + 1;
	if (s->scroll > max)
		s->scroll = max;
}

void tui_state_sync(struct tui_state *s, const struct tui_model *m)
{
	if (m->n_topics > s->cap_order) {
		void *p = s->order;
		bt_xgrow(&p, &s->cap_order, m->n_topics, sizeof *s->order);
		s->order = p;
	}
	size_t n = 0;
	for (size_t i = 0; i < m->n_topics; i++)
		if (tui_filter_match(s, &m->topics[i]))
			s->order[n++] = (uint32_t)i;
	int sign = tui_col_ascending(s->sort_col) ? 1 : -1;
	struct tui_sort_ctx ctx = {m, s->file_counts, s->sort_col, s->sort_invert ? -sign : sign};
	if (n > 1) /* qsort_r wants a real array even for nothing */
		qsort_r(s->order, n, sizeof *s->order, tui_sort_cmp, &ctx);
	s->n_order = n;
	if (n == 0) {
		s->has_sel = false;
		s->sel_pos = s->scroll = 0;
		return;
	}
	size_t pos = n;
	for (size_t i = 0; s->has_sel && i < n; i++)
		if (m->topics[s->order[i]].id == s->sel_id)
			pos = i;
	if (pos == n)
		pos = s->sel_pos < n ? s->sel_pos : n - 1;
	s->sel_pos = pos;
	s->sel_id = m->topics[s->order[pos]].id;
	s->has_sel = true;
	tui_state_show_sel(s);
}

bool tui_state_sel_shown(const struct tui_state *s, const struct tui_model *m)
{
	return m->mode == TUI_MODE_RECORD || s->selecting;
}

const struct tui_topic *tui_state_selected(const struct tui_state *s, const struct tui_model *m)
{
	if (!s->has_sel)
		return NULL;
	long i = tui_model_find_topic(m, s->sel_id);
	return i < 0 ? NULL : &m->topics[i];
}

/* ---- keys ---------------------------------------------------------------- */

static void tui_state_note(struct tui_state *s, const char *text)
{
	snprintf(s->message, sizeof s->message, "%s", text);
}

/* Moves the selection by delta rows (clamped) in the current order. */
static void tui_state_move(struct tui_state *s, const struct tui_model *m, long delta)
{
	if (s->n_order == 0)
		return;
	long pos = (long)s->sel_pos + delta;
	long last = (long)s->n_order - 1;
	pos = pos < 0 ? 0 : pos > last ? last : pos;
	s->sel_pos = (size_t)pos;
	s->sel_id = m->topics[s->order[pos]].id;
	s->has_sel = true;
	tui_state_show_sel(s);
}

/* Scroll offsets of the help and log views, kept within [0, max]. */
static bool tui_state_scroll(size_t *off, enum tui_action a, size_t page, size_t max,
			     bool up_is_more)
{
	long d = 0;
	switch (a) {
	case TUI_ACT_UP: d = -1; break;
	case TUI_ACT_DOWN: d = 1; break;
	case TUI_ACT_PGUP: d = -(long)page; break;
	case TUI_ACT_PGDN: d = (long)page; break;
	case TUI_ACT_HOME: d = -100000000L; break;
	case TUI_ACT_END: d = 100000000L; break;
	default: return false;
	}
	if (up_is_more)
		d = -d;
	long v = (long)*off + d;
	*off = v < 0 ? 0 : (size_t)v > max ? max : (size_t)v;
	return true;
}

/* The log view shows `page` events (the table's rows). */
static size_t tui_state_log_max(const struct tui_state *s, const struct tui_model *m)
{
	return m->ev_count > s->page ? m->ev_count - s->page : 0;
}

/* The help view shows page + 3 lines (it has no header). */
static size_t tui_state_help_max(const struct tui_state *s)
{
	size_t n = s->help_lines, shown = s->page + 3;
	return n > shown ? n - shown : 0;
}

static bool tui_state_nav(struct tui_state *s, const struct tui_model *m, enum tui_action a)
{
	long page = (long)s->page;
	if (a >= TUI_ACT_UP && a <= TUI_ACT_END)
		s->selecting = true; /* play: moving it shows it */
	switch (a) {
	case TUI_ACT_UP: tui_state_move(s, m, -1); return true;
	case TUI_ACT_DOWN: tui_state_move(s, m, 1); return true;
	case TUI_ACT_PGUP: tui_state_move(s, m, -page); return true;
	case TUI_ACT_PGDN: tui_state_move(s, m, page); return true;
	case TUI_ACT_HOME: tui_state_move(s, m, -(long)s->n_order); return true;
	case TUI_ACT_END: tui_state_move(s, m, (long)s->n_order); return true;
	default: return false;
	}
}

static void tui_state_sort_by(struct tui_state *s, enum tui_col c)
{
	if (s->sort_col == c) {
		s->sort_invert = !s->sort_invert;
	} else {
		s->sort_col = c;
		s->sort_invert = false;
	}
}

/* F6 / `>` / `<`: the next shown column in that direction, in the
 * mode's order from left to right. */
static void tui_state_sort_step(struct tui_state *s, enum tui_mode mode, int dir)
{
	unsigned shown = s->columns ? s->columns : tui_layout_mode_columns(mode);
	enum tui_col order[TUI_COL_COUNT];
	int n = (int)tui_layout_mode_order(mode, order), at = 0;
	for (int i = 0; i < n; i++)
		if (order[i] == s->sort_col)
			at = i;
	for (int i = 0; i < n; i++) {
		at = (at + dir + n) % n;
		if (shown & (1u << order[at]))
			break;
	}
	s->sort_col = order[at];
	s->sort_invert = false;
}

static void tui_state_quit(struct tui_state *s, struct tui_cmd *cmd)
{
	s->input = TUI_INPUT_NONE;
	s->finishing = true;
	cmd->kind = TUI_CMD_QUIT;
}

/* `s`: opens the snapshot dialog, whose Enter sends the snapshot
 * (tui_state_snap_key). */
static unsigned tui_state_snapshot(struct tui_state *s, const struct tui_model *m)
{
	if (!m->hdr.snapshot_mode) {
		tui_state_note(s, "no snapshot: start bagtop record with --snapshot-mode");
		return TUI_F_REDRAW;
	}
	if (m->hdr.state == TUI_REC_WRITING_SNAPSHOT && !m->hdr.queue_triggers) {
		tui_state_note(s, "a snapshot is being written; try again when it is done");
		return TUI_F_REDRAW;
	}
	s->view = TUI_VIEW_TABLE;
	s->input = TUI_INPUT_SNAPSHOT;
	tui_snapdlg_open(&s->snap, &m->hdr);
	return TUI_F_REDRAW;
}

/* A key in the snapshot dialog; Enter with valid fields sends the snapshot
 * with them, Esc closes it without one. */
static unsigned tui_state_snap_key(struct tui_state *s, int key, struct tui_cmd *cmd)
{
	switch (tui_snapdlg_key(&s->snap, key, &cmd->snap)) {
	case TUI_SNAPDLG_SUBMIT:
		s->input = TUI_INPUT_NONE;
		cmd->kind = TUI_CMD_SNAPSHOT;
		return TUI_F_REDRAW | TUI_F_COMMAND;
	case TUI_SNAPDLG_CANCEL: s->input = TUI_INPUT_NONE; break;
	case TUI_SNAPDLG_EDITING: break;
	}
	return TUI_F_REDRAW;
}

/* The actions on the selected topic. */
static unsigned tui_state_topic_act(struct tui_state *s, const struct tui_model *m,
				    enum tui_action a, struct tui_cmd *cmd)
{
	const struct tui_topic *t = tui_state_selected(s, m);
	if (!t) {
		tui_state_note(s, "no topic selected");
		return TUI_F_REDRAW;
	}
	cmd->topic_id = t->id;
	if (a == TUI_ACT_TOGGLE_TOPIC || a == TUI_ACT_MUTE) {
		cmd->kind = TUI_CMD_TOGGLE_TOPIC;
	} else if (a == TUI_ACT_MARK_TL) {
		cmd->kind = TUI_CMD_MARK_TL;
		cmd->depth = t->tl_depth ? 0 : 1;
	} else {
		s->input = TUI_INPUT_DEPTH;
		s->depth[0] = '\0';
		s->depth_topic = t->id;
		return TUI_F_REDRAW;
	}
	return TUI_F_REDRAW | TUI_F_COMMAND;
}

/* Arrows and pages: the log view scrolls (Up shows older events), the
 * table moves its selection. */
static unsigned tui_state_move_key(struct tui_state *s, const struct tui_model *m,
				   enum tui_action a)
{
	bool moved;
	if (s->view == TUI_VIEW_LOG)
		moved = tui_state_scroll(&s->log_scroll, a, s->page, tui_state_log_max(s, m), true);
	else
		moved = tui_state_nav(s, m, a);
	return moved ? TUI_F_REDRAW : 0;
}

/* The player's keys: each a command, but a step while playing. */
static unsigned tui_state_play_act(struct tui_state *s, const struct tui_model *m,
				   enum tui_action a, struct tui_cmd *cmd)
{
	switch (a) {
	case TUI_ACT_STEP:
		if (m->hdr.play.state != TUI_PLAY_PAUSED) {
			tui_state_note(s, "the next message plays one at a time while paused "
					  "(Space or p pauses)");
			return TUI_F_REDRAW;
		}
		cmd->kind = TUI_CMD_STEP;
		break;
	case TUI_ACT_FASTER:
		*cmd = (struct tui_cmd){.kind = TUI_CMD_RATE_MUL, .value = TUI_PLAY_RATE_STEP};
		break;
	case TUI_ACT_SLOWER:
		*cmd = (struct tui_cmd){.kind = TUI_CMD_RATE_MUL,
					.value = 1.0 / TUI_PLAY_RATE_STEP};
		break;
	case TUI_ACT_SEEK_BACK:
		*cmd = (struct tui_cmd){.kind = TUI_CMD_SEEK, .value = -TUI_PLAY_SEEK_S};
		break;
	case TUI_ACT_SEEK_FWD:
		*cmd = (struct tui_cmd){.kind = TUI_CMD_SEEK, .value = TUI_PLAY_SEEK_S};
		break;
	case TUI_ACT_RESTART: cmd->kind = TUI_CMD_RESTART; break;
	case TUI_ACT_LOOP: cmd->kind = TUI_CMD_LOOP_TOGGLE; break;
	default: return 0;
	}
	return TUI_F_REDRAW | TUI_F_COMMAND;
}

static unsigned tui_state_act(struct tui_state *s, const struct tui_model *m, enum tui_action a,
			      struct tui_cmd *cmd)
{
	switch (a) {
	case TUI_ACT_HELP: s->view = TUI_VIEW_HELP; s->help_scroll = 0; break;
	case TUI_ACT_FILTER: s->view = TUI_VIEW_TABLE; s->input = TUI_INPUT_FILTER; break;
	case TUI_ACT_SORT_NEXT: tui_state_sort_step(s, m->mode, 1); break;
	case TUI_ACT_SORT_PREV: tui_state_sort_step(s, m->mode, -1); break;
	case TUI_ACT_SORT_INVERT: s->sort_invert = !s->sort_invert; break;
	case TUI_ACT_SORT_NAME: tui_state_sort_by(s, TUI_COL_NAME); break;
	case TUI_ACT_SORT_RATE: tui_state_sort_by(s, TUI_COL_RATE); break;
	case TUI_ACT_SORT_BYTES: tui_state_sort_by(s, TUI_COL_BYTES); break;
	case TUI_ACT_SORT_LOSSES: tui_state_sort_by(s, TUI_COL_LOST_T); break;
	case TUI_ACT_SORT_LATE: tui_state_sort_by(s, TUI_COL_LATE); break;
	case TUI_ACT_MUTE:
	case TUI_ACT_TOGGLE_TOPIC:
	case TUI_ACT_MARK_TL:
	case TUI_ACT_ASK_TL_DEPTH: return tui_state_topic_act(s, m, a, cmd);
	case TUI_ACT_SNAPSHOT: return tui_state_snapshot(s, m);
	case TUI_ACT_PAUSE: cmd->kind = TUI_CMD_PAUSE_TOGGLE; return TUI_F_REDRAW | TUI_F_COMMAND;
	case TUI_ACT_SPLIT: cmd->kind = TUI_CMD_SPLIT; return TUI_F_REDRAW | TUI_F_COMMAND;
	case TUI_ACT_LOG_VIEW:
		s->view = s->view == TUI_VIEW_LOG ? TUI_VIEW_TABLE : TUI_VIEW_LOG;
		s->log_scroll = 0;
		break;
	case TUI_ACT_FILE_COUNTS: s->file_counts = !s->file_counts; break;
	case TUI_ACT_REDRAW: return TUI_F_REDRAW | TUI_F_CLEAR;
	case TUI_ACT_QUIT:
		/* Paused, nothing is being recorded that a slip could cut short;
		 * playing loses nothing. */
		if (m->mode == TUI_MODE_PLAY || m->hdr.state == TUI_REC_PAUSED) {
			tui_state_quit(s, cmd);
			return TUI_F_REDRAW | TUI_F_COMMAND;
		}
		s->input = TUI_INPUT_CONFIRM_QUIT;
		break;
	case TUI_ACT_SELECT: s->selecting = true; break;
	case TUI_ACT_STEP:
	case TUI_ACT_FASTER:
	case TUI_ACT_SLOWER:
	case TUI_ACT_SEEK_BACK:
	case TUI_ACT_SEEK_FWD:
	case TUI_ACT_RESTART:
	case TUI_ACT_LOOP: return tui_state_play_act(s, m, a, cmd);
	default:
		return tui_state_move_key(s, m, a);
	}
	return TUI_F_REDRAW;
}

static bool tui_key_is_backspace(int key)
{
	return key == TUI_KEY_BACKSPACE || key == TUI_KEY_DEL || key == 8;
}

static unsigned tui_state_filter_key(struct tui_state *s, const struct tui_model *m, int key)
{
	size_t len = strlen(s->filter);
	if (key == TUI_KEY_ENTER || key == '\r') {
		s->input = TUI_INPUT_NONE;
	} else if (key == TUI_KEY_ESC) {
		s->filter[0] = '\0';
		s->input = TUI_INPUT_NONE;
	} else if (tui_key_is_backspace(key)) {
		if (len)
			s->filter[len - 1] = '\0';
	} else if (key >= 32 && key < 127) {
		if (len + 1 < sizeof s->filter) {
			s->filter[len] = (char)key;
			s->filter[len + 1] = '\0';
		}
	} else if (!tui_state_nav(s, m, tui_keys_action(m->mode, key, true))) {
		return 0;
	}
	return TUI_F_REDRAW;
}

static unsigned tui_state_depth_key(struct tui_state *s, int key, struct tui_cmd *cmd)
{
	size_t len = strlen(s->depth);
	if (key == TUI_KEY_ESC) {
		s->input = TUI_INPUT_NONE;
	} else if (tui_key_is_backspace(key)) {
		if (len)
			s->depth[len - 1] = '\0';
	} else if (key >= '0' && key <= '9') {
		if (len + 1 < sizeof s->depth - 1) {
			s->depth[len] = (char)key;
			s->depth[len + 1] = '\0';
		}
	} else if (key == TUI_KEY_ENTER || key == '\r') {
		long d = len ? strtol(s->depth, NULL, 10) : 0;
		if (d < 1 || d > TUI_TL_DEPTH_MAX) {
			snprintf(s->message, sizeof s->message, "depth must be 1 to %d",
				 TUI_TL_DEPTH_MAX);
			s->depth[0] = '\0';
			return TUI_F_REDRAW;
		}
		s->input = TUI_INPUT_NONE;
		*cmd = (struct tui_cmd){.kind = TUI_CMD_MARK_TL, .topic_id = s->depth_topic,
					.depth = (uint32_t)d};
		return TUI_F_REDRAW | TUI_F_COMMAND;
	} else {
		snprintf(s->message, sizeof s->message,
			 "depth: digits only, Enter accepts, Esc cancels");
	}
	return TUI_F_REDRAW;
}

/* Snapshot mode with messages in the buffer: quitting loses them unless a
 * snapshot writes them first; the confirmation offers that (`s`). */
static bool tui_state_buffer_at_stake(const struct tui_model *m)
{
	return m->hdr.snapshot_mode && m->hdr.snapshot_buffered > 0;
}

static unsigned tui_state_confirm_key(struct tui_state *s, const struct tui_model *m, int key,
				      struct tui_cmd *cmd)
{
	if ((key == 's' || key == 'S') && tui_state_buffer_at_stake(m)) {
		tui_state_quit(s, cmd);
		cmd->kind = TUI_CMD_SNAPSHOT_QUIT;
		return TUI_F_REDRAW | TUI_F_COMMAND;
	}
	if (key == 'y' || key == 'Y' || key == TUI_KEY_ENTER || key == '\r' ||
	    tui_keys_action(m->mode, key, true) == TUI_ACT_QUIT) {
		tui_state_quit(s, cmd);
		return TUI_F_REDRAW | TUI_F_COMMAND;
	}
	s->input = TUI_INPUT_NONE;
	return TUI_F_REDRAW;
}

static unsigned tui_state_dispatch(struct tui_state *s, const struct tui_model *m, int key,
				   struct tui_cmd *cmd)
{
	switch (s->input) {
	case TUI_INPUT_FILTER: return tui_state_filter_key(s, m, key);
	case TUI_INPUT_DEPTH: return tui_state_depth_key(s, key, cmd);
	case TUI_INPUT_CONFIRM_QUIT: return tui_state_confirm_key(s, m, key, cmd);
	case TUI_INPUT_SNAPSHOT: return tui_state_snap_key(s, key, cmd);
	case TUI_INPUT_NONE: break;
	}
	enum tui_action a = tui_keys_action(m->mode, key, tui_state_sel_shown(s, m));
	if (s->view == TUI_VIEW_HELP) {
		if (tui_state_scroll(&s->help_scroll, a, s->page, tui_state_help_max(s), false))
			return TUI_F_REDRAW;
		s->view = TUI_VIEW_TABLE; /* any other key closes the help */
		return TUI_F_REDRAW;
	}
	if (key == TUI_KEY_ESC) {
		s->filter[0] = '\0';
		s->selecting = false;
		s->view = TUI_VIEW_TABLE;
		return TUI_F_REDRAW;
	}
	return tui_state_act(s, m, a, cmd);
}

unsigned tui_state_handle_key(struct tui_state *s, const struct tui_model *m, int key,
			      struct tui_cmd *out_cmd)
{
	*out_cmd = (struct tui_cmd){.kind = TUI_CMD_NONE};
	if (key == TUI_KEY_RESIZE)
		return TUI_F_RELAYOUT | TUI_F_REDRAW;
	if (s->finishing) {
		/* Quit again: the engine abandons what is not written yet. */
		if (key == 'q' || key == TUI_KEY_F(10)) {
			out_cmd->kind = TUI_CMD_QUIT;
			return TUI_F_COMMAND;
		}
		return key == TUI_KEY_CTRL_L ? TUI_F_REDRAW | TUI_F_CLEAR : 0;
	}
	unsigned flags = s->message[0] ? TUI_F_REDRAW : 0;
	s->message[0] = '\0';
	flags |= tui_state_dispatch(s, m, key, out_cmd);
	tui_state_sync(s, m);
	return flags;
}
