#include "tui_view.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bt_mem.h"
#include "tui_format.h"
#include "tui_keys.h"

/* Cells inside the cache bar's brackets; narrower below 80 columns so the
 * disk warning still fits beside it. */
#define TUI_CACHE_BAR(cols) ((cols) >= 80 ? 20 : 12)

/* ---- frame --------------------------------------------------------------- */

void tui_frame_init(struct tui_frame *f, bool utf8)
{
	memset(f, 0, sizeof *f);
	f->utf8 = utf8;
}

void tui_frame_fini(struct tui_frame *f)
{
	free(f->cells);
	f->cells = NULL;
	f->cap = 0;
	f->cols = f->rows = 0;
}

void tui_frame_reset(struct tui_frame *f, int cols, int rows)
{
	size_t n = (size_t)(cols > 0 ? cols : 0) * (size_t)(rows > 0 ? rows : 0);
	if (n > f->cap) {
		void *p = f->cells;
		bt_xgrow(&p, &f->cap, n, sizeof *f->cells);
		f->cells = p;
	}
	f->cols = cols > 0 ? cols : 0;
	f->rows = rows > 0 ? rows : 0;
	for (size_t i = 0; i < n; i++)
		f->cells[i] = (struct tui_cell){" ", TUI_E_NORMAL};
}

struct tui_cell *tui_frame_at(const struct tui_frame *f, int x, int y)
{
	if (x < 0 || y < 0 || x >= f->cols || y >= f->rows)
		return NULL;
	return &f->cells[(size_t)y * (size_t)f->cols + (size_t)x];
}

int tui_frame_put(struct tui_frame *f, int x, int y, enum tui_elem e, const char *text, int max)
{
	const unsigned char *p = (const unsigned char *)text;
	for (int w = 0; *p && w < max; w++, x++) {
		struct tui_cell *c = tui_frame_at(f, x, y);
		size_t len = f->utf8 ? tui_layout_u8len((const char *)p) : (*p < 0x80);
		if (!c)
			break;
		c->elem = (uint8_t)e;
		if (len == 0 || *p < 0x20 || *p == 0x7f) {
			memcpy(c->ch, "?", 2);
			p++;
			continue;
		}
		memcpy(c->ch, p, len);
		c->ch[len] = '\0';
		p += len;
	}
	return x;
}

/* Sets cells [x0, x1) of row y to blanks of element e. */
static void tui_frame_fill(struct tui_frame *f, int y, int x0, int x1, enum tui_elem e)
{
	for (int x = x0; x < x1; x++) {
		struct tui_cell *c = tui_frame_at(f, x, y);
		if (c)
			*c = (struct tui_cell){" ", (uint8_t)e};
	}
}

/* Columns of row y up to the last non-blank or styled cell. */
static int tui_frame_row_end(const struct tui_frame *f, int y, const struct tui_scheme *sc)
{
	int end = f->cols;
	while (end > 0) {
		const struct tui_cell *c = tui_frame_at(f, end - 1, y);
		bool styled = sc && memcmp(&sc->s[c->elem], &sc->s[TUI_E_NORMAL],
					   sizeof sc->s[0]) != 0;
		if (strcmp(c->ch, " ") != 0 || styled)
			break;
		end--;
	}
	return end;
}

static void tui_buf_add(char **buf, size_t *len, size_t *cap, const char *s)
{
	size_t n = strlen(s);
	if (*len + n + 1 > *cap) {
		void *p = *buf;
		bt_xgrow(&p, cap, *len + n + 1, 1);
		*buf = p;
	}
	memcpy(*buf + *len, s, n + 1);
	*len += n;
}

static char *tui_frame_dump(const struct tui_frame *f, const struct tui_scheme *sc)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;
	tui_buf_add(&buf, &len, &cap, "");
	for (int y = 0; y < f->rows; y++) {
		int end = tui_frame_row_end(f, y, sc);
		char open[64] = "";
		for (int x = 0; x < end; x++) {
			const struct tui_cell *c = tui_frame_at(f, x, y);
			char style[64] = "";
			if (sc)
				tui_style_describe(&sc->s[c->elem], style, sizeof style);
			if (strcmp(style, open) != 0) {
				char tag[80];
				snprintf(tag, sizeof tag, "%s%s%s%s", open[0] ? "{/}" : "",
					 style[0] ? "{" : "", style, style[0] ? "}" : "");
				tui_buf_add(&buf, &len, &cap, tag);
				snprintf(open, sizeof open, "%s", style);
			}
			tui_buf_add(&buf, &len, &cap, c->ch);
		}
		tui_buf_add(&buf, &len, &cap, open[0] ? "{/}\n" : "\n");
	}
	return buf;
}

char *tui_frame_text(const struct tui_frame *f)
{
	return tui_frame_dump(f, NULL);
}

char *tui_frame_markup(const struct tui_frame *f, const struct tui_scheme *sc)
{
	return tui_frame_dump(f, sc);
}

/* ---- pieces -------------------------------------------------------------- */

/* `text` fitted into w columns at x (right-aligned when asked). */
static void tui_view_cell(struct tui_frame *f, int x, int y, int w, enum tui_elem e,
			  const char *text, bool right)
{
	char fit[4 * TUI_NAME_MAX];
	int used = tui_layout_fit(text, w, f->utf8, fit, sizeof fit);
	tui_frame_put(f, right ? x + w - used : x, y, e, fit, used);
}

