/* btdds_service — rmw_cyclonedds's service encoding and a client over raw
 * topics (btdds_service.h). Facts from rmw_cyclonedds rmw_node.cpp
 * (rmw_init_cs, get_unique_csid, csid_to_string, rmw_send_request,
 * rmw_take_response) and serdata.hpp (cdds_request_header_t). */
#include "btdds_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_time.h"
#include "btdds_raw.h"

#define SVC_POLL_NS DDS_MSECS(50)
#define SVC_MATCH_MAX 64 /* endpoints looked at when counting a service's servers */
#define SVC_SETTLE_NS DDS_MSECS(150)     /* svc_settle: quiet this long */
#define SVC_SETTLE_MAX_NS DDS_SECS(1)    /* ... or at most this */
#define SVC_SETTLE_POLL_NS DDS_MSECS(10)
#define SVC_DEPTH 10 /* rmw_qos_profile_services_default */

/* Process-wide, as rmw's: ids and sequence numbers never repeat. */
static atomic_uint svc_id_counter;
static atomic_llong svc_seq_counter;

char *btdds_svc_topic(const char *service, bool request)
{
	return bt_xasprintf("%s%s%s%s", request ? "rq" : "rr", service[0] == '/' ? "" : "/",
			    service, request ? "Request" : "Reply");
}

char *btdds_svc_type(const char *type, bool request)
{
	const char *a = strchr(type, '/');
	if (a == NULL || a == type || strncmp(a, "/srv/", 5) != 0 || a[5] == '\0' ||
	    strchr(a + 5, '/') != NULL)
		return NULL;
	return bt_xasprintf("%.*s::srv::dds_::%s_%s_", (int)(a - type), type, a + 5,
			    request ? "Request" : "Response");
}

void btdds_svc_id(const dds_guid_t *participant, uint32_t counter, char out[BTDDS_SVC_ID_MAX])
{
	unsigned char id[16];
	memcpy(id, participant->v, 12);
	for (int i = 0; i < 4; i++)
		id[12 + i] = (unsigned char)(counter >> (24 - 8 * i));
	int n = snprintf(out, BTDDS_SVC_ID_MAX, "%2x", id[0]);
	for (size_t i = 1; i < sizeof id && n > 0 && n < BTDDS_SVC_ID_MAX; i++)
		n += snprintf(out + n, (size_t)(BTDDS_SVC_ID_MAX - n), ".%x", id[i]);
}

void btdds_svc_put_header(struct btdds_cdr_wr *w, uint64_t guid, int64_t seq)
{
	btdds_cdr_put_u64(w, guid);
	btdds_cdr_put_u64(w, (uint64_t)seq);
}

bool btdds_svc_get_header(struct btdds_cdr_rd *r, uint64_t *guid, int64_t *seq)
{
	*guid = btdds_cdr_u64(r);
	*seq = (int64_t)btdds_cdr_u64(r);
	return btdds_cdr_ok(r);
}

bool btdds_svc_get_event_info(struct btdds_cdr_rd *r, struct btdds_svc_event_info *out)
{
	out->event_type = btdds_cdr_u8(r);
	(void)btdds_cdr_u32(r); /* stamp.sec */
	(void)btdds_cdr_u32(r); /* stamp.nanosec */
	out->client_gid = btdds_cdr_bytes(r, 16);
	out->sequence_number = (int64_t)btdds_cdr_u64(r);
	return btdds_cdr_ok(r);
}

/* ---- the client ---- */

struct btdds_svc_client {
	struct btdds_svc_ends ends;
	dds_entity_t waitset;
	uint64_t guid; /* the request writer's instance handle */
	int64_t seq;   /* of the request being built */
	char *service;
};

dds_qos_t *btdds_svc_qos(const char *key, const char *id)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, SVC_DEPTH);
	dds_qset_liveliness(q, DDS_LIVELINESS_AUTOMATIC, DDS_INFINITY);
	dds_qset_writer_data_lifecycle(q, false);
	char ud[BTDDS_SVC_ID_MAX + 16];
	int n = snprintf(ud, sizeof ud, "%s=%s;", key, id);
	dds_qset_userdata(q, ud, (size_t)n);
	return q;
}

dds_return_t btdds_svc_new_id(dds_entity_t pp, char out[BTDDS_SVC_ID_MAX])
{
	dds_guid_t g;
	dds_return_t rc = dds_get_guid(pp, &g);
	if (rc == 0)
		btdds_svc_id(&g, atomic_fetch_add(&svc_id_counter, 1u) + 1u, out);
	return rc;
}

