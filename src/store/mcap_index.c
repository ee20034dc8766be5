/* mcap_index — the indexed read: the summary (or a scan when there is none
 * or it is damaged) and the messages in log_time order; see mcap_reader.h.
 *
 * Every view in r->sum points into a copy of its record's body kept in
 * r->keep, so the summary lives as long as the reader. Messages are merged
 * from the chunks whose time range has begun: a chunk is loaded (and its
 * messages sorted) only once the earliest message not yet delivered is not
 * earlier than the chunk's start, so chunks that do not overlap in time are
 * held one at a time. */
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "store__mcap_reader.h"

static bt_status x_nomem(struct bt_error *err)
{
	return bt_err_set(err, BT_ERR_NOMEM, "MCAP reader: out of memory");
}

/* Copies a record body into r->keep and parses the copy into *rec. */
static bt_status x_keep(struct mcap_reader *r, uint8_t op, const uint8_t *body, uint64_t len,
			struct mcap_record *rec, struct bt_error *err)
{
	if (!bt_grow((void **)&r->keep, &r->cap_keep, r->n_keep + 1, sizeof *r->keep))
		return x_nomem(err);
	uint8_t *copy = malloc(len ? (size_t)len : 1);
	if (!copy)
		return x_nomem(err);
	if (len)
		memcpy(copy, body, (size_t)len);
	r->keep[r->n_keep++] = copy;
	return mcap_record_parse(op, copy, len, rec, err);
}