/* A label and its value, when both fit in the row (a number cut short
 * would mislead); returns the column after them plus two blanks. */
static int tui_view_pair(struct tui_frame *f, int x, int y, const char *label, const char *value,
			 enum tui_elem ve)
{
	if (x + (int)(strlen(label) + 1 + strlen(value)) > f->cols)
		return f->cols;
	x = tui_frame_put(f, x, y, TUI_E_HEADER, label, f->cols);
	x = tui_frame_put(f, x + 1, y, ve, value, f->cols - x - 1);
	return x + 2;
}

static void tui_view_elapsed(int64_t ns, char *out, size_t n)
{
	int64_t s = ns > 0 ? ns / 1000000000 : 0;
	snprintf(out, n, "%" PRId64 ":%02d:%02d", s / 3600, (int)(s / 60 % 60), (int)(s % 60));
}

static void tui_view_clock(int64_t ns, char *out, size_t n)
{
	time_t t = (time_t)(ns / 1000000000);
	struct tm tm;
	if (!localtime_r(&t, &tm) || strftime(out, n, "%H:%M:%S", &tm) == 0)
		snprintf(out, n, "--:--:--");
}

static enum tui_elem tui_view_sev_elem(enum tui_severity sev)
{
	return sev == TUI_SEV_ERROR ? TUI_E_ERROR : sev == TUI_SEV_WARN ? TUI_E_WARNING
									: TUI_E_NORMAL;
}

/* Row 0: state, current file (it names the bag too), bag directory (cut
 * first); pid and update rate on the right. */
static void tui_view_header_top(struct tui_frame *f, const struct tui_header *h)
{
	char right[64], rest[2 * TUI_PATH_MAX + 64];
	snprintf(right, sizeof right, "pid %ld  %.3g Hz", h->pid, h->update_hz);
	int rx = f->cols - (int)strlen(right);
	bool active = h->state != TUI_REC_PAUSED && h->state != TUI_REC_STOPPING &&
		      h->state != TUI_REC_WAITING_CLOCK;
	/* The disk guard stops recording whatever the state says. */
	bool guard = h->disk_guard && h->state != TUI_REC_STOPPING;
	int x = tui_frame_put(f, 0, 0,
			      guard ? TUI_E_WARNING : active ? TUI_E_STATE : TUI_E_STATE_IDLE,
			      guard ? "STOPPED: DISK GUARD" : tui_model_state_str(h->state), f->cols);
	x = tui_frame_put(f, x + 2, 0, TUI_E_HEADER, "File", f->cols);
	snprintf(rest, sizeof rest, "#%" PRIu32 " %s  in %s", h->split_index, h->current_file,
		 h->bag_dir);
	tui_view_cell(f, x + 1, 0, rx - x - 3, TUI_E_VALUE, rest, false);
	tui_frame_put(f, rx, 0, TUI_E_HEADER, right, f->cols - rx);
}

/* Row 1: time and totals. */
static void tui_view_header_totals(struct tui_frame *f, const struct tui_header *h)
{
	char v[32];
	tui_view_elapsed(h->elapsed_ns, v, sizeof v);
	int x = tui_view_pair(f, 0, 1, "Time", v, TUI_E_VALUE);
	tui_format_count(h->total_msgs, v, sizeof v);
	x = tui_view_pair(f, x, 1, "Recorded", v, TUI_E_VALUE);
	tui_format_bytes(h->total_bytes, v, sizeof v);
	x = tui_view_pair(f, x, 1, "Written", v, TUI_E_VALUE);
	tui_format_bytes((uint64_t)(h->write_rate > 0 ? h->write_rate : 0), v, sizeof v);
	strncat(v, "/s", sizeof v - strlen(v) - 1);
	x = tui_view_pair(f, x, 1, "Rate", v, TUI_E_VALUE);
	tui_view_pair(f, x, 1, "Compression", h->compression[0] ? h->compression : "none",
		      TUI_E_VALUE);
}

/* Row 2: the cache fill bar, htop style "Cache[|||||     24%]", and the
 * free disk space (a warning below 5 %). */
static void tui_view_header_cache(struct tui_frame *f, const struct tui_header *h)
{
	char v[64], pct[16];
	int x = tui_frame_put(f, 0, 2, TUI_E_HEADER, "Cache", f->cols);
	if (h->cache_max == 0) {
		x = tui_frame_put(f, x + 1, 2, TUI_E_VALUE, "write-through", f->cols);
	} else {
		uint64_t fill = h->cache_fill < h->cache_max ? h->cache_fill : h->cache_max;
		int w = TUI_CACHE_BAR(f->cols);
		int bars = (int)((double)fill * w / (double)h->cache_max + 0.5);
		x = tui_frame_put(f, x, 2, TUI_E_HEADER, "[", 1);
		for (int i = 0; i < w; i++)
			tui_frame_put(f, x + i, 2, i < bars ? TUI_E_BAR : TUI_E_NORMAL,
				      i < bars ? "|" : " ", 1);
		snprintf(pct, sizeof pct, "%.0f%%", 100.0 * (double)fill / (double)h->cache_max);
		tui_frame_put(f, x + w - (int)strlen(pct), 2, TUI_E_DIM, pct, 8);
		x = tui_frame_put(f, x + w, 2, TUI_E_HEADER, "]", 1);
		tui_format_bytes(h->cache_max, v, sizeof v);
		x = tui_frame_put(f, x + 1, 2, TUI_E_VALUE, v, f->cols);
	}
	if (h->disk_total == 0)
		return;
	double free_pct = 100.0 * (double)h->disk_free / (double)h->disk_total;
	/* With a guard: low from twice its threshold, so the warning comes
	 * before recording stops. */
	bool low = h->min_free != 0 ? h->disk_guard || h->disk_free / 2 < h->min_free
				    : free_pct < 5.0;
	free_pct = (double)(long)(free_pct * 10.0) / 10.0; /* 4.98 shows 4.9, not 5.0 */
	char b[24];
	tui_format_bytes(h->disk_free, b, sizeof b);
	snprintf(v, sizeof v, free_pct < 10.0 ? "%s (%.1f%%%s)" : "%s (%.0f%%%s)", b, free_pct,
		 h->disk_guard ? ", recording stopped" : low ? ", low" : "");
	tui_view_pair(f, x + 2, 2, "Disk free", v, low ? TUI_E_WARNING : TUI_E_VALUE);
}

