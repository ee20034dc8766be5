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

static void btdds_general(struct bt_buf *b, const struct btdds_env *e, bool uri_interfaces)
{
	bool loopback = e->range == BTDDS_RANGE_LOCALHOST && e->n_peers == 0 && !uri_interfaces;
	btdds_put(b, "<General>");
	if (loopback)
		btdds_put(b, "<Interfaces><NetworkInterface address=\"127.0.0.1\"/></Interfaces>");
	btdds_put(b, "<AllowMulticast>false</AllowMulticast></General>");
}

#define BTDDS_URI_FILE_MAX (1024 * 1024)

static bool btdds_file_mentions(const char *path, size_t n, const char *word)
{
	char *p = bt_xstrndup(path, n);
	FILE *f = fopen(p, "r");
	free(p);
	if (f == NULL)
		return false;
	char *buf = bt_xmalloc(BTDDS_URI_FILE_MAX + 1);
	size_t got = fread(buf, 1, BTDDS_URI_FILE_MAX, f);
	buf[got] = '\0';
	bool hit = ferror(f) == 0 && strstr(buf, word) != NULL;
	(void)fclose(f); /* read only: nothing to lose */
	free(buf);
	return hit;
}

bool btdds_uri_selects_interfaces(const char *uri)
{
	static const char word[] = "NetworkInterface";
	if (uri == NULL)
		return false;
	if (strstr(uri, word) != NULL) /* in XML text given inline */
		return true;
	/* XML text may hold commas of its own: a part with '<' or '>' is XML,
	 * any other names a file */
	for (const char *p = uri; *p != '\0';) {
		p += strspn(p, " \t\n");
		size_t n = strcspn(p, ",");
		size_t skip = strncmp(p, "file://", 7) == 0 ? 7 : 0;
		if (n > skip && memchr(p, '<', n) == NULL && memchr(p, '>', n) == NULL &&
		    btdds_file_mentions(p + skip, n - skip, word))
			return true;
		p += n;
		p += *p == ',';
	}
	return false;
}

char *btdds_config_fragment(const struct btdds_env *e, long pid, bool uri_interfaces)
{
	if (e->range == BTDDS_RANGE_SYSTEM_DEFAULT)
		return bt_xstrdup("");
	struct bt_buf b = BT_BUF_INIT;
	btdds_put(&b, "<CycloneDDS><Domain>");
	if (e->range != BTDDS_RANGE_SUBNET)
		btdds_general(&b, e, uri_interfaces);
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
	char *frag = btdds_config_fragment(e, pid, btdds_uri_selects_interfaces(e->uri));
	if (*frag == '\0') {
		free(frag);
		return NULL;
	}
	char *all = bt_xasprintf("%s,%s", frag, e->uri != NULL ? e->uri : "");
	free(frag);
	return all;
}
