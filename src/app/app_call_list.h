/* app_call_list — `bagtop call --list`: the rosbag2 recorders and players
 * on a domain (btdds_graph_list.h says how they are found), one line each:
 * node name, kind (recorder, player, or recorder+player), the rosbag2
 * services it serves ("-" when none). */
#ifndef APP_CALL_LIST_H
#define APP_CALL_LIST_H

#include <stdint.h>

#include "app_opts.h"
#include "btdds_env.h"

/* Joins `domain` (UINT32_MAX: ROS_DOMAIN_ID's default) with `env`, watches
 * discovery for `wait_ns` and prints the list on stdout. Returns the exit
 * status: 0 when it found any; 1 with one line when none (or a DDS call
 * failed after joining); 3 when the domain cannot be joined. */
int app_call_list(const struct app_cmd *cmd, uint32_t domain, const struct btdds_env *env,
		  int64_t wait_ns);

#endif
