/* app_play_tui — the live view over `bagtop play`: fills the view-model
 * (tui mode TUI_MODE_PLAY) from the player's view snapshot at the update
 * rate, turns the view's commands into the player's controls and says what
 * they did (and the player's changes of state, rate and loop, its warnings
 * and log lines) in the event log.
 *
 * Threads, all started and joined here: main runs tui_run (fill, command,
 * done) and owns the terminal; "app-play-sig" takes the stop signals the
 * caller blocked and stops the player. */
#ifndef APP_PLAY_TUI_H
#define APP_PLAY_TUI_H

#include <signal.h>

#include "bt_status.h"
#include "play.h"

#define APP_PLAY_TUI_HZ_DEFAULT 2.0 /* view refreshes per second */

/* The player's state as the live view names it ("PLAYING", "PAUSED",
 * "WAITING FOR ACKS", "DONE"): the one set of words, for the headless
 * status lines and the event log too. */
const char *app_play_state_str(enum play_state s);

/* Runs the live view over the started player p until playing is over: the
 * end (DONE, shown for one refresh), `q` or a signal of `sigs` (which the
 * caller blocked on every thread before play_start) — both stop the
 * player with play_request_stop. update_hz <= 0: the default. Returns
 * BT_OK when the view ran (the caller then joins the player and prints
 * its summary); BT_ERR_USAGE when there is no usable terminal, with *err
 * said — nothing was drawn, the player runs on, the caller may go on
 * headless. */
BT_MUST_CHECK bt_status app_play_tui_run(struct play *p, const sigset_t *sigs, double update_hz,
					 struct bt_error *err);

#endif
