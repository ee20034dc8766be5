/* metadata.yaml and offered_qos_profiles: emit -> parse round trips, the
 * version 9 layout (root key, field order, QoS as a sequence of names),
 * the older string/number forms, Foxy "infinite" durations, and clean
 * one-line errors for malformed input. Ground truth: ROSBAG2_FORMAT.md §5. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_metadata.h"
#include "bag_qos.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_bag.h"
#include "test_util.h"

/* ---- building and comparing structs ---- */

static struct bag_qos md_qos_a(void)
{
	struct bag_qos q =
		tb_qos_keep_last(10, BAG_RELIABILITY_BEST_EFFORT, BAG_DURABILITY_TRANSIENT_LOCAL);
	q.deadline = (struct bag_qos_time){1, 500};
	q.lifespan = (struct bag_qos_time){0, 0};
	q.liveliness = BAG_LIVELINESS_MANUAL_BY_TOPIC;
	q.liveliness_lease_duration = (struct bag_qos_time){3, 7};
	q.avoid_ros_namespace_conventions = true;
	return q;
}

static struct bag_qos md_qos_b(void)
{
	struct bag_qos q;
	bag_qos_default(&q); /* unknown, reliable, volatile, infinite, automatic */
	q.history = BAG_HISTORY_KEEP_ALL;
	q.reliability = BAG_RELIABILITY_BEST_AVAILABLE;
	q.durability = BAG_DURABILITY_BEST_AVAILABLE;
	q.liveliness = BAG_LIVELINESS_BEST_AVAILABLE;
	return q;
}

static void md_set_topic(struct bag_topic_info *ti, const char *name, const char *type,
			 const char *hash, const struct bag_qos *q, size_t n, uint64_t count)
{
	ti->topic.name = bt_xstrdup(name);
	ti->topic.type = bt_xstrdup(type);
	ti->topic.serialization_format = bt_xstrdup("cdr");
	ti->topic.type_description_hash = bt_xstrdup(hash);
	ti->topic.n_qos = n;
	ti->topic.qos = NULL;
	if (n) {
		ti->topic.qos = bt_xcalloc(n, sizeof *q);
		memcpy(ti->topic.qos, q, n * sizeof *q);
	}
	ti->message_count = count;
}

/* Every field set, with strings YAML could mistake for other types. */
static void md_build_full(struct bag_metadata *md)
{
	bag_metadata_init(md);
	md->duration = 25500190237;
	md->starting_time = 1630486321838886148;
	md->message_count = 52;
	md->n_topics = 3;
	md->topics = bt_xcalloc(3, sizeof *md->topics);
	struct bag_qos two[2] = {md_qos_a(), md_qos_b()};
	md_set_topic(&md->topics[0], "/chatter", "std_msgs/msg/String",
		     "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18", two,
		     2, 40);
	md_set_topic(&md->topics[1], "/ns/empty_qos", "test_msgs/msg/Empty", "", NULL, 0, 12);
	md_set_topic(&md->topics[2], "/never", "std_msgs/msg/String", "", two + 1, 1, 0);
	free(md->compression_format);
	free(md->compression_mode);
	free(md->ros_distro);
	md->compression_format = bt_xstrdup("zstd");
	md->compression_mode = bt_xstrdup("FILE");
	md->ros_distro = bt_xstrdup("jazzy");
	md->n_paths = 2;
	md->relative_file_paths = bt_xcalloc(2, sizeof(char *));
	md->relative_file_paths[0] = bt_xstrdup("bag_0.db3.zstd");
	md->relative_file_paths[1] = bt_xstrdup("bag_1.db3.zstd");
	md->n_files = 2;
	md->files = bt_xcalloc(2, sizeof *md->files);
	md->files[0] = (struct bag_file_info){.path = bt_xstrdup("bag_0.db3"),
					      .starting_time = 1630486321838886148,
					      .duration = 9500166674, .message_count = 52};
	md->files[1] = (struct bag_file_info){.path = bt_xstrdup("bag_1.db3"),
					      .starting_time = BAG_TIME_NONE};
	md->n_custom_data = 4;
	md->custom_data = bt_xcalloc(4, sizeof *md->custom_data);
	md->custom_data[0] = (struct bag_kv){bt_xstrdup("robot"), bt_xstrdup("r2: d2")};
	md->custom_data[1] = (struct bag_kv){bt_xstrdup("flag"), bt_xstrdup("true")};
	md->custom_data[2] = (struct bag_kv){bt_xstrdup("num"), bt_xstrdup("0123")};
	md->custom_data[3] = (struct bag_kv){bt_xstrdup("empty"), bt_xstrdup("")};
}

