/* rec_sub — one topic's subscription: its publications, the raw reader
 * whose QoS is adapted to them, and the listener that hands every sample
 * to the cache. Everything but the listener runs on the discovery thread.
 *
 * Adapting a reader (a best-effort publisher joins a reliable topic, a
 * volatile one joins a transient-local topic, a new partition) creates the
 * new reader and deletes the old one only once the new one has matched
 * every publisher and the publishers have had time to learn of it
 * (rec_sub_tick), so nothing published meanwhile is missed;
 * the duplicates both readers deliver are dropped by sequence number per
 * publication. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_writer.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "btdds_qos.h"
#include "btdds_userdata.h"
#include "rec__recorder.h"
#include "rec_raw.h"

/* A replaced reader is deleted once its successor matched every publisher
 * and SUB_RETIRE_MIN_NS have passed, or after SUB_RETIRE_MAX_NS at the
 * latest. The successor matches the known publishers at once, on this
 * side; a remote writer learns of it only when discovery data reaches it
 * (longer on a loaded machine), and what it sends before goes to the old
 * reader alone. */
#define SUB_RETIRE_MIN_NS (INT64_C(1) * 1000000000)
#define SUB_RETIRE_MAX_NS (INT64_C(3) * 1000000000)

static void pub_fini(struct rec_pub *p)
{
	for (size_t i = 0; i < p->off.n_partitions; i++)
		free(p->parts[i]);
	free(p->parts);
	memset(p, 0, sizeof *p);
}

static void pub_fill(struct rec_pub *p, dds_instance_handle_t ih,
		     const dds_builtintopic_endpoint_t *ep)
{
	memset(p, 0, sizeof *p);
	p->handle = ih;
	p->guid = ep->key;
	btdds_qos_from_dds(ep->qos, &p->off.qos);
	uint32_t n = 0;
	char **ps = NULL;
	if (dds_qget_partition(ep->qos, &n, &ps) && n > 0) {
		p->parts = bt_xcalloc(n, sizeof *p->parts);
		for (uint32_t i = 0; i < n; i++) {
			p->parts[i] = bt_xstrdup(ps[i]);
			dds_free(ps[i]);
		}
		dds_free(ps);
		p->off.n_partitions = n;
	}
	p->off.partitions = (const char *const *)p->parts;
	dds_ownership_kind_t ok;
	p->off.exclusive_ownership =
		dds_qget_ownership(ep->qos, &ok) && ok == DDS_OWNERSHIP_EXCLUSIVE;
	dds_duration_t lb = 0;
	if (dds_qget_latency_budget(ep->qos, &lb))
		p->off.latency_budget_ns = lb;
	const dds_typeinfo_t *ti = NULL;
	p->has_type_info = dds_builtintopic_get_endpoint_type_info(
				   (dds_builtintopic_endpoint_t *)ep, &ti) == DDS_RETCODE_OK &&
			   ti != NULL;
	p->has_complete_id = p->has_type_info &&
			     btdds_xtypes_complete_id(ti, &p->complete_id, NULL) == BT_OK;
}

/* The topic keeps the first valid hash (as the bag has one per topic). */
static void sub_keep_type_hash(struct rec_sub *s, const char *hash)
{
	struct rec_topic *tp = s->tp;
	if (tp->type_hash == NULL) {
		tp->type_hash = bt_xstrdup(hash);
	} else if (strcmp(tp->type_hash, hash) != 0 && !s->type_hash_warned) {
		s->type_hash_warned = true;
		bt_log_warn("%s: publishers disagree on the type hash (%s, then %s): the bag keeps "
			    "the first", tp->names.name, tp->type_hash, hash);
	}
}

/* The type hash in a publication's USER_DATA (REP 2011). Malformed user
 * data is said once per topic (a plain DDS application may put anything
 * there: only a debug line then) and changes nothing else; a new ROS 2
 * publication is counted with or without a hash. */
static void sub_note_type_hash(struct rec_sub *s, const dds_qos_t *q, bool is_new)
{
	void *ud = NULL;
	size_t n = 0;
	char hash[BTDDS_TYPEHASH_LEN + 1];
	struct bt_error err = {0};
	enum btdds_ud r = BTDDS_UD_NO_HASH;
	if (dds_qget_userdata(q, &ud, &n))
		r = btdds_userdata_typehash(ud, n, hash, &err);
	dds_free(ud);
	struct rec_topic *tp = s->tp;
	if (r == BTDDS_UD_BAD && !s->user_data_warned) {
		s->user_data_warned = true;
		bt_log(tp->is_ros ? BT_LOG_WARN : BT_LOG_DEBUG,
		       "%s: a publisher's %s: its type hash is ignored", tp->names.name, err.msg);
	}
	if (r == BTDDS_UD_HASH)
		sub_keep_type_hash(s, hash);
	if (is_new && tp->is_ros)
		atomic_fetch_add_explicit(r == BTDDS_UD_HASH ? &s->r->ros_pubs_hash
							     : &s->r->ros_pubs_no_hash,
					  1, memory_order_relaxed);
}

