/* bag_metadata — rosbag2's BagMetadata as YAML: metadata.yaml (root key
 * `rosbag2_bagfile_information`) and the embedded `metadata` table rows
 * (same mapping without the root key). Written in the layout of md->version
 * (bagtop writes 5 for Humble, 7 for Iron, 9 for Jazzy: bag_compat.h) with
 * rosbag2's field order, each key only from the version that introduced
 * it, QoS as a string with numbers before 9; read for versions 1 to 9 (and
 * later versions' known keys), parsed with libyaml.
 *
 * bagtop's recording statistics (struct bag_stats) are additional keys,
 * written only when set (has_stats) and always after every rosbag2 key of
 * their mapping, so rosbag2 and other readers, which look keys up by name,
 * ignore them (in every layout: Humble's and Iron's decoders look keys up
 * by name just as Jazzy's):
 *
 *   topics_with_message_count:
 *     - topic_metadata: {...}
 *       message_count: 14
 *       statistics:
 *         messages_recorded: 14
 *         lost_in_transport: 3      # both loss keys absent = not known
 *         lost_in_recorder: 1
 *         bytes_written: 2651
 *         average_rate_hz: 5.577689 # messages / bag duration (s)
 *         lost_by_cause: {lost_transport: 2, rejected: 1, lost_cache: 0,
 *                         lost_toobig: 1, lost_compression: 0, lost_write: 0}
 *   files:
 *     - path: bag_0.db3
 *       ...rosbag2's keys...
 *       topics_statistics:         # topics with nothing to show left out
 *         - topic: /a
 *           messages_recorded: 10
 *           lost_in_transport: 3
 *           lost_in_recorder: 0
 *           bytes_written: 1045
 *           average_rate_hz: 11.111111  # messages / file duration (s)
 *
 * (written in block style; lost_by_cause is a nested block mapping). */
#ifndef BAG_METADATA_H
#define BAG_METADATA_H

#include <stdbool.h>

#include "bag_types.h"
#include "bt_buf.h"
#include "bt_status.h"

#define BAG_METADATA_FILE "metadata.yaml"
/* Larger metadata.yaml files are refused as absurd. */
#define BAG_METADATA_MAX_BYTES (64u * 1024u * 1024u)

/* The version md is written as: md->version, or 9 (the newest layout bagtop
 * knows) when md->version is newer or not set. */
int bag_metadata_layout_version(const struct bag_metadata *md);
/* Appends the YAML of `md`, in its version's layout, to `out`. */
BT_MUST_CHECK bt_status bag_metadata_to_yaml(const struct bag_metadata *md, bool with_root,
					     struct bt_buf *out);
/* Parses YAML text with or without the root key into *md (initialised here;
 * on error *md is left empty and needs no fini). Unknown keys are ignored;
 * statistics that cannot be read are left out (has_stats false), never an
 * error: rosbag2 reads such a bag. */
BT_MUST_CHECK bt_status bag_metadata_from_yaml(const char *text, size_t len,
					       struct bag_metadata *md, struct bt_error *err);
/* Writes <bag_dir>/metadata.yaml atomically (temp, fsync, rename). */
BT_MUST_CHECK bt_status bag_metadata_write(const char *bag_dir, const struct bag_metadata *md,
					   struct bt_error *err);
/* Looks for a key that appears twice in one mapping of
 * <bag_dir>/metadata.yaml (invalid YAML: rosbag2 refuses the file, while
 * bag_metadata_read takes the first): *key is the first such key
 * (malloc'ed) and *line its second occurrence's line, or *key is NULL. */
BT_MUST_CHECK bt_status bag_metadata_duplicate_key(const char *bag_dir, char **key, size_t *line,
						   struct bt_error *err);
/* Reads <bag_dir>/metadata.yaml; BT_ERR_NOTFOUND if absent. */
BT_MUST_CHECK bt_status bag_metadata_read(const char *bag_dir, struct bag_metadata *md,
					  struct bt_error *err);

#endif
