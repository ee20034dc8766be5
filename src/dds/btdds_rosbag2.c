/* btdds_rosbag2 — rosbag2's services (btdds_rosbag2.h). Facts from
 * ros2/rosbag2 jazzy: the .srv files of rosbag2_interfaces, rosbag2_transport
 * recorder.cpp and player.cpp (which node serves what), humble likewise. */
#include "btdds_rosbag2.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_time.h"
#include "btdds_participant.h"
#include "btdds_service.h"

#define R BTDDS_RB2_ON_RECORDER
#define P BTDDS_RB2_ON_PLAYER
#define T "rosbag2_interfaces/srv/"

const struct btdds_rb2_svc btdds_rb2_svcs[] = {
	{"snapshot", "snapshot", T "Snapshot", R, true, BTDDS_RB2_REQ_EMPTY,
	 BTDDS_RB2_RESP_SUCCESS},
	{"split", "split_bagfile", T "SplitBagfile", R, false, BTDDS_RB2_REQ_EMPTY,
	 BTDDS_RB2_RESP_EMPTY},
	{"pause", "pause", T "Pause", R | P, false, BTDDS_RB2_REQ_EMPTY, BTDDS_RB2_RESP_EMPTY},
	{"resume", "resume", T "Resume", R | P, false, BTDDS_RB2_REQ_EMPTY, BTDDS_RB2_RESP_EMPTY},
	{"is-paused", "is_paused", T "IsPaused", R | P, false, BTDDS_RB2_REQ_EMPTY,
	 BTDDS_RB2_RESP_PAUSED},
	{"toggle-paused", "toggle_paused", T "TogglePaused", P, false, BTDDS_RB2_REQ_EMPTY,
	 BTDDS_RB2_RESP_EMPTY},
	{"get-rate", "get_rate", T "GetRate", P, false, BTDDS_RB2_REQ_EMPTY, BTDDS_RB2_RESP_RATE},
	{"set-rate", "set_rate", T "SetRate", P, false, BTDDS_RB2_REQ_F64, BTDDS_RB2_RESP_SUCCESS},
	{"play-next", "play_next", T "PlayNext", P, false, BTDDS_RB2_REQ_EMPTY,
	 BTDDS_RB2_RESP_SUCCESS},
	{"burst", "burst", T "Burst", P, false, BTDDS_RB2_REQ_U64, BTDDS_RB2_RESP_BURST},
	{"seek", "seek", T "Seek", P, false, BTDDS_RB2_REQ_TIME, BTDDS_RB2_RESP_SUCCESS},
	{"play", "play", T "Play", P, false, BTDDS_RB2_REQ_PLAY, BTDDS_RB2_RESP_SUCCESS},
	{"stop", "stop", T "Stop", P, false, BTDDS_RB2_REQ_EMPTY, BTDDS_RB2_RESP_EMPTY},
	{NULL, NULL, NULL, 0, false, BTDDS_RB2_REQ_EMPTY, BTDDS_RB2_RESP_EMPTY},
};

const struct btdds_rb2_svc btdds_rb2_snapshot_params = {
	"snapshot", "snapshot_with_parameters", "bagtop_interfaces/srv/SnapshotWithParameters", R,
	false, BTDDS_RB2_REQ_SNAP, BTDDS_RB2_RESP_SUCCESS_MSG};

const struct btdds_rb2_svc *btdds_rb2_find(const char *verb)
{
	for (const struct btdds_rb2_svc *s = btdds_rb2_svcs; s->verb != NULL; s++)
		if (strcmp(s->verb, verb) == 0)
			return s;
	return NULL;
}

