/* rec_svc — the recorder's rosbag2 services (rec_svc.h). */
#include "rec_svc.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "btdds_node.h"
#include "btdds_rosbag2.h"
#include "btdds_svc_server.h"
#include "rec_cmd.h"
#include "rec_snapwin.h"

#define REC_SVC_MAX 6
/* In a command's tag beside the ticket: answer with success and message
 * (~/snapshot_with_parameters); tickets count up from 1, far below. */
#define REC_SVC_TAG_MSG (UINT64_C(1) << 63)

/* What results reach the server through; freed by the last reference. */
struct rec_svc_link {
	pthread_mutex_t mu;
	struct btdds_svc_server *server; /* NULL once stopped */
	unsigned refs;
};

struct rec_svc {
	void (*on_entity)(void *ctx, dds_entity_t e, bool add);
	void *on_entity_ctx;
	struct bt_cmdq *cmdq;
	struct rec_svc_link *link;
	const struct btdds_rb2_svc *rb2[REC_SVC_MAX];
	char *names[REC_SVC_MAX]; /* "/node/snapshot" */
	size_t n;
};

static void link_unref(struct rec_svc_link *l)
{
	pthread_mutex_lock(&l->mu);
	bool last = --l->refs == 0;
	pthread_mutex_unlock(&l->mu);
	if (last) {
		pthread_mutex_destroy(&l->mu);
		free(l);
	}
}

static int rec_svc_kind(const struct btdds_rb2_svc *s)
{
	if (strcmp(s->name, "snapshot") == 0 || s->req == BTDDS_RB2_REQ_SNAP)
		return REC_CMD_SNAPSHOT;
	if (strcmp(s->name, "split_bagfile") == 0)
		return REC_CMD_SPLIT;
	if (strcmp(s->name, "pause") == 0)
		return REC_CMD_PAUSE;
	if (strcmp(s->name, "resume") == 0)
		return REC_CMD_RESUME;
	return REC_CMD_IS_PAUSED;
}

/* Answers `ticket`: success and message (SnapshotWithParameters's
 * response: bool, padding to 4, string) when `msg`, else the one byte.
 * Holds the link's lock (the server may be stopping). */
static void rec_svc_answer(struct rec_svc_link *l, uint64_t ticket, bool answer,
			   unsigned char byte, const char *msg)
{
	unsigned char b[4 + 4 + BT_CMD_REASON_MAX] = {byte};
	size_t len = 1;
	if (msg != NULL) {
		size_t n = strnlen(msg, BT_CMD_REASON_MAX - 1);
		uint32_t sl = (uint32_t)n + 1; /* with the NUL, little-endian */
		for (int i = 0; i < 4; i++)
			b[4 + i] = (unsigned char)(sl >> (8 * i));
		memcpy(b + 8, msg, n);
		len = 8 + sl;
	}
	pthread_mutex_lock(&l->mu);
	if (l->server != NULL) {
		bt_status st = answer ? btdds_svc_server_reply(l->server, ticket, b, len)
				      : btdds_svc_server_refuse(l->server, ticket);
		if (st != BT_OK)
			bt_log_debug("service reply %llu: too late", (unsigned long long)ticket);
	}
	pthread_mutex_unlock(&l->mu);
}

/* The command's result, on the thread that finished it: the reply (one
 * byte: success, paused, or the empty message's member; or success and
 * the result's line), or none. */
static void rec_svc_done(void *ctx, const struct bt_cmd *cmd, const struct bt_cmd_result *res)
{
	struct rec_svc_link *l = ctx;
	bool done = res->outcome == BT_CMD_DONE;
	unsigned char body = 0;
	if (cmd->kind == REC_CMD_SNAPSHOT)
		body = done; /* refused / failed: success false */
	else if (cmd->kind == REC_CMD_IS_PAUSED)
		body = res->value != 0;
	bool answer = done || cmd->kind == REC_CMD_SNAPSHOT;
	bool msg = (cmd->tag & REC_SVC_TAG_MSG) != 0;
	rec_svc_answer(l, cmd->tag & ~REC_SVC_TAG_MSG, answer, body, msg ? res->reason : NULL);
	link_unref(l);
}

/* A window of SnapshotWithParameters (seconds) as rec_cmd_snap's: false
 * when beyond what `bagtop snapshot --before/--after` takes. */
static bool rec_svc_window(double secs, int64_t *ns)
{
	if (secs != secs)
		return false; /* NaN */
	if (secs < 0) {
		*ns = -1;
		return true;
	}
	if (secs > (double)REC_SNAPWIN_MAX_NS / 1e9)
		return false;
	*ns = (int64_t)(secs * 1e9 + 0.5);
	return true;
}

/* Reads and checks a SnapshotWithParameters request into *p, as `bagtop
 * snapshot --pid` checks its options: NULL, or why not. */
