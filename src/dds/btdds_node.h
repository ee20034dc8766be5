/* btdds_node — a ROS 2 node on a plain Cyclone DDS participant, the way
 * rmw_cyclonedds makes one visible to `ros2 node list` and `ros2 node
 * info`: its namespace and name, and the readers and writers it owns, in
 * the participant's sample on the topic ros_discovery_info
 * (rmw_dds_common/msg/ParticipantEntitiesInfo, see btdds_graph.h; facts in
 * ../shared/docs/ROS2_SERVICES_OVER_DDS.md §3). The sample is written again
 * on every change (reliable, transient-local, keep-last 1, as rmw's), so a
 * late joiner gets the current one at once; deleting the node writes the
 * participant without it.
 *
 * A node's gid of an entity is its DDS GUID (16 bytes), zero-padded to the
 * Gid size of the distro the node speaks for: 24 bytes for Humble, 16 from
 * Iron on (the two layouts do not decode as each other).
 *
 * Only what a node registers is listed: a program that registers none of
 * its readers (the recorder's capture readers) does not look like a
 * subscriber of their topics to tools that read the graph.
 *
 * Threads: every call but free from any thread, concurrently. A change
 * made while another thread is writing the sample is written by that
 * thread right after (no lock is held across DDS calls), so the last
 * sample written is always the current state. Free: once nothing else
 * uses the node; it does not delete the entities it lists. */
#ifndef BTDDS_NODE_H
#define BTDDS_NODE_H

#include <stdbool.h>
#include <stddef.h>

#include <dds/dds.h>

#include "bt_status.h"

#define BTDDS_GID_SIZE_HUMBLE 24 /* rmw_dds_common Gid.msg, Humble */
#define BTDDS_GID_SIZE_IRON 16   /* Iron and newer */
#define BTDDS_NODE_ENTITIES_MAX 256 /* readers and writers a node lists */

struct btdds_node;

/* Creates node `ns`/`name` ("/" and "rosbag2_recorder") on participant
 * `pp` with the writer of ros_discovery_info, gids of `gid_size` bytes
 * (BTDDS_GID_SIZE_HUMBLE or _IRON), and writes its first sample (no
 * entities yet). BT_ERR_USAGE: a bad name, namespace or gid size; BT_ERR_DDS:
 * the topic or writer cannot be created (*err says which). */
BT_MUST_CHECK bt_status btdds_node_new(dds_entity_t pp, const char *ns, const char *name,
				       size_t gid_size, struct btdds_node **out,
				       struct bt_error *err);

/* Lists reader or writer `e` (which one, the node asks DDS) as the node's
 * and writes the sample. BT_ERR_USAGE: `e` is neither, or already listed;
 * BT_ERR_FULL: BTDDS_NODE_ENTITIES_MAX listed; BT_ERR_DDS: its GUID cannot
 * be read. The node is unchanged on error. */
BT_MUST_CHECK bt_status btdds_node_add_entity(struct btdds_node *n, dds_entity_t e,
					      struct bt_error *err);
/* Stops listing `e` (before deleting it) and writes the sample; an entity
 * not listed is ignored. */
void btdds_node_remove_entity(struct btdds_node *n, dds_entity_t e);

/* "/ns/name" ("/name" in the root namespace), as rclcpp's
 * get_fully_qualified_name says it. Valid until free. */
const char *btdds_node_fqn(const struct btdds_node *n);

/* Writes the participant's sample without the node, deletes the writer
 * and frees. NULL is fine. */
void btdds_node_free(struct btdds_node *n);

/* Whether `name` is a valid ROS 2 node name: letters, digits and '_', not
 * starting with a digit, at most 255 bytes (rmw_validate_node_name). */
bool btdds_node_name_valid(const char *name);

#endif
