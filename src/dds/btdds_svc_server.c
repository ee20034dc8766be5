/* btdds_svc_server — services served over raw topics (btdds_svc_server.h).
 * Facts from rmw_cyclonedds rmw_node.cpp (rmw_create_service,
 * rmw_take_request, rmw_send_response, check_for_response_reader). */
#include "btdds_svc_server.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "btdds_raw.h"
#include "btdds_service.h"
#include "btdds_svc_twin.h"
#include "btdds_userdata.h"

#define SVC_HDR 20 /* encapsulation (4) + guid (8) + seq (8) */
#define SVC_GATE_POLL_NS DDS_MSECS(10)
#define SVC_MATCH_MAX 256 /* readers of one reply topic looked at */

struct svc_entry {
	struct btdds_svc_ends ends;
	char *name;
	size_t min_body;
};

/* A request accepted and not yet answered; ticket 0: a free slot. Only
 * the server thread fills and frees a slot; btdds_svc_server_reply only
 * makes it ready (body set), under mu. */
struct svc_pending {
	uint64_t ticket;
	size_t service;
	uint64_t guid;
	int64_t seq;
	dds_instance_handle_t writer; /* the request's writer */
	char clientid[BTDDS_SVC_ID_MAX];
	bool has_clientid;
	int64_t answer_by;  /* monotonic */
	int64_t gate_until; /* monotonic, once ready */
	bool ready;
	bool refused; /* ready without an answer */
	unsigned char *body;
	size_t len;
};

struct btdds_svc_server {
	btdds_svc_handler handler;
	void *ctx;
	int64_t gate_ns;
	struct svc_entry *svc;
	size_t n_svc;
	dds_entity_t waitset, guard;
	struct btdds_svc_twin *twin; /* another server of these services */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	pthread_mutex_t mu;
	struct svc_pending pend[BTDDS_SVC_PENDING];
	uint64_t next_ticket; /* server thread */
	double tokens;        /* the rate's bucket; server thread */
	int64_t tokens_t;
	atomic_uint_fast64_t counts[BTDDS_SVC_N_COUNTS];
	atomic_bool said[BTDDS_SVC_N_COUNTS];
};

static const char *const svc_count_names[BTDDS_SVC_N_COUNTS] = {
	[BTDDS_SVC_RECEIVED] = "received",
	[BTDDS_SVC_ANSWERED] = "answered",
	[BTDDS_SVC_TOO_LARGE] = "too large",
	[BTDDS_SVC_BAD_ENCODING] = "not plain CDR",
	[BTDDS_SVC_BAD_HEADER] = "truncated header",
	[BTDDS_SVC_BAD_LENGTH] = "body too short",
	[BTDDS_SVC_REFUSED_RATE] = "refused: over the rate",
	[BTDDS_SVC_REFUSED_BUSY] = "refused: too many pending",
	[BTDDS_SVC_REFUSED] = "refused by the recorder",
	[BTDDS_SVC_UNANSWERED] = "not answered in time",
	[BTDDS_SVC_NO_CLIENT] = "client's reply reader not matched",
	[BTDDS_SVC_WRITE_FAILED] = "reply not written",
};

const char *btdds_svc_count_str(enum btdds_svc_count c)
{
	return c < BTDDS_SVC_N_COUNTS ? svc_count_names[c] : "?";
}

void btdds_svc_server_counts(const struct btdds_svc_server *s, uint64_t out[BTDDS_SVC_N_COUNTS])
{
	for (size_t i = 0; i < BTDDS_SVC_N_COUNTS; i++)
		out[i] = atomic_load_explicit(&s->counts[i], memory_order_relaxed);
}

size_t btdds_svc_server_entities(const struct btdds_svc_server *s, dds_entity_t *out,
				 size_t cap)
{
	for (size_t i = 0; i < s->n_svc; i++) {
		if (2 * i < cap)
			out[2 * i] = s->svc[i].ends.reader;
		if (2 * i + 1 < cap)
			out[2 * i + 1] = s->svc[i].ends.writer;
	}
	return 2 * s->n_svc;
}

