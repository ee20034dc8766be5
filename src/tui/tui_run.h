/* tui_run — the live view's loop, htop style: wait for a key or the next
 * tick; a key goes through the key table and the reducer (tui_state), the
 * resulting command goes to the engine at once and the screen is redrawn
 * right after the key, not at the next tick; a tick copies the engine's
 * numbers (fill) and redraws. Runs on the calling thread, which owns the
 * terminal until tui_run returns.
 *
 * After quit (the `q` key confirmed, or the engine reporting
 * TUI_REC_STOPPING on its own, e.g. after SIGINT) it shows "finishing bag:
 * N MiB left" from the model (play: "stopping..."), polling fill at 5 Hz,
 * until done() says the bag is complete. */
#ifndef TUI_RUN_H
#define TUI_RUN_H

#include <stdbool.h>

#include "bt_status.h"
#include "tui_model.h"
#include "tui_state.h"

struct tui_run_ops {
	/* Copies the engine's state into m: its mode (m->mode: a player's
	 * fill sets TUI_MODE_PLAY, which picks the keys, columns and header),
	 * header and topic rows (all
	 * overwritten; tui_model_set_topic_count for the row count) and the
	 * events that are new since the last call (tui_model_event_push).
	 * hdr.update_hz sets the tick rate (<= 0: no ticks; fill then only runs
	 * after commands and while finishing). Called on the UI thread at the
	 * update rate, after each command and once before the first frame. */
	void (*fill)(void *ctx, struct tui_model *m);
	/* Hands a command to the engine (TUI_CMD_QUIT: start stopping, or
	 * while finishing abandon what is not written yet; do not
	 * wait). Called on the UI thread; must not block on I/O. */
	void (*command)(void *ctx, const struct tui_cmd *cmd);
	/* True once recording has stopped and the bag is complete: tui_run
	 * restores the terminal and returns. Checked every loop. */
	bool (*done)(void *ctx);
};

/* Runs the live view until done(). Errors: those of tui_screen_open
 * (BT_ERR_USAGE: no usable terminal) — then nothing was drawn and the
 * caller may go on headless. */
BT_MUST_CHECK bt_status tui_run(const struct tui_run_ops *ops, void *ctx, struct bt_error *err);

#endif