/* The request and reply topics, and rmw's QoS with a new id (a server's
 * "serviceid", a client's "clientid"; *qos: caller deletes; NULL on
 * error). */
static dds_return_t svc_topics(dds_entity_t pp, const char *service, const char *type,
			       bool server, struct btdds_svc_ends *e, dds_qos_t **qos)
{
	const struct btdds_raw_type *rq_type = NULL, *rr_type = NULL;
	char *rq = btdds_svc_topic(service, true), *rr = btdds_svc_topic(service, false);
	char *tq = btdds_svc_type(type, true), *tr = btdds_svc_type(type, false);
	char id[BTDDS_SVC_ID_MAX];
	dds_return_t rc = tq && tr ? btdds_svc_new_id(pp, id) : DDS_RETCODE_BAD_PARAMETER;
	if (rc >= 0)
		e->rq_topic = rc = btdds_raw_topic_create_typed(pp, rq, tq, false, &rq_type);
	if (rc >= 0)
		e->rr_topic = rc = btdds_raw_topic_create_typed(pp, rr, tr, false, &rr_type);
	e->out_type = server ? rr_type : rq_type;
	*qos = rc >= 0 ? btdds_svc_qos(server ? "serviceid" : "clientid", id) : NULL;
	free(rq);
	free(rr);
	free(tq);
	free(tr);
	return rc;
}

dds_return_t btdds_svc_ends_create(dds_entity_t pp, const char *service, const char *type,
				   bool server, struct btdds_svc_ends *e)
{
	dds_qos_t *q = NULL;
	dds_return_t rc = svc_topics(pp, service, type, server, e, &q);
	if (rc >= 0)
		e->writer = rc = dds_create_writer(pp, server ? e->rr_topic : e->rq_topic, q, NULL);
	if (rc >= 0)
		e->reader = rc = dds_create_reader(pp, server ? e->rq_topic : e->rr_topic, q, NULL);
	if (rc >= 0)
		e->cond = rc = dds_create_readcondition(e->reader, DDS_ANY_STATE);
	dds_delete_qos(q);
	return rc < 0 ? rc : 0;
}

void btdds_svc_ends_delete(const struct btdds_svc_ends *e)
{
	dds_entity_t v[] = {e->reader, e->writer, e->rr_topic, e->rq_topic};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
		if (v[i] > 0)
			(void)dds_delete(v[i]); /* the read condition goes with the reader */
}

static bt_status svc_entities(struct btdds_svc_client *c, dds_entity_t pp, const char *type,
			      struct bt_error *err)
{
	dds_return_t rc = btdds_svc_ends_create(pp, c->service, type, false, &c->ends);
	if (rc >= 0)
		c->waitset = rc = dds_create_waitset(pp);
	if (rc >= 0)
		rc = dds_waitset_attach(c->waitset, c->ends.cond, 0);
	dds_instance_handle_t ih = 0;
	if (rc >= 0)
		rc = dds_get_instance_handle(c->ends.writer, &ih);
	c->guid = ih;
	if (rc < 0)
		return bt_err_set(err, BT_ERR_DDS, "client of %s: %s", c->service,
				  dds_strretcode(rc));
	return BT_OK;
}

bt_status btdds_svc_client_new(dds_entity_t pp, const char *service, const char *type,
			       struct btdds_svc_client **out, struct bt_error *err)
{
	char *probe = btdds_svc_type(type, true);
	if (probe == NULL)
		return bt_err_set(err, BT_ERR_USAGE, "'%s' is not a service type (pkg/srv/Name)",
				  type);
	free(probe);
	struct btdds_svc_client *c = bt_xcalloc(1, sizeof *c);
	c->service = bt_xstrdup(service);
	bt_status st = svc_entities(c, pp, type, err);
	if (st != BT_OK) {
		btdds_svc_client_free(c);
		return st;
	}
	*out = c;
	return BT_OK;
}

void btdds_svc_client_free(struct btdds_svc_client *c)
{
	if (c == NULL)
		return;
	if (c->waitset > 0)
		(void)dds_delete(c->waitset);
	btdds_svc_ends_delete(&c->ends);
	free(c->service);
	free(c);
}

void btdds_svc_request_begin(struct btdds_svc_client *c, struct btdds_cdr_wr *w)
{
	c->seq = atomic_fetch_add(&svc_seq_counter, 1) + 1;
	btdds_cdr_wr_init(w);
	btdds_svc_put_header(w, c->guid, c->seq);
}

