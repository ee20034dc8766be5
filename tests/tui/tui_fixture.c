#include "tui_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"

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

void tf_state(struct tui_state *s, const struct tui_model *m, size_t page)
{
	tui_state_init(s);
	tui_state_set_page(s, page, 0);
	tui_state_sync(s, m);
}

struct tui_cmd tf_keys(struct tui_state *s, const struct tui_model *m, const int *keys)
{
	struct tui_cmd cmd = {TUI_CMD_NONE, 0, 0};
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

int tf_setup(void **state)
{
	struct tf_fx *fx = bt_xcalloc(1, sizeof *fx);
	tf_model(&fx->m);
	tf_state(&fx->s, &fx->m, 10);
	*state = fx;
	return 0;
}

int tf_teardown(void **state)
{
	struct tf_fx *fx = *state;
	tui_state_fini(&fx->s);
	tui_model_fini(&fx->m);
	free(fx);
	return 0;
}
