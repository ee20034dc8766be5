/* tui_model — the plain view-model of the live view, of a recording or
 * (mode TUI_MODE_PLAY) of `bagtop play`. The engine side fills
 * it at the update rate (tui_run_ops.fill): copies of its numbers and
 * names, never pointers into the engine, so the front end reads it without
 * locks and the tests build one by hand.
 *
 * The header and the topic rows are overwritten by every fill; the event
 * list is a bounded ring that keeps its contents across fills (a fill pushes
 * only the events that are new since the last one). Single-threaded: the
 * UI thread owns a model. */
#ifndef TUI_MODEL_H
#define TUI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tui_keys.h"

#define TUI_PATH_MAX 512
#define TUI_NAME_MAX 256
#define TUI_EVENT_TEXT_MAX 200
#define TUI_EVENTS_MAX 256 /* the ring keeps the newest this many */

enum tui_rec_state {
	TUI_REC_RECORDING = 0,
	TUI_REC_PAUSED,
	TUI_REC_SNAPSHOT_ARMED,   /* snapshot mode: buffering, waiting for `s` */
	TUI_REC_WRITING_SNAPSHOT, /* a snapshot file is being written */
	TUI_REC_STOPPING,         /* finishing the bag; see finishing_bytes_left */
	TUI_REC_WAITING_CLOCK     /* --use-sim-time: no /clock time yet, nothing recorded */
};

enum tui_severity { TUI_SEV_INFO = 0, TUI_SEV_WARN, TUI_SEV_ERROR };

enum tui_play_state {
	TUI_PLAY_PLAYING = 0,
	TUI_PLAY_PAUSED,
	TUI_PLAY_WAITING_ACKS, /* all sent; --wait-for-all-acked */
	TUI_PLAY_DONE,
	TUI_PLAY_WAITING_SUBS /* nothing sent yet; --wait-for-subscribers */
};

/* Play's header (mode TUI_MODE_PLAY); bag_dir, pid and update_hz are the
 * common header's. Bag times count from the start of what is played. */
struct tui_play_header {
	enum tui_play_state state;
	int64_t bag_pos_ns;     /* bag time reached */
	int64_t bag_total_ns;   /* bag time of the whole selection */
	int64_t wall_elapsed_ns; /* since playing started, pauses included */
	int64_t wall_left_ns;    /* of this pass, at the current rate */
	double rate;            /* 1 = recorded pace */
	bool loop;              /* looping on */
	uint32_t loop_index;    /* the pass being played, from 1 */
	uint32_t loop_count;    /* passes asked for; 0 = forever */
	uint64_t published;     /* messages sent, every pass */
	uint64_t total;         /* messages in one pass */
};

struct tui_header {
	enum tui_rec_state state;
	bool snapshot_mode; /* --snapshot-mode: `s` is accepted */
	bool queue_triggers; /* --queue-triggers: `s` is accepted while one is written */
	char bag_dir[TUI_PATH_MAX];
	char current_file[TUI_PATH_MAX]; /* bare name, "rosbag2_..._3.db3" */
	uint32_t split_index;            /* index of the current file */
	int64_t elapsed_ns;
	uint64_t total_msgs;
	uint64_t total_bytes;
	double write_rate;   /* bytes/s over the sliding window */
	uint64_t disk_free;  /* bytes available on the bag's filesystem */
	uint64_t disk_total; /* 0 = unknown: no disk line */
	/* --min-free-space: the threshold (0 = none: low is under 5 %) and
	 * whether the guard stops recording now (shown in warning colour;
	 * "low" from twice the threshold). */
	uint64_t min_free;
	bool disk_guard;
	uint64_t cache_fill; /* bytes */
	uint64_t cache_max;  /* 0 = write-through: no bar */
	char compression[16]; /* "none", "file", "message" */
	long pid;
	double update_hz;
	uint64_t finishing_bytes_left; /* while STOPPING */
	/* Snapshot mode: what the buffer holds now, lost at quit unless a
	 * snapshot writes it first (the quit confirmation says so). */
	uint64_t snapshot_buffered; /* messages */
	uint64_t snapshot_bytes;
	/* Snapshot mode: the configured windows, the `s` dialog's defaults
	 * (--snapshot-duration, 0: no time bound; --snapshot-post), and the
	 * widest any topic has (--snapshot-window too; a day when unbounded):
	 * the dialog narrows them only. */
	int64_t snapshot_before_ns, snapshot_after_ns;
	int64_t snapshot_before_max_ns, snapshot_after_max_ns;
	/* A --throttle rule was given: the table has a Thrtl column. */
	bool throttling;
	struct tui_play_header play;
};

