#include "bag_qos.h"

#include <stdlib.h>
#include <string.h>

#include "bag_compat.h"
#include "bt_mem.h"
#include "store__qos.h"

static const char *const bag_qos_history_names[] = {"system_default", "keep_last", "keep_all",
						    "unknown"};
static const char *const bag_qos_reliability_names[] = {"system_default", "reliable",
							"best_effort", "unknown",
							"best_available"};
static const char *const bag_qos_durability_names[] = {"system_default", "transient_local",
						       "volatile", "unknown", "best_available"};
static const char *const bag_qos_liveliness_names[] = {"system_default", "automatic",
						       "manual_by_node", "manual_by_topic",
						       "unknown", "best_available"};

#define BAG_QOS_COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char *bag_qos_name(const char *const *names, int count, int v)
{
	return v >= 0 && v < count ? names[v] : "unknown";
}

const char *bag_qos_history_name(int v)
{
	return bag_qos_name(bag_qos_history_names, BAG_QOS_COUNT(bag_qos_history_names), v);
}

const char *bag_qos_reliability_name(int v)
{
	return bag_qos_name(bag_qos_reliability_names, BAG_QOS_COUNT(bag_qos_reliability_names),
			    v);
}

const char *bag_qos_durability_name(int v)
{
	return bag_qos_name(bag_qos_durability_names, BAG_QOS_COUNT(bag_qos_durability_names), v);
}

const char *bag_qos_liveliness_name(int v)
{
	return bag_qos_name(bag_qos_liveliness_names, BAG_QOS_COUNT(bag_qos_liveliness_names),
			    v);
}

static void bag_qos_emit_time(struct ye *e, const char *key, struct bag_qos_time t)
{
	ye_key(e, key);
	ye_open(e, YE_MAP);
	ye_key(e, "sec");
	ye_u64(e, t.sec);
	ye_key(e, "nsec");
	ye_u64(e, t.nsec);
	ye_close(e, YE_MAP);
}

/* A policy as its name (v9) or as the rmw number (older layouts). */
static void bag_qos_emit_enum(struct ye *e, const char *key, int v, const char *name, bool names)
{
	ye_key(e, key);
	if (names)
		ye_plain(e, name);
	else
		ye_i64(e, v);
}

static void bag_qos_emit_one(struct ye *e, const struct bag_qos *q, bool names)
{
	ye_open(e, YE_MAP);
	bag_qos_emit_enum(e, "history", q->history, bag_qos_history_name(q->history), names);
	ye_key(e, "depth");
	ye_u64(e, q->depth);
	bag_qos_emit_enum(e, "reliability", q->reliability,
			  bag_qos_reliability_name(q->reliability), names);
	bag_qos_emit_enum(e, "durability", q->durability, bag_qos_durability_name(q->durability),
			  names);
	bag_qos_emit_time(e, "deadline", q->deadline);
	bag_qos_emit_time(e, "lifespan", q->lifespan);
	bag_qos_emit_enum(e, "liveliness", q->liveliness, bag_qos_liveliness_name(q->liveliness),
			  names);
	bag_qos_emit_time(e, "liveliness_lease_duration", q->liveliness_lease_duration);
	ye_key(e, "avoid_ros_namespace_conventions");
	ye_plain(e, q->avoid_ros_namespace_conventions ? "true" : "false");
	ye_close(e, YE_MAP);
}

void bag_qos_emit(struct ye *e, const struct bag_qos *q, size_t n, int version)
{
	if (n == 0) {
		ye_open(e, YE_FLOW_SEQ);
		ye_close(e, YE_FLOW_SEQ);
		return;
	}
	ye_open(e, YE_SEQ);
	for (size_t i = 0; i < n; i++)
		bag_qos_emit_one(e, &q[i], bag_qos_uses_names(version));
	ye_close(e, YE_SEQ);
}

