/* rec_qos — the recorder reader's QoS, as rosbag2 adapts it
 * (rosbag2_storage/src/rosbag2_storage/qos.cpp,
 * Rosbag2QoS::adapt_request_to_offers), plus what a DDS reader needs that
 * rmw hides (ownership, latency budget, partitions; CYCLONE_RAW_CDR.md
 * §7.3). The override file it applies is btdds_qos_overrides'. */
#include "rec_qos.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"

/* ---- adaptation ---- */

static bool qos_all_reliable(const struct rec_offered *pubs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pubs[i].qos.reliability != BAG_RELIABILITY_RELIABLE)
			return false;
	return true;
}

static bool qos_all_transient_local(const struct rec_offered *pubs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (pubs[i].qos.durability != BAG_DURABILITY_TRANSIENT_LOCAL)
			return false;
	return true;
}

static bool qos_has_partition(char *const *v, size_t n, const char *p)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], p) == 0)
			return true;
	return false;
}

static void qos_add_partition(struct rec_requested *r, size_t *cap, const char *p)
{
	if (qos_has_partition(r->partitions, r->n_partitions, p))
		return;
	bt_xgrow((void **)&r->partitions, cap, r->n_partitions + 1, sizeof *r->partitions);
	r->partitions[r->n_partitions++] = bt_xstrdup(p);
}

/* The union of every publisher's partitions, "" standing for the default
 * partition (a publisher with none is in it). Only the default partition
 * is written as none, so the reader keeps Cyclone's default. */
static void qos_unite_partitions(const struct rec_offered *pubs, size_t n,
				 struct rec_requested *r)
{
	size_t cap = 0;
	for (size_t i = 0; i < n; i++) {
		if (pubs[i].n_partitions == 0)
			qos_add_partition(r, &cap, "");
		for (size_t k = 0; k < pubs[i].n_partitions; k++)
			qos_add_partition(r, &cap, pubs[i].partitions[k]);
	}
	if (r->n_partitions == 1 && r->partitions[0][0] == '\0') {
		free(r->partitions[0]);
		free(r->partitions);
		r->partitions = NULL;
		r->n_partitions = 0;
	}
}

static bool qos_time_is_zero(struct bag_qos_time t)
{
	return t.sec == 0 && t.nsec == 0;
}

/* An override field left at system_default / best_available ({0, 0} for
 * times: rmw's "unspecified") keeps the adapted value. */
static void qos_apply_override(const struct bag_qos *o, struct rec_requested *r)
{
	if (o->reliability == BAG_RELIABILITY_RELIABLE)
		r->reliable = true;
	else if (o->reliability == BAG_RELIABILITY_BEST_EFFORT)
		r->reliable = false;
	if (o->durability == BAG_DURABILITY_TRANSIENT_LOCAL)
		r->transient_local = true;
	else if (o->durability == BAG_DURABILITY_VOLATILE)
		r->transient_local = false;
	if (o->history == BAG_HISTORY_KEEP_ALL) {
		r->keep_all = true;
	} else if (o->depth > 0) {
		/* keep_last, or a depth alone (rclpy makes that keep_last). */
		r->depth = o->depth > UINT32_MAX ? UINT32_MAX : (uint32_t)o->depth;
	}
	if (!qos_time_is_zero(o->deadline))
		r->deadline = o->deadline;
	if (o->liveliness == BAG_LIVELINESS_AUTOMATIC ||
	    o->liveliness == BAG_LIVELINESS_MANUAL_BY_NODE ||
	    o->liveliness == BAG_LIVELINESS_MANUAL_BY_TOPIC)
		r->liveliness = o->liveliness;
	if (!qos_time_is_zero(o->liveliness_lease_duration))
		r->liveliness_lease_duration = o->liveliness_lease_duration;
	r->overridden = true;
}

/* With no publisher rosbag2 requests its default profile: reliable,
 * volatile (Rosbag2QoS{}); the recorder re-adapts when a publisher that
 * does not match appears. force_transient_local then asks for
 * transient-local (every one of no publishers offers it) so the first
 * transient-local publisher's history is received. Ownership: exclusive
 * only if every publisher is exclusive — a shared reader then matches the
 * shared publishers and misses the exclusive ones (which no single reader
 * could have both of). */
