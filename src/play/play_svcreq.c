/* play_svcreq — a service event topic played as calls (play_svcreq.h).
 *
 * A service event (service_msgs, Iron and later) is
 *   service_msgs/ServiceEventInfo info   (uint8 event_type,
 *       builtin_interfaces/Time stamp, char[16] client_gid,
 *       int64 sequence_number)
 *   X_Request[<=1] request
 *   X_Response[<=1] response
 * in plain CDR. The info's layout is fixed (btdds_svc_get_event_info); the
 * request's comes from the service's definition. */
#include "play_svcreq.h"

#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "btdds_cdr.h"
#include "btdds_cdr_copy.h"
#include "defs.h"
#include "defs_type.h"

struct play_svcreq {
	char *service;  /* as recorded, for the log */
	char *played;   /* the name it is called by (remapped) */
	char *srv_type; /* "pkg/srv/X" */
	struct defs_types *types;
	size_t request; /* index of X_Request in types */
	uint8_t wanted; /* the event type sent: REQUEST_RECEIVED or REQUEST_SENT */
	uint64_t guid;  /* the request writer's instance handle (rmw's client guid) */
	int64_t seq;    /* of the last request made */
	bool said_metadata, said_bad;
};

/* The bag's definition of the service: a row of its own type name, or of
 * the event's (MCAP's schema name), with a definition in it. */
static const struct bag_msgdef *svcreq_bag_def(const char *srv_type,
					       const struct bag_msgdef *defs, size_t n)
{
	size_t tl = strlen(srv_type);
	for (size_t i = 0; i < n; i++) {
		const char *t = defs[i].topic_type;
		bool named = !strcmp(t, srv_type) ||
			     (!strncmp(t, srv_type, tl) && !strcmp(t + tl, "_Event"));
		if (named && !strcmp(defs[i].encoding, "ros2msg") &&
		    defs[i].encoded_message_definition[0] != '\0')
			return &defs[i];
	}
	return NULL;
}

/* The definition text (malloc'ed) and where it came from, or NULL. */
static char *svcreq_def_text(const char *srv_type, const struct bag_msgdef *defs, size_t n,
			     const char **from)
{
	const struct bag_msgdef *d = svcreq_bag_def(srv_type, defs, n);
	if (d != NULL) {
		*from = "the bag";
		return bt_xstrdup(d->encoded_message_definition);
	}
	struct defs_options o = {.ament_prefix_path = getenv("AMENT_PREFIX_PATH"), .quiet = true};
	struct defs_source *src = NULL;
	struct bt_error err;
	if (defs_source_new(&o, &src, &err) != BT_OK)
		return NULL;
	struct defs_result r;
	defs_source_lookup(src, srv_type, &r);
	char *text = NULL;
	if (!strcmp(r.encoding, "ros2msg") && r.text[0] != '\0') {
		text = bt_xstrdup(r.text);
		*from = defs_origin_name(r.origin);
	}
	defs_result_fini(&r);
	defs_source_free(src);
	return text;
}

bt_status play_svcreq_new(const char *service, const char *played, const char *srv_type,
			  const struct bag_msgdef *defs, size_t n_defs, bool from_clients,
			  struct play_svcreq **out, struct bt_error *err)
{
	*out = NULL;
	const char *from = NULL;
	char *text = svcreq_def_text(srv_type, defs, n_defs, &from);
	if (text == NULL)
		return bt_err_set(err, BT_ERR_NOTFOUND, "no .srv definition of %s in the bag, "
				  "under AMENT_PREFIX_PATH or built in", srv_type);
	struct defs_types *types = NULL;
	bt_status st = defs_types_parse(srv_type, text, &types, err);
	free(text);
	if (st != BT_OK)
		return st;
	char *rq_name = bt_xasprintf("%s_Request", srv_type);
	size_t rq = defs_types_find(types, rq_name);
	free(rq_name);
	struct play_svcreq *s = bt_xcalloc(1, sizeof *s);
	*s = (struct play_svcreq){
		.service = bt_xstrdup(service),
		.played = bt_xstrdup(played),
		.srv_type = bt_xstrdup(srv_type),
		.types = types,
		.request = rq,
		.wanted = from_clients ? BTDDS_SVC_REQUEST_SENT : BTDDS_SVC_REQUEST_RECEIVED,
	};
	bt_log_info("%s: played as requests of %s%s%s (definition from %s)", service, srv_type,
		    strcmp(played, service) ? " on " : "", strcmp(played, service) ? played : "",
		    from);
	*out = s;
	return BT_OK;
}

