/* btdds_rosbag2 — rosbag2's recorder and player services (rosbag2_interfaces,
 * jazzy; ../shared/docs/ROS2_SERVICES_OVER_DDS.md §4): their names, types
 * and body layouts, shared by the recorder's server (rec_svc) and `bagtop
 * call`, and the call itself (a client, btdds_service). The table and the
 * encoders are pure; btdds_rosbag2_call joins a domain. This header does not
 * include dds/dds.h: the app calls it. */
#ifndef BTDDS_ROSBAG2_H
#define BTDDS_ROSBAG2_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "btdds_env.h"

#define BTDDS_RB2_RECORDER "rosbag2_recorder" /* ros2 bag record's default --node-name */
#define BTDDS_RB2_PLAYER "rosbag2_player"
#define BTDDS_RB2_NODE_MAX 256

/* What a request carries after the header. */
enum btdds_rb2_req {
	BTDDS_RB2_REQ_EMPTY, /* uint8 structure_needs_at_least_one_member */
	BTDDS_RB2_REQ_F64,   /* SetRate: float64 rate */
	BTDDS_RB2_REQ_U64,   /* Burst: uint64 num_messages */
	BTDDS_RB2_REQ_TIME,  /* Seek: builtin_interfaces/Time time (int32 sec, uint32 nanosec) */
	BTDDS_RB2_REQ_PLAY,  /* Play: Time start_offset, Duration playback_duration,
			      * Time playback_until_timestamp */
	BTDDS_RB2_REQ_SNAP,  /* bagtop's SnapshotWithParameters: float64 before,
			      * float64 after (seconds; negative: as configured),
			      * string topics, string exclude, string name */
};

/* What its response carries after the header. */
enum btdds_rb2_resp {
	BTDDS_RB2_RESP_EMPTY,   /* uint8 structure_needs_at_least_one_member */
	BTDDS_RB2_RESP_SUCCESS, /* bool success */
	BTDDS_RB2_RESP_PAUSED,  /* bool paused */
	BTDDS_RB2_RESP_RATE,    /* float64 rate */
	BTDDS_RB2_RESP_BURST,   /* uint64 actually_burst */
	BTDDS_RB2_RESP_SUCCESS_MSG, /* bool success, string message */
};

#define BTDDS_RB2_ON_RECORDER 1u
#define BTDDS_RB2_ON_PLAYER 2u

struct btdds_rb2_svc {
	const char *verb; /* bagtop call's ("is-paused") */
	const char *name; /* the node's private service (~/is_paused) */
	const char *type; /* "rosbag2_interfaces/srv/IsPaused" */
	unsigned on;      /* BTDDS_RB2_ON_*: whose service it is */
	bool recorder_humble; /* Humble's recorder offers it too */
	enum btdds_rb2_req req;
	enum btdds_rb2_resp resp;
};

/* The services of either node, NULL-verb terminated. */
extern const struct btdds_rb2_svc btdds_rb2_svcs[];
/* bagtop's own recorder service beside rosbag2's ~/snapshot, which has no
 * fields: ~/snapshot_with_parameters, bagtop_interfaces/srv/
 * SnapshotWithParameters (REQ_SNAP, RESP_SUCCESS_MSG), not in Humble's
 * compat set. Not in btdds_rb2_svcs: its verb is snapshot's, with
 * parameters. */
extern const struct btdds_rb2_svc btdds_rb2_snapshot_params;
/* The entry of `verb` (bagtop call's word), or NULL. */
const struct btdds_rb2_svc *btdds_rb2_find(const char *verb);
/* The entry of the recorder's service `name` ("split_bagfile",
 * "snapshot_with_parameters"), or NULL. */
const struct btdds_rb2_svc *btdds_rb2_recorder_svc(const char *name);
/* The entry of the player's service `name` ("play_next"), or NULL. */
const struct btdds_rb2_svc *btdds_rb2_player_svc(const char *name);
/* Bytes a request body of kind `req` has at least. */
size_t btdds_rb2_req_size(enum btdds_rb2_req req);

/* A request's argument (what the kind uses of it). */
struct btdds_rb2_arg {
	double f64;
	uint64_t u64;
	int64_t ns; /* Seek's time, ns since the epoch (>= 0) */
	/* REQ_SNAP's: seconds (negative: as configured); strings, NULL: "" */
	double before, after;
	const char *topics, *exclude, *name;
};

/* A decoded response. */
struct btdds_rb2_reply {
	bool flag;    /* success / paused */
	double rate;  /* get_rate */
	uint64_t u64; /* burst */
	char message[256]; /* RESP_SUCCESS_MSG's, cut to fit */
	char where[128]; /* the server's "host pid N", or "": btdds_participant_where's
			  * BTDDS_WHERE_MAX (the .c checks that they agree) */
};

/* Every server's response to one call: more than one when nodes of the
 * same name serve the service (each gets the request and acts on it). */
struct btdds_rb2_replies {
	struct btdds_rb2_reply *v; /* in the order they came */
	size_t n;
	uint32_t servers; /* servers the request reached */
};

/* Calls service `svc` of node `node` on `domain_id` (UINT32_MAX: the
 * default, as btdds_participant_create) with `arg`, waiting up to
 * `timeout_ns` for the service and its reply, and, when more than one
 * server got the request, up to `more_ns` after the first reply for the
 * others'. BT_OK: *out decoded (at least one reply; free it with
 * btdds_rb2_replies_fini). BT_ERR_NOTFOUND: no such service within the
 * timeout; BT_ERR_STATE: no reply in time; BT_ERR_FORMAT: a reply not of
 * the type; BT_ERR_DDS: DDS would not start. *err says which in one line. */
BT_MUST_CHECK bt_status btdds_rosbag2_call(uint32_t domain_id, const struct btdds_env *env,
					   const char *node, const struct btdds_rb2_svc *svc,
					   const struct btdds_rb2_arg *arg, int64_t timeout_ns,
					   int64_t more_ns, struct btdds_rb2_replies *out,
					   struct bt_error *err);
void btdds_rb2_replies_fini(struct btdds_rb2_replies *r);

#endif
