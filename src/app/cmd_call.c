/* bagtop call: one of rosbag2's recorder or player services (btdds_rosbag2),
 * called the way `ros2 service call` does on rmw_cyclonedds, without ROS:
 * against a bagtop recorder or a rosbag2 one on any machine of the domain. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "app_call_list.h"
#include "app_ros_env.h"
#include "bt_parse.h"
#include "btdds_rosbag2.h"
#include "rec_cmd.h"

enum { CALL_NODE = 1, CALL_DOMAIN, CALL_TIMEOUT, CALL_LIST, CALL_SNAP };

#define CALL_TIMEOUT_NS (INT64_C(10) * 1000000000)
#define CALL_LIST_WAIT_NS (INT64_C(2) * 1000000000)
/* After the first reply, how long the other servers of the service get:
 * a bagtop server waits 2 s for the client's reply reader to match
 * (BTDDS_SVC_GATE_NS), rmw_cyclonedds's likewise a while. */
#define CALL_MORE_NS (INT64_C(3) * 1000000000)

static const struct app_opt call_opts[] = {
	{"node", 0, "NAME",
	 "the node whose service to call (default rosbag2_recorder; rosbag2_player for the "
	 "player's verbs)",
	 CALL_NODE},
	{"domain", 0, "ID", "DDS domain id (default: ROS_DOMAIN_ID, else 0)", CALL_DOMAIN},
	{"timeout", 0, "SECONDS",
	 "give up after SECONDS without the service or its reply (default 10); with --list, "
	 "watch discovery this long (default 2)",
	 CALL_TIMEOUT},
	{"list", 0, NULL,
	 "list the rosbag2 recorders and players on the domain: node name, kind, services",
	 CALL_LIST},
	{"before", 0, "SECONDS", "snapshot: at most SECONDS before the trigger (as bagtop "
	 "snapshot's; any of these calls ~/snapshot_with_parameters)", CALL_SNAP},
	{"after", 0, "SECONDS", "snapshot: at most SECONDS after the trigger", CALL_SNAP},
	{"topics", 0, "LIST", "snapshot: only these topics (comma-separated)", CALL_SNAP},
	{"exclude", 0, "LIST", "snapshot: not these topics (comma-separated)", CALL_SNAP},
	{"name", 0, "NAME", "snapshot: name its file NAME plus the storage's extension",
	 CALL_SNAP},
};

struct call_ctx {
	const struct app_cmd *cmd;
	const char *node;
	bool list;
	uint32_t domain;
	int64_t timeout_ns; /* 0: not given */
	struct rec_cmd_snap snap; /* --before ... --name */
	bool snap_given;
};

static int call_opt(void *arg, const struct app_opt *o, const char *val)
{
	struct call_ctx *c = arg;
	switch (o->id) {
	case CALL_NODE: return app_ros_env_node_name(c->cmd, o->lng, val, &c->node);
	case CALL_DOMAIN: return app_ros_env_domain(c->cmd, val, &c->domain);
	case CALL_LIST: c->list = true; return 0;
	case CALL_SNAP: c->snap_given = true; return app_snapshot_param(c->cmd, o->lng, val, &c->snap);
	default: /* CALL_TIMEOUT */
		if (bt_parse_seconds(val, &c->timeout_ns) != BT_OK || c->timeout_ns <= 0)
			return app_usage_error(c->cmd, "--timeout wants seconds above 0, got '%s'",
					       val);
		return 0;
	}
}

/* The verb's argument, if it takes one: 0 or a usage exit. */
static int call_arg(const struct app_cmd *cmd, const struct btdds_rb2_svc *s, int n,
		    char **operands, struct btdds_rb2_arg *a)
{
	bool wants = s->req == BTDDS_RB2_REQ_F64 || s->req == BTDDS_RB2_REQ_U64 ||
		     s->req == BTDDS_RB2_REQ_TIME;
	if (n != (wants ? 2 : 1))
		return app_usage_error(cmd, wants ? "%s wants one argument" : "%s takes no argument",
				       s->verb);
	if (s->req == BTDDS_RB2_REQ_F64 &&
	    (bt_parse_decimal(operands[1], 0.0, 1e9, &a->f64) != BT_OK || a->f64 <= 0.0))
		return app_usage_error(cmd, "set-rate wants a rate above 0, got '%s'", operands[1]);
	if (s->req == BTDDS_RB2_REQ_U64 && bt_parse_u64(operands[1], 0, UINT64_MAX, &a->u64) != BT_OK)
		return app_usage_error(cmd, "burst wants a message count (0: the whole bag), got '%s'",
				       operands[1]);
	if (s->req == BTDDS_RB2_REQ_TIME && (bt_parse_seconds(operands[1], &a->ns) != BT_OK ||
					     a->ns < 0 || a->ns / 1000000000 > INT32_MAX))
		return app_usage_error(cmd, "seek wants a time in seconds since the epoch (the "
				       "bag's clock), got '%s'", operands[1]);
	return 0;
}