static void md_assert_equal(const struct bag_metadata *a, const struct bag_metadata *b)
{
	assert_int_equal(a->version, b->version);
	assert_string_equal(a->storage_identifier, b->storage_identifier);
	assert_int_equal(a->duration, b->duration);
	assert_int_equal(a->starting_time, b->starting_time);
	assert_int_equal(a->message_count, b->message_count);
	assert_int_equal(a->n_topics, b->n_topics);
	for (size_t i = 0; i < a->n_topics; i++) {
		tb_assert_topic_equal(&a->topics[i].topic, &b->topics[i].topic);
		assert_int_equal(a->topics[i].message_count, b->topics[i].message_count);
	}
	assert_string_equal(a->compression_format, b->compression_format);
	assert_string_equal(a->compression_mode, b->compression_mode);
	assert_int_equal(a->n_paths, b->n_paths);
	for (size_t i = 0; i < a->n_paths; i++)
		assert_string_equal(a->relative_file_paths[i], b->relative_file_paths[i]);
	tb_assert_files_equal(a, b);
	assert_int_equal(a->n_custom_data, b->n_custom_data);
	for (size_t i = 0; i < a->n_custom_data; i++) {
		assert_string_equal(a->custom_data[i].key, b->custom_data[i].key);
		assert_string_equal(a->custom_data[i].value, b->custom_data[i].value);
	}
	assert_string_equal(a->ros_distro, b->ros_distro);
	assert_int_equal(a->n_def_sources, b->n_def_sources);
	for (size_t i = 0; i < a->n_def_sources; i++) {
		assert_string_equal(a->def_sources[i].key, b->def_sources[i].key);
		assert_string_equal(a->def_sources[i].value, b->def_sources[i].value);
	}
}

static char *md_emit(const struct bag_metadata *md, bool root)
{
	struct bt_buf b = BT_BUF_INIT;
	assert_int_equal(bag_metadata_to_yaml(md, root, &b), BT_OK);
	assert_non_null(b.data);
	assert_int_equal(strlen(b.data), b.len);
	return bt_buf_steal(&b);
}

static void md_parse_ok(const char *text, struct bag_metadata *md)
{
	struct bt_error err = {0};
	bt_status st = bag_metadata_from_yaml(text, strlen(text), md, &err);
	if (st != BT_OK)
		fail_msg("parse failed (%d): %s\n--- text:\n%s", st, err.msg, text);
}

/* `text` parses into metadata equal to md. */
static void md_reads_back(const char *text, const struct bag_metadata *md)
{
	struct bag_metadata back;
	md_parse_ok(text, &back);
	md_assert_equal(md, &back);
	bag_metadata_fini(&back);
}

/* ---- text layout helpers ---- */

/* The keys of the lines indented by exactly `indent` spaces (a leading
 * "- " counts as indentation), in order, up to `max`. Returns how many. */
static size_t md_keys_at(const char *text, size_t indent, char keys[][64], size_t max)
{
	size_t n = 0;
	for (const char *line = text; line && *line && n < max;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		size_t sp = 0;
		while (sp < len && (line[sp] == ' ' || (line[sp] == '-' && sp + 1 < len &&
							 line[sp + 1] == ' ')))
			sp++;
		const char *colon = memchr(line, ':', len);
		if (sp == indent && colon && line[sp] != '"' && (size_t)(colon - line) > sp &&
		    (size_t)(colon - line) - sp < 64) {
			size_t kl = (size_t)(colon - line) - sp;
			memcpy(keys[n], line + sp, kl);
			keys[n][kl] = '\0';
			n++;
		}
		line = eol ? eol + 1 : NULL;
	}
	return n;
}

