/* btdds_env — reading the ROS 2 environment the way rcl (Jazzy) does: see
 * btdds_env.h for where bagtop is stricter. */
#include "btdds_env.h"

#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_mem.h"
#include "bt_parse.h"

static const char *const btdds_var_names[BTDDS_VAR_N] = {
#define BTDDS_X_NAME(name) #name,
	BTDDS_ENV_VARS(BTDDS_X_NAME)
#undef BTDDS_X_NAME
};

static const char *const btdds_range_names[] = {"SUBNET", "LOCALHOST", "OFF", "SYSTEM_DEFAULT"};

const char *btdds_var_name(enum btdds_var v)
{
	return (unsigned)v < BTDDS_VAR_N ? btdds_var_names[v] : "?";
}

const char *btdds_range_name(enum btdds_range r)
{
	return (unsigned)r <= BTDDS_RANGE_SYSTEM_DEFAULT ? btdds_range_names[r] : "?";
}

void btdds_env_fini(struct btdds_env *e)
{
	for (size_t i = 0; i < e->n_peers; i++)
		free(e->peers[i]);
	free(e->peers);
	free(e->uri);
	for (int v = 0; v < BTDDS_VAR_N; v++)
		free(e->raw[v]);
	memset(e, 0, sizeof *e);
}

static bt_status btdds_env_domain(struct btdds_env *e, const char *s, struct bt_error *err)
{
	uint64_t u;
	if (s == NULL)
		return BT_OK;
	if (bt_parse_u64(s, 0, BTDDS_DOMAIN_MAX, &u) != BT_OK)
		return bt_err_set(err, BT_ERR_USAGE, "ROS_DOMAIN_ID wants a number 0..%d, got '%s'",
				  BTDDS_DOMAIN_MAX, s);
	e->domain_set = true;
	e->domain_id = (uint32_t)u;
	return BT_OK;
}

/* rcl takes any value starting with '1' as on and anything else as off;
 * "true" or "yes" would silently mean off, so only 0 and 1 are accepted. */
static bt_status btdds_env_localhost(struct btdds_env *e, const char *s, struct bt_error *err)
{
	if (s == NULL || strcmp(s, "0") == 0)
		return BT_OK;
	if (strcmp(s, "1") != 0)
		return bt_err_set(err, BT_ERR_USAGE, "ROS_LOCALHOST_ONLY wants 0 or 1, got '%s'", s);
	e->localhost_only = true;
	return BT_OK;
}

static bt_status btdds_env_range(struct btdds_env *e, const char *s, struct bt_error *err)
{
	e->range = BTDDS_RANGE_SUBNET; /* rcl's default since Iron */
	if (s == NULL)
		return BT_OK;
	for (int r = BTDDS_RANGE_SUBNET; r <= BTDDS_RANGE_SYSTEM_DEFAULT; r++)
		if (strcmp(s, btdds_range_names[r]) == 0) {
			e->range = (enum btdds_range)r;
			return BT_OK;
		}
	return bt_err_set(err, BT_ERR_USAGE,
			  "ROS_AUTOMATIC_DISCOVERY_RANGE wants LOCALHOST, SUBNET, OFF or "
			  "SYSTEM_DEFAULT, got '%s'", s);
}

/* A host name, an IPv4 or IPv6 address, with an optional port or Cyclone's
 * "[addr]:port": nothing that could end an XML attribute. */
static bool btdds_peer_char_ok(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       strchr(".-_:[]%", c) != NULL;
}

static bt_status btdds_env_peer(struct btdds_env *e, const char *p, size_t n,
				struct bt_error *err)
{
	if (n > BTDDS_PEER_LEN_MAX)
		return bt_err_set(err, BT_ERR_USAGE,
				  "ROS_STATIC_PEERS: a peer is longer than %d characters",
				  BTDDS_PEER_LEN_MAX);
	for (size_t i = 0; i < n; i++)
		if (!btdds_peer_char_ok((unsigned char)p[i]))
			return bt_err_set(err, BT_ERR_USAGE,
					  "ROS_STATIC_PEERS: '%.*s' is not a host name or address",
					  (int)n, p);
	if (e->n_peers == BTDDS_PEERS_MAX)
		return bt_err_set(err, BT_ERR_USAGE, "ROS_STATIC_PEERS: more than %d peers",
				  BTDDS_PEERS_MAX);
	e->peers = bt_xrealloc(e->peers, (e->n_peers + 1) * sizeof *e->peers);
	e->peers[e->n_peers++] = bt_xstrndup(p, n);
	return BT_OK;
}

