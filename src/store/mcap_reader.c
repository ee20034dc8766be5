/* mcap_reader — the file, the streamed read and the recover walk; see
 * mcap_reader.h. The indexed read is in mcap_index.c. */
#include "store__mcap_reader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_fs.h"

/* lz4 cannot expand a block by more than this (255 per byte, plus headers). */
#define R_LZ4_RATIO 256u
/* Below this a chunk's declared size is not compared with its stored size. */
#define R_RATIO_FLOOR (64ull * 1024u * 1024u)
#define R_ZSTD_RATIO 1024u

bt_status mcap_reader_open_fd(struct mcap_reader **out, int fd, struct bt_error *err)
{
	*out = NULL;
	struct stat st;
	if (fstat(fd, &st) != 0) {
		int e = errno;
		close(fd);
		return bt_err_errno(err, e, "MCAP reader: fstat");
	}
	struct mcap_reader *r = calloc(1, sizeof *r);
	if (!r || !(r->z = mcap_z_new())) {
		free(r);
		close(fd);
		return bt_err_set(err, BT_ERR_NOMEM, "MCAP reader: out of memory");
	}
	r->fd = fd;
	r->size = (uint64_t)st.st_size;
	r->limit = MCAP_READER_LIMIT;
	*out = r;
	return BT_OK;
}

bt_status mcap_reader_open(struct mcap_reader **out, const char *path, struct bt_error *err)
{
	int fd;
	*out = NULL;
	bt_status st = bt_fs_open_regular(path, &fd, err);
	return st != BT_OK ? st : mcap_reader_open_fd(out, fd, err);
}

void mcap_reader_close(struct mcap_reader *r)
{
	if (!r)
		return;
	mcap_r_index_free(r);
	close(r->fd);
	free(r->win);
	free(r->rbuf);
	free(r->cbuf);
	mcap_z_free(r->z);
	free(r);
}

void mcap_reader_set_limit(struct mcap_reader *r, uint64_t bytes)
{
	r->limit = bytes;
}

uint64_t mcap_reader_file_size(const struct mcap_reader *r)
{
	return r->size;
}

/* pread of exactly n bytes (fewer only where the file ends): *got. */
static bt_status r_pread_raw(struct mcap_reader *r, uint8_t *p, uint64_t n, uint64_t off,
			     uint64_t *got, struct bt_error *err)
{
	*got = 0;
	while (n > 0) {
		ssize_t k = pread(r->fd, p, n > (1u << 30) ? (1u << 30) : (size_t)n, (off_t)off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return bt_err_errno(err, errno, "MCAP reader: read at offset %llu",
					    (unsigned long long)off);
		if (k == 0)
			return BT_OK;
		p += k;
		off += (uint64_t)k;
		n -= (uint64_t)k;
		*got += (uint64_t)k;
	}
	return BT_OK;
}

/* Copies what the window holds of [*off, *off + *n) from its start. */
static void r_from_window(const struct mcap_reader *r, uint8_t **p, uint64_t *n, uint64_t *off)
{
	if (*off < r->win_off || *off - r->win_off >= r->win_len)
		return;
	uint64_t at = *off - r->win_off, k = r->win_len - at;
	if (k > *n)
		k = *n;
	memcpy(*p, r->win + at, (size_t)k);
	*p += k;
	*n -= k;
	*off += k;
}

/* Reads the window at `off`: as much as the file has, up to the window's
 * size (no larger than the file: a small file costs no more than itself). */
static bt_status r_fill_window(struct mcap_reader *r, uint64_t off, struct bt_error *err)
{
	if (!r->win) {
		r->win_cap = r->size < MCAP_R_WINDOW ? (size_t)r->size + 1 : MCAP_R_WINDOW;
		if (!(r->win = malloc(r->win_cap)))
			return bt_err_set(err, BT_ERR_NOMEM, "MCAP reader: out of memory");
	}
	uint64_t got;
	r->win_len = 0;
	bt_status st = r_pread_raw(r, r->win, r->win_cap, off, &got, err);
	r->win_off = off;
	r->win_len = (size_t)got;
	return st;
}

bt_status mcap_r_pread(struct mcap_reader *r, void *buf, uint64_t n, uint64_t off,
		       struct bt_error *err)
{
	uint8_t *p = buf;
	r_from_window(r, &p, &n, &off);
	uint64_t got = n;
	bt_status st = BT_OK;
	if (n >= MCAP_R_WINDOW) {
		st = r_pread_raw(r, p, n, off, &got, err);
	} else if (n > 0) {
		st = r_fill_window(r, off, err);
		got = 0;
		r_from_window(r, &p, &n, &off);
	}
	if (st == BT_OK && got < n)
		st = bt_err_set(err, BT_ERR_FORMAT, "file ends at offset %llu (truncated)",
				(unsigned long long)(off + got));
	return st;
}

static bt_status r_reserve(struct mcap_reader *r, uint64_t n, struct bt_error *err)
{
	if (n <= r->rcap)
		return BT_OK;
	uint8_t *g = realloc(r->rbuf, (size_t)n);
	if (!g)
		return bt_err_set(err, BT_ERR_NOMEM, "MCAP reader: out of memory for %llu bytes",
				  (unsigned long long)n);
	r->rbuf = g;
	r->rcap = (size_t)n;
	return BT_OK;
}

bt_status mcap_r_read_record(struct mcap_reader *r, uint64_t off, uint8_t *op, uint64_t *len,
			     struct bt_error *err)
{
	uint8_t pre[MCAP_RECORD_PREFIX];
	if (off > r->size || r->size - off < MCAP_RECORD_PREFIX)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "file ends inside the record at offset %llu (truncated)",
				  (unsigned long long)off);
	bt_status st = mcap_r_pread(r, pre, sizeof pre, off, err);
	if (st != BT_OK)
		return st;
	*op = pre[0];
	*len = mcap_get_u64(pre + 1);
	uint64_t left = r->size - off - MCAP_RECORD_PREFIX;
	if (*len > left)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "%s record at offset %llu claims %llu bytes, the file has %llu left",
				  mcap_opcode_name(*op), (unsigned long long)off,
				  (unsigned long long)*len, (unsigned long long)left);
	if (*len > r->limit)
		return bt_err_set(err, BT_ERR_TOOBIG,
				  "%s record at offset %llu: %llu bytes is over the limit of %llu",
				  mcap_opcode_name(*op), (unsigned long long)off,
				  (unsigned long long)*len, (unsigned long long)r->limit);
	st = r_reserve(r, *len ? *len : 1, err);
	return st != BT_OK ? st : mcap_r_pread(r, r->rbuf, *len, off + MCAP_RECORD_PREFIX, err);
}