/* The column of `needle` (a key followed by ':') on its first line. */
static size_t md_indent_of(const char *text, const char *needle)
{
	const char *p = strstr(text, needle);
	assert_non_null(p);
	const char *bol = p;
	while (bol > text && bol[-1] != '\n')
		bol--;
	return (size_t)(p - bol);
}

/* The first non-blank line after the line holding `needle`, trimmed of
 * leading blanks, copied into buf. */
static void md_next_line(const char *text, const char *needle, char *buf, size_t cap)
{
	const char *p = strstr(text, needle);
	assert_non_null(p);
	p = strchr(p, '\n');
	assert_non_null(p);
	p++;
	while (*p == ' ')
		p++;
	size_t len = strcspn(p, "\n");
	if (len >= cap)
		len = cap - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
}

/* The part of `text` from `from` up to (not including) `to`, malloc'ed. */
static char *md_section(const char *text, const char *from, const char *to)
{
	const char *a = strstr(text, from);
	assert_non_null(a);
	const char *b = strstr(a, to);
	assert_non_null(b);
	return bt_xstrndup(a, (size_t)(b - a));
}

/* ---- tests ---- */

static void test_round_trip_full(void **state)
{
	(void)state;
	struct bag_metadata md, back;
	md_build_full(&md);
	char *text = md_emit(&md, true);
	md_parse_ok(text, &back);
	md_assert_equal(&md, &back);
	/* The embedded-row form, without the root key, reads back the same. */
	char *inner = md_emit(&md, false);
	assert_null(strstr(inner, "rosbag2_bagfile_information"));
	md_reads_back(inner, &md);
	/* Emitting what was parsed gives the same text again. */
	char *again = md_emit(&back, true);
	assert_string_equal(text, again);
	free(again);
	free(inner);
	free(text);
	bag_metadata_fini(&back);
	bag_metadata_fini(&md);
}

/* bagtop's message_definition_sources: after every rosbag2 key, only when
 * a node was asked, and read back. */
static void test_def_sources(void **state)
{
	(void)state;
	struct bag_metadata md;
	md_build_full(&md);
	char *text = md_emit(&md, true);
	assert_null(strstr(text, "message_definition_sources"));
	free(text);
	bag_kv_set(&md.def_sources, &md.n_def_sources, "my_msgs/msg/A",
		   "get_type_description (node /a)");
	bag_kv_set(&md.def_sources, &md.n_def_sources, "my_msgs/msg/B", "x");
	bag_kv_set(&md.def_sources, &md.n_def_sources, "my_msgs/msg/B",
		   "missing: get_type_description of node /b: no reply");
	assert_int_equal(md.n_def_sources, 2);
	text = md_emit(&md, true);
	char *ros = strstr(text, "ros_distro:"), *src = strstr(text, "message_definition_sources:");
	assert_true(ros != NULL && src != NULL && src > ros);
	md_reads_back(text, &md);
	free(text);
	bag_metadata_fini(&md);
}

static void test_round_trip_empty_bag(void **state)
{
	(void)state;
	struct bag_metadata md, back;
	bag_metadata_init(&md);
	assert_int_equal(md.starting_time, INT64_MAX);
	assert_int_equal(md.duration, 0);
	md.n_topics = 1;
	md.topics = bt_xcalloc(1, sizeof *md.topics);
	md_set_topic(&md.topics[0], "/rosout", "rcl_interfaces/msg/Log", "", NULL, 0, 0);
	md.n_paths = 1;
	md.relative_file_paths = bt_xcalloc(1, sizeof(char *));
	md.relative_file_paths[0] = bt_xstrdup("empty_0.db3");
	md.n_files = 1;
	md.files = bt_xcalloc(1, sizeof *md.files);
	md.files[0] = (struct bag_file_info){.path = bt_xstrdup("empty_0.db3"),
					     .starting_time = BAG_TIME_NONE};
	char *text = md_emit(&md, true);
	assert_non_null(strstr(text, "nanoseconds_since_epoch: 9223372036854775807\n"));
	assert_non_null(strstr(text, "nanoseconds: 0\n"));
	assert_non_null(strstr(text, "message_count: 0\n"));
	/* rosbag2 writes `~` for empty custom_data and "" for empty strings. */
	assert_non_null(strstr(text, "custom_data: ~"));
	assert_non_null(strstr(text, "compression_format: \"\""));
	assert_non_null(strstr(text, "ros_distro: \"\""));
	md_parse_ok(text, &back);
	md_assert_equal(&md, &back);
	assert_int_equal(back.starting_time, INT64_MAX);
	assert_int_equal(back.files[0].starting_time, INT64_MAX);
	free(text);
	bag_metadata_fini(&back);

	/* No topics, no files at all. */
	struct bag_metadata bare;
	bag_metadata_init(&bare);
	text = md_emit(&bare, true);
	md_reads_back(text, &bare);
	free(text);
	bag_metadata_fini(&bare);
	bag_metadata_fini(&md);
}