struct rec_sub *rec_sub_new(struct rec_recorder *r, struct rec_topic *tp)
{
	struct rec_sub *s = bt_xcalloc(1, sizeof *s);
	s->r = r;
	s->tp = tp;
	pthread_mutex_init(&s->sn_lock, NULL);
	return s;
}

void rec_sub_free(struct rec_sub *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n_pubs; i++)
		pub_fini(&s->pubs[i]);
	free(s->pubs);
	free(s->prof_qos);
	free(s->prof_owner);
	free(s->sns);
	rec_requested_fini(&s->req);
	pthread_mutex_destroy(&s->sn_lock);
	free(s);
}

/* ---- listener side (Cyclone receive threads) ---------------------------- */

/* Under sn_lock: the index of publication `pub`'s entry, n_sns if none. */
static size_t sub_sn_find(const struct rec_sub *s, dds_instance_handle_t pub)
{
	size_t i = 0;
	while (i < s->n_sns && s->sns[i].pub != pub)
		i++;
	return i;
}

/* Under sn_lock: a publication's entry; false when memory is short (it
 * goes untracked; its samples still count). */
static bool sub_sn_append(struct rec_sub *s, dds_instance_handle_t pub, int64_t last)
{
	if (s->n_sns == s->cap_sns) {
		size_t cap = s->cap_sns ? 2 * s->cap_sns : 4;
		struct rec_sn *n = realloc(s->sns, cap * sizeof *n);
		if (n == NULL)
			return false;
		s->sns = n;
		s->cap_sns = cap;
	}
	s->sns[s->n_sns++] = (struct rec_sn){pub, last};
	return true;
}

/* Counts a gap in the publication's sequence numbers; false for a duplicate
 * (delivered by both readers while one replaces the other). `live`: the
 * message is for the bag (not paused, topic on); a publication's head
 * before the match (REC_SN_HEAD) counts only then, as what arrives while
 * paused is no loss either. */
static bool sub_sn_check(struct rec_sub *s, dds_instance_handle_t pub, int64_t sn, bool live)
{
	if (sn == REC_SN_UNKNOWN)
		return true;
	bool fresh = true;
	pthread_mutex_lock(&s->sn_lock);
	size_t i = sub_sn_find(s, pub);
	if (i == s->n_sns) {
		(void)sub_sn_append(s, pub, sn); /* untracked when short of memory */
	} else if (s->sns[i].last == REC_SN_HEAD) {
		if (sn > 1 && live) /* sequence numbers start at 1 */
			atomic_fetch_add_explicit(&s->tp->st.unmatched, (uint64_t)(sn - 1),
						  memory_order_relaxed);
		s->sns[i].last = sn;
	} else if (sn <= s->sns[i].last) {
		fresh = false;
	} else {
		if (sn > s->sns[i].last + 1)
			atomic_fetch_add_explicit(&s->tp->st.lost_transport,
						  (uint64_t)(sn - s->sns[i].last - 1),
						  memory_order_relaxed);
		s->sns[i].last = sn;
	}
	pthread_mutex_unlock(&s->sn_lock);
	return fresh;
}

/* The cache (or snapshot buffer) refused a message. When the writer is
 * waiting for the compression threads at this moment, compression is what
 * fell behind, not the disk: the cause the user can act on differs
 * (--compression-threads, or no MESSAGE compression). */
static void sub_count_refused(struct rec_sub *s, struct rec_topic_stats *st)
{
	bool comp = s->r->writer != NULL && bag_writer_compression_behind(s->r->writer);
	atomic_fetch_add_explicit(comp ? &st->lost_compression : &st->lost_cache, 1,
				  memory_order_relaxed);
}

/* The sample as a message: its received buffer adopted (no copy), or a
 * copy when that is not possible. NULL when memory is short. */
static struct rec_msg *sub_msg_of(struct rec_sub *s, const struct btdds_raw_sample *smp)
{
	struct rec_msg *m = rec_raw_adopt(smp, s->tp->index);
	if (m != NULL)
		return m;
	m = rec_msg_new(s->tp->index, smp->len);
	if (m != NULL)
		memcpy(m->data, smp->data, smp->len);
	return m;
}