void rec_qos_adapt(const struct rec_offered *pubs, size_t n, const struct bag_qos *ovr,
		   bool force_transient_local, struct rec_requested *out)
{
	memset(out, 0, sizeof *out);
	out->reliable = qos_all_reliable(pubs, n);
	out->transient_local = n == 0 ? force_transient_local : qos_all_transient_local(pubs, n);
	out->depth = REC_QOS_DEFAULT_DEPTH;
	qos_unite_partitions(pubs, n, out);
	out->exclusive_ownership = n > 0;
	for (size_t i = 0; i < n; i++) {
		out->exclusive_ownership = out->exclusive_ownership && pubs[i].exclusive_ownership;
		if (pubs[i].latency_budget_ns > out->latency_budget_ns)
			out->latency_budget_ns = pubs[i].latency_budget_ns;
	}
	out->deadline = BAG_QOS_TIME_INFINITE;
	out->liveliness_lease_duration = BAG_QOS_TIME_INFINITE;
	out->liveliness = BAG_LIVELINESS_AUTOMATIC;
	if (ovr != NULL)
		qos_apply_override(ovr, out);
}

void rec_requested_fini(struct rec_requested *r)
{
	for (size_t i = 0; i < r->n_partitions; i++)
		free(r->partitions[i]);
	free(r->partitions);
	r->partitions = NULL;
	r->n_partitions = 0;
}

/* ---- compatibility (requested <= offered) ---- */

static int qos_time_cmp(struct bag_qos_time a, struct bag_qos_time b)
{
	if (a.sec != b.sec)
		return a.sec < b.sec ? -1 : 1;
	return a.nsec < b.nsec ? -1 : a.nsec > b.nsec;
}

/* AUTOMATIC < MANUAL_BY_PARTICIPANT (rmw: by node) < MANUAL_BY_TOPIC. */
static int qos_liveliness_rank(int kind)
{
	return kind == BAG_LIVELINESS_MANUAL_BY_TOPIC  ? 2
	       : kind == BAG_LIVELINESS_MANUAL_BY_NODE ? 1
						       : 0;
}

static bool qos_is_pattern(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

/* DDS partition matching: equal names, or a wildcard pattern on one side
 * matching a plain name on the other. */
static bool qos_partition_match(const char *a, const char *b)
{
	bool pa = qos_is_pattern(a), pb = qos_is_pattern(b);
	if (pa == pb)
		return strcmp(a, b) == 0;
	return pa ? fnmatch(a, b, 0) == 0 : fnmatch(b, a, 0) == 0;
}

static bool qos_partitions_intersect(const struct rec_requested *r, const struct rec_offered *p)
{
	static const char *const deflt[] = {""};
	const char *const *rv = r->n_partitions ? (const char *const *)r->partitions : deflt;
	size_t rn = r->n_partitions ? r->n_partitions : 1;
	const char *const *pv = p->n_partitions ? p->partitions : deflt;
	size_t pn = p->n_partitions ? p->n_partitions : 1;
	for (size_t i = 0; i < rn; i++)
		for (size_t k = 0; k < pn; k++)
			if (qos_partition_match(rv[i], pv[k]))
				return true;
	return false;
}

bool rec_qos_compatible(const struct rec_requested *r, const struct rec_offered *p)
{
	if (r->reliable && p->qos.reliability != BAG_RELIABILITY_RELIABLE)
		return false;
	if (r->transient_local && p->qos.durability != BAG_DURABILITY_TRANSIENT_LOCAL)
		return false;
	if (r->exclusive_ownership != p->exclusive_ownership)
		return false;
	if (r->latency_budget_ns < p->latency_budget_ns)
		return false;
	if (qos_time_cmp(r->deadline, p->qos.deadline) < 0)
		return false;
	if (qos_liveliness_rank(r->liveliness) > qos_liveliness_rank(p->qos.liveliness))
		return false;
	if (qos_time_cmp(r->liveliness_lease_duration, p->qos.liveliness_lease_duration) < 0)
		return false;
	return qos_partitions_intersect(r, p);
}
