/* mcap_floor — see mcap_floor.h. */
#include "mcap_floor.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench_util.h"
#include "bt_mem.h"
#include "bt_status.h"
#include "mcap_record.h"

/* A Chunk record up to its records with no compression string: prefix,
 * three u64 times/sizes, the CRC, the empty string's length, the records'
 * length. A Message record's header: prefix, channel u16, sequence u32,
 * log and publish time. A Message Index record up to its entries. */
#define FLOOR_CHUNK_HEAD (MCAP_RECORD_PREFIX + 3 * 8 + 4 + 4 + 8)
#define FLOOR_MSG_HEAD (MCAP_RECORD_PREFIX + 2 + 4 + 8 + 8)
#define FLOOR_INDEX_HEAD (MCAP_RECORD_PREFIX + 2 + 4)

static int floor_fail(char *err, size_t errn, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errn, fmt, ap);
	va_end(ap);
	return -1;
}

static struct mcap_floor_chunk *floor_chunk_new(struct mcap_floor *f)
{
	if ((f->n_chunks & (f->n_chunks - 1)) == 0) /* 0, 1, 2, 4, ...: grow */
		f->chunks = bt_xrealloc(f->chunks,
					(f->n_chunks ? 2 * f->n_chunks : 1) * sizeof *f->chunks);
	f->chunks[f->n_chunks] = (struct mcap_floor_chunk){0};
	return &f->chunks[f->n_chunks++];
}

/* The records of the chunk at model offset `off`: its leading non-Message
 * records, then Messages only, all on one channel. */
static int floor_plan_records(struct mcap_floor *f, struct mcap_floor_chunk *c, size_t off,
			      const struct mcap_chunk *ch, char *err, size_t errn)
{
	const uint8_t *p = ch->records.p, *end = p + ch->records.len;
	while (p + MCAP_RECORD_PREFIX <= end) {
		uint64_t len = mcap_get_u64(p + 1);
		if (len > (uint64_t)(end - p) - MCAP_RECORD_PREFIX)
			return floor_fail(err, errn, "a record overruns the chunk at %zu", off);
		if (p[0] == MCAP_OP_MESSAGE) {
			uint16_t chan = mcap_get_u16(p + MCAP_RECORD_PREFIX);
			if (f->n_msgs + c->n_msgs > 0 && chan != f->channel)
				return floor_fail(err, errn, "more than one channel");
			f->channel = chan;
			c->n_msgs++;
		} else if (c->n_msgs > 0) {
			return floor_fail(err, errn, "a %s record after a chunk's messages",
					  mcap_opcode_name(p[0]));
		} else {
			c->lead_len = (size_t)(p + MCAP_RECORD_PREFIX + len - ch->records.p);
		}
		p += MCAP_RECORD_PREFIX + (size_t)len;
	}
	c->lead_off = (size_t)(ch->records.p - f->model);
	if (ch->records.len > f->max_records)
		f->max_records = (size_t)ch->records.len;
	if (c->n_msgs > f->max_msgs)
		f->max_msgs = c->n_msgs;
	f->n_msgs += c->n_msgs;
	return 0;
}

/* The chunk at `off` (len: its body), then the Message Index records after
 * it; *next: where what follows them starts. */
