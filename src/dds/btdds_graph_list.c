/* btdds_graph_list — rosbag2 recorders and players on a domain
 * (btdds_graph_list.h). */
#include "btdds_graph_list.h"

#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "btdds_qos.h"
#include "btdds_raw.h"

#define GL_GRAPH_DEPTH 4096 /* ros_discovery_info samples kept (one instance) */
#define GL_RQ_PREFIX "rq/"
#define GL_RQ_SUFFIX "Request"
#define GL_SRV_TYPE "rosbag2_interfaces::srv::dds_::"
#define GL_BT_SRV_TYPE "bagtop_interfaces::srv::dds_::" /* ~/snapshot_with_parameters */

static const char *const gl_recorder_srv[] = {"snapshot", "split_bagfile", "record", NULL};
static const char *const gl_player_srv[] = {"play",	"play_next",  "burst", "seek", "set_rate",
					    "get_rate", "toggle_paused", NULL};

struct gl_list {
	struct btdds_graph_entry *e;
	size_t n, cap;
};

/* A writer of an events topic, to find its node by its gid. */
struct gl_writer {
	dds_guid_t guid;
	bool player; /* read_split; else write_split */
};

struct gl_state {
	struct gl_list list;
	struct gl_writer *w;
	size_t n_w, cap_w;
	dds_entity_t graph_topic, graph_reader, pub_reader, sub_reader;
	size_t bad_samples; /* ros_discovery_info samples that did not decode */
};

static bool gl_in(const char *const *set, const char *s)
{
	for (; *set != NULL; set++)
		if (!strcmp(*set, s))
			return true;
	return false;
}

static struct btdds_graph_entry *gl_entry(struct gl_list *l, const char *fqn,
					  const dds_guid_t *participant)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->e[i].fqn, fqn) &&
		    !memcmp(l->e[i].participant.v, participant->v, sizeof participant->v))
			return &l->e[i];
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 8;
		l->e = bt_xrealloc(l->e, l->cap * sizeof *l->e);
	}
	struct btdds_graph_entry *e = &l->e[l->n++];
	memset(e, 0, sizeof *e);
	snprintf(e->fqn, sizeof e->fqn, "%s", fqn);
	e->participant = *participant;
	return e;
}

static int gl_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds `svc` to the entry's sorted list once. */
static void gl_add_service(struct btdds_graph_entry *e, const char *svc)
{
	char *names[64];
	size_t k = 0;
	char buf[BTDDS_GRAPH_SERVICES_MAX];
	snprintf(buf, sizeof buf, "%s", e->services);
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t != NULL && k < 63; t = strtok_r(NULL, ",", &save)) {
		if (!strcmp(t, svc))
			return;
		names[k++] = t;
	}
	names[k++] = (char *)svc;
	qsort(names, k, sizeof names[0], gl_cmp_str);
	char out[BTDDS_GRAPH_SERVICES_MAX];
	size_t off = 0;
	for (size_t i = 0; i < k && off < sizeof out; i++) {
		int m = snprintf(out + off, sizeof out - off, "%s%s", i ? "," : "", names[i]);
		if (m < 0 || (size_t)m >= sizeof out - off)
			return; /* too many to say: the list stays as it was */
		off += (size_t)m;
	}
	memcpy(e->services, out, off + 1);
}

/* A subscription (btdds_endpoint_fn): a reader of
 * "rq/<node>/<svc>Request" of a rosbag2 service type names its node and
 * service. */
static bool gl_on_sub(void *arg, dds_instance_handle_t ih, const dds_builtintopic_endpoint_t *ep)
{
	(void)ih;
	struct gl_state *s = arg;
	if (ep == NULL)
		return true;
	const char *t = ep->topic_name;
	size_t n = strlen(t), ls = strlen(GL_RQ_SUFFIX);
	if (strncmp(t, GL_RQ_PREFIX, 3) != 0 || n < 3 + ls + 2 ||
	    strcmp(t + n - ls, GL_RQ_SUFFIX) != 0 || ep->type_name == NULL ||
	    (strncmp(ep->type_name, GL_SRV_TYPE, strlen(GL_SRV_TYPE)) != 0 &&
	     strncmp(ep->type_name, GL_BT_SRV_TYPE, strlen(GL_BT_SRV_TYPE)) != 0))
		return true;
	char path[BTDDS_NODE_FQN_MAX + 128];
	size_t lp = n - ls - 2; /* "/<node>/<svc>" */
	if (lp >= sizeof path)
		return true;
	memcpy(path, t + 2, lp);
	path[lp] = '\0';
	char *slash = strrchr(path, '/');
	if (slash == NULL || slash == path || slash[1] == '\0')
		return true;
	*slash = '\0';
	const char *svc = slash + 1;
	struct btdds_graph_entry *e = gl_entry(&s->list, path, &ep->participant_key);
	e->recorder |= gl_in(gl_recorder_srv, svc);
	e->player |= gl_in(gl_player_srv, svc);
	gl_add_service(e, svc);
	return true;
}