static bool sub_on_sample(void *arg, const struct btdds_raw_sample *smp)
{
	struct rec_sub *s = arg;
	struct rec_topic_stats *st = &s->tp->st;
	bool live = !atomic_load_explicit(&s->r->paused, memory_order_relaxed) &&
		    atomic_load_explicit(&s->tp->enabled, memory_order_relaxed);
	/* The clock is read only for what may be recorded. 0: --use-sim-time
	 * before the first /clock, which records nothing, as a pause does
	 * (rosbag2 neither). */
	int64_t now = live ? rec_clock_now(s->r->clock) : 0;
	live = live && now != 0;
	if (!sub_sn_check(s, smp->publication_handle, smp->writer_sn, live))
		return true;
	if (s->r->opt.test_listener_delay_us != 0)
		usleep(s->r->opt.test_listener_delay_us);
	atomic_fetch_add_explicit(&st->rx_bytes, smp->len, memory_order_relaxed);
	if (!live) {
		/* Counted so the live view keeps its rates. */
		atomic_fetch_add_explicit(&st->ignored, 1, memory_order_relaxed);
		return true;
	}
	atomic_fetch_add_explicit(&st->received, 1, memory_order_relaxed);
	atomic_store_explicit(&st->last_recv_time, now, memory_order_relaxed);
	/* Above its --throttle rate: decided here, before any copy, so a
	 * throttled message never takes room in the cache. Not a loss. */
	if (s->tp->throttle != NULL &&
	    !rec_bucket_admit(&s->tp->bucket, bt_time_monotonic_ns(), smp->len)) {
		atomic_fetch_add_explicit(&st->throttled, 1, memory_order_relaxed);
		return true;
	}
	struct rec_msg *m = sub_msg_of(s, smp);
	if (m == NULL) {
		atomic_fetch_add_explicit(&st->lost_cache, 1, memory_order_relaxed);
		return true;
	}
	m->recv_time = now;
	m->source_time = smp->source_time;
	m->writer_sn = smp->writer_sn;
	rec_tl_offer(s->r->tl, m); /* a copy when the topic is repeated */
	bt_status pushed = s->r->snap != NULL ? rec_snap_push(s->r->snap, m)
					      : rec_cache_push(s->r->cache, m);
	if (pushed != BT_OK)
		sub_count_refused(s, st);
	return true;
}

static void sub_on_data(dds_entity_t reader, void *arg)
{
	(void)btdds_raw_take(reader, sub_on_sample, arg);
}

static void sub_on_rejected(dds_entity_t reader, const dds_sample_rejected_status_t status,
			    void *arg)
{
	(void)reader;
	struct rec_sub *s = arg;
	if (status.total_count_change > 0)
		atomic_fetch_add_explicit(&s->tp->st.rejected, (uint64_t)status.total_count_change,
					  memory_order_relaxed);
}

static void sub_on_incompatible(dds_entity_t reader,
				const dds_requested_incompatible_qos_status_t status, void *arg)
{
	(void)reader;
	struct rec_sub *s = arg;
	/* Without an override, discovery replaces the reader with one that
	 * matches every publisher: only a transition, not worth a warning. */
	if (!atomic_load(&s->overridden))
		return;
	if (!atomic_exchange(&s->incompatible_warned, true))
		bt_log_warn("%s: a publisher's QoS is incompatible with the recorder's (DDS policy "
			    "id %u); it is not recorded",
			    s->tp->names.name, status.last_policy_id);
}

/* ---- discovery side ---------------------------------------------------- */

