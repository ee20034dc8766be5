#include "tui_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "test_util.h"
#include "tui_view.h"

struct tui_topic *tf_add(struct tui_model *m, uint32_t id, const char *name, const char *type,
			 double hz, uint64_t bytes)
{
	size_t i = m->n_topics;
	tui_model_set_topic_count(m, i + 1);
	struct tui_topic *t = &m->topics[i];
	t->id = id;
	snprintf(t->name, sizeof t->name, "%s", name);
	snprintf(t->type, sizeof t->type, "%s", type);
	t->enabled = true;
	t->publishers = 1;
	t->reliable = true;
	t->rate_hz = hz;
	t->bandwidth = hz * 1000.0;
	t->total.messages = (uint64_t)(hz * 60.0);
	t->total.bytes = bytes;
	return t;
}

void tf_model(struct tui_model *m)
{
	tui_model_init(m);
	struct tui_header *h = &m->hdr;
	h->state = TUI_REC_RECORDING;
	snprintf(h->bag_dir, sizeof h->bag_dir, "/data/bags/rosbag2_2025_12_01-04_00_00");
	snprintf(h->current_file, sizeof h->current_file, "rosbag2_2025_12_01-04_00_00_3.db3");
	h->split_index = 3;
	h->elapsed_ns = INT64_C(3723) * 1000000000;
	h->total_msgs = 123456;
	h->total_bytes = 45600000;
	h->write_rate = 1234567;
	h->disk_free = 120000000000ULL;
	h->disk_total = 500000000000ULL;
	h->cache_fill = UINT64_C(30) * 1024 * 1024;
	h->cache_max = UINT64_C(100) * 1024 * 1024; /* --max-cache-size 100M */
	snprintf(h->compression, sizeof h->compression, "none");
	h->pid = 4242;
	h->update_hz = 1;
	tf_add(m, 0, "/camera/front/image_raw/compressed", "sensor_msgs/msg/CompressedImage", 30,
	       250000000);
	tf_add(m, 1, "/tf", "tf2_msgs/msg/TFMessage", 100, 1200000)->total.lost_transport = 3;
	struct tui_topic *t = tf_add(m, 2, "/tf_static", "tf2_msgs/msg/TFMessage", 0, 2000);
	t->tl_depth = 1;
	t->transient_local = true;
	t = tf_add(m, 3, "/rosout", "rcl_interfaces/msg/Log", 2.5, 50000);
	t->enabled = false;
	t->total.lost_recorder = 12;
	t->reliable = false;
	t->publishers = 4;
	tui_model_event_push(m, TF_T0, TUI_SEV_INFO, "split: rosbag2_2025_12_01-04_00_00_3.db3");
}

void tf_play_model(struct tui_model *m)
{
	tui_model_init(m);
	m->mode = TUI_MODE_PLAY;
	struct tui_header *h = &m->hdr;
	snprintf(h->bag_dir, sizeof h->bag_dir, "/data/bags/rosbag2_2025_12_01-04_00_00");
	h->pid = 4242;
	h->update_hz = 1;
	struct tui_play_header *p = &h->play;
	p->state = TUI_PLAY_PLAYING;
	p->bag_pos_ns = INT64_C(62) * 1000000000;
	p->bag_total_ns = INT64_C(150) * 1000000000;
	p->wall_elapsed_ns = INT64_C(31) * 1000000000;
	p->wall_left_ns = INT64_C(44) * 1000000000;
	p->rate = 2;
	p->loop_index = 1;
	p->total = 16650;
	static const struct {
		const char *name, *type;
		double hz;
		uint64_t bag, late;
		uint32_t subs;
	} rows[] = {
		{"/camera/front/image_raw/compressed", "sensor_msgs/msg/CompressedImage", 60, 4500,
		 7, 2},
		{"/tf", "tf2_msgs/msg/TFMessage", 200, 15000, 0, 3},
		{"/tf_static", "tf2_msgs/msg/TFMessage", 0, 1, 0, 1},
		{"/rosout", "rcl_interfaces/msg/Log", 5, 375, 0, 0},
	};
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
		struct tui_topic *t = tf_add(m, (uint32_t)i, rows[i].name, rows[i].type, rows[i].hz,
					     0);
		t->bag_messages = rows[i].bag;
		t->total.messages = rows[i].bag * 62 / 150;
		t->total.bytes = t->total.messages * 1000;
		t->subscribers = rows[i].subs;
		t->late = rows[i].late;
		p->published += t->total.messages;
	}
	m->topics[2].transient_local = true;
	m->topics[2].total.messages = 1;
	m->topics[3].reliable = false;
	tui_model_event_push(m, TF_T0, TUI_SEV_INFO, "playing at 2x");
}

