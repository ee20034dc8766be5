/* btdds_qos_overrides — rosbag2's --qos-profile-overrides-path file
 * (ros2bag/api/__init__.py, interpret_dict_as_qos_profile), read by record
 * (its readers' QoS) and play (its writers'), each applying it its own way.
 *
 * The file is read with libyaml's event parser. Its shape is fixed
 * (topics -> profile -> {sec, nsec}): a collection where a value is expected
 * is refused at its first event, so nesting is limited to those three
 * levels without loading anything deeper; aliases are refused. */
#include "btdds_qos_overrides.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "bag_qos.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "btdds_names.h"

#define OV_MAX_FILE (4u << 20)
#define OV_MAX_POLICY 16 /* above every enum bag_* value */
/* rmw_time_t of a DDS duration: sec fits dds_duration_t. */
#define OV_MAX_SEC 9223372036u
#define OV_NSEC_PER_SEC 1000000000u

struct ov_entry {
	char *topic; /* as written */
	char *dds;   /* btdds_names_dds_topic(topic) */
	struct bag_qos qos;
};

struct btdds_qos_overrides {
	struct ov_entry *v;
	size_t n, cap;
};

/* The parse in progress: one look-ahead event at a time. */
struct ov_parser {
	yaml_parser_t yp;
	yaml_event_t ev;
	bool have_ev;
	const char *path;
	struct bt_error *err;
};

static size_t ov_line(const struct ov_parser *p)
{
	return p->ev.start_mark.line + 1;
}

static bt_status ov_next(struct ov_parser *p)
{
	if (p->have_ev)
		yaml_event_delete(&p->ev);
	p->have_ev = false;
	if (!yaml_parser_parse(&p->yp, &p->ev))
		return bt_err_set(p->err, BT_ERR_FORMAT, "%s:%zu: YAML error: %s", p->path,
				  p->yp.problem_mark.line + 1,
				  p->yp.problem ? p->yp.problem : "unknown problem");
	p->have_ev = true;
	if (p->ev.type == YAML_ALIAS_EVENT)
		return bt_err_set(p->err, BT_ERR_FORMAT, "%s:%zu: YAML aliases are not supported",
				  p->path, ov_line(p));
	return BT_OK;
}

static const char *ov_scalar(const struct ov_parser *p)
{
	return (const char *)p->ev.data.scalar.value;
}