static void test_v9_layout(void **state)
{
	(void)state;
	struct bag_metadata md;
	md_build_full(&md);
	md.version = 9; /* md->version's layout: 9 here (5 and 7 in test_compat) */
	char *text = md_emit(&md, true);
	assert_true(strncmp(text, "rosbag2_bagfile_information:\n", 29) == 0);
	assert_int_equal(tu_count_of(text, "rosbag2_bagfile_information"), 1);

	static const char *const want[] = {"version", "storage_identifier", "duration",
					   "starting_time", "message_count",
					   "topics_with_message_count", "compression_format",
					   "compression_mode", "relative_file_paths", "files",
					   "custom_data", "ros_distro"};
	const size_t nwant = sizeof want / sizeof want[0];
	char keys[64][64];
	size_t ind = md_indent_of(text, "version:");
	assert_true(ind > 0);
	assert_true(strstr(text, "version: 9\n") != NULL);
	size_t n = md_keys_at(text, ind, keys, 64);
	assert_int_equal(n, nwant);
	for (size_t i = 0; i < nwant; i++)
		assert_string_equal(keys[i], want[i]);

	/* Topic metadata, QoS profile and file entry keys in rosbag2's order,
	 * each looked for inside its own section of the text. */
	char *topics = md_section(text, "topics_with_message_count:", "compression_format:");
	char *files = md_section(text, "\n  files:", "custom_data:");
	static const char *const tkeys[] = {"name", "type", "serialization_format",
					    "offered_qos_profiles", "type_description_hash"};
	n = md_keys_at(topics, md_indent_of(topics, "name:"), keys, 64);
	assert_int_equal(n, 3 * 5);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(keys[i], tkeys[i % 5]);
	n = md_keys_at(topics, md_indent_of(topics, "topic_metadata:"), keys, 64);
	assert_int_equal(n, 3 * 2);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(keys[i], i % 2 ? "message_count" : "topic_metadata");
	static const char *const qkeys[] = {"history", "depth", "reliability", "durability",
					    "deadline", "lifespan", "liveliness",
					    "liveliness_lease_duration",
					    "avoid_ros_namespace_conventions"};
	n = md_keys_at(topics, md_indent_of(topics, "history:"), keys, 64);
	assert_int_equal(n, 3 * 9); /* 2 profiles on /chatter, 1 on /never */
	for (size_t i = 0; i < n; i++)
		assert_string_equal(keys[i], qkeys[i % 9]);
	static const char *const fkeys[] = {"path", "starting_time", "duration",
					    "message_count"};
	n = md_keys_at(files, md_indent_of(files, "path:"), keys, 64);
	assert_int_equal(n, 2 * 4);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(keys[i], fkeys[i % 4]);
	free(topics);
	free(files);
	char line[256];
	md_next_line(text, "  starting_time:", line, sizeof line);
	assert_string_equal(line, "nanoseconds_since_epoch: 1630486321838886148");
	md_next_line(text, "  duration:", line, sizeof line);
	assert_string_equal(line, "nanoseconds: 25500190237");

	/* QoS is a block sequence of mappings with policy names, not a string. */
	assert_null(strstr(text, "offered_qos_profiles: \""));
	md_next_line(text, "offered_qos_profiles:", line, sizeof line);
	assert_string_equal(line, "- history: keep_last");
	assert_non_null(strstr(text, "offered_qos_profiles: []"));
	assert_non_null(strstr(text, "reliability: best_effort\n"));
	assert_non_null(strstr(text, "durability: transient_local\n"));
	assert_non_null(strstr(text, "liveliness: manual_by_topic\n"));
	assert_non_null(strstr(text, "history: keep_all\n"));
	assert_non_null(strstr(text, "reliability: best_available\n"));
	assert_non_null(strstr(text, "durability: best_available\n"));
	assert_non_null(strstr(text, "liveliness: best_available\n"));
	assert_non_null(strstr(text, "avoid_ros_namespace_conventions: true\n"));
	assert_non_null(strstr(text, "sec: 9223372036\n"));
	assert_non_null(strstr(text, "nsec: 854775807\n"));
	assert_null(strstr(text, "history: 1"));
	assert_null(strstr(text, "reliability: 2"));
	/* Strings that look like other YAML types stay strings (quoted). */
	assert_non_null(strstr(text, "\"true\""));
	assert_non_null(strstr(text, "\"0123\""));
	free(text);
	bag_metadata_fini(&md);
}