void btdds_svc_counts_say(const uint64_t c[BTDDS_SVC_N_COUNTS])
{
	bool any = false;
	for (int i = 0; i < BTDDS_SVC_N_COUNTS; i++)
		any = any || c[i] > 0;
	if (!any)
		return; /* nobody called: nothing to tell at every end */
	struct bt_buf b = BT_BUF_INIT;
	bool bad = false;
	bt_status st = bt_buf_printf(&b, "services: %llu requests received, %llu answered",
				     (unsigned long long)c[BTDDS_SVC_RECEIVED],
				     (unsigned long long)c[BTDDS_SVC_ANSWERED]);
	for (int i = BTDDS_SVC_ANSWERED + 1; i < BTDDS_SVC_N_COUNTS && st == BT_OK; i++)
		if (c[i] > 0) {
			bad = true;
			st = bt_buf_printf(&b, ", %llu %s", (unsigned long long)c[i],
					   btdds_svc_count_str((enum btdds_svc_count)i));
		}
	if (st == BT_OK)
		bt_log(bad ? BT_LOG_WARN : BT_LOG_INFO, "%s", b.data);
	bt_buf_fini(&b);
}

/* Counts one request of `service` under reason c; the first of each
 * reason but the normal ones is said once. */
static void svc_count(struct btdds_svc_server *s, size_t service, enum btdds_svc_count c)
{
	atomic_fetch_add_explicit(&s->counts[c], 1, memory_order_relaxed);
	if (c != BTDDS_SVC_RECEIVED && c != BTDDS_SVC_ANSWERED &&
	    !atomic_exchange(&s->said[c], true))
		bt_log_warn("service %s: a request not answered (%s); further ones are counted, "
			    "not said",
			    s->svc[service].name, svc_count_names[c]);
}

/* ---- entities ---- */

static bt_status svc_entry_make(struct svc_entry *e, dds_entity_t pp,
				const struct btdds_svc_def *d, struct bt_error *err)
{
	char *probe = btdds_svc_type(d->type, true);
	bool typed = probe != NULL;
	free(probe);
	if (!typed)
		return bt_err_set(err, BT_ERR_USAGE, "'%s' is not a service type", d->type);
	dds_return_t rc = btdds_svc_ends_create(pp, d->name, d->type, true, &e->ends);
	if (rc < 0)
		return bt_err_set(err, BT_ERR_DDS, "service %s: %s", d->name, dds_strretcode(rc));
	return BT_OK;
}

static void svc_entities_delete(struct btdds_svc_server *s)
{
	btdds_svc_twin_free(s->twin);
	if (s->waitset > 0)
		(void)dds_delete(s->waitset);
	if (s->guard > 0)
		(void)dds_delete(s->guard);
	for (size_t i = 0; i < s->n_svc; i++) {
		struct svc_entry *e = &s->svc[i];
		btdds_svc_ends_delete(&e->ends);
		free(e->name);
	}
}

static bt_status svc_make_all(struct btdds_svc_server *s, const struct btdds_svc_server_options *o,
			      struct bt_error *err)
{
	dds_return_t rc = s->waitset = dds_create_waitset(o->pp);
	if (rc >= 0)
		rc = s->guard = dds_create_guardcondition(o->pp);
	if (rc >= 0)
		rc = dds_waitset_attach(s->waitset, s->guard, -1);
	if (rc < 0)
		return bt_err_set(err, BT_ERR_DDS, "services: %s", dds_strretcode(rc));
	for (size_t i = 0; i < o->n_defs; i++) {
		struct svc_entry *e = &s->svc[i];
		e->name = bt_xstrdup(o->defs[i].name);
		e->min_body = o->defs[i].min_body;
		s->n_svc = i + 1;
		bt_status st = svc_entry_make(e, o->pp, &o->defs[i], err);
		if (st != BT_OK)
			return st;
		if ((rc = dds_waitset_attach(s->waitset, e->ends.cond, (dds_attach_t)i)) < 0)
			return bt_err_set(err, BT_ERR_DDS, "service %s: %s", e->name,
					  dds_strretcode(rc));
	}
	/* Only a warning depends on it: the services run without it. */
	struct bt_error twin_err;
	if (btdds_svc_twin_new(o->pp, s->waitset, o->defs, o->n_defs, o->twin_hint, &s->twin,
			       &twin_err) != BT_OK)
		bt_log_info("%s", twin_err.msg);
	return BT_OK;
}