static bool ov_is_null(const struct ov_parser *p)
{
	if (p->ev.type != YAML_SCALAR_EVENT || p->ev.data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	const char *s = ov_scalar(p);
	return !strcmp(s, "") || !strcmp(s, "~") || !strcmp(s, "null") || !strcmp(s, "Null") ||
	       !strcmp(s, "NULL");
}

static bt_status ov_bad(struct ov_parser *p, const char *what, const char *key,
		       const char *topic, const char *expect)
{
	const char *got = p->ev.type == YAML_SCALAR_EVENT ? ov_scalar(p) : "(not a scalar)";
	return bt_err_set(p->err, BT_ERR_FORMAT, "%s:%zu: bad %s '%s' for %s of topic '%s'%s%s",
			  p->path, ov_line(p), what, got, key, topic, expect[0] ? ": " : "",
			  expect);
}

static bt_status ov_expect_scalar(struct ov_parser *p, const char *key, const char *topic)
{
	if (p->ev.type == YAML_SCALAR_EVENT)
		return BT_OK;
	return bt_err_set(p->err, BT_ERR_FORMAT, "%s:%zu: %s of topic '%s' must be a value",
			  p->path, ov_line(p), key, topic);
}

/* A policy name, as rclpy's get_from_short_key (bag_qos_*_name tables).
 * "unknown" is not a policy one can ask for. */
static bt_status ov_policy(struct ov_parser *p, const char *key, const char *topic,
			   const char *(*name)(int), const char *expect, int *out)
{
	bt_status st = ov_expect_scalar(p, key, topic);
	if (st != BT_OK)
		return st;
	for (int v = 0; v < OV_MAX_POLICY; v++) {
		if (strcmp(name(v), "unknown") != 0 && strcmp(name(v), ov_scalar(p)) == 0) {
			*out = v;
			return BT_OK;
		}
	}
	return ov_bad(p, "value", key, topic, expect);
}

static bt_status ov_u64(struct ov_parser *p, const char *key, const char *topic, uint64_t max,
			uint64_t *out)
{
	bt_status st = ov_expect_scalar(p, key, topic);
	if (st != BT_OK)
		return st;
	if (bt_parse_u64(ov_scalar(p), 0, max, out) != BT_OK) {
		char expect[64];
		snprintf(expect, sizeof expect, "an integer 0..%llu", (unsigned long long)max);
		return ov_bad(p, "value", key, topic, expect);
	}
	return BT_OK;
}

static bt_status ov_bool(struct ov_parser *p, const char *key, const char *topic, bool *out)
{
	static const char *const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On",
					  "ON"};
	static const char *const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off",
					 "Off", "OFF"};
	bt_status st = ov_expect_scalar(p, key, topic);
	if (st != BT_OK)
		return st;
	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (strcmp(ov_scalar(p), yes[i]) == 0 || strcmp(ov_scalar(p), no[i]) == 0) {
			*out = strcmp(ov_scalar(p), yes[i]) == 0;
			return BT_OK;
		}
	}
	return ov_bad(p, "value", key, topic, "true or false");
}

/* {sec: S, nsec: N}, both required (as ros2bag's dict_to_duration); null
 * is {0, 0}: unspecified. nsec beyond a second carries into sec. */
static bt_status ov_time(struct ov_parser *p, const char *key, const char *topic,
			 struct bag_qos_time *out)
{
	if (ov_is_null(p)) {
		*out = (struct bag_qos_time){0, 0};
		return BT_OK;
	}
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return bt_err_set(p->err, BT_ERR_FORMAT,
				  "%s:%zu: %s of topic '%s' must be {sec: S, nsec: N}", p->path,
				  ov_line(p), key, topic);
	size_t line = ov_line(p);
	uint64_t sec = 0, nsec = 0;
	bool have_sec = false, have_nsec = false;
	bt_status st;
	while ((st = ov_next(p)) == BT_OK && p->ev.type != YAML_MAPPING_END_EVENT) {
		if (p->ev.type != YAML_SCALAR_EVENT ||
		    (strcmp(ov_scalar(p), "sec") != 0 && strcmp(ov_scalar(p), "nsec") != 0))
			return ov_bad(p, "key", key, topic, "sec or nsec");
		bool is_sec = strcmp(ov_scalar(p), "sec") == 0;
		if ((st = ov_next(p)) != BT_OK)
			return st;
		st = is_sec ? ov_u64(p, key, topic, OV_MAX_SEC, &sec)
			    : ov_u64(p, key, topic, UINT32_MAX, &nsec);
		if (st != BT_OK)
			return st;
		*(is_sec ? &have_sec : &have_nsec) = true;
	}
	if (st != BT_OK)
		return st;
	if (!have_sec || !have_nsec)
		return bt_err_set(p->err, BT_ERR_FORMAT,
				  "%s:%zu: %s of topic '%s' needs both sec and nsec", p->path, line,
				  key, topic);
	out->sec = sec + nsec / OV_NSEC_PER_SEC;
	out->nsec = nsec % OV_NSEC_PER_SEC;
	return BT_OK;
}

