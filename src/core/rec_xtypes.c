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
	struct rec_def_thread t; /* t.mu guards queue, n_queue */
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
	for (int attempt = 0; attempt < 2 && !atomic_load(&x->t.stop); attempt++) {
		st = btdds_xtypes_fetch_idl(x->t.o.pp, &j->id, x->t.o.call_ns, &idl, &e);
		if (st != BT_ERR_NOTFOUND) /* only a lookup that timed out is worth a retry */
			break;
	}
	if (st == BT_OK) {
		rec_consumer_set_definition(x->t.o.consumer, tp->index, BTDDS_XT_ENCODING, idl,
					    REC_XTYPES_SOURCE);
		/* Said before the live view shows it (def_late). */
		bt_log_info("%s [%s]: message definition from XTypes type information (%s)",
			    tp->names.name, tp->names.type, BTDDS_XT_ENCODING);
		atomic_store(&tp->def_late, REC_DEF_LATE_FOUND);
	} else {
		atomic_store(&tp->def_late, REC_DEF_LATE_MISSING);
		if (!atomic_load(&x->t.stop)) {
			char *why = bt_xasprintf("missing: " REC_XTYPES_SOURCE ": %s", e.msg);
			rec_consumer_set_definition(x->t.o.consumer, tp->index, NULL, NULL, why);
			free(why);
			bt_log_warn("%s [%s]: no message definition from the publisher's XTypes type "
				    "information: %s", tp->names.name, tp->names.type, e.msg);
		}
	}
	free(idl);
}

static void *xt_thread(void *arg)
{
	struct rec_xtypes *x = arg;
	pthread_setname_np(pthread_self(), "rec-xtypes");
	for (;;) {
		pthread_mutex_lock(&x->t.mu);
		while (x->n_queue == 0 && !atomic_load(&x->t.stop))
			pthread_cond_wait(&x->t.cv, &x->t.mu);
		if (atomic_load(&x->t.stop)) {
			pthread_mutex_unlock(&x->t.mu);
			return NULL;
		}
		struct xt_job j = x->queue[0];
		memmove(x->queue, x->queue + 1, --x->n_queue * sizeof *x->queue);
		pthread_mutex_unlock(&x->t.mu);
		xt_run(x, &j);
	}
}

bt_status rec_xtypes_start(const struct rec_def_source_options *o, struct rec_xtypes **out,
			   struct bt_error *err)
{
	struct rec_xtypes *x = bt_xcalloc(1, sizeof *x);
	rec_def_thread_init(&x->t, o, REC_XTYPES_CALL_NS);
	bt_status st = rec_def_thread_start(&x->t, xt_thread, x, "XTypes", err);
	if (st != BT_OK) {
		rec_xtypes_stop(x);
		return st;
	}
	*out = x;
	return BT_OK;
}

void rec_xtypes_ask(struct rec_xtypes *x, struct rec_topic *tp,
		    const struct DDS_XTypes_TypeIdentifier *id)
{
	struct xt_job j = {tp, *id};
	rec_def_thread_ask(&x->t, tp, (void **)&x->queue, &x->n_queue, &x->cap_queue, &j, sizeof j);
}

void rec_xtypes_stop(struct rec_xtypes *x)
{
	if (x == NULL)
		return;
	rec_def_thread_fini(&x->t);
	free(x->queue);
	free(x);
}