/* Play's row 0: state and bag; pid and update rate on the right. */
static void tui_view_play_top(struct tui_frame *f, const struct tui_header *h)
{
	char right[64];
	snprintf(right, sizeof right, "pid %ld  %.3g Hz", h->pid, h->update_hz);
	int rx = f->cols - (int)strlen(right);
	enum tui_play_state st = h->play.state;
	int x = tui_frame_put(f, 0, 0, st == TUI_PLAY_PLAYING ? TUI_E_STATE : TUI_E_STATE_IDLE,
			      tui_model_play_state_str(st), f->cols);
	x = tui_frame_put(f, x + 2, 0, TUI_E_HEADER, "Bag", f->cols);
	tui_view_cell(f, x + 1, 0, rx - x - 3, TUI_E_VALUE, h->bag_dir, false);
	tui_frame_put(f, rx, 0, TUI_E_HEADER, right, f->cols - rx);
}

/* A bar of w cells inside brackets from x, filled to `frac`, the percentage
 * at its right end (as the cache bar). Returns the column after it. */
static int tui_view_bar(struct tui_frame *f, int x, int y, int w, double frac)
{
	char pct[16];
	frac = frac < 0 ? 0 : frac > 1 ? 1 : frac;
	int bars = (int)(frac * w + 0.5);
	x = tui_frame_put(f, x, y, TUI_E_HEADER, "[", 1);
	for (int i = 0; i < w; i++)
		tui_frame_put(f, x + i, y, i < bars ? TUI_E_BAR : TUI_E_NORMAL, i < bars ? "|" : " ",
			      1);
	snprintf(pct, sizeof pct, "%.0f%%", 100.0 * frac);
	tui_frame_put(f, x + w - (int)strlen(pct), y, TUI_E_DIM, pct, 8);
	return tui_frame_put(f, x + w, y, TUI_E_HEADER, "]", 1);
}

/* Play's row 1: bag time reached / of the selection, and the progress bar
 * over the rest of the row. */
static void tui_view_play_progress(struct tui_frame *f, const struct tui_play_header *p)
{
	char a[24], b[24], v[56];
	tui_view_elapsed(p->bag_pos_ns, a, sizeof a);
	tui_view_elapsed(p->bag_total_ns, b, sizeof b);
	snprintf(v, sizeof v, "%s / %s", a, b);
	int x = tui_view_pair(f, 0, 1, "Bag time", v, TUI_E_VALUE);
	double frac = p->bag_total_ns > 0 ? (double)p->bag_pos_ns / (double)p->bag_total_ns
					  : p->state == TUI_PLAY_PLAYING || p->state == TUI_PLAY_PAUSED ||
							p->state == TUI_PLAY_WAITING_SUBS
						? 0 : 1;
	if (f->cols - x - 2 >= 8)
		tui_view_bar(f, x, 1, f->cols - x - 2, frac);
}

/* Play's row 2: wall time (elapsed / expected total, what is left at this
 * rate), rate, loop, messages sent. */
static void tui_view_play_totals(struct tui_frame *f, const struct tui_play_header *p, bool utf8)
{
	char a[24], b[24], v[64];
	int64_t left = p->wall_left_ns > 0 ? p->wall_left_ns : 0;
	tui_view_elapsed(p->wall_elapsed_ns, a, sizeof a);
	tui_view_elapsed(p->wall_elapsed_ns + left, b, sizeof b);
	snprintf(v, sizeof v, "%s / %s", a, b);
	int x = tui_view_pair(f, 0, 2, "Wall", v, TUI_E_VALUE);
	tui_view_elapsed(left, v, sizeof v);
	x = tui_view_pair(f, x, 2, "left", v, TUI_E_VALUE);
	snprintf(v, sizeof v, "%.3gx", p->rate);
	x = tui_view_pair(f, x, 2, "Rate", v, TUI_E_VALUE);
	if (!p->loop)
		snprintf(v, sizeof v, "off");
	else if (p->loop_count == 0)
		snprintf(v, sizeof v, "%" PRIu32 "/%s", p->loop_index, utf8 ? "\xe2\x88\x9e" : "inf");
	else
		snprintf(v, sizeof v, "%" PRIu32 "/%" PRIu32, p->loop_index, p->loop_count);
	x = tui_view_pair(f, x, 2, "Loop", v, TUI_E_VALUE);
	tui_format_count(p->published, a, sizeof a);
	tui_format_count(p->total, b, sizeof b);
	snprintf(v, sizeof v, "%s/%s", a, b);
	tui_view_pair(f, x, 2, "Sent", v, TUI_E_VALUE);
}

