/* btdds_select — which topics to take, as `ros2 bag record` and
 * `ros2 bag play` decide: discovered ones to record (src/core), a bag's to
 * play (src/play) or convert (src/app). Explicit topics, -a/--all,
 * -e/--regex, -x/--exclude-regex, --exclude-topics, --topic-types,
 * --exclude-topic-types, --all-topics, --all-services, --services,
 * --exclude-services, --include-hidden-topics. Every topic argument may be a
 * ROS name ("/chatter") or a DDS name ("rt/chatter", "DDSPerfRDataKS").
 * Regexes (POSIX extended, searched for, not anchored) are tried against the
 * ROS name, the DDS name and, for services, the service name ("/svc"); one
 * hit selects (-e) or excludes (-x). The rules are in btdds_select.c.
 * Pure: no DDS entities, no threads (immutable after new; any thread may
 * match); here because it names topics both ways (btdds_names). */
#ifndef BTDDS_SELECT_H
#define BTDDS_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "bt_status.h"

struct btdds_select_options {
	const char *const *topics; /* explicit topic arguments */
	size_t n_topics;
	bool all;                  /* -a */
	const char *regex;         /* -e, NULL when not given */
	const char *exclude_regex; /* -x, NULL when not given */
	const char *const *exclude_topics;
	size_t n_exclude_topics;
	/* --topic-types / --exclude-topic-types: ROS ("pkg/msg/T") or DDS
	 * ("pkg::msg::dds_::T_", or a plain DDS type's own name) type names */
	const char *const *types;
	size_t n_types;
	const char *const *exclude_types;
	size_t n_exclude_types;
	/* --services / --exclude-services: ROS 2 service names ("/svc"), taken
	 * as their introspection topics ("/svc/_service_event") */
	const char *const *services;
	size_t n_services;
	const char *const *exclude_services;
	size_t n_exclude_services;
	bool all_topics;     /* --all-topics: as -a, but no service event topics */
	bool all_services;   /* --all-services: every service event topic */
	bool include_hidden; /* --include-hidden-topics */
	bool include_services; /* DDS services (rq/ rr/) are skipped unless set
				* or named explicitly */
};

struct btdds_select;

/* True when no topic, service or -e names anything: where a reader of a
 * bag (play, convert) takes every topic, as `all`. */
bool btdds_select_names_nothing(const struct btdds_select_options *opt);

/* Compiles the selection. BT_ERR_USAGE with a one-line reason when no
 * topic source is given (no topics, services or types, no -a, -e,
 * --all-topics or --all-services) or a regex is invalid. */
BT_MUST_CHECK bt_status btdds_select_new(const struct btdds_select_options *opt,
				       struct btdds_select **out, struct bt_error *err);
/* A selection of one TOPIC_OR_REGEX argument of option `opt` (e.g.
 * "--throttle"): a plain name ("/imu", "rt/imu": letters, digits, '_',
 * '/', '~') names one topic, as an explicit topic argument; anything else
 * is a regex, as -e. Hidden topics and DDS services are matched too (the
 * argument chose them). BT_ERR_USAGE with a one-line reason when the
 * regex does not compile or the argument is empty. */
BT_MUST_CHECK bt_status btdds_select_new_pattern(const char *arg, const char *opt,
					       struct btdds_select **out, struct bt_error *err);
void btdds_select_free(struct btdds_select *s);
/* Should the topic with this DDS name (and ROS name, NULL when it is not a
 * ROS 2 topic) be recorded? Its type unknown: the type rules take no part. */
bool btdds_select_match(const struct btdds_select *s, const char *dds_name, const char *ros_name);
/* The same for a topic of type `type`, as a bag names it ("pkg/msg/T",
 * or a plain DDS type's name). */
bool btdds_select_match_typed(const struct btdds_select *s, const char *dds_name,
			      const char *ros_name, const char *type);
/* Number of explicit topic arguments, and the i-th as given (to warn
 * about topics that never appeared). */
size_t btdds_select_explicit_count(const struct btdds_select *s);
const char *btdds_select_explicit(const struct btdds_select *s, size_t i);
/* True when the explicit argument i names this topic. */
bool btdds_select_explicit_matches(const struct btdds_select *s, size_t i, const char *dds_name,
				 const char *ros_name);

#endif
