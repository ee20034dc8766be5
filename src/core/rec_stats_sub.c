/* rec_stats_sub — reads "BagtopStatistics" with the writer's QoS
 * (RELIABLE, TRANSIENT_LOCAL, KEEP_LAST 1 per recorder instance) and keeps
 * a copy of each recorder's latest sample. Samples are taken with loans
 * and copied out at once; the loan goes back before anything else. The
 * publication handle of each sample is remembered, so "every matched
 * writer has answered" can be told without waiting for a timeout. */
#include "rec_stats_sub.h"

#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "BagtopStats.h"
#include "bt_mem.h"
#include "btdds_participant.h"
#include "rec_stats_pub.h"

#define SUB_TAKE_MAX 16
#define SUB_MATCH_MAX 256

struct rec_stats_sub {
	dds_entity_t pp, reader, ws;
	struct rec_stats_sample *recs; /* sorted by host, pid, id */
	size_t n, cap;
	dds_instance_handle_t *answered; /* publications that delivered a sample */
	size_t n_answered, cap_answered;
};

static bt_status sub_fail(struct rec_stats_sub *s, const char *what, dds_return_t rc,
			  struct bt_error *err)
{
	rec_stats_sub_close(s);
	return bt_err_set(err, BT_ERR_DDS, "cannot start DDS: %s: %s", what, dds_strretcode(rc));
}

bt_status rec_stats_sub_open(uint32_t domain_id, const struct btdds_env *env,
			     struct rec_stats_sub **out, struct bt_error *err)
{
	struct rec_stats_sub *s = bt_xcalloc(1, sizeof *s);
	bt_status st = btdds_participant_create(domain_id, env, &s->pp, err);
	if (st != BT_OK) {
		s->pp = 0;
		rec_stats_sub_close(s);
		return st;
	}
	dds_qos_t *q = dds_create_qos();
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, 1);
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_entity_t tp = dds_create_topic(s->pp, &bagtop_stats_Statistics_desc, REC_STATS_TOPIC, q,
					   NULL);
	s->reader = tp < 0 ? tp : dds_create_reader(s->pp, tp, q, NULL);
	dds_delete_qos(q);
	if (s->reader < 0)
		return sub_fail(s, "create reader", s->reader, err);
	s->ws = dds_create_waitset(s->pp);
	dds_return_t rc = s->ws;
	if (rc >= 0)
		rc = dds_set_status_mask(s->reader, DDS_DATA_AVAILABLE_STATUS);
	if (rc >= 0)
		rc = dds_waitset_attach(s->ws, s->reader, 0);
	if (rc < 0)
		return sub_fail(s, "create waitset", rc, err);
	*out = s;
	return BT_OK;
}

static void sub_sample_fini(struct rec_stats_sample *r)
{
	free(r->id);
	free(r->host);
	free(r->version);
	free(r->bag);
	free(r->current_file);
	for (size_t i = 0; i < r->n_rows; i++) {
		free(r->rows[i].name);
		free(r->rows[i].type);
		free(r->rows[i].dds_name);
	}
	free(r->rows);
	memset(r, 0, sizeof *r);
}

static struct rec_stats_row sub_row(const bagtop_stats_TopicStatistics *t)
{
	const bagtop_stats_LossCounts *l = &t->lost;
	return (struct rec_stats_row){
		bt_xstrdup(t->name), bt_xstrdup(t->type), bt_xstrdup(t->dds_name), t->publishers,
		t->subscribed, t->enabled, t->reliable, t->transient_local, t->received,
		t->recorded, t->bytes,
		{
#define SUB_X_LOSS(field, yaml, idl, json, label, col, group, required) .field = l->idl,
			BAG_LOSS_CAUSES(SUB_X_LOSS)
#undef SUB_X_LOSS
		},
		t->lost_in_transport_total, t->lost_in_recorder_total, t->rate_hz, t->bandwidth_bps,
		t->average_rate_hz, t->last_receive_time, t->file_received,
		t->file_average_rate_hz, t->file_recorded, t->file_bytes,
		t->file_lost_in_transport, t->file_lost_in_recorder};
}

static void sub_copy(struct rec_stats_sample *r, const bagtop_stats_Statistics *m)
{
	const bagtop_stats_Totals *t = &m->totals;
	*r = (struct rec_stats_sample){
		.id = bt_xstrdup(m->recorder_id), .host = bt_xstrdup(m->host),
		.version = bt_xstrdup(m->version), .bag = bt_xstrdup(m->bag),
		.current_file = bt_xstrdup(m->current_file), .pid = m->pid,
		.start_time = m->start_time, .time = m->time, .serial = m->serial,
		.update_rate = m->update_rate, .file_index = m->file_index,
		.file_start_time = m->file_start_time,
		.state = m->state <= bagtop_stats_STOPPED ? (enum rec_stats_state)m->state
							  : REC_STATS_RECORDING,
		.totals = {t->topics_seen, t->topics_recorded, t->received, t->recorded, t->bytes,
			   t->lost_in_transport, t->lost_in_recorder, t->cache_fill, t->cache_max},
		.n_rows = m->topics._length};
	r->rows = bt_xcalloc(r->n_rows ? r->n_rows : 1, sizeof *r->rows);
	for (size_t i = 0; i < r->n_rows; i++)
		r->rows[i] = sub_row(&m->topics._buffer[i]);
}