/* The v4..v8 form: a quoted string of YAML with rmw numbers (§5). */
static const char md_v4_text[] =
	"rosbag2_bagfile_information:\n"
	"  version: 4\n"
	"  storage_identifier: sqlite3\n"
	"  relative_file_paths:\n"
	"    - old_0.db3\n"
	"  duration:\n"
	"    nanoseconds: 4531096768\n"
	"  starting_time:\n"
	"    nanoseconds_since_epoch: 1585866235112411371\n"
	"  message_count: 20\n"
	"  topics_with_message_count:\n"
	"    - topic_metadata:\n"
	"        name: /topic\n"
	"        type: std_msgs/msg/String\n"
	"        serialization_format: cdr\n"
	"        offered_qos_profiles: \"- history: 3\\n  depth: 0\\n  reliability: 1\\n"
	"  durability: 2\\n  deadline:\\n    sec: 9223372036\\n    nsec: 854775807\\n"
	"  lifespan:\\n    sec: 9223372036\\n    nsec: 854775807\\n  liveliness: 1\\n"
	"  liveliness_lease_duration:\\n    sec: 9223372036\\n    nsec: 854775807\\n"
	"  avoid_ros_namespace_conventions: false\\n- history: 1\\n  depth: 7\\n"
	"  reliability: 2\\n  durability: 1\\n  deadline:\\n    sec: 2147483647\\n"
	"    nsec: 4294967295\\n  lifespan:\\n    sec: 2147483647\\n    nsec: 2147483647\\n"
	"  liveliness: 3\\n  liveliness_lease_duration:\\n    sec: 5\\n    nsec: 6\\n"
	"  avoid_ros_namespace_conventions: true\"\n"
	"      message_count: 10\n"
	"    - topic_metadata:\n"
	"        name: /none\n"
	"        type: std_msgs/msg/String\n"
	"        serialization_format: cdr\n"
	"        offered_qos_profiles: \"\"\n"
	"      message_count: 10\n"
	"  compression_format: \"\"\n"
	"  compression_mode: \"\"\n";

