/* btdds_env — the ROS 2 environment as rcl and rmw_cyclonedds (Jazzy) read
 * it: ROS_DOMAIN_ID, ROS_LOCALHOST_ONLY, ROS_AUTOMATIC_DISCOVERY_RANGE,
 * ROS_STATIC_PEERS and CYCLONEDDS_URI, parsed strictly. Pure: the variables
 * come through a lookup function (getenv in the program, a table in the
 * tests), nothing here touches DDS.
 *
 * src/dds holds what bagtop's DDS users (the recorder, `stats`, the demo's
 * publisher, later the player) share about Cyclone DDS. Its prefix is
 * btdds_: Cyclone owns dds_, ddsi_ and ddsrt_, and bt_ is src/util. */
#ifndef BTDDS_ENV_H
#define BTDDS_ENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

#define BTDDS_DOMAIN_MAX 232    /* DDSI maps domain ids to ports: the largest that fits */
#define BTDDS_PEERS_MAX 64      /* ROS_STATIC_PEERS entries */
#define BTDDS_PEER_LEN_MAX 255  /* rmw's RMW_DISCOVERY_OPTIONS_STATIC_PEERS_MAX_LENGTH - 1 */

/* ROS_AUTOMATIC_DISCOVERY_RANGE (Iron and later). */
enum btdds_range {
	BTDDS_RANGE_SUBNET,         /* the default when unset */
	BTDDS_RANGE_LOCALHOST,
	BTDDS_RANGE_OFF,
	BTDDS_RANGE_SYSTEM_DEFAULT, /* Cyclone's configuration untouched */
};

/* The variables bagtop reads to join DDS, in the order it reports them. */
#define BTDDS_ENV_VARS(X)                                                                 \
	X(ROS_DOMAIN_ID)                                                                  \
	X(ROS_LOCALHOST_ONLY)                                                             \
	X(ROS_AUTOMATIC_DISCOVERY_RANGE)                                                  \
	X(ROS_STATIC_PEERS)                                                               \
	X(CYCLONEDDS_URI)
enum btdds_var {
#define BTDDS_X_ENUM(name) BTDDS_VAR_##name,
	BTDDS_ENV_VARS(BTDDS_X_ENUM)
#undef BTDDS_X_ENUM
	BTDDS_VAR_N
};

struct btdds_env {
	bool domain_set;      /* ROS_DOMAIN_ID set and not empty */
	uint32_t domain_id;   /* 0..BTDDS_DOMAIN_MAX when domain_set */
	bool localhost_only;  /* ROS_LOCALHOST_ONLY=1: range LOCALHOST, no static peers */
	enum btdds_range range;
	char **peers;         /* the static peers used (ignored ones are not here) */
	size_t n_peers;
	size_t n_peers_ignored; /* given but ignored (OFF, SYSTEM_DEFAULT, LOCALHOST_ONLY) */
	char *uri;            /* CYCLONEDDS_URI, NULL when unset or empty */
	char *raw[BTDDS_VAR_N]; /* every variable as read, NULL when unset or empty */
};

/* Looks a variable up: getenv, or a test's table. NULL = unset. */
typedef const char *(*btdds_getenv_fn)(const char *name);

/* Reads and checks the variables into *e (zeroed first; btdds_env_fini
 * frees it, also after an error). Stricter than rcl, which guesses: a value
 * rcl would warn about (a range it does not know, a ROS_LOCALHOST_ONLY other
 * than 0/1, a domain id that is not a number 0..232, a peer with characters
 * no host name or address has) is BT_ERR_USAGE with one line naming the
 * variable and the value. */
BT_MUST_CHECK bt_status btdds_env_read(btdds_getenv_fn get, struct btdds_env *e,
				       struct bt_error *err);
void btdds_env_fini(struct btdds_env *e);

/* The variable's name ("ROS_DOMAIN_ID"). */
const char *btdds_var_name(enum btdds_var v);
/* The range's name as the variable spells it ("LOCALHOST"). */
const char *btdds_range_name(enum btdds_range r);

/* One line for the user: what was read, "ROS_DOMAIN_ID=7 ROS_LOCALHOST_ONLY=1
 * CYCLONEDDS_URI=file:///x.xml", or "no ROS_DOMAIN_ID, ..., CYCLONEDDS_URI
 * set". Long values are cut with "...". Caller frees. */
char *btdds_env_describe(const struct btdds_env *e);

#endif