static void tui_view_header(struct tui_frame *f, const struct tui_model *m)
{
	if (m->mode == TUI_MODE_PLAY) {
		tui_view_play_top(f, &m->hdr);
		tui_view_play_progress(f, &m->hdr.play);
		tui_view_play_totals(f, &m->hdr.play, f->utf8);
		return;
	}
	tui_view_header_top(f, &m->hdr);
	tui_view_header_totals(f, &m->hdr);
	tui_view_header_cache(f, &m->hdr);
}

/* ---- the topic table ----------------------------------------------------- */

/* "Topic", then " /filter" while filtering and " [file #N]" while the
 * counters are the current file's, so the table says what it counts. */
static void tui_view_name_title(const struct tui_state *s, const struct tui_header *hdr,
				char *out, size_t n)
{
	int len = snprintf(out, n, "Topic");
	if (s->filter[0] && len >= 0 && (size_t)len < n)
		len += snprintf(out + len, n - (size_t)len, " /%s", s->filter);
	if (s->file_counts && len >= 0 && (size_t)len < n)
		snprintf(out + len, n - (size_t)len, " [file #%" PRIu32 "]", hdr->split_index);
}

static void tui_view_col_titles(struct tui_frame *f, const struct tui_state *s,
				const struct tui_header *hdr, const struct tui_layout *l)
{
	tui_frame_fill(f, l->head_y, 0, f->cols, TUI_E_COLS);
	for (size_t i = 0; i < l->n_cols; i++) {
		const struct tui_layout_col *c = &l->c[i];
		char title[TUI_FILTER_MAX + 48];
		if (c->col == TUI_COL_NAME && (s->filter[0] || s->file_counts))
			tui_view_name_title(s, hdr, title, sizeof title);
		else
			snprintf(title, sizeof title, "%s", tui_layout_col_title(c->col));
		tui_view_cell(f, c->x, l->head_y, c->width,
			      c->col == s->sort_col ? TUI_E_COLS_SORT : TUI_E_COLS, title,
			      tui_layout_col_right(c->col));
	}
}

/* The text of one cell of a topic row. */
static void tui_view_value(const struct tui_topic *t, const struct tui_counts *k, enum tui_col c,
			   char *v, size_t n)
{
	switch (c) {
	case TUI_COL_ON: snprintf(v, n, "%s", t->enabled ? "*" : "-"); break;
	case TUI_COL_TL:
		if (t->tl_depth == 0)
			v[0] = '\0';
		else if (t->tl_depth > 99)
			snprintf(v, n, "99+");
		else
			snprintf(v, n, "%" PRIu32, t->tl_depth);
		break;
	case TUI_COL_NAME: snprintf(v, n, "%s", t->name); break;
	case TUI_COL_TYPE: snprintf(v, n, "%s%s", t->no_definition ? "? " : "", t->type); break;
	case TUI_COL_PUBS: snprintf(v, n, "%" PRIu32, t->publishers); break;
	case TUI_COL_QOS:
		snprintf(v, n, "%s/%s", t->reliable ? "R" : "BE", t->transient_local ? "TL" : "V");
		break;
	case TUI_COL_MSGS: tui_format_count(k->messages, v, n); break;
	case TUI_COL_RATE: tui_format_rate(t->rate_hz, v, n); break;
	case TUI_COL_BW:
		tui_format_bytes((uint64_t)(t->bandwidth > 0 ? t->bandwidth : 0), v, n);
		break;
	case TUI_COL_BYTES: tui_format_bytes(k->bytes, v, n); break;
	case TUI_COL_LOST_T: tui_format_count(k->lost_transport, v, n); break;
	case TUI_COL_LOST_R: tui_format_count(k->lost_recorder, v, n); break;
	case TUI_COL_THROTTLED: tui_format_count(k->throttled, v, n); break;
	case TUI_COL_MUTED: snprintf(v, n, "%s", t->enabled ? "" : "M"); break;
	case TUI_COL_SENT: {
		char a[16], b[16];
		tui_format_count(k->messages, a, sizeof a);
		tui_format_count(t->bag_messages, b, sizeof b);
		snprintf(v, n, "%s/%s", a, b);
		break;
	}
	case TUI_COL_SUBS: snprintf(v, n, "%" PRIu32, t->subscribers); break;
	case TUI_COL_LATE: tui_format_count(t->late, v, n); break;
	case TUI_COL_COUNT: v[0] = '\0'; break;
	}
}

static void tui_view_row(struct tui_frame *f, const struct tui_topic *t, bool file, bool selected,
			 int y, const struct tui_layout *l)
{
	enum tui_elem base = selected ? TUI_E_SELECTED : t->enabled ? TUI_E_NORMAL : TUI_E_DISABLED;
	const struct tui_counts *k = tui_topic_counts(t, file);
	tui_frame_fill(f, y, 0, f->cols, base);
	for (size_t i = 0; i < l->n_cols; i++) {
		const struct tui_layout_col *c = &l->c[i];
		char v[TUI_NAME_MAX];
		tui_view_value(t, k, c->col, v, sizeof v);
		bool loss = (c->col == TUI_COL_LOST_T && k->lost_transport) ||
			    (c->col == TUI_COL_LOST_R && k->lost_recorder) ||
			    (c->col == TUI_COL_LATE && t->late);
		tui_view_cell(f, c->x, y, c->width, loss && !selected ? TUI_E_LOSS : base, v,
			      tui_layout_col_right(c->col));
	}
}

