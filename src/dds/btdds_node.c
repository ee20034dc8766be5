/* btdds_node — a ROS 2 node's entry in ros_discovery_info (btdds_node.h).
 * Facts from rmw_cyclonedds rmw_node.cpp (the ros_discovery_info writer's
 * QoS, get_entity_gid: the GUID zero-padded to RMW_GID_STORAGE_SIZE) and
 * rmw_dds_common msg/ (ParticipantEntitiesInfo, NodeEntitiesInfo, Gid). */
#include "btdds_node.h"

#include <ctype.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "btdds_cdr.h"
#include "btdds_graph.h"
#include "btdds_qos.h"
#include "btdds_raw.h"

#define NODE_GID_MAX BTDDS_GID_SIZE_HUMBLE

struct node_entity {
	dds_entity_t e;
	bool writer;
	unsigned char gid[NODE_GID_MAX];
};

struct btdds_node {
	dds_entity_t topic, writer;
	size_t gid_size;
	unsigned char pp_gid[NODE_GID_MAX];
	char *ns, *name, *fqn;
	/* Guards what follows; never held across a DDS call. */
	pthread_mutex_t lock;
	struct node_entity ents[BTDDS_NODE_ENTITIES_MAX];
	size_t n_ents;
	bool listed;     /* false once free started: the sample omits the node */
	bool dirty;      /* changed since the sample being written was built */
	bool publishing; /* some thread is writing samples (node_publish) */
};

bool btdds_node_name_valid(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n > 255 || isdigit((unsigned char)name[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)name[i]) && name[i] != '_')
			return false;
	return true;
}

/* "/" or "/a/b": tokens that are valid names. */
static bool node_ns_valid(const char *ns)
{
	if (ns[0] != '/')
		return false;
	if (ns[1] == '\0')
		return true;
	char *copy = bt_xstrdup(ns + 1), *save = NULL;
	bool ok = copy[strlen(copy) - 1] != '/' && strstr(copy, "//") == NULL;
	for (char *t = strtok_r(copy, "/", &save); ok && t != NULL; t = strtok_r(NULL, "/", &save))
		ok = btdds_node_name_valid(t);
	free(copy);
	return ok;
}

static bool node_gid(dds_entity_t e, unsigned char gid[NODE_GID_MAX])
{
	dds_guid_t g;
	if (dds_get_guid(e, &g) < 0)
		return false;
	memset(gid, 0, NODE_GID_MAX);
	memcpy(gid, g.v, sizeof g.v);
	return true;
}

/* The sample as it is now (lock held): ParticipantEntitiesInfo. */
static void node_encode(struct btdds_node *n, struct btdds_cdr_wr *w)
{
	btdds_cdr_wr_init(w);
	btdds_cdr_put_bytes(w, n->pp_gid, n->gid_size);
	btdds_cdr_put_u32(w, n->listed ? 1u : 0u);
	if (n->listed) {
		btdds_cdr_put_string(w, n->ns);
		btdds_cdr_put_string(w, n->name);
		for (int writers = 0; writers < 2; writers++) {
			uint32_t k = 0;
			for (size_t i = 0; i < n->n_ents; i++)
				k += n->ents[i].writer == (writers == 1);
			btdds_cdr_put_u32(w, k);
			for (size_t i = 0; i < n->n_ents; i++)
				if (n->ents[i].writer == (writers == 1))
					btdds_cdr_put_bytes(w, n->ents[i].gid, n->gid_size);
		}
	}
	btdds_cdr_wr_finish(w);
}

/* Marks the state changed (lock held, released here) and, unless another
 * thread is writing already, writes samples until none is stale. */
static void node_publish(struct btdds_node *n)
{
	n->dirty = true;
	if (n->publishing) {
		pthread_mutex_unlock(&n->lock);
		return;
	}
	n->publishing = true;
	while (n->dirty) {
		n->dirty = false;
		struct btdds_cdr_wr w;
		node_encode(n, &w);
		pthread_mutex_unlock(&n->lock);
		/* A failed write leaves the previous sample; the next change
		 * writes the whole state again. */
		(void)btdds_raw_write(n->writer, w.b.data, w.b.len);
		btdds_cdr_wr_fini(&w);
		pthread_mutex_lock(&n->lock);
	}
	n->publishing = false;
	pthread_mutex_unlock(&n->lock);
}