static dds_qos_t *sub_reader_qos(const struct rec_requested *q)
{
	dds_qos_t *qos = dds_create_qos();
	dds_qset_reliability(qos, q->reliable ? DDS_RELIABILITY_RELIABLE
					      : DDS_RELIABILITY_BEST_EFFORT,
			     DDS_MSECS(100));
	dds_qset_durability(qos, q->transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL
						    : DDS_DURABILITY_VOLATILE);
	int32_t depth = q->depth > 0 && q->depth < INT32_MAX ? (int32_t)q->depth
							      : (int32_t)REC_QOS_DEFAULT_DEPTH;
	/* One instance per topic (btdds_raw), so the limits bound the samples
	 * a slow take can leave in the reader: memory stays bounded, and with
	 * KEEP_LAST a slow recorder never throttles a reliable publisher. */
	if (q->keep_all) {
		dds_qset_history(qos, DDS_HISTORY_KEEP_ALL, 0);
		dds_qset_resource_limits(qos, 10 * depth, 1, 10 * depth);
	} else {
		dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, depth);
		dds_qset_resource_limits(qos, depth, DDS_LENGTH_UNLIMITED, depth);
	}
	if (q->n_partitions > 0)
		dds_qset_partition(qos, (uint32_t)q->n_partitions, (const char **)q->partitions);
	dds_qset_ownership(qos, q->exclusive_ownership ? DDS_OWNERSHIP_EXCLUSIVE
						       : DDS_OWNERSHIP_SHARED);
	dds_qset_latency_budget(qos, q->latency_budget_ns);
	dds_qset_deadline(qos, btdds_qos_duration(q->deadline));
	dds_qset_liveliness(qos,
			    q->liveliness == BAG_LIVELINESS_MANUAL_BY_TOPIC
				    ? DDS_LIVELINESS_MANUAL_BY_TOPIC
			    : q->liveliness == BAG_LIVELINESS_MANUAL_BY_NODE
				    ? DDS_LIVELINESS_MANUAL_BY_PARTICIPANT
				    : DDS_LIVELINESS_AUTOMATIC,
			    btdds_qos_duration(q->liveliness_lease_duration));
	/* Our own writers (statistics) are never recorded. */
	dds_qset_ignorelocal(qos, DDS_IGNORELOCAL_PARTICIPANT);
	return qos;
}

static dds_entity_t sub_reader_create(struct rec_sub *s, const struct rec_requested *q)
{
	dds_qos_t *qos = sub_reader_qos(q);
	dds_listener_t *l = dds_create_listener(s);
	dds_lset_data_available(l, sub_on_data);
	dds_lset_sample_rejected(l, sub_on_rejected);
	dds_lset_requested_incompatible_qos(l, sub_on_incompatible);
	dds_entity_t rd = dds_create_reader(s->r->pp, s->topic, qos, l);
	dds_delete_listener(l);
	dds_delete_qos(qos);
	return rd;
}

static void sub_offered(const struct rec_sub *s, struct rec_offered *out)
{
	for (size_t i = 0; i < s->n_pubs; i++)
		out[i] = s->pubs[i].off;
}

static void sub_adapt(struct rec_sub *s, struct rec_requested *q)
{
	struct rec_offered *off = bt_xcalloc(s->n_pubs + 1, sizeof *off);
	sub_offered(s, off);
	const struct bag_qos *ovr =
		btdds_qos_overrides_find(s->r->overrides, s->tp->names.dds_name,
					 s->tp->is_ros ? s->tp->names.name : NULL);
	rec_qos_adapt(off, s->n_pubs, ovr, false, q);
	free(off);
}

/* The topic's message definition (rosbag2's row), looked up before its
 * reader exists: it reads files, and a message taken before the topic is
 * described could not be written. A service event topic carries its
 * service's definition, as rosbag2's. */
static void sub_lookup(struct rec_sub *s, struct defs_result *r)
{
	struct rec_topic *tp = s->tp;
	if (s->r->opt.defs == NULL) {
		*r = (struct defs_result){bt_xstrdup(""), bt_xstrdup(""), DEFS_ORIGIN_NONE};
		return;
	}
	char *svc = defs_service_of_event(tp->names.name, tp->names.type);
	defs_source_lookup(s->r->opt.defs, svc != NULL ? svc : tp->names.type, r);
	free(svc);
}

/* ---- offered QoS profiles in the bag ---- */

static struct bag_qos sub_profile_of(const struct rec_sub *s, const struct rec_pub *p)
{
	struct bag_qos q = p->off.qos;
	q.avoid_ros_namespace_conventions = !s->tp->is_ros;
	return q;
}

static void sub_profile_append(struct rec_sub *s, const struct bag_qos *q,
			       dds_instance_handle_t owner)
{
	bt_xgrow((void **)&s->prof_qos, &s->cap_prof, s->n_prof + 1, sizeof *s->prof_qos);
	bt_xgrow((void **)&s->prof_owner, &s->cap_prof_owner, s->n_prof + 1,
		 sizeof *s->prof_owner);
	s->prof_qos[s->n_prof] = *q;
	s->prof_owner[s->n_prof++] = owner;
}

static size_t sub_profile_find(const struct rec_sub *s, dds_instance_handle_t owner)
{
	size_t i = 0;
	while (i < s->n_prof && s->prof_owner[i] != owner)
		i++;
	return i;
}

