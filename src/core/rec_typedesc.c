/* rec_typedesc — definitions from the publishing node's
 * ~/get_type_description (see rec_typedesc.h for the design). */
#include "rec_typedesc.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "bt_time.h"
#include "btdds_graph.h"
#include "btdds_qos.h"
#include "btdds_raw.h"
#include "btdds_service.h"
#include "btdds_typedesc.h"
#include "defs.h"

#define TD_TICK_NS INT64_C(100000000) /* the node graph read this often */
#define TD_GRAPH_DEPTH 256            /* ros_discovery_info samples between ticks */
#define TD_PARTICIPANTS_MAX 4096      /* ros_discovery_info senders remembered */
#define TD_SAMPLE_MAX ((size_t)1 << 20)

struct td_job {
	struct rec_topic *tp;
	char *type, *hash;
	dds_guid_t *writers;
	size_t n_writers;
	int64_t asked; /* monotonic ns */
};

/* The latest ros_discovery_info sample of one participant. */
struct td_part {
	unsigned char gid[BTDDS_GID_SIZE];
	void *data;
	size_t len;
};

struct rec_typedesc {
	struct rec_def_thread t; /* t.mu guards queue and n_queue */
	struct td_job *queue;
	size_t n_queue, cap_queue;
	/* The thread's own. */
	struct td_job *jobs;
	size_t n_jobs, cap_jobs;
	struct td_part *parts;
	size_t n_parts, cap_parts;
	dds_entity_t graph_topic, graph_reader;
};

static void td_job_fini(struct td_job *j)
{
	free(j->type);
	free(j->hash);
	free(j->writers);
}

/* ---- the node graph ---- */

static bool td_on_graph(void *arg, const struct btdds_raw_sample *s)
{
	struct rec_typedesc *td = arg;
	unsigned char gid[BTDDS_GID_SIZE];
	if (s->len > TD_SAMPLE_MAX || btdds_graph_participant(s->data, s->len, gid) != BT_OK)
		return true;
	size_t i = 0;
	while (i < td->n_parts && memcmp(td->parts[i].gid, gid, sizeof gid) != 0)
		i++;
	if (i == td->n_parts) {
		if (i >= TD_PARTICIPANTS_MAX)
			return true;
		bt_xgrow((void **)&td->parts, &td->cap_parts, i + 1, sizeof *td->parts);
		memset(&td->parts[i], 0, sizeof *td->parts);
		memcpy(td->parts[i].gid, gid, sizeof gid);
		td->n_parts++;
	}
	free(td->parts[i].data);
	td->parts[i].data = bt_xmalloc(s->len ? s->len : 1);
	memcpy(td->parts[i].data, s->data, s->len);
	td->parts[i].len = s->len;
	return true;
}

/* The node that announces one of the job's writers, in `fqn`. */
static bool td_find_node(const struct rec_typedesc *td, const struct td_job *j,
			 char fqn[BTDDS_NODE_FQN_MAX])
{
	for (size_t w = 0; w < j->n_writers; w++)
		for (size_t i = 0; i < td->n_parts; i++) {
			struct bt_error e;
			if (btdds_graph_writer_node(td->parts[i].data, td->parts[i].len,
						    j->writers[w].v, fqn, &e) == BT_OK)
				return true;
		}
	return false;
}

/* ---- the answer ---- */

/* The definition from the reply's type sources, else its field lists. */
static bt_status td_build(const struct td_job *j, const struct btdds_td_reply *t,
			  struct defs_result *res, const char **how, struct bt_error *err)
{
	size_t n = t->n_sources > t->n_types ? t->n_sources : t->n_types;
	struct defs_file *files = bt_xcalloc(n ? n : 1, sizeof *files);
	size_t k = 0;
	for (size_t i = 0; i < t->n_sources; i++) {
		const struct btdds_td_source *s = &t->sources[i];
		bool msg = strcmp(s->encoding, "msg") == 0, idl = strcmp(s->encoding, "idl") == 0;
		if (msg || idl)
			files[k++] = (struct defs_file){s->type_name, idl, s->raw_file_contents};
	}
	bt_status st = BT_ERR_NOTFOUND;
	*how = "type sources";
	if (k > 0)
		st = defs_build_from_files(j->type, files, k, res, err);
	struct bt_buf *texts = bt_xcalloc(t->n_types ? t->n_types : 1, sizeof *texts);
	if (st != BT_OK) {
		*how = "field lists";
		k = 0;
		st = BT_OK;
		for (size_t i = 0; i < t->n_types && st == BT_OK; i++) {
			st = btdds_td_msg_text(&t->types[i], &texts[i], err);
			files[k++] = (struct defs_file){t->types[i].type_name, false,
							texts[i].data ? texts[i].data : ""};
		}
		if (st == BT_OK)
			st = defs_build_from_files(j->type, files, k, res, err);
	}
	for (size_t i = 0; i < t->n_types; i++)
		bt_buf_fini(&texts[i]);
	free(texts);
	free(files);
	return st;
}

