/* rec_discovery — the "rec-discovery" thread: a waitset on DCPSPublication
 * (and DCPSSubscription, for --include-unpublished-topics and
 * --ignore-leaf-topics: rec_subscribers.c) keeps the topic table and every
 * topic's publications current, and creates or adapts readers for the
 * selected topics. Readers are only ever
 * created and deleted here, never in a listener (deleting an entity from
 * its own listener deadlocks; creating one there stalls reception).
 *
 * It also wakes every 200 ms, and at once through the `wake` guard
 * condition, to notice a stop request or topics the user switched on, and
 * to warn, once, about explicitly named topics nobody published within
 * 5 s, or about finding no topic at all by then. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "bt_time.h"
#include "btdds_env.h"
#include "rec__recorder.h"
#include "btdds_names.h"
#include "btdds_participant.h"
#include "rec_snapwin.h"

#define DISC_ROUNDS 1000 /* batches of discovery taken in one go */
#define DISC_TICK DDS_MSECS(200)
#define DISC_EXPLICIT_WARN_NS (INT64_C(5) * 1000000000)

/* Endpoint GUID entity kinds with a key (DDSI-RTPS 9.3.1.2). */
#define ENTITYKIND_WRITER_WITH_KEY 0x02
#define ENTITYKIND_READER_WITH_KEY 0x07

bool rec_discovery_foreign(const struct rec_recorder *r, const dds_builtintopic_endpoint_t *ep)
{
	return memcmp(ep->participant_key.v, r->own_guid.v, 12) != 0 && ep->topic_name != NULL &&
	       ep->type_name != NULL && !btdds_names_is_internal(ep->topic_name);
}

/* A --repeat-transient-local topic is marked in the store (and recorded:
 * a repeat of what is not recorded means nothing). */
static bool disc_mark_repeat(struct rec_recorder *r, struct rec_topic *tp)
{
	for (size_t i = 0; i < r->n_repeat; i++) {
		struct rec_repeat_name *n = &r->repeat[i];
		if (strcmp(n->dds, tp->names.dds_name) != 0 &&
		    !(tp->is_ros && strcmp(n->arg, tp->names.name) == 0))
			continue;
		n->seen = true;
		if (rec_tl_set_depth(r->tl, tp->index, n->depth) != BT_OK)
			bt_log_warn("%s: cannot repeat %u messages", tp->names.name, n->depth);
		return true;
	}
	return false;
}

/* The topic's --throttle rule (the first that names it), before any
 * reader of it exists. */
static void disc_throttle(struct rec_recorder *r, struct rec_topic *tp)
{
	tp->throttle = rec_throttle_find(r->opt.throttle, tp->names.dds_name,
					 tp->is_ros ? tp->names.name : NULL);
	rec_bucket_init(&tp->bucket, tp->throttle);
	if (tp->throttle != NULL) {
		char rate[48];
		bt_log_info("throttling %s to %s (--throttle %s)", tp->names.name,
			    rec_throttle_rate_str(tp->throttle, rate, sizeof rate),
			    tp->throttle->pattern);
	}
}

/* Discovery's first moments: what it finds by then was there when the
 * recording started (discovery tells of a running participant's
 * publications within milliseconds); what it finds later appeared while
 * recording (disc_appeared, --no-discovery). */
#define DISC_APPEARED_NS (INT64_C(2) * 1000000000)

/* Snapshot mode: the topic's window (--snapshot-window and
 * --snapshot-topic-cache, else the global ones), before any reader of it
 * exists. */
static void disc_snap_window(struct rec_recorder *r, struct rec_topic *tp)
{
	struct rec_snap_window w;
	if (r->snap == NULL ||
	    !rec_snapwin_find(r->opt.snapwin, tp->names.dds_name,
			      tp->is_ros ? tp->names.name : NULL, r->opt.snapshot_duration_ns,
			      r->opt.snapshot_post_ns, &w))
		return;
	rec_snap_topic_set(r->snap, tp->index, &w);
	char buf[96];
	bt_log_info("snapshot window of %s: %s", tp->names.name,
		    rec_snapwin_str(&w, buf, sizeof buf));
}