/* One `key: value` of a profile; the parser is on the value. */
static bt_status ov_policy_value(struct ov_parser *p, const char *key, const char *topic,
				 struct bag_qos *q)
{
	if (!strcmp(key, "history"))
		return ov_policy(p, key, topic, bag_qos_history_name,
				 "keep_last, keep_all or system_default", &q->history);
	if (!strcmp(key, "depth"))
		return ov_u64(p, key, topic, INT32_MAX, &q->depth);
	if (!strcmp(key, "reliability"))
		return ov_policy(p, key, topic, bag_qos_reliability_name,
				 "reliable, best_effort, best_available or system_default",
				 &q->reliability);
	if (!strcmp(key, "durability"))
		return ov_policy(p, key, topic, bag_qos_durability_name,
				 "volatile, transient_local, best_available or system_default",
				 &q->durability);
	if (!strcmp(key, "liveliness"))
		return ov_policy(p, key, topic, bag_qos_liveliness_name,
				 "automatic, manual_by_topic, best_available or system_default",
				 &q->liveliness);
	if (!strcmp(key, "deadline"))
		return ov_time(p, key, topic, &q->deadline);
	if (!strcmp(key, "lifespan"))
		return ov_time(p, key, topic, &q->lifespan);
	if (!strcmp(key, "liveliness_lease_duration"))
		return ov_time(p, key, topic, &q->liveliness_lease_duration);
	if (!strcmp(key, "avoid_ros_namespace_conventions"))
		return ov_bool(p, key, topic, &q->avoid_ros_namespace_conventions);
	return BT_ERR_NOTFOUND;
}

/* Nothing given: every policy system_default, times unspecified. */
static void ov_qos_init(struct bag_qos *q)
{
	memset(q, 0, sizeof *q);
	q->history = BAG_HISTORY_SYSTEM_DEFAULT;
	q->reliability = BAG_RELIABILITY_SYSTEM_DEFAULT;
	q->durability = BAG_DURABILITY_SYSTEM_DEFAULT;
	q->liveliness = BAG_LIVELINESS_SYSTEM_DEFAULT;
}

/* The profile mapping of `topic`; the parser is on its first event. */
static bt_status ov_profile(struct ov_parser *p, const char *topic, struct bag_qos *q)
{
	ov_qos_init(q);
	if (p->ev.type != YAML_MAPPING_START_EVENT)
		return bt_err_set(p->err, BT_ERR_FORMAT,
				  "%s:%zu: the QoS profile of topic '%s' must be a mapping",
				  p->path, ov_line(p), topic);
	bt_status st;
	while ((st = ov_next(p)) == BT_OK && p->ev.type != YAML_MAPPING_END_EVENT) {
		if (p->ev.type != YAML_SCALAR_EVENT)
			return bt_err_set(p->err, BT_ERR_FORMAT,
					  "%s:%zu: a QoS key of topic '%s' must be a name",
					  p->path, ov_line(p), topic);
		char *key = bt_xstrdup(ov_scalar(p));
		size_t line = ov_line(p);
		st = ov_next(p);
		if (st == BT_OK)
			st = ov_policy_value(p, key, topic, q);
		if (st == BT_ERR_NOTFOUND)
			st = bt_err_set(p->err, BT_ERR_FORMAT,
					"%s:%zu: unknown QoS key '%s' for topic '%s'", p->path, line,
					key, topic);
		free(key);
		if (st != BT_OK)
			return st;
	}
	return st;
}

static struct ov_entry *ov_lookup(const struct btdds_qos_overrides *o, const char *topic)
{
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->v[i].topic, topic) == 0)
			return &o->v[i];
	return NULL;
}