/* A publication (btdds_endpoint_fn): the writers of rosbag2's split
 * events, whose node ros_discovery_info names. */
static bool gl_on_pub(void *arg, dds_instance_handle_t ih, const dds_builtintopic_endpoint_t *ep)
{
	(void)ih;
	struct gl_state *s = arg;
	if (ep == NULL)
		return true;
	bool w = !strcmp(ep->topic_name, "rt/events/write_split");
	if (!w && strcmp(ep->topic_name, "rt/events/read_split") != 0)
		return true;
	if (s->n_w == s->cap_w) {
		s->cap_w = s->cap_w ? 2 * s->cap_w : 8;
		s->w = bt_xrealloc(s->w, s->cap_w * sizeof *s->w);
	}
	s->w[s->n_w++] = (struct gl_writer){ep->key, !w};
	return true;
}

/* A node of a ros_discovery_info sample: a recorder or player when it
 * owns one of the events writers seen. */
static void gl_on_node(void *arg, const char *fqn, const unsigned char *writers, size_t n_w,
		       size_t gid_size)
{
	struct gl_state *s = arg;
	for (size_t i = 0; i < n_w; i++)
		for (size_t k = 0; k < s->n_w; k++) {
			if (memcmp(writers + i * gid_size, s->w[k].guid.v, sizeof s->w[k].guid.v))
				continue;
			dds_guid_t pp = btdds_participant_of(&s->w[k].guid);
			struct btdds_graph_entry *e = gl_entry(&s->list, fqn, &pp);
			e->player |= s->w[k].player;
			e->recorder |= !s->w[k].player;
		}
}

static bool gl_on_graph(void *arg, const struct btdds_raw_sample *smp)
{
	/* Older samples of a participant list what its newer ones list or
	 * less; a node that has gone keeps its events writers no more. A
	 * sample that decodes in neither layout names no node: skipped. */
	struct gl_state *s = arg;
	if (btdds_graph_nodes(smp->data, smp->len, gl_on_node, s, NULL, NULL) != BT_OK)
		s->bad_samples++;
	return true;
}

static bt_status gl_readers(struct gl_state *s, dds_entity_t pp, struct bt_error *err)
{
	s->pub_reader = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
	s->sub_reader = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, NULL, NULL);
	if (s->pub_reader < 0 || s->sub_reader < 0)
		return bt_err_set(err, BT_ERR_DDS, "cannot follow DDS discovery");
	return btdds_qos_graph_endpoint(pp, GL_GRAPH_DEPTH, false, &s->graph_topic,
					&s->graph_reader, err);
}

static int gl_cmp_entry(const void *a, const void *b)
{
	const struct btdds_graph_entry *x = a, *y = b;
	int c = strcmp(x->fqn, y->fqn);
	return c ? c : strcmp(x->where, y->where);
}

static void gl_fini(struct gl_state *s)
{
	dds_entity_t e[] = {s->graph_reader, s->graph_topic, s->pub_reader, s->sub_reader};
	for (size_t i = 0; i < sizeof e / sizeof e[0]; i++)
		if (e[i] > 0)
			(void)dds_delete(e[i]);
	free(s->w);
}

bt_status btdds_graph_list(dds_entity_t pp, int64_t wait_ns, struct btdds_graph_entry **out,
			   size_t *n, struct bt_error *err)
{
	struct gl_state s = {0};
	bt_status st = gl_readers(&s, pp, err);
	if (st != BT_OK) {
		gl_fini(&s);
		return st;
	}
	dds_sleepfor(wait_ns);
	btdds_endpoints_take(s.sub_reader, 0, gl_on_sub, &s);
	btdds_endpoints_take(s.pub_reader, 0, gl_on_pub, &s);
	int32_t rc = btdds_raw_take(s.graph_reader, gl_on_graph, &s);
	gl_fini(&s);
	if (rc < 0) {
		free(s.list.e);
		return bt_err_set(err, BT_ERR_DDS, "%s: %s", BTDDS_GRAPH_TOPIC, dds_strretcode(rc));
	}
	/* Only recorders and players: other nodes serving a rosbag2 type
	 * (a client's own node never does) are not listed. */
	size_t k = 0;
	for (size_t i = 0; i < s.list.n; i++)
		if (s.list.e[i].recorder || s.list.e[i].player) {
			s.list.e[k] = s.list.e[i];
			btdds_participant_where(pp, &s.list.e[k].participant, s.list.e[k].where);
			k++;
		}
	if (k > 1)
		qsort(s.list.e, k, sizeof *s.list.e, gl_cmp_entry);
	*out = s.list.e;
	*n = k;
	return BT_OK;
}