static bt_status td_answer(const struct td_job *j, const void *reply, size_t len,
			   struct defs_result *res, const char **how, struct bt_error *err)
{
	struct btdds_cdr_rd r;
	uint64_t guid;
	int64_t seq;
	if (btdds_cdr_rd_init(&r, reply, len) != BT_OK || !btdds_svc_get_header(&r, &guid, &seq))
		return bt_err_set(err, BT_ERR_FORMAT, "a reply that is not plain CDR");
	struct btdds_td_reply t;
	bt_status st = btdds_td_decode(&r, &t, err);
	if (st != BT_OK)
		return st;
	if (!t.successful)
		st = bt_err_set(err, BT_ERR_NOTFOUND, "the node answered: %s",
				t.failure_reason[0] ? t.failure_reason : "unsuccessful");
	else
		st = td_build(j, &t, res, how, err);
	btdds_td_reply_fini(&t);
	return st;
}

/* Calls <node>/get_type_description, once more when the first call gets
 * no answer. */
static bt_status td_call(struct rec_typedesc *td, const struct td_job *j, const char *node,
			 struct defs_result *res, const char **how, struct bt_error *err)
{
	char *service = bt_xasprintf("%s/get_type_description", node);
	struct btdds_svc_client *c = NULL;
	bt_status st = btdds_svc_client_new(td->t.o.pp, service, BTDDS_TD_SERVICE_TYPE, &c, err);
	free(service);
	void *reply = NULL;
	size_t len = 0;
	for (int attempt = 0; attempt < 2 && st == BT_OK; attempt++) {
		struct btdds_cdr_wr w;
		btdds_svc_request_begin(c, &w);
		btdds_td_put_request(&w, j->type, j->hash, true);
		st = btdds_svc_client_call(c, &w, td->t.o.call_ns, &td->t.stop, &reply, &len, err);
		btdds_cdr_wr_fini(&w);
		if (st == BT_OK || atomic_load(&td->t.stop) || attempt == 1)
			break;
		st = BT_OK;
	}
	btdds_svc_client_free(c);
	if (st == BT_OK)
		st = td_answer(j, reply, len, res, how, err);
	free(reply);
	return st;
}

static void td_done(struct rec_typedesc *td, struct td_job *j, const char *node, bt_status st,
		    const struct defs_result *res, const char *how, const struct bt_error *e)
{
	struct rec_topic *tp = j->tp;
	char *source = st == BT_OK ? bt_xasprintf("get_type_description (node %s)", node)
		       : node[0] ? bt_xasprintf("missing: get_type_description of node %s: %s", node,
						e->msg)
				 : bt_xasprintf("missing: %s", e->msg);
	if (!atomic_load(&td->t.stop) || st == BT_OK)
		rec_consumer_set_definition(td->t.o.consumer, tp->index,
					    st == BT_OK ? res->encoding : NULL,
					    st == BT_OK ? res->text : NULL, source);
	free(source);
	if (st == BT_OK) {
		bt_log_info("%s: message definition of %s from node %s's get_type_description (%s)",
			    tp->names.name, tp->names.type, node, how);
	} else if (!atomic_load(&td->t.stop)) {
		bt_log_warn("%s: no message definition for %s: %s%s%s%s", tp->names.name,
			    tp->names.type, node[0] ? "node " : "", node, node[0] ? ": " : "",
			    e->msg);
	}
	atomic_store_explicit(&tp->def_late, st == BT_OK ? REC_DEF_LATE_FOUND : REC_DEF_LATE_MISSING,
			      memory_order_release);
}

