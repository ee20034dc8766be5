/* bt_buf — a growable byte buffer, also used as a NUL-terminated string
 * builder. The buffer owns its storage; bt_buf_fini frees it.
 * Appends return BT_ERR_NOMEM and leave the content as it was on failure. */
#ifndef BT_BUF_H
#define BT_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

struct bt_buf {
	char *data; /* always NUL-terminated once anything was appended */
	size_t len;
	size_t cap;
};

#define BT_BUF_INIT {NULL, 0, 0}

void bt_buf_fini(struct bt_buf *b);
void bt_buf_reset(struct bt_buf *b); /* len = 0, keeps storage */
BT_MUST_CHECK bt_status bt_buf_reserve(struct bt_buf *b, size_t extra);
BT_MUST_CHECK bt_status bt_buf_append(struct bt_buf *b, const void *p, size_t n);
BT_MUST_CHECK bt_status bt_buf_puts(struct bt_buf *b, const char *s);
BT_MUST_CHECK bt_status bt_buf_printf(struct bt_buf *b, const char *fmt, ...) BT_PRINTF(2, 3);
/* Moves the storage out (caller frees); the buffer is left empty. */
char *bt_buf_steal(struct bt_buf *b);

#endif
