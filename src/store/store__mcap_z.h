/* store__mcap_z — chunk compression for MCAP: zstd (libzstd) and lz4 frames
 * (liblz4), the two the spec names. Private to src/store.
 *
 * A context is used by one thread at a time; it keeps the codec state so a
 * writer or reader does not allocate it per chunk. */
#ifndef STORE__MCAP_Z_H
#define STORE__MCAP_Z_H

#include <stddef.h>
#include <stdint.h>

#include "bt_buf.h"
#include "bt_status.h"
#include "mcap_record.h"

enum mcap_compression {
	MCAP_COMPRESSION_NONE = 0,
	MCAP_COMPRESSION_ZSTD,
	MCAP_COMPRESSION_LZ4
};

struct mcap_z;

/* The spec's name of a compression: "", "zstd", "lz4". */
const char *mcap_compression_name(enum mcap_compression c);

/* A new context (NULL when out of memory); mcap_z_free(NULL) is a no-op. */
struct mcap_z *mcap_z_new(void);
void mcap_z_free(struct mcap_z *z);

/* Compresses src[0..len) into out (replacing its content) at `level`
 * (zstd's levels; lz4: <= 0 fast, > 0 high compression). */
BT_MUST_CHECK bt_status mcap_z_compress(struct mcap_z *z, enum mcap_compression c, int level,
					const void *src, size_t len, struct bt_buf *out,
					struct bt_error *err);

/* Before allocating dst_len bytes: refuses a zstd chunk whose frames say
 * they hold another size (BT_ERR_FORMAT); other compressions pass. */
BT_MUST_CHECK bt_status mcap_z_precheck(struct mcap_str name, const void *src, size_t len,
					uint64_t dst_len, struct bt_error *err);

/* Decompresses src[0..len), compressed as `name` says ("zstd", "lz4"), into
 * exactly dst[0..dst_len): never writes past dst_len, and a frame that
 * yields more or fewer bytes is BT_ERR_FORMAT (a lying size or a bomb). An
 * unknown compression name is BT_ERR_FORMAT too. */
BT_MUST_CHECK bt_status mcap_z_decompress(struct mcap_z *z, struct mcap_str name, const void *src,
					  size_t len, uint8_t *dst, size_t dst_len,
					  struct bt_error *err);

#endif
