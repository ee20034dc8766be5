/* The MCAP reader on the real rosbag2 MCAP bags in
 * ../shared/fixtures/rosbag2-mcap (written by rosbag2 through the mcap Go
 * and C++ libraries): every file read streamed to its footer, indexed
 * through its summary, messages in log_time order, counts per topic as the
 * fixture README lists them, statistics agreeing, recover complete.
 * Skipped (exit 77) when the fixtures are absent. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_fs.h"
#include "mcap_reader.h"
#include "test_bag.h"

#define RB_MAX_TOPICS 8

struct rb_topic {
	const char *name;
	uint64_t count;
};

struct rb_bag {
	const char *dir;
	struct rb_topic topics[RB_MAX_TOPICS];
};

/* From ../shared/fixtures/rosbag2-mcap/README.md. */
static const struct rb_bag rb_bags[] = {
	{"talker", {{"/rosout", 10}, {"/topic", 10}}},
	{"wbag",
	 {{"AAA", 804}, {"BBB", 742}, {"CCC", 742}, {"DDD", 753}, {"EEE", 804}, {"FFF", 772},
	  {"GGG", 731}, {"HHH", 726}}},
	{"cdr_test", {{"/test_topic", 3}, {"/array_topic", 4}}},
	{"multiple_files", {{"/chatter", 3177}}},
	{"convert_a", {{"a_empty", 100}, {"b_basictypes", 50}}},
	{"bag_with_topics_and_service_events",
	 {{"/test_topic1", 1},
	  {"/test_topic2", 1},
	  {"/test_service1/_service_event", 4},
	  {"/test_service2/_service_event", 4}}},
};

static char rb_root[4096];

static void rb_count_message(const struct mcap_item *it, void *arg)
{
	*(uint64_t *)arg += it->rec.opcode == MCAP_OP_MESSAGE;
}

static uint64_t rb_streamed(const char *path)
{
	uint64_t n = 0;
	tb_mcap_stream_each(path, rb_count_message, &n);
	struct mcap_reader *r = tb_mcap_streamed(path);
	struct bt_error err;
	struct mcap_recovery rec;
	assert_int_equal(mcap_reader_recover(r, &rec, &err), BT_OK);
	assert_true(rec.complete);
	assert_int_equal(rec.messages, n);
	mcap_reader_close(r);
	return n;
}

/* Adds the file's messages per topic into counts[] (by rb_bag topic). */
static void rb_indexed(const char *path, const struct rb_bag *bag, uint64_t *counts)
{
	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(path, &s);
	struct bt_error err;
	if (!s->from_summary)
		fail_msg("%s: summary not used: %s", path, s->scan_why.msg);
	assert_int_equal(s->header.profile.len, 4);
	assert_memory_equal(s->header.profile.p, "ros2", 4);
	assert_true(s->n_chunks > 0);
	assert_int_equal(mcap_reader_messages_begin(r, &err), BT_OK);
	uint64_t n = 0, last = 0;
	for (bool end = false;;) {
		struct mcap_message m;
		if (mcap_reader_messages_next(r, &m, &end, &err) != BT_OK)
			fail_msg("%s: %s", path, err.msg);
		if (end)
			break;
		assert_true(m.log_time >= last);
		last = m.log_time;
		const struct mcap_channel *c = mcap_reader_channel(r, m.channel_id);
		assert_non_null(c);
		assert_int_equal(c->message_encoding.len, 3);
		assert_memory_equal(c->message_encoding.p, "cdr", 3);
		size_t t = 0;
		while (t < RB_MAX_TOPICS && bag->topics[t].name &&
		       (strlen(bag->topics[t].name) != c->topic.len ||
			memcmp(bag->topics[t].name, c->topic.p, c->topic.len) != 0))
			t++;
		if (t == RB_MAX_TOPICS || !bag->topics[t].name)
			fail_msg("%s: a message on unexpected topic %.*s", path, (int)c->topic.len,
				 c->topic.p);
		counts[t]++;
		n++;
	}
	if (s->has_statistics)
		assert_int_equal(s->statistics.message_count, n);
	assert_int_equal(rb_streamed(path), n);
	mcap_reader_close(r);
}

static void test_rosbag2_bags(void **state)
{
	(void)state;
	for (size_t b = 0; b < sizeof rb_bags / sizeof rb_bags[0]; b++) {
		const struct rb_bag *bag = &rb_bags[b];
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/%s", rb_root, bag->dir);
		char **names;
		size_t n, files = 0;
		struct bt_error err;
		assert_int_equal(bt_fs_list_dir(dir, &names, &n, &err), BT_OK);
		uint64_t counts[RB_MAX_TOPICS] = {0};
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(names[i]);
			if (l < 5 || strcmp(names[i] + l - 5, ".mcap") != 0)
				continue;
			char path[4096];
			snprintf(path, sizeof path, "%s/%s", dir, names[i]);
			rb_indexed(path, bag, counts);
			files++;
		}
		bt_fs_free_list(names, n);
		assert_true(files > 0);
		for (size_t t = 0; t < RB_MAX_TOPICS && bag->topics[t].name; t++) {
			if (counts[t] != bag->topics[t].count)
				fail_msg("%s %s: %llu messages, the README says %llu", bag->dir,
					 bag->topics[t].name, (unsigned long long)counts[t],
					 (unsigned long long)bag->topics[t].count);
		}
		printf("%-36s %zu file(s), counts as listed\n", bag->dir, files);
	}
}

int main(void)
{
	const char *src = getenv("BAGTOP_SOURCE_DIR");
	snprintf(rb_root, sizeof rb_root, "%s/../shared/fixtures/rosbag2-mcap", src ? src : ".");
	if (!bt_fs_is_dir(rb_root)) {
		fprintf(stderr, "SKIP: the rosbag2 MCAP fixtures are absent (%s)\n", rb_root);
		return 77;
	}
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_rosbag2_bags)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
