/* bagtop call: a rosbag2 recorder's or player's services from the shell.
 * Minimal here: only --list (app_call_list.c); the service calls are the
 * svc branch's. */
#include <stdbool.h>
#include <stdint.h>

#include "app.h"
#include "app_call_list.h"
#include "app_ros_env.h"
#include "bt_parse.h"

enum { CALL_LIST = 1, CALL_DOMAIN, CALL_TIMEOUT };

#define CALL_LIST_WAIT_NS (2 * INT64_C(1000000000))

static const struct app_opt call_opts[] = {
	{"list", 0, NULL,
	 "list the rosbag2 recorders and players on the domain: node name, kind, services",
	 CALL_LIST},
	{"domain", 0, "ID", "DDS domain id (default: ROS_DOMAIN_ID, else 0)", CALL_DOMAIN},
	{"timeout", 0, "SECONDS", "--list: watch discovery this long (default 2)", CALL_TIMEOUT},
};

struct call_ctx {
	const struct app_cmd *cmd;
	bool list;
	uint32_t domain;
	int64_t timeout_ns;
};

static int call_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct call_ctx *c = ctx;
	uint64_t u;
	switch (o->id) {
	case CALL_DOMAIN:
		if (bt_parse_u64(arg, 0, 232, &u) != BT_OK) /* as record's --domain */
			return app_usage_error(c->cmd, "--domain wants 0..232, got '%s'", arg);
		c->domain = (uint32_t)u;
		return 0;
	case CALL_TIMEOUT:
		if (bt_parse_seconds(arg, &c->timeout_ns) != BT_OK || c->timeout_ns <= 0)
			return app_usage_error(c->cmd, "--timeout wants seconds > 0, got '%s'",
					       arg);
		return 0;
	default: c->list = true; return 0;
	}
}

static int call_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct call_ctx c = {cmd, false, UINT32_MAX, CALL_LIST_WAIT_NS};
	int first;
	int rc = app_opts_parse(cmd, argc, argv, call_opt, &c, &first);
	if (rc != 0)
		return rc < 0 ? APP_EXIT_OK : rc;
	if (!c.list || first < argc)
		return app_usage_error(cmd, "only --list is supported");
	struct btdds_env env;
	rc = app_ros_env_read(cmd, &env, &c.domain);
	if (rc == 0)
		rc = app_call_list(cmd, c.domain, &env, c.timeout_ns);
	btdds_env_fini(&env);
	return rc;
}

const struct app_cmd app_cmd_call = {
	"call", "--list",
	"List (and call) rosbag2 recorders and players on a DDS domain.",
	"\n--list prints one line per recorder or player found on the domain: its\n"
	"node name, its kind and the rosbag2 services it serves.\n",
	call_opts, sizeof call_opts / sizeof call_opts[0], call_run};