bt_status bag_qos_to_string(const struct bag_qos *q, size_t n, int version, struct bt_buf *out)
{
	if (n == 0)
		return bt_buf_puts(out, "");
	size_t start = out->len;
	struct ye e;
	ye_begin(&e, out);
	bag_qos_emit(&e, q, n, version);
	bt_status st = ye_end(&e);
	/* yaml-cpp's Dump, which rosbag2 uses, has no final newline. */
	while (st == BT_OK && out->len > start && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
	return st;
}

/* The policy under `key` in map, given as a number (v4..v8) or as a name
 * (v9); absent: *out is left as it is (the default). */
static bt_status bag_qos_parse_enum(yaml_document_t *doc, yaml_node_t *map, const char *key,
				    const char *const *names, int count, int *out)
{
	yaml_node_t *n = yd_get(doc, map, key);
	if (!n)
		return BT_OK;
	int64_t num;
	if (yd_i64(n, &num) == BT_OK) {
		if (num < 0 || num > 1000)
			return BT_ERR_FORMAT;
		*out = (int)num;
		return BT_OK;
	}
	if (n->type != YAML_SCALAR_NODE)
		return BT_ERR_FORMAT;
	for (int i = 0; i < count; i++) {
		if (strlen(names[i]) == n->data.scalar.length &&
		    !memcmp(names[i], n->data.scalar.value, n->data.scalar.length)) {
			*out = i;
			return BT_OK;
		}
	}
	return BT_ERR_FORMAT;
}

/* Foxy-era "infinite" spellings map to RMW_DURATION_INFINITE, as rosbag2. */
static struct bag_qos_time bag_qos_norm_time(struct bag_qos_time t)
{
	if (t.sec == 0x7FFFFFFFu && (t.nsec == 0xFFFFFFFFu || t.nsec == 0x7FFFFFFFu))
		return BAG_QOS_TIME_INFINITE;
	return t;
}

static bt_status bag_qos_parse_time(yaml_document_t *doc, yaml_node_t *map, const char *key,
				    struct bag_qos_time *t)
{
	yaml_node_t *n = yd_get(doc, map, key);
	if (!n)
		return BT_OK; /* absent: keep the default */
	if (yd_u64(yd_get(doc, n, "sec"), &t->sec) != BT_OK ||
	    yd_u64(yd_get(doc, n, "nsec"), &t->nsec) != BT_OK)
		return BT_ERR_FORMAT;
	*t = bag_qos_norm_time(*t);
	return BT_OK;
}

static bt_status bag_qos_parse_one(yaml_document_t *doc, yaml_node_t *m, struct bag_qos *q)
{
	bag_qos_default(q);
	if (!m || m->type != YAML_MAPPING_NODE)
		return BT_ERR_FORMAT;
	if (bag_qos_parse_enum(doc, m, "history", bag_qos_history_names,
			       BAG_QOS_COUNT(bag_qos_history_names), &q->history) != BT_OK ||
	    bag_qos_parse_enum(doc, m, "reliability", bag_qos_reliability_names,
			       BAG_QOS_COUNT(bag_qos_reliability_names), &q->reliability) != BT_OK ||
	    bag_qos_parse_enum(doc, m, "durability", bag_qos_durability_names,
			       BAG_QOS_COUNT(bag_qos_durability_names), &q->durability) != BT_OK ||
	    bag_qos_parse_enum(doc, m, "liveliness", bag_qos_liveliness_names,
			       BAG_QOS_COUNT(bag_qos_liveliness_names), &q->liveliness) != BT_OK)
		return BT_ERR_FORMAT;
	yaml_node_t *n;
	if ((n = yd_get(doc, m, "depth")) && yd_u64(n, &q->depth) != BT_OK)
		return BT_ERR_FORMAT;
	if ((n = yd_get(doc, m, "avoid_ros_namespace_conventions")) &&
	    yd_bool(n, &q->avoid_ros_namespace_conventions) != BT_OK)
		return BT_ERR_FORMAT;
	if (bag_qos_parse_time(doc, m, "deadline", &q->deadline) != BT_OK ||
	    bag_qos_parse_time(doc, m, "lifespan", &q->lifespan) != BT_OK ||
	    bag_qos_parse_time(doc, m, "liveliness_lease_duration",
			       &q->liveliness_lease_duration) != BT_OK)
		return BT_ERR_FORMAT;
	return BT_OK;
}

bt_status bag_qos_parse_node(yaml_document_t *doc, yaml_node_t *seq, struct bag_qos **out,
			     size_t *n, struct bt_error *err)
{
	*out = NULL;
	*n = 0;
	if (yd_is_null(seq))
		return BT_OK;
	if (seq->type != YAML_SEQUENCE_NODE)
		return bt_err_set(err, BT_ERR_FORMAT, "offered_qos_profiles is not a sequence");
	size_t cnt = yd_len(seq);
	if (cnt == 0)
		return BT_OK;
	struct bag_qos *q = bt_xcalloc(cnt, sizeof *q);
	for (size_t i = 0; i < cnt; i++) {
		if (bag_qos_parse_one(doc, yd_item(doc, seq, i), &q[i]) != BT_OK) {
			free(q);
			return bt_err_set(err, BT_ERR_FORMAT, "QoS profile %zu is malformed", i + 1);
		}
	}
	*out = q;
	*n = cnt;
	return BT_OK;
}

bt_status bag_qos_from_string(const char *s, struct bag_qos **out, size_t *n,
			      struct bt_error *err)
{
	*out = NULL;
	*n = 0;
	size_t len = strlen(s);
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'))
		i++;
	if (i == len)
		return BT_OK;
	yaml_document_t doc;
	bt_status st = yd_load(&doc, s, len, err);
	if (st != BT_OK)
		return bt_err_prefix(err, "offered_qos_profiles");
	st = bag_qos_parse_node(&doc, yaml_document_get_root_node(&doc), out, n, err);
	yaml_document_delete(&doc);
	return st;
}