static size_t x_find(const void *arr, size_t n, size_t size, uint16_t id, bool *found)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		uint16_t m = *(const uint16_t *)((const char *)arr + mid * size);
		if (m == id) {
			*found = true;
			return mid;
		}
		if (m < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Adds a Schema or Channel (by its parsed view `v`) if its id is new. */
static bt_status x_add_def(struct mcap_reader *r, const struct mcap_record *v,
			   struct bt_error *err)
{
	bool schema = v->opcode == MCAP_OP_SCHEMA, found;
	uint16_t id = schema ? v->u.schema.id : v->u.channel.id;
	void **arr = schema ? (void **)&r->sum.schemas : (void **)&r->sum.channels;
	size_t *n = schema ? &r->sum.n_schemas : &r->sum.n_channels;
	size_t size = schema ? sizeof(struct mcap_schema) : sizeof(struct mcap_channel);
	size_t at = x_find(*arr, *n, size, id, &found);
	if (found)
		return BT_OK;
	void *g = realloc(*arr, (*n + 1) * size);
	if (!g)
		return x_nomem(err);
	*arr = g;
	struct mcap_record rec;
	bt_status st = x_keep(r, v->opcode, v->body, v->length, &rec, err);
	if (st != BT_OK)
		return st;
	char *base = g;
	memmove(base + (at + 1) * size, base + at * size, (*n - at) * size);
	memcpy(base + at * size, schema ? (void *)&rec.u.schema : (void *)&rec.u.channel, size);
	(*n)++;
	return BT_OK;
}

static bt_status x_add_chunk(struct mcap_reader *r, uint64_t off, uint64_t len, uint64_t start,
			     uint64_t end, uint64_t mi_length, size_t *cap, struct bt_error *err)
{
	if (!bt_grow((void **)&r->sum.chunks, cap, r->sum.n_chunks + 1,
		     sizeof *r->sum.chunks))
		return x_nomem(err);
	r->sum.chunks[r->sum.n_chunks++] =
		(struct mcap_chunk_ref){off, len, start, end, mi_length};
	return BT_OK;
}

static bt_status x_add_meta(struct mcap_reader *r, uint64_t off, uint64_t len,
			    struct mcap_str name, struct mcap_caps *caps, struct bt_error *err)
{
	if (!bt_grow((void **)&r->sum.metadata, &caps->meta, r->sum.n_metadata + 1,
		     sizeof *r->sum.metadata))
		return x_nomem(err);
	r->sum.metadata[r->sum.n_metadata++] = (struct mcap_metadata_index){off, len, name};
	return BT_OK;
}

static bt_status x_add_att(struct mcap_reader *r, const struct mcap_attachment_index *a,
			   struct mcap_caps *caps, struct bt_error *err)
{
	if (!bt_grow((void **)&r->sum.attachments, &caps->att, r->sum.n_attachments + 1,
		     sizeof *r->sum.attachments))
		return x_nomem(err);
	r->sum.attachments[r->sum.n_attachments++] = *a;
	return BT_OK;
}

void mcap_r_index_free(struct mcap_reader *r)
{
	for (size_t i = 0; i < r->n_srcs; i++) {
		free(r->srcs[i].buf);
		free(r->srcs[i].ent);
	}
	free(r->srcs);
	r->srcs = NULL;
	r->n_srcs = 0;
	for (size_t i = 0; i < r->n_keep; i++)
		free(r->keep[i]);
	free(r->keep);
	free(r->sum.schemas);
	free(r->sum.channels);
	free(r->sum.chunks);
	free(r->sum.metadata);
	free(r->sum.attachments);
	free(r->loose);
	free(r->mbuf);
	r->keep = NULL;
	r->n_keep = r->cap_keep = 0;
	r->loose = NULL;
	r->n_loose = r->cap_loose = 0;
	r->mbuf = NULL;
	r->mcap = 0;
	memset(&r->sum, 0, sizeof r->sum);
	memset(&r->caps, 0, sizeof r->caps);
	r->indexed = r->merging = false;
}

/* ---- the summary ---- */

static bt_status x_header(struct mcap_reader *r, struct bt_error *err)
{
	uint8_t op;
	uint64_t len;
	struct mcap_record rec;
	bt_status st = mcap_r_read_record(r, MCAP_MAGIC_LEN, &op, &len, err);
	if (st == BT_OK && op != MCAP_OP_HEADER)
		st = bt_err_set(err, BT_ERR_FORMAT, "no Header record after the magic");
	if (st == BT_OK)
		st = x_keep(r, op, r->rbuf, len, &rec, err);
	if (st == BT_OK)
		r->sum.header = rec.u.header;
	return st;
}

/* Reads the Footer; BT_ERR_NOTFOUND when it says there is no summary. */
static bt_status x_footer(struct mcap_reader *r, struct mcap_footer *f, uint8_t *raw,
			  struct bt_error *err)
{
	uint64_t min = 2 * MCAP_MAGIC_LEN + MCAP_FOOTER_LEN;
	if (r->size < min)
		return bt_err_set(err, BT_ERR_FORMAT, "too short for an MCAP footer");
	uint64_t at = r->size - MCAP_MAGIC_LEN - MCAP_FOOTER_LEN;
	uint8_t tail[MCAP_FOOTER_LEN + MCAP_MAGIC_LEN];
	bt_status st = mcap_r_pread(r, tail, sizeof tail, at, err);
	if (st != BT_OK)
		return st;
	if (tail[0] != MCAP_OP_FOOTER || mcap_get_u64(tail + 1) != 20 ||
	    memcmp(tail + MCAP_FOOTER_LEN, mcap_magic, MCAP_MAGIC_LEN) != 0)
		return bt_err_set(err, BT_ERR_FORMAT, "no footer and magic at the end");
	memcpy(raw, tail + MCAP_RECORD_PREFIX, 20);
	struct mcap_record rec;
	st = mcap_record_parse(MCAP_OP_FOOTER, raw, 20, &rec, err);
	if (st != BT_OK)
		return st;
	*f = rec.u.footer;
	if (f->summary_start == 0)
		return bt_err_set(err, BT_ERR_NOTFOUND, "the file has no summary");
	if (f->summary_start < 2 * MCAP_MAGIC_LEN || f->summary_start > at)
		return bt_err_set(err, BT_ERR_FORMAT, "the footer's summary_start %llu is outside",
				  (unsigned long long)f->summary_start);
	return BT_OK;
}

static bt_status x_summary_record(struct mcap_reader *r, const struct mcap_record *v,
				  uint64_t data_end, struct mcap_caps *caps, struct bt_error *err)
{
	struct mcap_record rec;
	bt_status st;
	switch (v->opcode) {
	case MCAP_OP_SCHEMA:
	case MCAP_OP_CHANNEL:
		return x_add_def(r, v, err);
	case MCAP_OP_STATISTICS:
		st = x_keep(r, v->opcode, v->body, v->length, &rec, err);
		r->sum.statistics = rec.u.statistics;
		r->sum.has_statistics = st == BT_OK;
		return st;
	case MCAP_OP_CHUNK_INDEX: {
		const struct mcap_chunk_index *c = &v->u.chunk_index;
		if (c->chunk_start_offset < 2 * MCAP_MAGIC_LEN || c->chunk_length < MCAP_RECORD_PREFIX ||
		    c->chunk_start_offset > data_end || c->chunk_length > data_end - c->chunk_start_offset)
			return bt_err_set(err, BT_ERR_FORMAT, "a chunk index points outside the data");
		/* Message indexes outside the data section: not used (0) */
		uint64_t chunk_end = c->chunk_start_offset + c->chunk_length;
		uint64_t mi = c->message_index_length <= data_end - chunk_end
				      ? c->message_index_length : 0;
		return x_add_chunk(r, c->chunk_start_offset, c->chunk_length, c->message_start_time,
				   c->message_end_time, mi, &caps->chunks, err);
	}
	case MCAP_OP_METADATA_INDEX:
		st = x_keep(r, v->opcode, v->body, v->length, &rec, err);
		return st != BT_OK ? st
				   : x_add_meta(r, rec.u.metadata_index.offset,
						rec.u.metadata_index.length, rec.u.metadata_index.name,
						caps, err);
	case MCAP_OP_ATTACHMENT_INDEX:
		st = x_keep(r, v->opcode, v->body, v->length, &rec, err);
		return st != BT_OK ? st : x_add_att(r, &rec.u.attachment_index, caps, err);
	default:
		return BT_OK; /* summary offsets, and what this reader does not know */
	}
}

static bt_status x_summary(struct mcap_reader *r, struct bt_error *err)
{
	struct mcap_caps *caps = &r->caps;
	struct mcap_footer f = {0, 0, 0};
	uint8_t raw[20] = {0};
	bt_status st = x_footer(r, &f, raw, err);
	if (st != BT_OK)
		return st;
	uint64_t foot = r->size - MCAP_MAGIC_LEN - MCAP_FOOTER_LEN, len = foot - f.summary_start;
	if (len > r->limit)
		return bt_err_set(err, BT_ERR_TOOBIG, "summary of %llu bytes is over the limit",
				  (unsigned long long)len);
	uint8_t *buf = malloc(len ? (size_t)len : 1);
	if (!buf)
		return x_nomem(err);
	uint8_t fpre[MCAP_RECORD_PREFIX + 16] = {MCAP_OP_FOOTER};
	mcap_put_u64(fpre + 1, 20);
	memcpy(fpre + MCAP_RECORD_PREFIX, raw, 16);
	uint8_t op;
	uint64_t blen;
	st = mcap_r_pread(r, buf, len, f.summary_start, err);
	if (st == BT_OK && f.summary_crc != 0 &&
	    mcap_crc32(mcap_crc32(0, buf, (size_t)len), fpre, sizeof fpre) != f.summary_crc)
		st = bt_err_set(err, BT_ERR_FORMAT, "summary CRC mismatch");
	for (uint64_t pos = 0; st == BT_OK && pos < len; pos += MCAP_RECORD_PREFIX + blen) {
		struct mcap_record v;
		st = mcap_r_frame(buf, len, pos, &op, &blen, f.summary_start, err);
		if (st == BT_OK)
			st = mcap_record_parse(op, buf + pos + MCAP_RECORD_PREFIX, blen, &v, err);
		if (st == BT_OK)
			st = x_summary_record(r, &v, f.summary_start, caps, err);
	}
	free(buf);
	return st == BT_OK ? x_header(r, err) : st;
}

/* ---- the scan ---- */

struct x_count {
	uint64_t *per_channel; /* counters by channel id, n_ids of them */
	size_t n_ids;
	uint64_t messages, start, end;
};

/* Room for channel id `id`: the counters grow to the ids met (a file's few
 * channels are a few bytes, not 65536 counters per scan). */
static bool x_count_room(struct x_count *c, uint16_t id)
{
	if (id < c->n_ids)
		return true;
	size_t n = c->n_ids ? c->n_ids : 16;
	while (n <= id)
		n *= 2;
	uint64_t *g = realloc(c->per_channel, n * sizeof *g);
	if (!g)
		return false;
	memset(g + c->n_ids, 0, (n - c->n_ids) * sizeof *g);
	c->per_channel = g;
	c->n_ids = n;
	return true;
}

static bt_status x_count_msg(struct x_count *c, const struct mcap_message *m,
			     struct bt_error *err)
{
	if (!x_count_room(c, m->channel_id))
		return x_nomem(err);
	if (c->messages == 0 || m->log_time < c->start)
		c->start = m->log_time;
	if (c->messages == 0 || m->log_time > c->end)
		c->end = m->log_time;
	c->messages++;
	c->per_channel[m->channel_id]++;
	return BT_OK;
}

static bt_status x_push_loose(struct mcap_reader *r, const struct mcap_item *it,
			      struct bt_error *err)
{
	if (!bt_grow((void **)&r->loose, &r->cap_loose, r->n_loose + 1, sizeof *r->loose))
		return x_nomem(err);
	r->loose[r->n_loose] = (struct mcap_ent){it->rec.u.message.log_time, it->offset,
						 MCAP_RECORD_PREFIX + it->rec.length, r->n_loose};
	r->n_loose++;
	return BT_OK;
}

/* One record met by the scan. */
static bt_status x_scan_record(struct mcap_reader *r, const struct mcap_item *it,
			       struct x_count *cnt, bool msgs_only, struct bt_error *err)
{
	const struct mcap_record *v = &it->rec;
	struct mcap_caps *caps = &r->caps;
	struct mcap_record rec;
	bt_status st = BT_OK;
	uint8_t op = v->opcode;
	if (msgs_only && op != MCAP_OP_SCHEMA && op != MCAP_OP_CHANNEL && op != MCAP_OP_MESSAGE &&
	    op != MCAP_OP_CHUNK)
		return BT_OK;
	switch (op) {
	case MCAP_OP_HEADER:
		st = x_keep(r, v->opcode, v->body, v->length, &rec, err);
		if (st == BT_OK)
			r->sum.header = rec.u.header;
		return st;
	case MCAP_OP_SCHEMA:
	case MCAP_OP_CHANNEL:
		return x_add_def(r, v, err);
	case MCAP_OP_MESSAGE:
		st = x_count_msg(cnt, &v->u.message, err);
		return st != BT_OK || it->in_chunk ? st : x_push_loose(r, it, err);
	case MCAP_OP_CHUNK:
		return x_add_chunk(r, it->offset, MCAP_RECORD_PREFIX + v->length,
				   v->u.chunk.message_start_time, v->u.chunk.message_end_time, 0,
				   &caps->chunks, err);
	case MCAP_OP_METADATA:
		st = x_keep(r, v->opcode, v->body, v->length, &rec, err);
		return st != BT_OK ? st
				   : x_add_meta(r, it->offset, MCAP_RECORD_PREFIX + v->length,
						rec.u.metadata.name, caps, err);
	case MCAP_OP_ATTACHMENT: {
		st = x_keep(r, v->opcode, v->body, v->length, &rec, err);
		const struct mcap_attachment *a = &rec.u.attachment;
		struct mcap_attachment_index ai = {it->offset, MCAP_RECORD_PREFIX + v->length,
						   a->log_time, a->create_time, a->data.len, a->name,
						   a->media_type};
		return st != BT_OK ? st : x_add_att(r, &ai, caps, err);
	}
	default:
		return BT_OK;
	}
}

/* Statistics from what the scan counted; the per-channel map is encoded as
 * the file would hold it, so readers of the summary see one form. */
static bt_status x_scan_stats(struct mcap_reader *r, const struct x_count *c, struct bt_error *err)
{
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = BT_OK;
	for (size_t id = 0; st == BT_OK && id < c->n_ids; id++)
		if (c->per_channel[id])
			st = mcap_enc_u16(&b, (uint16_t)id) == BT_OK &&
					     mcap_enc_u64(&b, c->per_channel[id]) == BT_OK
				     ? BT_OK
				     : BT_ERR_NOMEM;
	if (st == BT_OK &&
	    !bt_grow((void **)&r->keep, &r->cap_keep, r->n_keep + 1, sizeof *r->keep))
		st = BT_ERR_NOMEM;
	if (st != BT_OK) {
		bt_buf_fini(&b);
		return x_nomem(err);
	}
	struct mcap_statistics *s = &r->sum.statistics;
	s->message_count = c->messages;
	s->schema_count = (uint16_t)r->sum.n_schemas;
	s->channel_count = (uint32_t)r->sum.n_channels;
	s->attachment_count = (uint32_t)r->sum.n_attachments;
	s->metadata_count = (uint32_t)r->sum.n_metadata;
	s->chunk_count = (uint32_t)r->sum.n_chunks;
	s->message_start_time = c->start;
	s->message_end_time = c->end;
	s->channel_message_counts.len = (uint32_t)b.len;
	s->channel_message_counts.p = (const uint8_t *)b.data;
	r->keep[r->n_keep++] = bt_buf_steal(&b);
	r->sum.has_statistics = true;
	return BT_OK;
}

/* Walks the data section up to DataEnd, the footer, or the first damaged
 * record (whose reason goes to sum.scan_why when that is still empty). */
static bt_status x_scan(struct mcap_reader *r, bool msgs_only, struct bt_error *err)
{
	struct x_count cnt = {0};
	struct bt_error why;
	bt_err_clear(&why);
	bt_status st = mcap_reader_stream_begin(r, &why);
	while (st == BT_OK) {
		struct mcap_item it;
		bool end;
		st = mcap_reader_next(r, &it, &end, &why);
		if (st != BT_OK || end || it.rec.opcode == MCAP_OP_DATA_END ||
		    it.rec.opcode == MCAP_OP_FOOTER)
			break;
		st = x_scan_record(r, &it, &cnt, msgs_only, err);
		if (st != BT_OK) {
			free(cnt.per_channel);
			return st;
		}
	}
	if (st == BT_ERR_IO || st == BT_ERR_NOMEM) {
		free(cnt.per_channel);
		*err = why;
		return st;
	}
	if (st != BT_OK && r->sum.scan_why.msg[0] == '\0')
		r->sum.scan_why = why;
	st = msgs_only ? BT_OK : x_scan_stats(r, &cnt, err);
	free(cnt.per_channel);
	return st;
}

bt_status mcap_reader_index(struct mcap_reader *r, struct bt_error *err)
{
	mcap_r_index_free(r);
	struct bt_error why;
	bt_err_clear(&why);
	bt_status st = x_summary(r, &why);
	if (st == BT_ERR_IO || st == BT_ERR_NOMEM) {
		*err = why;
		return st;
	}
	if (st == BT_OK) {
		r->sum.from_summary = true;
	} else {
		mcap_r_index_free(r);
		r->sum.scan_why = why;
		st = x_scan(r, false, err);
		if (st != BT_OK)
			return st;
	}
	r->indexed = true;
	return BT_OK;
}

const struct mcap_summary *mcap_reader_summary(const struct mcap_reader *r)
{
	return r->indexed ? &r->sum : NULL;
}

const struct mcap_channel *mcap_reader_channel(const struct mcap_reader *r, uint16_t id)
{
	bool found;
	size_t at = x_find(r->sum.channels, r->sum.n_channels, sizeof *r->sum.channels, id, &found);
	return found ? &r->sum.channels[at] : NULL;
}

const struct mcap_schema *mcap_reader_schema(const struct mcap_reader *r, uint16_t id)
{
	bool found;
	size_t at = x_find(r->sum.schemas, r->sum.n_schemas, sizeof *r->sum.schemas, id, &found);
	return found ? &r->sum.schemas[at] : NULL;
}

/* ---- messages in log_time order ---- */

static int x_ent_cmp(const void *a, const void *b)
{
	const struct mcap_ent *x = a, *y = b;
	if (x->log_time != y->log_time)
		return x->log_time < y->log_time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int x_chunk_cmp(const void *a, const void *b)
{
	const struct mcap_chunk_ref *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static bt_status x_src_add(struct mcap_reader *r, struct mcap_src *s, struct bt_error *err)
{
	struct mcap_src *g = realloc(r->srcs, (r->n_srcs + 1) * sizeof *g);
	if (!g) {
		free(s->buf);
		free(s->ent);
		return x_nomem(err);
	}
	r->srcs = g;
	if (s->n > 1)
		qsort(s->ent, s->n, sizeof *s->ent, x_ent_cmp);
	r->srcs[r->n_srcs++] = *s;
	return BT_OK;
}

/* Walks a decompressed chunk: definitions go to the summary, messages to
 * s->ent. */
static bt_status x_chunk_walk(struct mcap_reader *r, struct mcap_src *s, uint64_t at,
			      struct bt_error *err)
{
	size_t cap = 0;
	uint8_t op;
	uint64_t blen;
	for (uint64_t pos = 0; pos < s->len; pos += MCAP_RECORD_PREFIX + blen) {
		struct mcap_record v;
		bt_status st = mcap_r_frame(s->buf, s->len, pos, &op, &blen, at, err);
		if (st == BT_OK)
			st = mcap_record_parse(op, s->buf + pos + MCAP_RECORD_PREFIX, blen, &v, err);
		if (st == BT_OK && (op == MCAP_OP_SCHEMA || op == MCAP_OP_CHANNEL))
			st = x_add_def(r, &v, err);
		if (st == BT_OK && op == MCAP_OP_MESSAGE) {
			if (!bt_grow((void **)&s->ent, &cap, s->n + 1, sizeof *s->ent))
				st = x_nomem(err);
			else
				s->ent[s->n] = (struct mcap_ent){v.u.message.log_time, pos,
								 MCAP_RECORD_PREFIX + blen, s->n};
			s->n += st == BT_OK;
		}
		if (st != BT_OK)
			return st;
	}
	return BT_OK;
}

static bt_status x_load_chunk(struct mcap_reader *r, const struct mcap_chunk_ref *c,
			      struct bt_error *err)
{
	uint8_t op;
	uint64_t len;
	struct mcap_record v;
	bt_status st = mcap_r_read_record(r, c->offset, &op, &len, err);
	if (st == BT_OK && (op != MCAP_OP_CHUNK || MCAP_RECORD_PREFIX + len != c->length))
		st = bt_err_set(err, BT_ERR_FORMAT, "the chunk index for offset %llu points at a %s",
				(unsigned long long)c->offset, mcap_opcode_name(op));
	if (st == BT_OK)
		st = mcap_record_parse(op, r->rbuf, len, &v, err);
	struct mcap_src s = {NULL, 0, NULL, 0, 0, c->offset};
	if (st == BT_OK)
		st = mcap_r_unpack(r, &v.u.chunk, c->offset, &s.buf, err);
	if (st != BT_OK)
		return st;
	s.len = v.u.chunk.uncompressed_size;
	st = x_chunk_walk(r, &s, c->offset, err);
	if (st != BT_OK) {
		free(s.buf);
		free(s.ent);
		return st;
	}
	return x_src_add(r, &s, err);
}

bt_status mcap_reader_messages_begin(struct mcap_reader *r, struct bt_error *err)
{
	if (!r->indexed)
		return bt_err_set(err, BT_ERR_STATE, "MCAP reader: index the file first");
	for (size_t i = 0; i < r->n_srcs; i++) {
		free(r->srcs[i].buf);
		free(r->srcs[i].ent);
	}
	r->n_srcs = 0;
	r->next_chunk = 0;
	r->merging = true;
	if (r->sum.from_summary && r->sum.n_chunks == 0 && r->n_loose == 0) {
		/* the summary indexes no chunk: the messages, if any, are found by
		 * walking the data section */
		bt_status st = x_scan(r, true, err);
		if (st != BT_OK)
			return st;
	}
	if (r->sum.n_chunks > 1)
		qsort(r->sum.chunks, r->sum.n_chunks, sizeof *r->sum.chunks, x_chunk_cmp);
	if (r->n_loose == 0)
		return BT_OK;
	struct mcap_src s = {NULL, 0, NULL, r->n_loose, 0, 0};
	s.ent = malloc(r->n_loose * sizeof *s.ent);
	if (!s.ent)
		return x_nomem(err);
	memcpy(s.ent, r->loose, r->n_loose * sizeof *s.ent);
	return x_src_add(r, &s, err);
}

/* The loaded source whose next message comes first, or NULL. */
static struct mcap_src *x_head(struct mcap_reader *r)
{
	struct mcap_src *best = NULL;
	for (size_t i = 0; i < r->n_srcs; i++) {
		struct mcap_src *s = &r->srcs[i];
		if (s->pos >= s->n)
			continue;
		const struct mcap_ent *e = &s->ent[s->pos];
		if (!best)
			best = s;
		const struct mcap_ent *b = &best->ent[best->pos];
		uint64_t eo = s->buf ? s->order : e->off, bo = best->buf ? best->order : b->off;
		if (e->log_time < b->log_time || (e->log_time == b->log_time && eo < bo))
			best = s;
	}
	return best;
}

static void x_drop_done(struct mcap_reader *r)
{
	for (size_t i = 0; i < r->n_srcs;) {
		if (r->srcs[i].pos < r->srcs[i].n) {
			i++;
			continue;
		}
		free(r->srcs[i].buf);
		free(r->srcs[i].ent);
		r->srcs[i] = r->srcs[--r->n_srcs];
	}
}

/* Reads a loose message's record into r->mbuf. */
static bt_status x_read_loose(struct mcap_reader *r, const struct mcap_ent *e, const uint8_t **p,
			      struct bt_error *err)
{
	if (e->len > r->mcap) {
		uint8_t *g = realloc(r->mbuf, (size_t)e->len);
		if (!g)
			return x_nomem(err);
		r->mbuf = g;
		r->mcap = (size_t)e->len;
	}
	*p = r->mbuf;
	return mcap_r_pread(r, r->mbuf, e->len, e->off, err);
}

bt_status mcap_reader_messages_next(struct mcap_reader *r, struct mcap_message *m, bool *end,
				    struct bt_error *err)
{
	*end = false;
	if (!r->merging)
		return bt_err_set(err, BT_ERR_STATE, "MCAP reader: messages_begin first");
	x_drop_done(r);
	struct mcap_src *h = x_head(r);
	while (r->next_chunk < r->sum.n_chunks &&
	       (!h || r->sum.chunks[r->next_chunk].start <= h->ent[h->pos].log_time)) {
		bt_status st = x_load_chunk(r, &r->sum.chunks[r->next_chunk], err);
		if (st != BT_OK)
			return st;
		r->next_chunk++;
		h = x_head(r);
	}
	if (!h) {
		*end = true;
		return BT_OK;
	}
	const struct mcap_ent *e = &h->ent[h->pos++];
	const uint8_t *p = h->buf ? h->buf + e->off : NULL;
	bt_status st = p ? BT_OK : x_read_loose(r, e, &p, err);
	if (st != BT_OK)
		return st;
	struct mcap_record rec;
	st = mcap_record_parse(p[0], p + MCAP_RECORD_PREFIX, e->len - MCAP_RECORD_PREFIX, &rec, err);
	if (st == BT_OK && rec.opcode != MCAP_OP_MESSAGE)
		st = bt_err_set(err, BT_ERR_FORMAT, "a message moved while reading (file changed?)");
	if (st == BT_OK)
		*m = rec.u.message;
	return st;
}
