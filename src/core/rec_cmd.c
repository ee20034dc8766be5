/* rec_cmd — the recorder's command kinds; see the header. */
#include "rec_cmd.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const rec_cmd_names[] = {
	[REC_CMD_SNAPSHOT] = "snapshot",
	[REC_CMD_SPLIT] = "split",
	[REC_CMD_PAUSE] = "pause",
	[REC_CMD_RESUME] = "resume",
	[REC_CMD_PAUSE_TOGGLE] = "pause/resume",
	[REC_CMD_IS_PAUSED] = "is_paused",
	[REC_CMD_TOGGLE_TOPIC] = "toggle topic",
	[REC_CMD_MARK_TL] = "repeat transient-local",
	[REC_CMD_SNAPSHOT_STOP] = "snapshot and stop",
};

const char *rec_cmd_name(int kind)
{
	size_t n = sizeof rec_cmd_names / sizeof rec_cmd_names[0];
	return kind > 0 && (size_t)kind < n && rec_cmd_names[kind] ? rec_cmd_names[kind] : "?";
}

struct bt_cmd rec_cmd_make(int kind, enum bt_cmd_origin_kind origin, long pid,
			   const char *detail_fmt, ...)
{
	struct bt_cmd c = {.kind = kind, .origin = {.kind = origin, .pid = pid}};
	va_list ap;
	va_start(ap, detail_fmt);
	vsnprintf(c.origin.detail, sizeof c.origin.detail, detail_fmt, ap);
	va_end(ap);
	return c;
}