struct rec_sub *rec_discovery_sub_for(struct rec_recorder *r,
				      const dds_builtintopic_endpoint_t *ep)
{
	unsigned kind = ep->key.v[15] & 0x3f;
	bool keyed = kind == ENTITYKIND_WRITER_WITH_KEY || kind == ENTITYKIND_READER_WITH_KEY;
	struct rec_topic *tp = rec_topics_add(r->topics, ep->topic_name, ep->type_name, keyed);
	if (tp == NULL) {
		bt_log_warn("more than %d topics: %s is not recorded", REC_TOPICS_MAX,
			    ep->topic_name);
		return NULL;
	}
	if (tp->index >= r->cap_subs) {
		size_t old = r->cap_subs;
		bt_xgrow((void **)&r->subs, &r->cap_subs, tp->index + 1, sizeof *r->subs);
		memset(r->subs + old, 0, (r->cap_subs - old) * sizeof *r->subs);
	}
	struct rec_sub *s = r->subs[tp->index];
	if (s == NULL) {
		s = r->subs[tp->index] = rec_sub_new(r, tp);
		bool match = btdds_select_match_typed(r->select, tp->names.dds_name,
						      tp->is_ros ? tp->names.name : NULL,
						      tp->names.type);
		match = disc_mark_repeat(r, tp) || match;
		bool late = r->opt.no_discovery &&
			    bt_time_monotonic_ns() - r->discovery_mono > DISC_APPEARED_NS;
		if (match && late)
			bt_log_info("%s: appeared after the recording started: not recorded "
				    "(--no-discovery)",
				    tp->names.name);
		match = match && !late;
		s->leaf_held = match && r->opt.ignore_leaf &&
			       !rec_subscribers_has(r, tp->names.dds_name);
		s->selected = match && !s->leaf_held;
		atomic_store(&tp->enabled, s->selected);
		disc_throttle(r, tp);
		disc_snap_window(r, tp);
		if (s->leaf_held)
			bt_log_info("%s: nobody subscribes to it: not recorded until someone does "
				    "(--ignore-leaf-topics)", tp->names.name);
		bt_log_debug("discovered %s [%s]%s", tp->names.name, tp->names.type,
			     s->selected ? "" : " (not selected)");
	}
	return s;
}

/* A publication seen this long after its participant's first one was made
 * after it: a participant's publications are announced together, within
 * milliseconds of each other (more margin than DISC_APPEARED_NS, as a large
 * participant on a lossy link may take longer to announce them all). */
#define DISC_SIBLING_NS (INT64_C(5) * 1000000000)

/* Did publication `ep` appear while recording? Yes when its participant's
 * first publication was seen more than DISC_APPEARED_NS after discovery
 * started (the participant came later), or when `ep` itself is seen more
 * than DISC_SIBLING_NS after that first one (a new publisher of a
 * participant that was there: a lifecycle node activated, say).
 * What such a publisher sent before the recorder matched it belongs to the
 * recording: counted (`unmatched`). A publication seen in its
 * participant's first moments may have published for hours before: not
 * counted. */
static bool disc_appeared(struct rec_recorder *r, const dds_builtintopic_endpoint_t *ep)
{
	const unsigned char *prefix = ep->participant_key.v;
	int64_t now = bt_time_monotonic_ns();
	for (size_t i = 0; i < r->n_pps_seen;) {
		struct rec_participant_seen *e = &r->pps_seen[i];
		/* Seen more than DISC_SIBLING_NS ago: any publication of it counts
		 * now, as it would as a participant seen for the first time
		 * (recording runs longer than DISC_APPEARED_NS by then), so its
		 * entry goes: the list holds only the last moments' participants,
		 * not every one that ever came in days of recording. */
		if (now - e->first > DISC_SIBLING_NS) {
			*e = r->pps_seen[--r->n_pps_seen];
			continue;
		}
		if (memcmp(e->prefix, prefix, 12) == 0)
			return e->first - r->discovery_mono > DISC_APPEARED_NS;
		i++;
	}
	bt_xgrow((void **)&r->pps_seen, &r->cap_pps_seen, r->n_pps_seen + 1,
		 sizeof *r->pps_seen);
	struct rec_participant_seen *seen = &r->pps_seen[r->n_pps_seen++];
	memcpy(seen->prefix, prefix, 12);
	seen->first = now;
	return now - r->discovery_mono > DISC_APPEARED_NS;
}

static void disc_pub_alive(struct rec_recorder *r, dds_instance_handle_t ih,
			   const dds_builtintopic_endpoint_t *ep)
{
	if (!rec_discovery_foreign(r, ep))
		return;
	bool appeared = disc_appeared(r, ep);
	struct rec_sub *s = rec_discovery_sub_for(r, ep);
	if (s != NULL)
		rec_sub_pub_alive(s, ih, ep, appeared);
}

static void disc_pub_gone(struct rec_recorder *r, dds_instance_handle_t ih)
{
	size_t n = rec_topics_count(r->topics);
	for (size_t i = 0; i < n && i < r->cap_subs; i++)
		if (r->subs[i] != NULL && rec_sub_pub_gone(r->subs[i], ih))
			return;
}

typedef void disc_alive_fn(struct rec_recorder *r, dds_instance_handle_t ih,
			   const dds_builtintopic_endpoint_t *ep);
typedef void disc_gone_fn(struct rec_recorder *r, dds_instance_handle_t ih);

