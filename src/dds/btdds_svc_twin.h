/* btdds_svc_twin — whether another process serves a service this one
 * serves. ROS 2 lets two nodes share a name (two recorders both left at
 * rosbag2_recorder); a call then reaches both servers, both act on it, and
 * `ros2 service call` shows one answer. A server's reply writer,
 * "rr/NODE/SERVICEReply" in rmw_cyclonedds's naming
 * (../shared/docs/ROS2_SERVICES_OVER_DDS.md), is a publication every
 * participant discovers, so a DCPSPublication reader on the server's own
 * participant finds the other one's.
 *
 * Owned by the service server (btdds_svc_server.c): made with its
 * entities, its read condition attached to the server's waitset, polled
 * and freed on the server thread. It says so once (a bt_log warning that
 * names the other process and the service) and then stops looking. */
#ifndef BTDDS_SVC_TWIN_H
#define BTDDS_SVC_TWIN_H

#include <stddef.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "btdds_svc_server.h"

struct btdds_svc_twin;

/* Watches for other servers of `services` (their names, "/node/snapshot",
 * copied) from participant `pp`, waking `waitset`. `hint` (copied; NULL:
 * none) ends the warning ("give each its own --node-name"). BT_ERR_DDS
 * (*err says why) when the reader cannot be made; nothing is left then. */
BT_MUST_CHECK bt_status btdds_svc_twin_new(dds_entity_t pp, dds_entity_t waitset,
					   const struct btdds_svc_def *services, size_t n,
					   const char *hint, struct btdds_svc_twin **out,
					   struct bt_error *err);
/* Takes the publications discovered since the last poll; warns at the
 * first of another participant on one of the reply topics. Bounded work;
 * nothing once it has warned, nor for NULL. The owner's thread. */
void btdds_svc_twin_poll(struct btdds_svc_twin *t);
/* Detaches from the waitset and deletes the reader. NULL is fine. */
void btdds_svc_twin_free(struct btdds_svc_twin *t);

#endif
