/* btdds_svc_twin — another server of the same services (btdds_svc_twin.h). */
#include "btdds_svc_twin.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "btdds_participant.h"
#include "btdds_service.h"

#define TWIN_ROUNDS 32 /* a poll's work: 32 batches, at most 2048 publications */

struct btdds_svc_twin {
	dds_entity_t pp, waitset, reader, cond;
	dds_guid_t own;
	char **names, **topics; /* the services and their reply topics */
	size_t n;
	char *hint;
	bool said;
};

bt_status btdds_svc_twin_new(dds_entity_t pp, dds_entity_t waitset,
			     const struct btdds_svc_def *services, size_t n, const char *hint,
			     struct btdds_svc_twin **out, struct bt_error *err)
{
	struct btdds_svc_twin *t = bt_xcalloc(1, sizeof *t);
	t->pp = pp;
	t->waitset = waitset;
	t->names = bt_xcalloc(n ? n : 1, sizeof *t->names);
	t->topics = bt_xcalloc(n ? n : 1, sizeof *t->topics);
	for (; t->n < n; t->n++) {
		t->names[t->n] = bt_xstrdup(services[t->n].name);
		t->topics[t->n] = btdds_svc_topic(services[t->n].name, false);
	}
	t->hint = hint != NULL ? bt_xstrdup(hint) : NULL;
	dds_return_t rc = dds_get_guid(pp, &t->own);
	if (rc >= 0)
		rc = t->reader = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, NULL, NULL);
	if (rc >= 0)
		rc = t->cond = dds_create_readcondition(t->reader, DDS_ANY_STATE);
	if (rc >= 0)
		rc = dds_waitset_attach(waitset, t->cond, (dds_attach_t)-2);
	if (rc < 0) {
		btdds_svc_twin_free(t);
		return bt_err_set(err, BT_ERR_DDS, "services: no watch for other servers of them: %s",
				  dds_strretcode(rc));
	}
	*out = t;
	return BT_OK;
}

/* The service whose reply topic another participant writes, or NULL. */
static const char *twin_of(const struct btdds_svc_twin *t, const dds_builtintopic_endpoint_t *ep)
{
	if (ep->topic_name == NULL || memcmp(ep->participant_key.v, t->own.v, 12) == 0)
		return NULL;
	for (size_t i = 0; i < t->n; i++)
		if (t->topics[i] != NULL && strcmp(ep->topic_name, t->topics[i]) == 0)
			return t->names[i];
	return NULL;
}

static void twin_say(struct btdds_svc_twin *t, const char *service,
		     const dds_builtintopic_endpoint_t *ep)
{
	char where[BTDDS_WHERE_MAX];
	btdds_participant_where(t->pp, &ep->participant_key, where);
	bt_log_warn("another process%s%s%s also serves %s: a call reaches both, and both act "
		    "on it%s%s",
		    where[0] != '\0' ? " (" : "", where, where[0] != '\0' ? ")" : "", service,
		    t->hint != NULL ? "; " : "", t->hint != NULL ? t->hint : "");
	t->said = true;
}

static bool twin_on_endpoint(void *arg, dds_instance_handle_t ih,
			     const dds_builtintopic_endpoint_t *ep)
{
	(void)ih;
	struct btdds_svc_twin *t = arg;
	const char *svc = ep != NULL ? twin_of(t, ep) : NULL;
	if (svc != NULL)
		twin_say(t, svc, ep);
	return !t->said;
}

void btdds_svc_twin_poll(struct btdds_svc_twin *t)
{
	if (t == NULL || t->said)
		return;
	btdds_endpoints_take(t->reader, TWIN_ROUNDS, twin_on_endpoint, t);
	if (t->said) {
		/* said once: no more wake-ups for discovery */
		(void)dds_waitset_detach(t->waitset, t->cond);
		(void)dds_delete(t->reader);
		t->reader = t->cond = 0;
	}
}

void btdds_svc_twin_free(struct btdds_svc_twin *t)
{
	if (t == NULL)
		return;
	if (t->cond > 0)
		(void)dds_waitset_detach(t->waitset, t->cond);
	if (t->reader > 0)
		(void)dds_delete(t->reader);
	for (size_t i = 0; i < t->n; i++) {
		free(t->names[i]);
		free(t->topics[i]);
	}
	free(t->names);
	free(t->topics);
	free(t->hint);
	free(t);
}