/* Publication `p` joined the recorded topic (or changed its QoS): true when
 * the list changed. One entry per publisher, as rosbag2, so two live
 * publishers offering the same QoS give two equal entries. But a newcomer
 * whose QoS equals an entry left behind by a publisher that is gone takes
 * that entry over instead of adding one: a publisher restarting all day
 * long would otherwise grow the list (metadata.yaml, every file's topics
 * row) without bound, while it says nothing new. The list thus holds, per
 * profile, as many entries as publishers offered it at the same time. */
static bool sub_profile_note(struct rec_sub *s, const struct rec_pub *p)
{
	struct bag_qos q = sub_profile_of(s, p);
	size_t i = sub_profile_find(s, p->handle);
	if (i < s->n_prof) { /* a known writer's QoS changed (or not) */
		if (btdds_qos_equal(&s->prof_qos[i], &q))
			return false;
		s->prof_qos[i] = q;
		return true;
	}
	for (i = 0; i < s->n_prof; i++)
		if (s->prof_owner[i] == 0 && btdds_qos_equal(&s->prof_qos[i], &q)) {
			s->prof_owner[i] = p->handle;
			return false;
		}
	sub_profile_append(s, &q, p->handle);
	return true;
}

/* Hands the changed list to the consumer, which gives it to the writer. */
static void sub_profiles_post(struct rec_sub *s, const struct rec_pub *p)
{
	if (s->r->consumer != NULL)
		rec_consumer_set_topic_qos(s->r->consumer, s->tp->index, s->prof_qos, s->n_prof);
	bt_log_info("%s: offered QoS of a new publisher (%s, %s) added; %zu profiles in the bag",
		    s->tp->names.name,
		    p->off.qos.reliability == BAG_RELIABILITY_RELIABLE ? "reliable" : "best effort",
		    p->off.qos.durability == BAG_DURABILITY_VOLATILE ? "volatile"
								      : "transient-local",
		    s->n_prof);
}

/* The topic's description for the bag, from the publications known when it
 * is first subscribed; publishers joining later are added to its offered
 * QoS (sub_profile_note). */
static void sub_describe(struct rec_sub *s, struct defs_result *def)
{
	struct rec_topic *tp = s->tp;
	struct bag_topic *b = &tp->bag;
	b->name = bt_xstrdup(tp->names.name);
	b->type = bt_xstrdup(tp->names.type);
	b->serialization_format = bt_xstrdup("cdr");
	const char *hash = tp->type_hash != NULL ? tp->type_hash : "";
	for (size_t i = 0; i < s->n_pubs; i++) {
		struct bag_qos q = sub_profile_of(s, &s->pubs[i]);
		sub_profile_append(s, &q, s->pubs[i].handle);
	}
	b->n_qos = s->n_prof;
	b->qos = s->n_prof ? bt_xcalloc(s->n_prof, sizeof *b->qos) : NULL;
	if (s->n_prof)
		memcpy(b->qos, s->prof_qos, s->n_prof * sizeof *b->qos);
	b->type_description_hash = bt_xstrdup(hash);
	tp->def.topic_type = bt_xstrdup(tp->names.type);
	tp->def.encoding = def->encoding;
	tp->def.encoded_message_definition = def->text;
	tp->def.type_description_hash = bt_xstrdup(hash);
	tp->def_origin = def->origin;
	def->encoding = def->text = NULL; /* moved */
}

/* A ROS 2 message type found in no definition source, whose publisher
 * announced a type hash (Iron and newer): its node is asked
 * (rec_typedesc), and the bag gets the answer when it comes. */
static void sub_ask_node(struct rec_sub *s)
{
	struct rec_topic *tp = s->tp;
	if (s->r->typedesc == NULL || tp->def_origin != DEFS_ORIGIN_NONE || !tp->is_ros ||
	    tp->type_hash == NULL || strstr(tp->names.type, "/msg/") == NULL || s->n_pubs == 0)
		return;
	dds_guid_t *w = bt_xcalloc(s->n_pubs, sizeof *w);
	for (size_t i = 0; i < s->n_pubs; i++)
		w[i] = s->pubs[i].guid;
	rec_typedesc_ask(s->r->typedesc, tp, w, s->n_pubs);
	free(w);
}

/* A plain DDS type found in no definition source, whose publisher names a
 * complete XTypes type: rec_xtypes resolves it, and the bag gets the IDL
 * when it comes. Once per topic, from the first such publisher. */
static void sub_ask_xtypes(struct rec_sub *s)
{
	struct rec_topic *tp = s->tp;
	if (s->r->xtypes == NULL || s->xtypes_asked || tp->is_ros ||
	    tp->def_origin != DEFS_ORIGIN_NONE)
		return;
	for (size_t i = 0; i < s->n_pubs; i++)
		if (s->pubs[i].has_complete_id) {
			s->xtypes_asked = true;
			rec_xtypes_ask(s->r->xtypes, tp, &s->pubs[i].complete_id);
			return;
		}
}