static void test_parse_v4_numbers(void **state)
{
	(void)state;
	struct bag_metadata md;
	md_parse_ok(md_v4_text, &md);
	assert_int_equal(md.version, 4);
	assert_int_equal(md.starting_time, 1585866235112411371);
	assert_int_equal(md.duration, 4531096768);
	assert_int_equal(md.message_count, 20);
	assert_int_equal(md.n_paths, 1);
	assert_string_equal(md.relative_file_paths[0], "old_0.db3");
	assert_int_equal(md.n_files, 0);
	assert_int_equal(md.n_topics, 2);
	const struct bag_topic *t = &md.topics[0].topic;
	assert_int_equal(t->n_qos, 2);
	struct bag_qos want0;
	bag_qos_default(&want0); /* history 3 = unknown, reliable, volatile... */
	want0.history = BAG_HISTORY_UNKNOWN;
	tb_assert_qos_equal(&t->qos[0], &want0);
	const struct bag_qos *q = &t->qos[1];
	assert_int_equal(q->history, BAG_HISTORY_KEEP_LAST);
	assert_int_equal(q->depth, 7);
	assert_int_equal(q->reliability, BAG_RELIABILITY_BEST_EFFORT);
	assert_int_equal(q->durability, BAG_DURABILITY_TRANSIENT_LOCAL);
	/* Foxy-era infinities (FastDDS and Connext spellings). */
	tb_assert_qos_time_equal(q->deadline, BAG_QOS_TIME_INFINITE);
	tb_assert_qos_time_equal(q->lifespan, BAG_QOS_TIME_INFINITE);
	assert_int_equal(q->liveliness, BAG_LIVELINESS_MANUAL_BY_TOPIC);
	tb_assert_qos_time_equal(q->liveliness_lease_duration, ((struct bag_qos_time){5, 6}));
	assert_true(q->avoid_ros_namespace_conventions);
	assert_int_equal(md.topics[1].topic.n_qos, 0);
	assert_string_equal(md.compression_mode, "");
	assert_string_equal(md.ros_distro, "");
	assert_int_equal(md.n_custom_data, 0);

	/* Re-emitted, it keeps its version 4 layout (QoS a string of numbers)
	 * and parses the same. */
	char *text = md_emit(&md, true);
	assert_non_null(strstr(text, "version: 4\n"));
	assert_non_null(strstr(text, "offered_qos_profiles: \"- history: 3\\n"));
	assert_null(strstr(text, "\n  files:"));
	assert_int_equal(md.version, 4); /* and so back's (md_assert_equal) */
	md_reads_back(text, &md);
	free(text);
	/* As version 9: names, and the same again. */
	md.version = 9;
	text = md_emit(&md, true);
	assert_non_null(strstr(text, "version: 9\n"));
	assert_non_null(strstr(text, "history: keep_last\n"));
	md_reads_back(text, &md);
	free(text);
	bag_metadata_fini(&md);
}

static void test_qos_string_forms(void **state)
{
	(void)state;
	struct bag_qos *q = NULL;
	size_t n = 99;
	struct bt_error err = {0};
	/* Names, as Jazzy's topics table holds them. */
	const char *names = "- history: keep_last\n  depth: 5\n  reliability: reliable\n"
			    "  durability: transient_local\n  deadline:\n    sec: 1\n    nsec: 2\n"
			    "  lifespan:\n    sec: 2147483647\n    nsec: 4294967295\n"
			    "  liveliness: manual_by_node\n  liveliness_lease_duration:\n"
			    "    sec: 9223372036\n    nsec: 854775807\n"
			    "  avoid_ros_namespace_conventions: false";
	assert_int_equal(bag_qos_from_string(names, &q, &n, &err), BT_OK);
	assert_int_equal(n, 1);
	assert_int_equal(q[0].history, BAG_HISTORY_KEEP_LAST);
	assert_int_equal(q[0].depth, 5);
	assert_int_equal(q[0].reliability, BAG_RELIABILITY_RELIABLE);
	assert_int_equal(q[0].durability, BAG_DURABILITY_TRANSIENT_LOCAL);
	tb_assert_qos_time_equal(q[0].deadline, ((struct bag_qos_time){1, 2}));
	tb_assert_qos_time_equal(q[0].lifespan, BAG_QOS_TIME_INFINITE);
	assert_int_equal(q[0].liveliness, BAG_LIVELINESS_MANUAL_BY_NODE);
	tb_assert_qos_time_equal(q[0].liveliness_lease_duration, BAG_QOS_TIME_INFINITE);
	assert_false(q[0].avoid_ros_namespace_conventions);
	free(q);

	/* The empty string and blanks are "no profiles". */
	q = (struct bag_qos *)&err;
	assert_int_equal(bag_qos_from_string("", &q, &n, &err), BT_OK);
	assert_int_equal(n, 0);
	assert_null(q);
	assert_int_equal(bag_qos_from_string(" \n", &q, &n, &err), BT_OK);
	assert_int_equal(n, 0);

	/* A bad policy name is an error with a message. */
	err.msg[0] = '\0';
	assert_int_not_equal(bag_qos_from_string("- history: sometimes\n", &q, &n, &err), BT_OK);
	assert_true(err.msg[0] != '\0');
	err.msg[0] = '\0';
	assert_int_not_equal(bag_qos_from_string("history: 1\n", &q, &n, &err), BT_OK);
	assert_true(err.msg[0] != '\0');
}

