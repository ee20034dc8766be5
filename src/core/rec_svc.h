/* rec_svc — the recorder's rosbag2 services over DDS, as `ros2 bag record`
 * serves them on rmw_cyclonedds: /<node>/snapshot, /<node>/split_bagfile,
 * /<node>/pause, /<node>/resume, /<node>/is_paused, and bagtop's own
 * /<node>/snapshot_with_parameters (btdds_rb2_snapshot_params; Humble:
 * snapshot only), on the recorder's participant (the domain being
 * recorded). Unlike
 * rosbag2, ~/snapshot is served outside snapshot mode too, answering
 * success false.
 *
 * Every request becomes a command on the recorder's one command queue
 * (rec_cmd.h, origin BT_CMD_FROM_SERVICE, the service and the client's id
 * as detail); the reply is sent when its result comes: Snapshot's success
 * is true only once the snapshot's file was written; IsPaused answers the
 * queue's value; Pause, Resume and SplitBagfile are answered when done;
 * SnapshotWithParameters as Snapshot, with the result's line as message,
 * and at once with success false and why when its parameters fail the
 * checks of `bagtop snapshot --pid` (rec_cmd_snap_*_valid). A
 * command refused or failed leaves a request without a success field
 * unanswered (the caller times out; rosbag2's types have no way to say
 * no), counted by the server (btdds_svc_server.h: the server thread,
 * bounds, counts, reply gating).
 *
 * Lifetime: a result may come after rec_svc_stop (a command still queued
 * is refused when the queue is freed): results reach the server through a
 * small shared link, reference-counted, that rec_svc_stop cuts. Lock order:
 * the link's mutex, then the server's. */
#ifndef REC_SVC_H
#define REC_SVC_H

#include <stdbool.h>

#include <dds/dds.h>

#include "bt_cmdq.h"
#include "bt_status.h"

struct rec_svc_options {
	dds_entity_t pp;
	struct bt_cmdq *cmdq;  /* borrowed; outlives rec_svc_stop */
	const char *node_name; /* "rosbag2_recorder" (btdds_node_name_valid) */
	bool humble;           /* only what Humble's recorder serves */
	/* Called with each of the services' readers and writers once they
	 * exist (add true) and before they are deleted (add false), on the
	 * owner thread: a ROS 2 node lists them as its own in the graph so
	 * that `ros2 node info` shows the services. NULL: none. */
	void (*on_entity)(void *ctx, dds_entity_t e, bool add);
	void *on_entity_ctx;
};

struct rec_svc;

/* Creates the services and the server thread. BT_ERR_USAGE for a bad node
 * name, BT_ERR_DDS (*err says why) when DDS refuses. */
BT_MUST_CHECK bt_status rec_svc_start(const struct rec_svc_options *o, struct rec_svc **out,
				      struct bt_error *err);
/* Stops serving (joins the server thread, deletes the entities), says the
 * request counts (a warning when any was not answered, else info), frees.
 * NULL is fine. Owner thread. */
void rec_svc_stop(struct rec_svc *sv);

#endif