static int floor_plan_chunk(struct mcap_floor *f, size_t off, uint64_t len, size_t model_len,
			    size_t *next, char *err, size_t errn)
{
	struct bt_error e = {0};
	struct mcap_record r;
	if (mcap_record_parse(MCAP_OP_CHUNK, f->model + off + MCAP_RECORD_PREFIX, len, &r, &e) !=
	    BT_OK)
		return floor_fail(err, errn, "chunk at %zu: %s", off, e.msg);
	if (r.u.chunk.compression.len || r.u.chunk.uncompressed_crc)
		return floor_fail(err, errn, "a compressed chunk or one with a CRC");
	struct mcap_floor_chunk *c = floor_chunk_new(f);
	if (floor_plan_records(f, c, off, &r.u.chunk, err, errn))
		return -1;
	size_t pos = off + MCAP_RECORD_PREFIX + (size_t)len, n_index = 0;
	while (pos + MCAP_RECORD_PREFIX <= model_len && f->model[pos] == MCAP_OP_MESSAGE_INDEX) {
		uint64_t ilen = mcap_get_u64(f->model + pos + 1);
		if (ilen > model_len - pos - MCAP_RECORD_PREFIX)
			return floor_fail(err, errn, "a Message Index overruns the file at %zu", pos);
		pos += MCAP_RECORD_PREFIX + (size_t)ilen;
		n_index++;
	}
	if (n_index != (c->n_msgs ? 1u : 0u))
		return floor_fail(err, errn, "%zu Message Index records after a chunk", n_index);
	c->after_off = *next = pos;
	return 0;
}

static int floor_plan_walk(struct mcap_floor *f, const uint8_t *model, size_t len, char *err,
			   size_t errn)
{
	size_t pos = MCAP_MAGIC_LEN;
	struct mcap_floor_chunk *prev = NULL;
	while (pos + MCAP_RECORD_PREFIX <= len) {
		uint64_t rlen = mcap_get_u64(model + pos + 1);
		if (rlen > len - pos - MCAP_RECORD_PREFIX)
			return floor_fail(err, errn, "a record overruns the file at %zu", pos);
		if (model[pos] != MCAP_OP_CHUNK) {
			pos += MCAP_RECORD_PREFIX + (size_t)rlen;
			continue;
		}
		if (prev)
			prev->after_len = pos - prev->after_off;
		else
			f->head_len = pos;
		if (floor_plan_chunk(f, pos, rlen, len, &pos, err, errn))
			return -1;
		prev = &f->chunks[f->n_chunks - 1];
	}
	if (!prev)
		return floor_fail(err, errn, "no chunk");
	prev->after_len = len - prev->after_off;
	return 0;
}

int mcap_floor_plan(struct mcap_floor *f, const uint8_t *model, size_t len, char *err,
		    size_t errn)
{
	*f = (struct mcap_floor){.model = model};
	if (floor_plan_walk(f, model, len, err, errn) == 0)
		return 0;
	mcap_floor_fini(f);
	return -1;
}

void mcap_floor_fini(struct mcap_floor *f)
{
	free(f->chunks);
	*f = (struct mcap_floor){0};
}

static void floor_msg_head(uint8_t *p, uint16_t channel, uint64_t t, size_t len)
{
	p[0] = MCAP_OP_MESSAGE;
	mcap_put_u64(p + 1, FLOOR_MSG_HEAD - MCAP_RECORD_PREFIX + len);
	p[9] = (uint8_t)channel;
	p[10] = (uint8_t)(channel >> 8);
	mcap_put_u32(p + 11, 0);
	mcap_put_u64(p + 15, t);
	mcap_put_u64(p + 23, t);
}

/* The Chunk record's header (n: its records' length) and its Message
 * Index record's, at buf and ix. */
static void floor_heads(const struct mcap_floor *f, const struct mcap_floor_chunk *c, size_t n,
			uint64_t start, uint64_t end, uint8_t *buf, uint8_t *ix)
{
	buf[0] = MCAP_OP_CHUNK;
	mcap_put_u64(buf + 1, FLOOR_CHUNK_HEAD - MCAP_RECORD_PREFIX + n);
	mcap_put_u64(buf + 9, c->n_msgs ? start : 0);
	mcap_put_u64(buf + 17, end);
	mcap_put_u64(buf + 25, n);
	mcap_put_u32(buf + 33, 0); /* no CRC */
	mcap_put_u32(buf + 37, 0); /* no compression */
	mcap_put_u64(buf + 41, n);
	ix[0] = MCAP_OP_MESSAGE_INDEX;
	mcap_put_u64(ix + 1, FLOOR_INDEX_HEAD - MCAP_RECORD_PREFIX + 16 * c->n_msgs);
	ix[9] = (uint8_t)f->channel;
	ix[10] = (uint8_t)(f->channel >> 8);
	mcap_put_u32(ix + 11, (uint32_t)(16 * c->n_msgs));
}

