/* app_keys — keyboard control of a headless recording, as rosbag2's
 * recorder has it: Space pauses and resumes. Only when stdin is a terminal
 * and this process is in its foreground: a thread ("app-keys") switches it
 * to non-canonical, no-echo input (signals still on: Ctrl-C stops as
 * always) and submits each Space as REC_CMD_PAUSE_TOGGLE to the
 * recorder's command queue (rec_cmd.h), whose thread owns the pause state.
 * The thread gives the terminal its settings back before it ends; its
 * owner (app_run_headless) starts and joins it, also after a stop signal.
 * After Ctrl-Z and `fg` the shell may have reset the terminal: the thread
 * applies its mode again. */
#ifndef APP_KEYS_H
#define APP_KEYS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <termios.h>

#include "bt_cmdq.h"

struct app_keys {
	struct bt_cmdq *cmdq;
	pthread_t thread;
	bool started;
	atomic_bool quit;
	/* The key thread's own: */
	struct termios saved; /* the terminal's settings before ours */
	bool have_saved, changed;
};

/* Starts the key thread when stdin is a terminal and we are its
 * foreground; false (nothing started, stop is a no-op) otherwise. */
bool app_keys_start(struct app_keys *k, struct bt_cmdq *cmdq);
/* Stops and joins the thread, which restores the terminal first. */
void app_keys_stop(struct app_keys *k);

#endif