void play_svcreq_free(struct play_svcreq *s)
{
	if (s == NULL)
		return;
	defs_types_free(s->types);
	free(s->service);
	free(s->played);
	free(s->srv_type);
	free(s);
}

dds_return_t play_svcreq_create(struct play_svcreq *s, dds_entity_t pp,
				struct btdds_svc_ends *ends)
{
	*ends = (struct btdds_svc_ends){0};
	dds_return_t rc = btdds_svc_ends_create(pp, s->played, s->srv_type, false, ends);
	dds_instance_handle_t ih = 0;
	if (rc >= 0)
		rc = dds_get_instance_handle(ends->writer, &ih);
	s->guid = ih;
	return rc;
}

uint64_t play_svcreq_guid(const struct play_svcreq *s)
{
	return s->guid;
}

/* Says (once per service) why an event gave no request; false. */
static bool svcreq_bad(struct play_svcreq *s, const struct bt_error *err)
{
	if (!s->said_bad)
		bt_log_warn("%s: a request not sent: %s (said once)", s->service, err->msg);
	s->said_bad = true;
	return false;
}

/* Reads the event's info and its request count into *n; BT_OK, or why not
 * in *err. *type is the event type. */
static bt_status svcreq_head(struct btdds_cdr_rd *r, const void *ev, size_t ev_len,
			     uint8_t *type, uint32_t *n, struct bt_error *err)
{
	if (btdds_cdr_rd_init(r, ev, ev_len) != BT_OK)
		return bt_err_set(err, BT_ERR_FORMAT, "the service event is not plain CDR");
	struct btdds_svc_event_info info;
	(void)btdds_svc_get_event_info(r, &info); /* a failure sticks to r */
	*type = info.event_type;
	*n = btdds_cdr_seq(r, 1);
	if (btdds_cdr_ok(r) && *n > 1)
		btdds_cdr_fail(r, "more than one request in an event");
	return btdds_cdr_error(r, "the service event", err);
}

/* The request of event ev in *w (header first); false when there is none
 * to send (*w then holds nothing). */
static bool svcreq_cut(struct play_svcreq *s, const void *ev, size_t ev_len,
		       struct btdds_cdr_wr *w)
{
	struct btdds_cdr_rd r;
	struct bt_error err = {0};
	uint8_t type = 0;
	uint32_t n = 0;
	if (svcreq_head(&r, ev, ev_len, &type, &n, &err) != BT_OK)
		return svcreq_bad(s, &err);
	if (type != s->wanted)
		return false; /* a response, or the other side's */
	if (n == 0) {
		if (!s->said_metadata)
			bt_log_warn("%s: a request event without its request (introspection was "
				    "metadata only): not sent", s->service);
		s->said_metadata = true;
		return false;
	}
	btdds_cdr_wr_init(w);
	btdds_svc_put_header(w, s->guid, s->seq + 1);
	if (btdds_cdr_copy(s->types, s->request, &r, w, "the service event", &err) != BT_OK) {
		btdds_cdr_wr_fini(w);
		return svcreq_bad(s, &err);
	}
	btdds_cdr_wr_finish(w);
	return true;
}

void *play_svcreq_make(struct play_svcreq *s, const struct btdds_raw_type *type,
		       const void *ev, size_t ev_len, size_t *len)
{
	struct btdds_cdr_wr w;
	if (!svcreq_cut(s, ev, ev_len, &w))
		return NULL;
	void *data;
	void *q = btdds_raw_out_new(type, w.b.len, &data);
	if (q != NULL) {
		memcpy(data, w.b.data, w.b.len);
		*len = w.b.len;
		s->seq++;
	}
	btdds_cdr_wr_fini(&w);
	return q;
}