/* ---- requests ---- */

/* The clientid in the USER_DATA of the request's writer: 1 found, 0 none,
 * -1 the writer is not known (gone). */
static int svc_clientid(const struct svc_entry *e, dds_instance_handle_t wr,
			char out[BTDDS_SVC_ID_MAX])
{
	dds_builtintopic_endpoint_t *ep = dds_get_matched_publication_data(e->ends.reader, wr);
	if (ep == NULL)
		return -1;
	void *ud = NULL;
	size_t n = 0;
	int found = ep->qos != NULL && dds_qget_userdata(ep->qos, &ud, &n) && ud != NULL &&
		    btdds_userdata_value(ud, n, "clientid", out, BTDDS_SVC_ID_MAX);
	dds_free(ud);
	dds_builtintopic_free_endpoint(ep);
	return found;
}

/* Takes a token of the rate's bucket; false when there is none. */
static bool svc_rate_take(struct btdds_svc_server *s)
{
	int64_t now = bt_time_monotonic_ns();
	s->tokens += (double)(now - s->tokens_t) * BTDDS_SVC_RATE / 1e9;
	s->tokens_t = now;
	if (s->tokens > BTDDS_SVC_BURST)
		s->tokens = BTDDS_SVC_BURST;
	if (s->tokens < 1.0)
		return false;
	s->tokens -= 1.0;
	return true;
}

/* A free slot, filled with `p` and a new ticket: its ticket, or 0 when
 * every slot is taken. */
static uint64_t svc_pend_add(struct btdds_svc_server *s, struct svc_pending *p)
{
	uint64_t ticket = 0;
	pthread_mutex_lock(&s->mu);
	for (size_t k = 0; k < BTDDS_SVC_PENDING && ticket == 0; k++)
		if (s->pend[k].ticket == 0) {
			p->ticket = ticket = ++s->next_ticket;
			s->pend[k] = *p;
		}
	pthread_mutex_unlock(&s->mu);
	return ticket;
}

/* What is wrong with a request of `len` bytes at `b`, or RECEIVED when
 * nothing is: *r then reads its body, *guid and *seq its header. */
static enum btdds_svc_count svc_check(const struct svc_entry *e, const unsigned char *b,
				      size_t len, struct btdds_cdr_rd *r, uint64_t *guid,
				      int64_t *seq)
{
	if (len > BTDDS_SVC_REQ_MAX)
		return BTDDS_SVC_TOO_LARGE;
	if (len >= 2 && (b[0] != 0 || b[1] > 1))
		return BTDDS_SVC_BAD_ENCODING;
	if (len < SVC_HDR || btdds_cdr_rd_init(r, b, len) != BT_OK ||
	    !btdds_svc_get_header(r, guid, seq))
		return BTDDS_SVC_BAD_HEADER;
	if (len - SVC_HDR < e->min_body)
		return BTDDS_SVC_BAD_LENGTH;
	return BTDDS_SVC_RECEIVED;
}

struct svc_take {
	struct btdds_svc_server *s;
	size_t service;
};

static bool svc_on_request(void *arg, const struct btdds_raw_sample *smp)
{
	struct svc_take *t = arg;
	struct btdds_svc_server *s = t->s;
	const struct svc_entry *e = &s->svc[t->service];
	svc_count(s, t->service, BTDDS_SVC_RECEIVED);
	struct btdds_cdr_rd r;
	struct svc_pending p = {.service = t->service, .writer = smp->publication_handle};
	enum btdds_svc_count why = svc_check(e, smp->data, smp->len, &r, &p.guid, &p.seq);
	if (why == BTDDS_SVC_RECEIVED && !svc_rate_take(s))
		why = BTDDS_SVC_REFUSED_RATE;
	if (why != BTDDS_SVC_RECEIVED) {
		svc_count(s, t->service, why);
		return true;
	}
	int id = svc_clientid(e, p.writer, p.clientid);
	if (id < 0) {
		svc_count(s, t->service, BTDDS_SVC_NO_CLIENT);
		return true;
	}
	p.has_clientid = id > 0;
	p.answer_by = bt_time_monotonic_ns() + BTDDS_SVC_ANSWER_NS;
	uint64_t ticket = svc_pend_add(s, &p);
	if (ticket == 0) {
		svc_count(s, t->service, BTDDS_SVC_REFUSED_BUSY);
		return true;
	}
	struct btdds_svc_request rq = {t->service, ticket, &r, p.has_clientid ? p.clientid : ""};
	s->handler(s->ctx, &rq);
	return true;
}

