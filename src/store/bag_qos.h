/* bag_qos — offered QoS profiles as rosbag2 stores them: a YAML sequence of
 * profiles with policies as names (metadata v9, Jazzy topics table) or as
 * rmw numbers (older bags). Reading accepts both. */
#ifndef BAG_QOS_H
#define BAG_QOS_H

#include <stddef.h>

#include "bag_types.h"
#include "bt_buf.h"
#include "bt_status.h"

/* Policy names as rmw's qos_string_conversions ("keep_last", "reliable"...);
 * out-of-range values give "unknown". */
const char *bag_qos_history_name(int v);
const char *bag_qos_reliability_name(int v);
const char *bag_qos_durability_name(int v);
const char *bag_qos_liveliness_name(int v);

/* The string form (topics table; metadata.yaml before v9): YAML text of
 * the profile sequence as yaml-cpp's Dump writes it, policies as names for
 * metadata `version` 9 and later (Jazzy), as rmw numbers before (Humble,
 * Iron); no trailing newline; "" for an empty list, as rosbag2. Appends to
 * `out`. */
BT_MUST_CHECK bt_status bag_qos_to_string(const struct bag_qos *q, size_t n, int version,
					  struct bt_buf *out);
/* Parses the topics-table / v4..v8 string form (names or numbers, "" = no
 * profiles). *out is malloc'ed (NULL when n is 0). */
BT_MUST_CHECK bt_status bag_qos_from_string(const char *s, struct bag_qos **out, size_t *n,
					    struct bt_error *err);

#endif