void tf_model_many(struct tui_model *m, size_t n)
{
	tui_model_init(m);
	m->hdr.update_hz = 1;
	for (size_t i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof name, "/t%03zu", i);
		tf_add(m, (uint32_t)i, name, "std_msgs/msg/String", (double)i, i * 100);
	}
}

void tf_snapshot_mode(struct tui_model *m, int64_t before_s, int64_t after_ms,
		      int64_t before_max_s, int64_t after_max_ms)
{
	m->hdr.snapshot_mode = true;
	m->hdr.state = TUI_REC_SNAPSHOT_ARMED;
	m->hdr.snapshot_before_ns = before_s * 1000000000;
	m->hdr.snapshot_after_ns = after_ms * 1000000;
	m->hdr.snapshot_before_max_ns = before_max_s * 1000000000;
	m->hdr.snapshot_after_max_ns = after_max_ms * 1000000;
}

void tf_state(struct tui_state *s, const struct tui_model *m, size_t page)
{
	tui_state_init(s);
	tui_state_set_page(s, page, 0);
	tui_state_sync(s, m);
}

struct tui_cmd tf_keys(struct tui_state *s, const struct tui_model *m, const int *keys)
{
	struct tui_cmd cmd = {.kind = TUI_CMD_NONE};
	for (; *keys; keys++)
		tui_state_handle_key(s, m, *keys, &cmd);
	return cmd;
}

const char *tf_order(const struct tui_state *s, const struct tui_model *m)
{
	static char buf[4096];
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < s->n_order && len < sizeof buf; i++)
		len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s", i ? " " : "",
					m->topics[s->order[i]].name);
	return buf;
}

static int tf_fx_new(void **state, void (*model)(struct tui_model *m))
{
	struct tf_fx *fx = bt_xcalloc(1, sizeof *fx);
	fx->test = *state;
	model(&fx->m);
	tf_state(&fx->s, &fx->m, 10);
	*state = fx;
	return 0;
}

int tf_setup(void **state)
{
	return tf_fx_new(state, tf_model);
}

int tf_play_setup(void **state)
{
	return tf_fx_new(state, tf_play_model);
}

int tf_teardown(void **state)
{
	struct tf_fx *fx = *state;
	tui_state_fini(&fx->s);
	tui_model_fini(&fx->m);
	free(fx);
	return 0;
}

void tf_run(void **state)
{
	struct tf_fx *fx = *state;
	fx->test->fn(&fx->m, &fx->s);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	char chunk[4096];
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (len + n + 1 > cap) {
			cap = 2 * (len + n + 1);
			buf = realloc(buf, cap);
			assert_non_null(buf);
		}
		memcpy(buf + len, chunk, n);
		len += n;
	}
	fclose(f);
	if (!buf)
		buf = calloc(1, 1);
	buf[len] = '\0';
	return buf;
}

/* Builds the frame for (m, s) at cols x rows and compares it with
 * golden/<name>.txt. */
void tf_golden(const char *name, const struct tui_model *m, struct tui_state *s, int cols,
		   int rows, bool utf8, enum tf_render how)
{
	struct tui_layout l;
	struct tui_frame f;
	tui_layout_build_mode(&l, cols, rows, m->mode, m->hdr.throttling);
	if (!l.too_small) { /* as tui_run */
		tui_state_set_page(s, (size_t)l.table_h, l.visible);
		tui_state_set_help_lines(s, tui_view_help_lines(m->mode, cols));
	}
	tui_state_sync(s, m);
	tui_frame_init(&f, utf8);
	tui_view_build(&f, m, s, &l);
	assert_int_equal(f.cols, cols);
	assert_int_equal(f.rows, rows);
	char *got = how == TEXT     ? tui_frame_text(&f)
		    : how == COLOUR ? tui_frame_markup(&f, &tui_scheme_colour)
				    : tui_frame_markup(&f, &tui_scheme_mono);
	char path[1024];
	snprintf(path, sizeof path, "%s/%s.txt", TUI_GOLDEN_DIR, name);
	if (getenv("BAGTOP_UPDATE_GOLDEN")) {
		tu_write_file(path, got, strlen(got));
		print_message("rewrote %s\n", path);
	}
	char *want = slurp(path);
	if (!want || strcmp(got, want) != 0) {
		print_error("frame %s differs from %s; got:\n%s", name, path, got);
		fail();
	}
	free(want);
	free(got);
	tui_frame_fini(&f);
}
