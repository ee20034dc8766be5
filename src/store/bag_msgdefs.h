/* bag_msgdefs — the message definitions a bag carries (the
 * message_definitions table of its storage files), for readers such as
 * `bagtop info`. */
#ifndef BAG_MSGDEFS_H
#define BAG_MSGDEFS_H

#include <stddef.h>

#include "bag_reader.h"
#include "bag_types.h"
#include "bt_status.h"

/* One row per type, in the order the files hold them (the first file's
 * row of a type wins, but a row with a definition wins over one without:
 * an MCAP file's Schema written before its definition was learned); none
 * for files of schema version < 4, which have no such table. *out is freed
 * with bag_msgdefs_free. */
BT_MUST_CHECK bt_status bag_msgdefs_read(const struct bag_reader *r, struct bag_msgdef **out,
					 size_t *n, struct bt_error *err);
void bag_msgdefs_free(struct bag_msgdef *d, size_t n);

#endif
