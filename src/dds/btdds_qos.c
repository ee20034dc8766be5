#include "btdds_qos.h"

#include "btdds_graph.h"
#include "btdds_raw.h"

struct bag_qos_time btdds_qos_time(dds_duration_t d)
{
	if (d == DDS_INFINITY || d < 0)
		return BAG_QOS_TIME_INFINITE;
	return (struct bag_qos_time){(uint64_t)d / 1000000000u, (uint64_t)d % 1000000000u};
}

dds_duration_t btdds_qos_duration(struct bag_qos_time t)
{
	if (t.sec >= BAG_QOS_TIME_INFINITE.sec || t.sec > INT64_MAX / 1000000000)
		return DDS_INFINITY;
	return (dds_duration_t)(t.sec * 1000000000u + t.nsec);
}

void btdds_qos_from_dds(const dds_qos_t *q, struct bag_qos *b)
{
	bag_qos_default(b);
	dds_history_kind_t hk;
	int32_t depth;
	if (dds_qget_history(q, &hk, &depth)) {
		b->history = hk == DDS_HISTORY_KEEP_ALL ? BAG_HISTORY_KEEP_ALL : BAG_HISTORY_KEEP_LAST;
		b->depth = depth > 0 ? (uint64_t)depth : 0;
	}
	dds_reliability_kind_t rk;
	dds_duration_t blocking;
	b->reliability = BAG_RELIABILITY_BEST_EFFORT;
	if (dds_qget_reliability(q, &rk, &blocking) && rk == DDS_RELIABILITY_RELIABLE)
		b->reliability = BAG_RELIABILITY_RELIABLE;
	dds_durability_kind_t dk;
	b->durability = BAG_DURABILITY_VOLATILE;
	if (dds_qget_durability(q, &dk) && dk != DDS_DURABILITY_VOLATILE)
		b->durability = BAG_DURABILITY_TRANSIENT_LOCAL;
	dds_duration_t d;
	if (dds_qget_deadline(q, &d))
		b->deadline = btdds_qos_time(d);
	if (dds_qget_lifespan(q, &d))
		b->lifespan = btdds_qos_time(d);
	dds_liveliness_kind_t lk;
	b->liveliness = BAG_LIVELINESS_AUTOMATIC;
	if (dds_qget_liveliness(q, &lk, &d)) {
		b->liveliness = lk == DDS_LIVELINESS_AUTOMATIC ? BAG_LIVELINESS_AUTOMATIC
			      : lk == DDS_LIVELINESS_MANUAL_BY_PARTICIPANT ? BAG_LIVELINESS_MANUAL_BY_NODE
									: BAG_LIVELINESS_MANUAL_BY_TOPIC;
		b->liveliness_lease_duration = btdds_qos_time(d);
	}
}

/* rmw's default depth for KEEP_LAST without one (rmw_qos_profile_default). */
#define BTDDS_QOS_DEPTH_DEFAULT 10

static void qos_history_to_dds(const struct bag_qos *b, dds_qos_t *q)
{
	if (b->history == BAG_HISTORY_KEEP_ALL) {
		dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
		return;
	}
	int32_t depth = b->depth > 0 && b->depth < INT32_MAX ? (int32_t)b->depth
							      : BTDDS_QOS_DEPTH_DEFAULT;
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
}

/* rmw's RMW_DURATION_UNSPECIFIED ({0, 0}, what rosbag2 stores for a
 * policy left at its default): the policy is not set. A zero deadline or
 * lease set on a writer would fire without end. */
static bool qos_time_unspecified(struct bag_qos_time t)
{
	return t.sec == 0 && t.nsec == 0;
}

static void qos_liveliness_to_dds(const struct bag_qos *b, dds_qos_t *q)
{
	dds_liveliness_kind_t k;
	switch (b->liveliness) {
	case BAG_LIVELINESS_AUTOMATIC: k = DDS_LIVELINESS_AUTOMATIC; break;
	case BAG_LIVELINESS_MANUAL_BY_NODE: k = DDS_LIVELINESS_MANUAL_BY_PARTICIPANT; break;
	case BAG_LIVELINESS_MANUAL_BY_TOPIC: k = DDS_LIVELINESS_MANUAL_BY_TOPIC; break;
	default: return;
	}
	struct bag_qos_time lease = b->liveliness_lease_duration;
	dds_qset_liveliness(q, k,
			    qos_time_unspecified(lease) ? DDS_INFINITY : btdds_qos_duration(lease));
}

void btdds_qos_to_dds(const struct bag_qos *b, dds_qos_t *q)
{
	qos_history_to_dds(b, q);
	if (b->reliability == BAG_RELIABILITY_RELIABLE)
		dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
	else if (b->reliability == BAG_RELIABILITY_BEST_EFFORT)
		dds_qset_reliability(q, DDS_RELIABILITY_BEST_EFFORT, 0);
	if (b->durability == BAG_DURABILITY_TRANSIENT_LOCAL)
		dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	else if (b->durability == BAG_DURABILITY_VOLATILE)
		dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	if (!qos_time_unspecified(b->deadline))
		dds_qset_deadline(q, btdds_qos_duration(b->deadline));
	if (!qos_time_unspecified(b->lifespan))
		dds_qset_lifespan(q, btdds_qos_duration(b->lifespan));
	qos_liveliness_to_dds(b, q);
}

static bool qos_time_eq(struct bag_qos_time a, struct bag_qos_time b)
{
	return a.sec == b.sec && a.nsec == b.nsec;
}

bool btdds_qos_equal(const struct bag_qos *a, const struct bag_qos *b)
{
	return a->history == b->history && a->depth == b->depth &&
	       a->reliability == b->reliability && a->durability == b->durability &&
	       qos_time_eq(a->deadline, b->deadline) && qos_time_eq(a->lifespan, b->lifespan) &&
	       a->liveliness == b->liveliness &&
	       qos_time_eq(a->liveliness_lease_duration, b->liveliness_lease_duration) &&
	       a->avoid_ros_namespace_conventions == b->avoid_ros_namespace_conventions;
}

bt_status btdds_qos_graph_endpoint(dds_entity_t pp, int32_t depth, bool writer,
				   dds_entity_t *topic, dds_entity_t *ep, struct bt_error *err)
{
	*ep = 0;
	*topic = btdds_raw_topic_create(pp, BTDDS_GRAPH_TOPIC, BTDDS_GRAPH_TYPE, false);
	if (*topic < 0)
		return bt_err_set(err, BT_ERR_DDS, "%s topic: %s", BTDDS_GRAPH_TOPIC,
				  dds_strretcode(*topic));
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	*ep = writer ? dds_create_writer(pp, *topic, q, NULL)
		     : dds_create_reader(pp, *topic, q, NULL);
	dds_delete_qos(q);
	if (*ep < 0)
		return bt_err_set(err, BT_ERR_DDS, "%s %s: %s", BTDDS_GRAPH_TOPIC,
				  writer ? "writer" : "reader", dds_strretcode(*ep));
	return BT_OK;
}