static void tui_view_rows(struct tui_frame *f, const struct tui_model *m,
			  const struct tui_state *s, const struct tui_layout *l)
{
	if (s->n_order == 0) {
		const char *why = m->n_topics		  ? "no topic matches the filter (Esc clears it)"
				  : m->mode == TUI_MODE_PLAY ? "no topic to play"
							     : "waiting for publishers...";
		tui_frame_put(f, 1, l->table_y, TUI_E_DIM, why, f->cols - 1);
		return;
	}
	bool shown = s->has_sel && tui_state_sel_shown(s, m);
	for (int r = 0; r < l->table_h; r++) {
		size_t i = s->scroll + (size_t)r;
		if (i >= s->n_order)
			break;
		const struct tui_topic *t = &m->topics[s->order[i]];
		tui_view_row(f, t, s->file_counts, shown && i == s->sel_pos, l->table_y + r, l);
	}
}

/* ---- bottom lines ---------------------------------------------------------- */

static void tui_view_event_line(struct tui_frame *f, const struct tui_model *m,
				const struct tui_state *s, int y)
{
	if (s->message[0]) {
		tui_view_cell(f, 0, y, f->cols, TUI_E_WARNING, s->message, false);
		return;
	}
	const struct tui_event *e = tui_model_event_get(m, m->ev_count - 1);
	if (!e)
		return;
	char t[16];
	tui_view_clock(e->time_ns, t, sizeof t);
	int x = tui_frame_put(f, 0, y, TUI_E_DIM, t, f->cols);
	tui_view_cell(f, x + 1, y, f->cols - x - 1, tui_view_sev_elem(e->severity), e->text, false);
}

/* The key bar's entry for a binding: its F-key if it has one, else its
 * first key that means it now (htop: every F-key has a letter twin). */
static void tui_view_bar_key(const struct tui_key_binding *b, enum tui_mode mode, bool sel,
			     char *out, size_t n)
{
	int key = tui_keys_live_key(mode, b, sel);
	for (size_t k = 0; k < TUI_KEYS_PER_ACTION && b->keys[k]; k++)
		if (b->keys[k] > TUI_KEY_F0 && b->keys[k] <= TUI_KEY_F(12)) {
			key = b->keys[k];
			break;
		}
	tui_keys_name(key, out, n);
}

/* The bindings with a label that apply now (sel: the selection is shown),
 * dropped from the right, before the last (Quit), to fit. */
static void tui_view_key_bar(struct tui_frame *f, enum tui_mode mode, bool sel, int y)
{
	size_t n, shown[TUI_ACT_COUNT + 8], n_shown = 0;
	const struct tui_key_binding *kt = tui_keys_table(mode, &n);
	int width = -1;
	for (size_t i = 0; i < n && n_shown < sizeof shown / sizeof shown[0]; i++) {
		char k[16];
		if (!kt[i].label || !tui_keys_live_key(mode, &kt[i], sel))
			continue;
		tui_view_bar_key(&kt[i], mode, sel, k, sizeof k);
		width += (int)(strlen(k) + strlen(kt[i].label)) + 1;
		shown[n_shown++] = i;
	}
	/* Too narrow: drop entries before the last (Quit) from the right. */
	while (width > f->cols && n_shown > 1) {
		const struct tui_key_binding *b = &kt[shown[n_shown - 2]];
		char k[16];
		tui_view_bar_key(b, mode, sel, k, sizeof k);
		width -= (int)(strlen(k) + strlen(b->label)) + 1;
		shown[n_shown - 2] = shown[n_shown - 1];
		n_shown--;
	}
	int x = 0;
	for (size_t i = 0; i < n_shown; i++) {
		char k[16];
		tui_view_bar_key(&kt[shown[i]], mode, sel, k, sizeof k);
		x = tui_frame_put(f, x, y, TUI_E_KEY, k, f->cols - x);
		x = tui_frame_put(f, x, y, TUI_E_KEY_LABEL, kt[shown[i]].label, f->cols - x) + 1;
	}
}

static void tui_view_filter_bar(struct tui_frame *f, const struct tui_state *s, int y)
{
	int x = tui_frame_put(f, 0, y, TUI_E_KEY_LABEL, "Filter:", f->cols);
	x = tui_frame_put(f, x + 1, y, TUI_E_DIALOG, s->filter, f->cols - x - 1);
	x = tui_frame_put(f, x, y, TUI_E_DIALOG, "_", 1);
	tui_frame_put(f, x + 2, y, TUI_E_DIM, "Enter keeps  Esc clears", f->cols - x - 2);
}

/* ---- dialogs --------------------------------------------------------------- */

/* An empty centred box of w x h cells, borders included, cut to the frame;
 * *x0, *y0: its top left corner. */
