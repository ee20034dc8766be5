/* tui_snapdlg — the snapshot dialog of the live view (`s` in snapshot
 * mode): the parameters `bagtop snapshot --pid` takes (--before, --after,
 * --topics, --exclude, --name), pre-filled with the configured defaults,
 * edited field by field and checked before anything is triggered. The
 * state's reducer (tui_state) feeds it keys; the view draws it. Pure. */
#ifndef TUI_SNAPDLG_H
#define TUI_SNAPDLG_H

#include <stdbool.h>
#include <stdint.h>

#include "tui_model.h"

#define TUI_SNAP_LIST_MAX 500 /* a list's bytes, as the recorder's command takes */
#define TUI_SNAP_NAME_MAX 128 /* a file name's bytes, as the recorder's command takes */
#define TUI_SNAP_ERROR_MAX 96

enum tui_snap_field {
	TUI_SNAP_BEFORE = 0,
	TUI_SNAP_AFTER,
	TUI_SNAP_TOPICS,
	TUI_SNAP_EXCLUDE,
	TUI_SNAP_NAME,
	TUI_SNAP_FIELDS
};

/* A snapshot's parameters as the dialog gives them. Zeroed: all as
 * configured (the quit prompt's snapshot and today's `s`). */
struct tui_snap_params {
	bool before_set, after_set; /* false: the configured window */
	int64_t before_ns, after_ns;
	char topics[TUI_SNAP_LIST_MAX];  /* comma-separated, no blanks; "": all */
	char exclude[TUI_SNAP_LIST_MAX]; /* comma-separated, no blanks; "": none */
	char name[TUI_SNAP_NAME_MAX];    /* "": the default file name */
};

struct tui_snapdlg {
	char text[TUI_SNAP_FIELDS][TUI_SNAP_LIST_MAX]; /* what the fields show */
	char preset[2][32]; /* Before and After as opened: unchanged means as configured */
	int64_t before_max_ns, after_max_ns; /* the widest configured windows */
	enum tui_snap_field focus;
	char error[TUI_SNAP_ERROR_MAX]; /* why Enter did not trigger; "" */
};

enum tui_snapdlg_result { TUI_SNAPDLG_EDITING = 0, TUI_SNAPDLG_CANCEL, TUI_SNAPDLG_SUBMIT };

/* Opens the dialog with the header's configured windows: Before and After
 * hold --snapshot-duration (empty when it is 0: no time bound) and
 * --snapshot-post, the lists and the name are empty, Before has the focus. */
void tui_snapdlg_open(struct tui_snapdlg *d, const struct tui_header *h);
/* Applies one key: Tab, Down and Up move between the fields, printable
 * characters append, Backspace deletes, Ctrl-U empties the field, Esc
 * cancels, Enter checks the fields: SUBMIT with *out filled, or EDITING
 * with d->error set and the focus on the field at fault. */
enum tui_snapdlg_result tui_snapdlg_key(struct tui_snapdlg *d, int key,
					struct tui_snap_params *out);
/* The field's label ("Before (s)"), and what its empty value means
 * ("as configured", "all topics"...). */
const char *tui_snapdlg_label(enum tui_snap_field f);
const char *tui_snapdlg_empty(enum tui_snap_field f);

#endif