struct disc_take_ctx {
	struct rec_recorder *r;
	disc_alive_fn *alive;
	disc_gone_fn *gone;
};

static bool disc_on_endpoint(void *arg, dds_instance_handle_t ih,
			     const dds_builtintopic_endpoint_t *ep)
{
	struct disc_take_ctx *c = arg;
	if (ep != NULL)
		c->alive(c->r, ih, ep);
	else
		c->gone(c->r, ih);
	return true;
}

/* Takes what a built-in endpoint reader has (publications or
 * subscriptions), in bounded rounds. */
static void disc_take(struct rec_recorder *r, dds_entity_t reader, disc_alive_fn *alive,
		      disc_gone_fn *gone)
{
	struct disc_take_ctx c = {r, alive, gone};
	btdds_endpoints_take(reader, DISC_ROUNDS, disc_on_endpoint, &c);
}

static void disc_warn_explicit(struct rec_recorder *r)
{
	if (r->explicit_warned ||
	    bt_time_monotonic_ns() - r->started_mono < DISC_EXPLICIT_WARN_NS)
		return;
	r->explicit_warned = true;
	size_t n_topics = rec_topics_count(r->topics);
	for (size_t i = 0; i < btdds_select_explicit_count(r->select); i++) {
		bool seen = false;
		for (size_t k = 0; k < n_topics && !seen; k++) {
			const struct rec_topic *tp = rec_topics_get(r->topics, k);
			seen = btdds_select_explicit_matches(r->select, i, tp->names.dds_name,
							   tp->is_ros ? tp->names.name : NULL);
		}
		const char *name = btdds_select_explicit(r->select, i);
		if (!seen)
			bt_log_warn("%s: no publisher seen yet; it is recorded when one appears%s",
				    name,
				    bt_str_ends_with(name, BTDDS_SERVICE_EVENT_SUFFIX)
					? " (a service publishes its events only with introspection "
					  "turned on)"
					: "");
	}
}

/* Once, 5 s in, when not a single topic was found: the domain joined and
 * the environment read, since another domain id or discovery range than
 * the publishers' is the usual cause. */
static void disc_warn_no_topics(struct rec_recorder *r)
{
	if (r->no_topics_warned ||
	    bt_time_monotonic_ns() - r->started_mono < DISC_EXPLICIT_WARN_NS)
		return;
	r->no_topics_warned = true;
	if (rec_topics_count(r->topics) > 0)
		return;
	dds_domainid_t id;
	char dom[32] = "the default DDS domain";
	if (dds_get_domainid(r->pp, &id) >= 0)
		snprintf(dom, sizeof dom, "DDS domain %u", (unsigned)id);
	const struct btdds_env *e = r->opt.env;
	char *env = e != NULL ? btdds_env_describe(e) : NULL;
	bt_log_warn("no topic found in 5 s: listening on %s%s%s; environment: %s", dom,
		    e != NULL ? ", discovery range " : "", e != NULL ? btdds_range_name(e->range) : "",
		    env != NULL ? env : "not read");
	free(env);
}

/* Once, 5 s in, with --use-sim-time and no /clock time yet: nothing is
 * recorded until one comes, and headless the info line saying so is not
 * shown. */
static void disc_warn_clock(struct rec_recorder *r)
{
	if (r->clock == NULL || r->clock_warned ||
	    bt_time_monotonic_ns() - r->started_mono < DISC_EXPLICIT_WARN_NS)
		return;
	r->clock_warned = true;
	if (rec_clock_now(r->clock) != 0)
		return;
	uint64_t bad = rec_clock_bad(r->clock);
	char why[96] = "";
	if (bad)
		snprintf(why, sizeof why, " (%llu /clock message%s not a valid time)",
			 (unsigned long long)bad, bad == 1 ? "" : "s");
	bt_log_warn("--use-sim-time: no /clock time yet%s: nothing recorded until one comes", why);
}

/* Topics the user switched on though the selection left them out. */
static void disc_subscribe_requested(struct rec_recorder *r)
{
	if (!atomic_exchange(&r->subscribe_requested, false))
		return;
	size_t n = rec_topics_count(r->topics);
	for (size_t i = 0; i < n && i < r->cap_subs; i++) {
		struct rec_topic *tp = rec_topics_get(r->topics, i);
		if (atomic_exchange(&tp->want_subscribe, false) && r->subs[i] != NULL)
			rec_sub_select(r->subs[i]);
	}
}

/* Topics marked for repeating at run time: fetch what arrived before. */
static void disc_fill_requested(struct rec_recorder *r)
{
	if (!atomic_exchange(&r->fill_requested, false))
		return;
	size_t n = rec_topics_count(r->topics);
	for (size_t i = 0; i < n && i < r->cap_subs; i++) {
		unsigned depth = atomic_exchange(&r->want_fill[i], 0);
		if (depth != 0 && r->subs[i] != NULL)
			rec_sub_fill_start(r->subs[i], depth);
	}
}