static void test_qos_to_string(void **state)
{
	(void)state;
	struct bt_buf b = BT_BUF_INIT;
	assert_int_equal(bag_qos_to_string(NULL, 0, 9, &b), BT_OK);
	assert_int_equal(b.len, 0);
	assert_string_equal(b.data ? b.data : "", "");
	/* Appends: what was in the buffer stays. */
	assert_int_equal(bt_buf_puts(&b, "X"), BT_OK);
	assert_int_equal(bag_qos_to_string(NULL, 0, 9, &b), BT_OK);
	assert_string_equal(b.data, "X");
	bt_buf_reset(&b);

	struct bag_qos two[2] = {md_qos_a(), md_qos_b()};
	assert_int_equal(bag_qos_to_string(two, 2, 9, &b), BT_OK);
	assert_int_equal(strlen(b.data), b.len);
	assert_true(b.len > 0 && b.data[b.len - 1] != '\n');
	assert_true(strncmp(b.data, "- history: keep_last\n  depth: 10\n  reliability: "
				    "best_effort\n  durability: transient_local\n  deadline:\n"
				    "    sec: 1\n    nsec: 500\n", 96) == 0);
	assert_null(strstr(b.data, "---"));
	assert_null(strstr(b.data, "..."));
	assert_int_equal(tu_count_of(b.data, "- history:"), 2);
	assert_true(strstr(b.data, "avoid_ros_namespace_conventions: false") ==
		    b.data + b.len - strlen("avoid_ros_namespace_conventions: false"));
	struct bag_qos *q;
	size_t n;
	struct bt_error err;
	assert_int_equal(bag_qos_from_string(b.data, &q, &n, &err), BT_OK);
	assert_int_equal(n, 2);
	tb_assert_qos_equal(&q[0], &two[0]);
	tb_assert_qos_equal(&q[1], &two[1]);
	free(q);
	bt_buf_fini(&b);

	assert_string_equal(bag_qos_history_name(BAG_HISTORY_UNKNOWN), "unknown");
	assert_string_equal(bag_qos_reliability_name(99), "unknown");
	assert_string_equal(bag_qos_durability_name(BAG_DURABILITY_VOLATILE), "volatile");
	assert_string_equal(bag_qos_liveliness_name(BAG_LIVELINESS_AUTOMATIC), "automatic");
}

/* ---- errors ---- */

static const char md_good_text[] =
	"rosbag2_bagfile_information:\n"
	"  version: 9\n"
	"  storage_identifier: sqlite3\n"
	"  duration:\n"
	"    nanoseconds: 10\n"
	"  starting_time:\n"
	"    nanoseconds_since_epoch: 100\n"
	"  message_count: 1\n"
	"  topics_with_message_count:\n"
	"    - topic_metadata:\n"
	"        name: /a\n"
	"        type: std_msgs/msg/String\n"
	"        serialization_format: cdr\n"
	"        offered_qos_profiles: []\n"
	"        type_description_hash: \"\"\n"
	"      message_count: 1\n"
	"  compression_format: \"\"\n"
	"  compression_mode: \"\"\n"
	"  relative_file_paths:\n"
	"    - b_0.db3\n"
	"  files:\n"
	"    - path: b_0.db3\n"
	"      starting_time:\n"
	"        nanoseconds_since_epoch: 100\n"
	"      duration:\n"
	"        nanoseconds: 10\n"
	"      message_count: 1\n"
	"  custom_data: ~\n"
	"  ros_distro: \"\"\n";

/* md_good_text with the first `from` replaced by `to`. */
static char *md_variant(const char *from, const char *to)
{
	const char *p = strstr(md_good_text, from);
	assert_non_null(p);
	return bt_xasprintf("%.*s%s%s", (int)(p - md_good_text), md_good_text, to,
			    p + strlen(from));
}