static bool svc_matched(const struct btdds_svc_client *c)
{
	dds_publication_matched_status_t pm;
	dds_subscription_matched_status_t sm;
	return dds_get_publication_matched_status(c->ends.writer, &pm) == 0 &&
	       pm.current_count > 0 &&
	       dds_get_subscription_matched_status(c->ends.reader, &sm) == 0 &&
	       sm.current_count > 0;
}

/* The participant of endpoint `ih` matched with `e`: one of its readers
 * when e is a writer (`readers`), else one of its writers. False when e no
 * longer knows it. */
static bool svc_matched_participant(dds_entity_t e, bool readers, dds_instance_handle_t ih,
				    dds_guid_t *out)
{
	dds_builtintopic_endpoint_t *ep = readers ? dds_get_matched_subscription_data(e, ih)
						  : dds_get_matched_publication_data(e, ih);
	if (ep == NULL)
		return false;
	*out = ep->participant_key;
	dds_builtintopic_free_endpoint(ep);
	return true;
}

/* The participants of the endpoints matched with this client's request
 * writer (`requests`: its readers) or reply reader (their writers), at most
 * SVC_MATCH_MAX; the count. */
static size_t svc_matched_participants(const struct btdds_svc_client *c, bool requests,
				       dds_guid_t out[SVC_MATCH_MAX])
{
	dds_instance_handle_t ih[SVC_MATCH_MAX];
	dds_entity_t e = requests ? c->ends.writer : c->ends.reader;
	dds_return_t n = requests ? dds_get_matched_subscriptions(e, ih, SVC_MATCH_MAX)
				  : dds_get_matched_publications(e, ih, SVC_MATCH_MAX);
	size_t k = 0;
	for (dds_return_t i = 0; i < n && i < SVC_MATCH_MAX; i++)
		k += svc_matched_participant(e, requests, ih[i], &out[k]);
	return k;
}

/* The number of servers: participants that read this client's requests
 * and write its replies. One that only reads requests (a recorder of the
 * service's topics) answers nothing and is no server. */
static uint32_t svc_servers(const struct btdds_svc_client *c)
{
	dds_guid_t rq[SVC_MATCH_MAX], rr[SVC_MATCH_MAX];
	size_t n_rq = svc_matched_participants(c, true, rq);
	size_t n_rr = svc_matched_participants(c, false, rr);
	uint32_t n = 0;
	for (size_t i = 0; i < n_rq; i++) {
		bool seen = false, writes = false;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !memcmp(rq[k].v, rq[i].v, sizeof rq[i].v);
		for (size_t k = 0; k < n_rr && !writes; k++)
			writes = !memcmp(rr[k].v, rq[i].v, sizeof rq[i].v);
		n += !seen && writes;
	}
	return n;
}

struct svc_take {
	const struct btdds_svc_client *c;
	struct btdds_svc_replies *out;
};

/* Keeps each reply to this client's current request; others (other
 * clients' on the shared reply topic, or stale ones) are dropped. */
static bool svc_on_reply(void *arg, const struct btdds_raw_sample *s)
{
	struct svc_take *t = arg;
	struct btdds_cdr_rd r;
	uint64_t guid;
	int64_t seq;
	if (btdds_cdr_rd_init(&r, s->data, s->len) != BT_OK ||
	    !btdds_svc_get_header(&r, &guid, &seq) || guid != t->c->guid || seq != t->c->seq)
		return true;
	struct btdds_svc_replies *o = t->out;
	if (o->n == BTDDS_SVC_REPLIES_MAX)
		return true; /* no server count is that high: not kept */
	o->v = bt_xrealloc(o->v, (o->n + 1) * sizeof *o->v);
	struct btdds_svc_reply *y = &o->v[o->n++];
	y->data = bt_xmalloc(s->len ? s->len : 1);
	memcpy(y->data, s->data, s->len);
	y->len = s->len;
	y->server = (dds_guid_t){{0}}; /* zeros: the reader no longer knows the writer */
	(void)svc_matched_participant(t->c->ends.reader, false, s->publication_handle, &y->server);
	return true;
}

static bool svc_stopped(const atomic_bool *stop)
{
	return stop != NULL && atomic_load_explicit(stop, memory_order_relaxed);
}

void btdds_svc_replies_fini(struct btdds_svc_replies *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].data);
	free(r->v);
	*r = (struct btdds_svc_replies){0};
}

