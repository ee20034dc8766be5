/* btdds_svc_server — the server half of ROS 2 services over plain Cyclone
 * DDS, byte-compatible with rmw_cyclonedds (../shared/docs/
 * ROS2_SERVICES_OVER_DDS.md; btdds_service.h has the names, ids and the
 * header): per service a request reader and a reply writer with rmw's
 * service QoS and `serviceid=<id>;` in USER_DATA; requests read strictly;
 * (guid, seq) echoed unchanged in the reply; the reply gated on the
 * client's id.
 *
 * DESIGN: one thread ("btdds-svc") per server, started by
 * btdds_svc_server_start and joined by btdds_svc_server_stop, waiting on a
 * waitset of its own (the request readers' read conditions and a guard
 * condition). Capture never waits for it: a Cyclone receive thread only
 * stores a request in the reader's history (keep-last 10, as rmw's);
 * checking it, calling the handler, waiting for the client's reader and
 * writing the reply all happen on this thread. Work is bounded: at most
 * BTDDS_SVC_RATE requests a second (bursts of BTDDS_SVC_BURST) are
 * accepted, at most BTDDS_SVC_PENDING wait for an answer, requests longer
 * than BTDDS_SVC_REQ_MAX bytes are dropped unread; everything else is
 * refused (not answered: rosbag2's types have no "busy" answer) and
 * counted by reason (btdds_svc_server_counts), the first of each reason
 * said once through bt_log. Another process serving one of the same
 * services (two nodes of one name) is warned of once (btdds_svc_twin.h).
 *
 * Answers: the handler runs on the server thread for each accepted
 * request, must not block, and answers with btdds_svc_server_reply, at
 * once or later from any thread (the recorder answers when its command is
 * done). No answer within BTDDS_SVC_ANSWER_NS: counted `unanswered`, the
 * request forgotten.
 *
 * Reply gating (rmw's check_for_response_reader): the request's writer
 * carries `clientid=<id>;`; the reply is written only once the reply
 * writer has matched a reader with the same clientid, checked every 10 ms
 * for up to gate_ns (rmw waits 100 ms; longer here, so that a client whose
 * request arrived before discovery finished still gets its answer on a
 * loaded machine). A writer without a clientid is answered at once (as
 * rmw); a writer gone is not answered. Every reader of the reply topic
 * receives every reply; a client keeps those with its own guid (the doc's
 * rule; the guid is the request writer's, unique per client).
 *
 * Lock: `mu` guards the pending table; a leaf, never held across DDS calls
 * or the handler. */
#ifndef BTDDS_SVC_SERVER_H
#define BTDDS_SVC_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "btdds_cdr.h"

#define BTDDS_SVC_RATE 50      /* requests accepted per second, sustained */
#define BTDDS_SVC_BURST 50     /* and at once */
#define BTDDS_SVC_PENDING 16   /* accepted, not yet answered */
#define BTDDS_SVC_REQ_MAX 4096 /* bytes of a request, header included */
#define BTDDS_SVC_ANSWER_NS (INT64_C(30) * 1000000000)
#define BTDDS_SVC_GATE_NS (INT64_C(2) * 1000000000) /* default gate_ns */

/* Why requests were not answered, and how many were (counters). */
enum btdds_svc_count {
	BTDDS_SVC_RECEIVED,     /* requests taken from DDS */
	BTDDS_SVC_ANSWERED,     /* replies written */
	BTDDS_SVC_TOO_LARGE,    /* over BTDDS_SVC_REQ_MAX bytes */
	BTDDS_SVC_BAD_ENCODING, /* not plain CDR: byte 0 not 0, byte-order flag not 0 or 1 */
	BTDDS_SVC_BAD_HEADER,   /* shorter than the encapsulation and request headers */
	BTDDS_SVC_BAD_LENGTH,   /* body shorter than the request type needs */
	BTDDS_SVC_REFUSED_RATE, /* over BTDDS_SVC_RATE */
	BTDDS_SVC_REFUSED_BUSY, /* BTDDS_SVC_PENDING requests already waiting */
	BTDDS_SVC_REFUSED,      /* the handler refused it (btdds_svc_server_refuse) */
	BTDDS_SVC_UNANSWERED,   /* no answer in time, or the server stopped first */
	BTDDS_SVC_NO_CLIENT,    /* the client's reply reader never matched, or it left */
	BTDDS_SVC_WRITE_FAILED, /* dds_write of the reply failed */
	BTDDS_SVC_N_COUNTS
};

