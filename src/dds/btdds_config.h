/* btdds_config — the Cyclone DDS configuration rmw_cyclonedds (Jazzy)
 * builds from the ROS 2 environment: an XML fragment for the discovery
 * range and static peers, followed by CYCLONEDDS_URI, so that what the user
 * configured there wins. Pure string building.
 *
 * The fragments, as rmw_cyclonedds writes them (its check_create_domain):
 *  - SUBNET: ParticipantIndex auto, MaxAutoParticipantIndex 32, the static
 *    peers if any;
 *  - LOCALHOST: the same, multicast off, and 127.0.0.1 as a peer (rmw
 *    writes "localhost"; the address needs no name lookup);
 *  - OFF: multicast off, ParticipantIndex none and a Tag unique to the
 *    process, so nothing discovers it;
 *  - SYSTEM_DEFAULT: nothing.
 * One difference, so that "localhost only" is what it says: LOCALHOST
 * without static peers also binds Cyclone to the loopback interface
 * (<NetworkInterface address="127.0.0.1"/>), which is what Humble's
 * rmw_cyclonedds does for ROS_LOCALHOST_ONLY=1. Jazzy's fragment leaves the
 * interface alone, so Cyclone would announce the host's other addresses. */
#ifndef BTDDS_CONFIG_H
#define BTDDS_CONFIG_H

#include "btdds_env.h"

/* The fragment for *e ("" for SYSTEM_DEFAULT); `pid` names the OFF tag.
 * Caller frees. */
char *btdds_config_fragment(const struct btdds_env *e, long pid);

/* The configuration to create the domain with: the fragment, then
 * CYCLONEDDS_URI (a comma between; Cyclone skips empty parts). NULL when
 * there is nothing to add to what Cyclone reads itself (no fragment), so
 * the caller can join the domain the ordinary way. Caller frees. */
char *btdds_config_merged(const struct btdds_env *e, long pid);

#endif
