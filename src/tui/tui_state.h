/* tui_state — the live view's reducer: a key and the current model in,
 * the new UI state, at most one engine command and redraw flags out
 * (htop: keys → table → action → flags; one place, tui_run, acts).
 *
 * The state holds the view (table, help, log), any input in progress
 * (filter text, the depth prompt of `T`, the quit confirmation, the
 * snapshot dialog of `s`), the sort,
 * the selection — by stable topic id, so it stays on its topic when rows
 * are resorted, filtered or added — and the scroll offsets. It also keeps
 * the sorted and filtered row order (tui_state_sync). Pure and
 * single-threaded. */
#ifndef TUI_STATE_H
#define TUI_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui_keys.h"
#include "tui_layout.h"
#include "tui_model.h"
#include "tui_snapdlg.h"

#define TUI_FILTER_MAX 64
#define TUI_TL_DEPTH_MAX 10000
#define TUI_MESSAGE_MAX 160

enum tui_view_kind { TUI_VIEW_TABLE = 0, TUI_VIEW_HELP, TUI_VIEW_LOG };

enum tui_input {
	TUI_INPUT_NONE = 0,
	TUI_INPUT_FILTER,       /* editing the filter text */
	TUI_INPUT_DEPTH,        /* `T`: asking for a repeat-TL depth */
	TUI_INPUT_CONFIRM_QUIT, /* "quit while recording?" */
	TUI_INPUT_SNAPSHOT      /* `s` in snapshot mode: the snapshot dialog */
};

enum tui_cmd_kind {
	TUI_CMD_NONE = 0,
	TUI_CMD_SNAPSHOT,     /* snap: its parameters */
	TUI_CMD_TOGGLE_TOPIC, /* topic_id: flip its `enabled` */
	TUI_CMD_MARK_TL,      /* topic_id, depth; depth 0 = unmark */
	TUI_CMD_PAUSE_TOGGLE,
	TUI_CMD_SPLIT,
	TUI_CMD_QUIT,         /* stop recording and finish the bag; play: stop */
	TUI_CMD_SNAPSHOT_QUIT, /* snapshot mode: write a snapshot, then as TUI_CMD_QUIT */
	/* play; TOGGLE_TOPIC mutes or unmutes, PAUSE_TOGGLE pauses or resumes */
	TUI_CMD_STEP,        /* play the next message (paused) */
	TUI_CMD_RATE_MUL,    /* value: the factor */
	TUI_CMD_SEEK,        /* value: seconds of bag time, negative: back */
	TUI_CMD_RESTART,
	TUI_CMD_LOOP_TOGGLE
};

#define TUI_PLAY_RATE_STEP 1.1 /* Up and Down multiply and divide by it */
#define TUI_PLAY_SEEK_S 5.0    /* `[` and `]` */

struct tui_cmd {
	enum tui_cmd_kind kind;
	uint32_t topic_id;
	uint32_t depth;
	double value;
	struct tui_snap_params snap; /* TUI_CMD_SNAPSHOT's; zeroed: as configured */
};

/* What tui_state_handle_key asks of the loop. */
enum {
	TUI_F_REDRAW = 1,   /* build and draw the frame now */
	TUI_F_RELAYOUT = 2, /* the size changed: lay out again first */
	TUI_F_CLEAR = 4,    /* repaint every cell (Ctrl-L) */
	TUI_F_COMMAND = 8   /* *out_cmd holds a command for the engine */
};

struct tui_state {
	enum tui_view_kind view;
	enum tui_input input;
	bool finishing; /* quit sent: the "finishing bag" screen */
	enum tui_col sort_col;
	bool sort_invert; /* against the column's natural order */
	char filter[TUI_FILTER_MAX];
	char depth[8]; /* digits typed at the depth prompt */
	uint32_t depth_topic;
	struct tui_snapdlg snap; /* while input is TUI_INPUT_SNAPSHOT */
	bool has_sel;
	bool selecting; /* play: the selection is shown (Enter, j, k...; Esc hides it) */
	uint32_t sel_id;
	size_t sel_pos; /* position of the selection in `order` */
	size_t scroll;  /* first table row shown */
	size_t log_scroll;  /* events hidden below the log view's bottom */
	size_t help_scroll;
	size_t help_lines;  /* lines of the help view at this width */
	size_t page;        /* table rows on screen (from the layout) */
	unsigned columns;   /* shown columns (tui_layout.visible), for F6 */
	bool file_counts;   /* counters of the current file, not since start (f) */
	char message[TUI_MESSAGE_MAX]; /* one-shot note for the event line */
	uint32_t *order; /* model row indices, sorted and filtered */
	size_t n_order;
	size_t cap_order;
};

/* Table view, sorted by rate (busiest first), nothing selected. */
void tui_state_init(struct tui_state *s);
void tui_state_fini(struct tui_state *s);
/* Tells the state the table's height and shown columns (after layout). */
void tui_state_set_page(struct tui_state *s, size_t page, unsigned columns);
/* Tells the state how many lines the help view has (tui_view_help_lines),
 * so scrolling stops at its end. */
void tui_state_set_help_lines(struct tui_state *s, size_t n);
/* Recomputes the row order from the model (after each fill and key) and
 * keeps the selection on its topic (or on the same position when the
 * topic is gone) and visible. */
void tui_state_sync(struct tui_state *s, const struct tui_model *m);
/* Applies one key. Fills *out_cmd (kind TUI_CMD_NONE when there is no
 * command) and returns TUI_F_* flags. */
unsigned tui_state_handle_key(struct tui_state *s, const struct tui_model *m, int key,
			      struct tui_cmd *out_cmd);
/* Whether the selection is shown (and Space acts on it): always in record,
 * on demand in play. */
bool tui_state_sel_shown(const struct tui_state *s, const struct tui_model *m);
/* The selected topic's model row, or NULL. */
const struct tui_topic *tui_state_selected(const struct tui_state *s, const struct tui_model *m);

#endif