static void sub_publish_qos(struct rec_sub *s)
{
	atomic_store_explicit(&s->tp->reliable, s->req.reliable, memory_order_relaxed);
	atomic_store_explicit(&s->tp->transient_local, s->req.transient_local,
			      memory_order_relaxed);
}

/* Creates the topic (once) and the requested QoS adapted to the
 * publishers; false after logging why. */
static bool sub_topic(struct rec_sub *s)
{
	struct rec_topic *tp = s->tp;
	if (s->topic == 0)
		s->topic = btdds_raw_topic_create(s->r->pp, tp->names.dds_name, tp->names.dds_type,
						  tp->keyed);
	if (s->topic < 0) {
		bt_log_error("%s: cannot create the topic: %s", tp->names.name,
			     dds_strretcode(s->topic));
		s->topic = 0;
		return false;
	}
	sub_adapt(s, &s->req);
	atomic_store(&s->overridden, s->req.overridden);
	return true;
}

/* Describes the topic for the bag, once: its first message may come as
 * soon as the reader exists (a transient-local one at once), and the
 * consumer writes a message only of a described topic; one handled in
 * between was counted as lost (seen under load with the demo's /map). */
static void sub_describe_once(struct rec_sub *s)
{
	struct rec_topic *tp = s->tp;
	if (atomic_load_explicit(&tp->described, memory_order_relaxed))
		return; /* an earlier attempt's reader failed; bag/def are final */
	struct defs_result def;
	sub_lookup(s, &def);
	sub_describe(s, &def);
	atomic_store_explicit(&tp->described, true, memory_order_release);
}

static void sub_subscribe(struct rec_sub *s)
{
	struct rec_topic *tp = s->tp;
	if (!sub_topic(s)) {
		s->selected = false;
		return;
	}
	sub_describe_once(s);
	s->reader = sub_reader_create(s, &s->req);
	if (s->reader < 0) {
		bt_log_error("%s: cannot create a reader: %s", tp->names.name,
			     dds_strretcode(s->reader));
		s->reader = 0;
		s->selected = false;
		return;
	}
	if (s->r->opt.test_subscribe_delay_us != 0)
		usleep(s->r->opt.test_subscribe_delay_us);
	sub_publish_qos(s);
	atomic_store_explicit(&tp->subscribed, true, memory_order_release);
	/* after: the consumer registers the topic first, or an early answer
	 * would find no topic to give its definition to */
	sub_ask_node(s);
	sub_ask_xtypes(s);
	if (s->r->consumer != NULL)
		rec_consumer_topics_changed(s->r->consumer);
	bt_log_info("recording %s [%s] (%s, %s%s; message definition: %s)", tp->names.name,
		    tp->names.type, s->req.reliable ? "reliable" : "best effort",
		    s->req.transient_local ? "transient-local" : "volatile",
		    s->req.overridden ? ", QoS override" : "",
		    atomic_load(&tp->def_late) == REC_DEF_LATE_ASKING
			    ? "none yet, its node's get_type_description is asked"
			    : defs_origin_name(tp->def_origin));
}

/* A new publication the current reader would not match: replace the
 * reader, new one first (see the top of the file). */
static void sub_readapt(struct rec_sub *s, const struct rec_pub *p)
{
	if (s->req.overridden || rec_qos_compatible(&s->req, &p->off))
		return;
	struct rec_requested want;
	sub_adapt(s, &want);
	dds_entity_t rd = sub_reader_create(s, &want);
	if (rd < 0) {
		bt_log_error("%s: cannot adapt the reader to a new publisher: %s",
			     s->tp->names.name, dds_strretcode(rd));
		rec_requested_fini(&want);
		return;
	}
	/* The old reader stays until the new one has matched the publishers
	 * (remote writers learn of it through discovery): deleting it at once
	 * loses what they send meanwhile. Both deliver; sequence numbers
	 * drop the duplicates. */
	if (s->retiring > 0)
		(void)dds_delete(s->retiring);
	s->retiring = s->reader;
	s->retire_from = bt_time_monotonic_ns() + SUB_RETIRE_MIN_NS;
	s->retire_at = s->retire_from - SUB_RETIRE_MIN_NS + SUB_RETIRE_MAX_NS;
	s->reader = rd;
	rec_requested_fini(&s->req);
	s->req = want;
	sub_publish_qos(s);
	bt_log_info("%s: reader adapted to a new publisher (%s, %s)", s->tp->names.name,
		    want.reliable ? "reliable" : "best effort",
		    want.transient_local ? "transient-local" : "volatile");
}

