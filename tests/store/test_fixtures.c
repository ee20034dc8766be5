/* bag_reader and bag_metadata on the real rosbag2 bags in $BAGTOP_FIXTURES:
 * topics, counts, time ranges and per-file counts exactly as the fixture
 * README lists them (counted there with the sqlite3 CLI), messages in
 * timestamp order, decompressed CDR, and every metadata.yaml version the
 * set holds (4, 6, 7, 8). The fixtures are read in place and must stay
 * untouched (no -shm/-wal side files either): checked before and after. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_util.h"

#define FX_MAX_TOPICS 8
#define FX_MAX_FILES 5

struct fx_topic {
	const char *name, *type;
	uint64_t count;
};

struct fx_bag {
	const char *dir;
	int md_version; /* of metadata.yaml; 0 = there is none */
	uint64_t total;
	int64_t first, last; /* ignored when total is 0 */
	size_t n_files;
	uint64_t file_counts[FX_MAX_FILES];
	int64_t file_first[FX_MAX_FILES], file_last[FX_MAX_FILES]; /* 0 = not listed */
	const char *compression;
	size_t n_topics;
	struct fx_topic topics[FX_MAX_TOPICS];
};

#define LOG_T "rcl_interfaces/msg/Log"
#define PEV_T "rcl_interfaces/msg/ParameterEvent"
#define STR_T "std_msgs/msg/String"

/* From shared/fixtures/rosbag2/README.md. */
static const struct fx_bag fx_bags[] = {
	{"talker", 4, 20, 1585866235112411371, 1585866239643508139, 1, {20}, {0}, {0}, "", 3,
	 {{"/rosout", LOG_T, 10}, {"/parameter_events", PEV_T, 0}, {"/topic", STR_T, 10}}},
	{"cdr_test", 7, 7, 1586406456763032325, 1586406456914169506, 1, {7}, {0}, {0}, "", 2,
	 {{"/test_topic", "test_msgs/msg/BasicTypes", 3},
	  {"/array_topic", "test_msgs/msg/Arrays", 4}}},
	{"bag_with_topics_and_service_events", 8, 10, 1699345836023194036,
	 1699345836093827766, 1, {10}, {0}, {0}, "", 5,
	 {{"/test_topic2", "test_msgs/msg/Strings", 1},
	  {"/test_topic1", "test_msgs/msg/Strings", 1},
	  {"/test_service2/_service_event", "test_msgs/srv/BasicTypes_Event", 4},
	  {"/test_service1/_service_event", "test_msgs/srv/BasicTypes_Event", 4},
	  {"/events/write_split", "rosbag2_interfaces/msg/WriteSplitEvent", 0}}},
	{"topics_and_services", 0, 13, 1697522387465250790, 1697522388973342699, 1, {13}, {0},
	 {0}, "", 5,
	 {{"/parameter_events", PEV_T, 7},
	  {"/events/write_split", "rosbag2_interfaces/msg/WriteSplitEvent", 0},
	  {"/add_two_ints2/_service_event", "example_interfaces/srv/AddTwoInts_Event", 0},
	  {"/add_two_ints/_service_event", "example_interfaces/srv/AddTwoInts_Event", 6},
	  {"/rosout", LOG_T, 0}}},
	{"wbag", 4, 6074, 1000, 2998, 5, {1246, 1240, 1240, 1240, 1108},
	 {1000, 1410, 1821, 2233, 2623}, {1408, 1821, 2232, 2623, 2998}, "", 8,
	 {{"AAA", STR_T, 804}, {"BBB", STR_T, 742}, {"CCC", STR_T, 742}, {"DDD", STR_T, 753},
	  {"EEE", STR_T, 804}, {"FFF", STR_T, 772}, {"GGG", STR_T, 731}, {"HHH", STR_T, 726}}},
	{"multiple_files", 6, 52, 1630486321838886148, 1630486347339076385, 3, {20, 20, 12},
	 {1630486321838886148, 1630486331839194483, 1630486341839168680},
	 {1630486331339052822, 1630486341339149486, 1630486347339076385}, "", 1,
	 {{"/topic", STR_T, 52}}},
	{"file_compression", 4, 775, 1604356909418673946, 1604357100419831952, 4,
	 {249, 242, 240, 44}, {0}, {0}, "FILE", 3,
	 {{"/rosout", LOG_T, 392}, {"/parameter_events", PEV_T, 0}, {"/topic", STR_T, 383}}},
	{"message_compression", 4, 1127, 1604581357697556242, 1604581542133285933, 4,
	 {380, 360, 360, 27}, {0}, {0}, "MESSAGE", 3,
	 {{"/topic", STR_T, 369}, {"/rosout", LOG_T, 758}, {"/parameter_events", PEV_T, 0}}},
	{"compressed_bag", 4, 0, 0, 0, 1, {0}, {0}, {0}, "FILE", 2,
	 {{"/rosout", LOG_T, 0}, {"/parameter_events", PEV_T, 0}}},
};
#define FX_N (sizeof fx_bags / sizeof fx_bags[0])

