/* bag_metadata — rosbag2's BagMetadata as YAML: metadata.yaml (root key
 * `rosbag2_bagfile_information`) and the embedded `metadata` table rows
 * (same mapping without the root key). Written in the version 9 layout with
 * rosbag2's field order; read for versions 1 to 9 (and later versions'
 * known keys), parsed with libyaml. */
#ifndef BAG_METADATA_H
#define BAG_METADATA_H

#include <stdbool.h>

#include "bag_types.h"
#include "bt_buf.h"
#include "bt_status.h"

#define BAG_METADATA_FILE "metadata.yaml"
/* Larger metadata.yaml files are refused as absurd. */
#define BAG_METADATA_MAX_BYTES (64u * 1024u * 1024u)

/* Appends the YAML of `md` (always version 9 layout) to `out`. */
BT_MUST_CHECK bt_status bag_metadata_to_yaml(const struct bag_metadata *md, bool with_root,
					     struct bt_buf *out);
/* Parses YAML text with or without the root key into *md (initialised here;
 * on error *md is left empty and needs no fini). Unknown keys are ignored. */
BT_MUST_CHECK bt_status bag_metadata_from_yaml(const char *text, size_t len,
					       struct bag_metadata *md, struct bt_error *err);
/* Writes <bag_dir>/metadata.yaml atomically (temp, fsync, rename). */
BT_MUST_CHECK bt_status bag_metadata_write(const char *bag_dir, const struct bag_metadata *md,
					   struct bt_error *err);
/* Reads <bag_dir>/metadata.yaml; BT_ERR_NOTFOUND if absent. */
BT_MUST_CHECK bt_status bag_metadata_read(const char *bag_dir, struct bag_metadata *md,
					  struct bt_error *err);

#endif
