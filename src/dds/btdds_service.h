/* btdds_service — ROS 2 services over plain Cyclone DDS, byte-compatible
 * with rmw_cyclonedds (see ../shared/docs/ROS2_SERVICES_OVER_DDS.md): the
 * names (rq/<service>Request, rr/<service>Reply, pkg::srv::dds_::X_Request_),
 * the request header (guid, seq) in front of the body, the client/service
 * ids in USER_DATA, and a client over raw topics (btdds_raw).
 *
 * The encoding half (names, ids, header) is pure, so that a server (the
 * recorder's own rosbag2 services, later) uses the same code: it reads the
 * header with btdds_svc_get_header and echoes it with btdds_svc_put_header.
 *
 * A client is used by one thread at a time; a call blocks that thread (up
 * to its timeout, polling `stop`), so callers keep it off the data path. */
#ifndef BTDDS_SERVICE_H
#define BTDDS_SERVICE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "btdds_cdr.h"
#include "btdds_raw.h"

#define BTDDS_SVC_ID_MAX 64 /* "xx.x.x..." of 16 bytes, NUL included */

/* "rq/ns/node/nameRequest" (request) or "rr/ns/node/nameReply" for service
 * "/ns/node/name". Caller frees. */
char *btdds_svc_topic(const char *service, bool request);
/* "pkg::srv::dds_::X_Request_" / "..._Response_" for "pkg/srv/X"; NULL when
 * `type` is not of that form. Caller frees. */
char *btdds_svc_type(const char *type, bool request);
/* rmw_cyclonedds's client/service id: the first 12 bytes of the
 * participant's GUID, then `counter` big-endian, as hex bytes joined by
 * '.', the first printed "%2x" (so it may start with a space). */
void btdds_svc_id(const dds_guid_t *participant, uint32_t counter,
		  char out[BTDDS_SVC_ID_MAX]);

/* rmw's service QoS (reliable, volatile, keep-last 10, automatic
 * liveliness, no autodispose) with USER_DATA "<key>=<id>;" (key
 * "clientid" or "serviceid"). Caller deletes it. */
dds_qos_t *btdds_svc_qos(const char *key, const char *id);
/* A new process-wide unique id of participant pp (btdds_svc_id with the
 * next counter, as rmw's get_unique_csid). Returns dds_get_guid's code. */
dds_return_t btdds_svc_new_id(dds_entity_t pp, char out[BTDDS_SVC_ID_MAX]);

/* What a client and a server of a service both make: its request and reply
 * topics, a writer of one and a reader of the other, and a read condition
 * on the reader. */
struct btdds_svc_ends {
	dds_entity_t rq_topic, rr_topic, writer, reader, cond;
	/* the type of what `writer` writes, for btdds_raw_out_new; the topic's */
	const struct btdds_raw_type *out_type;
};

/* Makes on pp the entities of a client of `service` (type `type`), or of
 * its server when `server`: the topics (raw, keyless), a writer of
 * requests and a reader of replies (a server's: the other way round) with
 * rmw's QoS and a new id (USER_DATA "clientid=" or "serviceid="), and the
 * read condition. 0, or the first negative DDS code
 * (DDS_RETCODE_BAD_PARAMETER for a bad type name); what was made before an
 * error is set (> 0), for btdds_svc_ends_delete. */
dds_return_t btdds_svc_ends_create(dds_entity_t pp, const char *service, const char *type,
				   bool server, struct btdds_svc_ends *e);
/* Deletes what btdds_svc_ends_create made (> 0). */
void btdds_svc_ends_delete(const struct btdds_svc_ends *e);

/* The request header every request and reply starts with. */
void btdds_svc_put_header(struct btdds_cdr_wr *w, uint64_t guid, int64_t seq);
/* Reads it; false (and the reader failed) when the sample is too short. */
bool btdds_svc_get_header(struct btdds_cdr_rd *r, uint64_t *guid, int64_t *seq);

/* service_msgs/msg/ServiceEventInfo, the head of every service event
 * (rcl's introspection, Iron and later): uint8 event_type,
 * builtin_interfaces/Time stamp, char[16] client_gid, int64
 * sequence_number. */
