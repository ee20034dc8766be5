/* btdds_config — see btdds_config.h for what each range gives and why. */
#include "btdds_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_mem.h"

/* Set-up code: out of memory aborts, as bt_x* do. */
static void btdds_put(struct bt_buf *b, const char *s)
{
	if (bt_buf_puts(b, s) != BT_OK)
		abort();
}

static void btdds_peers(struct bt_buf *b, const struct btdds_env *e, bool localhost)
{
	if (!localhost && e->n_peers == 0)
		return;
	btdds_put(b, "<Peers>");
	if (localhost)
		btdds_put(b, "<Peer address=\"127.0.0.1\"/>");
	for (size_t i = 0; i < e->n_peers; i++) {
		/* btdds_env_read let only host-name and address characters in */
		btdds_put(b, "<Peer address=\"");
		btdds_put(b, e->peers[i]);
		btdds_put(b, "\"/>");
	}
	btdds_put(b, "</Peers>");
}

static void btdds_general(struct bt_buf *b, const struct btdds_env *e)
{
	bool loopback = e->range == BTDDS_RANGE_LOCALHOST && e->n_peers == 0;
	btdds_put(b, "<General>");
	if (loopback)
		btdds_put(b, "<Interfaces><NetworkInterface address=\"127.0.0.1\"/></Interfaces>");
	btdds_put(b, "<AllowMulticast>false</AllowMulticast></General>");
}

char *btdds_config_fragment(const struct btdds_env *e, long pid)
{
	if (e->range == BTDDS_RANGE_SYSTEM_DEFAULT)
		return bt_xstrdup("");
	struct bt_buf b = BT_BUF_INIT;
	btdds_put(&b, "<CycloneDDS><Domain>");
	if (e->range != BTDDS_RANGE_SUBNET)
		btdds_general(&b, e);
	if (e->range == BTDDS_RANGE_OFF) {
		char tag[64];
		snprintf(tag, sizeof tag, "<Tag>ros_discovery_off_%ld</Tag>", pid);
		btdds_put(&b, "<Discovery><ParticipantIndex>none</ParticipantIndex>");
		btdds_put(&b, tag);
	} else {
		/* rmw's bound on participants per host (about one per ROS process) */
		btdds_put(&b, "<Discovery><ParticipantIndex>auto</ParticipantIndex>"
			      "<MaxAutoParticipantIndex>32</MaxAutoParticipantIndex>");
		btdds_peers(&b, e, e->range == BTDDS_RANGE_LOCALHOST);
	}
	btdds_put(&b, "</Discovery></Domain></CycloneDDS>");
	return bt_buf_steal(&b);
}

char *btdds_config_merged(const struct btdds_env *e, long pid)
{
	char *frag = btdds_config_fragment(e, pid);
	if (*frag == '\0') {
		free(frag);
		return NULL;
	}
	char *all = bt_xasprintf("%s,%s", frag, e->uri != NULL ? e->uri : "");
	free(frag);
	return all;
}
