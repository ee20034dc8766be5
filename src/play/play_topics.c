/* play_topics — the topic table of a player: which of the bag's topics
 * are played (`ros2 bag play`'s selection), on which DDS name and type
 * (remaps), and with which writer QoS: an override, else the recorded
 * profile when every recorded publisher offered the same one (rosbag2's
 * rule), else rmw's defaults (reliable, volatile, keep last 10). */
#include <stdlib.h>
#include <string.h>

#include "bag_msgdefs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "btdds_cdr.h"
#include "btdds_names.h"
#include "btdds_qos.h"
#include "btdds_qos_overrides.h"
#include "btdds_raw.h"
#include "btdds_select.h"
#include "btdds_service.h"
#include "defs.h"
#include "play__player.h"

static void topic_default_qos(struct bag_qos *q)
{
	bag_qos_default(q);
	q->history = BAG_HISTORY_KEEP_LAST;
	q->depth = 10;
	q->reliability = BAG_RELIABILITY_RELIABLE;
	q->durability = BAG_DURABILITY_VOLATILE;
	q->liveliness = BAG_LIVELINESS_AUTOMATIC;
}

/* The recorded profile when all publishers agreed (true), else defaults. */
static bool topic_recorded_qos(const struct bag_topic *t, struct bag_qos *q)
{
	topic_default_qos(q);
	if (t->n_qos == 0)
		return false;
	for (size_t i = 1; i < t->n_qos; i++)
		if (!btdds_qos_equal(&t->qos[0], &t->qos[i]))
			return false;
	*q = t->qos[0];
	return true;
}

/* Replaces *dds_name by its remapped DDS name when a rule names it. */
static void topic_remap(const struct play *p, char **dds_name)
{
	for (size_t i = 0; i < p->o.n_remaps; i++) {
		char *from = btdds_names_dds_topic(p->o.remaps[i].from);
		bool hit = !strcmp(from, *dds_name);
		free(from);
		if (hit) {
			free(*dds_name);
			*dds_name = btdds_names_dds_topic(p->o.remaps[i].to);
			return;
		}
	}
}

static void topic_init(struct play *p, struct play_topic *pt, const struct bag_topic *t,
		       const struct btdds_qos_overrides *ovr)
{
	bool is_ros = btdds_topic_names_init_bag(&pt->names, t->name, t->type);
	/* A bag does not say whether a type is keyed: ROS 2 types are not
	 * (rmw_cyclonedds), plain DDS topics are taken as keyed. All samples
	 * go to one instance either way (btdds_raw). */
	pt->keyed = !is_ros;
	pt->qos_recorded = topic_recorded_qos(t, &pt->qos);
	/* Overrides name the topic as recorded: looked up before the remap. */
	const struct bag_qos *o =
		btdds_qos_overrides_find(ovr, pt->names.dds_name, is_ros ? t->name : NULL);
	if (o) {
		pt->qos = *o;
		pt->qos_overridden = true;
	}
	topic_remap(p, &pt->names.dds_name);
	bt_rate_init(&pt->rate);
}

/* Every name `sel` lists explicitly is a topic of the bag; `what` says
 * which option named it ("topic", "--clock-topics topic"). */
static bt_status topics_check_explicit(const struct play *p, const struct btdds_select *sel,
				       const struct bag_reader_topic *bt, size_t n,
				       const char *what, struct bt_error *err)
{
	for (size_t i = 0; i < btdds_select_explicit_count(sel); i++) {
		bool found = false;
		for (size_t j = 0; j < n && !found; j++) {
			char *dds = btdds_names_dds_topic(bt[j].topic.name);
			found = btdds_select_explicit_matches(sel, i, dds, bt[j].topic.name);
			free(dds);
		}
		if (!found)
			return bt_err_set(err, BT_ERR_USAGE, "%s %s is not in the bag %s", what,
					  btdds_select_explicit(sel, i), p->bag_path);
	}
	return BT_OK;
}

static bt_status topics_select(const struct play *p, struct btdds_select **out,
			       struct bt_error *err)
{
	struct btdds_select_options so = p->o.select;
	so.all = btdds_select_names_nothing(&so);
	so.include_hidden = true;
	so.include_services = true;
	return btdds_select_new(&so, out, err);
}

/* Is the player's own /clock (--clock, --clock-topics...) on? */
static bool topics_clock_on(const struct play *p)
{
	return p->o.clock_hz > 0 || p->o.n_clock_topics > 0 || p->o.clock_topics_all;
}

