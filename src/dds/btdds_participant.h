/* btdds_participant — joining a DDS domain the way a ROS 2 node with
 * rmw_cyclonedds does: the domain created with the configuration
 * btdds_config_merged gives (the ROS environment's fragment, then
 * CYCLONEDDS_URI), then a participant in it. */
#ifndef BTDDS_PARTICIPANT_H
#define BTDDS_PARTICIPANT_H

#include <stdbool.h>
#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "btdds_env.h"

#define BTDDS_DOMAIN_DEFAULT UINT32_MAX /* ROS_DOMAIN_ID's default: 0 (Cyclone's when
					 * the environment adds nothing) */

/* Creates a participant on `domain_id` (BTDDS_DOMAIN_DEFAULT: 0, or
 * Cyclone's default domain when `env` adds no configuration). `env` NULL:
 * Cyclone's own configuration only (CYCLONEDDS_URI, as before). When this
 * process already has that domain, the participant joins it as it is.
 * Returns BT_OK and *pp, or BT_ERR_DDS with the reason in *err. */
BT_MUST_CHECK bt_status btdds_participant_create(uint32_t domain_id, const struct btdds_env *env,
						 dds_entity_t *pp, struct bt_error *err);
/* The same, the domain created with Cyclone XML `own` (NULL: none) before
 * the environment's configuration, which wins where both set something
 * (the player's heartbeat interval, play_player.c). When this process
 * already has the domain, `own` is not applied. */
BT_MUST_CHECK bt_status btdds_participant_create_with(uint32_t domain_id,
						      const struct btdds_env *env, const char *own,
						      dds_entity_t *pp, struct bt_error *err);

#define BTDDS_WHERE_MAX 128 /* "host pid 1234", NUL included */

/* Where discovered participant `key` runs, as Cyclone DDS announces it
 * (its __Hostname and __Pid properties): "host pid 1234" in `out`, or ""
 * when pp has not discovered it or it does not say (another vendor). So
 * that a user tells apart nodes of the same name. Control characters in
 * what it announces become '?'. */
void btdds_participant_where(dds_entity_t pp, const dds_guid_t *key,
			     char out[BTDDS_WHERE_MAX]);
/* The GUID of the participant that endpoint `ep` belongs to (its first 12
 * bytes, then the participant's entity id, RTPS's 0x000001c1). */
dds_guid_t btdds_participant_of(const dds_guid_t *ep);

/* One sample of a built-in publication or subscription reader: `ep` when
 * the endpoint is alive, NULL when it has gone. Returns false to stop
 * taking. */
typedef bool (*btdds_endpoint_fn)(void *arg, dds_instance_handle_t ih,
				  const dds_builtintopic_endpoint_t *ep);
/* Takes what built-in endpoint reader `rd` (DCPSPublication or
 * DCPSSubscription) holds, in batches, at most `max_rounds` of them (0:
 * until it is empty), and calls fn for each sample, until fn says stop.
 * Samples of an alive endpoint without data are skipped. */
void btdds_endpoints_take(dds_entity_t rd, unsigned max_rounds, btdds_endpoint_fn fn, void *arg);

/* Deletes the participant and, when it was the last one, the domain
 * btdds_participant_create made for it. 0 is fine. Returns the first DDS
 * error, or 0. */
dds_return_t btdds_participant_delete(dds_entity_t pp);

#endif