/* One service: its full name, its type, and the bytes its request body
 * needs at least (1 for an empty request: its one uint8 member). */
struct btdds_svc_def {
	const char *name; /* "/rosbag2_recorder/snapshot" */
	const char *type; /* "rosbag2_interfaces/srv/Snapshot" */
	size_t min_body;
};

/* An accepted request, as the handler sees it (valid during the call). */
struct btdds_svc_request {
	size_t service;            /* index into the defs */
	uint64_t ticket;           /* what answers it */
	struct btdds_cdr_rd *body; /* the body: CDR offsets past the header, its byte order */
	const char *clientid;      /* the client's id from USER_DATA, "" when none */
};

/* Called on the server thread for each accepted request. */
typedef void (*btdds_svc_handler)(void *ctx, const struct btdds_svc_request *rq);

struct btdds_svc_server_options {
	dds_entity_t pp;
	const struct btdds_svc_def *defs; /* copied */
	size_t n_defs;
	btdds_svc_handler handler;
	void *ctx;
	int64_t gate_ns; /* 0: BTDDS_SVC_GATE_NS */
	/* Ends the warning that another process serves one of these services
	 * (btdds_svc_twin.h: said once), e.g. "give each its own
	 * --node-name"; NULL: none. */
	const char *twin_hint;
};

struct btdds_svc_server;

/* Creates every service's entities on o->pp and starts the thread.
 * BT_ERR_USAGE for a bad type name, BT_ERR_DDS when an entity or the
 * thread cannot be made (*err says which); nothing is left on error. */
BT_MUST_CHECK bt_status btdds_svc_server_start(const struct btdds_svc_server_options *o,
					       struct btdds_svc_server **out,
					       struct bt_error *err);
/* Stops the thread (within one wait), joins it, deletes the entities and
 * frees; requests not answered yet are counted unanswered; `counts` (may
 * be NULL) gets the final counters. Owner thread; no
 * btdds_svc_server_reply may run concurrently or after. NULL is fine. */
void btdds_svc_server_stop(struct btdds_svc_server *s, uint64_t counts[BTDDS_SVC_N_COUNTS]);

/* Answers request `ticket` with `body`: the response body as
 * little-endian plain CDR whose first byte sits at CDR offset 16 (right
 * after the request header, so 8-byte values need no padding). Any thread.
 * BT_ERR_NOTFOUND when the ticket is not pending (forgotten, or answered
 * already). */
BT_MUST_CHECK bt_status btdds_svc_server_reply(struct btdds_svc_server *s, uint64_t ticket,
					       const void *body, size_t len);
/* Forgets request `ticket` without answering it (counted REFUSED). Any
 * thread. BT_ERR_NOTFOUND as for btdds_svc_server_reply. */
BT_MUST_CHECK bt_status btdds_svc_server_refuse(struct btdds_svc_server *s, uint64_t ticket);
/* The counters now (relaxed reads). Any thread. */
void btdds_svc_server_counts(const struct btdds_svc_server *s,
			     uint64_t out[BTDDS_SVC_N_COUNTS]);
/* The server's readers and writers (each service's request reader, then
 * its reply writer) into out[0..cap): what a ROS 2 node lists as its own
 * in the graph (ros_discovery_info) so that `ros2 node info` shows the
 * services. Returns how many there are (2 per service). Any thread. */
size_t btdds_svc_server_entities(const struct btdds_svc_server *s, dds_entity_t *out,
				 size_t cap);
/* Says the final counters through bt_log in one line ("services: 12
 * requests received, 10 answered, 2 refused: over the rate"): a warning
 * when any request was not answered, else info; nothing when nobody called. */
void btdds_svc_counts_say(const uint64_t c[BTDDS_SVC_N_COUNTS]);
/* A few words for counter c ("truncated header"). */
const char *btdds_svc_count_str(enum btdds_svc_count c);

#endif