bt_status mcap_r_frame(const uint8_t *buf, uint64_t len, uint64_t pos, uint8_t *op,
		       uint64_t *blen, uint64_t where, struct bt_error *err)
{
	if (pos > len || len - pos < MCAP_RECORD_PREFIX)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "chunk at offset %llu: record at %llu is cut short",
				  (unsigned long long)where, (unsigned long long)pos);
	*op = buf[pos];
	*blen = mcap_get_u64(buf + pos + 1);
	if (*blen > len - pos - MCAP_RECORD_PREFIX)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "chunk at offset %llu: %s record at %llu claims %llu bytes, %llu left",
				  (unsigned long long)where, mcap_opcode_name(*op),
				  (unsigned long long)pos, (unsigned long long)*blen,
				  (unsigned long long)(len - pos - MCAP_RECORD_PREFIX));
	return BT_OK;
}

/* The largest uncompressed size believed for a chunk storing `stored`
 * bytes with compression `c`. */
static uint64_t r_max_usize(const struct mcap_reader *r, const struct mcap_chunk *c)
{
	uint64_t cap = r->limit, stored = c->records.len;
	if (c->compression.len == 0)
		return stored < cap ? stored : cap;
	uint64_t ratio = c->compression.len == 3 ? R_LZ4_RATIO : R_ZSTD_RATIO;
	uint64_t rel = stored > UINT64_MAX / ratio ? UINT64_MAX : stored * ratio;
	if (rel < R_RATIO_FLOOR)
		rel = R_RATIO_FLOOR;
	return rel < cap ? rel : cap;
}

bt_status mcap_r_unpack(struct mcap_reader *r, const struct mcap_chunk *c, uint64_t at,
			uint8_t **out, struct bt_error *err)
{
	*out = NULL;
	uint64_t us = c->uncompressed_size, max = r_max_usize(r, c);
	if (us > max)
		return bt_err_set(err, BT_ERR_FORMAT,
				  "chunk at offset %llu declares %llu bytes uncompressed from %llu "
				  "stored (more than the %llu believed)",
				  (unsigned long long)at, (unsigned long long)us,
				  (unsigned long long)c->records.len, (unsigned long long)max);
	bt_status st = mcap_z_precheck(c->compression, c->records.p, (size_t)c->records.len, us, err);
	if (st != BT_OK)
		return err ? bt_err_prefix(err, "chunk at offset %llu", (unsigned long long)at) : st;
	uint8_t *buf = malloc(us ? (size_t)us : 1);
	if (!buf)
		return bt_err_set(err, BT_ERR_NOMEM, "MCAP reader: out of memory for a chunk of %llu",
				  (unsigned long long)us);
	st = mcap_z_decompress(r->z, c->compression, c->records.p, (size_t)c->records.len, buf,
			       (size_t)us, err);
	if (st != BT_OK) {
		free(buf);
		return err ? bt_err_prefix(err, "chunk at offset %llu", (unsigned long long)at) : st;
	}
	if (c->uncompressed_crc != 0 && mcap_crc32(0, buf, (size_t)us) != c->uncompressed_crc) {
		free(buf);
		return bt_err_set(err, BT_ERR_FORMAT, "chunk at offset %llu: CRC mismatch",
				  (unsigned long long)at);
	}
	*out = buf;
	return BT_OK;
}

