/* btdds_participant — see btdds_participant.h. */
#include "btdds_participant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_mem.h"
#include "btdds_config.h"

static bt_status btdds_join(dds_domainid_t dom, dds_entity_t *pp, struct bt_error *err)
{
	dds_entity_t p = dds_create_participant(dom, NULL, NULL);
	if (p < 0)
		return bt_err_set(err, BT_ERR_DDS, "cannot join DDS domain: %s", dds_strretcode(p));
	*pp = p;
	return BT_OK;
}

bt_status btdds_participant_create(uint32_t domain_id, const struct btdds_env *env,
				   dds_entity_t *pp, struct bt_error *err)
{
	return btdds_participant_create_with(domain_id, env, NULL, pp, err);
}

/* own, then the configuration the environment makes (else CYCLONEDDS_URI
 * as it is), so that the environment's and the user's settings win. */
static char *part_config(const struct btdds_env *env, const char *own)
{
	char *cfg = env != NULL ? btdds_config_merged(env, (long)getpid()) : NULL;
	if (own == NULL)
		return cfg;
	const char *uri = env != NULL ? env->uri : getenv("CYCLONEDDS_URI");
	const char *rest = cfg != NULL ? cfg : uri != NULL ? uri : "";
	char *all = bt_xasprintf("%s,%s", own, rest);
	free(cfg);
	return all;
}

bt_status btdds_participant_create_with(uint32_t domain_id, const struct btdds_env *env,
					const char *own, dds_entity_t *pp, struct bt_error *err)
{
	char *cfg = part_config(env, own);
	if (cfg == NULL)
		return btdds_join(domain_id == BTDDS_DOMAIN_DEFAULT ? DDS_DOMAIN_DEFAULT
								 : (dds_domainid_t)domain_id,
				  pp, err);
	/* rmw_cyclonedds: no custom handling of the default, domain 0 */
	dds_domainid_t dom = domain_id == BTDDS_DOMAIN_DEFAULT ? 0 : (dds_domainid_t)domain_id;
	dds_entity_t d = dds_create_domain(dom, cfg);
	free(cfg);
	if (d < 0 && d != DDS_RETCODE_PRECONDITION_NOT_MET) /* not: exists already */
		return bt_err_set(err, BT_ERR_DDS, "cannot create DDS domain %u: %s", (unsigned)dom,
				  dds_strretcode(d));
	bt_status st = btdds_join(dom, pp, err);
	if (st != BT_OK && d > 0)
		(void)dds_delete(d); /* the participant's error is the one to report */
	return st;
}

dds_return_t btdds_participant_delete(dds_entity_t pp)
{
	if (pp <= 0)
		return 0;
	dds_entity_t dom = dds_get_parent(pp);
	dds_return_t rc = dds_delete(pp);
	/* A domain made by dds_create_domain outlives its participants; one
	 * made implicitly is already gone with its last one. */
	if (dom > 0 && dds_get_children(dom, NULL, 0) == 0) {
		dds_return_t rd = dds_delete(dom);
		if (rc == 0 && rd < 0 && rd != DDS_RETCODE_BAD_PARAMETER &&
		    rd != DDS_RETCODE_ALREADY_DELETED)
			rc = rd;
	}
	return rc;
}

/* "host pid N" of one participant's QoS; "" when it names neither. Control
 * characters become '?'. */
static void part_where_qos(const dds_qos_t *qos, char out[BTDDS_WHERE_MAX])
{
	char *host = NULL, *pid = NULL;
	if (qos != NULL) {
		(void)dds_qget_prop(qos, "__Hostname", &host);
		(void)dds_qget_prop(qos, "__Pid", &pid);
	}
	if (host != NULL && pid != NULL)
		snprintf(out, BTDDS_WHERE_MAX, "%s pid %s", host, pid);
	else if (host != NULL)
		snprintf(out, BTDDS_WHERE_MAX, "%s", host);
	else if (pid != NULL)
		snprintf(out, BTDDS_WHERE_MAX, "pid %s", pid);
	dds_free(host);
	dds_free(pid);
	for (char *c = out; *c; c++) /* another process's text, bound for a terminal */
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

void btdds_participant_where(dds_entity_t pp, const dds_guid_t *key, char out[BTDDS_WHERE_MAX])
{
	out[0] = '\0';
	dds_entity_t rd = dds_create_reader(pp, DDS_BUILTIN_TOPIC_DCPSPARTICIPANT, NULL, NULL);
	if (rd < 0)
		return;
	dds_builtintopic_participant_t want = {.key = *key};
	dds_instance_handle_t ih = dds_lookup_instance(rd, &want);
	void *ptr = NULL;
	dds_sample_info_t info;
	if (ih != DDS_HANDLE_NIL && dds_read_instance(rd, &ptr, &info, 1, 1, ih) == 1) {
		if (info.valid_data)
			part_where_qos(((const dds_builtintopic_participant_t *)ptr)->qos, out);
		(void)dds_return_loan(rd, &ptr, 1);
	}
	(void)dds_delete(rd);
}

#define ENDPOINTS_BATCH 64

void btdds_endpoints_take(dds_entity_t rd, unsigned max_rounds, btdds_endpoint_fn fn, void *arg)
{
	void *ptrs[ENDPOINTS_BATCH];
	dds_sample_info_t infos[ENDPOINTS_BATCH];
	bool more = true;
	for (unsigned round = 0; more && (max_rounds == 0 || round < max_rounds); round++) {
		memset(ptrs, 0, sizeof ptrs);
		dds_return_t n = dds_take(rd, ptrs, infos, ENDPOINTS_BATCH, ENDPOINTS_BATCH);
		if (n <= 0)
			return;
		for (dds_return_t i = 0; i < n && more; i++) {
			const dds_sample_info_t *si = &infos[i];
			if (si->instance_state != DDS_IST_ALIVE)
				more = fn(arg, si->instance_handle, NULL);
			else if (si->valid_data)
				more = fn(arg, si->instance_handle, ptrs[i]);
		}
		(void)dds_return_loan(rd, ptrs, n);
	}
}

dds_guid_t btdds_participant_of(const dds_guid_t *ep)
{
	dds_guid_t g = *ep;
	static const unsigned char participant_id[4] = {0x00, 0x00, 0x01, 0xc1};
	memcpy(g.v + 12, participant_id, sizeof participant_id);
	return g;
}