/* Snapshot parameters given: ~/snapshot_with_parameters instead of
 * ~/snapshot (rosbag2's has no fields), with them. 0 or a usage exit. */
static int call_snap_arg(const struct call_ctx *c, const struct btdds_rb2_svc **s,
			 struct btdds_rb2_arg *a)
{
	if (strcmp((*s)->verb, "snapshot") != 0)
		return app_usage_error(c->cmd, "--before, --after, --topics, --exclude and --name "
				       "are for snapshot only");
	*s = &btdds_rb2_snapshot_params;
	a->before = c->snap.before_ns < 0 ? -1.0 : (double)c->snap.before_ns / 1e9;
	a->after = c->snap.after_ns < 0 ? -1.0 : (double)c->snap.after_ns / 1e9;
	a->topics = c->snap.topics;
	a->exclude = c->snap.exclude;
	a->name = c->snap.name;
	return 0;
}

/* The reply's text ("success: true", "paused: false", "done", ...) into
 * out, a message after `sep`; false when it says success: false. */
static bool call_reply_text(const struct btdds_rb2_svc *s, const struct btdds_rb2_reply *r,
			    const char *sep, char *out, size_t cap)
{
	char msg[4 * sizeof r->message];
	switch (s->resp) {
	case BTDDS_RB2_RESP_SUCCESS:
		snprintf(out, cap, "success: %s", r->flag ? "true" : "false");
		return r->flag;
	case BTDDS_RB2_RESP_PAUSED:
		snprintf(out, cap, "paused: %s", r->flag ? "true" : "false");
		return true;
	case BTDDS_RB2_RESP_RATE:
		snprintf(out, cap, "rate: %g", r->rate);
		return true;
	case BTDDS_RB2_RESP_BURST:
		snprintf(out, cap, "actually_burst: %" PRIu64, r->u64);
		return true;
	case BTDDS_RB2_RESP_SUCCESS_MSG:
		app_escape(r->message, msg, sizeof msg); /* the server's text */
		if (!r->flag)
			snprintf(out, cap, "success: false: %s", msg);
		else
			snprintf(out, cap, "success: true%smessage: %s", sep, msg);
		return r->flag;
	case BTDDS_RB2_RESP_EMPTY:
		break;
	}
	snprintf(out, cap, "done");
	return true;
}

/* One server's reply: printed, exit 0; one that says success: false is
 * the error line, exit 1. */
static int call_print(const struct btdds_rb2_svc *s, const char *service,
		      const struct btdds_rb2_reply *r)
{
	char text[4 * sizeof r->message + 64];
	if (!call_reply_text(s, r, "\n", text, sizeof text)) {
		app_error("%s: %s", service, text);
		return APP_EXIT_ERROR;
	}
	printf("%s\n", text);
	return APP_EXIT_OK;
}

/* More than one server got the request (nodes of the same name): each
 * acted on it, so each reply is printed, after the server it came from;
 * exit 0 only when every server replied and none says success: false. */
static int call_print_each(const struct btdds_rb2_svc *s, const char *service,
			   const struct btdds_rb2_replies *rs)
{
	app_warn("%s: %" PRIu32 " servers got the request (nodes of the same name), %zu "
		 "replied", service, rs->servers, rs->n);
	size_t failed = 0;
	for (size_t i = 0; i < rs->n; i++) {
		char text[4 * sizeof rs->v[i].message + 64];
		failed += !call_reply_text(s, &rs->v[i], ", ", text, sizeof text);
		printf("[%s] %s\n", rs->v[i].where[0] ? rs->v[i].where : "server not named",
		       text);
	}
	size_t silent = rs->n < rs->servers ? rs->servers - rs->n : 0;
	if (failed == 0 && silent == 0)
		return APP_EXIT_OK;
	char why[2][96] = {"", ""};
	if (failed)
		snprintf(why[0], sizeof why[0], "%zu of %zu replies say success: false", failed,
			 rs->n);
	if (silent)
		snprintf(why[1], sizeof why[1], "%zu of %" PRIu32 " servers did not reply within "
			 "the timeout", silent, rs->servers);
	app_error("%s: %s%s%s", service, why[0], failed && silent ? "; " : "", why[1]);
	return APP_EXIT_ERROR;
}

/* --list: the recorders and players on the domain. */
static int call_list(struct call_ctx *c, int operands)
{
	if (operands != 0 || c->node != NULL)
		return app_usage_error(c->cmd, "--list takes no verb and no --node");
	struct btdds_env env;
	int rc = app_ros_env_read(c->cmd, &env, &c->domain);
	if (rc == 0)
		rc = app_call_list(c->cmd, c->domain, &env,
				   c->timeout_ns ? c->timeout_ns : CALL_LIST_WAIT_NS);
	btdds_env_fini(&env);
	return rc;
}

