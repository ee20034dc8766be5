/* tui_stderr — keeps stray stderr output (libraries, Cyclone DDS, a late
 * fprintf) off the curses screen: fd 2 goes to an unlinked temporary file
 * while the screen is up and the file is replayed to the real stderr after
 * the terminal is restored (htop does the same). Not thread-safe: call
 * start and stop from one thread; other threads may write to fd 2 at any
 * time. */
#ifndef TUI_STDERR_H
#define TUI_STDERR_H

#include <stdbool.h>
#include <stdio.h>

#include "bt_status.h"

struct tui_stderr {
	int saved_fd; /* the real stderr, -1 when not capturing */
	FILE *tmp;
};

/* Redirects fd 2 into a temporary file. BT_ERR_IO when it cannot; then
 * stderr is unchanged. */
BT_MUST_CHECK bt_status tui_stderr_start(struct tui_stderr *c, struct bt_error *err);
/* Restores fd 2 and writes what was captured to it. Returns the number of
 * bytes replayed. Does nothing (returns 0) when not capturing. */
size_t tui_stderr_stop(struct tui_stderr *c);

#endif
