/* btdds_qos — QoS between rosbag2's terms (bag_qos, what a bag stores) and
 * Cyclone's dds_qos_t: what a publisher offers, read into a bag profile
 * (the recorder), and a bag profile turned into a writer's QoS (the
 * player). Times: RMW_DURATION_INFINITE <-> DDS_INFINITY. */
#ifndef BTDDS_QOS_H
#define BTDDS_QOS_H

#include <stdbool.h>

#include <dds/dds.h>

#include "bag_types.h"
#include "bt_status.h"

/* A DDS duration as a bag time (negative or DDS_INFINITY: infinite). */
struct bag_qos_time btdds_qos_time(dds_duration_t d);
/* A bag time as a DDS duration (too large for ns: DDS_INFINITY). */
dds_duration_t btdds_qos_duration(struct bag_qos_time t);
/* What a DCPSPublication's QoS offers, in rosbag2's terms (policies the
 * QoS does not carry: DDS defaults). */
void btdds_qos_from_dds(const dds_qos_t *q, struct bag_qos *b);
/* Sets the policies of profile `b` on a writer's QoS `q` as
 * rmw_cyclonedds does: history and depth (KEEP_LAST depth 0 or SYSTEM
 * DEFAULT: depth 10, rmw's default), reliability, durability, deadline,
 * lifespan, liveliness and its lease. "system default" / "unknown" /
 * "best available" policies, and times of {0, 0} (rmw's "unspecified"),
 * keep what `q` has. */
void btdds_qos_to_dds(const struct bag_qos *b, dds_qos_t *q);
/* Creates on `pp` the topic ros_discovery_info (*topic) and a writer, or
 * a reader when `writer` is false, (*ep) with the QoS rmw_dds_common uses
 * for it: reliable, transient-local, keep last `depth`. BT_ERR_DDS (*err
 * says which failed) when either fails; the caller deletes what was made
 * (> 0) in either case. */
BT_MUST_CHECK bt_status btdds_qos_graph_endpoint(dds_entity_t pp, int32_t depth, bool writer,
						 dds_entity_t *topic, dds_entity_t *ep,
						 struct bt_error *err);
/* True when two profiles are the same in every policy. */
bool btdds_qos_equal(const struct bag_qos *a, const struct bag_qos *b);

#endif
