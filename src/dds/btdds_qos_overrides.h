/* btdds_qos_overrides — rosbag2's --qos-profile-overrides-path YAML file:
 * a QoS profile (bag_qos) per topic, named by its ROS name or its DDS name.
 * Record applies it to its readers (rec_qos_adapt), play to its writers.
 * Pure: no DDS entities; immutable after load (any thread may find). */
#ifndef BTDDS_QOS_OVERRIDES_H
#define BTDDS_QOS_OVERRIDES_H

#include "bag_types.h"
#include "bt_status.h"

struct btdds_qos_overrides;

/* Loads rosbag2's override file: a map from topic name to a QoS profile
 * (history, depth, reliability, durability, deadline, lifespan,
 * liveliness, liveliness_lease_duration, avoid_ros_namespace_conventions;
 * times as {sec, nsec}). BT_ERR_USAGE/BT_ERR_FORMAT with a one-line reason
 * naming the file, line and key on bad input; BT_ERR_NOTFOUND/IO when
 * unreadable. */
BT_MUST_CHECK bt_status btdds_qos_overrides_load(const char *path,
						 struct btdds_qos_overrides **out,
						 struct bt_error *err);
void btdds_qos_overrides_free(struct btdds_qos_overrides *o);
/* The override for a topic (ROS name or DDS name), or NULL. */
const struct bag_qos *btdds_qos_overrides_find(const struct btdds_qos_overrides *o,
					       const char *dds_name, const char *ros_name);

#endif
