/* btdds_graph — the ROS 2 node graph as rmw_cyclonedds publishes it on
 * ros_discovery_info (rmw_dds_common/msg/ParticipantEntitiesInfo, Iron and
 * newer: 16-byte gids): which node owns a writer. Decoded strictly
 * (btdds_cdr). Pure.
 *   ParticipantEntitiesInfo { Gid gid; NodeEntitiesInfo[] node_entities_info_seq }
 *   NodeEntitiesInfo { string<=256 node_namespace; string<=256 node_name;
 *                      Gid[] reader_gid_seq; Gid[] writer_gid_seq }
 *   Gid { char data[16] } (Humble's has 24 bytes: its samples do not decode) */
#ifndef BTDDS_GRAPH_H
#define BTDDS_GRAPH_H

#include <stddef.h>

#include "bt_status.h"

#define BTDDS_GRAPH_TOPIC "ros_discovery_info"
#define BTDDS_GRAPH_TYPE "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"
#define BTDDS_GID_SIZE 16
#define BTDDS_NODE_NAME_MAX 256
#define BTDDS_NODE_FQN_MAX (2 * BTDDS_NODE_NAME_MAX + 2)

/* The participant gid a sample (`n` bytes, encapsulation header included)
 * describes; BT_ERR_FORMAT when it is too short or not plain CDR. */
BT_MUST_CHECK bt_status btdds_graph_participant(const void *data, size_t n,
						unsigned char gid[BTDDS_GID_SIZE]);

/* Looks for writer `gid` in the sample: BT_OK and the node's fully
 * qualified name in `fqn` ("/ns/name", or "/name" in the root namespace);
 * BT_ERR_NOTFOUND when no node of the sample lists it; BT_ERR_FORMAT (*err
 * says why) for a malformed sample. */
BT_MUST_CHECK bt_status btdds_graph_writer_node(const void *data, size_t n,
						const unsigned char gid[BTDDS_GID_SIZE],
						char fqn[BTDDS_NODE_FQN_MAX], struct bt_error *err);

/* One node of a sample: its fully qualified name and the gids of its
 * writers (n_writers * gid_size bytes, pointing into the sample). */
typedef void (*btdds_graph_node_fn)(void *arg, const char *fqn, const unsigned char *writers,
				    size_t n_writers, size_t gid_size);

/* Calls fn for every node of the sample, in either layout: Iron's (16-byte
 * gids) or Humble's (24), whichever decodes the whole sample (the two never
 * both do: the sample must end within its padding). *gid_size (may be
 * NULL) says which. BT_ERR_FORMAT (*err says why) when neither does; fn is
 * called only for a sample that decodes. */
BT_MUST_CHECK bt_status btdds_graph_nodes(const void *data, size_t n, btdds_graph_node_fn fn,
					  void *arg, size_t *gid_size, struct bt_error *err);

#endif
