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
 * rmw_cyclonedds does for ROS_LOCALHOST_ONLY=1 (Jazzy's fragment leaves the
 * interface alone, so Cyclone would still announce and answer on the
 * host's other addresses) -- unless CYCLONEDDS_URI selects interfaces
 * itself: Cyclone appends interface lists across configuration parts and
 * refuses one interface selected twice ("the same interface may not be
 * selected twice", which is how Humble nodes fail there), and the user's
 * choice wins as everywhere else. */
#ifndef BTDDS_CONFIG_H
#define BTDDS_CONFIG_H

#include "btdds_env.h"

/* True when the configuration CYCLONEDDS_URI names (a comma-separated list
 * of XML text, file://PATH or PATH) selects network interfaces: it mentions
 * NetworkInterface. Reads the files named (the first 1 MiB of each; one
 * that cannot be read counts as selecting none: Cyclone will say why). */
bool btdds_uri_selects_interfaces(const char *uri);

/* The fragment for *e ("" for SYSTEM_DEFAULT); `pid` names the OFF tag;
 * `uri_interfaces`: btdds_uri_selects_interfaces(e->uri). Caller frees. */
char *btdds_config_fragment(const struct btdds_env *e, long pid, bool uri_interfaces);

/* The configuration to create the domain with: the fragment, then
 * CYCLONEDDS_URI (a comma between; Cyclone skips empty parts). NULL when
 * there is nothing to add to what Cyclone reads itself (no fragment), so
 * the caller can join the domain the ordinary way. Caller frees. */
char *btdds_config_merged(const struct btdds_env *e, long pid);

#endif
