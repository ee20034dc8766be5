/* rec_xtypes — definitions of plain DDS topics from XTypes type objects
 * (see rec_xtypes.h for the design). */
#include "rec_xtypes.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"

struct xt_job {
	struct rec_topic *tp;
	struct DDS_XTypes_TypeIdentifier id; /* a hash: copied by value */
};

struct rec_xtypes {
	struct rec_def_source_options o;
	pthread_t thread;
	atomic_bool stop;
	pthread_mutex_t mu; /* guards queue, n_queue */
	pthread_cond_t cv;
	struct xt_job *queue;
	size_t n_queue, cap_queue;
};

/* Resolves and renders one type: two tries, then the empty row stays. */
static void xt_run(struct rec_xtypes *x, const struct xt_job *j)
{
	struct rec_topic *tp = j->tp;
	char *idl = NULL;
	struct bt_error e = {0};
	bt_status st = BT_ERR_NOTFOUND;
	for (int attempt = 0; attempt < 2 && !atomic_load(&x->stop); attempt++) {
		st = btdds_xtypes_fetch_idl(x->o.pp, &j->id, x->o.call_ns, &idl, &e);
		if (st != BT_ERR_NOTFOUND) /* only a lookup that timed out is worth a retry */
			break;
	}
	if (st == BT_OK) {
		rec_consumer_set_definition(x->o.consumer, tp->index, BTDDS_XT_ENCODING, idl,
					    REC_XTYPES_SOURCE);
		atomic_store(&tp->def_late, REC_DEF_LATE_FOUND);
		bt_log_info("%s [%s]: message definition from XTypes type information (%s)",
			    tp->name, tp->type, BTDDS_XT_ENCODING);
	} else {
		atomic_store(&tp->def_late, REC_DEF_LATE_MISSING);
		if (!atomic_load(&x->stop)) {
			char *why = bt_xasprintf("missing: " REC_XTYPES_SOURCE ": %s", e.msg);
			rec_consumer_set_definition(x->o.consumer, tp->index, NULL, NULL, why);
			free(why);
			bt_log_warn("%s [%s]: no message definition from the publisher's XTypes type "
				    "information: %s", tp->name, tp->type, e.msg);
		}
	}
	free(idl);
}

static void *xt_thread(void *arg)
{
	struct rec_xtypes *x = arg;
	pthread_setname_np(pthread_self(), "rec-xtypes");
	for (;;) {
		pthread_mutex_lock(&x->mu);
		while (x->n_queue == 0 && !atomic_load(&x->stop))
			pthread_cond_wait(&x->cv, &x->mu);
		if (atomic_load(&x->stop)) {
			pthread_mutex_unlock(&x->mu);
			return NULL;
		}
		struct xt_job j = x->queue[0];
		memmove(x->queue, x->queue + 1, --x->n_queue * sizeof *x->queue);
		pthread_mutex_unlock(&x->mu);
		xt_run(x, &j);
	}
}

bt_status rec_xtypes_start(const struct rec_def_source_options *o, struct rec_xtypes **out,
			   struct bt_error *err)
{
	struct rec_xtypes *x = bt_xcalloc(1, sizeof *x);
	x->o = *o;
	if (x->o.call_ns <= 0)
		x->o.call_ns = REC_XTYPES_CALL_NS;
	atomic_init(&x->stop, false);
	pthread_mutex_init(&x->mu, NULL);
	pthread_cond_init(&x->cv, NULL);
	int rc = pthread_create(&x->thread, NULL, xt_thread, x);
	if (rc != 0) {
		pthread_cond_destroy(&x->cv);
		pthread_mutex_destroy(&x->mu);
		free(x);
		return bt_err_set(err, BT_ERR_STATE, "cannot start the XTypes thread: %s",
				  strerror(rc));
	}
	*out = x;
	return BT_OK;
}

void rec_xtypes_ask(struct rec_xtypes *x, struct rec_topic *tp,
		    const struct DDS_XTypes_TypeIdentifier *id)
{
	atomic_store(&tp->def_late, REC_DEF_LATE_ASKING);
	pthread_mutex_lock(&x->mu);
	bt_xgrow((void **)&x->queue, &x->cap_queue, x->n_queue + 1, sizeof *x->queue);
	x->queue[x->n_queue++] = (struct xt_job){tp, *id};
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
}

void rec_xtypes_stop(struct rec_xtypes *x)
{
	if (x == NULL)
		return;
	pthread_mutex_lock(&x->mu);
	atomic_store(&x->stop, true);
	pthread_cond_signal(&x->cv);
	pthread_mutex_unlock(&x->mu);
	pthread_join(x->thread, NULL);
	pthread_cond_destroy(&x->cv);
	pthread_mutex_destroy(&x->mu);
	free(x->queue);
	free(x);
}