/* Discovery finds a service's servers one after another, and a request
 * reaches only those matched when it is sent: once one is there, waits
 * until no reader of the requests has come for SVC_SETTLE_NS (at most
 * SVC_SETTLE_MAX_NS, within `end`). */
static void svc_settle(const struct btdds_svc_client *c, int64_t end, const atomic_bool *stop)
{
	int64_t now = bt_time_monotonic_ns(), last = now;
	int64_t until = now + SVC_SETTLE_MAX_NS < end ? now + SVC_SETTLE_MAX_NS : end;
	dds_publication_matched_status_t pm;
	if (dds_get_publication_matched_status(c->ends.writer, &pm) != 0)
		return;
	uint32_t seen = pm.total_count;
	while (now < until && now - last < SVC_SETTLE_NS && !svc_stopped(stop)) {
		dds_sleepfor(SVC_SETTLE_POLL_NS);
		now = bt_time_monotonic_ns();
		if (dds_get_publication_matched_status(c->ends.writer, &pm) != 0)
			return;
		if (pm.total_count != seen) {
			seen = pm.total_count;
			last = now;
		}
	}
}

/* Waits for a server (and, when `settle`, for the others: svc_settle),
 * then sends the request: BT_OK and *servers (counted just before the
 * write: a reader matched later does not get the request), or why not. */
static bt_status svc_send(struct btdds_svc_client *c, const struct btdds_cdr_wr *w, int64_t end,
			  bool settle, const atomic_bool *stop, uint32_t *servers,
			  struct bt_error *err)
{
	while (!svc_matched(c)) {
		if (svc_stopped(stop) || bt_time_monotonic_ns() >= end)
			return bt_err_set(err, BT_ERR_NOTFOUND, "no %s service found", c->service);
		dds_sleepfor(SVC_POLL_NS);
	}
	if (settle)
		svc_settle(c, end, stop);
	uint32_t n = svc_servers(c);
	dds_return_t rc = btdds_raw_write(c->ends.writer, w->b.data, w->b.len);
	if (rc < 0)
		return bt_err_set(err, BT_ERR_DDS, "%s: request not sent: %s", c->service,
				  dds_strretcode(rc));
	*servers = n;
	return BT_OK;
}

bt_status btdds_svc_client_call_all(struct btdds_svc_client *c, const struct btdds_cdr_wr *w,
				    int64_t timeout_ns, int64_t more_ns, const atomic_bool *stop,
				    struct btdds_svc_replies *out, struct bt_error *err)
{
	*out = (struct btdds_svc_replies){0};
	int64_t end = bt_time_monotonic_ns() + timeout_ns;
	bt_status st = svc_send(c, w, end, more_ns > 0, stop, &out->servers, err);
	if (st != BT_OK)
		return st;
	struct svc_take t = {c, out};
	bool first = false;
	while (out->n == 0 || (out->n < out->servers && more_ns > 0)) {
		if (svc_stopped(stop) || bt_time_monotonic_ns() >= end)
			break;
		(void)dds_waitset_wait(c->waitset, NULL, 0, SVC_POLL_NS);
		dds_return_t rc = btdds_raw_take(c->ends.reader, svc_on_reply, &t);
		if (rc < 0) {
			btdds_svc_replies_fini(out);
			return bt_err_set(err, BT_ERR_DDS, "%s: %s", c->service,
					  dds_strretcode(rc));
		}
		if (!first && out->n > 0) { /* the others get more_ns from now */
			first = true;
			int64_t by = bt_time_monotonic_ns() + more_ns;
			end = by < end ? by : end;
		}
	}
	if (out->n == 0)
		return bt_err_set(err, BT_ERR_STATE, "%s: no reply", c->service);
	if (out->servers < out->n) /* one matched after the count: it got the request */
		out->servers = (uint32_t)out->n;
	return BT_OK;
}

bt_status btdds_svc_client_call(struct btdds_svc_client *c, const struct btdds_cdr_wr *w,
				int64_t timeout_ns, const atomic_bool *stop, void **reply,
				size_t *len, struct bt_error *err)
{
	struct btdds_svc_replies r;
	bt_status st = btdds_svc_client_call_all(c, w, timeout_ns, 0, stop, &r, err);
	if (st != BT_OK)
		return st;
	*reply = r.v[0].data;
	*len = r.v[0].len;
	r.v[0].data = NULL;
	btdds_svc_replies_fini(&r);
	return BT_OK;
}