/* --clock-topics: the topics whose messages trigger /clock, by name. */
static bt_status topics_clock_select(const struct play *p, struct btdds_select **out,
				     struct bt_error *err)
{
	*out = NULL;
	if (p->o.clock_hz > 0 && (p->o.n_clock_topics > 0 || p->o.clock_topics_all))
		return bt_err_set(err, BT_ERR_USAGE, "--clock and --clock-topics%s exclude each "
				  "other: /clock goes out at a rate or with messages",
				  p->o.clock_topics_all ? "-all" : "");
	if (p->o.n_clock_topics > 0 && p->o.clock_topics_all)
		return bt_err_set(err, BT_ERR_USAGE, "--clock-topics and --clock-topics-all "
				  "exclude each other");
	if (p->o.n_clock_topics == 0)
		return BT_OK;
	struct btdds_select_options so = {
		.topics = p->o.clock_topics,
		.n_topics = p->o.n_clock_topics,
		.include_hidden = true,
		.include_services = true,
	};
	return btdds_select_new(&so, out, err);
}

static bt_status topics_check_remaps(const struct play *p, struct bt_error *err)
{
	for (size_t i = 0; i < p->o.n_remaps; i++) {
		const struct play_remap *r = &p->o.remaps[i];
		if (!r->from || !r->from[0] || !r->to || !r->to[0] || !strcmp(r->to, "/"))
			return bt_err_set(err, BT_ERR_USAGE, "bad remap rule '%s:=%s': want OLD:=NEW",
					  r->from ? r->from : "", r->to ? r->to : "");
	}
	return BT_OK;
}

/* The bag's own /clock, left out while the player publishes /clock:
 * two writers of it would send subscribers' time back and forth. */
static bool topics_is_bag_clock(const struct play *p, const char *dds)
{
	if (!topics_clock_on(p) || strcmp(dds, "rt/clock") != 0)
		return false;
	bt_log_info("the bag's /clock is not played: the player publishes /clock (%s)",
		    p->o.clock_hz > 0		? "--clock"
		    : p->o.clock_topics_all ? "--clock-topics-all"
					    : "--clock-topics");
	return true;
}

/* The service a remap rule renames `service` to (ROS names compared as
 * DDS names, as topic_remap), or a copy of it. */
static char *service_remap(const struct play *p, const char *service)
{
	char *dds = btdds_names_dds_topic(service);
	char *out = NULL;
	for (size_t i = 0; i < p->o.n_remaps && out == NULL; i++) {
		char *from = btdds_names_dds_topic(p->o.remaps[i].from);
		if (!strcmp(from, dds))
			out = bt_xstrdup(p->o.remaps[i].to);
		free(from);
	}
	free(dds);
	return out ? out : bt_xstrdup(service);
}

/* --publish-service-requests: the service event topic t as a client of its
 * service (srv_type) on the request topic; false (said) when its requests
 * cannot be cut out of its events. */
static bool topic_init_service(struct play *p, struct play_topic *pt, const struct bag_topic *t,
			       const char *srv_type, const struct bag_msgdef *defs,
			       size_t n_defs)
{
	char *service = bt_xstrndup(t->name, strlen(t->name) - strlen(BTDDS_SERVICE_EVENT_SUFFIX));
	char *played = service_remap(p, service);
	struct bt_error err = {0};
	bt_status st = play_svcreq_new(service, played, srv_type, defs, n_defs,
				       p->o.service_requests_from_clients, &pt->svcreq, &err);
	if (st != BT_OK) {
		bt_log_warn("%s: its requests are not played: %s", service, err.msg);
	} else {
		(void)btdds_topic_names_init_bag(&pt->names, t->name, t->type);
		free(pt->names.dds_name);
		free(pt->names.dds_type);
		pt->names.dds_name = btdds_svc_topic(played, true);
		pt->names.dds_type = btdds_svc_type(srv_type, true);
		topic_default_qos(&pt->qos); /* rmw's for services, which the client has */
		bt_rate_init(&pt->rate);
	}
	free(played);
	free(service);
	return st == BT_OK;
}

/* Sets up bag topic j as the next played topic; false when it is not. */
static bool topics_add(struct play *p, const struct bag_reader_topic *bt, size_t j,
		       const struct btdds_qos_overrides *ovr, const struct bag_msgdef *defs,
		       size_t n_defs)
{
	struct play_topic *pt = &p->topics[p->n_topics];
	char *srv = p->o.publish_service_requests
			    ? defs_service_of_event(bt[j].topic.name, bt[j].topic.type)
			    : NULL;
	bool ok = true;
	if (srv)
		ok = topic_init_service(p, pt, &bt[j].topic, srv, defs, n_defs);
	else
		topic_init(p, pt, &bt[j].topic, ovr);
	free(srv);
	if (ok)
		p->topic_of[j] = p->n_topics++;
	return ok;
}

