#include "tui_run.h"

#include "bt_time.h"
#include "tui_layout.h"
#include "tui_screen.h"
#include "tui_view.h"

#define TUI_RUN_FINISH_POLL_NS (BT_NS_PER_S / 5)
#define TUI_RUN_MAX_WAIT_MS 1000 /* also how soon a lost SIGWINCH is seen */

struct tui_run {
	const struct tui_run_ops *ops;
	void *ctx;
	struct tui_screen *scr;
	struct tui_model m;
	struct tui_state s;
	struct tui_layout l;
	struct tui_frame f;
	int64_t next_tick; /* monotonic ns; INT64_MAX = no ticks */
};

static bool tui_run_finishing(const struct tui_run *r)
{
	return r->s.finishing ||
	       (r->m.mode == TUI_MODE_RECORD && r->m.hdr.state == TUI_REC_STOPPING);
}

static int64_t tui_run_period(const struct tui_run *r)
{
	if (tui_run_finishing(r))
		return TUI_RUN_FINISH_POLL_NS;
	if (!(r->m.hdr.update_hz > 0))
		return 0;
	/* Bounded: a tiny rate must not overflow the next tick's time. */
	return bt_time_period_ns(r->m.hdr.update_hz, 1, INT64_C(1000) * BT_NS_PER_S);
}

static void tui_run_fill(struct tui_run *r)
{
	r->ops->fill(r->ctx, &r->m);
	int64_t period = tui_run_period(r);
	r->next_tick = period ? bt_time_monotonic_ns() + period : INT64_MAX;
}

/* The one place that acts on flags. */
static void tui_run_apply(struct tui_run *r, unsigned flags)
{
	if (flags & TUI_F_RELAYOUT) {
		int cols, rows;
		tui_screen_size(r->scr, &cols, &rows);
		tui_layout_build_mode(&r->l, cols, rows, r->m.mode, r->m.hdr.throttling);
		/* Too small shows no table: keep the old page and scroll. */
		if (!r->l.too_small) {
			tui_state_set_page(&r->s, (size_t)r->l.table_h, r->l.visible);
			tui_state_set_help_lines(&r->s, tui_view_help_lines(r->m.mode, cols));
		}
	}
	if (flags & (TUI_F_REDRAW | TUI_F_RELAYOUT | TUI_F_CLEAR)) {
		tui_state_sync(&r->s, &r->m);
		tui_view_build(&r->f, &r->m, &r->s, &r->l);
		tui_screen_draw(r->scr, &r->f, (flags & TUI_F_CLEAR) != 0);
	}
}

static int tui_run_wait_ms(const struct tui_run *r)
{
	int64_t left = r->next_tick - bt_time_monotonic_ns();
	if (left <= 0)
		return 0;
	int64_t ms = (left + 999999) / 1000000;
	return ms < TUI_RUN_MAX_WAIT_MS ? (int)ms : TUI_RUN_MAX_WAIT_MS;
}

/* One key or one timeout; returns the flags to apply. */
static unsigned tui_run_step(struct tui_run *r)
{
	int key = tui_screen_read_key(r->scr, tui_run_wait_ms(r));
	if (key == TUI_KEY_NONE) {
		if (bt_time_monotonic_ns() < r->next_tick)
			return 0;
		tui_run_fill(r);
		return TUI_F_REDRAW;
	}
	struct tui_cmd cmd;
	unsigned flags = tui_state_handle_key(&r->s, &r->m, key, &cmd);
	if (flags & TUI_F_COMMAND) {
		r->ops->command(r->ctx, &cmd);
		tui_run_fill(r); /* show the command's effect now */
		flags |= TUI_F_REDRAW;
	}
	return flags;
}

bt_status tui_run(const struct tui_run_ops *ops, void *ctx, struct bt_error *err)
{
	struct tui_run r = {.ops = ops, .ctx = ctx};
	bt_status st = tui_screen_open(&r.scr, err);
	if (st != BT_OK)
		return st;
	tui_model_init(&r.m);
	tui_state_init(&r.s);
	tui_frame_init(&r.f, tui_screen_utf8(r.scr));
	tui_run_fill(&r);
	unsigned flags = TUI_F_RELAYOUT | TUI_F_REDRAW;
	while (!ops->done(ctx)) {
		tui_run_apply(&r, flags);
		flags = tui_run_step(&r);
	}
	tui_screen_close(r.scr);
	tui_frame_fini(&r.f);
	tui_state_fini(&r.s);
	tui_model_fini(&r.m);
	return BT_OK;
}