/* One job: asked, answered or given up; false while its node is unknown. */
static bool td_work(struct rec_typedesc *td, struct td_job *j)
{
	char node[BTDDS_NODE_FQN_MAX];
	struct bt_error e = {0};
	if (!td_find_node(td, j, node)) {
		if (bt_time_monotonic_ns() - j->asked < REC_TYPEDESC_WAIT_NS)
			return false;
		bt_err_set(&e, BT_ERR_NOTFOUND, "no ROS 2 node announces its publisher "
			   "(ros_discovery_info)");
		td_done(td, j, "", BT_ERR_NOTFOUND, NULL, NULL, &e);
		return true;
	}
	struct defs_result res = {0};
	const char *how = "";
	bt_status st = td_call(td, j, node, &res, &how, &e);
	td_done(td, j, node, st, &res, how, &e);
	if (st == BT_OK)
		defs_result_fini(&res);
	return true;
}

/* ---- the thread ---- */

static void td_take_queue(struct rec_typedesc *td)
{
	pthread_mutex_lock(&td->t.mu);
	if (td->n_queue == 0 && !atomic_load(&td->t.stop)) {
		struct timespec ts = bt_sync_deadline(TD_TICK_NS);
		(void)pthread_cond_timedwait(&td->t.cv, &td->t.mu, &ts);
	}
	for (size_t i = 0; i < td->n_queue; i++) {
		bt_xgrow((void **)&td->jobs, &td->cap_jobs, td->n_jobs + 1, sizeof *td->jobs);
		td->jobs[td->n_jobs++] = td->queue[i];
	}
	td->n_queue = 0;
	pthread_mutex_unlock(&td->t.mu);
}

static void *td_main(void *arg)
{
	struct rec_typedesc *td = arg;
	pthread_setname_np(pthread_self(), "rec-typedesc");
	while (!atomic_load(&td->t.stop)) {
		td_take_queue(td);
		(void)btdds_raw_take(td->graph_reader, td_on_graph, td);
		size_t k = 0;
		for (size_t i = 0; i < td->n_jobs; i++) {
			if (!atomic_load(&td->t.stop) && td_work(td, &td->jobs[i]))
				td_job_fini(&td->jobs[i]);
			else
				td->jobs[k++] = td->jobs[i];
		}
		td->n_jobs = k;
	}
	return NULL;
}

bt_status rec_typedesc_start(const struct rec_def_source_options *o, struct rec_typedesc **out,
			     struct bt_error *err)
{
	struct rec_typedesc *td = bt_xcalloc(1, sizeof *td);
	rec_def_thread_init(&td->t, o, REC_TYPEDESC_CALL_NS);
	bt_status st = btdds_qos_graph_endpoint(td->t.o.pp, TD_GRAPH_DEPTH, false, &td->graph_topic,
						&td->graph_reader, err);
	if (st == BT_OK)
		st = rec_def_thread_start(&td->t, td_main, td, "get_type_description", err);
	if (st != BT_OK) {
		rec_typedesc_stop(td);
		return st;
	}
	*out = td;
	return BT_OK;
}

void rec_typedesc_ask(struct rec_typedesc *td, struct rec_topic *tp, const dds_guid_t *writers,
		      size_t n)
{
	struct td_job j = {.tp = tp, .type = bt_xstrdup(tp->names.type),
			   .hash = bt_xstrdup(tp->type_hash),
			   .writers = bt_xcalloc(n ? n : 1, sizeof *writers), .n_writers = n,
			   .asked = bt_time_monotonic_ns()};
	if (n)
		memcpy(j.writers, writers, n * sizeof *writers);
	rec_def_thread_ask(&td->t, tp, (void **)&td->queue, &td->n_queue, &td->cap_queue, &j,
			   sizeof j);
}

void rec_typedesc_stop(struct rec_typedesc *td)
{
	if (td == NULL)
		return;
	rec_def_thread_fini(&td->t);
	if (td->graph_reader > 0)
		(void)dds_delete(td->graph_reader);
	if (td->graph_topic > 0)
		(void)dds_delete(td->graph_topic);
	for (size_t i = 0; i < td->n_queue; i++)
		td_job_fini(&td->queue[i]);
	for (size_t i = 0; i < td->n_jobs; i++)
		td_job_fini(&td->jobs[i]);
	for (size_t i = 0; i < td->n_parts; i++)
		free(td->parts[i].data);
	free(td->queue);
	free(td->jobs);
	free(td->parts);
	free(td);
}
