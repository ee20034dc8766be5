/* app_info_scan — every message read once for `bagtop info -v`
 * (app_info_scan.h). A service event's ServiceEventInfo
 * (btdds_svc_get_event_info) gives its (client gid, sequence number) pair;
 * the pairs are collected per topic and per side, then sorted, and the
 * distinct ones counted. */
#include "app_info_scan.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_str.h"
#include "btdds_cdr.h"
#include "btdds_names.h"
#include "btdds_service.h"

struct scan_call {
	unsigned char gid[16];
	int64_t seq;
};

struct scan_calls {
	struct scan_call *v;
	size_t n, cap;
};

struct scan {
	struct app_info_scan_topic *t;
	struct scan_calls *req, *resp; /* per topic */
};

static void scan_push(struct scan_calls *c, const unsigned char *gid, int64_t seq)
{
	bt_xgrow((void **)&c->v, &c->cap, c->n + 1, sizeof *c->v);
	memcpy(c->v[c->n].gid, gid, 16);
	c->v[c->n++].seq = seq;
}

/* One service event: its pair goes to the requests (REQUEST_SENT,
 * REQUEST_RECEIVED) or the responses (RESPONSE_SENT, RESPONSE_RECEIVED). */
static void scan_event(struct scan *s, size_t i, const uint8_t *data, size_t len)
{
	struct btdds_cdr_rd r;
	struct btdds_svc_event_info e;
	if (btdds_cdr_rd_init(&r, data, len) != BT_OK || !btdds_svc_get_event_info(&r, &e) ||
	    e.event_type > BTDDS_SVC_RESPONSE_RECEIVED) {
		s->t[i].unreadable++;
		return;
	}
	bool request = e.event_type <= BTDDS_SVC_REQUEST_RECEIVED;
	scan_push(request ? &s->req[i] : &s->resp[i], e.client_gid, e.sequence_number);
}

static int scan_cmp(const void *a, const void *b)
{
	const struct scan_call *x = a, *y = b;
	int c = memcmp(x->gid, y->gid, 16);
	return c ? c : (x->seq > y->seq) - (x->seq < y->seq);
}

/* The distinct pairs of c (sorted here), then c freed. */
static uint64_t scan_distinct(struct scan_calls *c)
{
	uint64_t n = 0;
	if (c->n)
		qsort(c->v, c->n, sizeof *c->v, scan_cmp);
	for (size_t i = 0; i < c->n; i++)
		n += i == 0 || scan_cmp(&c->v[i - 1], &c->v[i]) != 0;
	free(c->v);
	return n;
}

bt_status app_info_scan(struct bag_reader *r, struct app_info_scan_topic **out, size_t *n,
			struct bt_error *err)
{
	const struct bag_reader_topic *bt = bag_reader_topics(r, n);
	struct scan s = {bt_xcalloc(*n ? *n : 1, sizeof *s.t),
			 bt_xcalloc(*n ? *n : 1, sizeof *s.req),
			 bt_xcalloc(*n ? *n : 1, sizeof *s.resp)};
	bool *service = bt_xcalloc(*n ? *n : 1, sizeof *service);
	for (size_t i = 0; i < *n; i++) {
		s.t[i].name = bt_xstrdup(bt[i].topic.name);
		service[i] = bt_str_ends_with(bt[i].topic.name, BTDDS_SERVICE_EVENT_SUFFIX);
	}
	struct bag_read_msg m;
	int rc;
	while ((rc = bag_reader_next(r, &m, err)) > 0) {
		if (m.topic >= *n)
			continue;
		s.t[m.topic].bytes += m.len;
		if (service[m.topic])
			scan_event(&s, m.topic, m.data, m.len);
	}
	for (size_t i = 0; i < *n; i++) {
		s.t[i].requests = scan_distinct(&s.req[i]);
		s.t[i].responses = scan_distinct(&s.resp[i]);
	}
	free(service);
	free(s.req);
	free(s.resp);
	if (rc < 0) {
		app_info_scan_free(s.t, *n);
		return err ? err->code : BT_ERR_FORMAT;
	}
	*out = s.t;
	return BT_OK;
}

void app_info_scan_free(struct app_info_scan_topic *t, size_t n)
{
	for (size_t i = 0; t != NULL && i < n; i++)
		free(t[i].name);
	free(t);
}

const struct app_info_scan_topic *app_info_scan_find(const struct app_info_scan_topic *t,
						     size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}
