/* bag_write_child — a bag-writing process for the crash tests: writes
 * deterministic messages (message i: topic i % 3, timestamp BASE + i,
 * payload from recovery_payload(i)) in batches, and after every committed
 * batch prints "committed N" on stdout. Runs until killed, or until its
 * bounds (messages, seconds) are reached.
 *
 * usage: bag_write_child DIR BATCH PRESET(none|resilient) COMPRESSION(none|file|message)
 *                        MAX_BAG_SIZE */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_writer.h"
#include "bt_parse.h"
#include "bt_time.h"
#include "recovery_payload.h"

#define CHILD_MAX_MESSAGES 3000000
#define CHILD_MAX_SECONDS 60

static int child_fail(const char *what, const struct bt_error *err)
{
	fprintf(stderr, "bag_write_child: %s: %s\n", what, err ? err->msg : "bad arguments");
	return 1;
}

static int child_topics(struct bag_writer *w, uint32_t *h, struct bt_error *err)
{
	static const char *const names[3] = {"/a", "/b", "/c"};
	for (int i = 0; i < 3; i++) {
		struct bag_qos q;
		bag_qos_default(&q);
		struct bag_topic t = {(char *)names[i], "std_msgs/msg/String", "cdr", &q, 1, ""};
		if (bag_writer_add_topic(w, &t, NULL, &h[i], err) != BT_OK)
			return -1;
	}
	return 0;
}

static int child_run(struct bag_writer *w, size_t batch)
{
	struct bt_error err;
	uint32_t h[3];
	if (child_topics(w, h, &err))
		return child_fail("add topic", &err);
	struct bag_message *m = calloc(batch, sizeof *m);
	uint8_t (*buf)[RECOVERY_PAYLOAD_MAX] = calloc(batch, RECOVERY_PAYLOAD_MAX);
	int64_t deadline = bt_time_monotonic_ns() + CHILD_MAX_SECONDS * BT_NS_PER_S;
	for (uint64_t i = 0; i < CHILD_MAX_MESSAGES && bt_time_monotonic_ns() < deadline;) {
		for (size_t k = 0; k < batch; k++, i++) {
			size_t len = recovery_payload(i, buf[k]);
			m[k] = (struct bag_message){h[i % 3], RECOVERY_BASE_TIME + (int64_t)i, buf[k],
						    len, 0};
		}
		if (bag_writer_write(w, m, batch, &err) != BT_OK)
			return child_fail("write", &err);
		printf("committed %llu\n", (unsigned long long)i);
		fflush(stdout);
	}
	free(m);
	free(buf);
	return bag_writer_close(w, &err) == BT_OK ? 0 : child_fail("close", &err);
}

int main(int argc, char **argv)
{
	struct bag_writer_options o = {0};
	uint64_t batch;
	if (argc != 6 || bt_parse_u64(argv[2], 1, 100000, &batch) != BT_OK ||
	    bag_preset_parse(argv[3], &o.preset) != BT_OK ||
	    bag_compression_parse(argv[4], &o.compression) != BT_OK ||
	    bt_parse_u64(argv[5], 0, UINT64_MAX, &o.max_bagfile_size) != BT_OK)
		return child_fail("usage", NULL);
	o.uri = argv[1];
	o.compression_threads = 2;
	struct bag_kv kv = {"test", "crash"};
	o.custom_data = &kv;
	o.n_custom_data = 1;
	struct bag_writer *w;
	struct bt_error err;
	if (bag_writer_open(&o, &w, &err) != BT_OK)
		return child_fail("open", &err);
	return child_run(w, batch);
}