/* Makes request `ticket` ready with `copy` (owned; NULL: refused). */
static bt_status svc_ready(struct btdds_svc_server *s, uint64_t ticket, unsigned char *copy,
			   size_t len)
{
	bt_status st = BT_ERR_NOTFOUND;
	pthread_mutex_lock(&s->mu);
	for (size_t k = 0; k < BTDDS_SVC_PENDING; k++) {
		struct svc_pending *p = &s->pend[k];
		if (p->ticket == ticket && ticket != 0 && !p->ready) {
			p->ready = true;
			p->refused = copy == NULL;
			p->body = copy;
			p->len = len;
			p->gate_until = bt_time_monotonic_ns() + s->gate_ns;
			copy = NULL;
			st = BT_OK;
		}
	}
	pthread_mutex_unlock(&s->mu);
	free(copy);
	if (st == BT_OK)
		(void)dds_set_guardcondition(s->guard, true);
	return st;
}

bt_status btdds_svc_server_reply(struct btdds_svc_server *s, uint64_t ticket, const void *body,
				 size_t len)
{
	unsigned char *copy = bt_xmalloc(len ? len : 1);
	if (len)
		memcpy(copy, body, len);
	return svc_ready(s, ticket, copy, len);
}

bt_status btdds_svc_server_refuse(struct btdds_svc_server *s, uint64_t ticket)
{
	return svc_ready(s, ticket, NULL, 0);
}

/* ---- replies ---- */

enum svc_present { SVC_YES, SVC_MAYBE, SVC_GONE };

/* Whether the reply writer has matched the reader of the client that
 * sent p (rmw's check_for_response_reader). */
static enum svc_present svc_client_present(const struct svc_entry *e, const struct svc_pending *p)
{
	if (!p->has_clientid)
		return SVC_YES;
	dds_instance_handle_t rds[SVC_MATCH_MAX];
	dds_return_t n = dds_get_matched_subscriptions(e->ends.writer, rds, SVC_MATCH_MAX);
	if (n < 0)
		return SVC_MAYBE;
	for (dds_return_t i = 0; i < n && i < SVC_MATCH_MAX; i++) {
		dds_builtintopic_endpoint_t *ep =
			dds_get_matched_subscription_data(e->ends.writer, rds[i]);
		if (ep == NULL)
			continue;
		void *ud = NULL;
		size_t un = 0;
		char id[BTDDS_SVC_ID_MAX];
		bool same = ep->qos != NULL && dds_qget_userdata(ep->qos, &ud, &un) && ud != NULL &&
			    btdds_userdata_value(ud, un, "clientid", id, sizeof id) &&
			    strcmp(id, p->clientid) == 0;
		dds_free(ud);
		dds_builtintopic_free_endpoint(ep);
		if (same)
			return SVC_YES;
	}
	return SVC_MAYBE;
}

static enum btdds_svc_count svc_write(const struct svc_entry *e, const struct svc_pending *p)
{
	struct btdds_cdr_wr w;
	btdds_cdr_wr_init(&w);
	btdds_svc_put_header(&w, p->guid, p->seq);
	for (size_t i = 0; i < p->len; i++)
		btdds_cdr_put_u8(&w, p->body[i]);
	btdds_cdr_wr_finish(&w);
	dds_return_t rc = btdds_raw_write(e->ends.writer, w.b.data, w.b.len);
	btdds_cdr_wr_fini(&w);
	return rc < 0 ? BTDDS_SVC_WRITE_FAILED : BTDDS_SVC_ANSWERED;
}