/* One `topic: profile` of the top mapping; the parser is on the topic. */
static bt_status ov_topic(struct ov_parser *p, struct btdds_qos_overrides *o)
{
	if (p->ev.type != YAML_SCALAR_EVENT || ov_scalar(p)[0] == '\0')
		return bt_err_set(p->err, BT_ERR_FORMAT, "%s:%zu: expected a topic name",
				  p->path, ov_line(p));
	if (ov_lookup(o, ov_scalar(p)) != NULL)
		return bt_err_set(p->err, BT_ERR_FORMAT, "%s:%zu: topic '%s' is given twice",
				  p->path, ov_line(p), ov_scalar(p));
	char *topic = bt_xstrdup(ov_scalar(p));
	struct bag_qos q;
	bt_status st = ov_next(p);
	if (st == BT_OK)
		st = ov_profile(p, topic, &q);
	if (st != BT_OK) {
		free(topic);
		return st;
	}
	bt_xgrow((void **)&o->v, &o->cap, o->n + 1, sizeof *o->v);
	o->v[o->n++] = (struct ov_entry){topic, btdds_names_dds_topic(topic), q};
	return BT_OK;
}

/* stream-start, then nothing, a null document, or one mapping of topics. */
static bt_status ov_document(struct ov_parser *p, struct btdds_qos_overrides *o)
{
	bt_status st = ov_next(p);
	if (st == BT_OK && p->ev.type == YAML_STREAM_START_EVENT)
		st = ov_next(p);
	if (st != BT_OK || p->ev.type == YAML_STREAM_END_EVENT)
		return st; /* an empty file: no overrides */
	if ((st = ov_next(p)) != BT_OK) /* past document-start */
		return st;
	if (ov_is_null(p)) {
		st = ov_next(p);
	} else if (p->ev.type != YAML_MAPPING_START_EVENT) {
		return bt_err_set(p->err, BT_ERR_FORMAT,
				  "%s:%zu: expected a mapping of topic names to QoS profiles",
				  p->path, ov_line(p));
	} else {
		while ((st = ov_next(p)) == BT_OK && p->ev.type != YAML_MAPPING_END_EVENT)
			if ((st = ov_topic(p, o)) != BT_OK)
				return st;
		if (st == BT_OK)
			st = ov_next(p);
	}
	if (st == BT_OK && p->ev.type == YAML_DOCUMENT_END_EVENT)
		st = ov_next(p);
	if (st == BT_OK && p->ev.type != YAML_STREAM_END_EVENT)
		st = bt_err_set(p->err, BT_ERR_FORMAT, "%s:%zu: only one YAML document is allowed",
				p->path, ov_line(p));
	return st;
}

bt_status btdds_qos_overrides_load(const char *path, struct btdds_qos_overrides **out,
				   struct bt_error *err)
{
	char *text = NULL;
	size_t len = 0;
	bt_status st = bt_fs_read_all(path, OV_MAX_FILE, &text, &len, err);
	if (st != BT_OK)
		return st;
	struct ov_parser p = {.path = path, .err = err};
	if (!yaml_parser_initialize(&p.yp)) {
		free(text);
		return bt_err_set(err, BT_ERR_NOMEM, "cannot start the YAML parser");
	}
	yaml_parser_set_input_string(&p.yp, (const unsigned char *)text, len);
	struct btdds_qos_overrides *o = bt_xcalloc(1, sizeof *o);
	st = ov_document(&p, o);
	if (p.have_ev)
		yaml_event_delete(&p.ev);
	yaml_parser_delete(&p.yp);
	free(text);
	if (st != BT_OK) {
		btdds_qos_overrides_free(o);
		return st;
	}
	*out = o;
	return BT_OK;
}

void btdds_qos_overrides_free(struct btdds_qos_overrides *o)
{
	if (o == NULL)
		return;
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i].topic);
		free(o->v[i].dds);
	}
	free(o->v);
	free(o);
}

/* An entry names the topic by its ROS name or its DDS name; the first
 * entry in file order that does wins. */
const struct bag_qos *btdds_qos_overrides_find(const struct btdds_qos_overrides *o,
					       const char *dds_name, const char *ros_name)
{
	if (o == NULL)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if ((ros_name != NULL && strcmp(o->v[i].topic, ros_name) == 0) ||
		    strcmp(o->v[i].dds, dds_name) == 0)
			return &o->v[i].qos;
	return NULL;
}