static void tui_view_frame_box(struct tui_frame *f, int w, int h, int *x0, int *y0)
{
	w = w < f->cols ? w : f->cols;
	*x0 = (f->cols - w) / 2;
	*y0 = (f->rows - h) / 2;
	const char *hz = f->utf8 ? "\xe2\x94\x80" : "-", *vt = f->utf8 ? "\xe2\x94\x82" : "|";
	const char *corner[4] = {"+", "+", "+", "+"};
	if (f->utf8) {
		corner[0] = "\xe2\x94\x8c"; /* top left */
		corner[1] = "\xe2\x94\x90";
		corner[2] = "\xe2\x94\x94";
		corner[3] = "\xe2\x94\x98";
	}
	for (int y = 0; y < h; y++) {
		bool edge = y == 0 || y == h - 1;
		tui_frame_fill(f, *y0 + y, *x0, *x0 + w, TUI_E_DIALOG);
		for (int x = 1; edge && x < w - 1; x++)
			tui_frame_put(f, *x0 + x, *y0 + y, TUI_E_DIALOG, hz, 1);
		tui_frame_put(f, *x0, *y0 + y, TUI_E_DIALOG,
			      y == 0 ? corner[0] : y == h - 1 ? corner[2] : vt, 1);
		tui_frame_put(f, *x0 + w - 1, *y0 + y, TUI_E_DIALOG,
			      y == 0 ? corner[1] : y == h - 1 ? corner[3] : vt, 1);
	}
}

/* A centred box with these lines. */
static void tui_view_box(struct tui_frame *f, const char *const *lines, size_t n)
{
	int w = 0, x0, y0;
	for (size_t i = 0; i < n; i++)
		w = (int)strlen(lines[i]) > w ? (int)strlen(lines[i]) : w;
	w = w + 4 < f->cols ? w + 4 : f->cols;
	tui_view_frame_box(f, w, (int)n + 2, &x0, &y0);
	for (size_t i = 0; i < n; i++)
		tui_view_cell(f, x0 + 2, y0 + 1 + (int)i, w - 4, TUI_E_DIALOG, lines[i], false);
}

static void tui_view_confirm(struct tui_frame *f, const struct tui_header *h)
{
	static const char *const lines[] = {
		"Quit bagtop?",
		"",
		"Recording stops and the bag is finished.",
		"",
		"y, Enter or q: quit    any other key: back",
	};
	if (!(h->snapshot_mode && h->snapshot_buffered > 0)) {
		tui_view_box(f, lines, sizeof lines / sizeof lines[0]);
		return;
	}
	/* Snapshot mode: the buffer is written only by a snapshot. */
	char count[32], bytes[32], lost[96];
	tui_format_count(h->snapshot_buffered, count, sizeof count);
	tui_format_bytes(h->snapshot_bytes, bytes, sizeof bytes);
	snprintf(lost, sizeof lost, "%s messages (%s) in the snapshot buffer", count, bytes);
	const char *const snap_lines[] = {
		"Quit bagtop?",
		"",
		lost,
		"are lost unless a snapshot writes them.",
		"",
		"s: write a snapshot, then quit",
		"y, Enter or q: quit without it",
		"any other key: back",
	};
	tui_view_box(f, snap_lines, sizeof snap_lines / sizeof snap_lines[0]);
}

static void tui_view_depth(struct tui_frame *f, const struct tui_model *m,
			   const struct tui_state *s)
{
	long i = tui_model_find_topic(m, s->depth_topic);
	char name[TUI_NAME_MAX], depth[32], range[64];
	snprintf(name, sizeof name, "%s", i < 0 ? "?" : m->topics[i].name);
	snprintf(depth, sizeof depth, "Depth: %s_", s->depth);
	snprintf(range, sizeof range, "1 to %d; Enter accepts, Esc cancels", TUI_TL_DEPTH_MAX);
	const char *const lines[] = {"Repeat transient-local messages of", name, "", depth, range};
	tui_view_box(f, lines, sizeof lines / sizeof lines[0]);
}

#define TUI_SNAPDLG_TEXT_W 56 /* the snapshot dialog's text columns, at most */
#define TUI_SNAPDLG_LABEL_W 12

/* One field of the snapshot dialog, w columns from x: its label, then its
 * value (the end of a long one, after a '<'; what empty means when empty);
 * the focused one highlighted, with the cursor. */
static void tui_view_snap_field(struct tui_frame *f, const struct tui_snapdlg *d,
				enum tui_snap_field i, int x, int y, int w)
{
	bool focus = d->focus == i;
	tui_frame_put(f, x, y, TUI_E_DIALOG, tui_snapdlg_label(i), w);
	int vx = x + TUI_SNAPDLG_LABEL_W, room = w - TUI_SNAPDLG_LABEL_W;
	if (room < 4)
		return;
	enum tui_elem e = focus ? TUI_E_SELECTED : TUI_E_DIALOG;
	tui_frame_fill(f, y, vx, vx + room, e);
	const char *t = d->text[i];
	size_t len = strlen(t), keep = (size_t)room - 1; /* a column for the cursor */
	if (len > keep) {
		vx = tui_frame_put(f, vx, y, e, "<", 1);
		t += len - (keep - 1);
	}
	vx = tui_frame_put(f, vx, y, e, t, room);
	if (focus)
		vx = tui_frame_put(f, vx, y, e, "_", 1);
	if (len == 0) {
		char hint[48];
		snprintf(hint, sizeof hint, "(%s)", tui_snapdlg_empty(i));
		tui_frame_put(f, vx + focus, y, TUI_E_DIALOG, hint, x + w - vx - focus);
	}
}

/* `s` in snapshot mode: the parameters of the snapshot, the reason Enter
 * did not take them, the keys. */
