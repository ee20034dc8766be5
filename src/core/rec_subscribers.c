/* rec_subscribers — the other participants' subscriptions, for rosbag2's
 * --ignore-leaf-topics and --include-unpublished-topics: the discovery
 * thread takes DCPSSubscription only when one of them is asked
 * (rec_discovery.c) and hands each sample here. Discovery thread only.
 *
 * A leaf topic is one nobody but the recorder subscribes to: held back
 * when it first appears, recorded once someone subscribes, and then kept
 * (rosbag2 checks only topics it does not record yet). A subscriber of
 * another recorder counts, as it does for rosbag2. */
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "rec__recorder.h"

bool rec_subscribers_has(const struct rec_recorder *r, const char *dds_name)
{
	for (size_t i = 0; i < r->n_fsubs; i++)
		if (!strcmp(r->fsubs[i].topic, dds_name))
			return true;
	return false;
}

static bool subs_note(struct rec_recorder *r, dds_instance_handle_t ih, const char *topic)
{
	for (size_t i = 0; i < r->n_fsubs; i++)
		if (r->fsubs[i].ih == ih)
			return false; /* a QoS change of a known reader */
	bt_xgrow((void **)&r->fsubs, &r->cap_fsubs, r->n_fsubs + 1, sizeof *r->fsubs);
	r->fsubs[r->n_fsubs++] = (struct rec_foreign_sub){ih, bt_xstrdup(topic)};
	return true;
}

void rec_subscribers_alive(struct rec_recorder *r, dds_instance_handle_t ih,
			   const dds_builtintopic_endpoint_t *ep)
{
	if (!rec_discovery_foreign(r, ep) || !subs_note(r, ih, ep->topic_name))
		return;
	struct rec_topic *tp = rec_topics_find(r->topics, ep->topic_name, ep->type_name);
	struct rec_sub *s = tp != NULL && tp->index < r->cap_subs ? r->subs[tp->index] : NULL;
	if (s == NULL && r->opt.include_unpublished)
		s = rec_discovery_sub_for(r, ep); /* selected or not, as for a publication */
	if (s == NULL)
		return;
	if (s->leaf_held) {
		atomic_store(&s->tp->enabled, true);
		bt_log_info("%s: it has a subscriber now: recorded from here on "
			    "(--ignore-leaf-topics)", s->tp->names.name);
		rec_sub_select(s);
	}
	if (r->opt.include_unpublished)
		rec_sub_subscribe_unpublished(s);
}

void rec_subscribers_gone(struct rec_recorder *r, dds_instance_handle_t ih)
{
	for (size_t i = 0; i < r->n_fsubs; i++) {
		if (r->fsubs[i].ih != ih)
			continue;
		free(r->fsubs[i].topic);
		r->fsubs[i] = r->fsubs[--r->n_fsubs];
		return;
	}
}

void rec_subscribers_fini(struct rec_recorder *r)
{
	for (size_t i = 0; i < r->n_fsubs; i++)
		free(r->fsubs[i].topic);
	free(r->fsubs);
	r->fsubs = NULL;
	r->n_fsubs = r->cap_fsubs = 0;
}
