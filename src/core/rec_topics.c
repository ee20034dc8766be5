/* Topics live in a fixed array of pointers published through an atomic
 * count: appends come from one thread (discovery), readers never lock. */
#include "rec_topics.h"

#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"

struct rec_topics {
	atomic_size_t count;
	struct rec_topic *slots[REC_TOPICS_MAX];
};

static uint64_t topics_ld(const atomic_uint_fast64_t *a)
{
	return atomic_load_explicit(a, memory_order_relaxed);
}

/* No padding between the named counters: they are lost[] exactly. */
_Static_assert(offsetof(struct rec_topic_stats, ignored) - offsetof(struct rec_topic_stats, lost) ==
		       BAG_N_COUNTERS * sizeof(atomic_uint_fast64_t),
	       "rec_topic_stats: the named causes are lost[], in table order");

struct bag_losses rec_topic_losses(const struct rec_topic_stats *s)
{
	struct bag_losses l;
	for (int c = 0; c < BAG_N_COUNTERS; c++)
		l.n[c] = topics_ld(&s->lost[c]);
	return l;
}

uint64_t rec_topic_lost_transport(const struct rec_topic_stats *s)
{
	struct bag_losses l = rec_topic_losses(s);
	return bag_losses_transport(&l);
}

uint64_t rec_topic_lost_recorder(const struct rec_topic_stats *s)
{
	struct bag_losses l = rec_topic_losses(s);
	return bag_losses_recorder(&l);
}

uint64_t rec_topic_file_received(const struct rec_topic_stats *s)
{
	uint64_t base = topics_ld(&s->file_received_base), rx = topics_ld(&s->received);
	return rx > base ? rx - base : 0;
}

struct rec_topics *rec_topics_new(void)
{
	struct rec_topics *t = bt_xcalloc(1, sizeof *t);
	atomic_init(&t->count, 0);
	return t;
}

static void topic_free(struct rec_topic *tp)
{
	btdds_topic_names_fini(&tp->names);
	free(tp->type_hash);
	bag_topic_fini(&tp->bag);
	bag_msgdef_fini(&tp->def);
	free(tp);
}

void rec_topics_free(struct rec_topics *t)
{
	if (t == NULL)
		return;
	size_t n = atomic_load(&t->count);
	for (size_t i = 0; i < n; i++)
		topic_free(t->slots[i]);
	free(t);
}

size_t rec_topics_count(const struct rec_topics *t)
{
	return atomic_load_explicit(&((struct rec_topics *)t)->count, memory_order_acquire);
}

struct rec_topic *rec_topics_get(const struct rec_topics *t, size_t index)
{
	return t->slots[index];
}

struct rec_topic *rec_topics_find(const struct rec_topics *t, const char *dds_name,
				  const char *dds_type)
{
	size_t n = rec_topics_count(t);
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = t->slots[i];
		if (strcmp(tp->names.dds_name, dds_name) == 0 &&
		    strcmp(tp->names.dds_type, dds_type) == 0)
			return tp;
	}
	return NULL;
}

struct rec_topic *rec_topics_add(struct rec_topics *t, const char *dds_name,
				 const char *dds_type, bool keyed)
{
	struct rec_topic *tp = rec_topics_find(t, dds_name, dds_type);
	if (tp != NULL)
		return tp;
	size_t n = atomic_load_explicit(&t->count, memory_order_relaxed);
	if (n >= REC_TOPICS_MAX)
		return NULL;
	tp = bt_xcalloc(1, sizeof *tp);
	tp->index = (uint32_t)n;
	tp->is_ros = btdds_topic_names_init_dds(&tp->names, dds_name, dds_type);
	tp->keyed = keyed;
	atomic_init(&tp->described, false);
	atomic_init(&tp->subscribed, false);
	atomic_init(&tp->enabled, true);
	atomic_init(&tp->def_late, REC_DEF_LATE_NONE);
	atomic_init(&tp->want_subscribe, false);
	atomic_init(&tp->publishers, 0);
	atomic_init(&tp->reliable, false);
	atomic_init(&tp->transient_local, false);
	t->slots[n] = tp;
	atomic_store_explicit(&t->count, n + 1, memory_order_release);
	return tp;
}