static char *fx_path(const char *rel)
{
	return bt_fs_join(tu_fixtures(), rel);
}

static struct bag_reader *fx_open(const char *path)
{
	struct bag_reader *r = NULL;
	struct bt_error err;
	if (bag_reader_open(path, 0, &r, &err) != BT_OK)
		fail_msg("bag_reader_open %s: %s", path, err.msg);
	return r;
}

static const struct fx_topic *fx_find(const struct fx_bag *b, const char *name)
{
	for (size_t i = 0; i < b->n_topics; i++)
		if (!strcmp(b->topics[i].name, name))
			return &b->topics[i];
	return NULL;
}

/* The reader's summary (no iteration): files, topics, totals. */
static void fx_check_summary(const struct fx_bag *b, struct bag_reader *r)
{
	assert_int_equal(bag_reader_n_files(r), b->n_files);
	assert_int_equal(bag_reader_message_count(r), b->total);
	if (b->total) {
		assert_int_equal(bag_reader_start(r), b->first);
		assert_int_equal(bag_reader_end(r), b->last);
	} else {
		assert_int_equal(bag_reader_start(r), BAG_TIME_NONE);
	}
	assert_string_equal(bag_reader_compression(r), b->compression);
	for (size_t i = 0; i < b->n_files; i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		assert_non_null(f);
		assert_int_equal(f->message_count, b->file_counts[i]);
		if (b->file_first[i]) {
			assert_int_equal(f->start, b->file_first[i]);
			assert_int_equal(f->end, b->file_last[i]);
		}
	}
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	assert_int_equal(n, b->n_topics);
	for (size_t i = 0; i < n; i++) {
		const struct fx_topic *want = fx_find(b, t[i].topic.name);
		if (!want)
			fail_msg("%s: unexpected topic %s", b->dir, t[i].topic.name);
		assert_string_equal(t[i].topic.type, want->type);
		assert_int_equal(t[i].count, want->count);
	}
}

/* Every message: order, counts per file and topic, CDR little-endian. */
static void fx_check_messages(const struct fx_bag *b, struct bag_reader *r)
{
	uint64_t per_file[FX_MAX_FILES] = {0}, per_topic[FX_MAX_TOPICS] = {0}, n = 0;
	int64_t prev = INT64_MIN, first = 0;
	struct bag_read_msg m;
	struct bt_error err;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		assert_true(n < b->total); /* bounds the loop too */
		if (n == 0)
			first = m.timestamp;
		assert_true(m.timestamp >= prev);
		prev = m.timestamp;
		assert_true(m.file < b->n_files);
		per_file[m.file]++;
		const struct fx_topic *t = fx_find(b, m.name);
		assert_non_null(t);
		per_topic[t - b->topics]++;
		/* Plain CDR (decompressed in MESSAGE mode): 00 01 00 00 header. */
		assert_true(m.len >= 4);
		assert_int_equal(m.data[0], 0x00);
		assert_int_equal(m.data[1], 0x01);
		n++;
	}
	if (rc != 0)
		fail_msg("%s: bag_reader_next: %s", b->dir, err.msg);
	assert_int_equal(n, b->total);
	if (n) {
		assert_int_equal(first, b->first);
		assert_int_equal(prev, b->last);
	}
	for (size_t i = 0; i < b->n_files; i++)
		assert_int_equal(per_file[i], b->file_counts[i]);
	for (size_t i = 0; i < b->n_topics; i++)
		assert_int_equal(per_topic[i], b->topics[i].count);
	/* The end stays the end. */
	assert_int_equal(bag_reader_next(r, &m, &err), 0);
}

