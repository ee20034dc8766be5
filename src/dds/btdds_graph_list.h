/* btdds_graph_list — which rosbag2 recorders and players a DDS domain has
 * (`bagtop call --list`), from what any participant announces:
 *   - the readers of rosbag2's service requests, "rq/<node>/<service>Request"
 *     of a rosbag2_interfaces::srv type: the node and the services it
 *     serves (rmw_cyclonedds's naming, ../shared/docs/ROS2_SERVICES_OVER_DDS.md);
 *   - the writers of "rt/events/write_split" (every rosbag2 recorder, also
 *     one without services, as Humble's outside snapshot mode) and
 *     "rt/events/read_split" (players from Jazzy on), whose node the
 *     ros_discovery_info samples name (either Gid layout).
 * A recorder serves snapshot, split_bagfile or record, or writes
 * write_split; a player serves play, play_next, burst, seek, set_rate,
 * get_rate or toggle_paused, or writes read_split.
 *
 * One thread; blocks for the whole wait. */
#ifndef BTDDS_GRAPH_LIST_H
#define BTDDS_GRAPH_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "btdds_graph.h"
#include "btdds_participant.h"

#define BTDDS_GRAPH_SERVICES_MAX 512 /* "a,b,c" of one node's services */

/* One node: nodes of the same name in different participants (processes)
 * are entries of their own, since a call reaches each of them. */
struct btdds_graph_entry {
	char fqn[BTDDS_NODE_FQN_MAX];
	dds_guid_t participant;
	char where[BTDDS_WHERE_MAX]; /* btdds_participant_where's "host pid N", or "" */
	bool recorder, player;
	char services[BTDDS_GRAPH_SERVICES_MAX]; /* sorted, comma-separated; "" none */
};

/* Watches discovery on participant `pp` for `wait_ns`, then lists the
 * nodes that are recorders or players: *out (malloc'ed, sorted by name,
 * then by where they run; free() it) and *n. BT_ERR_DDS (*err says why)
 * when a reader cannot be made. */
BT_MUST_CHECK bt_status btdds_graph_list(dds_entity_t pp, int64_t wait_ns,
					 struct btdds_graph_entry **out, size_t *n,
					 struct bt_error *err);

#endif
