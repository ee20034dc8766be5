/* play_svc — the player's rosbag2 services (play_svc.h). What each does
 * follows ros2/rosbag2 jazzy rosbag2_transport/src/rosbag2_transport/
 * player.cpp (the services' callbacks). */
#include "play_svc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "btdds_node.h"
#include "btdds_rosbag2.h"
#include "btdds_svc_server.h"
#include "play.h"

enum play_svc_kind {
	PS_PAUSE,
	PS_RESUME,
	PS_TOGGLE,
	PS_IS_PAUSED,
	PS_GET_RATE,
	PS_SET_RATE,
	PS_PLAY_NEXT,
	PS_BURST,
	PS_SEEK,
	PS_PLAY, /* not in Humble, nor what follows */
	PS_STOP,
	PS_N
};

static const char *const ps_names[PS_N] = {
	"pause", "resume", "toggle_paused", "is_paused", "get_rate", "set_rate",
	"play_next", "burst", "seek", "play", "stop"};

struct play_svc {
	struct play *p;
	struct btdds_svc_server *server;
	struct btdds_node *node;
	char *names[PS_N]; /* "/rosbag2_player/pause" */
	size_t n;
};

/* ---- replies ---- */

static void ps_reply(struct play_svc *sv, uint64_t ticket, const void *body, size_t len)
{
	if (btdds_svc_server_reply(sv->server, ticket, body, len) != BT_OK)
		bt_log_debug("service reply %llu: too late", (unsigned long long)ticket);
}

/* A bool (success, paused), or the empty response's one byte. */
static void ps_reply_u8(struct play_svc *sv, uint64_t ticket, bool v)
{
	unsigned char b = v;
	ps_reply(sv, ticket, &b, 1);
}

/* A float64 or uint64 (little-endian: the server's body is plain CDR LE,
 * at an offset where 8-byte values need no padding). */
