/* play_svcreq — `--publish-service-requests`: a service event topic of the
 * bag ("<service>/_service_event", type "pkg/srv/X_Event") played as calls
 * of its service instead of as events, as rosbag2's player does: each
 * event of the chosen side (REQUEST_RECEIVED, the server's introspection,
 * by default; REQUEST_SENT with --service-requests-source
 * client_introspection) that carries its request has the request cut out
 * of it, re-aligned (btdds_cdr_copy, by the service's definition) behind
 * the request header of a client of that service (rmw_cyclonedds's guid
 * and sequence number) and sent on rq/<service>Request. Responses and the
 * other side's events are not sent; neither are events recorded with
 * introspection's metadata only (no request in them: warned once).
 *
 * Thread-safety: made before the player's threads; then the reader thread
 * alone calls play_svcreq_make (the sequence numbers are its). */
#ifndef PLAY_SVCREQ_H
#define PLAY_SVCREQ_H

#include <stdbool.h>
#include <stddef.h>

#include <dds/dds.h>

#include "bag_types.h"
#include "bt_status.h"
#include "btdds_raw.h"
#include "btdds_service.h"

struct play_svcreq;

/* For service `service` ("/add_two_ints", as recorded; played as
 * `played`, remapped) of type `srv_type`
 * ("example_interfaces/srv/AddTwoInts"): its definition from the bag's
 * rows `defs` (under the service's or the event's type name), else from
 * AMENT_PREFIX_PATH's interface files or bagtop's built-in set. BT_OK and
 * *out, or BT_ERR_FORMAT / BT_ERR_NOTFOUND with *err saying why (the
 * service then cannot be played as calls). */
BT_MUST_CHECK bt_status play_svcreq_new(const char *service, const char *played,
					const char *srv_type,
					const struct bag_msgdef *defs, size_t n_defs,
					bool from_clients, struct play_svcreq **out,
					struct bt_error *err);
void play_svcreq_free(struct play_svcreq *s); /* NULL is fine */

/* Creates the client's entities on pp (a request writer and a reply
 * reader, rmw's QoS and client id) of the service as played; *ends
 * filled, the writer's raw type in ends->out_type. 0 or a negative DDS
 * code. */
dds_return_t play_svcreq_create(struct play_svcreq *s, dds_entity_t pp,
				struct btdds_svc_ends *ends);
/* The client's guid, in each request's header and in its replies' (set
 * by play_svcreq_create, read-only after: any thread). */
uint64_t play_svcreq_guid(const struct play_svcreq *s);

/* The request sample for recorded event `ev` (len bytes): a sample of
 * `type` (btdds_raw_out_new; its length in *len) ready for
 * btdds_raw_out_write, or NULL when the event is not one to send (a
 * response, the other side's, metadata only) or cannot be read (said once
 * per service) or memory ran out. Reader thread. */
void *play_svcreq_make(struct play_svcreq *s, const struct btdds_raw_type *type,
		       const void *ev, size_t ev_len, size_t *len);

#endif