/* Frees slot k (server thread). */
static void svc_pend_free(struct btdds_svc_server *s, size_t k)
{
	pthread_mutex_lock(&s->mu);
	free(s->pend[k].body);
	memset(&s->pend[k], 0, sizeof s->pend[k]);
	pthread_mutex_unlock(&s->mu);
}

/* One pass over the pending requests: writes the answered ones whose
 * client is there, forgets the expired ones. True while any is left. */
static bool svc_flush(struct btdds_svc_server *s, bool stopping)
{
	bool left = false;
	for (size_t k = 0; k < BTDDS_SVC_PENDING; k++) {
		pthread_mutex_lock(&s->mu);
		struct svc_pending p = s->pend[k]; /* once ready, only this thread changes it */
		pthread_mutex_unlock(&s->mu);
		if (p.ticket == 0)
			continue;
		int64_t now = bt_time_monotonic_ns();
		enum btdds_svc_count done = BTDDS_SVC_N_COUNTS;
		if (!p.ready) {
			if (stopping || now >= p.answer_by)
				done = BTDDS_SVC_UNANSWERED;
		} else if (p.refused) {
			done = BTDDS_SVC_REFUSED;
		} else {
			enum svc_present pr = svc_client_present(&s->svc[p.service], &p);
			if (pr == SVC_YES)
				done = svc_write(&s->svc[p.service], &p);
			else if (stopping || now >= p.gate_until)
				done = BTDDS_SVC_NO_CLIENT;
		}
		if (done == BTDDS_SVC_N_COUNTS) {
			left = true;
			continue;
		}
		/* A reply that comes between the copy and here finds the slot
		 * gone: it was not ready, and it is counted unanswered. */
		svc_pend_free(s, k);
		svc_count(s, p.service, done);
	}
	return left;
}

static void *svc_thread(void *arg)
{
	struct btdds_svc_server *s = arg;
	pthread_setname_np(pthread_self(), "btdds-svc");
	bool left = false;
	while (!atomic_load(&s->stop)) {
		(void)dds_waitset_wait(s->waitset, NULL, 0, left ? SVC_GATE_POLL_NS : DDS_SECS(1));
		(void)dds_set_guardcondition(s->guard, false);
		for (size_t i = 0; i < s->n_svc && !atomic_load(&s->stop); i++) {
			struct svc_take t = {s, i};
			(void)btdds_raw_take(s->svc[i].ends.reader, svc_on_request, &t);
		}
		btdds_svc_twin_poll(s->twin);
		left = svc_flush(s, false);
	}
	(void)svc_flush(s, true);
	return NULL;
}

bt_status btdds_svc_server_start(const struct btdds_svc_server_options *o,
				 struct btdds_svc_server **out, struct bt_error *err)
{
	struct btdds_svc_server *s = bt_xcalloc(1, sizeof *s);
	s->handler = o->handler;
	s->ctx = o->ctx;
	s->gate_ns = o->gate_ns > 0 ? o->gate_ns : BTDDS_SVC_GATE_NS;
	s->svc = bt_xcalloc(o->n_defs ? o->n_defs : 1, sizeof *s->svc);
	s->tokens = BTDDS_SVC_BURST;
	s->tokens_t = bt_time_monotonic_ns();
	pthread_mutex_init(&s->mu, NULL);
	bt_status st = svc_make_all(s, o, err);
	if (st == BT_OK && pthread_create(&s->thread, NULL, svc_thread, s) != 0)
		st = bt_err_set(err, BT_ERR_DDS, "services: cannot start their thread");
	if (st != BT_OK) {
		btdds_svc_server_stop(s, NULL);
		return st;
	}
	s->started = true;
	*out = s;
	return BT_OK;
}

void btdds_svc_server_stop(struct btdds_svc_server *s, uint64_t counts[BTDDS_SVC_N_COUNTS])
{
	if (s == NULL)
		return;
	if (s->started) {
		atomic_store(&s->stop, true);
		(void)dds_set_guardcondition(s->guard, true);
		pthread_join(s->thread, NULL);
	}
	if (counts != NULL)
		btdds_svc_server_counts(s, counts);
	svc_entities_delete(s);
	pthread_mutex_destroy(&s->mu);
	free(s->svc);
	free(s);
}