enum {
	BTDDS_SVC_REQUEST_SENT,
	BTDDS_SVC_REQUEST_RECEIVED,
	BTDDS_SVC_RESPONSE_SENT,
	BTDDS_SVC_RESPONSE_RECEIVED,
};
struct btdds_svc_event_info {
	uint8_t event_type;
	const unsigned char *client_gid; /* 16 bytes, in the sample */
	int64_t sequence_number;
};
/* Reads it; false (and the reader failed) when the sample is too short.
 * The event type is as found: the caller decides what an unknown one is. */
bool btdds_svc_get_event_info(struct btdds_cdr_rd *r, struct btdds_svc_event_info *out);

struct btdds_svc_client;

/* A client of `service` ("/node/get_type_description") of type `type`
 * ("pkg/srv/X") on participant `pp`: a request writer and a reply reader,
 * both with rmw's service QoS and this client's `clientid` in USER_DATA.
 * BT_ERR_USAGE for a bad type name, BT_ERR_DDS when an entity cannot be
 * created (*err says which). */
BT_MUST_CHECK bt_status btdds_svc_client_new(dds_entity_t pp, const char *service,
					     const char *type, struct btdds_svc_client **out,
					     struct bt_error *err);
void btdds_svc_client_free(struct btdds_svc_client *c);

/* Starts a request in *w (initialised here): the header with this
 * client's guid and its next sequence number. Append the body, then call. */
void btdds_svc_request_begin(struct btdds_svc_client *c, struct btdds_cdr_wr *w);

/* Sends the request in *w once the service is there (a reader of its
 * requests and a writer of its replies matched), and waits for the reply
 * with this client's guid and the request's seq. Gives up at
 * `timeout_ns` (monotonic, for the whole call) or when *stop turns true
 * (checked every 50 ms). BT_OK: *reply (malloc'ed, the whole sample,
 * encapsulation header included; read it past the header) and *len.
 * BT_ERR_NOTFOUND: no server matched in time; BT_ERR_STATE: no reply in
 * time, or stopped; BT_ERR_DDS: a DDS call failed. */
BT_MUST_CHECK bt_status btdds_svc_client_call(struct btdds_svc_client *c,
					      const struct btdds_cdr_wr *w, int64_t timeout_ns,
					      const atomic_bool *stop, void **reply, size_t *len,
					      struct bt_error *err);

#define BTDDS_SVC_REPLIES_MAX 64 /* replies kept of one call */

/* One reply of btdds_svc_client_call_all. */
struct btdds_svc_reply {
	void *data; /* the whole sample (malloc'ed), encapsulation header included */
	size_t len;
	dds_guid_t server; /* the replying participant; zeros when not known */
};

struct btdds_svc_replies {
	struct btdds_svc_reply *v; /* in the order they came */
	size_t n;
	uint32_t servers; /* servers when it was sent: participants reading its
			   * requests and writing its replies */
};

/* btdds_svc_client_call for a service that more than one server offers
 * (nodes of the same name: each gets the request and answers it). Once
 * the first server is found it lets discovery settle (no new reader of the
 * requests for 150 ms, 1 s at most), so that the request reaches them all;
 * after the first reply it waits up to `more_ns` (within `timeout_ns`) for
 * one from each server matched when the request went out. more_ns 0: as
 * btdds_svc_client_call, no settling, the first reply only. BT_OK: *out
 * has at least one reply (free it with btdds_svc_replies_fini); out->n <
 * out->servers when some did not answer in time; at most
 * BTDDS_SVC_REPLIES_MAX are kept. The errors are btdds_svc_client_call's,
 * and *out is empty. */
BT_MUST_CHECK bt_status btdds_svc_client_call_all(struct btdds_svc_client *c,
						  const struct btdds_cdr_wr *w,
						  int64_t timeout_ns, int64_t more_ns,
						  const atomic_bool *stop,
						  struct btdds_svc_replies *out,
						  struct bt_error *err);
void btdds_svc_replies_fini(struct btdds_svc_replies *r);

#endif