static bt_status node_entities(struct btdds_node *n, dds_entity_t pp, struct bt_error *err)
{
	if (!node_gid(pp, n->pp_gid))
		return bt_err_set(err, BT_ERR_DDS, "node %s: cannot read the participant's GUID",
				  n->fqn);
	return btdds_qos_graph_endpoint(pp, 1, true, &n->topic, &n->writer, err);
}

bt_status btdds_node_new(dds_entity_t pp, const char *ns, const char *name, size_t gid_size,
			 struct btdds_node **out, struct bt_error *err)
{
	if (!btdds_node_name_valid(name))
		return bt_err_set(err, BT_ERR_USAGE, "'%s' is not a ROS 2 node name (letters, digits, "
				  "'_', not starting with a digit)", name);
	if (!node_ns_valid(ns))
		return bt_err_set(err, BT_ERR_USAGE, "'%s' is not a ROS 2 namespace", ns);
	if (gid_size != BTDDS_GID_SIZE_HUMBLE && gid_size != BTDDS_GID_SIZE_IRON)
		return bt_err_set(err, BT_ERR_USAGE, "gid size %zu: 16 or 24", gid_size);
	struct btdds_node *n = bt_xcalloc(1, sizeof *n);
	n->gid_size = gid_size;
	n->ns = bt_xstrdup(ns);
	n->name = bt_xstrdup(name);
	n->fqn = bt_xasprintf("%s/%s", ns[1] ? ns : "", name);
	n->listed = true;
	pthread_mutex_init(&n->lock, NULL);
	bt_status st = node_entities(n, pp, err);
	if (st != BT_OK) {
		btdds_node_free(n);
		return st;
	}
	pthread_mutex_lock(&n->lock);
	node_publish(n);
	*out = n;
	return BT_OK;
}

static size_t node_find(const struct btdds_node *n, dds_entity_t e)
{
	size_t i = 0;
	while (i < n->n_ents && n->ents[i].e != e)
		i++;
	return i;
}

bt_status btdds_node_add_entity(struct btdds_node *n, dds_entity_t e, struct bt_error *err)
{
	struct node_entity ent = {.e = e};
	if (dds_get_publisher(e) > 0)
		ent.writer = true;
	else if (dds_get_subscriber(e) <= 0)
		return bt_err_set(err, BT_ERR_USAGE, "node %s: entity %d is no reader or writer",
				  n->fqn, (int)e);
	if (!node_gid(e, ent.gid))
		return bt_err_set(err, BT_ERR_DDS, "node %s: cannot read entity %d's GUID", n->fqn,
				  (int)e);
	pthread_mutex_lock(&n->lock);
	bt_status st = BT_OK;
	if (node_find(n, e) < n->n_ents)
		st = bt_err_set(err, BT_ERR_USAGE, "node %s: entity %d listed already", n->fqn,
				(int)e);
	else if (n->n_ents == BTDDS_NODE_ENTITIES_MAX)
		st = bt_err_set(err, BT_ERR_FULL, "node %s: %d entities listed already", n->fqn,
				BTDDS_NODE_ENTITIES_MAX);
	if (st != BT_OK) {
		pthread_mutex_unlock(&n->lock);
		return st;
	}
	n->ents[n->n_ents++] = ent;
	node_publish(n);
	return BT_OK;
}

void btdds_node_remove_entity(struct btdds_node *n, dds_entity_t e)
{
	pthread_mutex_lock(&n->lock);
	size_t i = node_find(n, e);
	if (i == n->n_ents) {
		pthread_mutex_unlock(&n->lock);
		return;
	}
	n->ents[i] = n->ents[--n->n_ents];
	node_publish(n);
}

const char *btdds_node_fqn(const struct btdds_node *n)
{
	return n->fqn;
}

void btdds_node_free(struct btdds_node *n)
{
	if (n == NULL)
		return;
	if (n->writer > 0) {
		pthread_mutex_lock(&n->lock);
		n->listed = false;
		node_publish(n);
		(void)dds_delete(n->writer); /* nothing left to report to */
	}
	if (n->topic > 0)
		(void)dds_delete(n->topic);
	pthread_mutex_destroy(&n->lock);
	free(n->ns);
	free(n->name);
	free(n->fqn);
	free(n);
}
