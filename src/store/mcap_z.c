/* mcap_z — zstd and lz4 chunk compression; see store__mcap_z.h. */
#include "store__mcap_z.h"

#include <lz4frame.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

struct mcap_z {
	ZSTD_CCtx *zc;
	ZSTD_DCtx *zd;
	LZ4F_dctx *ld;
};

const char *mcap_compression_name(enum mcap_compression c)
{
	switch (c) {
	case MCAP_COMPRESSION_ZSTD:
		return "zstd";
	case MCAP_COMPRESSION_LZ4:
		return "lz4";
	default:
		return "";
	}
}

struct mcap_z *mcap_z_new(void)
{
	return calloc(1, sizeof(struct mcap_z));
}

void mcap_z_free(struct mcap_z *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->zc);
	ZSTD_freeDCtx(z->zd);
	if (z->ld)
		LZ4F_freeDecompressionContext(z->ld);
	free(z);
}

static bt_status z_zstd(struct mcap_z *z, int level, const void *src, size_t len,
			struct bt_buf *out, struct bt_error *err)
{
	if (!z->zc && !(z->zc = ZSTD_createCCtx()))
		return bt_err_set(err, BT_ERR_NOMEM, "zstd: out of memory");
	size_t bound = ZSTD_compressBound(len);
	bt_buf_reset(out);
	if (bt_buf_reserve(out, bound) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "zstd: out of memory for %zu bytes", bound);
	size_t n = ZSTD_compressCCtx(z->zc, out->data, bound, src, len, level);
	if (ZSTD_isError(n))
		return bt_err_set(err, BT_ERR_IO, "zstd: %s", ZSTD_getErrorName(n));
	out->len = n;
	return BT_OK;
}

static bt_status z_lz4(int level, const void *src, size_t len, struct bt_buf *out,
		       struct bt_error *err)
{
	LZ4F_preferences_t prefs;
	memset(&prefs, 0, sizeof prefs);
	prefs.compressionLevel = level > 0 ? level : 0;
	prefs.frameInfo.contentSize = len;
	size_t bound = LZ4F_compressFrameBound(len, &prefs);
	bt_buf_reset(out);
	if (bt_buf_reserve(out, bound) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "lz4: out of memory for %zu bytes", bound);
	size_t n = LZ4F_compressFrame(out->data, bound, src, len, &prefs);
	if (LZ4F_isError(n))
		return bt_err_set(err, BT_ERR_IO, "lz4: %s", LZ4F_getErrorName(n));
	out->len = n;
	return BT_OK;
}

bt_status mcap_z_compress(struct mcap_z *z, enum mcap_compression c, int level, const void *src,
			  size_t len, struct bt_buf *out, struct bt_error *err)
{
	if (c == MCAP_COMPRESSION_ZSTD)
		return z_zstd(z, level, src, len, out, err);
	if (c == MCAP_COMPRESSION_LZ4)
		return z_lz4(level, src, len, out, err);
	bt_buf_reset(out);
	return bt_buf_append(out, src, len) == BT_OK
		       ? BT_OK
		       : bt_err_set(err, BT_ERR_NOMEM, "out of memory for %zu bytes", len);
}

static bt_status unz_zstd(struct mcap_z *z, const void *src, size_t len, uint8_t *dst,
			  size_t dst_len, struct bt_error *err)
{
	if (!z->zd && !(z->zd = ZSTD_createDCtx()))
		return bt_err_set(err, BT_ERR_NOMEM, "zstd: out of memory");
	/* Bounded by dst_len: a frame that would yield more fails with
	 * "destination buffer too small" instead of growing anything. */
	size_t n = ZSTD_decompressDCtx(z->zd, dst, dst_len, src, len);
	if (ZSTD_isError(n))
		return bt_err_set(err, BT_ERR_FORMAT, "zstd chunk: %s (declared %zu bytes)",
				  ZSTD_getErrorName(n), dst_len);
	if (n != dst_len)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "zstd chunk: %zu bytes where %zu were declared", n, dst_len);
	return BT_OK;
}

static bt_status unz_lz4(struct mcap_z *z, const void *src, size_t len, uint8_t *dst,
			 size_t dst_len, struct bt_error *err)
{
	if (!z->ld && LZ4F_isError(LZ4F_createDecompressionContext(&z->ld, LZ4F_VERSION)))
		return bt_err_set(err, BT_ERR_NOMEM, "lz4: out of memory");
	LZ4F_resetDecompressionContext(z->ld);
	const uint8_t *in = src;
	size_t in_left = len, out_pos = 0, hint = 1;
	while (in_left > 0 && hint != 0) {
		size_t in_n = in_left, out_n = dst_len - out_pos;
		hint = LZ4F_decompress(z->ld, dst + out_pos, &out_n, in, &in_n, NULL);
		if (LZ4F_isError(hint))
			return bt_err_set(err, BT_ERR_FORMAT, "lz4 chunk: %s", LZ4F_getErrorName(hint));
		in += in_n;
		in_left -= in_n;
		out_pos += out_n;
		if (out_pos == dst_len && hint != 0 && in_n == 0 && out_n == 0)
			break; /* output full, the frame wants more room: a bomb or a lie */
	}
	if (hint != 0 || out_pos != dst_len || in_left != 0)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "lz4 chunk: does not decompress to the %zu bytes declared", dst_len);
	return BT_OK;
}

bt_status mcap_z_precheck(struct mcap_str name, const void *src, size_t len, uint64_t dst_len,
			  struct bt_error *err)
{
	if (name.len != 4 || memcmp(name.p, "zstd", 4) != 0)
		return BT_OK;
	/* The usual chunk is one frame that names its size: check that. */
	size_t first = ZSTD_findFrameCompressedSize(src, len);
	if (ZSTD_isError(first))
		return bt_err_set(err, BT_ERR_FORMAT, "zstd chunk: %s", ZSTD_getErrorName(first));
	unsigned long long n = ZSTD_getFrameContentSize(src, len);
	if (first == len && n != ZSTD_CONTENTSIZE_UNKNOWN && n != ZSTD_CONTENTSIZE_ERROR &&
	    n != dst_len)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "zstd chunk: its frames hold %llu bytes, %llu were declared", n,
				  (unsigned long long)dst_len);
	return BT_OK;
}

bt_status mcap_z_decompress(struct mcap_z *z, struct mcap_str name, const void *src, size_t len,
			    uint8_t *dst, size_t dst_len, struct bt_error *err)
{
	if (name.len == 4 && memcmp(name.p, "zstd", 4) == 0)
		return unz_zstd(z, src, len, dst, dst_len, err);
	if (name.len == 3 && memcmp(name.p, "lz4", 3) == 0)
		return unz_lz4(z, src, len, dst, dst_len, err);
	if (name.len == 0) {
		if (len != dst_len)
			return bt_err_set(err, BT_ERR_FORMAT,
					  "chunk: %zu bytes stored, %zu declared uncompressed", len,
					  dst_len);
		memcpy(dst, src, len);
		return BT_OK;
	}
	return bt_err_set(err, BT_ERR_FORMAT, "chunk: unknown compression \"%.*s\"",
			  (int)(name.len > 32 ? 32 : name.len), name.p);
}
