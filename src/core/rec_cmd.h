/* rec_cmd — the recorder's commands on its command queue (bt_cmdq.h): what
 * each kind means, its arguments and its result. Every control source
 * submits them: the live view's keys, a headless recording's Space,
 * kill -USR1, `bagtop snapshot|pause|resume --pid`, the DDS services
 * (~/snapshot, ~/snapshot_with_parameters, ~/split_bagfile, ~/pause,
 * ~/resume, ~/is_paused).
 *
 * The queue is made by the session (src/app, app_run_start) before the
 * recorder starts and freed after it (rec_recorder_options.cmdq), and has
 * one consumer, the session's command thread ("app-cmd", app_run_cmd.c):
 * the one owner of the snapshot and pause state. It runs the commands in
 * submission order, says each one with its origin and result in the live
 * view's event log (or on stdout) and --log-file, and keeps the state file
 * of `bagtop snapshot|pause|resume` (app_snapfile.h).
 *
 * Stopping is not a command: a stop request (Ctrl-C, SIGTERM, `q`) goes
 * straight to the session, so that no flood of commands can keep anyone
 * from stopping. */
#ifndef REC_CMD_H
#define REC_CMD_H

#include <stdbool.h>

#include "bt_cmdq.h"

enum rec_cmd_kind {
	/* Snapshot mode: write the buffer to a file of its own. Done: `file`
	 * (absolute path) and `messages`, once written. Refused: nothing
	 * buffered, another snapshot still being written, stopping, not in
	 * snapshot mode (`value`: the rec_trigger). Failed: the write failed.
	 * Its parameters: rec_cmd_snap (none: as configured). */
	REC_CMD_SNAPSHOT = 1,
	/* Close the current storage file and go on in a new one (the bag's
	 * next split). Done at once (the writer splits next; the new file is
	 * said when it opens). Refused in snapshot mode. */
	REC_CMD_SPLIT,
	/* Stop / start writing (topics stay subscribed). Done also when it
	 * already was, `value` 1 then (reason "recording already paused" /
	 * "… running"): rosbag2's services succeed then too. */
	REC_CMD_PAUSE,
	REC_CMD_RESUME,
	REC_CMD_PAUSE_TOGGLE, /* the opposite of the state now (Space, `p`) */
	REC_CMD_IS_PAUSED,    /* done, `value`: 1 paused, 0 recording */
	/* arg[0]: topic index (rec_topics); switch its recording on/off.
	 * Done: `value` 1 on, 0 off. Refused: no such topic. */
	REC_CMD_TOGGLE_TOPIC,
	/* arg[0]: topic index, arg[1]: depth (0: no longer repeated): its
	 * last `depth` messages start every file and snapshot. Refused: no
	 * such topic, bad depth. */
	REC_CMD_MARK_TL,
	/* Snapshot mode, quitting the live view with `s`: as REC_CMD_SNAPSHOT,
	 * but a snapshot still being written is waited for (10 s at most)
	 * instead of refusing. Done once triggered (or refused: `value` is
	 * the rec_trigger): the submitter then stops; the snapshot's file is
	 * said when written, as REC_CMD_SNAPSHOT's. */
	REC_CMD_SNAPSHOT_STOP,
};

/* A snapshot's own parameters, from any origin (`bagtop snapshot --before
 * --after --topics --exclude --name`): the windows narrow the configured
 * ones only (rec_snap_params); `name` names the snapshot's file (NAME plus
 * the storage's extension in the bag directory; never overwriting: the
 * first free NAME_2, NAME_3, … when taken). In the command: before/after
 * in arg[0]/arg[1] (0: as configured, else nanoseconds + 1, so that a
 * command made without them means "as configured"), the lists and the
 * name in `text` ("TOPICS\nEXCLUDE\nNAME"). */
#define REC_CMD_SNAP_LIST_MAX 500
#define REC_CMD_SNAP_NAME_MAX 128 /* with the NUL: names of 127 bytes at most */
struct rec_cmd_snap {
	int64_t before_ns, after_ns;         /* -1: as configured */
	char topics[REC_CMD_SNAP_LIST_MAX];  /* comma-separated topic names; "": all */
	char exclude[REC_CMD_SNAP_LIST_MAX]; /* comma-separated topic names; "": none */
	char name[REC_CMD_SNAP_NAME_MAX];    /* the file's name stem; "": as usual */
};

/* Puts *p into c (a REC_CMD_SNAPSHOT / REC_CMD_SNAPSHOT_STOP). */
void rec_cmd_snap_put(struct bt_cmd *c, const struct rec_cmd_snap *p);
/* Reads c's parameters (all "as configured" when it has none). */
void rec_cmd_snap_get(const struct bt_cmd *c, struct rec_cmd_snap *p);
/* May `name` name a snapshot's file (rec_cmd_snap.name)? A plain file-name
 * stem: not empty, shorter than REC_CMD_SNAP_NAME_MAX, no '/', no control
 * character, not "." or "..". */
bool rec_cmd_snap_name_valid(const char *name);
/* May `list` be rec_cmd_snap.topics or .exclude? Shorter than
 * REC_CMD_SNAP_LIST_MAX, no newline ("" is fine: all / none). */
bool rec_cmd_snap_list_valid(const char *list);
/* Is `name` one of the comma-separated names of `list`? */
bool rec_cmd_in_list(const char *list, const char *name);

/* The kind's name in the logs ("snapshot", "split", "pause", …); "?" for
 * an unknown kind. */
const char *rec_cmd_name(int kind);

/* A command of `kind` from `origin` (detail: printf), arguments zero. */
struct bt_cmd rec_cmd_make(int kind, enum bt_cmd_origin_kind origin, long pid,
			   const char *detail_fmt, ...) BT_PRINTF(4, 5);

#endif