static void md_expect_error(const char *what, const char *text)
{
	struct bag_metadata md;
	struct bt_error err;
	memset(&err, 0, sizeof err);
	bt_status st = bag_metadata_from_yaml(text, strlen(text), &md, &err);
	if (st == BT_OK) {
		bag_metadata_fini(&md);
		fail_msg("%s: accepted", what);
	}
	assert_true(st < 0);
	if (!err.msg[0] || strchr(err.msg, '\n'))
		fail_msg("%s: error message '%s' is empty or not one line", what, err.msg);
	printf("  %-28s -> %s\n", what, err.msg);
}

static void test_errors(void **state)
{
	(void)state;
	struct bag_metadata ok;
	md_parse_ok(md_good_text, &ok); /* the base is valid */
	assert_int_equal(ok.n_files, 1);
	bag_metadata_fini(&ok);

	md_expect_error("garbage", "\x01\x02{[ ]]: :\n\t- ::: ' \"\n");
	md_expect_error("empty text", "");
	md_expect_error("root is a list", "- a\n- b\n");
	md_expect_error("root key is a list", "rosbag2_bagfile_information:\n  - 1\n");
	md_expect_error("a plain scalar", "hello\n");
	/* md_good_text with `from` replaced by `to` */
	static const struct {
		const char *what, *from, *to;
	} variants[] = {
		{"missing version", "  version: 9\n", ""},
		{"missing relative_file_paths", "  relative_file_paths:\n    - b_0.db3\n", ""},
		{"message_count -1", "  message_count: 1\n  topics", "  message_count: -1\n  topics"},
		{"topic message_count -1", "      message_count: 1\n  compression",
		 "      message_count: -1\n  compression"},
		{"huge version", "version: 9", "version: 99999999999999999999"},
		{"version text", "version: 9", "version: nine"},
		{"negative duration", "  duration:\n    nanoseconds: 10\n",
		 "  duration: {nanoseconds: -5}\n"},
		{"starting_time overflow", "nanoseconds_since_epoch: 100",
		 "nanoseconds_since_epoch: 9223372036854775808"},
		{"files entry without path", "    - path: b_0.db3\n      starting", "    - starting"},
		{"files entry negative dur", "        nanoseconds: 10\n      message_count",
		 "        nanoseconds: -1\n      message_count"},
		{"files not a sequence", "  files:\n", "  files: 3\n  x:\n"},
		{"topic without name", "        name: /a\n", ""},
		{"bad QoS policy", "offered_qos_profiles: []", "offered_qos_profiles: [{history: x}]"},
		{"custom_data a list", "custom_data: ~", "custom_data: [1]"},
	};
	for (size_t i = 0; i < sizeof variants / sizeof variants[0]; i++) {
		char *v = md_variant(variants[i].from, variants[i].to);
		md_expect_error(variants[i].what, v);
		free(v);
	}
}

/* bag_metadata_write / _read: the file on disk, atomically replaced. */
static void test_write_read_file(void **state)
{
	char *dir = *state;
	struct bag_metadata md, back;
	struct bt_error err;
	md_build_full(&md);
	assert_int_equal(bag_metadata_read(dir, &back, &err), BT_ERR_NOTFOUND);
	assert_int_equal(bag_metadata_write(dir, &md, &err), BT_OK);
	md.message_count = 53;
	assert_int_equal(bag_metadata_write(dir, &md, &err), BT_OK);
	assert_int_equal(bag_metadata_read(dir, &back, &err), BT_OK);
	md_assert_equal(&md, &back);
	char **names;
	size_t n;
	assert_int_equal(bt_fs_list_dir(dir, &names, &n, &err), BT_OK);
	assert_int_equal(n, 1); /* no temp file left */
	assert_string_equal(names[0], "metadata.yaml");
	bt_fs_free_list(names, n);
	bag_metadata_fini(&back);
	bag_metadata_fini(&md);
}

TU_MAIN(
	cmocka_unit_test(test_round_trip_full),
	cmocka_unit_test(test_def_sources),
	cmocka_unit_test(test_round_trip_empty_bag),
	cmocka_unit_test(test_v9_layout),
	cmocka_unit_test(test_parse_v4_numbers),
	cmocka_unit_test(test_qos_string_forms),
	cmocka_unit_test(test_qos_to_string),
	cmocka_unit_test(test_errors),
	TU_SCRATCH_TEST(test_write_read_file))