/* metadata.yaml as written by rosbag2: version and counts parse. The
 * top-level starting_time/duration of the split fixtures are known to be
 * wrong upstream, so only counts are compared. */
static void fx_check_yaml(const struct fx_bag *b, struct bag_reader *r)
{
	const struct bag_metadata *rmd = bag_reader_metadata(r);
	if (!b->md_version) {
		assert_null(rmd);
		return;
	}
	assert_non_null(rmd);
	char *dir = fx_path(b->dir);
	struct bag_metadata md;
	struct bt_error err;
	if (bag_metadata_read(dir, &md, &err) != BT_OK)
		fail_msg("%s: %s", b->dir, err.msg);
	assert_int_equal(md.version, b->md_version);
	assert_int_equal(rmd->version, b->md_version);
	assert_string_equal(md.storage_identifier, "sqlite3");
	assert_int_equal(md.message_count, b->total);
	assert_int_equal(md.n_paths, b->n_files);
	assert_int_equal(md.n_topics, b->n_topics);
	for (size_t i = 0; i < md.n_topics; i++) {
		const struct fx_topic *t = fx_find(b, md.topics[i].topic.name);
		assert_non_null(t);
		assert_string_equal(md.topics[i].topic.type, t->type);
		assert_int_equal(md.topics[i].message_count, t->count);
	}
	assert_string_equal(md.compression_mode, b->compression);
	assert_string_equal(md.compression_format, b->compression[0] ? "zstd" : "");
	if (b->total == 0) {
		assert_int_equal(md.starting_time, INT64_MAX);
		assert_int_equal(md.duration, 0);
	}
	bag_metadata_fini(&md);
	free(dir);
}

static void fx_known(const char *path, const char *name, void *arg)
{
	(void)path;
	(void)arg;
	bool known = false;
	for (size_t k = 0; k < FX_N; k++)
		known |= !strcmp(fx_bags[k].dir, name);
	if (!known)
		fail_msg("fixture %s has no expectations in this test", name);
}

static void test_every_fixture_is_listed(void **state)
{
	(void)state;
	assert_int_equal(tu_each_fixture(fx_known, NULL), FX_N);
}

static void test_bags(void **state)
{
	(void)state;
	for (size_t i = 0; i < FX_N; i++) {
		const struct fx_bag *b = &fx_bags[i];
		printf("  %s\n", b->dir);
		char *dir = fx_path(b->dir);
		struct bag_reader *r = fx_open(dir);
		fx_check_summary(b, r);
		fx_check_yaml(b, r);
		fx_check_messages(b, r);
		bag_reader_close(r);
		free(dir);
	}
}

