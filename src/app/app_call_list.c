/* app_call_list — `bagtop call --list` (app_call_list.h). */
#include "app_call_list.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "btdds_graph_list.h"
#include "btdds_participant.h"

#define APP_CALL_NAME_COL 32

static const char *app_call_kind(const struct btdds_graph_entry *e)
{
	return e->recorder && e->player ? "recorder+player" : e->recorder ? "recorder" : "player";
}

/* Nodes of the same name (the list is sorted by name): a call reaches
 * each of them, which the user had better know before calling. */
static void app_call_same_names(const struct btdds_graph_entry *e, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = i + 1;
		while (k < n && !strcmp(e[k].fqn, e[i].fqn))
			k++;
		if (k - i > 1)
			app_warn("%zu nodes are named %s: a call of its services reaches each of "
				 "them (give each its own --node-name)", k - i, e[i].fqn);
		i = k;
	}
}

int app_call_list(const struct app_cmd *cmd, uint32_t domain, const struct btdds_env *env,
		  int64_t wait_ns)
{
	(void)cmd;
	dds_entity_t pp;
	struct bt_error err;
	if (btdds_participant_create(domain, env, &pp, &err) != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_DDS;
	}
	struct btdds_graph_entry *e = NULL;
	size_t n = 0;
	bt_status st = btdds_graph_list(pp, wait_ns, &e, &n, &err);
	(void)btdds_participant_delete(pp); /* what was found is printed all the same */
	if (st != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_ERROR;
	}
	for (size_t i = 0; i < n; i++) {
		printf("%-*s %-8s %s", APP_CALL_NAME_COL - 1, e[i].fqn, app_call_kind(&e[i]),
		       e[i].services[0] ? e[i].services : "-");
		printf(e[i].where[0] ? "  [%s]\n" : "\n", e[i].where);
	}
	app_call_same_names(e, n);
	free(e);
	if (n == 0) {
		char dom[32] = "the default domain";
		if (domain != UINT32_MAX)
			snprintf(dom, sizeof dom, "domain %" PRIu32, domain);
		app_error("no rosbag2 recorder or player on %s within %.1f s", dom,
			  (double)wait_ns / 1e9);
		return APP_EXIT_ERROR;
	}
	return APP_EXIT_OK;
}
