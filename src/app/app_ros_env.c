/* app_ros_env — see app_ros_env.h. */
#include "app_ros_env.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bt_log.h"
#include "bt_parse.h"
#include "btdds_node.h"

static const char *app_getenv(const char *name)
{
	return getenv(name);
}

/* --domain given: ROS_DOMAIN_ID plays no part, as if unset. */
static const char *app_getenv_no_domain(const char *name)
{
	return strcmp(name, "ROS_DOMAIN_ID") == 0 ? NULL : getenv(name);
}

int app_ros_env_read(const struct app_cmd *cmd, struct btdds_env *env, uint32_t *domain)
{
	struct bt_error err = {0};
	bool given = *domain != UINT32_MAX;
	if (btdds_env_read(given ? app_getenv_no_domain : app_getenv, env, &err) != BT_OK)
		return app_usage_error(cmd, "%s", err.msg);
	if (!given && env->domain_set)
		*domain = env->domain_id;
	if (env->n_peers_ignored > 0)
		bt_log_warn("ROS_STATIC_PEERS ignored: %s",
			    env->localhost_only ? "ROS_LOCALHOST_ONLY=1 is set"
			    : env->range == BTDDS_RANGE_OFF
				    ? "ROS_AUTOMATIC_DISCOVERY_RANGE=OFF"
				    : "ROS_AUTOMATIC_DISCOVERY_RANGE=SYSTEM_DEFAULT");
	return 0;
}

int app_ros_env_domain(const struct app_cmd *cmd, const char *arg, uint32_t *domain)
{
	uint64_t u;
	if (bt_parse_u64(arg, 0, BTDDS_DOMAIN_MAX, &u) != BT_OK)
		return app_usage_error(cmd, "--domain wants 0..%d, got '%s'", BTDDS_DOMAIN_MAX, arg);
	*domain = (uint32_t)u;
	return 0;
}

int app_ros_env_node_name(const struct app_cmd *cmd, const char *opt, const char *arg,
			  const char **name)
{
	if (!btdds_node_name_valid(arg))
		return app_usage_error(cmd, "--%s wants a ROS 2 node name (letters, digits, '_', "
				       "not starting with a digit), got '%s'", opt, arg);
	*name = arg;
	return 0;
}

int app_ros_env_log_level(const struct app_cmd *cmd, const char *arg, enum bt_log_level *level)
{
	static const struct {
		const char *name;
		enum bt_log_level level;
	} levels[] = {{"debug", BT_LOG_DEBUG}, {"info", BT_LOG_INFO}, {"warn", BT_LOG_WARN},
		      {"error", BT_LOG_ERROR}, {"fatal", BT_LOG_ERROR}};
	for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
		if (!strcasecmp(arg, levels[i].name)) {
			*level = levels[i].level;
			return 0;
		}
	return app_usage_error(cmd, "--log-level is debug, info, warn, error or fatal, not '%s'",
			       arg);
}
