#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "bt_fs.h"
#include "bt_mem.h"
#include "store__zstd.h"

bool bag_zstd_is_frame(const void *data, size_t len)
{
	static const unsigned char magic[4] = {0x28, 0xB5, 0x2F, 0xFD};
	return len >= 4 && memcmp(data, magic, 4) == 0;
}

static bt_status bag_zstd_write_all(FILE *f, const void *p, size_t n, const char *path,
				    struct bt_error *err)
{
	if (n && fwrite(p, 1, n, f) != n)
		return bt_err_errno(err, errno, "cannot write %s", path);
	return BT_OK;
}

/* Streams `in` through a compression context into `out` as one frame;
 * BT_ERR_STATE as soon as *cancel is set (checked at every input block). */
static bt_status bag_zstd_stream(FILE *in, FILE *out, const char *src, const char *dst,
				 const atomic_bool *cancel, struct bt_error *err)
{
	ZSTD_CCtx *cctx = ZSTD_createCCtx();
	size_t in_cap = ZSTD_CStreamInSize(), out_cap = ZSTD_CStreamOutSize();
	char *ibuf = bt_xmalloc(in_cap), *obuf = bt_xmalloc(out_cap);
	bt_status st = cctx ? BT_OK : bt_err_set(err, BT_ERR_NOMEM, "zstd: no context");
	if (st == BT_OK)
		ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, BAG_ZSTD_LEVEL);
	bool last = false;
	while (st == BT_OK && !last) {
		if (cancel != NULL && atomic_load_explicit(cancel, memory_order_relaxed)) {
			st = bt_err_set(err, BT_ERR_STATE, "compression of %s cancelled", src);
			break;
		}
		size_t n = fread(ibuf, 1, in_cap, in);
		if (ferror(in)) {
			st = bt_err_errno(err, errno, "cannot read %s", src);
			break;
		}
		last = n < in_cap;
		ZSTD_inBuffer ib = {ibuf, n, 0};
		size_t rem;
		do {
			ZSTD_outBuffer ob = {obuf, out_cap, 0};
			rem = ZSTD_compressStream2(cctx, &ob, &ib, last ? ZSTD_e_end : ZSTD_e_continue);
			if (ZSTD_isError(rem))
				st = bt_err_set(err, BT_ERR_IO, "zstd: %s", ZSTD_getErrorName(rem));
			else
				st = bag_zstd_write_all(out, obuf, ob.pos, dst, err);
		} while (st == BT_OK && (last ? rem != 0 : ib.pos < ib.size));
	}
	ZSTD_freeCCtx(cctx);
	free(ibuf);
	free(obuf);
	return st;
}

static bt_status bag_zstd_finish(FILE *out, const char *tmp, struct bt_error *err)
{
	bt_status st = BT_OK;
	if (fflush(out) != 0 || fsync(fileno(out)) != 0)
		st = bt_err_errno(err, errno, "cannot write %s", tmp);
	if (fclose(out) != 0 && st == BT_OK)
		st = bt_err_errno(err, errno, "cannot write %s", tmp);
	return st;
}

/* `src` opened for reading, if it is a regular file (a FIFO in a bag
 * directory must not block the reader). */
static bt_status bag_zstd_open_src(const char *src, FILE **in, struct bt_error *err)
{
	int fd;
	bt_status st = bt_fs_open_regular(src, &fd, err);
	if (st != BT_OK)
		return st;
	*in = fdopen(fd, "rb");
	if (!*in) {
		st = bt_err_errno(err, errno, "cannot open %s", src);
		close(fd);
	}
	return st;
}

bt_status bag_zstd_compress_file(const char *src, const char *dst, const atomic_bool *cancel,
				 struct bt_error *err)
{
	FILE *in;
	bt_status st0 = bag_zstd_open_src(src, &in, err);
	if (st0 != BT_OK)
		return st0;
	char *tmp = bt_xasprintf("%s.tmp", dst);
	FILE *out = fopen(tmp, "wb");
	bt_status st;
	if (!out) {
		st = bt_err_errno(err, errno, "cannot create %s", tmp);
		fclose(in);
		free(tmp);
		return st;
	}
	st = bag_zstd_stream(in, out, src, tmp, cancel, err);
	fclose(in);
	bt_status st2 = BT_OK;
	if (st == BT_ERR_STATE)
		(void)fclose(out); /* cancelled: the tmp goes, no need to sync it */
	else
		st2 = bag_zstd_finish(out, tmp, err);
	if (st == BT_OK)
		st = st2;
	if (st == BT_OK && rename(tmp, dst) != 0)
		st = bt_err_errno(err, errno, "cannot rename %s", tmp);
	if (st == BT_OK)
		st = bt_fs_fsync_dir_of(dst, err);
	if (st != BT_OK)
		unlink(tmp);
	free(tmp);
	return st;
}

