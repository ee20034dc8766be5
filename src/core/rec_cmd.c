/* rec_cmd — the recorder's command kinds; see the header. */
#include "bt_str.h"
#include "rec_cmd.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The lists, the name and their separators fit the command's text whole. */
_Static_assert(2 * REC_CMD_SNAP_LIST_MAX + REC_CMD_SNAP_NAME_MAX <= BT_CMD_TEXT_MAX,
	       "rec_cmd_snap does not fit bt_cmd.text");

void rec_cmd_snap_put(struct bt_cmd *c, const struct rec_cmd_snap *p)
{
	c->arg[0] = p->before_ns < 0 ? 0 : (uint64_t)p->before_ns + 1;
	c->arg[1] = p->after_ns < 0 ? 0 : (uint64_t)p->after_ns + 1;
	snprintf(c->text, sizeof c->text, "%s\n%s\n%s", p->topics, p->exclude, p->name);
}

/* Copies text up to the next '\n' (or its end) into out[size] and returns
 * where the following field starts. */
static const char *rec_cmd_field(const char *text, char *out, size_t size)
{
	size_t n = strcspn(text, "\n");
	snprintf(out, size, "%.*s", (int)n, text);
	return text[n] ? text + n + 1 : text + n;
}

void rec_cmd_snap_get(const struct bt_cmd *c, struct rec_cmd_snap *p)
{
	p->before_ns = c->arg[0] == 0 ? -1 : (int64_t)(c->arg[0] - 1);
	p->after_ns = c->arg[1] == 0 ? -1 : (int64_t)(c->arg[1] - 1);
	const char *t = rec_cmd_field(c->text, p->topics, sizeof p->topics);
	t = rec_cmd_field(t, p->exclude, sizeof p->exclude);
	rec_cmd_field(t, p->name, sizeof p->name);
}

bool rec_cmd_snap_name_valid(const char *name)
{
	return bt_str_file_name_ok(name, REC_CMD_SNAP_NAME_MAX);
}

bool rec_cmd_snap_list_valid(const char *list)
{
	return strchr(list, '\n') == NULL && strlen(list) < REC_CMD_SNAP_LIST_MAX;
}

bool rec_cmd_in_list(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, ",");
		if (n == len && len != 0 && memcmp(p, name, n) == 0)
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}