/* Lays out chunk c from msgs as writev pieces in iov; returns how many.
 * Its header's room first in buf, then its leading records, then per
 * message the record header and, with MCAP_FLOOR_COPY, the data copied
 * behind it (the chunk one piece), or, with MCAP_FLOOR_GATHER, the data a
 * piece of its own, read by the kernel from where it is (2 n_msgs + 1
 * pieces); last the Message Index laid out in ix. */
static size_t floor_lay(const struct mcap_floor *f, const struct mcap_floor_chunk *c,
			const struct bag_message *msgs, enum mcap_floor_way way, uint8_t *buf,
			uint8_t *ix, struct iovec *iov)
{
	bool gather = way == MCAP_FLOOR_GATHER;
	uint8_t *h = buf + FLOOR_CHUNK_HEAD + c->lead_len, *e = ix + FLOOR_INDEX_HEAD;
	memcpy(buf + FLOOR_CHUNK_HEAD, f->model + c->lead_off, c->lead_len);
	size_t nv = 1, off = c->lead_len;
	uint64_t start = UINT64_MAX, end = 0;
	for (size_t i = 0; i < c->n_msgs; i++, e += 16) {
		uint64_t t = (uint64_t)msgs[i].timestamp;
		size_t len = msgs[i].len;
		floor_msg_head(h, f->channel, t, len);
		if (gather) {
			iov[nv++] = (struct iovec){h, FLOOR_MSG_HEAD};
			iov[nv++] = (struct iovec){(void *)msgs[i].data, len};
			h += FLOOR_MSG_HEAD;
		} else {
			memcpy(h + FLOOR_MSG_HEAD, msgs[i].data, len);
			h += FLOOR_MSG_HEAD + len;
		}
		mcap_put_u64(e, t);
		mcap_put_u64(e + 8, (uint64_t)off);
		start = t < start ? t : start;
		end = t > end ? t : end;
		off += FLOOR_MSG_HEAD + len;
	}
	floor_heads(f, c, off, start, end, buf, ix);
	iov[0] = (struct iovec){buf, FLOOR_CHUNK_HEAD + (gather ? c->lead_len : off)};
	iov[nv++] = (struct iovec){ix, c->n_msgs ? (size_t)(e - ix) : 0};
	return nv;
}

int mcap_floor_write(const struct mcap_floor *f, const char *path, const struct bag_message *msgs,
		     size_t n, enum mcap_floor_way way)
{
	if (n != f->n_msgs) {
		errno = EINVAL;
		return -1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	/* A chunk's records are at least its leading ones and its Message
	 * headers: max_records holds either way's buf. */
	uint8_t *buf = bt_xmalloc(FLOOR_CHUNK_HEAD + f->max_records);
	uint8_t *ix = bt_xmalloc(FLOOR_INDEX_HEAD + 16 * f->max_msgs);
	struct iovec *iov = bt_xcalloc(2 * f->max_msgs + 3, sizeof *iov);
	iov[0] = (struct iovec){(void *)f->model, f->head_len};
	int rc = bench_writev_all(fd, iov, 1);
	for (size_t i = 0; !rc && i < f->n_chunks; i++) {
		const struct mcap_floor_chunk *c = &f->chunks[i];
		size_t nv = floor_lay(f, c, msgs, way, buf, ix, iov);
		iov[nv++] = (struct iovec){(void *)(f->model + c->after_off), c->after_len};
		rc = bench_writev_all(fd, iov, nv);
		msgs += c->n_msgs;
	}
	int saved = errno;
	free(buf);
	free(ix);
	free(iov);
	if (close(fd) != 0 && !rc) {
		saved = errno;
		rc = -1;
	}
	errno = saved;
	return rc;
}