static struct rec_pub *sub_find_pub(struct rec_sub *s, dds_instance_handle_t ih)
{
	for (size_t i = 0; i < s->n_pubs; i++)
		if (s->pubs[i].handle == ih)
			return &s->pubs[i];
	return NULL;
}

/* A publication that appeared while recording: its first message tells
 * what it published before the match, unless one arrived already (the
 * reader matched it before this thread heard of it; then uncounted). */
static void sub_sn_expect_head(struct rec_sub *s, dds_instance_handle_t pub)
{
	pthread_mutex_lock(&s->sn_lock);
	if (sub_sn_find(s, pub) == s->n_sns)
		(void)sub_sn_append(s, pub, REC_SN_HEAD);
	pthread_mutex_unlock(&s->sn_lock);
}

void rec_sub_pub_alive(struct rec_sub *s, dds_instance_handle_t ih,
		       const dds_builtintopic_endpoint_t *ep, bool appeared)
{
	struct rec_pub *p = sub_find_pub(s, ih);
	bool is_new = p == NULL;
	if (!is_new) { /* a QoS change of a known writer */
		pub_fini(p);
		pub_fill(p, ih, ep);
	} else {
		bt_xgrow((void **)&s->pubs, &s->cap_pubs, s->n_pubs + 1, sizeof *s->pubs);
		p = &s->pubs[s->n_pubs++];
		pub_fill(p, ih, ep);
	}
	sub_note_type_hash(s, ep->qos, is_new);
	if (is_new && appeared)
		sub_sn_expect_head(s, ih);
	atomic_store_explicit(&s->tp->publishers, (unsigned)s->n_pubs, memory_order_relaxed);
	if (!s->selected)
		return;
	if (s->reader == 0) {
		sub_subscribe(s);
		return;
	}
	sub_readapt(s, p);
	sub_ask_xtypes(s); /* the first publisher had no type information */
	if (sub_profile_note(s, p))
		sub_profiles_post(s, p);
}

void rec_sub_select(struct rec_sub *s)
{
	s->leaf_held = false; /* switched on by hand, or released */
	if (s->selected)
		return;
	s->selected = true;
	if (s->reader == 0 && s->n_pubs > 0)
		sub_subscribe(s);
}

void rec_sub_subscribe_unpublished(struct rec_sub *s)
{
	if (s->selected && s->reader == 0)
		sub_subscribe(s);
}

bool rec_sub_pub_gone(struct rec_sub *s, dds_instance_handle_t ih)
{
	struct rec_pub *p = sub_find_pub(s, ih);
	if (p == NULL)
		return false;
	size_t k = sub_profile_find(s, ih);
	if (k < s->n_prof)
		s->prof_owner[k] = 0; /* its entry stays: it published into the bag */
	pub_fini(p);
	*p = s->pubs[--s->n_pubs];
	atomic_store_explicit(&s->tp->publishers, (unsigned)s->n_pubs, memory_order_relaxed);
	if (s->n_pubs == 0)
		bt_log_info("%s: its last publisher left", s->tp->names.name);
	return true;
}

/* ---- history for a topic marked at run time ----
 *
 * Marking a topic (`t`) after its only message arrived (/tf_static,
 * published once) must still repeat that message. Two ways were open:
 * keep the last message of every transient-local topic all the time, or
 * ask the publishers again when the mark lands. The first costs a copy per
 * message on the receive path of every transient-local topic, marked or
 * not, and still only gives depth 1. The second costs nothing until a
 * mark: transient-local publishers keep their history for exactly this
 * purpose, and a new transient-local reader receives it (as deep as they
 * keep it). So a mark creates a short-lived reader here, on the discovery
 * thread (never in a listener); it has no listener: its read condition
 * wakes the discovery thread, which takes the samples into the repeat
 * store only (rec_tl_fill: never into the cache, never counted as
 * received), and deletes it once it holds `depth` samples or after
 * SUB_FILL_MAX_NS. Volatile publishers keep no history: nothing to ask. */

#define SUB_FILL_MAX_NS (INT64_C(3) * 1000000000)

static bool sub_any_tl_pub(const struct rec_sub *s)
{
	for (size_t i = 0; i < s->n_pubs; i++)
		if (s->pubs[i].off.qos.durability == BAG_DURABILITY_TRANSIENT_LOCAL)
			return true;
	return false;
}

