/* mcap_writer — see mcap_writer.h.
 *
 * Layout of what is kept: schemas and channels as their encoded record
 * bodies (the summary repeats them); the open chunk as a buffer of
 * uncompressed records; per channel a growing array of (log_time, offset)
 * for the chunk's message index; the summary's index groups as encoded
 * records, appended as chunks, metadata and attachments are written.
 * Small records collect in `out` and reach the file in 64 KiB writes; a
 * chunk's payload is written directly. */
#include "mcap_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bt_dio.h"
#include "bt_fs.h"
#include "bt_parse.h"
#include "bt_wbehind.h"
#include "mcap_record.h"

#define W_OUT_FLUSH (64u * 1024u)
/* While borrowing, message data of at least this many bytes is pointed at,
 * not copied: below it, a copy costs less than a writev piece. */
#define W_REF_MIN 512u
/* The chunk buffer's first size (it doubles from there). */
#define W_CHUNK_MIN (64u * 1024u)

static const uint8_t w_pad[3] = {0x01, 0xff, 0xff};

/* pending: with late_definitions, the record has not reached the file
 * yet (w_defs_prepend or w_defs_rest places it). */
struct w_schema {
	struct bt_buf body;
	bool pending;
};

struct w_channel {
	struct bt_buf body;
	bool pending;
	uint64_t count;     /* messages in the whole file */
	uint64_t *idx;      /* pairs: log_time, offset in the open chunk */
	size_t idx_n, idx_cap;
};

/* Message data the open chunk points at instead of holding a copy: `len`
 * bytes at p come after byte `at` of the chunk buffer. */
struct w_ref {
	size_t at;
	const void *p;
	size_t len;
};

/* The open chunk's records: `len` bytes at `data`, which is `gap` bytes
 * into `mem`, a BT_DIO_BLOCK-aligned allocation of `size` bytes. With
 * direct I/O the gap is room for what bt_dio has staged and the Chunk
 * record's fields, so that the whole record goes to the file from here
 * (bt_dio_write_placed) rather than through a copy into the stage. */
struct w_chunkbuf {
	uint8_t *mem;
	char *data;
	size_t gap, len, size;
};

/* A Chunk record's fields before its records when it is not compressed:
 * opcode, length, start and end time, uncompressed size and CRC, an empty
 * compression string, records length. */
#define W_CHUNK_HEAD (MCAP_RECORD_PREFIX + 8 * 3 + 4 + 4 + 8)

struct mcap_writer {
	int fd;
	/* A recorded file (write_behind): direct I/O where the file system
	 * takes it, else write-behind. */
	struct bt_dio dio;
	struct bt_wbehind wb; /* what went out, written back and dropped behind us */
	struct mcap_writer_options o;
	bool failed;
	uint64_t pos; /* file offset of the next byte (out included) */
	uint32_t data_crc;
	struct bt_buf out, rec, zbuf;
	struct w_chunkbuf chunk;
	/* The open chunk's records are `chunk` with the refs' bytes spliced
	 * in: chunk_len bytes in all (chunk.len when there are no refs). */
	uint64_t chunk_len;
	struct w_ref *refs;
	size_t n_refs, cap_refs;
	struct iovec *iov; /* 2 * cap_refs + 2: the chunk's pieces for writev
			    * (iov[0] for w_put_iov, 2 per ref, the tail) */
	bool borrowing;    /* between borrow_begin and borrow_end */
	uint64_t chunk_start, chunk_end, chunk_msgs;
	struct w_schema *schemas;
	size_t n_schemas;
	struct w_channel *channels;
	size_t n_channels;
	struct bt_buf chunk_idx, meta_idx, att_idx;
	uint64_t msg_count, msg_start, msg_end;
	uint32_t n_chunks, n_meta, n_att;
	size_t n_pending;       /* schemas and channels pending (late_definitions) */
	uint64_t pending_bytes; /* their records' bytes */
	struct mcap_z *z;
};

void mcap_writer_options_init(struct mcap_writer_options *o)
{
	memset(o, 0, sizeof *o);
	o->chunk_size = MCAP_DEFAULT_CHUNK_SIZE;
	o->compression = MCAP_COMPRESSION_NONE;
	o->level = MCAP_LEVEL_DEFAULT;
	o->no_chunk_crc = true;
}

/* ---- options from rosbag2's YAML names ---- */

struct w_bool_opt {
	const char *key;
	size_t off;
};

#define W_BOOL(k, f) {k, offsetof(struct mcap_writer_options, f)}
static const struct w_bool_opt w_bool_opts[] = {
	W_BOOL("forceCompression", force_compression),
	W_BOOL("noChunkCRC", no_chunk_crc),
	W_BOOL("noAttachmentCRC", no_attachment_crc),
	W_BOOL("enableDataCRC", enable_data_crc),
	W_BOOL("noSummaryCRC", no_summary_crc),
	W_BOOL("noChunking", no_chunking),
	W_BOOL("noMessageIndex", no_message_index),
	W_BOOL("noSummary", no_summary),
	W_BOOL("noRepeatedSchemas", no_repeated_schemas),
	W_BOOL("noRepeatedChannels", no_repeated_channels),
	W_BOOL("noAttachmentIndex", no_attachment_index),
	W_BOOL("noMetadataIndex", no_metadata_index),
	W_BOOL("noChunkIndex", no_chunk_index),
	W_BOOL("noStatistics", no_statistics),
	W_BOOL("noSummaryOffsets", no_summary_offsets),
};

static const char *const w_level_names[] = {"Fastest", "Fast", "Default", "Slow", "Slowest"};
static const char *const w_comp_names[] = {"None", "Zstd", "Lz4"};

static int w_find(const char *const *names, int n, const char *v)
{
	for (int i = 0; i < n; i++)
		if (strcmp(names[i], v) == 0)
			return i;
	return -1;
}

bt_status mcap_writer_option_set(struct mcap_writer_options *o, const char *key,
				 const char *value, struct bt_error *err)
{
	for (size_t i = 0; i < sizeof w_bool_opts / sizeof w_bool_opts[0]; i++) {
		if (strcmp(key, w_bool_opts[i].key) != 0)
			continue;
		bool *b = (bool *)((char *)o + w_bool_opts[i].off);
		if (strcmp(value, "true") == 0 || strcmp(value, "false") == 0) {
			*b = value[0] == 't';
			return BT_OK;
		}
		return bt_err_set(err, BT_ERR_USAGE, "%s: expected true or false, not '%s'", key,
				  value);
	}
	if (strcmp(key, "chunkSize") == 0) {
		if (bt_parse_u64(value, 0, UINT32_MAX, &o->chunk_size) != BT_OK)
			return bt_err_set(err, BT_ERR_USAGE,
					  "chunkSize: expected a byte count up to 4294967295, not '%s'",
					  value);
		return BT_OK;
	}
	if (strcmp(key, "compression") == 0) {
		int c = w_find(w_comp_names, 3, value);
		if (c < 0)
			return bt_err_set(err, BT_ERR_USAGE,
					  "compression: expected None, Lz4 or Zstd, not '%s'", value);
		o->compression = (enum mcap_compression)c;
		return BT_OK;
	}
	if (strcmp(key, "compressionLevel") == 0) {
		int l = w_find(w_level_names, 5, value);
		if (l < 0)
			return bt_err_set(err, BT_ERR_USAGE,
					  "compressionLevel: expected Fastest, Fast, Default, Slow or "
					  "Slowest, not '%s'",
					  value);
		o->level = (enum mcap_level)l;
		return BT_OK;
	}
	return bt_err_set(err, BT_ERR_USAGE, "unknown MCAP writer option '%s'", key);
}