/* Peers are separated by ';'; empty entries are skipped (as rcutils_split
 * does). */
static bt_status btdds_env_peers(struct btdds_env *e, const char *s, struct bt_error *err)
{
	if (s == NULL)
		return BT_OK;
	for (const char *p = s; *p != '\0';) {
		size_t n = strcspn(p, ";");
		if (n > 0) {
			bt_status st = btdds_env_peer(e, p, n, err);
			if (st != BT_OK)
				return st;
		}
		p += n;
		p += *p == ';';
	}
	return BT_OK;
}

/* What rcl_init does with the three discovery variables: LOCALHOST_ONLY=1
 * wins over the range and drops the peers; OFF and SYSTEM_DEFAULT ignore
 * the peers (rcl and rmw_cyclonedds warn; the caller may, from
 * n_peers_ignored). */
static void btdds_env_resolve(struct btdds_env *e)
{
	if (e->localhost_only)
		e->range = BTDDS_RANGE_LOCALHOST;
	if (e->localhost_only || e->range == BTDDS_RANGE_OFF ||
	    e->range == BTDDS_RANGE_SYSTEM_DEFAULT) {
		e->n_peers_ignored = e->n_peers;
		for (size_t i = 0; i < e->n_peers; i++)
			free(e->peers[i]);
		e->n_peers = 0;
	}
}

bt_status btdds_env_read(btdds_getenv_fn get, struct btdds_env *e, struct bt_error *err)
{
	memset(e, 0, sizeof *e);
	for (int v = 0; v < BTDDS_VAR_N; v++) {
		const char *s = get(btdds_var_names[v]);
		e->raw[v] = s != NULL && *s != '\0' ? bt_xstrdup(s) : NULL;
	}
	e->uri = bt_xstrdup(e->raw[BTDDS_VAR_CYCLONEDDS_URI]);
	bt_status st = btdds_env_domain(e, e->raw[BTDDS_VAR_ROS_DOMAIN_ID], err);
	if (st == BT_OK)
		st = btdds_env_localhost(e, e->raw[BTDDS_VAR_ROS_LOCALHOST_ONLY], err);
	if (st == BT_OK)
		st = btdds_env_range(e, e->raw[BTDDS_VAR_ROS_AUTOMATIC_DISCOVERY_RANGE], err);
	if (st == BT_OK)
		st = btdds_env_peers(e, e->raw[BTDDS_VAR_ROS_STATIC_PEERS], err);
	if (st == BT_OK)
		btdds_env_resolve(e);
	return st;
}

#define BTDDS_DESCRIBE_VALUE_MAX 120

char *btdds_env_describe(const struct btdds_env *e)
{
	struct bt_buf b = BT_BUF_INIT;
	bool any = false;
	bt_status st = BT_OK;
	for (int v = 0; v < BTDDS_VAR_N && st == BT_OK; v++) {
		const char *s = e->raw[v];
		if (s == NULL)
			continue;
		bool cut = strlen(s) > BTDDS_DESCRIBE_VALUE_MAX;
		st = bt_buf_printf(&b, "%s%s=%.*s%s", any ? " " : "", btdds_var_names[v],
				   BTDDS_DESCRIBE_VALUE_MAX, s, cut ? "..." : "");
		any = true;
	}
	if (st == BT_OK && !any)
		st = bt_buf_puts(&b, "none of ROS_DOMAIN_ID, ROS_LOCALHOST_ONLY, "
				     "ROS_AUTOMATIC_DISCOVERY_RANGE, ROS_STATIC_PEERS, "
				     "CYCLONEDDS_URI set");
	if (st != BT_OK) {
		bt_buf_fini(&b);
		return bt_xstrdup("(environment not shown: out of memory)");
	}
	return bt_buf_steal(&b);
}
