/* app_ros_env — the ROS 2 environment for every command that joins DDS
 * (record, demo, stats): read once, bad values refused as usage errors. */
#ifndef APP_ROS_ENV_H
#define APP_ROS_ENV_H

#include <stdbool.h>
#include <stdint.h>

#include "app_opts.h"
#include "bt_log.h"
#include "btdds_env.h"

/* Reads the environment into *env (btdds_env_fini frees it, also after an
 * error) and, when `*domain` is still UINT32_MAX (no --domain given), sets
 * it from ROS_DOMAIN_ID. --domain wins: ROS_DOMAIN_ID is then neither read
 * nor checked. Warns once when ROS_STATIC_PEERS is ignored. Returns 0, or
 * a usage exit after one line naming the variable. */
int app_ros_env_read(const struct app_cmd *cmd, struct btdds_env *env, uint32_t *domain);
/* Checks a --domain value, 0..BTDDS_DOMAIN_MAX as ROS_DOMAIN_ID: 0 with
 * *domain set, or a usage exit after one line. */
int app_ros_env_domain(const struct app_cmd *cmd, const char *arg, uint32_t *domain);
/* Checks the value `arg` of option --`opt`, a ROS 2 node name: 0 with
 * *name = arg, or a usage exit after one line naming the option. */
int app_ros_env_node_name(const struct app_cmd *cmd, const char *opt, const char *arg,
			  const char **name);

/* Checks a --log-level value as ros2 bag takes it (debug, info, warn,
 * error, fatal; any case): 0 with *level set (fatal is error: bagtop has
 * nothing above it), or a usage exit after one line. */
int app_ros_env_log_level(const struct app_cmd *cmd, const char *arg, enum bt_log_level *level);

#endif