static void topics_fill(struct play *p, const struct btdds_select *sel,
			const struct btdds_select *clock_sel, const struct bag_reader_topic *bt,
			const struct btdds_qos_overrides *ovr, const struct bag_msgdef *defs,
			size_t n_defs)
{
	p->topics = bt_xcalloc(p->n_bag_topics ? p->n_bag_topics : 1, sizeof *p->topics);
	p->topic_of = bt_xcalloc(p->n_bag_topics ? p->n_bag_topics : 1, sizeof *p->topic_of);
	for (size_t j = 0; j < p->n_bag_topics; j++) {
		char *dds = btdds_names_dds_topic(bt[j].topic.name);
		const char *ros = bt[j].topic.name[0] == '/' ? bt[j].topic.name : NULL;
		bool on = btdds_select_match(sel, dds, ros) && !topics_is_bag_clock(p, dds);
		bool trigger = p->o.clock_topics_all ||
			       (clock_sel && btdds_select_match(clock_sel, dds, ros));
		free(dds);
		p->topic_of[j] = SIZE_MAX;
		if (!on || !topics_add(p, bt, j, ovr, defs, n_defs))
			continue;
		struct play_topic *pt = &p->topics[p->n_topics - 1];
		pt->clock_trigger = trigger;
		if (p->whole_window)
			pt->total = bt[j].count;
	}
}

bt_status play_topics_build(struct play *p, struct bt_error *err)
{
	const struct bag_reader_topic *bt = bag_reader_topics(p->rd, &p->n_bag_topics);
	struct btdds_select *sel = NULL, *clock_sel = NULL;
	struct btdds_qos_overrides *ovr = NULL;
	bt_status st = topics_check_remaps(p, err);
	if (st == BT_OK)
		st = topics_select(p, &sel, err);
	if (st == BT_OK)
		st = topics_check_explicit(p, sel, bt, p->n_bag_topics, "topic", err);
	if (st == BT_OK)
		st = topics_clock_select(p, &clock_sel, err);
	if (st == BT_OK && clock_sel)
		st = topics_check_explicit(p, clock_sel, bt, p->n_bag_topics,
					   "--clock-topics topic", err);
	if (st == BT_OK && p->qos_path) {
		st = btdds_qos_overrides_load(p->qos_path, &ovr, err);
		if (st == BT_ERR_FORMAT)
			st = err ? (err->code = BT_ERR_USAGE) : BT_ERR_USAGE;
	}
	struct bag_msgdef *defs = NULL;
	size_t n_defs = 0;
	if (st == BT_OK && p->o.publish_service_requests &&
	    bag_msgdefs_read(p->rd, &defs, &n_defs, err) != BT_OK) {
		bt_log_warn("the bag's message definitions are not read: %s", err ? err->msg : "");
		defs = NULL;
		n_defs = 0;
	}
	if (st == BT_OK)
		topics_fill(p, sel, clock_sel, bt, ovr, defs, n_defs);
	bag_msgdefs_free(defs, n_defs);
	btdds_qos_overrides_free(ovr);
	btdds_select_free(clock_sel);
	btdds_select_free(sel);
	return st;
}

void play_topics_free(struct play *p)
{
	for (size_t i = 0; i < p->n_topics; i++) {
		btdds_topic_names_fini(&p->topics[i].names);
		play_svcreq_free(p->topics[i].svcreq);
	}
	free(p->topics);
	free(p->topic_of);
	p->topics = NULL;
	p->topic_of = NULL;
	p->n_topics = 0;
}

static void on_matched(dds_entity_t writer, const dds_publication_matched_status_t st, void *arg)
{
	(void)writer;
	struct play_topic *t = arg;
	atomic_store_explicit(&t->matched, st.current_count, memory_order_relaxed);
}

/* play_topic.step_window of writer w, from the QoS it has (overrides and
 * defaults applied): a reliable KEEP_LAST writer's depth, else 0. */
static uint32_t topics_step_window(dds_entity_t w)
{
	dds_qos_t *q = dds_create_qos();
	dds_reliability_kind_t rel = DDS_RELIABILITY_BEST_EFFORT;
	dds_history_kind_t hist = DDS_HISTORY_KEEP_ALL;
	int32_t depth = 0;
	uint32_t window = 0;
	if (dds_get_qos(w, q) == DDS_RETCODE_OK && dds_qget_reliability(q, &rel, NULL) &&
	    dds_qget_history(q, &hist, &depth) && rel == DDS_RELIABILITY_RELIABLE &&
	    hist == DDS_HISTORY_KEEP_LAST && depth > 0)
		window = (uint32_t)depth;
	dds_delete_qos(q);
	return window;
}

