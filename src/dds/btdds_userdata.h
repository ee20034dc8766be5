/* btdds_userdata — the type hash an Iron or newer rmw puts in an endpoint's
 * USER_DATA QoS (REP 2011): a list of `key=value;` entries, one of them
 * `typehash=RIHS01_<64 lowercase hex>;` (ros2/rmw_dds_common qos.cpp).
 * A strict, bounded parser: the bytes come from any participant on the
 * network. Pure; no allocation. */
#ifndef BTDDS_USERDATA_H
#define BTDDS_USERDATA_H

#include <stdbool.h>
#include <stddef.h>

#include "bt_status.h"

#define BTDDS_USERDATA_MAX 4096 /* larger user data is not a ROS key=value list */
#define BTDDS_TYPEHASH_PREFIX "RIHS01_"
#define BTDDS_TYPEHASH_LEN (sizeof BTDDS_TYPEHASH_PREFIX - 1 + 64)

enum btdds_ud {
	BTDDS_UD_HASH,    /* a valid list with a valid typehash: copied out */
	BTDDS_UD_NO_HASH, /* no user data, or a valid list without typehash */
	BTDDS_UD_BAD,     /* not a key=value; list, or a typehash that is not RIHS01 */
};

/* Looks for the type hash in the `n` bytes at `ud` (NULL when n is 0).
 * On BTDDS_UD_HASH, `out` holds "RIHS01_<64 hex>" (NUL-terminated); on
 * BTDDS_UD_BAD, *err (if non-NULL) says what is wrong in one line, without
 * quoting the bytes. The list must be entries `key=value;`, every one ended
 * by ';', keys of letters, digits, '_', '-', '.', values without NUL or
 * control bytes; typehash at most once. */
enum btdds_ud btdds_userdata_typehash(const void *ud, size_t n, char out[BTDDS_TYPEHASH_LEN + 1],
				      struct bt_error *err);

/* The value of entry `key` in a `key=value;` list (`n` bytes at `ud`), as
 * rmw_dds_common's parser reads it (entries split at ';', key and value at
 * the first '='; the last entry needs no ';'): true and the value in `out`
 * (NUL-terminated) when the key is there and its value fits in cap - 1
 * bytes and has no NUL; false otherwise, also beyond BTDDS_USERDATA_MAX. */
bool btdds_userdata_value(const void *ud, size_t n, const char *key, char *out, size_t cap);

#endif
