/* demo_traffic — synthetic ROS 2 traffic for `bagtop demo`: real CDR
 * payloads (XCDR1, little endian, padded to 4 as rmw_cyclonedds does) of
 * std_msgs/String, sensor_msgs/Imu, sensor_msgs/Image and
 * tf2_msgs/TFMessage, with their ros2msg definitions, so the bag opens and
 * decodes in rosbag2 and Foxglove. */
#ifndef DEMO_TRAFFIC_H
#define DEMO_TRAFFIC_H

#include <stddef.h>
#include <stdint.h>

#include "bag_types.h"
#include "bt_buf.h"
#include "bt_status.h"

enum demo_topic { DEMO_TF_STATIC, DEMO_CHATTER, DEMO_IMU, DEMO_IMAGE, DEMO_N_TOPICS };

/* Topic metadata and definition of one demo topic (static storage). */
void demo_topic_describe(enum demo_topic t, struct bag_topic *topic, struct bag_qos *qos,
			 struct bag_msgdef *def);
/* Serialises message number `seq` of topic `t`, stamped `stamp_ns`, into
 * `out` (replacing its content). */
BT_MUST_CHECK bt_status demo_message(enum demo_topic t, uint32_t seq, int64_t stamp_ns,
				     struct bt_buf *out);

#endif