static int sub_order(const struct rec_stats_sample *a, const struct rec_stats_sample *b)
{
	int c = strcmp(a->host, b->host);
	if (c == 0)
		c = a->pid < b->pid ? -1 : a->pid > b->pid;
	return c != 0 ? c : strcmp(a->id, b->id);
}

/* Replaces the recorder's previous sample or inserts it in order. */
static const struct rec_stats_sample *sub_keep(struct rec_stats_sub *s,
					       const bagtop_stats_Statistics *m)
{
	struct rec_stats_sample r;
	sub_copy(&r, m);
	size_t i = 0;
	while (i < s->n && strcmp(s->recs[i].id, r.id) != 0)
		i++;
	if (i < s->n) {
		sub_sample_fini(&s->recs[i]);
		memmove(s->recs + i, s->recs + i + 1, (s->n - i - 1) * sizeof *s->recs);
		s->n--;
	}
	bt_xgrow((void **)&s->recs, &s->cap, s->n + 1, sizeof *s->recs);
	for (i = 0; i < s->n && sub_order(&s->recs[i], &r) < 0; i++)
		;
	memmove(s->recs + i + 1, s->recs + i, (s->n - i) * sizeof *s->recs);
	s->recs[i] = r;
	s->n++;
	return &s->recs[i];
}

static void sub_answered(struct rec_stats_sub *s, dds_instance_handle_t pub)
{
	for (size_t i = 0; i < s->n_answered; i++)
		if (s->answered[i] == pub)
			return;
	bt_xgrow((void **)&s->answered, &s->cap_answered, s->n_answered + 1, sizeof *s->answered);
	s->answered[s->n_answered++] = pub;
}

/* Takes what is there now; returns the count or a DDS error. */
static int sub_take(struct rec_stats_sub *s, rec_stats_sample_fn fn, void *ctx)
{
	int taken = 0;
	for (;;) {
		void *buf[SUB_TAKE_MAX] = {NULL};
		dds_sample_info_t si[SUB_TAKE_MAX];
		dds_return_t n = dds_take(s->reader, buf, si, SUB_TAKE_MAX, SUB_TAKE_MAX);
		if (n <= 0)
			return n < 0 ? BT_ERR_DDS : taken;
		for (int i = 0; i < n; i++) {
			if (!si[i].valid_data)
				continue; /* a recorder went away: keep its last sample */
			const struct rec_stats_sample *r = sub_keep(s, buf[i]);
			sub_answered(s, si[i].publication_handle);
			taken++;
			if (fn != NULL)
				fn(ctx, r);
		}
		(void)dds_return_loan(s->reader, buf, n);
	}
}

int rec_stats_sub_poll(struct rec_stats_sub *s, int64_t timeout_ns, rec_stats_sample_fn fn,
		       void *ctx)
{
	dds_return_t rc = dds_waitset_wait(s->ws, NULL, 0, timeout_ns > 0 ? timeout_ns : 0);
	if (rc < 0)
		return BT_ERR_DDS;
	return sub_take(s, fn, ctx);
}

bool rec_stats_sub_complete(struct rec_stats_sub *s)
{
	dds_instance_handle_t m[SUB_MATCH_MAX];
	dds_return_t n = dds_get_matched_publications(s->reader, m, SUB_MATCH_MAX);
	if (n <= 0)
		return false;
	for (int i = 0; i < n && i < SUB_MATCH_MAX; i++) {
		size_t k = 0;
		while (k < s->n_answered && s->answered[k] != m[i])
			k++;
		if (k == s->n_answered)
			return false;
	}
	return true;
}

size_t rec_stats_sub_count(const struct rec_stats_sub *s)
{
	return s->n;
}

const struct rec_stats_sample *rec_stats_sub_get(const struct rec_stats_sub *s, size_t i)
{
	return &s->recs[i];
}

bool rec_stats_sub_domain(const struct rec_stats_sub *s, uint32_t *id)
{
	dds_domainid_t d;
	if (dds_get_domainid(s->pp, &d) < 0)
		return false;
	*id = (uint32_t)d;
	return true;
}

void rec_stats_sub_close(struct rec_stats_sub *s)
{
	if (s == NULL)
		return;
	(void)btdds_participant_delete(s->pp); /* closing: nothing to report */
	for (size_t i = 0; i < s->n; i++)
		sub_sample_fini(&s->recs[i]);
	free(s->recs);
	free(s->answered);
	free(s);
}
