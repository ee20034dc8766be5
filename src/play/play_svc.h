/* play_svc — the player's rosbag2 services over DDS, as `ros2 bag play`
 * serves them on rmw_cyclonedds: /<node>/pause, resume, toggle_paused,
 * is_paused, get_rate, set_rate, play_next, burst, seek, and (not in
 * Humble) play, stop, on the player's participant; and the player as a
 * ROS 2 node (btdds_node) listing those services' readers and writers, so
 * `ros2 node list` shows it and `bagtop call --list` finds it as a player.
 * The wire (checks, bounds, reply gating) is btdds_svc_server's; the
 * services' table btdds_rosbag2's.
 *
 * Each request is the matching control of play.h, the same the keys use,
 * called on the server thread (no control blocks): pause, resume,
 * toggle_paused; is_paused and get_rate answer the state; set_rate
 * answers success false for a rate out of range; play_next success false
 * when not paused or at the end; burst answers when it is over, with the
 * count published (0 when refused: not paused, another burst); seek
 * clamps the time into the window played, as rosbag2 clamps it to the
 * start; play goes back to the window's start (plus the request's
 * start_offset; its duration and until-time are not applied) and plays;
 * stop answers, then stops the player. Requests for a player that has
 * ended are answered as refused (success false) or, for the empty
 * responses, answered all the same. Each request and its result is said
 * through bt_log (info; a refusal a warning): the live view's event log,
 * stderr without it.
 *
 * Lifetime: started once the player's threads run, stopped after they
 * were joined (so no burst can end after) and before the participant is
 * deleted (play_join). */
#ifndef PLAY_SVC_H
#define PLAY_SVC_H

#include <stdbool.h>
#include <stddef.h>

#include <dds/dds.h>

#include "bt_status.h"

struct play;

struct play_svc_options {
	struct play *play;     /* borrowed; outlives play_svc_stop */
	dds_entity_t pp;       /* the player's participant */
	const char *node_name; /* "rosbag2_player" (btdds_node_name_valid) */
	bool humble;           /* Humble's services and graph layout */
};

struct play_svc;

/* Creates the node and the services and starts the server thread.
 * BT_ERR_USAGE for a bad node name, BT_ERR_DDS when DDS refuses the
 * services (*err says why); a node that cannot be made is a warning (the
 * services answer all the same). */
BT_MUST_CHECK bt_status play_svc_start(const struct play_svc_options *o, struct play_svc **out,
				       struct bt_error *err);
/* Stops serving (joins the server thread; a reply not yet written is
 * written if its client is there), says the request counts, deletes the
 * node and the entities, frees. NULL is fine. Owner thread. */
void play_svc_stop(struct play_svc *sv);

#endif
