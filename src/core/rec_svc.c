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

#define REC_SVC_MAX 5

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
	if (strcmp(s->name, "snapshot") == 0)
		return REC_CMD_SNAPSHOT;
	if (strcmp(s->name, "split_bagfile") == 0)
		return REC_CMD_SPLIT;
	if (strcmp(s->name, "pause") == 0)
		return REC_CMD_PAUSE;
	if (strcmp(s->name, "resume") == 0)
		return REC_CMD_RESUME;
	return REC_CMD_IS_PAUSED;
}

/* The command's result, on the thread that finished it: the reply (one
 * byte: success, paused, or the empty message's member), or none. */
static void rec_svc_done(void *ctx, const struct bt_cmd *cmd, const struct bt_cmd_result *res)
{
	struct rec_svc_link *l = ctx;
	uint64_t ticket = cmd->tag;
	bool done = res->outcome == BT_CMD_DONE;
	unsigned char body = 0;
	if (cmd->kind == REC_CMD_SNAPSHOT)
		body = done; /* refused / failed: success false */
	else if (cmd->kind == REC_CMD_IS_PAUSED)
		body = res->value != 0;
	bool answer = done || cmd->kind == REC_CMD_SNAPSHOT;
	pthread_mutex_lock(&l->mu);
	if (l->server != NULL) {
		bt_status st = answer ? btdds_svc_server_reply(l->server, ticket, &body, 1)
				      : btdds_svc_server_refuse(l->server, ticket);
		if (st != BT_OK)
			bt_log_debug("service reply %llu: too late", (unsigned long long)ticket);
	}
	pthread_mutex_unlock(&l->mu);
	link_unref(l);
}

/* The server thread's handler: the request as a command. */
static void rec_svc_request(void *ctx, const struct btdds_svc_request *rq)
{
	struct rec_svc *sv = ctx;
	struct bt_cmd cmd = rec_cmd_make(rec_svc_kind(sv->rb2[rq->service]), BT_CMD_FROM_SERVICE,
					 0, "%s from client %s", sv->names[rq->service],
					 rq->clientid[0] ? rq->clientid + strspn(rq->clientid, " ")
							 : "?");
	cmd.tag = rq->ticket;
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
	static const char *const names[REC_SVC_MAX] = {"snapshot", "split_bagfile", "pause",
						       "resume", "is_paused"};
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
		.pp = o->pp, .defs = defs, .n_defs = sv->n, .handler = rec_svc_request, .ctx = sv};
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