static bt_status bag_zstd_unstream(FILE *in, FILE *out, const char *src, const char *dst,
				   struct bt_error *err)
{
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	size_t in_cap = ZSTD_DStreamInSize(), out_cap = ZSTD_DStreamOutSize();
	char *ibuf = bt_xmalloc(in_cap), *obuf = bt_xmalloc(out_cap);
	bt_status st = dctx ? BT_OK : bt_err_set(err, BT_ERR_NOMEM, "zstd: no context");
	size_t rem = 1, total_in = 0;
	while (st == BT_OK) {
		size_t n = fread(ibuf, 1, in_cap, in);
		if (ferror(in)) {
			st = bt_err_errno(err, errno, "cannot read %s", src);
			break;
		}
		if (n == 0)
			break;
		total_in += n;
		ZSTD_inBuffer ib = {ibuf, n, 0};
		while (st == BT_OK && ib.pos < ib.size) {
			ZSTD_outBuffer ob = {obuf, out_cap, 0};
			rem = ZSTD_decompressStream(dctx, &ob, &ib);
			if (ZSTD_isError(rem))
				st = bt_err_set(err, BT_ERR_FORMAT, "%s: corrupt zstd data: %s", src,
						ZSTD_getErrorName(rem));
			else
				st = bag_zstd_write_all(out, obuf, ob.pos, dst, err);
		}
	}
	if (st == BT_OK && (rem != 0 || total_in == 0))
		st = bt_err_set(err, BT_ERR_FORMAT, "%s: truncated zstd file", src);
	ZSTD_freeDCtx(dctx);
	free(ibuf);
	free(obuf);
	return st;
}

bt_status bag_zstd_decompress_file(const char *src, const char *dst, struct bt_error *err)
{
	FILE *in;
	bt_status st0 = bag_zstd_open_src(src, &in, err);
	if (st0 != BT_OK)
		return st0;
	FILE *out = fopen(dst, "wbx");
	if (!out) {
		bt_status st = bt_err_errno(err, errno, "cannot create %s", dst);
		fclose(in);
		return st;
	}
	bt_status st = bag_zstd_unstream(in, out, src, dst, err);
	fclose(in);
	if (fclose(out) != 0 && st == BT_OK)
		st = bt_err_errno(err, errno, "cannot write %s", dst);
	return st;
}

bt_status bag_zstd_decompress_msg(const void *data, size_t len, struct bt_buf *out,
				  struct bt_error *err)
{
	unsigned long long sz = ZSTD_getFrameContentSize(data, len);
	if (sz == ZSTD_CONTENTSIZE_ERROR || sz == ZSTD_CONTENTSIZE_UNKNOWN ||
	    sz > BAG_ZSTD_MAX_MESSAGE)
		return bt_err_set(err, BT_ERR_FORMAT, "message is not a valid zstd frame");
	bt_buf_reset(out);
	if (bt_buf_reserve(out, (size_t)sz) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "no memory for a %llu-byte message", sz);
	size_t n = ZSTD_decompress(out->data, (size_t)sz, data, len);
	if (ZSTD_isError(n) || n != sz)
		return bt_err_set(err, BT_ERR_FORMAT, "corrupt zstd message: %s",
				  ZSTD_isError(n) ? ZSTD_getErrorName(n) : "size mismatch");
	out->len = n;
	out->data[n] = '\0';
	return BT_OK;
}

bt_status bag_zstd_compress_msg(const void *data, size_t len, struct bt_buf *out,
				struct bt_error *err)
{
	size_t bound = ZSTD_compressBound(len);
	bt_buf_reset(out);
	if (bt_buf_reserve(out, bound) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "no memory to compress a %zu-byte message", len);
	size_t n = ZSTD_compress(out->data, bound, data, len, BAG_ZSTD_LEVEL);
	if (ZSTD_isError(n))
		return bt_err_set(err, BT_ERR_NOMEM, "cannot compress a %zu-byte message: %s", len,
				  ZSTD_getErrorName(n));
	out->len = n;
	return BT_OK;
}