/* A topic's counters, since start or in the file being written. */
struct tui_counts {
	uint64_t messages; /* received while recording (total: since start; file: in it) */
	uint64_t bytes;    /* written to the bag */
	uint64_t lost_transport;
	uint64_t lost_recorder;
	uint64_t throttled; /* above its --throttle rate: not written, no loss */
};

/* In play, `enabled` is "not muted", `total` counts what was published
 * (messages and bytes, every pass), rate_hz and bandwidth are the
 * publishing rates, and the play fields below are set. */
struct tui_topic {
	uint32_t id;       /* stable for the whole run (the engine's index) */
	bool enabled;      /* recorded (Space toggles); play: not muted */
	uint32_t tl_depth; /* repeat-transient-local depth, 0 = not marked */
	char name[TUI_NAME_MAX];
	char type[TUI_NAME_MAX];
	bool no_definition; /* recorded without a message definition: Type shows "? " */
	uint32_t publishers;
	bool reliable;
	bool transient_local;
	double rate_hz;      /* sliding window */
	double bandwidth;    /* bytes/s, sliding window */
	struct tui_counts total; /* since start */
	struct tui_counts file;  /* in the file being written now */
	/* play */
	uint64_t bag_messages; /* in one pass of the selection */
	uint32_t subscribers;  /* matched readers */
	uint64_t late;         /* sent more than 1 ms behind schedule */
};

struct tui_event {
	int64_t time_ns; /* CLOCK_REALTIME; shown as local HH:MM:SS */
	enum tui_severity severity;
	char text[TUI_EVENT_TEXT_MAX];
};

struct tui_model {
	enum tui_mode mode; /* zeroed: record */
	struct tui_header hdr;
	struct tui_topic *topics; /* n_topics rows, in the engine's order */
	size_t n_topics;
	size_t cap_topics;
	struct tui_event events[TUI_EVENTS_MAX]; /* ring */
	size_t ev_first; /* slot of the oldest event */
	size_t ev_count;
	uint64_t ev_total; /* events ever pushed (changes when one arrives) */
};

/* Zeroes the model. fini frees the rows; init again to reuse. */
void tui_model_init(struct tui_model *m);
void tui_model_fini(struct tui_model *m);
/* Makes room for n rows and sets n_topics; new rows are zeroed, existing
 * ones keep their contents. Aborts on out-of-memory (UI set-up path). */
void tui_model_set_topic_count(struct tui_model *m, size_t n);
/* Index of the row with this id, or -1. */
long tui_model_find_topic(const struct tui_model *m, uint32_t id);
/* Appends an event (text cut to TUI_EVENT_TEXT_MAX - 1 bytes); when the
 * ring is full the oldest is dropped. */
void tui_model_event_push(struct tui_model *m, int64_t time_ns, enum tui_severity sev,
			  const char *text);
/* Event i, 0 = oldest, ev_count - 1 = newest; NULL when out of range. */
const struct tui_event *tui_model_event_get(const struct tui_model *m, size_t i);
/* t's counters since start (file false) or in the current file. */
const struct tui_counts *tui_topic_counts(const struct tui_topic *t, bool file);
/* "RECORDING", "PAUSED", "SNAPSHOT-ARMED", "WRITING SNAPSHOT", "STOPPING",
 * "WAITING FOR /clock". */
const char *tui_model_state_str(enum tui_rec_state s);
/* "PLAYING", "PAUSED", "WAITING FOR ACKS", "DONE". */
const char *tui_model_play_state_str(enum tui_play_state s);

#endif