static int call_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct call_ctx c = {.cmd = cmd, .domain = UINT32_MAX,
			     .snap = {.before_ns = -1, .after_ns = -1}};
	int first;
	int rc = app_opts_parse(cmd, argc, argv, call_opt, &c, &first);
	if (rc != 0)
		return rc < 0 ? APP_EXIT_OK : rc;
	if (c.list && c.snap_given)
		return app_usage_error(cmd, "--list takes no snapshot parameters");
	if (c.list)
		return call_list(&c, argc - first);
	if (c.timeout_ns == 0)
		c.timeout_ns = CALL_TIMEOUT_NS;
	if (first >= argc)
		return app_usage_error(cmd, "which service? (snapshot, split, pause, resume, "
				       "is-paused, or a player's verb)");
	const struct btdds_rb2_svc *s = btdds_rb2_find(argv[first]);
	if (s == NULL)
		return app_usage_error(cmd, "no service verb '%s'", argv[first]);
	struct btdds_rb2_arg a = {0};
	if ((rc = call_arg(cmd, s, argc - first, argv + first, &a)) != 0)
		return rc;
	if (c.snap_given && (rc = call_snap_arg(&c, &s, &a)) != 0)
		return rc;
	if (c.node == NULL)
		c.node = (s->on & BTDDS_RB2_ON_RECORDER) ? BTDDS_RB2_RECORDER : BTDDS_RB2_PLAYER;
	struct btdds_env env;
	if ((rc = app_ros_env_read(cmd, &env, &c.domain)) != 0) {
		btdds_env_fini(&env);
		return rc;
	}
	struct btdds_rb2_replies r;
	struct bt_error err = {0};
	char service[2 * BTDDS_RB2_NODE_MAX];
	snprintf(service, sizeof service, "/%s/%s", c.node, s->name);
	int64_t more = c.timeout_ns < CALL_MORE_NS ? c.timeout_ns : CALL_MORE_NS;
	bt_status st = btdds_rosbag2_call(c.domain, &env, c.node, s, &a, c.timeout_ns, more, &r,
					  &err);
	btdds_env_fini(&env);
	if (st == BT_ERR_NOTFOUND) {
		app_error("no service %s within the timeout", service);
		return APP_EXIT_ERROR;
	}
	if (st == BT_ERR_STATE) {
		app_error("%s: no reply within the timeout (refused, or busy)", service);
		return APP_EXIT_ERROR;
	}
	if (st != BT_OK) {
		app_error("%s", err.msg);
		return st == BT_ERR_DDS ? APP_EXIT_DDS : APP_EXIT_ERROR;
	}
	rc = r.n == 1 && r.servers <= 1 ? call_print(s, service, &r.v[0])
					: call_print_each(s, service, &r);
	btdds_rb2_replies_fini(&r);
	return rc;
}

const struct app_cmd app_cmd_call = {
	"call", "VERB [ARG] | --list",
	"Call a rosbag2 recorder's or player's service over DDS (snapshot, split, ...).",
	"\nRecorder verbs (node rosbag2_recorder, bagtop's or rosbag2's):\n"
	"  snapshot, split, pause, resume, is-paused\n"
	"snapshot with --before, --after, --topics, --exclude or --name calls\n"
	"bagtop's ~/snapshot_with_parameters (bagtop_interfaces/srv/\n"
	"SnapshotWithParameters) instead of ~/snapshot and prints its message too.\n"
	"Player verbs (node rosbag2_player): pause, resume, toggle-paused,\n"
	"  is-paused, get-rate, set-rate RATE, play-next, burst N, seek SECONDS,\n"
	"  play, stop\n"
	"Waits for the service and its reply (--timeout), prints the reply\n"
	"(\"success: true\", \"paused: false\", \"done\") and exits 0; exits 1 with\n"
	"the reason when there is no such service, no reply, or success: false.\n"
	"When nodes of the same name serve it (each acts on the call), a warning\n"
	"line, then each reply after the process that sent it (\"[host pid N]\"),\n"
	"waiting up to 3 s more for them all; exit 1 unless all replied and none\n"
	"says success: false.\n"
	"The service's node must run on rmw_cyclonedds (or be bagtop).\n"
	"--list prints one line per recorder or player found on the domain: its\n"
	"node name, its kind, the rosbag2 services it serves and, for Cyclone DDS\n"
	"nodes, [host pid N]; a warning line for each name several nodes share.\n",
	call_opts, sizeof call_opts / sizeof call_opts[0], call_run};