static void sub_fill_stop(struct rec_sub *s)
{
	if (s->fill_reader <= 0)
		return;
	if (s->fill_cond > 0)
		(void)dds_waitset_detach(s->r->waitset, s->fill_cond);
	(void)dds_delete(s->fill_reader); /* its read condition with it */
	s->fill_reader = 0;
	s->fill_cond = 0;
}

void rec_sub_fill_start(struct rec_sub *s, uint32_t depth)
{
	sub_fill_stop(s); /* a new mark: ask again, at the new depth */
	if (s->reader <= 0 || depth == 0 || !sub_any_tl_pub(s))
		return;
	struct rec_requested q = s->req; /* shallow: sub_reader_qos only reads it */
	q.transient_local = true;
	q.reliable = true; /* the history comes through the reliable protocol */
	q.keep_all = false;
	q.depth = depth;
	dds_qos_t *qos = sub_reader_qos(&q);
	s->fill_reader = dds_create_reader(s->r->pp, s->topic, qos, NULL);
	dds_delete_qos(qos);
	if (s->fill_reader < 0) {
		bt_log_warn("%s: cannot ask its publishers for messages from before the mark: %s",
			    s->tp->names.name, dds_strretcode(s->fill_reader));
		s->fill_reader = 0;
		return;
	}
	s->fill_cond = dds_create_readcondition(s->fill_reader, DDS_ANY_STATE);
	if (s->fill_cond < 0 || dds_waitset_attach(s->r->waitset, s->fill_cond, 0) < 0)
		s->fill_cond = 0; /* polled every discovery tick instead */
	s->fill_depth = depth;
	s->fill_got = 0;
	s->fill_until = bt_time_monotonic_ns() + SUB_FILL_MAX_NS;
}

struct sub_fill_take {
	uint32_t topic;
	int64_t now;
	bool sim; /* now is simulation time: source times are another clock's */
	struct rec_batch batch;
};

/* A copy of each historical sample (the receive path may have adopted the
 * same buffer); timestamped with its source time, the best guess of when
 * it arrived first (with --use-sim-time, now). A copy that cannot be made
 * is skipped: the mark then repeats fewer messages, as if fewer were kept. */
static bool sub_fill_on_sample(void *arg, const struct btdds_raw_sample *smp)
{
	struct sub_fill_take *f = arg;
	struct rec_msg *m = rec_msg_new(f->topic, smp->len);
	if (m == NULL)
		return true;
	memcpy(m->data, smp->data, smp->len);
	m->source_time = smp->source_time;
	bool src = !f->sim && smp->source_time > 0 && smp->source_time < f->now;
	m->recv_time = src ? smp->source_time : f->now;
	m->writer_sn = smp->writer_sn;
	rec_batch_append(&f->batch, m);
	return true;
}

static void sub_fill_tick(struct rec_sub *s)
{
	if (s->fill_reader <= 0)
		return;
	struct sub_fill_take f = {.topic = s->tp->index, .now = rec_clock_now(s->r->clock),
				  .sim = s->r->clock != NULL};
	/* f.now 0: simulation time not started, taken once it is */
	if (f.now != 0 && btdds_raw_take(s->fill_reader, sub_fill_on_sample, &f) > 0) {
		s->fill_got += f.batch.count;
		size_t kept = rec_tl_fill(s->r->tl, s->tp->index, &f.batch);
		bt_log_debug("%s: %zu message%s from before the mark kept for repeating",
			     s->tp->names.name, kept, kept == 1 ? "" : "s");
	}
	rec_msg_free_list(f.batch.head); /* empty unless the take failed half-way */
	if (s->fill_got >= s->fill_depth || bt_time_monotonic_ns() >= s->fill_until)
		sub_fill_stop(s);
}

void rec_sub_tick(struct rec_sub *s)
{
	sub_fill_tick(s);
	if (s->retiring <= 0)
		return;
	dds_return_t matched = dds_get_matched_publications(s->reader, NULL, 0);
	int64_t now = bt_time_monotonic_ns();
	bool all = matched >= 0 && (size_t)matched >= s->n_pubs;
	if (now < s->retire_at && (!all || now < s->retire_from))
		return;
	(void)dds_delete(s->retiring);
	s->retiring = 0;
}

void rec_sub_unsubscribe(struct rec_sub *s)
{
	sub_fill_stop(s);
	if (s->retiring > 0)
		(void)dds_delete(s->retiring);
	s->retiring = 0;
	if (s->reader > 0)
		(void)dds_delete(s->reader);
	s->reader = 0;
}
