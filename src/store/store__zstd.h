/* store__zstd — zstd at level 1, the way rosbag2_compression_zstd stores it:
 * whole files (FILE mode, one frame, "<file>.zstd") and single messages
 * (MESSAGE mode, one frame per blob with the content size in its header).
 * Private to src/store; the only file besides bag_zpool.c that includes
 * zstd.h. */
#ifndef STORE__ZSTD_H
#define STORE__ZSTD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_buf.h"
#include "bt_status.h"

#define BAG_ZSTD_LEVEL 1
/* A frame claiming a larger decompressed size is refused as corrupt. */
#define BAG_ZSTD_MAX_MESSAGE (2u * 1024u * 1024u * 1024u)

/* True if `data` starts with the zstd frame magic (28 B5 2F FD). A CDR blob
 * never does: its first byte is 0. */
bool bag_zstd_is_frame(const void *data, size_t len);

/* Compresses `src` into `dst` through "<dst>.tmp": write, fsync, rename,
 * fsync the directory. `src` is left in place (the caller removes it once
 * this returned BT_OK). When *cancel (NULL: never) is set meanwhile, it
 * stops within one input block: BT_ERR_STATE, no `dst`, the tmp removed. */
BT_MUST_CHECK bt_status bag_zstd_compress_file(const char *src, const char *dst,
					       const atomic_bool *cancel, struct bt_error *err);
/* Decompresses a whole-file frame sequence into `dst` (created, 0600);
 * BT_ERR_FORMAT for truncated or corrupt input. */
BT_MUST_CHECK bt_status bag_zstd_decompress_file(const char *src, const char *dst,
						 struct bt_error *err);
/* Compresses one message into a frame in `out` (replacing its content), as
 * the MESSAGE-mode pool does, on the calling thread. */
BT_MUST_CHECK bt_status bag_zstd_compress_msg(const void *data, size_t len, struct bt_buf *out,
					      struct bt_error *err);
/* Decompresses one message frame into `out` (replacing its content). */
BT_MUST_CHECK bt_status bag_zstd_decompress_msg(const void *data, size_t len, struct bt_buf *out,
						struct bt_error *err);

#endif