static void tui_view_snapdlg(struct tui_frame *f, const struct tui_state *s)
{
	const struct tui_snapdlg *d = &s->snap;
	int w = f->cols - 4 < TUI_SNAPDLG_TEXT_W ? f->cols - 4 : TUI_SNAPDLG_TEXT_W, x0, y0;
	tui_view_frame_box(f, w + 4, TUI_SNAP_FIELDS + 6, &x0, &y0);
	int x = x0 + 2, y = y0 + 1;
	tui_frame_put(f, x, y++, TUI_E_DIALOG, "Snapshot (narrows the configured windows)", w);
	for (int i = 0; i < TUI_SNAP_FIELDS; i++)
		tui_view_snap_field(f, d, (enum tui_snap_field)i, x, y++, w);
	y++;
	if (d->error[0])
		tui_view_cell(f, x, y, w, TUI_E_DIALOG_ERROR, d->error, false);
	else
		tui_frame_put(f, x, y, TUI_E_DIALOG, "Tab, Up, Down: field  Ctrl-U: empty it", w);
	tui_frame_put(f, x, y + 1, TUI_E_DIALOG, "Enter: write the snapshot  Esc: cancel", w);
}

/* ---- whole screens --------------------------------------------------------- */

static void tui_view_table(struct tui_frame *f, const struct tui_model *m,
			   const struct tui_state *s, const struct tui_layout *l)
{
	tui_view_header(f, m);
	tui_view_col_titles(f, s, &m->hdr, l);
	tui_view_rows(f, m, s, l);
	tui_view_event_line(f, m, s, l->event_y);
	if (s->input == TUI_INPUT_FILTER)
		tui_view_filter_bar(f, s, l->bar_y);
	else
		tui_view_key_bar(f, m->mode, tui_state_sel_shown(s, m), l->bar_y);
	if (s->input == TUI_INPUT_CONFIRM_QUIT)
		tui_view_confirm(f, &m->hdr);
	else if (s->input == TUI_INPUT_DEPTH)
		tui_view_depth(f, m, s);
	else if (s->input == TUI_INPUT_SNAPSHOT)
		tui_view_snapdlg(f, s);
}

static void tui_view_log(struct tui_frame *f, const struct tui_model *m, const struct tui_state *s,
			 const struct tui_layout *l)
{
	tui_view_header(f, m);
	tui_frame_fill(f, l->head_y, 0, f->cols, TUI_E_COLS);
	tui_frame_put(f, 0, l->head_y, TUI_E_COLS, "Event log (newest last; Tab: back to topics)",
		      f->cols);
	size_t n = m->ev_count, h = (size_t)l->table_h;
	size_t max = n > h ? n - h : 0;
	size_t skip = s->log_scroll < max ? s->log_scroll : max; /* newest hidden */
	size_t first = n > h + skip ? n - h - skip : 0;
	for (size_t i = first, y = 0; i < n - skip && y < h; i++, y++) {
		const struct tui_event *e = tui_model_event_get(m, i);
		char t[16];
		tui_view_clock(e->time_ns, t, sizeof t);
		int yy = l->table_y + (int)y;
		int x = tui_frame_put(f, 0, yy, TUI_E_DIM, t, f->cols);
		tui_view_cell(f, x + 1, yy, f->cols - x - 1, tui_view_sev_elem(e->severity),
			      e->text, false);
	}
	if (n == 0)
		tui_frame_put(f, 1, l->table_y, TUI_E_DIM, "no events yet", f->cols - 1);
	if (s->message[0]) /* the newest event is in the list already */
		tui_view_cell(f, 0, l->event_y, f->cols, TUI_E_WARNING, s->message, false);
	tui_view_key_bar(f, m->mode, tui_state_sel_shown(s, m), l->bar_y);
}

static const char *const tui_help_notes_record[] = {
	"",
	"Columns: R recorded (* yes, - no); TL repeat-transient-local depth; Type (? no message "
	"definition found: see bagtop info -v); Pub publishers; "
	"QoS R/BE reliable or best effort, TL/V transient-local or volatile; Rcvd received "
	"while recording (not while paused or switched off); Hz and BW/s over the last seconds, "
	"of every message arriving (also while paused or off); Written bytes in the bag; "
	"Recorded (top) messages in the bag; LostT lost in transport; "
	"LostR lost in the recorder (cache full, too big, write errors).",
};

static const char *const tui_help_notes_play[] = {
	"",
	"Columns: M muted (not published); Type; QoS R/BE reliable or best effort, TL/V "
	"transient-local or volatile, as played; Sent/Total messages published (every pass) / in "
	"one pass; Hz and BW/s published over the last seconds; Sub matched subscribers; Late "
	"messages sent more than 1 ms behind schedule. Header: bag time reached / played in one "
	"pass, wall time since the start / expected at this rate, and what is left of this pass.",
};

static const struct {
	const char *const *lines;
	size_t n;
} tui_help_notes[TUI_MODE_COUNT] = {
	[TUI_MODE_RECORD] = {tui_help_notes_record,
			     sizeof tui_help_notes_record / sizeof tui_help_notes_record[0]},
	[TUI_MODE_PLAY] = {tui_help_notes_play,
			   sizeof tui_help_notes_play / sizeof tui_help_notes_play[0]},
};

#define TUI_HELP_LINES 128
#define TUI_HELP_INDENT 15 /* continuation lines start under the help text */

/* Word-wraps `text` to `width` columns into lines[*n...]; continuation
 * lines are indented. */