/* ---- streamed read ---- */

bt_status mcap_reader_stream_begin(struct mcap_reader *r, struct bt_error *err)
{
	uint8_t m[MCAP_MAGIC_LEN];
	free(r->cbuf);
	r->cbuf = NULL;
	r->clen = r->cpos = 0;
	r->started = true;
	r->failed = r->done = r->data_done = false;
	r->data_crc = 0;
	r->pos = MCAP_MAGIC_LEN;
	bt_status st = r->size < MCAP_MAGIC_LEN ? BT_ERR_FORMAT : mcap_r_pread(r, m, sizeof m, 0, err);
	if (st == BT_OK && memcmp(m, mcap_magic, MCAP_MAGIC_LEN) != 0)
		st = BT_ERR_FORMAT;
	if (st == BT_ERR_FORMAT)
		bt_err_set(err, st, "not an MCAP file (no magic at its start)");
	if (st != BT_OK)
		r->failed = true;
	else
		r->data_crc = mcap_crc32(0, m, sizeof m);
	return st;
}

/* Prefixes *err (when there is one) with where the record was found:
 * inside the chunk at file offset `chunk` (when not 0), else in the file. */
static bt_status r_prefix(struct bt_error *err, bt_status st, uint64_t chunk, uint64_t at)
{
	if (!err)
		return st;
	if (chunk)
		return bt_err_prefix(err, "chunk at offset %llu, record at %llu",
				     (unsigned long long)chunk, (unsigned long long)at);
	return bt_err_prefix(err, "offset %llu", (unsigned long long)at);
}

static bt_status r_fail(struct mcap_reader *r, bt_status st)
{
	if (st != BT_OK)
		r->failed = true;
	return st;
}

/* The next record inside the current chunk. */
static bt_status r_next_in_chunk(struct mcap_reader *r, struct mcap_item *it,
				 struct bt_error *err)
{
	uint8_t op;
	uint64_t blen, at = r->cpos;
	bt_status st = mcap_r_frame(r->cbuf, r->clen, at, &op, &blen, r->coff, err);
	if (st != BT_OK)
		return r_fail(r, st);
	st = mcap_record_parse(op, r->cbuf + at + MCAP_RECORD_PREFIX, blen, &it->rec, err);
	if (st != BT_OK)
		return r_fail(r, r_prefix(err, st, r->coff, at));
	r->cpos += MCAP_RECORD_PREFIX + blen;
	it->offset = at;
	it->in_chunk = true;
	it->chunk_offset = r->coff;
	if (r->cpos >= r->clen) {
		/* the record's views point into cbuf: keep it until the next call */
		r->clen = r->cpos = 0;
	}
	return BT_OK;
}

static bt_status r_after_footer(struct mcap_reader *r, struct bt_error *err)
{
	uint8_t m[MCAP_MAGIC_LEN];
	if (r->size - r->pos < MCAP_MAGIC_LEN)
		return bt_err_set(err, BT_ERR_FORMAT, "no magic after the footer at offset %llu",
				  (unsigned long long)r->pos);
	bt_status st = mcap_r_pread(r, m, sizeof m, r->pos, err);
	if (st == BT_OK && memcmp(m, mcap_magic, MCAP_MAGIC_LEN) != 0)
		st = bt_err_set(err, BT_ERR_FORMAT, "no magic after the footer at offset %llu",
				(unsigned long long)r->pos);
	return st;
}

/* Checks what a top-level record means for the stream's state. */
static bt_status r_top_record(struct mcap_reader *r, struct mcap_item *it, uint64_t at,
			      struct bt_error *err)
{
	const struct mcap_record *rec = &it->rec;
	if (rec->opcode == MCAP_OP_DATA_END) {
		r->data_done = true;
		uint32_t want = rec->u.data_end.data_section_crc;
		if (want != 0 && want != r->data_crc)
			return bt_err_set(err, BT_ERR_FORMAT,
					  "data section CRC mismatch (DataEnd at offset %llu)",
					  (unsigned long long)at);
	}
	if (rec->opcode == MCAP_OP_ATTACHMENT && rec->u.attachment.crc != 0 &&
	    rec->u.attachment.crc != rec->u.attachment.crc_computed)
		return bt_err_set(err, BT_ERR_FORMAT, "attachment at offset %llu: CRC mismatch",
				  (unsigned long long)at);
	if (rec->opcode == MCAP_OP_CHUNK) {
		free(r->cbuf);
		r->cbuf = NULL;
		bt_status st = mcap_r_unpack(r, &rec->u.chunk, at, &r->cbuf, err);
		if (st != BT_OK)
			return st;
		r->clen = rec->u.chunk.uncompressed_size;
		r->cpos = 0;
		r->coff = at;
	}
	if (rec->opcode == MCAP_OP_FOOTER)
		return r_after_footer(r, err);
	return BT_OK;
}

