/* fuzz_metadata — the metadata.yaml parser on arbitrary bytes.
 *
 * Invariants: bag_metadata_from_yaml never crashes, leaks or hangs; a
 * failure carries a non-empty message; and whatever it accepts survives a
 * round trip: bag_metadata_to_yaml (with and without the root key, as
 * metadata.yaml and as the embedded metadata row) parses again to the same
 * fields. The version is kept (one newer than 9 becomes 9: the newest
 * layout we write), so a field the version's layout has no key for is not
 * compared; QoS policies out of rmw's range are written as "unknown" in
 * the v9 layout, so they are compared as what they mean, not as raw
 * numbers. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_compat.h"
#include "bag_metadata.h"
#include "bag_qos.h"
#include "bt_buf.h"
#include "fuzz_target.h"

static void fz_fail(const char *what, const struct bt_buf *yaml)
{
	fprintf(stderr, "fuzz_metadata: round trip broke: %s\n--- emitted YAML ---\n%.*s\n", what,
		(int)(yaml && yaml->data ? yaml->len : 0), yaml && yaml->data ? yaml->data : "");
	abort();
}

static bool fz_str_eq(const char *a, const char *b)
{
	return !strcmp(a ? a : "", b ? b : "");
}

static bool fz_time_eq(struct bag_qos_time a, struct bag_qos_time b)
{
	return a.sec == b.sec && a.nsec == b.nsec;
}

static bool fz_qos_eq(const struct bag_qos *a, const struct bag_qos *b)
{
	return !strcmp(bag_qos_history_name(a->history), bag_qos_history_name(b->history)) &&
	       a->depth == b->depth &&
	       !strcmp(bag_qos_reliability_name(a->reliability),
		       bag_qos_reliability_name(b->reliability)) &&
	       !strcmp(bag_qos_durability_name(a->durability),
		       bag_qos_durability_name(b->durability)) &&
	       fz_time_eq(a->deadline, b->deadline) && fz_time_eq(a->lifespan, b->lifespan) &&
	       !strcmp(bag_qos_liveliness_name(a->liveliness),
		       bag_qos_liveliness_name(b->liveliness)) &&
	       fz_time_eq(a->liveliness_lease_duration, b->liveliness_lease_duration) &&
	       a->avoid_ros_namespace_conventions == b->avoid_ros_namespace_conventions;
}

static const char *fz_topic_diff(const struct bag_topic_info *a, const struct bag_topic_info *b,
				 int v)
{
	if (!fz_str_eq(a->topic.name, b->topic.name) || !fz_str_eq(a->topic.type, b->topic.type))
		return "topic name or type";
	if (!fz_str_eq(a->topic.serialization_format, b->topic.serialization_format) ||
	    (v >= BAG_MDV_TYPE_HASH &&
	     !fz_str_eq(a->topic.type_description_hash, b->topic.type_description_hash)))
		return "topic serialization_format or type_description_hash";
	if (a->message_count != b->message_count)
		return "topic message_count";
	if (v < BAG_MDV_QOS)
		return NULL;
	if (a->topic.n_qos != b->topic.n_qos)
		return "number of QoS profiles";
	for (size_t i = 0; i < a->topic.n_qos; i++)
		if (!fz_qos_eq(&a->topic.qos[i], &b->topic.qos[i]))
			return "a QoS profile";
	return NULL;
}

static const char *fz_files_diff(const struct bag_metadata *a, const struct bag_metadata *b,
				 int v)
{
	if (a->n_paths != b->n_paths)
		return "number of relative_file_paths";
	for (size_t i = 0; i < a->n_paths; i++)
		if (!fz_str_eq(a->relative_file_paths[i], b->relative_file_paths[i]))
			return "a relative_file_paths entry";
	if (v < BAG_MDV_FILES)
		return NULL;
	if (a->n_files != b->n_files)
		return "number of files entries";
	for (size_t i = 0; i < a->n_files; i++) {
		const struct bag_file_info *x = &a->files[i], *y = &b->files[i];
		if (!fz_str_eq(x->path, y->path) || x->starting_time != y->starting_time ||
		    x->duration != y->duration || x->message_count != y->message_count)
			return "a files entry";
	}
	return NULL;
}

static const char *fz_diff(const struct bag_metadata *a, const struct bag_metadata *b)
{
	int v = bag_metadata_layout_version(a);
	if (b->version != v)
		return "version (must read back as written)";
	if (!fz_str_eq(a->storage_identifier, b->storage_identifier))
		return "storage_identifier";
	if (a->duration != b->duration || a->starting_time != b->starting_time ||
	    a->message_count != b->message_count)
		return "duration, starting_time or message_count";
	if ((v >= BAG_MDV_COMPRESSION &&
	     (!fz_str_eq(a->compression_format, b->compression_format) ||
	      !fz_str_eq(a->compression_mode, b->compression_mode))) ||
	    (v >= BAG_MDV_ROS_DISTRO && !fz_str_eq(a->ros_distro, b->ros_distro)))
		return "compression_format, compression_mode or ros_distro";
	if (a->n_topics != b->n_topics)
		return "number of topics";
	for (size_t i = 0; i < a->n_topics; i++) {
		const char *d = fz_topic_diff(&a->topics[i], &b->topics[i], v);
		if (d)
			return d;
	}
	if (v < BAG_MDV_CUSTOM_DATA)
		return fz_files_diff(a, b, v);
	if (a->n_custom_data != b->n_custom_data)
		return "number of custom_data entries";
	for (size_t i = 0; i < a->n_custom_data; i++)
		if (!fz_str_eq(a->custom_data[i].key, b->custom_data[i].key) ||
		    !fz_str_eq(a->custom_data[i].value, b->custom_data[i].value))
			return "a custom_data entry";
	return fz_files_diff(a, b, v);
}

static void fz_round_trip(const struct bag_metadata *md, bool with_root)
{
	struct bt_buf yaml = BT_BUF_INIT;
	struct bag_metadata again;
	struct bt_error err;
	if (bag_metadata_to_yaml(md, with_root, &yaml) != BT_OK)
		fz_fail("bag_metadata_to_yaml failed on parsed metadata", &yaml);
	if (bag_metadata_from_yaml(yaml.data, yaml.len, &again, &err) != BT_OK) {
		fprintf(stderr, "fuzz_metadata: re-parse error: %s\n", err.msg);
		fz_fail("our own output does not parse", &yaml);
	}
	const char *d = fz_diff(md, &again);
	if (d)
		fz_fail(d, &yaml);
	bag_metadata_fini(&again);
	bt_buf_fini(&yaml);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bag_metadata md;
	struct bt_error err;
	memset(&err, 0, sizeof err);
	if (size > BAG_METADATA_MAX_BYTES) /* bag_metadata_read refuses those */
		return 0;
	bt_status st = bag_metadata_from_yaml((const char *)data, size, &md, &err);
	if (st != BT_OK) {
		if (st > 0 || !err.msg[0]) {
			fprintf(stderr, "fuzz_metadata: failure %d without a message\n", (int)st);
			abort();
		}
		return 0;
	}
	fz_round_trip(&md, true);
	fz_round_trip(&md, false);
	bag_metadata_fini(&md);
	return 0;
}
