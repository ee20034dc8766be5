/* tui_snapdlg — the snapshot dialog; see the header. */
#include "tui_snapdlg.h"

#include <stdio.h>
#include <string.h>

#include "bt_parse.h"
#include "bt_str.h"
#include "tui_keys.h"

static const struct {
	const char *label, *empty;
} tui_snap_fields[TUI_SNAP_FIELDS] = {
	[TUI_SNAP_BEFORE] = {"Before (s)", "as configured"},
	[TUI_SNAP_AFTER] = {"After (s)", "as configured"},
	[TUI_SNAP_TOPICS] = {"Topics", "all topics"},
	[TUI_SNAP_EXCLUDE] = {"Exclude", "none"},
	[TUI_SNAP_NAME] = {"Name", "default file name"},
};

const char *tui_snapdlg_label(enum tui_snap_field f)
{
	return tui_snap_fields[f].label;
}

const char *tui_snapdlg_empty(enum tui_snap_field f)
{
	return tui_snap_fields[f].empty;
}

/* Seconds as typed: "10", "2.5", "0.125". */
static void tui_snap_seconds(int64_t ns, char *out, size_t n)
{
	int64_t s = ns / 1000000000, frac = ns % 1000000000;
	if (frac == 0) {
		snprintf(out, n, "%lld", (long long)s);
		return;
	}
	char f[16];
	snprintf(f, sizeof f, "%09lld", (long long)frac);
	for (size_t i = strlen(f); i > 0 && f[i - 1] == '0'; i--)
		f[i - 1] = '\0';
	snprintf(out, n, "%lld.%s", (long long)s, f);
}

void tui_snapdlg_open(struct tui_snapdlg *d, const struct tui_header *h)
{
	memset(d, 0, sizeof *d);
	if (h->snapshot_before_ns > 0) /* 0: no time bound, nothing to narrow from */
		tui_snap_seconds(h->snapshot_before_ns, d->preset[0], sizeof d->preset[0]);
	tui_snap_seconds(h->snapshot_after_ns, d->preset[1], sizeof d->preset[1]);
	snprintf(d->text[TUI_SNAP_BEFORE], sizeof d->text[0], "%s", d->preset[0]);
	snprintf(d->text[TUI_SNAP_AFTER], sizeof d->text[0], "%s", d->preset[1]);
	d->before_max_ns = h->snapshot_before_max_ns;
	d->after_max_ns = h->snapshot_after_max_ns;
	d->focus = TUI_SNAP_BEFORE;
}

static size_t tui_snap_cap(enum tui_snap_field f)
{
	return f == TUI_SNAP_NAME ? TUI_SNAP_NAME_MAX : TUI_SNAP_LIST_MAX;
}

/* Sets the error and puts the focus on the field at fault. */
static enum tui_snapdlg_result tui_snap_fault(struct tui_snapdlg *d, enum tui_snap_field f,
					      const char *msg)
{
	snprintf(d->error, sizeof d->error, "%s: %s", tui_snap_fields[f].label, msg);
	d->focus = f;
	return TUI_SNAPDLG_EDITING;
}

/* Before or After: unchanged or empty is the configured window; else
 * seconds, at most the widest configured (the parameters narrow only). */
static bool tui_snap_window(struct tui_snapdlg *d, enum tui_snap_field f, bool *set,
			    int64_t *ns)
{
	const char *t = d->text[f];
	int64_t max = f == TUI_SNAP_BEFORE ? d->before_max_ns : d->after_max_ns;
	*set = t[0] != '\0' && strcmp(t, d->preset[f - TUI_SNAP_BEFORE]) != 0;
	if (!*set)
		return true;
	if (t[0] == '-') {
		tui_snap_fault(d, f, "not negative");
		return false;
	}
	if (bt_parse_seconds(t, ns) != BT_OK) {
		tui_snap_fault(d, f, "not a number of seconds");
		return false;
	}
	if (*ns > max) {
		char m[32], msg[64];
		tui_snap_seconds(max, m, sizeof m);
		snprintf(msg, sizeof msg, "at most %s (configured; it only narrows)", m);
		tui_snap_fault(d, f, msg);
		return false;
	}
	return true;
}

/* A list without its blanks: the recorder compares whole names. */
static void tui_snap_list(const char *in, char *out, size_t n)
{
	size_t k = 0;
	for (; *in && k + 1 < n; in++)
		if (*in != ' ')
			out[k++] = *in;
	out[k] = '\0';
}

static enum tui_snapdlg_result tui_snap_submit(struct tui_snapdlg *d,
					       struct tui_snap_params *out)
{
	memset(out, 0, sizeof *out);
	d->error[0] = '\0';
	if (!tui_snap_window(d, TUI_SNAP_BEFORE, &out->before_set, &out->before_ns) ||
	    !tui_snap_window(d, TUI_SNAP_AFTER, &out->after_set, &out->after_ns))
		return TUI_SNAPDLG_EDITING;
	tui_snap_list(d->text[TUI_SNAP_TOPICS], out->topics, sizeof out->topics);
	tui_snap_list(d->text[TUI_SNAP_EXCLUDE], out->exclude, sizeof out->exclude);
	const char *name = d->text[TUI_SNAP_NAME];
	if (name[0] && !bt_str_file_name_ok(name, sizeof out->name))
		return tui_snap_fault(d, TUI_SNAP_NAME, "a file name, without '/'");
	snprintf(out->name, sizeof out->name, "%s", name);
	return TUI_SNAPDLG_SUBMIT;
}

static void tui_snap_edit(struct tui_snapdlg *d, int key)
{
	char *t = d->text[d->focus];
	size_t len = strlen(t);
	d->error[0] = '\0'; /* said until the next edit */
	if (key == TUI_KEY_BACKSPACE || key == TUI_KEY_DEL || key == 8) {
		if (len)
			t[len - 1] = '\0';
	} else if (key == 21) { /* Ctrl-U, as a shell's */
		t[0] = '\0';
	} else if (key >= 32 && key < 127 && len + 1 < tui_snap_cap(d->focus)) {
		t[len] = (char)key;
		t[len + 1] = '\0';
	}
}

enum tui_snapdlg_result tui_snapdlg_key(struct tui_snapdlg *d, int key,
					struct tui_snap_params *out)
{
	switch (key) {
	case TUI_KEY_ESC: return TUI_SNAPDLG_CANCEL;
	case TUI_KEY_ENTER:
	case '\r': return tui_snap_submit(d, out);
	case TUI_KEY_TAB:
	case TUI_KEY_DOWN: d->focus = (d->focus + 1) % TUI_SNAP_FIELDS; return TUI_SNAPDLG_EDITING;
	case TUI_KEY_UP:
		d->focus = (d->focus + TUI_SNAP_FIELDS - 1) % TUI_SNAP_FIELDS;
		return TUI_SNAPDLG_EDITING;
	default: tui_snap_edit(d, key); return TUI_SNAPDLG_EDITING;
	}
}