static void ps_reply_u64(struct play_svc *sv, uint64_t ticket, uint64_t v)
{
	unsigned char b[8];
	for (int i = 0; i < 8; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	ps_reply(sv, ticket, b, sizeof b);
}

static double ps_f64(struct btdds_cdr_rd *r)
{
	uint64_t bits = btdds_cdr_u64(r);
	double d;
	memcpy(&d, &bits, sizeof d);
	return d;
}

/* builtin_interfaces Time / Duration: int32 sec, uint32 nanosec → ns. */
static int64_t ps_time(struct btdds_cdr_rd *r)
{
	int32_t sec = (int32_t)btdds_cdr_u32(r);
	uint32_t nsec = btdds_cdr_u32(r);
	return (int64_t)sec * BT_NS_PER_S + (int64_t)nsec;
}

/* ---- the services ---- */

/* The request said, with the control's result. */
static void ps_say(const char *who, enum play_result r, const char *ok)
{
	if (r == PLAY_OK)
		bt_log_info("%s: %s", who, ok);
	else
		bt_log_warn("%s: refused: %s", who, play_result_str(r));
}

/* A burst under way: what its end answers (freed there). */
struct ps_burst {
	struct play_svc *sv;
	uint64_t ticket;
	char who[200];
};

static void ps_burst_done(void *ctx, uint64_t n)
{
	struct ps_burst *b = ctx;
	bt_log_info("%s: %llu message%s published", b->who, (unsigned long long)n,
		    n == 1 ? "" : "s");
	ps_reply_u64(b->sv, b->ticket, n);
	free(b);
}

static void ps_burst(struct play_svc *sv, uint64_t ticket, const char *who,
		     struct btdds_cdr_rd *body)
{
	uint64_t n = btdds_cdr_u64(body);
	struct ps_burst *b = bt_xcalloc(1, sizeof *b);
	b->sv = sv;
	b->ticket = ticket;
	snprintf(b->who, sizeof b->who, "%s (%llu)", who, (unsigned long long)n);
	enum play_result r = play_burst(sv->p, n, ps_burst_done, b);
	if (r != PLAY_OK) { /* rosbag2 answers 0 */
		free(b);
		ps_say(who, r, "");
		ps_reply_u64(sv, ticket, 0);
	}
}

/* Seek's time, clamped into the window (rosbag2 clamps to the start). */
static enum play_result ps_seek(struct play_svc *sv, int64_t t)
{
	int64_t s, e;
	play_window(sv->p, &s, &e);
	return play_seek_to(sv->p, t < s ? s : t > e ? e : t);
}

/* Play: from the window's start plus start_offset, playing. */
static enum play_result ps_play(struct play_svc *sv, struct btdds_cdr_rd *body)
{
	int64_t offset = ps_time(body), s, e;
	play_window(sv->p, &s, &e);
	enum play_result r = offset > 0 ? ps_seek(sv, s + offset) : play_restart(sv->p);
	return r == PLAY_OK ? play_resume(sv->p) : r;
}

static void ps_handle(struct play_svc *sv, enum play_svc_kind k, uint64_t ticket,
		      const char *who, struct btdds_cdr_rd *body)
{
	struct play *p = sv->p;
	enum play_result r;
	char ok[64];
	switch (k) {
	case PS_PAUSE: ps_say(who, play_pause(p), "paused"); ps_reply_u8(sv, ticket, 0); return;
	case PS_RESUME: ps_say(who, play_resume(p), "resumed"); ps_reply_u8(sv, ticket, 0); return;
	case PS_TOGGLE:
		r = play_toggle_pause(p);
		ps_say(who, r, play_paused(p) ? "paused" : "resumed");
		ps_reply_u8(sv, ticket, 0);
		return;
	case PS_IS_PAUSED:
		bt_log_info("%s: %s", who, play_paused(p) ? "paused" : "not paused");
		ps_reply_u8(sv, ticket, play_paused(p));
		return;
	case PS_GET_RATE: {
		double rate = play_rate(p);
		uint64_t bits;
		memcpy(&bits, &rate, sizeof bits);
		bt_log_info("%s: %g", who, rate);
		ps_reply_u64(sv, ticket, bits);
		return;
	}
	case PS_SET_RATE: {
		double rate = ps_f64(body);
		snprintf(ok, sizeof ok, "rate %g", rate);
		r = play_set_rate(p, rate);
		break;
	}
	case PS_PLAY_NEXT: r = play_next(p); snprintf(ok, sizeof ok, "one message"); break;
	case PS_BURST: ps_burst(sv, ticket, who, body); return;
	case PS_SEEK: {
		int64_t t = ps_time(body);
		snprintf(ok, sizeof ok, "to %.3f s", (double)t / 1e9);
		r = ps_seek(sv, t);
		break;
	}
	case PS_PLAY: r = ps_play(sv, body); snprintf(ok, sizeof ok, "from the start"); break;
	case PS_STOP:
	default:
		bt_log_info("%s: stopping", who);
		ps_reply_u8(sv, ticket, 0); /* before the stop: the reply goes out first */
		play_request_stop(p);
		return;
	}
	ps_say(who, r, ok);
	ps_reply_u8(sv, ticket, r == PLAY_OK); /* success */
}

/* The server thread's handler; the services are in ps_names' order. */
static void ps_request(void *ctx, const struct btdds_svc_request *rq)
{
	struct play_svc *sv = ctx;
	char who[160];
	snprintf(who, sizeof who, "service %s from client %s", sv->names[rq->service],
		 rq->clientid[0] ? rq->clientid + strspn(rq->clientid, " ") : "?");
	ps_handle(sv, (enum play_svc_kind)rq->service, rq->ticket, who, rq->body);
}

/* ---- life ---- */

/* The node lists the services' readers and writers (or not at all). */
static void ps_node(struct play_svc *sv, const struct play_svc_options *o)
{
	struct bt_error e;
	if (btdds_node_new(o->pp, "/", o->node_name,
			   o->humble ? BTDDS_GID_SIZE_HUMBLE : BTDDS_GID_SIZE_IRON, &sv->node,
			   &e) != BT_OK) {
		bt_log_warn("no ROS 2 node /%s: %s", o->node_name, e.msg);
		sv->node = NULL;
		return;
	}
	dds_entity_t ents[2 * PS_N];
	size_t n = btdds_svc_server_entities(sv->server, ents, 2 * PS_N);
	for (size_t i = 0; i < n && i < 2 * PS_N; i++)
		if (btdds_node_add_entity(sv->node, ents[i], &e) != BT_OK)
			bt_log_warn("the node does not list a service endpoint: %s", e.msg);
}

static void ps_free(struct play_svc *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->names[i]);
	free(sv);
}

bt_status play_svc_start(const struct play_svc_options *o, struct play_svc **out,
			 struct bt_error *err)
{
	if (!btdds_node_name_valid(o->node_name))
		return bt_err_set(err, BT_ERR_USAGE, "'%s' is not a node name", o->node_name);
	struct play_svc *sv = bt_xcalloc(1, sizeof *sv);
	sv->p = o->play;
	struct btdds_svc_def defs[PS_N];
	size_t n = o->humble ? PS_PLAY : PS_N;
	for (size_t i = 0; i < n; i++) {
		const struct btdds_rb2_svc *s = btdds_rb2_player_svc(ps_names[i]);
		sv->names[i] = bt_xasprintf("/%s/%s", o->node_name, s->name);
		defs[i] = (struct btdds_svc_def){sv->names[i], s->type, btdds_rb2_req_size(s->req)};
		sv->n = i + 1;
	}
	struct btdds_svc_server_options so = {
		.pp = o->pp, .defs = defs, .n_defs = sv->n, .handler = ps_request, .ctx = sv,
		.twin_hint = "give each its own --node-name"};
	bt_status st = btdds_svc_server_start(&so, &sv->server, err);
	if (st != BT_OK) {
		ps_free(sv);
		return st;
	}
	ps_node(sv, o);
	*out = sv;
	return BT_OK;
}

void play_svc_stop(struct play_svc *sv)
{
	if (sv == NULL)
		return;
	uint64_t c[BTDDS_SVC_N_COUNTS];
	btdds_node_free(sv->node); /* the graph first: the node is gone before its services */
	btdds_svc_server_stop(sv->server, c);
	btdds_svc_counts_say(c);
	ps_free(sv);
}