static const struct btdds_rb2_svc *rb2_svc_of(unsigned on, const char *name)
{
	for (const struct btdds_rb2_svc *s = btdds_rb2_svcs; s->verb != NULL; s++)
		if ((s->on & on) && strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

const struct btdds_rb2_svc *btdds_rb2_recorder_svc(const char *name)
{
	if (strcmp(name, btdds_rb2_snapshot_params.name) == 0)
		return &btdds_rb2_snapshot_params;
	return rb2_svc_of(R, name);
}

const struct btdds_rb2_svc *btdds_rb2_player_svc(const char *name)
{
	return rb2_svc_of(P, name);
}

size_t btdds_rb2_req_size(enum btdds_rb2_req req)
{
	switch (req) {
	case BTDDS_RB2_REQ_F64:
	case BTDDS_RB2_REQ_U64:
	case BTDDS_RB2_REQ_TIME:
		return 8;
	case BTDDS_RB2_REQ_PLAY:
		return 24;
	case BTDDS_RB2_REQ_SNAP:
		return 16 + 3 * 5; /* two float64, three strings of at least their NUL */
	case BTDDS_RB2_REQ_EMPTY:
		break;
	}
	return 1;
}

/* builtin_interfaces Time/Duration: int32 sec, uint32 nanosec. */
static void rb2_put_time(struct btdds_cdr_wr *w, int64_t ns)
{
	int64_t sec = ns / 1000000000, nsec = ns % 1000000000;
	if (nsec < 0) {
		nsec += 1000000000;
		sec -= 1;
	}
	btdds_cdr_put_u32(w, (uint32_t)(int32_t)sec);
	btdds_cdr_put_u32(w, (uint32_t)nsec);
}

static void rb2_put_request(struct btdds_cdr_wr *w, const struct btdds_rb2_svc *svc,
			    const struct btdds_rb2_arg *a)
{
	uint64_t bits;
	switch (svc->req) {
	case BTDDS_RB2_REQ_F64:
		memcpy(&bits, &a->f64, sizeof bits);
		btdds_cdr_put_u64(w, bits);
		break;
	case BTDDS_RB2_REQ_U64:
		btdds_cdr_put_u64(w, a->u64);
		break;
	case BTDDS_RB2_REQ_TIME:
		rb2_put_time(w, a->ns);
		break;
	case BTDDS_RB2_REQ_PLAY:
		/* from the start, the whole bag: a negative duration means
		 * none to rosbag2's player, an until-time of 0 none either */
		rb2_put_time(w, 0);
		rb2_put_time(w, -INT64_C(1000000000));
		rb2_put_time(w, 0);
		break;
	case BTDDS_RB2_REQ_SNAP:
		memcpy(&bits, &a->before, sizeof bits);
		btdds_cdr_put_u64(w, bits);
		memcpy(&bits, &a->after, sizeof bits);
		btdds_cdr_put_u64(w, bits);
		btdds_cdr_put_string(w, a->topics ? a->topics : "");
		btdds_cdr_put_string(w, a->exclude ? a->exclude : "");
		btdds_cdr_put_string(w, a->name ? a->name : "");
		break;
	case BTDDS_RB2_REQ_EMPTY:
		btdds_cdr_put_u8(w, 0);
		break;
	}
	btdds_cdr_wr_finish(w);
}

static bt_status rb2_decode(const struct btdds_rb2_svc *svc, const void *reply, size_t len,
			    struct btdds_rb2_reply *out, struct bt_error *err)
{
	struct btdds_cdr_rd r;
	uint64_t guid, bits;
	int64_t seq;
	size_t n;
	memset(out, 0, sizeof *out);
	if (btdds_cdr_rd_init(&r, reply, len) != BT_OK || !btdds_svc_get_header(&r, &guid, &seq))
		return bt_err_set(err, BT_ERR_FORMAT, "%s: the reply is not plain CDR", svc->name);
	switch (svc->resp) {
	case BTDDS_RB2_RESP_SUCCESS:
	case BTDDS_RB2_RESP_PAUSED:
		out->flag = btdds_cdr_bool(&r);
		break;
	case BTDDS_RB2_RESP_RATE:
		bits = btdds_cdr_u64(&r);
		memcpy(&out->rate, &bits, sizeof bits);
		break;
	case BTDDS_RB2_RESP_BURST:
		out->u64 = btdds_cdr_u64(&r);
		break;
	case BTDDS_RB2_RESP_SUCCESS_MSG:
		out->flag = btdds_cdr_bool(&r);
		snprintf(out->message, sizeof out->message, "%s", btdds_cdr_string(&r, 0, &n));
		break;
	case BTDDS_RB2_RESP_EMPTY:
		break;
	}
	return btdds_cdr_error(&r, "reply", err);
}

_Static_assert(sizeof ((struct btdds_rb2_reply *)0)->where == BTDDS_WHERE_MAX,
	       "btdds_rb2_reply.where holds btdds_participant_where's text");

void btdds_rb2_replies_fini(struct btdds_rb2_replies *r)
{
	free(r->v);
	*r = (struct btdds_rb2_replies){0};
}

/* Decodes every reply, and says where each server runs. */
static bt_status rb2_decode_all(dds_entity_t pp, const struct btdds_rb2_svc *svc,
				const struct btdds_svc_replies *in, struct btdds_rb2_replies *out,
				struct bt_error *err)
{
	out->v = bt_xcalloc(in->n, sizeof *out->v);
	out->servers = in->servers;
	for (size_t i = 0; i < in->n; i++) {
		struct btdds_rb2_reply *y = &out->v[out->n];
		bt_status st = rb2_decode(svc, in->v[i].data, in->v[i].len, y, err);
		if (st != BT_OK) {
			btdds_rb2_replies_fini(out);
			return st;
		}
		btdds_participant_where(pp, &in->v[i].server, y->where);
		out->n++;
	}
	return BT_OK;
}

bt_status btdds_rosbag2_call(uint32_t domain_id, const struct btdds_env *env, const char *node,
			     const struct btdds_rb2_svc *svc, const struct btdds_rb2_arg *arg,
			     int64_t timeout_ns, int64_t more_ns, struct btdds_rb2_replies *out,
			     struct bt_error *err)
{
	*out = (struct btdds_rb2_replies){0};
	dds_entity_t pp = 0;
	bt_status st = btdds_participant_create(domain_id, env, &pp, err);
	if (st != BT_OK)
		return st;
	char *service = bt_xasprintf("/%s/%s", node, svc->name);
	struct btdds_svc_client *c = NULL;
	st = btdds_svc_client_new(pp, service, svc->type, &c, err);
	struct btdds_svc_replies replies = {0};
	if (st == BT_OK) {
		struct btdds_cdr_wr w;
		btdds_svc_request_begin(c, &w);
		rb2_put_request(&w, svc, arg);
		st = btdds_svc_client_call_all(c, &w, timeout_ns, more_ns, NULL, &replies, err);
		btdds_cdr_wr_fini(&w);
	}
	if (st == BT_OK)
		st = rb2_decode_all(pp, svc, &replies, out, err);
	btdds_svc_replies_fini(&replies);
	btdds_svc_client_free(c);
	free(service);
	(void)btdds_participant_delete(pp);
	return st;
}