static const char *rec_svc_snap_params(struct btdds_cdr_rd *r, struct rec_cmd_snap *p)
{
	uint64_t bits[2];
	bits[0] = btdds_cdr_u64(r); /* in order: an initializer's are unsequenced */
	bits[1] = btdds_cdr_u64(r);
	double secs[2];
	memcpy(secs, bits, sizeof secs);
	size_t n;
	const char *topics = btdds_cdr_string(r, REC_CMD_SNAP_LIST_MAX - 1, &n);
	const char *exclude = btdds_cdr_string(r, REC_CMD_SNAP_LIST_MAX - 1, &n);
	const char *name = btdds_cdr_string(r, REC_CMD_SNAP_NAME_MAX - 1, &n);
	if (!btdds_cdr_ok(r))
		return "snapshot refused: a malformed request (or a list or name too long)";
	if (!rec_svc_window(secs[0], &p->before_ns) || !rec_svc_window(secs[1], &p->after_ns))
		return "snapshot refused: before and after want seconds from 0 to 86400 "
		       "(negative: as configured)";
	if (!rec_cmd_snap_list_valid(topics) || !rec_cmd_snap_list_valid(exclude))
		return "snapshot refused: topics and exclude want comma-separated topic names";
	if (name[0] != '\0' && !rec_cmd_snap_name_valid(name))
		return "snapshot refused: name wants a file name without '/' or control "
		       "characters, not '.' or '..'";
	snprintf(p->topics, sizeof p->topics, "%s", topics);
	snprintf(p->exclude, sizeof p->exclude, "%s", exclude);
	snprintf(p->name, sizeof p->name, "%s", name);
	return NULL;
}

/* The server thread's handler: the request as a command. */
static void rec_svc_request(void *ctx, const struct btdds_svc_request *rq)
{
	struct rec_svc *sv = ctx;
	const struct btdds_rb2_svc *s = sv->rb2[rq->service];
	struct bt_cmd cmd = rec_cmd_make(rec_svc_kind(s), BT_CMD_FROM_SERVICE, 0,
					 "%s from client %s", sv->names[rq->service],
					 rq->clientid[0] ? rq->clientid + strspn(rq->clientid, " ")
							 : "?");
	cmd.tag = rq->ticket;
	if (s->req == BTDDS_RB2_REQ_SNAP) {
		struct rec_cmd_snap p = {0};
		const char *bad = rec_svc_snap_params(rq->body, &p);
		if (bad != NULL) {
			bt_log_info("%s: %s", sv->names[rq->service], bad);
			rec_svc_answer(sv->link, rq->ticket, true, 0, bad);
			return;
		}
		rec_cmd_snap_put(&cmd, &p);
		cmd.tag |= REC_SVC_TAG_MSG;
	}
	pthread_mutex_lock(&sv->link->mu);
	sv->link->refs++;
	pthread_mutex_unlock(&sv->link->mu);
	/* Refused at once (queue full, closed): rec_svc_done has run already
	 * with the refusal, which the server counts. */
	if (bt_cmdq_submit(sv->cmdq, &cmd, rec_svc_done, sv->link, NULL) != BT_OK)
		bt_log_debug("%s: command refused at submit", sv->names[rq->service]);
}

/* Tells on_entity of every reader and writer of the server. */
static void rec_svc_entities(struct rec_svc *sv, struct btdds_svc_server *server, bool add)
{
	dds_entity_t e[2 * REC_SVC_MAX];
	size_t n = btdds_svc_server_entities(server, e, 2 * REC_SVC_MAX);
	for (size_t i = 0; sv->on_entity != NULL && i < n && i < 2 * REC_SVC_MAX; i++)
		sv->on_entity(sv->on_entity_ctx, e[i], add);
}

static void rec_svc_free(struct rec_svc *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->names[i]);
	link_unref(sv->link);
	free(sv);
}

bt_status rec_svc_start(const struct rec_svc_options *o, struct rec_svc **out,
			struct bt_error *err)
{
	static const char *const names[REC_SVC_MAX] = {
		"snapshot", "split_bagfile", "pause", "resume", "is_paused",
		"snapshot_with_parameters"};
	if (!btdds_node_name_valid(o->node_name))
		return bt_err_set(err, BT_ERR_USAGE, "'%s' is not a node name", o->node_name);
	struct rec_svc *sv = bt_xcalloc(1, sizeof *sv);
	sv->cmdq = o->cmdq;
	sv->on_entity = o->on_entity;
	sv->on_entity_ctx = o->on_entity_ctx;
	sv->link = bt_xcalloc(1, sizeof *sv->link);
	pthread_mutex_init(&sv->link->mu, NULL);
	sv->link->refs = 1;
	struct btdds_svc_def defs[REC_SVC_MAX];
	for (size_t i = 0; i < REC_SVC_MAX; i++) {
		const struct btdds_rb2_svc *s = btdds_rb2_recorder_svc(names[i]);
		if (o->humble && !s->recorder_humble)
			continue;
		sv->rb2[sv->n] = s;
		sv->names[sv->n] = bt_xasprintf("/%s/%s", o->node_name, s->name);
		defs[sv->n] = (struct btdds_svc_def){sv->names[sv->n], s->type,
						     btdds_rb2_req_size(s->req)};
		sv->n++;
	}
	struct btdds_svc_server_options so = {
		.pp = o->pp, .defs = defs, .n_defs = sv->n, .handler = rec_svc_request, .ctx = sv,
		.twin_hint = "give each its own --node-name"};
	struct btdds_svc_server *server;
	bt_status st = btdds_svc_server_start(&so, &server, err);
	if (st != BT_OK) {
		rec_svc_free(sv);
		return st;
	}
	sv->link->server = server;
	rec_svc_entities(sv, server, true);
	*out = sv;
	return BT_OK;
}

void rec_svc_stop(struct rec_svc *sv)
{
	if (sv == NULL)
		return;
	pthread_mutex_lock(&sv->link->mu);
	struct btdds_svc_server *server = sv->link->server;
	sv->link->server = NULL;
	pthread_mutex_unlock(&sv->link->mu);
	rec_svc_entities(sv, server, false);
	uint64_t c[BTDDS_SVC_N_COUNTS];
	btdds_svc_server_stop(server, c);
	btdds_svc_counts_say(c);
	rec_svc_free(sv);
}
