#include "app_pidcmd.h"

#include <signal.h>
#include <time.h>

#include "bt_parse.h"
#include "bt_time.h"

#define PIDCMD_POLL_NS 20000000L

struct pidcmd_ctx {
	const struct app_cmd *cmd;
	struct app_pidcmd *a;
};

static int pidcmd_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct pidcmd_ctx *c = ctx;
	uint64_t u;
	if (o->id != APP_PIDCMD_O_PID && o->id != APP_PIDCMD_O_TIMEOUT)
		return c->a->more(c->a->more_ctx, o, arg);
	if (o->id == APP_PIDCMD_O_PID) {
		if (bt_parse_u64(arg, 1, 4194304, &u) != BT_OK)
			return app_usage_error(c->cmd, "--pid wants a process id, got '%s'", arg);
		c->a->pid = (long)u;
		return 0;
	}
	if (bt_parse_seconds(arg, &c->a->timeout_ns) != BT_OK || c->a->timeout_ns <= 0)
		return app_usage_error(c->cmd, "--timeout wants seconds above 0, got '%s'", arg);
	return 0;
}

int app_pidcmd_parse(const struct app_cmd *cmd, int argc, char **argv, struct app_pidcmd *a)
{
	struct pidcmd_ctx c = {cmd, a};
	int first;
	int rc = app_opts_parse(cmd, argc, argv, pidcmd_opt, &c, &first);
	if (rc != 0)
		return rc;
	if (first < argc)
		return app_usage_error(cmd, "unexpected argument '%s'", argv[first]);
	if (a->pid == 0)
		return app_usage_error(cmd, "--pid PID is required");
	return 0;
}

bt_status app_pidcmd_await(const struct app_pidcmd *a, enum app_pidcmd_counter counter,
			   uint64_t seq0, struct app_snapstate *st)
{
	int64_t end = bt_time_monotonic_ns() + a->timeout_ns;
	struct bt_error err = {0};
	for (;;) {
		struct timespec ts = {0, PIDCMD_POLL_NS};
		nanosleep(&ts, NULL);
		bt_status rc = app_snapfile_read((pid_t)a->pid, st, &err);
		if (rc == BT_OK &&
		    (counter == APP_PIDCMD_SNAPSHOTS ? st->seq : st->pause_seq) > seq0)
			return BT_OK;
		if (rc == BT_ERR_NOTFOUND || kill((pid_t)a->pid, 0) != 0)
			return BT_ERR_NOTFOUND;
		if (bt_time_monotonic_ns() > end)
			return BT_ERR_STATE;
	}
}

bt_status app_pidcmd_await_answer(const struct app_pidcmd *a, uint64_t request,
				  struct app_snapstate *st)
{
	int64_t end = bt_time_monotonic_ns() + a->timeout_ns;
	for (;;) {
		struct timespec ts = {0, PIDCMD_POLL_NS};
		nanosleep(&ts, NULL);
		if (app_snapfile_answer_take((pid_t)a->pid, request, st) == BT_OK)
			return BT_OK;
		if (kill((pid_t)a->pid, 0) != 0)
			return app_snapfile_answer_take((pid_t)a->pid, request, st) == BT_OK
				       ? BT_OK
				       : BT_ERR_NOTFOUND;
		if (bt_time_monotonic_ns() > end)
			return BT_ERR_STATE;
	}
}
