/* app_run_loss — the loss and split announcer: one line naming the
 * topics whose losses started or grew (one a second at most), and one when
 * the bag moved on to another file; and, with them, the heap trim.
 *
 * Threads: whichever thread runs the session's periodic work (headless:
 * main; live view: the UI thread); never two at once. */
#include "app__run.h"

#include <string.h>

#include "bt_buf.h"
#include "bt_fmt.h"
#include "bt_heap.h"
#include "bt_mem.h"
#include "bag_compat.h"

#define APP_LOSS_TOPICS_SHOWN 4
#define APP_LOSS_PERIOD_NS INT64_C(1000000000) /* one loss line a second at most */

/* Appends "TOPIC +N cause, +M cause" for what grew since `was`, each cause
 * said as the table says it: "in the recorder (cache full)". */
static void app_loss_append(struct bt_buf *b, const char *name, const struct bag_losses *was,
			    const struct bag_losses *now)
{
	/* Out of memory only shortens the line. */
	if (bt_buf_printf(b, "%s%s", b->len ? "; " : "", name) != BT_OK)
		return;
	for (int k = 0, shown = 0; k < BAG_LOSS_N_CAUSES; k++) {
		const struct bag_loss_cause_info *c = &bag_loss_causes[k];
		uint64_t d = bag_losses_get(now, k) - bag_losses_get(was, k);
		if (d != 0 && bt_buf_printf(b, "%s +%llu %s%s%s%s", shown++ ? "," : "",
					    (unsigned long long)d, bag_loss_group_text(c->group),
					    c->label[0] ? " (" : "", c->label,
					    c->label[0] ? ")" : "") != BT_OK)
			return;
	}
}

/* Says when the bag moved on to another file: a split (by size, duration
 * or request) started it. Not in
 * snapshot mode: there every snapshot gets a file of its own, opened just
 * before it is written and finished with it, and the snapshot's own line
 * names it; "now writing" it, said after that line, read as if the file
 * were for the next snapshot, one behind. */
static void app_file_check(struct app_run *run)
{
	struct rec_status st;
	rec_recorder_get_status(run->rec, &st);
	if (st.file_index == run->file_index)
		return;
	run->file_index = st.file_index;
	if (st.snapshot_mode)
		return;
	const char *slash = strrchr(st.current_file, '/');
	app_run_say(run, TUI_SEV_INFO, "split: now writing %s",
		    slash ? slash + 1 : st.current_file);
}

/* Says once that the publishers look like Humble's (ROS 2 publications
 * without a type hash, none with one) when the layout was not asked for and
 * is not Humble's: Humble's ros2 bag cannot open the bag being written. */
static void app_compat_check(struct app_run *run)
{
	uint64_t with = 0, without = 0;
	if (run->compat_said || run->cfg->own_publishers ||
	    !bag_compat_hint_humble(&run->cfg->w.compat))
		return;
	rec_recorder_type_hash_counts(run->rec, &with, &without);
	if (with != 0 || without == 0)
		return;
	run->compat_said = true;
	app_run_say(run, TUI_SEV_WARN,
		    "the publishers announce no type hash, like ROS 2 Humble's: this bag has %s's "
		    "layout, which Humble's ros2 bag cannot open; record with --compat humble for it",
		    bag_compat_name(run->cfg->w.compat.compat));
}

/* One line naming the topics whose losses started or grew since the last
 * such line, one a second at most; the callers call this at every status
 * line (headless) or fill (live view). */
void app_run_loss_check(struct app_run *run, int64_t now)
{
	app_file_check(run);
	app_compat_check(run);
	if (run->loss_t != 0 && now - run->loss_t < APP_LOSS_PERIOD_NS)
		return;
	const struct rec_topics *t = rec_recorder_topics(run->rec);
	size_t n = rec_topics_count(t), grew = 0;
	if (n > run->n_loss) {
		run->loss = bt_xrealloc(run->loss, n * sizeof *run->loss);
		memset(run->loss + run->n_loss, 0, (n - run->n_loss) * sizeof *run->loss);
		run->n_loss = n;
	}
	struct bt_buf b = {0};
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(t, i);
		/* throttled is no loss: no LOST line for it */
		struct bag_losses cur = bag_losses_only(rec_topic_losses(&tp->st));
		if (memcmp(&cur, &run->loss[i], sizeof cur) == 0)
			continue;
		if (grew++ < APP_LOSS_TOPICS_SHOWN)
			app_loss_append(&b, tp->names.name, &run->loss[i], &cur);
		run->loss[i] = cur;
	}
	if (grew == 0)
		return;
	run->loss_t = now;
	if (grew > APP_LOSS_TOPICS_SHOWN)
		app_run_say(run, TUI_SEV_WARN, "LOST %s; and %zu more topic%s", b.data ? b.data : "",
			    grew - APP_LOSS_TOPICS_SHOWN, bt_fmt_s(grew - APP_LOSS_TOPICS_SHOWN));
	else
		app_run_say(run, TUI_SEV_WARN, "LOST %s", b.data ? b.data : "");
	bt_buf_fini(&b);
}

/* The heap's trim (bt_heap.h says why) every APP_TRIM_PERIOD. */
#define APP_TRIM_PERIOD_NS (INT64_C(10) * 1000000000)

void app_run_trim(struct app_run *run, int64_t now)
{
	if (run->trim_t != 0 && now - run->trim_t < APP_TRIM_PERIOD_NS)
		return;
	run->trim_t = now;
	bt_heap_trim();
}
