/* rec_def_source — what the late definition sources (rec_typedesc,
 * rec_xtypes) share: each is a thread that asks DDS for a definition found
 * nowhere else and hands it to the consumer (rec_consumer_set_definition). */
#ifndef REC_DEF_SOURCE_H
#define REC_DEF_SOURCE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"

#include "rec_consumer.h"
#include "rec_topics.h"

struct rec_def_source_options {
	dds_entity_t pp;
	struct rec_consumer *consumer; /* gets the definitions; outlives the thread */
	int64_t call_ns;               /* per call, one retry; 0: the source's default */
};

/* The thread of a source and the lock of its queue of requests. */
struct rec_def_thread {
	struct rec_def_source_options o; /* call_ns: the source's default when 0 */
	pthread_t thread;
	bool started;
	atomic_bool stop;
	pthread_mutex_t mu; /* guards the source's queue */
	pthread_cond_t cv;  /* on CLOCK_MONOTONIC (bt_sync_cond_init) */
};

/* Initialises t with a copy of *o (call_ns <= 0: default_call_ns); the
 * thread is not started yet. Set-up: aborts on failure. */
void rec_def_thread_init(struct rec_def_thread *t, const struct rec_def_source_options *o,
			 int64_t default_call_ns);
/* Starts main(arg) as t's thread; BT_ERR_STATE ("cannot start the NAME
 * thread") when it cannot start (t->started false). */
BT_MUST_CHECK bt_status rec_def_thread_start(struct rec_def_thread *t, void *(*main)(void *),
					     void *arg, const char *name, struct bt_error *err);
/* Marks tp's definition as asked for (REC_DEF_LATE_ASKING), appends a
 * copy of *job (`size` bytes) to the source's queue (*queue of *n, room
 * for *cap; guarded by t->mu) and wakes the thread. */
void rec_def_thread_ask(struct rec_def_thread *t, struct rec_topic *tp, void **queue, size_t *n,
			size_t *cap, const void *job, size_t size);
/* Sets stop, wakes the thread and joins it (if it started), then destroys
 * the lock and the condition. Afterwards only the source's own state is
 * left to free. */
void rec_def_thread_fini(struct rec_def_thread *t);

#endif