static void test_talker_payloads(void **state)
{
	(void)state;
	static const uint8_t head[22] = {0x00, 0x01, 0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 'H',
					 'e',  'l',  'l',  'o',  ',',  ' ',  'w',  'o',  'r',
					 'l',  'd',  '!',  ' '};
	char *path = fx_path("talker/talker.db3");
	struct bag_reader *r = fx_open(path); /* a single file, not the directory */
	assert_int_equal(bag_reader_n_files(r), 1);
	assert_null(bag_reader_metadata(r));
	fx_check_summary(&fx_bags[0], r);
	struct bag_read_msg m;
	struct bt_error err;
	int rc;
	size_t k = 0, total = 0;
	while ((rc = bag_reader_next(r, &m, &err)) == 1 && total++ < 100) {
		if (strcmp(m.name, "/topic") != 0)
			continue;
		assert_int_equal(m.len, 24);
		assert_memory_equal(m.data, head, sizeof head);
		assert_int_equal(m.data[22], '0' + k); /* "Hello, world! 0" .. 9 */
		assert_int_equal(m.data[23], 0);
		k++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(k, 10);
	bag_reader_close(r);
	free(path);
}

/* Single storage files opened by path, without their metadata.yaml. */
static void test_single_files(void **state)
{
	(void)state;
	static const struct {
		const char *rel;
		uint64_t count;
		int64_t first, last;
		const char *compression;
	} one[] = {
		{"multiple_files/multiple_files_1.db3", 20, 1630486331839194483,
		 1630486341339149486, ""},
		{"wbag/wbag_4.db3", 1108, 2623, 2998, ""},
		{"file_compression/file_compression_3.db3.zstd", 44, 0, 0, "FILE"},
		{"message_compression/message_compression_3.db3", 27, 0, 0, "MESSAGE"},
	};
	for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
		char *path = fx_path(one[i].rel);
		struct bag_reader *r = fx_open(path);
		assert_int_equal(bag_reader_n_files(r), 1);
		assert_int_equal(bag_reader_message_count(r), one[i].count);
		assert_string_equal(bag_reader_compression(r), one[i].compression);
		if (one[i].first) {
			assert_int_equal(bag_reader_start(r), one[i].first);
			assert_int_equal(bag_reader_end(r), one[i].last);
		}
		struct bag_read_msg m;
		struct bt_error err;
		uint64_t n = 0;
		int rc;
		while ((rc = bag_reader_next(r, &m, &err)) == 1 && n <= one[i].count) {
			assert_true(m.len >= 4 && m.data[0] == 0x00);
			n++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(n, one[i].count);
		bag_reader_close(r);
		free(path);
	}

	/* No metadata.yaml: the embedded row (v8) describes the file. */
	char *path = fx_path("topics_and_services/topics_and_services.db3");
	struct bag_reader *r = fx_open(path);
	const struct bag_metadata *emb = bag_reader_embedded(r);
	assert_non_null(emb);
	assert_int_equal(emb->version, 8);
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(t[i].topic.name, "/parameter_events"))
			assert_int_equal(t[i].topic.n_qos, 2); /* two publishers */
	bag_reader_close(r);
	free(path);
}

/* The metadata.yaml versions of the set and what each one adds. */
static void test_metadata_versions(void **state)
{
	(void)state;
	struct bag_metadata md;
	struct bt_error err;
	char *dir = fx_path("multiple_files");
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_int_equal(md.version, 6);
	assert_int_equal(md.n_files, 3);
	static const uint64_t counts[3] = {20, 20, 12};
	static const int64_t starts[3] = {1630486321838886148, 1630486331839194483,
					  1630486341839168680};
	static const int64_t durs[3] = {9500166674, 9499955003, 5499907705};
	for (size_t i = 0; i < 3; i++) {
		char *want = bt_xasprintf("multiple_files_%zu.db3", i);
		assert_string_equal(md.files[i].path, want);
		assert_string_equal(md.relative_file_paths[i], want);
		assert_int_equal(md.files[i].message_count, counts[i]);
		assert_int_equal(md.files[i].starting_time, starts[i]);
		assert_int_equal(md.files[i].duration, durs[i]);
		free(want);
	}
	assert_int_equal(md.n_custom_data, 0);
	assert_int_equal(md.topics[0].topic.n_qos, 1);
	assert_int_equal(md.topics[0].topic.qos[0].history, BAG_HISTORY_KEEP_LAST);
	assert_int_equal(md.topics[0].topic.qos[0].depth, 10);
	bag_metadata_fini(&md);
	free(dir);

	/* v4, compressed: the prefixed relative paths of that era. */
	dir = fx_path("file_compression");
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_int_equal(md.version, 4);
	assert_string_equal(md.relative_file_paths[0], "file_compression/file_compression_0.db3.zstd");
	assert_int_equal(md.n_files, 0);
	bag_metadata_fini(&md);
	free(dir);

	/* v4: QoS durations {0,0} in talker's metadata.yaml stay {0,0}. */
	dir = fx_path("talker");
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	for (size_t i = 0; i < md.n_topics; i++) {
		assert_int_equal(md.topics[i].topic.n_qos, 1);
		assert_int_equal(md.topics[i].topic.qos[0].deadline.sec, 0);
		assert_int_equal(md.topics[i].topic.qos[0].history, BAG_HISTORY_UNKNOWN);
	}
	bag_metadata_fini(&md);
	free(dir);

	/* v7 (type_description_hash) and v8 (ros_distro ""). */
	dir = fx_path("cdr_test");
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_int_equal(md.version, 7);
	assert_int_equal(md.n_files, 1);
	assert_int_equal(md.files[0].message_count, 7);
	bag_metadata_fini(&md);
	free(dir);
	dir = fx_path("bag_with_topics_and_service_events");
	assert_int_equal(bag_metadata_read(dir, &md, &err), BT_OK);
	assert_int_equal(md.version, 8);
	assert_string_equal(md.ros_distro, "");
	bool hashed = false;
	for (size_t i = 0; i < md.n_topics; i++)
		hashed |= !strncmp(md.topics[i].topic.type_description_hash, "RIHS01_", 7);
	assert_true(hashed);
	bag_metadata_fini(&md);
	free(dir);
}

