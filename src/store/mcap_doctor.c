/* mcap_doctor: see mcap_doctor.h. */
#include "mcap_doctor.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bt_mem.h"

#define MD_IDS 65536u /* schema and channel ids are u16 */

/* A chunk as its record says, for the Chunk Index that describes it. */
struct md_chunk {
	uint64_t offset, length, start, end, compressed, uncompressed;
	uint64_t compression; /* md_hash of the compression string */
	bool indexed;         /* a Chunk Index named it */
};

/* A message of the chunk read last, for that chunk's Message Indexes. */
struct md_msg {
	uint64_t offset, log_time;
	uint16_t channel;
};

struct mcap_doctor {
	/* md_hash of each id's first record, 0 = not met yet */
	uint64_t schema[MD_IDS], channel[MD_IDS];
	uint64_t count[MD_IDS]; /* messages per channel */
	uint64_t n_messages;
	bool statistics;  /* a Statistics record was met */
	bool chunk_open;  /* the records fed are (or were until now) a chunk's */
	bool indexes_ok;  /* a Message Index may come now */
	struct md_msg *msgs; /* the messages of the chunk read last, in offset order */
	size_t n_msgs, cap_msgs;
	struct md_chunk *chunks; /* every chunk, in file order */
	size_t n_chunks, cap_chunks;
	bool broken;
};

struct mcap_doctor *mcap_doctor_new(void)
{
	return calloc(1, sizeof(struct mcap_doctor));
}

void mcap_doctor_free(struct mcap_doctor *d)
{
	if (!d)
		return;
	free(d->msgs);
	free(d->chunks);
	free(d);
}

/* ---- helpers ---- */