static int w_level(const struct mcap_writer_options *o)
{
	static const int zstd[] = {-5, -3, 1, 5, 19};
	static const int lz4[] = {0, 0, 0, 9, 12};
	return o->compression == MCAP_COMPRESSION_ZSTD ? zstd[o->level] : lz4[o->level];
}

/* ---- output ---- */

static bt_status w_fail(struct mcap_writer *w, struct bt_error *err, int e, const char *what)
{
	w->failed = true;
	return bt_err_errno(err, e, "MCAP writer: %s", what);
}

static bt_status w_write_all(struct mcap_writer *w, const void *p, size_t n, struct bt_error *err)
{
	if (bt_dio_on(&w->dio)) {
		int e = bt_dio_write(&w->dio, p, n);
		return e ? w_fail(w, err, e, "write") : BT_OK;
	}
	const char *c = p;
	while (n > 0) {
		ssize_t k = write(w->fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return w_fail(w, err, k < 0 ? errno : EIO, "write");
		c += k;
		n -= (size_t)k;
		bt_wbehind_wrote(&w->wb, (size_t)k);
	}
	return BT_OK;
}

static bt_status w_drain(struct mcap_writer *w, struct bt_error *err)
{
	bt_status st = w_write_all(w, w->out.data, w->out.len, err);
	if (st == BT_OK)
		bt_buf_reset(&w->out);
	return st;
}

/* Writes the nv pieces at v (changed: partial writes advance them). */
static bt_status w_writev_all(struct mcap_writer *w, struct iovec *v, size_t nv,
			      struct bt_error *err)
{
	while (nv > 0 && v->iov_len == 0)
		v++, nv--;
	for (; nv > 0 && bt_dio_on(&w->dio); v++, nv--) {
		int e = bt_dio_write(&w->dio, v->iov_base, v->iov_len);
		if (e)
			return w_fail(w, err, e, "write");
	}
	while (nv > 0) {
		ssize_t k = writev(w->fd, v, nv < IOV_MAX ? (int)nv : IOV_MAX);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return w_fail(w, err, k < 0 ? errno : EIO, "write");
		bt_wbehind_wrote(&w->wb, (size_t)k);
		bt_fs_iov_advance(&v, &nv, (size_t)k);
	}
	return BT_OK;
}

/* What waits in `out`, then p: one writev, so that a large piece (a
 * chunk's records, a large message) costs one system call. */
static bt_status w_drain_with(struct mcap_writer *w, const void *p, size_t n, struct bt_error *err)
{
	struct iovec iov[2] = {{w->out.data, w->out.len}, {(void *)p, n}};
	bt_status st = w_writev_all(w, iov, 2, err);
	if (st == BT_OK)
		bt_buf_reset(&w->out);
	return st;
}

/* n bytes at p go to the file at w->pos: counted in the position and, when
 * `data` (they belong to the data section), in DataEnd's CRC. */
static void w_count(struct mcap_writer *w, const void *p, size_t n, bool data)
{
	if (data && w->o.enable_data_crc)
		w->data_crc = mcap_crc32(w->data_crc, p, n);
	w->pos += n;
}

/* Every byte of the file goes through here, in order (but a placed chunk,
 * w_chunk_placed). */
static bt_status w_put(struct mcap_writer *w, const void *p, size_t n, bool data,
		       struct bt_error *err)
{
	if (n == 0)
		return BT_OK;
	w_count(w, p, n, data);
	if (bt_dio_on(&w->dio)) /* it stages: `out` would be a second copy */
		return w_write_all(w, p, n, err);
	if (n >= W_OUT_FLUSH)
		return w_drain_with(w, p, n, err);
	if (bt_buf_append(&w->out, p, n) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "MCAP writer: out of memory");
	return w->out.len >= W_OUT_FLUSH ? w_drain(w, err) : BT_OK;
}

/* w_put of the nv pieces iov[1..nv] (iov[0] is free for `out`), in as few
 * writev calls as IOV_MAX allows. */
static bt_status w_put_iov(struct mcap_writer *w, struct iovec *iov, size_t nv, bool data,
			   struct bt_error *err)
{
	size_t n = 0;
	for (size_t i = 1; i <= nv; i++) {
		if (data && w->o.enable_data_crc && iov[i].iov_len)
			w->data_crc = mcap_crc32(w->data_crc, iov[i].iov_base, iov[i].iov_len);
		n += iov[i].iov_len;
	}
	if (n < W_OUT_FLUSH || nv == 1) {
		bt_status st = BT_OK;
		for (size_t i = 1; st == BT_OK && i <= nv; i++)
			st = w_put(w, iov[i].iov_base, iov[i].iov_len, false, err);
		return st;
	}
	w->pos += n;
	iov[0] = (struct iovec){w->out.data, w->out.len};
	bt_status st = w_writev_all(w, iov, nv + 1, err);
	if (st == BT_OK)
		bt_buf_reset(&w->out);
	return st;
}

static bt_status w_nomem(struct bt_error *err)
{
	return bt_err_set(err, BT_ERR_NOMEM, "MCAP writer: out of memory");
}

/* ---- the chunk buffer ---- */

/* Whether a chunk begun now goes to the file from its buffer: direct I/O
 * writing (not paused: then the page cache takes a large message best from
 * where it is, w_ref) and chunks not compressed. */
static bool w_placing(const struct mcap_writer *w)
{
	return bt_dio_placing(&w->dio) && w->o.compression == MCAP_COMPRESSION_NONE;
}

/* w_chunk_room's slow path: the records at `gap` in a buffer with room for
 * `extra` more bytes. */
static bt_status w_chunk_regrow(struct w_chunkbuf *c, size_t gap, size_t extra)
{
	if (extra > SIZE_MAX / 4 || c->len > SIZE_MAX / 4)
		return BT_ERR_NOMEM;
	size_t need = gap + c->len + extra;
	if (c->mem && need <= c->size) { /* only the gap changes: the chunk is empty */
		c->gap = gap;
		c->data = (char *)c->mem + gap;
		return BT_OK;
	}
	size_t size = c->size ? c->size : W_CHUNK_MIN;
	while (size < need)
		size *= 2;
	void *mem;
	if (posix_memalign(&mem, BT_DIO_BLOCK, size) != 0)
		return BT_ERR_NOMEM;
	if (c->len)
		memcpy((char *)mem + gap, c->data, c->len);
	free(c->mem);
	*c = (struct w_chunkbuf){mem, (char *)mem + gap, gap, c->len, size};
	return BT_OK;
}

/* Room for `extra` more bytes after the open chunk's records; an empty
 * chunk's records are placed first: after room for what bt_dio has staged
 * and the Chunk record's fields when it is to be written from here. */
static inline bt_status w_chunk_room(struct mcap_writer *w, size_t extra)
{
	struct w_chunkbuf *c = &w->chunk;
	size_t gap = c->gap;
	if (w->chunk_len == 0)
		gap = w_placing(w) ? bt_dio_staged(&w->dio) + W_CHUNK_HEAD : 0;
	if (c->mem && gap == c->gap && c->size - gap - c->len >= extra)
		return BT_OK;
	return w_chunk_regrow(c, gap, extra);
}

/* Appends to `b` a record: opcode, length, body, and the test padding when
 * asked (`pad`). */
static bt_status w_record(struct bt_buf *b, uint8_t op, const struct bt_buf *body, bool pad)
{
	size_t mark, old = b->len;
	bt_status st = mcap_enc_begin(b, op, &mark);
	if (st == BT_OK)
		st = bt_buf_append(b, body->data, body->len);
	if (st == BT_OK && pad)
		st = bt_buf_append(b, w_pad, sizeof w_pad);
	if (st != BT_OK) {
		b->len = old;
		return st;
	}
	mcap_enc_end(b, mark);
	return BT_OK;
}

/* Writes the record in w->rec (a body) to the file as opcode `op`. */
static bt_status w_emit_rec(struct mcap_writer *w, uint8_t op, bool data, struct bt_error *err)
{
	uint8_t pre[MCAP_RECORD_PREFIX];
	size_t pad = w->o.test_pad_records ? sizeof w_pad : 0;
	pre[0] = op;
	mcap_put_u64(pre + 1, (uint64_t)(w->rec.len + pad));
	bt_status st = w_put(w, pre, sizeof pre, data, err);
	if (st == BT_OK)
		st = w_put(w, w->rec.data, w->rec.len, data, err);
	if (st == BT_OK && pad)
		st = w_put(w, w_pad, pad, data, err);
	return st;
}

static bt_status w_check(struct mcap_writer *w, struct bt_error *err)
{
	if (w->failed)
		return bt_err_set(err, BT_ERR_STATE, "MCAP writer: an earlier write failed");
	return BT_OK;
}

/* ---- open ---- */

static bt_status w_header(struct mcap_writer *w, const char *profile, const char *library,
			  struct bt_error *err)
{
	bt_buf_reset(&w->rec);
	if (mcap_enc_str(&w->rec, profile, strlen(profile)) != BT_OK ||
	    mcap_enc_str(&w->rec, library, strlen(library)) != BT_OK)
		return w_nomem(err);
	bt_status st = w_put(w, mcap_magic, MCAP_MAGIC_LEN, true, err);
	return st != BT_OK ? st : w_emit_rec(w, MCAP_OP_HEADER, true, err);
}

bt_status mcap_writer_open_fd(struct mcap_writer **out, int fd, const struct mcap_writer_options *o,
			      const char *profile, const char *library, struct bt_error *err)
{
	*out = NULL;
	struct mcap_writer *w = calloc(1, sizeof *w);
	if (!w) {
		close(fd);
		return w_nomem(err);
	}
	w->fd = fd;
	/* where direct I/O is refused, the page cache with write-behind */
	bool direct = o->write_behind && bt_dio_start(&w->dio, fd, o->test_dio_force) == 0;
	bt_wbehind_init(&w->wb, o->write_behind && !direct ? fd : -1, 0);
	w->o = *o;
	if (w->o.compression != MCAP_COMPRESSION_NONE && !(w->z = mcap_z_new())) {
		mcap_writer_abandon(w);
		return w_nomem(err);
	}
	bt_status st = w_header(w, profile, library, err);
	if (st != BT_OK) {
		mcap_writer_abandon(w);
		return st;
	}
	*out = w;
	return BT_OK;
}

bt_status mcap_writer_open(struct mcap_writer **out, const char *path,
			   const struct mcap_writer_options *o, const char *profile,
			   const char *library, struct bt_error *err)
{
	*out = NULL;
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return bt_err_errno(err, errno, "cannot create %s", path);
	return mcap_writer_open_fd(out, fd, o, profile, library, err);
}

void mcap_writer_abandon(struct mcap_writer *w)
{
	if (!w)
		return;
	if (w->fd >= 0) {
		bt_dio_end(&w->dio); /* what was written stays; the padding goes */
		close(w->fd);
	}
	for (size_t i = 0; i < w->n_schemas; i++)
		bt_buf_fini(&w->schemas[i].body);
	for (size_t i = 0; i < w->n_channels; i++) {
		bt_buf_fini(&w->channels[i].body);
		free(w->channels[i].idx);
	}
	free(w->schemas);
	free(w->channels);
	free(w->refs);
	free(w->iov);
	free(w->chunk.mem);
	struct bt_buf *bufs[] = {&w->out, &w->rec, &w->zbuf,
				 &w->chunk_idx, &w->meta_idx, &w->att_idx};
	for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
		bt_buf_fini(bufs[i]);
	mcap_z_free(w->z);
	free(w);
}

uint64_t mcap_writer_bytes(const struct mcap_writer *w)
{
	return w->pos;
}

uint64_t mcap_writer_chunk_bytes(const struct mcap_writer *w)
{
	return w->chunk_len + w->pending_bytes;
}

uint64_t mcap_writer_chunk_messages(const struct mcap_writer *w)
{
	return w->chunk_msgs;
}

struct mcap_writer_dio_counts mcap_writer_dio_counts(const struct mcap_writer *w)
{
	return (struct mcap_writer_dio_counts){w->dio.n_placed, w->dio.n_paused};
}

/* ---- schemas and channels ---- */

/* Appends `n` bytes of records at the open chunk's end, with room kept
 * for what is lent (borrow_end). */
static bt_status w_chunk_append(struct mcap_writer *w, const void *p, size_t n,
				struct bt_error *err)
{
	size_t lent = (size_t)w->chunk_len - w->chunk.len;
	if (w_chunk_room(w, lent + n) != BT_OK)
		return w_nomem(err);
	memcpy(w->chunk.data + w->chunk.len, p, n);
	w->chunk.len += n;
	w->chunk_len += n;
	return BT_OK;
}

/* `n` bytes of schema and channel records where a reader meets them before
 * the messages that need them: into the open chunk when chunking, else
 * into the file. */
static bt_status w_defs_put(struct mcap_writer *w, const void *p, size_t n, struct bt_error *err)
{
	return w->o.no_chunking ? w_put(w, p, n, true, err) : w_chunk_append(w, p, n, err);
}

/* A schema or channel record goes where w_defs_put puts it, or with
 * late_definitions waits (*pending; see w_pending_take). */
static bt_status w_def(struct mcap_writer *w, uint8_t op, const struct bt_buf *body,
		       bool *pending, struct bt_error *err)
{
	if (w->o.late_definitions) {
		*pending = true;
		w->n_pending++;
		w->pending_bytes += MCAP_RECORD_PREFIX + body->len;
		return BT_OK;
	}
	struct bt_buf rec = BT_BUF_INIT;
	bool pad = w->o.no_chunking && w->o.test_pad_records;
	bt_status st = w_record(&rec, op, body, pad) == BT_OK ? w_defs_put(w, rec.data, rec.len, err)
							    : w_nomem(err);
	bt_buf_fini(&rec);
	return st;
}

/* Room for one more element (`size` bytes, zeroed) after the n of *arr:
 * the new element, or NULL when out of memory (*arr as it was). */
static void *w_grow_one(void **arr, size_t n, size_t size)
{
	char *grown = realloc(*arr, (n + 1) * size);
	if (grown == NULL)
		return NULL;
	*arr = grown;
	memset(grown + n * size, 0, size);
	return grown + n * size;
}

/* Ends adding a schema or channel: `body`, element *n of its array, was
 * encoded (`encoded`) or is dropped (out of memory). Counts it, gives its id
 * (its 1-based place) and writes its record (w_def). */
static bt_status w_def_add(struct mcap_writer *w, uint8_t op, struct bt_buf *body, bool encoded,
			   bool *pending, size_t *n, uint16_t *id, struct bt_error *err)
{
	if (!encoded) {
		bt_buf_fini(body);
		return w_nomem(err);
	}
	*id = (uint16_t)++*n;
	return w_def(w, op, body, pending, err);
}

/* ---- late definitions ---- */

/* Appends to `out` a pending record (and counts it written). */
static bt_status w_pending_rec(struct mcap_writer *w, uint8_t op, const struct bt_buf *body,
			       bool *pending, struct bt_buf *out)
{
	if (!*pending)
		return BT_OK;
	bool pad = w->o.no_chunking && w->o.test_pad_records;
	if (w_record(out, op, body, pad) != BT_OK)
		return BT_ERR_NOMEM;
	*pending = false;
	w->n_pending--;
	w->pending_bytes -= MCAP_RECORD_PREFIX + body->len;
	return BT_OK;
}

/* Appends to `out` channel c's record when pending, its schema's first
 * when that is pending too. */
static bt_status w_pending_take(struct mcap_writer *w, struct w_channel *c, struct bt_buf *out)
{
	uint16_t sid = mcap_get_u16((const uint8_t *)c->body.data + 2);
	bt_status st = BT_OK;
	if (sid != 0)
		st = w_pending_rec(w, MCAP_OP_SCHEMA, &w->schemas[sid - 1].body,
				   &w->schemas[sid - 1].pending, out);
	return st == BT_OK ? w_pending_rec(w, MCAP_OP_CHANNEL, &c->body, &c->pending, out) : st;
}

/* Out of memory taking pending records: some are no longer pending and
 * were not written, so nothing more may be. */
static bt_status w_pending_lost(struct mcap_writer *w, struct bt_buf *d, struct bt_error *err)
{
	bt_buf_fini(d);
	w->failed = true;
	return w_nomem(err);
}

/* Before the open chunk is written: the pending records of the channels
 * with messages (all of them in this chunk, as none was written before)
 * go in at its start, so that any reader, seeking or streaming, meets them
 * before those messages; the records after them, the refs and the message
 * indexes move up by as much. A chunk does this once per new channel. */
static bt_status w_defs_prepend(struct mcap_writer *w, struct bt_error *err)
{
	struct bt_buf d = BT_BUF_INIT;
	for (size_t i = 0; w->n_pending > 0 && i < w->n_channels; i++)
		if (w->channels[i].count > 0 && w_pending_take(w, &w->channels[i], &d) != BT_OK)
			return w_pending_lost(w, &d, err);
	size_t p = d.len, lent = (size_t)w->chunk_len - w->chunk.len;
	if (p == 0)
		return BT_OK;
	if (w_chunk_room(w, lent + p) != BT_OK)
		return w_pending_lost(w, &d, err);
	char *b = w->chunk.data;
	memmove(b + p, b, w->chunk.len);
	memcpy(b, d.data, p);
	bt_buf_fini(&d);
	w->chunk.len += p;
	w->chunk_len += p;
	for (size_t i = 0; i < w->n_refs; i++)
		w->refs[i].at += p;
	for (size_t i = 0; i < w->n_channels; i++)
		for (size_t k = 0; k < w->channels[i].idx_n; k++)
			w->channels[i].idx[2 * k + 1] += p;
	return BT_OK;
}

/* With noChunking, before c's first message: its pending records. At the
 * end of the data section (c NULL): every record still pending, the
 * channels' (no messages) and the schemas no channel uses. */
static bt_status w_defs_rest(struct mcap_writer *w, struct w_channel *c, struct bt_error *err)
{
	struct bt_buf d = BT_BUF_INIT;
	bt_status st = BT_OK;
	for (size_t i = 0; w->n_pending > 0 && st == BT_OK && i < w->n_channels; i++)
		if (c == NULL || c == &w->channels[i])
			st = w_pending_take(w, &w->channels[i], &d);
	for (size_t i = 0; !c && w->n_pending > 0 && st == BT_OK && i < w->n_schemas; i++)
		st = w_pending_rec(w, MCAP_OP_SCHEMA, &w->schemas[i].body, &w->schemas[i].pending,
				   &d);
	if (st != BT_OK)
		return w_pending_lost(w, &d, err);
	st = d.len ? w_defs_put(w, d.data, d.len, err) : BT_OK;
	bt_buf_fini(&d);
	return st;
}

bt_status mcap_writer_add_schema(struct mcap_writer *w, const char *name, const char *encoding,
				 const void *data, size_t len, uint16_t *id, struct bt_error *err)
{
	bt_status st = w_check(w, err);
	if (st != BT_OK)
		return st;
	if (w->n_schemas >= UINT16_MAX || len > UINT32_MAX)
		return bt_err_set(err, BT_ERR_TOOBIG, "MCAP writer: too many schemas or too large");
	struct w_schema *s = w_grow_one((void **)&w->schemas, w->n_schemas, sizeof *s);
	if (s == NULL)
		return w_nomem(err);
	bool encoded = mcap_enc_u16(&s->body, (uint16_t)(w->n_schemas + 1)) == BT_OK &&
		       mcap_enc_str(&s->body, name, strlen(name)) == BT_OK &&
		       mcap_enc_str(&s->body, encoding, strlen(encoding)) == BT_OK &&
		       mcap_enc_str(&s->body, data, len) == BT_OK;
	return w_def_add(w, MCAP_OP_SCHEMA, &s->body, encoded, &s->pending, &w->n_schemas, id,
			 err);
}

bt_status mcap_writer_update_schema(struct mcap_writer *w, uint16_t id, const char *encoding,
				    const void *data, size_t len, bool *updated,
				    struct bt_error *err)
{
	*updated = false;
	bt_status st = w_check(w, err);
	if (st != BT_OK)
		return st;
	if (id == 0 || id > w->n_schemas)
		return bt_err_set(err, BT_ERR_USAGE, "MCAP writer: no schema %u", id);
	struct w_schema *s = &w->schemas[id - 1];
	if (!s->pending)
		return BT_OK;
	if (len > UINT32_MAX)
		return bt_err_set(err, BT_ERR_TOOBIG, "MCAP writer: schema too large");
	/* The body keeps its id and name: 2 bytes, then a u32 length and the name. */
	size_t keep = 6 + mcap_get_u32((const uint8_t *)s->body.data + 2);
	struct bt_buf body = BT_BUF_INIT;
	if (bt_buf_append(&body, s->body.data, keep) != BT_OK ||
	    mcap_enc_str(&body, encoding, strlen(encoding)) != BT_OK ||
	    mcap_enc_str(&body, data, len) != BT_OK) {
		bt_buf_fini(&body);
		return w_nomem(err);
	}
	w->pending_bytes += body.len;
	w->pending_bytes -= s->body.len;
	bt_buf_fini(&s->body);
	s->body = body;
	*updated = true;
	return BT_OK;
}

bt_status mcap_writer_add_channel(struct mcap_writer *w, const char *topic,
				  const char *message_encoding, uint16_t schema_id,
				  const char *const *meta, size_t n_meta, uint16_t *id,
				  struct bt_error *err)
{
	bt_status st = w_check(w, err);
	if (st != BT_OK)
		return st;
	if (schema_id > w->n_schemas)
		return bt_err_set(err, BT_ERR_USAGE, "MCAP writer: no schema %u", schema_id);
	if (w->n_channels >= UINT16_MAX)
		return bt_err_set(err, BT_ERR_TOOBIG, "MCAP writer: too many channels");
	struct w_channel *c = w_grow_one((void **)&w->channels, w->n_channels, sizeof *c);
	if (c == NULL)
		return w_nomem(err);
	bool encoded = mcap_enc_u16(&c->body, (uint16_t)(w->n_channels + 1)) == BT_OK &&
		       mcap_enc_u16(&c->body, schema_id) == BT_OK &&
		       mcap_enc_str(&c->body, topic, strlen(topic)) == BT_OK &&
		       mcap_enc_str(&c->body, message_encoding, strlen(message_encoding)) == BT_OK &&
		       mcap_enc_map_str(&c->body, meta, n_meta) == BT_OK;
	return w_def_add(w, MCAP_OP_CHANNEL, &c->body, encoded, &c->pending, &w->n_channels, id,
			 err);
}

/* ---- chunks ---- */

/* Channel id's Message Index record: c's (log_time, offset) pairs. On a
 * little-endian host they are already the record's entries, so they go
 * out as they are (w_put: into `out`, or straight to the file when large)
 * instead of being encoded into `rec` and copied again. */
static bt_status w_emit_index(struct mcap_writer *w, uint16_t id, const struct w_channel *c,
			      struct bt_error *err)
{
	size_t n = c->idx_n;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (!w->o.test_pad_records) {
		uint8_t pre[MCAP_RECORD_PREFIX + 2 + 4];
		pre[0] = MCAP_OP_MESSAGE_INDEX;
		mcap_put_u64(pre + 1, 2 + 4 + (uint64_t)n * 16);
		pre[9] = (uint8_t)id;
		pre[10] = (uint8_t)(id >> 8);
		mcap_put_u32(pre + 11, (uint32_t)(n * 16));
		bt_status st = w_put(w, pre, sizeof pre, true, err);
		return st != BT_OK ? st : w_put(w, c->idx, n * 16, true, err);
	}
#endif
	bt_buf_reset(&w->rec);
	if (mcap_enc_u16(&w->rec, id) != BT_OK || mcap_enc_u32(&w->rec, (uint32_t)(n * 16)) != BT_OK ||
	    bt_buf_reserve(&w->rec, n * 16) != BT_OK)
		return w_nomem(err);
	for (size_t k = 0; k < 2 * n; k++)
		mcap_put_u64((uint8_t *)w->rec.data + w->rec.len + 8 * k, c->idx[k]);
	w->rec.len += n * 16;
	return w_emit_rec(w, MCAP_OP_MESSAGE_INDEX, true, err);
}

static bt_status w_message_indexes(struct mcap_writer *w, struct bt_buf *offsets, uint64_t *total,
				   struct bt_error *err)
{
	*total = 0;
	for (size_t i = 0; i < w->n_channels; i++) {
		struct w_channel *c = &w->channels[i];
		if (c->idx_n == 0)
			continue;
		uint64_t at = w->pos;
		bt_status st = w_emit_index(w, (uint16_t)(i + 1), c, err);
		if (st != BT_OK)
			return st;
		*total += w->pos - at;
		if (mcap_enc_u16(offsets, (uint16_t)(i + 1)) != BT_OK || mcap_enc_u64(offsets, at) != BT_OK)
			return w_nomem(err);
		c->idx_n = 0;
	}
	return BT_OK;
}

static bt_status w_chunk_index(struct mcap_writer *w, uint64_t start, uint64_t length,
			       const struct bt_buf *offsets, uint64_t mi_len, const char *comp,
			       uint64_t csize, uint64_t usize, struct bt_error *err)
{
	if (w->o.no_summary || w->o.no_chunk_index)
		return BT_OK;
	bt_buf_reset(&w->rec);
	struct bt_buf *b = &w->rec;
	bool ok = mcap_enc_u64(b, w->chunk_start) == BT_OK && mcap_enc_u64(b, w->chunk_end) == BT_OK &&
		  mcap_enc_u64(b, start) == BT_OK && mcap_enc_u64(b, length) == BT_OK &&
		  mcap_enc_u32(b, (uint32_t)offsets->len) == BT_OK &&
		  bt_buf_append(b, offsets->data, offsets->len) == BT_OK &&
		  mcap_enc_u64(b, mi_len) == BT_OK && mcap_enc_str(b, comp, strlen(comp)) == BT_OK &&
		  mcap_enc_u64(b, csize) == BT_OK && mcap_enc_u64(b, usize) == BT_OK;
	if (!ok || w_record(&w->chunk_idx, MCAP_OP_CHUNK_INDEX, b, w->o.test_pad_records) != BT_OK)
		return w_nomem(err);
	return BT_OK;
}

/* Compresses the open chunk into zbuf when asked and worth it; returns the
 * bytes to store and their compression name. */
static bt_status w_compress(struct mcap_writer *w, const void **p, size_t *n, const char **comp,
			    struct bt_error *err)
{
	*p = w->chunk.data;
	*n = w->chunk.len;
	*comp = "";
	if (w->o.compression == MCAP_COMPRESSION_NONE)
		return BT_OK;
	bt_status st = mcap_z_compress(w->z, w->o.compression, w_level(&w->o), w->chunk.data,
				       w->chunk.len, &w->zbuf, err);
	if (st != BT_OK)
		return st;
	if (w->zbuf.len < w->chunk.len || w->o.force_compression) {
		*p = w->zbuf.data;
		*n = w->zbuf.len;
		*comp = mcap_compression_name(w->o.compression);
	}
	return BT_OK;
}

/* The open chunk's records as pieces iov[1..*nv]: the buffer's bytes with
 * the refs' bytes between them. */
static void w_chunk_pieces(struct mcap_writer *w, size_t *nv)
{
	size_t k = 1, from = 0;
	for (size_t i = 0; i < w->n_refs; i++) {
		const struct w_ref *r = &w->refs[i];
		w->iov[k++] = (struct iovec){w->chunk.data + from, r->at - from};
		w->iov[k++] = (struct iovec){(void *)r->p, r->len};
		from = r->at;
	}
	w->iov[k] = (struct iovec){w->chunk.data + from, w->chunk.len - from};
	*nv = k;
}

static uint32_t w_pieces_crc(const struct iovec *iov, size_t nv)
{
	uint32_t crc = 0;
	for (size_t i = 1; i <= nv; i++)
		if (iov[i].iov_len) /* crc32(crc, NULL, 0) would restart it */
			crc = mcap_crc32(crc, iov[i].iov_base, iov[i].iov_len);
	return crc;
}

/* Adds n messages logged from `start` to `end` to the *count messages of
 * a range [*lo, *hi] (the file's or the open chunk's). */
static inline void w_span_add(uint64_t *lo, uint64_t *hi, uint64_t *count, uint64_t start,
			      uint64_t end, uint64_t n)
{
	if (*count == 0 || start < *lo)
		*lo = start;
	if (*count == 0 || end > *hi)
		*hi = end;
	*count += n;
}

/* The file's message statistics take the closing chunk's in one step,
 * not per message. */
static void w_chunk_fold(struct mcap_writer *w)
{
	if (w->chunk_msgs != 0)
		w_span_add(&w->msg_start, &w->msg_end, &w->msg_count, w->chunk_start,
			   w->chunk_end, w->chunk_msgs);
}

static void w_chunk_reset(struct mcap_writer *w)
{
	w_chunk_fold(w);
	w->n_chunks++;
	w->chunk.len = 0;
	w->chunk_len = 0;
	w->n_refs = 0;
	w->chunk_msgs = 0;
	w->chunk_start = w->chunk_end = 0;
}

/* A Chunk record's fields up to its compression string, at q. */
static void w_chunk_fields(uint8_t *q, const struct mcap_writer *w, size_t clen, uint64_t csize,
			   uint32_t crc)
{
	*q++ = MCAP_OP_CHUNK;
	mcap_put_u64(q, 8 * 3 + 4 + 4 + clen + 8 + csize);
	mcap_put_u64(q + 8, w->chunk_start);
	mcap_put_u64(q + 16, w->chunk_end);
	mcap_put_u64(q + 24, w->chunk_len);
	mcap_put_u32(q + 32, crc);
	mcap_put_u32(q + 36, (uint32_t)clen);
}

/* The open chunk, not compressed and held whole in its buffer after room
 * for its fields and bt_dio's staged bytes (w_chunk_room), to the file
 * from there. */
static bt_status w_chunk_placed(struct mcap_writer *w, uint32_t crc, struct bt_error *err)
{
	struct w_chunkbuf *c = &w->chunk;
	uint8_t *q = (uint8_t *)c->data - W_CHUNK_HEAD;
	w_chunk_fields(q, w, 0, c->len, crc);
	mcap_put_u64(q + W_CHUNK_HEAD - 8, c->len);
	size_t n = W_CHUNK_HEAD + c->len;
	w_count(w, q, n, true);
	int e = bt_dio_write_placed(&w->dio, c->mem, c->gap - W_CHUNK_HEAD, n);
	return e ? w_fail(w, err, e, "write") : BT_OK;
}

/* The open chunk to the file: from its buffer where it was placed for
 * that, else its fields, then its records (the refs' bytes from where they
 * are: no compression then). */
static bt_status w_chunk_records(struct mcap_writer *w, struct bt_error *err, const char **comp,
				 uint64_t *csize)
{
	size_t nv = 1;
	*comp = "";
	struct iovec one[2];
	struct iovec *iov = one;
	bt_status st = BT_OK;
	if (w->n_refs) {
		w_chunk_pieces(w, &nv);
		iov = w->iov;
	} else {
		const void *p;
		size_t n;
		st = w_compress(w, &p, &n, comp, err);
		if (st != BT_OK)
			return st;
		one[1] = (struct iovec){(void *)p, n};
	}
	*csize = 0;
	for (size_t i = 1; i <= nv; i++)
		*csize += iov[i].iov_len;
	uint32_t crc = 0;
	if (!w->o.no_chunk_crc)
		crc = **comp ? mcap_crc32(0, w->chunk.data, w->chunk.len) : w_pieces_crc(iov, nv);
	if (!w->n_refs && !**comp && w->chunk.gap >= W_CHUNK_HEAD)
		return w_chunk_placed(w, crc, err);
	size_t clen = strlen(*comp);
	uint8_t pre[W_CHUNK_HEAD];
	w_chunk_fields(pre, w, clen, *csize, crc);
	st = w_put(w, pre, W_CHUNK_HEAD - 8, true, err);
	if (st == BT_OK && clen)
		st = w_put(w, *comp, clen, true, err);
	mcap_put_u64(pre, *csize);
	if (st == BT_OK)
		st = w_put(w, pre, 8, true, err);
	return st == BT_OK ? w_put_iov(w, iov, nv, true, err) : st;
}

/* Writes the open chunk, its message indexes and its chunk index entry. */
static bt_status w_chunk_close(struct mcap_writer *w, struct bt_error *err)
{
	if (w->chunk_len == 0)
		return BT_OK;
	bt_status st = w->n_pending ? w_defs_prepend(w, err) : BT_OK;
	if (st != BT_OK)
		return st;
	uint64_t start = w->pos, csize;
	const char *comp;
	st = w_chunk_records(w, err, &comp, &csize);
	if (st != BT_OK)
		return st;
	uint64_t length = w->pos - start, mi_len = 0;
	struct bt_buf offsets = BT_BUF_INIT;
	if (!w->o.no_message_index)
		st = w_message_indexes(w, &offsets, &mi_len, err);
	if (st == BT_OK)
		st = w_chunk_index(w, start, length, &offsets, mi_len, comp, csize, w->chunk_len,
				   err);
	bt_buf_fini(&offsets);
	w_chunk_reset(w);
	return st;
}

/* Room for one more ref (and its writev pieces). */
static bt_status w_ref_room(struct mcap_writer *w)
{
	if (w->n_refs < w->cap_refs)
		return BT_OK;
	size_t cap = w->cap_refs ? 2 * w->cap_refs : 64;
	struct w_ref *r = realloc(w->refs, cap * sizeof *r);
	if (!r)
		return BT_ERR_NOMEM;
	w->refs = r;
	struct iovec *v = realloc(w->iov, (2 * cap + 2) * sizeof *v);
	if (!v)
		return BT_ERR_NOMEM;
	w->iov = v;
	w->cap_refs = cap;
	return BT_OK;
}

/* Grows c's message index by one entry's room at least. */
static bt_status w_index_grow(struct w_channel *c)
{
	size_t cap = c->idx_cap ? 2 * c->idx_cap : 1024;
	uint64_t *g = realloc(c->idx, cap * 2 * sizeof *g);
	if (!g)
		return BT_ERR_NOMEM;
	c->idx = g;
	c->idx_cap = cap;
	return BT_OK;
}

static void w_stats(struct mcap_writer *w, struct w_channel *c, uint64_t log_time)
{
	w_span_add(&w->msg_start, &w->msg_end, &w->msg_count, log_time, log_time, 1);
	c->count++;
}

/* A Message record's opcode, length and fields up to its data. */
#define W_MSG_PRE (MCAP_RECORD_PREFIX + 22)

static inline void w_msg_pre(uint8_t *q, uint16_t channel_id, uint32_t sequence,
			     uint64_t log_time, uint64_t publish_time, size_t len)
{
	q[0] = MCAP_OP_MESSAGE;
	mcap_put_u64(q + 1, 22 + (uint64_t)len);
	q[9] = (uint8_t)channel_id;
	q[10] = (uint8_t)(channel_id >> 8);
	mcap_put_u32(q + 11, sequence);
	mcap_put_u64(q + 15, log_time);
	mcap_put_u64(q + 23, publish_time);
}

/* noChunking: the record straight to the output. */
static bt_status w_write_loose(struct mcap_writer *w, struct w_channel *c, const uint8_t *pre,
			       const void *data, size_t len, uint64_t log_time,
			       struct bt_error *err)
{
	bt_status st = w_put(w, pre, W_MSG_PRE, true, err);
	if (st == BT_OK)
		st = w_put(w, data, len, true, err);
	if (st == BT_OK)
		w_stats(w, c, log_time);
	return st;
}

/* The per-message path is kept to one bounds check per buffer, the
 * record header written in place, one copy of the data (or a ref) and
 * one index entry; the file-level statistics are folded per chunk. */
bt_status mcap_writer_write(struct mcap_writer *w, uint16_t channel_id, uint32_t sequence,
			    uint64_t log_time, uint64_t publish_time, const void *data, size_t len,
			    struct bt_error *err)
{
	if (w->failed)
		return w_check(w, err);
	if (channel_id == 0 || channel_id > w->n_channels)
		return bt_err_set(err, BT_ERR_USAGE, "MCAP writer: no channel %u", channel_id);
	struct w_channel *c = &w->channels[channel_id - 1];
	if (w->o.no_chunking) {
		bt_status st = c->pending ? w_defs_rest(w, c, err) : BT_OK;
		if (st != BT_OK)
			return st;
		uint8_t pre[W_MSG_PRE];
		w_msg_pre(pre, channel_id, sequence, log_time, publish_time, len);
		return w_write_loose(w, c, pre, data, len, log_time, err);
	}
	/* Data is pointed at, not copied, when the chunk is not compressed
	 * and either the caller lends it (borrowing) or it is a large message
	 * that fills the chunk: the chunk is closed after it in this call,
	 * and the file is the same. Where the chunk goes to the file from its
	 * buffer (w_placing) this copy is the only one, so it is made, but for
	 * a message larger than direct I/O's stage: the chunk buffer does not
	 * grow to its size (bt_dio copies it, as much). */
	uint64_t off = w->chunk_len, grown = off + W_MSG_PRE + len;
	bool plain = w->o.compression == MCAP_COMPRESSION_NONE, placing = w_placing(w);
	bool through = plain && len >= W_OUT_FLUSH && grown >= w->o.chunk_size &&
		       (!placing || len > BT_DIO_STAGE);
	bool ref = through || (plain && !placing && w->borrowing && len >= W_REF_MIN);
	/* Room for every byte of the chunk, lent ones included, so that
	 * borrow_end can copy them in without allocating. */
	size_t room = through ? W_MSG_PRE : (size_t)(grown - w->chunk.len);
	bool index = !w->o.no_message_index;
	if (w_chunk_room(w, room) != BT_OK ||
	    (ref && w_ref_room(w) != BT_OK) ||
	    (index && c->idx_n == c->idx_cap && w_index_grow(c) != BT_OK))
		return w_nomem(err); /* nothing appended yet: the chunk is unchanged */
	uint8_t *q = (uint8_t *)w->chunk.data + w->chunk.len;
	w_msg_pre(q, channel_id, sequence, log_time, publish_time, len);
	w->chunk.len += W_MSG_PRE;
	if (ref)
		w->refs[w->n_refs++] = (struct w_ref){w->chunk.len, data, len};
	else if (len)
		memcpy(q + W_MSG_PRE, data, len);
	w->chunk.len += ref ? 0 : len;
	w->chunk_len = grown;
	if (index) {
		c->idx[2 * c->idx_n] = log_time;
		c->idx[2 * c->idx_n + 1] = off;
		c->idx_n++;
	}
	w_span_add(&w->chunk_start, &w->chunk_end, &w->chunk_msgs, log_time, log_time, 1);
	c->count++;
	return w->chunk_len >= w->o.chunk_size ? w_chunk_close(w, err) : BT_OK;
}

void mcap_writer_borrow_begin(struct mcap_writer *w)
{
	w->borrowing = true;
}

/* Copies the lent bytes into the chunk buffer, in place from the end
 * (each piece moves right, to where it belongs): the room was reserved. */
void mcap_writer_borrow_end(struct mcap_writer *w)
{
	w->borrowing = false;
	if (w->n_refs == 0)
		return;
	/* After a failed write nothing more is written: forget them. (Without
	 * the room, a chunk close failed half-way: the same.) */
	if (w->failed || w->chunk.size - w->chunk.gap < w->chunk_len) {
		w->failed = true;
		w->n_refs = 0;
		return;
	}
	char *b = w->chunk.data;
	size_t src = w->chunk.len, dst = (size_t)w->chunk_len;
	for (size_t i = w->n_refs; i-- > 0;) {
		const struct w_ref *r = &w->refs[i];
		size_t tail = src - r->at;
		memmove(b + dst - tail, b + r->at, tail);
		dst -= tail;
		memcpy(b + dst - r->len, r->p, r->len);
		dst -= r->len;
		src = r->at;
	}
	w->chunk.len = (size_t)w->chunk_len;
	w->n_refs = 0;
}

/* ---- metadata and attachments ---- */

/* Writes the record in w->rec (op) to the file and counts it in *count;
 * then, when the summary has this index (not no_index), *indexed is true
 * and w->rec holds the start of its index entry: the record's offset and
 * length. */
static bt_status w_emit_indexed(struct mcap_writer *w, uint8_t op, uint32_t *count, bool no_index,
				bool *indexed, struct bt_error *err)
{
	uint64_t at = w->pos;
	bt_status st = w_emit_rec(w, op, true, err);
	if (st != BT_OK)
		return st;
	++*count;
	*indexed = !w->o.no_summary && !no_index;
	if (!*indexed)
		return BT_OK;
	bt_buf_reset(&w->rec);
	if (mcap_enc_u64(&w->rec, at) != BT_OK || mcap_enc_u64(&w->rec, w->pos - at) != BT_OK)
		return w_nomem(err);
	return BT_OK;
}

bt_status mcap_writer_add_metadata(struct mcap_writer *w, const char *name, const char *const *kv,
				   size_t n, struct bt_error *err)
{
	bt_status st = w_check(w, err);
	if (st != BT_OK)
		return st;
	bt_buf_reset(&w->rec);
	if (mcap_enc_str(&w->rec, name, strlen(name)) != BT_OK ||
	    mcap_enc_map_str(&w->rec, kv, n) != BT_OK)
		return w_nomem(err);
	bool indexed;
	st = w_emit_indexed(w, MCAP_OP_METADATA, &w->n_meta, w->o.no_metadata_index, &indexed, err);
	if (st != BT_OK || !indexed)
		return st;
	if (mcap_enc_str(&w->rec, name, strlen(name)) != BT_OK ||
	    w_record(&w->meta_idx, MCAP_OP_METADATA_INDEX, &w->rec, w->o.test_pad_records) != BT_OK)
		return w_nomem(err);
	return BT_OK;
}

bt_status mcap_writer_add_attachment(struct mcap_writer *w, uint64_t log_time, uint64_t create_time,
				     const char *name, const char *media_type, const void *data,
				     size_t len, struct bt_error *err)
{
	bt_status st = w_check(w, err);
	if (st != BT_OK)
		return st;
	struct bt_buf *b = &w->rec;
	bt_buf_reset(b);
	if (mcap_enc_u64(b, log_time) != BT_OK || mcap_enc_u64(b, create_time) != BT_OK ||
	    mcap_enc_str(b, name, strlen(name)) != BT_OK ||
	    mcap_enc_str(b, media_type, strlen(media_type)) != BT_OK ||
	    mcap_enc_u64(b, len) != BT_OK || bt_buf_append(b, data, len) != BT_OK)
		return w_nomem(err);
	uint32_t crc = w->o.no_attachment_crc ? 0 : mcap_crc32(0, b->data, b->len);
	if (mcap_enc_u32(b, crc) != BT_OK)
		return w_nomem(err);
	bool indexed;
	st = w_emit_indexed(w, MCAP_OP_ATTACHMENT, &w->n_att, w->o.no_attachment_index, &indexed, err);
	if (st != BT_OK || !indexed)
		return st;
	if (mcap_enc_u64(b, log_time) != BT_OK || mcap_enc_u64(b, create_time) != BT_OK ||
	    mcap_enc_u64(b, len) != BT_OK || mcap_enc_str(b, name, strlen(name)) != BT_OK ||
	    mcap_enc_str(b, media_type, strlen(media_type)) != BT_OK ||
	    w_record(&w->att_idx, MCAP_OP_ATTACHMENT_INDEX, b, w->o.test_pad_records) != BT_OK)
		return w_nomem(err);
	return BT_OK;
}

bt_status mcap_writer_flush(struct mcap_writer *w, bool sync, struct bt_error *err)
{
	bt_status st = w_check(w, err);
	if (st == BT_OK)
		st = w_chunk_close(w, err);
	if (st == BT_OK)
		st = w_drain(w, err);
	int e = st == BT_OK && bt_dio_on(&w->dio) ? bt_dio_sync(&w->dio) : 0;
	if (e != 0)
		st = w_fail(w, err, e, "write");
	if (st == BT_OK && sync && fdatasync(w->fd) != 0)
		st = w_fail(w, err, errno, "fdatasync");
	return st;
}

/* ---- close: summary ---- */

static bt_status w_statistics(struct mcap_writer *w, struct bt_buf *sum)
{
	struct bt_buf *b = &w->rec;
	bt_buf_reset(b);
	bool ok = mcap_enc_u64(b, w->msg_count) == BT_OK &&
		  mcap_enc_u16(b, (uint16_t)w->n_schemas) == BT_OK &&
		  mcap_enc_u32(b, (uint32_t)w->n_channels) == BT_OK &&
		  mcap_enc_u32(b, w->n_att) == BT_OK && mcap_enc_u32(b, w->n_meta) == BT_OK &&
		  mcap_enc_u32(b, w->n_chunks) == BT_OK &&
		  mcap_enc_u64(b, w->msg_count ? w->msg_start : 0) == BT_OK &&
		  mcap_enc_u64(b, w->msg_count ? w->msg_end : 0) == BT_OK;
	size_t n = 0;
	for (size_t i = 0; i < w->n_channels; i++)
		n += w->channels[i].count > 0;
	ok = ok && mcap_enc_u32(b, (uint32_t)(n * 10)) == BT_OK;
	for (size_t i = 0; ok && i < w->n_channels; i++)
		if (w->channels[i].count > 0)
			ok = mcap_enc_u16(b, (uint16_t)(i + 1)) == BT_OK &&
			     mcap_enc_u64(b, w->channels[i].count) == BT_OK;
	return ok ? w_record(sum, MCAP_OP_STATISTICS, b, w->o.test_pad_records) : BT_ERR_NOMEM;
}

struct w_group {
	uint8_t op;
	uint64_t start, len;
};

/* Builds the summary section in `sum` (file offset `base`), recording its
 * groups in g[] (*ng of them). */
static bt_status w_summary(struct mcap_writer *w, struct bt_buf *sum, uint64_t base,
			   struct w_group *g, size_t *ng)
{
	bool pad = w->o.test_pad_records;
	bt_status st = BT_OK;
	*ng = 0;
	for (int grp = 0; grp < 6 && st == BT_OK; grp++) {
		size_t before = sum->len;
		uint8_t op = 0;
		if (grp == 0 && !w->o.no_repeated_schemas) {
			op = MCAP_OP_SCHEMA;
			for (size_t i = 0; st == BT_OK && i < w->n_schemas; i++)
				st = w_record(sum, op, &w->schemas[i].body, pad);
		} else if (grp == 1 && !w->o.no_repeated_channels) {
			op = MCAP_OP_CHANNEL;
			for (size_t i = 0; st == BT_OK && i < w->n_channels; i++)
				st = w_record(sum, op, &w->channels[i].body, pad);
		} else if (grp == 2 && !w->o.no_statistics) {
			op = MCAP_OP_STATISTICS;
			st = w_statistics(w, sum);
		} else if (grp == 3) {
			op = MCAP_OP_METADATA_INDEX;
			st = bt_buf_append(sum, w->meta_idx.data, w->meta_idx.len);
		} else if (grp == 4) {
			op = MCAP_OP_ATTACHMENT_INDEX;
			st = bt_buf_append(sum, w->att_idx.data, w->att_idx.len);
		} else if (grp == 5) {
			op = MCAP_OP_CHUNK_INDEX;
			st = bt_buf_append(sum, w->chunk_idx.data, w->chunk_idx.len);
		}
		if (st == BT_OK && sum->len > before)
			g[(*ng)++] = (struct w_group){op, base + before, sum->len - before};
	}
	return st;
}

static bt_status w_summary_offsets(struct mcap_writer *w, struct bt_buf *sum,
				   const struct w_group *g, size_t ng)
{
	for (size_t i = 0; i < ng; i++) {
		bt_buf_reset(&w->rec);
		if (mcap_enc_u8(&w->rec, g[i].op) != BT_OK ||
		    mcap_enc_u64(&w->rec, g[i].start) != BT_OK ||
		    mcap_enc_u64(&w->rec, g[i].len) != BT_OK ||
		    w_record(sum, MCAP_OP_SUMMARY_OFFSET, &w->rec, w->o.test_pad_records) != BT_OK)
			return BT_ERR_NOMEM;
	}
	return BT_OK;
}

static bt_status w_finish(struct mcap_writer *w, struct bt_error *err)
{
	bt_status st = w_check(w, err);
	/* the open chunk's channels at its start, the rest (no messages) at its end */
	if (st == BT_OK && w->n_pending && w->chunk_len)
		st = w_defs_prepend(w, err);
	if (st == BT_OK && w->n_pending)
		st = w_defs_rest(w, NULL, err);
	if (st == BT_OK)
		st = w_chunk_close(w, err);
	if (st != BT_OK)
		return st;
	uint8_t de[MCAP_RECORD_PREFIX + 4] = {MCAP_OP_DATA_END};
	mcap_put_u64(de + 1, 4);
	mcap_put_u32(de + 9, w->o.enable_data_crc ? w->data_crc : 0);
	st = w_put(w, de, sizeof de, false, err);
	if (st != BT_OK)
		return st;
	uint64_t base = w->pos, sum_start = 0, off_start = 0;
	struct bt_buf sum = BT_BUF_INIT;
	struct w_group g[6];
	size_t ng = 0;
	if (!w->o.no_summary && w_summary(w, &sum, base, g, &ng) != BT_OK)
		st = w_nomem(err);
	if (st == BT_OK && sum.len > 0)
		sum_start = base;
	if (st == BT_OK && !w->o.no_summary && !w->o.no_summary_offsets && ng > 0) {
		off_start = base + sum.len;
		if (w_summary_offsets(w, &sum, g, ng) != BT_OK)
			st = w_nomem(err);
	}
	uint8_t ft[MCAP_FOOTER_LEN + MCAP_MAGIC_LEN] = {MCAP_OP_FOOTER};
	mcap_put_u64(ft + 1, 20);
	mcap_put_u64(ft + 9, sum_start);
	mcap_put_u64(ft + 17, off_start);
	uint32_t crc = 0;
	if (!w->o.no_summary_crc)
		crc = mcap_crc32(mcap_crc32(0, sum.data, sum.len), ft, 25);
	mcap_put_u32(ft + 25, crc);
	memcpy(ft + MCAP_FOOTER_LEN, mcap_magic, MCAP_MAGIC_LEN);
	if (st == BT_OK)
		st = w_put(w, sum.data, sum.len, false, err);
	bt_buf_fini(&sum);
	if (st == BT_OK)
		st = w_put(w, ft, sizeof ft, false, err);
	return st == BT_OK ? w_drain(w, err) : st;
}

bt_status mcap_writer_close(struct mcap_writer *w, struct bt_error *err)
{
	bt_status st = w_finish(w, err);
	int e = bt_dio_end(&w->dio);
	if (e != 0 && st == BT_OK)
		st = w_fail(w, err, e, "write");
	int fd = w->fd;
	w->fd = -1;
	mcap_writer_abandon(w);
	if (close(fd) != 0 && st == BT_OK)
		st = bt_err_errno(err, errno, "MCAP writer: close");
	return st;
}
