/* btdds_names — ROS 2 <-> DDS names, as rmw_cyclonedds spells them:
 * topic "/chatter" is DDS topic "rt/chatter"; type "std_msgs/msg/String"
 * is DDS type "std_msgs::msg::dds_::String_". Pure functions, no DDS;
 * and a topic's four names (struct btdds_topic_names) under one owner. */
#ifndef BTDDS_NAMES_H
#define BTDDS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

/* What a ROS 2 service's introspection topic ends with, after the service
 * name: "/svc/_service_event" (rcl, Iron and newer). */
#define BTDDS_SERVICE_EVENT_SUFFIX "/_service_event"

/* ROS name of a DDS topic ("rt/x" -> "/x"), or NULL when it is not a ROS 2
 * topic (services "rq/"/"rr/" included). Malloc'ed. */
char *btdds_names_ros_topic(const char *dds_topic);
/* ROS type of a DDS type ("pkg::msg::dds_::T_" -> "pkg/msg/T"), or NULL
 * when it is not a mangled ROS 2 type. Malloc'ed. */
char *btdds_names_ros_type(const char *dds_type);
/* The DDS topic a user's topic argument names: "/x" -> "rt/x"; anything
 * else (already a DDS name) unchanged. Malloc'ed. */
char *btdds_names_dds_topic(const char *arg);
/* The DDS type of a ROS type ("pkg/msg/T" -> "pkg::msg::dds_::T_"), or
 * NULL when it is not one (no '/', an empty part). Malloc'ed. */
char *btdds_names_dds_type(const char *ros_type);
/* True for topics bagtop never records (ros_discovery_info, DDS built-in
 * topics, bagtop's own live statistics). */
bool btdds_names_is_internal(const char *dds_topic);

/* A topic's names as a bag keeps them and as DDS carries them, all four
 * malloc'ed and owned here (the recorder's and the player's topics). */
struct btdds_topic_names {
	char *name;     /* as in the bag: "/chatter", or the DDS name */
	char *type;     /* as in the bag: "std_msgs/msg/String", or the DDS type */
	char *dds_name; /* "rt/chatter" */
	char *dds_type; /* "std_msgs::msg::dds_::String_" */
};

/* The names of a discovered DDS topic (recording): the ROS name and type
 * when both demangle, else the DDS ones. Returns whether they did (a ROS 2
 * topic). Aborts on OOM (set-up code). */
bool btdds_topic_names_init_dds(struct btdds_topic_names *n, const char *dds_name,
				const char *dds_type);
/* The names of a bag's topic (playing): a ROS name ("/x") is DDS "rt/x"
 * and its type is mangled when it is a ROS type; any other name or type
 * is already the DDS one. Returns whether the name is a ROS one. Aborts on
 * OOM (set-up code). */
bool btdds_topic_names_init_bag(struct btdds_topic_names *n, const char *name,
				const char *type);
/* Frees the four names. */
void btdds_topic_names_fini(struct btdds_topic_names *n);

#endif
