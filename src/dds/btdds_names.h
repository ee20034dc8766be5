/* btdds_names — ROS 2 <-> DDS names, as rmw_cyclonedds spells them:
 * topic "/chatter" is DDS topic "rt/chatter"; type "std_msgs/msg/String"
 * is DDS type "std_msgs::msg::dds_::String_". Pure functions, no DDS. */
#ifndef BTDDS_NAMES_H
#define BTDDS_NAMES_H

#include <stdbool.h>
#include <stddef.h>

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

#endif