static void tui_view_wrap(const char *text, int width, int indent, char (*lines)[256], size_t *n)
{
	int first = 1;
	while (*n < TUI_HELP_LINES) {
		int pad = first ? 0 : indent, room = width - pad;
		int len = (int)strlen(text);
		int cut = len;
		if (room < 8)
			room = width, pad = 0;
		if (len > room) {
			cut = room;
			while (cut > 0 && text[cut] != ' ')
				cut--;
			cut = cut ? cut : room;
		}
		snprintf(lines[(*n)++], 256, "%*s%.*s", pad, "", cut, text);
		text += cut;
		while (*text == ' ')
			text++;
		if (!*text)
			return;
		first = 0;
	}
}

/* The mode's help text wrapped to `cols`; returns the line count. */
static size_t tui_view_help_text(enum tui_mode mode, int cols, char (*lines)[256])
{
	size_t n_keys, n = 0;
	tui_keys_table(mode, &n_keys);
	for (size_t i = 0; i < n_keys; i++) {
		char line[256];
		tui_keys_help_line(mode, i, line, sizeof line);
		tui_view_wrap(line, cols, TUI_HELP_INDENT, lines, &n);
	}
	for (size_t i = 0; i < tui_help_notes[mode].n; i++)
		tui_view_wrap(tui_help_notes[mode].lines[i], cols, 2, lines, &n);
	return n;
}

size_t tui_view_help_lines(enum tui_mode mode, int cols)
{
	char lines[TUI_HELP_LINES][256];
	return tui_view_help_text(mode, cols, lines);
}

static void tui_view_help(struct tui_frame *f, const struct tui_model *m,
			  const struct tui_state *s)
{
	char lines[TUI_HELP_LINES][256];
	size_t n = tui_view_help_text(m->mode, f->cols, lines);
	size_t h = (size_t)(f->rows - 3);
	size_t max = n > h ? n - h : 0;
	size_t first = s->help_scroll < max ? s->help_scroll : max;
	bool play = m->mode == TUI_MODE_PLAY; /* its arrows drive the player */
	tui_frame_put(f, 0, 0, TUI_E_VALUE, play ? "bagtop play keys" : "bagtop keys", f->cols);
	for (size_t i = first, y = 2; i < n && y < (size_t)f->rows - 1; i++, y++)
		tui_view_cell(f, 0, (int)y, f->cols, TUI_E_NORMAL, lines[i], false);
	tui_view_cell(f, 0, f->rows - 1, f->cols, TUI_E_DIM,
		      !max  ? "Any key returns"
		      : play ? "j/k/PgUp/PgDn scroll, any other key returns"
			     : "Up/Down/PgUp/PgDn scroll, any other key returns",
		      false);
}

static void tui_view_finishing(struct tui_frame *f, const struct tui_model *m)
{
	char left[24], line[64];
	tui_format_bytes(m->hdr.finishing_bytes_left, left, sizeof left);
	snprintf(line, sizeof line, "finishing bag: %s left", left);
	if (m->mode == TUI_MODE_PLAY) { /* nothing to finish: a moment */
		int w = (int)strlen("stopping...");
		tui_frame_put(f, w < f->cols ? (f->cols - w) / 2 : 0, f->rows / 2, TUI_E_VALUE,
			      "stopping...", f->cols);
		return;
	}
	int y = f->rows / 2 - 1;
	int w = (int)strlen(line);
	tui_frame_put(f, w < f->cols ? (f->cols - w) / 2 : 0, y > 0 ? y : 0, TUI_E_VALUE, line,
		      f->cols);
	if (f->rows < 3)
		return;
	char dir[TUI_PATH_MAX];
	int used = tui_layout_fit(m->hdr.bag_dir, f->cols, f->utf8, dir, sizeof dir);
	tui_frame_put(f, (f->cols - used) / 2, y + 1, TUI_E_DIM, dir, used);
	static const char hint[] = "q again: stop writing, keep what is committed";
	int hw = (int)strlen(hint);
	if (y + 2 < f->rows)
		tui_frame_put(f, hw < f->cols ? (f->cols - hw) / 2 : 0, y + 2, TUI_E_DIM, hint,
			      f->cols);
}

static void tui_view_too_small(struct tui_frame *f, enum tui_mode mode,
			       const struct tui_layout *l)
{
	char line[96];
	snprintf(line, sizeof line, "terminal too small (%dx%d < %dx%d); %s goes on", l->cols,
		 l->rows, TUI_MIN_COLS, TUI_MIN_ROWS,
		 mode == TUI_MODE_PLAY ? "playing" : "recording");
	tui_view_cell(f, 0, 0, f->cols, TUI_E_WARNING, line, false);
}

void tui_view_build(struct tui_frame *f, const struct tui_model *m, const struct tui_state *s,
		    const struct tui_layout *l)
{
	tui_frame_reset(f, l->cols, l->rows);
	if (s->finishing || (m->mode == TUI_MODE_RECORD && m->hdr.state == TUI_REC_STOPPING))
		tui_view_finishing(f, m);
	else if (l->too_small)
		tui_view_too_small(f, m->mode, l);
	else if (s->view == TUI_VIEW_HELP)
		tui_view_help(f, m, s);
	else if (s->view == TUI_VIEW_LOG)
		tui_view_log(f, m, s, l);
	else
		tui_view_table(f, m, s, l);
}
