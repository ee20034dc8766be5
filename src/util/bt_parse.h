/* bt_parse — strict parsing of numbers given by users (options, YAML).
 * Whole string must be consumed; leading/trailing blanks are refused; no
 * silent wrap-around. On failure *out is unchanged and BT_ERR_USAGE is
 * returned (callers turn it into their own one-line message). */
#ifndef BT_PARSE_H
#define BT_PARSE_H

#include <stdint.h>

#include "bt_status.h"

BT_MUST_CHECK bt_status bt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
BT_MUST_CHECK bt_status bt_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
/* A byte count: digits with an optional binary suffix K, M, G, T (also KiB,
 * MiB, GiB, TiB); "100M" = 100 * 1024 * 1024. */
BT_MUST_CHECK bt_status bt_parse_size(const char *s, uint64_t *out);
/* A plain decimal number: digits with an optional fraction ("0.5", "10");
 * no sign, exponent, hex, inf or nan, so what is read is what was meant.
 * Must lie in [min, max]. */
BT_MUST_CHECK bt_status bt_parse_decimal(const char *s, double min, double max, double *out);
/* A non-negative duration in seconds, decimals allowed ("1.5"), to ns. */
BT_MUST_CHECK bt_status bt_parse_seconds(const char *s, int64_t *ns);

#endif