static uint64_t md_hash(uint64_t h, const void *p, uint64_t len)
{
	/* FNV-1a, the length first: ("ab", "c") and ("a", "bc") differ */
	for (int i = 0; i < 8; i++)
		h = (h ^ (uint8_t)(len >> (8 * i))) * 0x100000001b3ull;
	const uint8_t *b = p;
	for (uint64_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define MD_SEED 0xcbf29ce484222325ull

/* Never 0, which means "not met". */
static uint64_t md_schema_hash(const struct mcap_schema *s)
{
	uint64_t h = md_hash(MD_SEED, s->name.p, s->name.len);
	h = md_hash(h, s->encoding.p, s->encoding.len);
	return md_hash(h, s->data.p, s->data.len) | 1;
}

static uint64_t md_channel_hash(const struct mcap_channel *c)
{
	uint8_t sid[2] = {(uint8_t)c->schema_id, (uint8_t)(c->schema_id >> 8)};
	uint64_t h = md_hash(MD_SEED, sid, sizeof sid);
	h = md_hash(h, c->topic.p, c->topic.len);
	h = md_hash(h, c->message_encoding.p, c->message_encoding.len);
	return md_hash(h, c->metadata.p, c->metadata.len) | 1;
}

/* Fills why with "the <Record> record at offset N[ of the chunk at offset
 * C]" and what follows; returns false, for `return md_fail(...)`. */
static bool md_fail(const struct mcap_item *it, char *why, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool md_fail(const struct mcap_item *it, char *why, size_t n, const char *fmt, ...)
{
	int k;
	if (it->in_chunk)
		k = snprintf(why, n, "the %s record at offset %" PRIu64 " of the chunk at offset %" PRIu64,
			     mcap_opcode_name(it->rec.opcode), it->offset, it->chunk_offset);
	else
		k = snprintf(why, n, "the %s record at offset %" PRIu64,
			     mcap_opcode_name(it->rec.opcode), it->offset);
	if (k >= 0 && (size_t)k < n) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(why + k, n - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* ---- schemas and channels ---- */

/* The first record of an id is kept; a later one must be the same. */
static bool md_same(uint64_t *seen, uint64_t h, uint16_t id, const struct mcap_item *it,
		    char *why, size_t n)
{
	if (*seen && *seen != h)
		return md_fail(it, why, n, " (id %u) differs from the earlier %s record with that id",
			       id, mcap_opcode_name(it->rec.opcode));
	*seen = h;
	return true;
}

static bool md_schema(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n)
{
	const struct mcap_schema *s = &it->rec.u.schema;
	if (s->id == 0)
		return md_fail(it, why, n, " has id 0, which the specification reserves");
	if (s->encoding.len == 0 && s->data.len != 0)
		return md_fail(it, why, n, " (id %u) has no encoding but %" PRIu64 " bytes of data",
			       s->id, s->data.len);
	return md_same(&d->schema[s->id], md_schema_hash(s), s->id, it, why, n);
}

static bool md_channel(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n)
{
	const struct mcap_channel *c = &it->rec.u.channel;
	if (c->schema_id != 0 && !d->schema[c->schema_id])
		return md_fail(it, why, n, " (id %u, topic '%.*s') refers to schema %u before any "
			       "Schema record with that id", c->id,
			       (int)(c->topic.len > 200 ? 200 : c->topic.len), c->topic.p,
			       c->schema_id);
	return md_same(&d->channel[c->id], md_channel_hash(c), c->id, it, why, n);
}

/* ---- messages and chunks ---- */

static bool md_message(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n)
{
	const struct mcap_message *m = &it->rec.u.message;
	if (!d->channel[m->channel_id])
		return md_fail(it, why, n, " is on channel %u, before any Channel record with that id",
			       m->channel_id);
	d->count[m->channel_id]++;
	d->n_messages++;
	if (!it->in_chunk)
		return true;
	/* bt_grow, not bt_xgrow: the file decides how many */
	if (!bt_grow((void **)&d->msgs, &d->cap_msgs, d->n_msgs + 1, sizeof *d->msgs))
		return md_fail(it, why, n, ": out of memory");
	d->msgs[d->n_msgs++] = (struct md_msg){it->offset, m->log_time, m->channel_id};
	return true;
}

static bool md_chunk_begin(struct mcap_doctor *d, const struct mcap_item *it, char *why,
			   size_t n)
{
	const struct mcap_chunk *c = &it->rec.u.chunk;
	if (!bt_grow((void **)&d->chunks, &d->cap_chunks, d->n_chunks + 1, sizeof *d->chunks))
		return md_fail(it, why, n, ": out of memory");
	d->chunks[d->n_chunks++] = (struct md_chunk){
		.offset = it->offset,
		.length = 9 + it->rec.length,
		.start = c->message_start_time,
		.end = c->message_end_time,
		.compressed = c->records.len,
		.uncompressed = c->uncompressed_size,
		.compression = md_hash(MD_SEED, c->compression.p, c->compression.len),
	};
	d->chunk_open = true;
	d->n_msgs = 0;
	return true;
}

/* The chunk's records are all fed (the record after them has come): its
 * time range must be its messages'. */
static bool md_chunk_end(struct mcap_doctor *d, char *why, size_t n)
{
	const struct md_chunk *c = &d->chunks[d->n_chunks - 1];
	d->chunk_open = false;
	if (d->n_msgs == 0) /* the times say nothing then (0 by the spec) */
		return true;
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < d->n_msgs; i++) {
		lo = d->msgs[i].log_time < lo ? d->msgs[i].log_time : lo;
		hi = d->msgs[i].log_time > hi ? d->msgs[i].log_time : hi;
	}
	if (c->start == lo && c->end == hi)
		return true;
	snprintf(why, n, "the Chunk record at offset %" PRIu64 " says its messages' log_time runs "
		 "from %" PRIu64 " to %" PRIu64 "; they run from %" PRIu64 " to %" PRIu64,
		 c->offset, c->start, c->end, lo, hi);
	return false;
}

static int md_msg_cmp(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, o = ((const struct md_msg *)elem)->offset;
	return k < o ? -1 : k > o;
}

static bool md_message_index(struct mcap_doctor *d, const struct mcap_item *it, char *why,
			     size_t n)
{
	const struct mcap_message_index *mi = &it->rec.u.message_index;
	if (!d->indexes_ok)
		return md_fail(it, why, n, " follows no Chunk");
	uint64_t chunk = d->chunks[d->n_chunks - 1].offset;
	for (uint64_t i = 0; i < mi->count; i++) {
		uint64_t t = mcap_get_u64(mi->entries + 16 * i);
		uint64_t at = mcap_get_u64(mi->entries + 16 * i + 8);
		/* (bsearch's array must not be NULL, even when empty) */
		const struct md_msg *m =
			d->n_msgs ? bsearch(&at, d->msgs, d->n_msgs, sizeof *m, md_msg_cmp) : NULL;
		if (!m)
			return md_fail(it, why, n, " (channel %u) points at offset %" PRIu64 " of the "
				       "chunk at offset %" PRIu64 ", where no message is",
				       mi->channel_id, at, chunk);
		if (m->channel != mi->channel_id || m->log_time != t)
			return md_fail(it, why, n, " (channel %u) says the message at offset %" PRIu64
				       " of the chunk at offset %" PRIu64 " has log_time %" PRIu64
				       "; it is on channel %u with log_time %" PRIu64,
				       mi->channel_id, at, chunk, t, m->channel, m->log_time);
	}
	return true;
}

static int md_chunk_cmp(const void *key, const void *elem)
{
	uint64_t k = *(const uint64_t *)key, o = ((const struct md_chunk *)elem)->offset;
	return k < o ? -1 : k > o;
}

static bool md_chunk_index(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n)
{
	const struct mcap_chunk_index *ci = &it->rec.u.chunk_index;
	struct md_chunk *c = d->n_chunks ? bsearch(&ci->chunk_start_offset, d->chunks, d->n_chunks,
						   sizeof *c, md_chunk_cmp)
					 : NULL;
	if (!c)
		return md_fail(it, why, n, " points at offset %" PRIu64 ", where no chunk starts",
			       ci->chunk_start_offset);
	if (c->indexed)
		return md_fail(it, why, n, " is the second for the chunk at offset %" PRIu64,
			       c->offset);
	c->indexed = true;
	const char *what = c->length != ci->chunk_length ? "length"
			   : c->start != ci->message_start_time ? "message_start_time"
			   : c->end != ci->message_end_time ? "message_end_time"
			   : c->compression != md_hash(MD_SEED, ci->compression.p, ci->compression.len)
				   ? "compression"
			   : c->compressed != ci->compressed_size ? "compressed_size"
			   : c->uncompressed != ci->uncompressed_size ? "uncompressed_size"
								      : NULL;
	if (what)
		return md_fail(it, why, n, " gives the chunk at offset %" PRIu64 " another %s than "
			       "its Chunk record", c->offset, what);
	return true;
}

/* ---- statistics ---- */

static bool md_statistics(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n)
{
	const struct mcap_statistics *s = &it->rec.u.statistics;
	if (d->statistics)
		return md_fail(it, why, n, " is the file's second");
	d->statistics = true;
	if (s->message_count != d->n_messages)
		return md_fail(it, why, n, " counts %" PRIu64 " messages; the file has %" PRIu64,
			       s->message_count, d->n_messages);
	struct mcap_map m = s->channel_message_counts;
	uint16_t ch;
	uint64_t count, listed = 0;
	while (mcap_map_next_u16(&m, &ch, &count)) {
		if (count != d->count[ch])
			return md_fail(it, why, n, " counts %" PRIu64 " messages on channel %u; the "
				       "file has %" PRIu64, count, ch, d->count[ch]);
		listed += count;
	}
	/* a channel with messages that the map leaves out (read as 0), or one
	 * it lists twice */
	if (listed < d->n_messages)
		return md_fail(it, why, n, " leaves out channels holding %" PRIu64 " of the file's "
			       "messages", d->n_messages - listed);
	if (listed > d->n_messages)
		return md_fail(it, why, n, " lists a channel twice (%" PRIu64 " messages in all, of "
			       "%" PRIu64 ")", listed, d->n_messages);
	return true;
}

/* ---- the stream ---- */

static bool md_check(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n)
{
	uint8_t op = it->rec.opcode;
	if (!it->in_chunk) {
		if (d->chunk_open && !md_chunk_end(d, why, n))
			return false;
		if (op != MCAP_OP_MESSAGE_INDEX)
			d->indexes_ok = op == MCAP_OP_CHUNK;
	}
	switch (op) {
	case MCAP_OP_SCHEMA: return md_schema(d, it, why, n);
	case MCAP_OP_CHANNEL: return md_channel(d, it, why, n);
	case MCAP_OP_MESSAGE: return md_message(d, it, why, n);
	case MCAP_OP_CHUNK: return md_chunk_begin(d, it, why, n);
	case MCAP_OP_MESSAGE_INDEX: return md_message_index(d, it, why, n);
	case MCAP_OP_CHUNK_INDEX: return md_chunk_index(d, it, why, n);
	case MCAP_OP_STATISTICS: return md_statistics(d, it, why, n);
	default: return true;
	}
}

bool mcap_doctor_feed(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n)
{
	if (!d->broken && !md_check(d, it, why, n))
		d->broken = true;
	return !d->broken;
}