static dds_entity_t topics_writer(struct play *p, const char *name, const char *type, bool keyed,
				  const struct bag_qos *q, struct play_topic *t)
{
	dds_entity_t tp = btdds_raw_topic_create_typed(p->pp, name, type, keyed,
						       t ? &t->raw_type : NULL);
	if (tp < 0)
		return tp;
	dds_qos_t *qos = dds_create_qos();
	btdds_qos_to_dds(q, qos);
	/* Samples are written as they come: never block the schedule on a
	 * full history (KEEP_LAST writers never do; KEEP_ALL bounded). */
	dds_listener_t *l = NULL;
	if (t) {
		l = dds_create_listener(t);
		dds_lset_publication_matched(l, on_matched);
	}
	dds_entity_t w = dds_create_writer(p->pp, tp, qos, l);
	dds_delete_qos(qos);
	if (l)
		dds_delete_listener(l);
	if (t && w > 0)
		t->step_window = topics_step_window(w);
	return w;
}

/* rclcpp's ClockQoS: best effort, keep last 1. */
static void clock_qos(struct bag_qos *q)
{
	topic_default_qos(q);
	q->depth = 1;
	q->reliability = BAG_RELIABILITY_BEST_EFFORT;
}

/* Counts a reply to this client (its guid in the header); others (other
 * clients' on the shared reply topic) are not. */
static bool on_reply(void *arg, const struct btdds_raw_sample *s)
{
	struct play_topic *t = arg;
	struct btdds_cdr_rd r;
	uint64_t guid;
	int64_t seq;
	if (btdds_cdr_rd_init(&r, s->data, s->len) == BT_OK &&
	    btdds_svc_get_header(&r, &guid, &seq) && guid == play_svcreq_guid(t->svcreq))
		atomic_fetch_add_explicit(&t->answered, 1, memory_order_relaxed);
	return true;
}

/* A listener's thread: takes the replies as they come (the reader keeps
 * rmw's 10), counting this client's. */
static void on_replies(dds_entity_t reader, void *arg)
{
	(void)btdds_raw_take(reader, on_reply, arg);
}

/* A service's client (play_svcreq) as topic t's writer: its request
 * writer, with the topic's matched listener; its replies counted. */
static dds_entity_t topics_client(struct play *p, struct play_topic *t)
{
	dds_return_t rc = play_svcreq_create(t->svcreq, p->pp, &t->svc_ends);
	if (rc < 0)
		return rc;
	t->raw_type = t->svc_ends.out_type;
	dds_listener_t *lw = dds_create_listener(t), *lr = dds_create_listener(t);
	dds_lset_publication_matched(lw, on_matched);
	dds_lset_data_available(lr, on_replies);
	rc = dds_set_listener(t->svc_ends.writer, lw);
	if (rc >= 0)
		rc = dds_set_listener(t->svc_ends.reader, lr);
	dds_delete_listener(lw);
	dds_delete_listener(lr);
	dds_publication_matched_status_t st;
	if (rc >= 0) /* a match before the listener was set is not told to it */
		rc = dds_get_publication_matched_status(t->svc_ends.writer, &st);
	if (rc < 0)
		return rc;
	atomic_store_explicit(&t->matched, st.current_count, memory_order_relaxed);
	t->step_window = topics_step_window(t->svc_ends.writer);
	return t->svc_ends.writer;
}

bt_status play_topics_create_writers(struct play *p, struct bt_error *err)
{
	for (size_t i = 0; i < p->n_topics; i++) {
		struct play_topic *t = &p->topics[i];
		t->writer = t->svcreq ? topics_client(p, t)
				      : topics_writer(p, t->names.dds_name, t->names.dds_type,
						      t->keyed, &t->qos, t);
		if (t->writer < 0)
			return bt_err_set(err, BT_ERR_DDS, "cannot create a writer for %s (%s): %s",
					  t->names.name, t->names.dds_type,
					  dds_strretcode(t->writer));
	}
	if (topics_clock_on(p)) {
		struct bag_qos q;
		clock_qos(&q);
		p->clock_writer = topics_writer(p, "rt/clock", "rosgraph_msgs::msg::dds_::Clock_",
						false, &q, NULL);
		if (p->clock_writer < 0)
			return bt_err_set(err, BT_ERR_DDS, "cannot create the /clock writer: %s",
					  dds_strretcode(p->clock_writer));
	}
	return BT_OK;
}