/* Once, 5 s in: repeated topics nobody published, or published without
 * transient-local durability (a late-joining recorder then misses what
 * was published before it). */
static void disc_warn_repeat(struct rec_recorder *r)
{
	if (r->repeat_warned || r->n_repeat == 0 ||
	    bt_time_monotonic_ns() - r->started_mono < DISC_EXPLICIT_WARN_NS)
		return;
	r->repeat_warned = true;
	for (size_t i = 0; i < r->n_repeat; i++)
		if (!r->repeat[i].seen)
			bt_log_warn("%s: no publisher seen yet; it is repeated once one appears",
				    r->repeat[i].arg);
	size_t n = rec_topics_count(r->topics);
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(r->topics, i);
		if (rec_tl_depth(r->tl, (uint32_t)i) != 0 && atomic_load(&tp->subscribed) &&
		    !atomic_load(&tp->transient_local))
			bt_log_warn("%s: its publishers do not all offer transient-local durability; "
				    "messages published before recording started are missing",
				    tp->names.name);
	}
}

static void *disc_main(void *arg)
{
	struct rec_recorder *r = arg;
	pthread_setname_np(pthread_self(), "rec-discovery");
	while (!atomic_load(&r->stopping)) {
		dds_return_t rc = dds_waitset_wait(r->waitset, NULL, 0, DISC_TICK);
		if (rc < 0) { /* said once; then a tick's pause: no spinning */
			static atomic_bool said;
			if (!atomic_exchange(&said, true))
				bt_log_error("discovery: waiting failed: %s", dds_strretcode(rc));
			dds_sleepfor(DISC_TICK);
		}
		if (atomic_load(&r->stopping))
			break;
		bool woken;
		(void)dds_take_guardcondition(r->wake, &woken); /* re-arm it */
		/* Subscriptions first: a publication found in the same pass
		 * then meets its topic's subscribers already noted. */
		if (r->sub_reader > 0)
			disc_take(r, r->sub_reader, rec_subscribers_alive, rec_subscribers_gone);
		disc_take(r, r->pub_reader, disc_pub_alive, disc_pub_gone);
		for (size_t i = 0; i < r->cap_subs; i++)
			if (r->subs[i] != NULL)
				rec_sub_tick(r->subs[i]);
		disc_subscribe_requested(r);
		disc_fill_requested(r);
		disc_warn_explicit(r);
		disc_warn_no_topics(r);
		disc_warn_clock(r);
		disc_warn_repeat(r);
	}
	return NULL;
}

bt_status rec_discovery_start(struct rec_recorder *r, struct bt_error *err)
{
	r->discovery_mono = bt_time_monotonic_ns();
	r->pub_reader = dds_create_reader(r->pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
	if (r->pub_reader < 0)
		return bt_err_set(err, BT_ERR_DDS, "cannot follow DDS discovery: %s",
				  dds_strretcode(r->pub_reader));
	dds_entity_t cond = dds_create_readcondition(r->pub_reader, DDS_ANY_STATE);
	r->waitset = dds_create_waitset(r->pp);
	r->wake = dds_create_guardcondition(r->pp);
	if (cond < 0 || r->waitset < 0 || r->wake < 0 ||
	    dds_waitset_attach(r->waitset, cond, 0) < 0 ||
	    dds_waitset_attach(r->waitset, r->wake, 0) < 0)
		return bt_err_set(err, BT_ERR_DDS, "cannot set up DDS discovery");
	if (r->opt.include_unpublished || r->opt.ignore_leaf) {
		r->sub_reader = dds_create_reader(r->pp, DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, NULL,
						  NULL);
		dds_entity_t sc = r->sub_reader < 0
					  ? r->sub_reader
					  : dds_create_readcondition(r->sub_reader, DDS_ANY_STATE);
		if (sc < 0 || dds_waitset_attach(r->waitset, sc, 0) < 0)
			return bt_err_set(err, BT_ERR_DDS, "cannot follow DDS subscriptions: %s",
					  dds_strretcode(sc));
	}
	if (pthread_create(&r->discovery, NULL, disc_main, r) != 0)
		return bt_err_set(err, BT_ERR_STATE, "cannot start the discovery thread");
	r->discovery_started = true;
	return BT_OK;
}

void rec_discovery_stop(struct rec_recorder *r)
{
	atomic_store(&r->stopping, true);
	if (!r->discovery_started)
		return;
	(void)dds_set_guardcondition(r->wake, true);
	pthread_join(r->discovery, NULL);
	r->discovery_started = false;
	rec_subscribers_fini(r);
	free(r->pps_seen);
	r->pps_seen = NULL;
	r->n_pps_seen = r->cap_pps_seen = 0;
}
