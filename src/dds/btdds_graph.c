/* btdds_graph — which node owns a writer, from ros_discovery_info. */
#include "btdds_graph.h"

#include <stdio.h>
#include <string.h>

#include "btdds_cdr.h"

#define GRAPH_MIN_NODE (2 * 5 + 2 * 4) /* two strings, two counts */

bt_status btdds_graph_participant(const void *data, size_t n, unsigned char gid[BTDDS_GID_SIZE])
{
	struct btdds_cdr_rd r;
	if (btdds_cdr_rd_init(&r, data, n) != BT_OK)
		return BT_ERR_FORMAT;
	const unsigned char *g = btdds_cdr_bytes(&r, BTDDS_GID_SIZE);
	if (g == NULL)
		return BT_ERR_FORMAT;
	memcpy(gid, g, BTDDS_GID_SIZE);
	return BT_OK;
}

/* "/ns/name", or "/name" in the root namespace. */
static void graph_fqn(const char *ns, size_t ln, const char *name, char fqn[BTDDS_NODE_FQN_MAX])
{
	if (ln == 0 || strcmp(ns, "/") == 0)
		snprintf(fqn, BTDDS_NODE_FQN_MAX, "/%s", name);
	else
		snprintf(fqn, BTDDS_NODE_FQN_MAX, "%s%s/%s", ns[0] == '/' ? "" : "/", ns, name);
}

/* Skips a Gid[] and says whether `gid` is in it. */
static bool graph_gids_have(struct btdds_cdr_rd *r, const unsigned char *gid)
{
	uint32_t k = btdds_cdr_seq(r, BTDDS_GID_SIZE);
	bool found = false;
	for (uint32_t i = 0; i < k && btdds_cdr_ok(r); i++) {
		const unsigned char *g = btdds_cdr_bytes(r, BTDDS_GID_SIZE);
		if (gid != NULL && g != NULL && memcmp(g, gid, BTDDS_GID_SIZE) == 0)
			found = true;
	}
	return found;
}

bt_status btdds_graph_writer_node(const void *data, size_t n,
				  const unsigned char gid[BTDDS_GID_SIZE],
				  char fqn[BTDDS_NODE_FQN_MAX], struct bt_error *err)
{
	struct btdds_cdr_rd r;
	if (btdds_cdr_rd_init(&r, data, n) != BT_OK)
		return bt_err_set(err, BT_ERR_FORMAT, "ros_discovery_info: not plain CDR");
	(void)btdds_cdr_bytes(&r, BTDDS_GID_SIZE);
	uint32_t nodes = btdds_cdr_seq(&r, GRAPH_MIN_NODE);
	for (uint32_t i = 0; i < nodes && btdds_cdr_ok(&r); i++) {
		size_t ln, lname;
		const char *ns = btdds_cdr_string(&r, BTDDS_NODE_NAME_MAX, &ln);
		const char *name = btdds_cdr_string(&r, BTDDS_NODE_NAME_MAX, &lname);
		(void)graph_gids_have(&r, NULL); /* readers */
		if (graph_gids_have(&r, gid) && btdds_cdr_ok(&r)) {
			graph_fqn(ns, ln, name, fqn);
			return BT_OK;
		}
	}
	if (!btdds_cdr_ok(&r))
		return btdds_cdr_error(&r, "ros_discovery_info sample", err);
	return BT_ERR_NOTFOUND;
}

/* Decodes the sample with `gsz`-byte gids; calls fn (when not NULL) per
 * node. True when the whole sample decoded, up to its padding. */
static bool graph_nodes_as(const void *data, size_t n, size_t gsz, btdds_graph_node_fn fn,
			   void *arg, struct btdds_cdr_rd *r)
{
	if (btdds_cdr_rd_init(r, data, n) != BT_OK)
		return false;
	(void)btdds_cdr_bytes(r, gsz);
	uint32_t nodes = btdds_cdr_seq(r, GRAPH_MIN_NODE);
	for (uint32_t i = 0; i < nodes && btdds_cdr_ok(r); i++) {
		size_t ln, lname;
		const char *ns = btdds_cdr_string(r, BTDDS_NODE_NAME_MAX, &ln);
		const char *name = btdds_cdr_string(r, BTDDS_NODE_NAME_MAX, &lname);
		uint32_t k = btdds_cdr_seq(r, gsz); /* readers */
		(void)btdds_cdr_bytes(r, (size_t)k * gsz);
		uint32_t nw = btdds_cdr_seq(r, gsz);
		const unsigned char *w = btdds_cdr_bytes(r, (size_t)nw * gsz);
		if (fn != NULL && btdds_cdr_ok(r)) {
			char fqn[BTDDS_NODE_FQN_MAX];
			graph_fqn(ns, ln, name, fqn);
			fn(arg, fqn, w, nw, gsz);
		}
	}
	return btdds_cdr_ok(r) && r->len - r->off < 4;
}

bt_status btdds_graph_nodes(const void *data, size_t n, btdds_graph_node_fn fn, void *arg,
			    size_t *gid_size, struct bt_error *err)
{
	static const size_t sizes[] = {16, 24};
	struct btdds_cdr_rd r;
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		if (!graph_nodes_as(data, n, sizes[i], NULL, NULL, &r))
			continue;
		(void)graph_nodes_as(data, n, sizes[i], fn, arg, &r);
		if (gid_size != NULL)
			*gid_size = sizes[i];
		return BT_OK;
	}
	if (!btdds_cdr_ok(&r))
		return btdds_cdr_error(&r, "ros_discovery_info sample", err);
	return bt_err_set(err, BT_ERR_FORMAT, "ros_discovery_info sample: bytes left over in "
			  "either gid layout");
}