/* Reading a WAL-flagged file (talker.db3's header says WAL) must leave the
 * directory as it was: a reader never writes beside a bag it reads. A copy
 * in a scratch directory shows it whatever the fixture folder holds. */
static void test_reading_writes_nothing(void **state)
{
	char *tmp = *state; /* tu_scratch_setup's, not the group's snapshot */
	char *src = fx_path("talker/talker.db3");
	char *dst = bt_fs_join(tmp, "talker.db3");
	tu_copy_file(src, dst);
	struct bag_reader *r = fx_open(dst);
	assert_int_equal(bag_reader_message_count(r), 20);
	struct bag_read_msg m;
	struct bt_error err;
	int rc;
	size_t n = 0;
	while ((rc = bag_reader_next(r, &m, &err)) == 1 && n < 100)
		n++;
	assert_int_equal(rc, 0);
	assert_int_equal(n, 20);
	bag_reader_close(r);
	char **names;
	size_t cnt;
	assert_int_equal(bt_fs_list_dir(tmp, &names, &cnt, &err), BT_OK);
	for (size_t i = 0; i < cnt; i++)
		printf("  after reading: %s\n", names[i]);
	assert_int_equal(cnt, 1);
	bt_fs_free_list(names, cnt);
	assert_true(tu_files_equal(src, dst));
	free(dst);
	free(src);
}

/* ---- the fixture folder stays as it was ---- */

static char *fx_snapshot(void)
{
	struct bt_buf b = BT_BUF_INIT;
	for (size_t k = 0; k < FX_N; k++) {
		char *dir = fx_path(fx_bags[k].dir);
		char **names;
		size_t n;
		if (bt_fs_list_dir(dir, &names, &n, NULL) != BT_OK)
			abort();
		for (size_t i = 0; i < n; i++) {
			char *p = bt_fs_join(dir, names[i]);
			struct stat st;
			if (stat(p, &st) != 0 ||
			    bt_buf_printf(&b, "%s/%s %lld %lld.%09ld\n", fx_bags[k].dir, names[i],
					  (long long)st.st_size, (long long)st.st_mtim.tv_sec,
					  st.st_mtim.tv_nsec) != BT_OK)
				abort();
			free(p);
		}
		bt_fs_free_list(names, n);
		free(dir);
	}
	return bt_buf_steal(&b);
}

static int fx_setup(void **state)
{
	*state = fx_snapshot();
	return 0;
}

static int fx_teardown(void **state)
{
	char *before = *state, *after = fx_snapshot();
	int rc = strcmp(before, after) != 0;
	if (rc)
		printf("the fixture folder changed:\n--- before\n%s--- after\n%s", before, after);
	free(before);
	free(after);
	return rc;
}

int main(void)
{
	tu_require_fixtures();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture_is_listed),
		cmocka_unit_test(test_bags),
		cmocka_unit_test(test_talker_payloads),
		cmocka_unit_test(test_single_files),
		cmocka_unit_test(test_metadata_versions),
		TU_SCRATCH_TEST(test_reading_writes_nothing),
	};
	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
