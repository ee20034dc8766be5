/* btdds_cdr_copy — one value of a ROS 2 message type (its layout from
 * defs_type) read from plain CDR and written again where a writer stands:
 * each primitive aligned for its new offset, little-endian. A value cut
 * out of a larger sample (a service event's request) cannot simply be
 * copied: CDR aligns 2-, 4- and 8-byte values to their offset from the
 * sample's start, and the value moves.
 *
 * The source is anyone's: the strict reader checks every length, count
 * and string, a sequence longer than its bound fails, and nesting is
 * capped by the reader's depth. wstring fields are refused: their CDR
 * differs between the RMWs (2- or 4-byte characters). Pure; no DDS. */
#ifndef BTDDS_CDR_COPY_H
#define BTDDS_CDR_COPY_H

#include <stddef.h>

#include "bt_status.h"
#include "btdds_cdr.h"
#include "defs_type.h"

/* Reads one value of struct `type` (an index into t->v) from *r and
 * appends it to *w. BT_OK, or BT_ERR_FORMAT with *err saying what and
 * where (`what` names the sample in that line); *w then holds part of it. */
BT_MUST_CHECK bt_status btdds_cdr_copy(const struct defs_types *t, size_t type,
				       struct btdds_cdr_rd *r, struct btdds_cdr_wr *w,
				       const char *what, struct bt_error *err);

#endif