bt_status mcap_reader_next(struct mcap_reader *r, struct mcap_item *it, bool *end,
			   struct bt_error *err)
{
	*end = false;
	if (!r->started || r->failed)
		return bt_err_set(err, BT_ERR_STATE, "MCAP reader: stream not started or failed");
	if (r->cpos < r->clen)
		return r_next_in_chunk(r, it, err);
	if (r->done) {
		*end = true;
		return BT_OK;
	}
	if (r->pos == r->size)
		return r_fail(r, bt_err_set(err, BT_ERR_FORMAT,
					    "file ends at offset %llu without a footer (truncated)",
					    (unsigned long long)r->pos));
	uint8_t op;
	uint64_t len, at = r->pos;
	bt_status st = mcap_r_read_record(r, at, &op, &len, err);
	if (st != BT_OK)
		return r_fail(r, st);
	st = mcap_record_parse(op, r->rbuf, len, &it->rec, err);
	if (st != BT_OK)
		return r_fail(r, r_prefix(err, st, 0, at));
	if (!r->data_done && op != MCAP_OP_DATA_END) {
		uint8_t pre[MCAP_RECORD_PREFIX] = {op};
		mcap_put_u64(pre + 1, len);
		r->data_crc = mcap_crc32(mcap_crc32(r->data_crc, pre, sizeof pre), r->rbuf, len);
	}
	r->pos = at + MCAP_RECORD_PREFIX + len;
	it->offset = at;
	it->in_chunk = false;
	it->chunk_offset = 0;
	st = r_top_record(r, it, at, err);
	if (st != BT_OK)
		return r_fail(r, st);
	if (op == MCAP_OP_FOOTER)
		r->done = true;
	return BT_OK;
}

bt_status mcap_reader_record_at(struct mcap_reader *r, uint64_t offset, struct mcap_record *out,
				struct bt_error *err)
{
	uint8_t op = 0; /* set when BT_OK: gcc -O3 cannot tell */
	uint64_t len = 0;
	bt_status st = mcap_r_read_record(r, offset, &op, &len, err);
	if (st == BT_OK)
		st = mcap_record_parse(op, r->rbuf, len, out, err);
	if (st == BT_OK && op == MCAP_OP_ATTACHMENT && out->u.attachment.crc != 0 &&
	    out->u.attachment.crc != out->u.attachment.crc_computed)
		st = bt_err_set(err, BT_ERR_FORMAT, "attachment at offset %llu: CRC mismatch",
				(unsigned long long)offset);
	return st;
}

/* ---- recover ---- */

static void r_recover_count(struct mcap_recovery *out, const struct mcap_record *rec,
			    const uint8_t *buf, uint64_t len)
{
	if (rec->opcode == MCAP_OP_MESSAGE)
		out->messages++;
	if (rec->opcode != MCAP_OP_CHUNK)
		return;
	out->chunks++;
	uint64_t pos = 0;
	uint8_t op = 0; /* set when BT_OK: gcc -O3 cannot tell */
	uint64_t blen = 0;
	while (pos < len && mcap_r_frame(buf, len, pos, &op, &blen, 0, NULL) == BT_OK) {
		out->messages += op == MCAP_OP_MESSAGE;
		pos += MCAP_RECORD_PREFIX + blen;
	}
}

bt_status mcap_reader_recover(struct mcap_reader *r, struct mcap_recovery *out,
			      struct bt_error *err)
{
	memset(out, 0, sizeof *out);
	bt_status st = mcap_reader_stream_begin(r, err);
	if (st != BT_OK)
		return st;
	out->good_end = MCAP_MAGIC_LEN;
	for (;;) {
		struct mcap_item it;
		bool end;
		st = mcap_reader_next(r, &it, &end, &out->why);
		if (st == BT_ERR_IO || st == BT_ERR_NOMEM) {
			*err = out->why;
			return st;
		}
		if (st != BT_OK)
			return BT_OK; /* out->why says what and where */
		if (end) {
			out->complete = true;
			return BT_OK;
		}
		if (it.in_chunk || r->data_done)
			continue;
		out->records++;
		out->good_end = r->pos;
		r_recover_count(out, &it.rec, r->cbuf, r->clen);
	}
}
