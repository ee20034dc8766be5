/* mcap_record — parse and encode MCAP records; see mcap_record.h.
 *
 * The parser walks a body with a cursor that refuses to step past the end:
 * every read checks the bytes left first, so a field claiming 2^63 bytes is
 * an error, never a read past the buffer. */
#include "mcap_record.h"

#include <assert.h>
#include <string.h>
#include <zlib.h>

const uint8_t mcap_magic[MCAP_MAGIC_LEN] = {0x89, 'M', 'C', 'A', 'P', '0', '\r', '\n'};

static const char *const mcap_names[] = {
	"Unknown",    "Header",        "Footer",          "Schema",     "Channel",
	"Message",    "Chunk",         "MessageIndex",    "ChunkIndex", "Attachment",
	"AttachmentIndex", "Statistics", "Metadata",      "MetadataIndex", "SummaryOffset",
	"DataEnd"};

bool mcap_opcode_known(uint8_t op)
{
	return op >= MCAP_OP_HEADER && op <= MCAP_OP_DATA_END;
}

const char *mcap_opcode_name(uint8_t op)
{
	return mcap_opcode_known(op) ? mcap_names[op] : mcap_names[0];
}

uint32_t mcap_crc32(uint32_t crc, const void *data, size_t len)
{
	return (uint32_t)crc32_z(crc, data, len);
}

/* ---- parsing ---- */

struct mcap_cur {
	const uint8_t *p;
	uint64_t left;
	const char *field; /* the field that did not fit, for the message */
};

static bool cur_take(struct mcap_cur *c, uint64_t n, const uint8_t **out, const char *field)
{
	if (n > c->left) {
		c->field = field;
		return false;
	}
	*out = c->p;
	c->p += n;
	c->left -= n;
	return true;
}

/* Reads the little-endian unsigned integer of n bytes (1, 2, 4 or 8) into
 * v, an integer of that size: one reader serves every width of field, each
 * width still one load (mcap_get_*). */
static bool cur_uint(struct mcap_cur *c, void *v, size_t n, const char *f)
{
	const uint8_t *p;
	if (!cur_take(c, n, &p, f))
		return false;
	switch (n) {
	case 1: *(uint8_t *)v = p[0]; break;
	case 2: *(uint16_t *)v = mcap_get_u16(p); break;
	case 4: *(uint32_t *)v = mcap_get_u32(p); break;
	case 8: *(uint64_t *)v = mcap_get_u64(p); break;
	default: assert(!"an integer field of 1, 2, 4 or 8 bytes");
	}
	return true;
}

/* The width is the field's: mcap_record.h gives each field the spec's type.
 * _Generic refuses any other pointer (a bool or an enum) at compile time. */
#define CUR_UINT(c, v, f)                                                                          \
	cur_uint(c,                                                                                \
		 _Generic((v), uint8_t *: (v), uint16_t *: (v), uint32_t *: (v), uint64_t *: (v)), \
		 sizeof *(v), f)

/* A u32 length and the bytes it counts: strings, byte arrays and maps. */
static bool cur_len32(struct mcap_cur *c, uint32_t *len, const uint8_t **p, const char *f)
{
	return CUR_UINT(c, len, f) && cur_take(c, *len, p, f);
}

static bool cur_str(struct mcap_cur *c, struct mcap_str *s, const char *f)
{
	const uint8_t *p;
	if (!cur_len32(c, &s->len, &p, f))
		return false;
	s->p = (const char *)p;
	return true;
}

static bool cur_bytes32(struct mcap_cur *c, struct mcap_bytes *b, const char *f)
{
	uint32_t n;
	if (!cur_len32(c, &n, &b->p, f))
		return false;
	b->len = n;
	return true;
}

static bool cur_bytes64(struct mcap_cur *c, struct mcap_bytes *b, const char *f)
{
	return CUR_UINT(c, &b->len, f) && cur_take(c, b->len, &b->p, f);
}

/* A string → string map: every entry must fit, and fill the map exactly. */
static bool cur_map_str(struct mcap_cur *c, struct mcap_map *m, const char *f)
{
	if (!cur_len32(c, &m->len, &m->p, f))
		return false;
	struct mcap_cur in = {m->p, m->len, NULL};
	struct mcap_str k, v;
	while (in.left > 0) {
		if (!cur_str(&in, &k, f) || !cur_str(&in, &v, f)) {
			c->field = f;
			return false;
		}
	}
	return true;
}

static bool cur_map_u16(struct mcap_cur *c, struct mcap_map *m, const char *f)
{
	if (!cur_len32(c, &m->len, &m->p, f))
		return false;
	if (m->len % 10 != 0) {
		c->field = f;
		return false;
	}
	return true;
}

bool mcap_map_next_str(struct mcap_map *it, struct mcap_str *key, struct mcap_str *val)
{
	struct mcap_cur c = {it->p, it->len, NULL};
	if (it->len == 0 || !cur_str(&c, key, "") || !cur_str(&c, val, ""))
		return false;
	it->p = c.p;
	it->len = (uint32_t)c.left;
	return true;
}

bool mcap_map_next_u16(struct mcap_map *it, uint16_t *key, uint64_t *val)
{
	if (it->len < 10)
		return false;
	*key = mcap_get_u16(it->p);
	*val = mcap_get_u64(it->p + 2);
	it->p += 10;
	it->len -= 10;
	return true;
}

static bool parse_header(struct mcap_cur *c, struct mcap_record *r)
{
	return cur_str(c, &r->u.header.profile, "profile") &&
	       cur_str(c, &r->u.header.library, "library");
}

static bool parse_footer(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_footer *f = &r->u.footer;
	return CUR_UINT(c, &f->summary_start, "summary_start") &&
	       CUR_UINT(c, &f->summary_offset_start, "summary_offset_start") &&
	       CUR_UINT(c, &f->summary_crc, "summary_crc");
}

static bool parse_schema(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_schema *s = &r->u.schema;
	return CUR_UINT(c, &s->id, "id") && cur_str(c, &s->name, "name") &&
	       cur_str(c, &s->encoding, "encoding") && cur_bytes32(c, &s->data, "data");
}

static bool parse_channel(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_channel *ch = &r->u.channel;
	return CUR_UINT(c, &ch->id, "id") && CUR_UINT(c, &ch->schema_id, "schema_id") &&
	       cur_str(c, &ch->topic, "topic") &&
	       cur_str(c, &ch->message_encoding, "message_encoding") &&
	       cur_map_str(c, &ch->metadata, "metadata");
}

static bool parse_message(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_message *m = &r->u.message;
	if (!CUR_UINT(c, &m->channel_id, "channel_id") || !CUR_UINT(c, &m->sequence, "sequence") ||
	    !CUR_UINT(c, &m->log_time, "log_time") || !CUR_UINT(c, &m->publish_time, "publish_time"))
		return false;
	m->data.len = c->left; /* the rest of the record: a message has no padding */
	return cur_take(c, c->left, &m->data.p, "data");
}

static bool parse_chunk(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_chunk *k = &r->u.chunk;
	return CUR_UINT(c, &k->message_start_time, "message_start_time") &&
	       CUR_UINT(c, &k->message_end_time, "message_end_time") &&
	       CUR_UINT(c, &k->uncompressed_size, "uncompressed_size") &&
	       CUR_UINT(c, &k->uncompressed_crc, "uncompressed_crc") &&
	       cur_str(c, &k->compression, "compression") &&
	       cur_bytes64(c, &k->records, "records");
}

static bool parse_message_index(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_message_index *mi = &r->u.message_index;
	struct mcap_bytes b;
	if (!CUR_UINT(c, &mi->channel_id, "channel_id") || !cur_bytes32(c, &b, "records"))
		return false;
	if (b.len % 16 != 0) {
		c->field = "records";
		return false;
	}
	mi->count = b.len / 16;
	mi->entries = b.p;
	return true;
}

static bool parse_chunk_index(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_chunk_index *x = &r->u.chunk_index;
	return CUR_UINT(c, &x->message_start_time, "message_start_time") &&
	       CUR_UINT(c, &x->message_end_time, "message_end_time") &&
	       CUR_UINT(c, &x->chunk_start_offset, "chunk_start_offset") &&
	       CUR_UINT(c, &x->chunk_length, "chunk_length") &&
	       cur_map_u16(c, &x->message_index_offsets, "message_index_offsets") &&
	       CUR_UINT(c, &x->message_index_length, "message_index_length") &&
	       cur_str(c, &x->compression, "compression") &&
	       CUR_UINT(c, &x->compressed_size, "compressed_size") &&
	       CUR_UINT(c, &x->uncompressed_size, "uncompressed_size");
}

static bool parse_attachment(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_attachment *a = &r->u.attachment;
	const uint8_t *start = c->p;
	if (!CUR_UINT(c, &a->log_time, "log_time") || !CUR_UINT(c, &a->create_time, "create_time") ||
	    !cur_str(c, &a->name, "name") || !cur_str(c, &a->media_type, "media_type") ||
	    !cur_bytes64(c, &a->data, "data"))
		return false;
	a->crc_computed = mcap_crc32(0, start, (size_t)(c->p - start));
	return CUR_UINT(c, &a->crc, "crc");
}

static bool parse_attachment_index(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_attachment_index *a = &r->u.attachment_index;
	return CUR_UINT(c, &a->offset, "offset") && CUR_UINT(c, &a->length, "length") &&
	       CUR_UINT(c, &a->log_time, "log_time") && CUR_UINT(c, &a->create_time, "create_time") &&
	       CUR_UINT(c, &a->data_size, "data_size") && cur_str(c, &a->name, "name") &&
	       cur_str(c, &a->media_type, "media_type");
}

static bool parse_statistics(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_statistics *s = &r->u.statistics;
	return CUR_UINT(c, &s->message_count, "message_count") &&
	       CUR_UINT(c, &s->schema_count, "schema_count") &&
	       CUR_UINT(c, &s->channel_count, "channel_count") &&
	       CUR_UINT(c, &s->attachment_count, "attachment_count") &&
	       CUR_UINT(c, &s->metadata_count, "metadata_count") &&
	       CUR_UINT(c, &s->chunk_count, "chunk_count") &&
	       CUR_UINT(c, &s->message_start_time, "message_start_time") &&
	       CUR_UINT(c, &s->message_end_time, "message_end_time") &&
	       cur_map_u16(c, &s->channel_message_counts, "channel_message_counts");
}

static bool parse_metadata(struct mcap_cur *c, struct mcap_record *r)
{
	return cur_str(c, &r->u.metadata.name, "name") &&
	       cur_map_str(c, &r->u.metadata.metadata, "metadata");
}

static bool parse_metadata_index(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_metadata_index *m = &r->u.metadata_index;
	return CUR_UINT(c, &m->offset, "offset") && CUR_UINT(c, &m->length, "length") &&
	       cur_str(c, &m->name, "name");
}

static bool parse_summary_offset(struct mcap_cur *c, struct mcap_record *r)
{
	struct mcap_summary_offset *s = &r->u.summary_offset;
	return CUR_UINT(c, &s->group_opcode, "group_opcode") &&
	       CUR_UINT(c, &s->group_start, "group_start") &&
	       CUR_UINT(c, &s->group_length, "group_length");
}

static bool parse_data_end(struct mcap_cur *c, struct mcap_record *r)
{
	return CUR_UINT(c, &r->u.data_end.data_section_crc, "data_section_crc");
}

typedef bool (*mcap_parse_fn)(struct mcap_cur *c, struct mcap_record *r);

static const mcap_parse_fn mcap_parsers[] = {
	NULL,           parse_header,           parse_footer,     parse_schema,
	parse_channel,  parse_message,          parse_chunk,      parse_message_index,
	parse_chunk_index, parse_attachment,    parse_attachment_index, parse_statistics,
	parse_metadata, parse_metadata_index,   parse_summary_offset, parse_data_end};

bt_status mcap_record_parse(uint8_t op, const uint8_t *body, uint64_t len, struct mcap_record *out,
			    struct bt_error *err)
{
	memset(out, 0, sizeof *out);
	out->opcode = op;
	out->length = len;
	out->body = body;
	/* The specification makes 0x00 no opcode: not an unknown record to
	 * skip but damage, e.g. the zeros a file written with direct I/O
	 * ends in when cut short (bt_dio). */
	if (op == 0)
		return bt_err_set(err, BT_ERR_FORMAT, "opcode 0x00 is not a record (zeros)");
	if (!mcap_opcode_known(op))
		return BT_OK;
	struct mcap_cur c = {body, len, NULL};
	if (!mcap_parsers[op](&c, out))
		return bt_err_set(err, BT_ERR_FORMAT, "%s record of %llu bytes: field %s does not fit",
				  mcap_opcode_name(op), (unsigned long long)len,
				  c.field ? c.field : "?");
	return BT_OK;
}

/* ---- encoding ---- */

bt_status mcap_enc_u8(struct bt_buf *b, uint8_t v)
{
	return bt_buf_append(b, &v, 1);
}

bt_status mcap_enc_u16(struct bt_buf *b, uint16_t v)
{
	uint8_t p[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
	return bt_buf_append(b, p, 2);
}

bt_status mcap_enc_u32(struct bt_buf *b, uint32_t v)
{
	uint8_t p[4];
	mcap_put_u32(p, v);
	return bt_buf_append(b, p, 4);
}

bt_status mcap_enc_u64(struct bt_buf *b, uint64_t v)
{
	uint8_t p[8];
	mcap_put_u64(p, v);
	return bt_buf_append(b, p, 8);
}

bt_status mcap_enc_str(struct bt_buf *b, const char *s, size_t len)
{
	if (len > UINT32_MAX)
		return BT_ERR_TOOBIG;
	size_t old = b->len;
	bt_status st = mcap_enc_u32(b, (uint32_t)len);
	if (st == BT_OK && len)
		st = bt_buf_append(b, s, len);
	if (st != BT_OK)
		b->len = old;
	return st;
}

bt_status mcap_enc_map_str(struct bt_buf *b, const char *const *kv, size_t n)
{
	size_t old = b->len, mark = b->len;
	bt_status st = mcap_enc_u32(b, 0);
	for (size_t i = 0; st == BT_OK && i < 2 * n; i++)
		st = mcap_enc_str(b, kv[i], strlen(kv[i]));
	if (st == BT_OK && b->len - mark - 4 > UINT32_MAX)
		st = BT_ERR_TOOBIG;
	if (st != BT_OK) {
		b->len = old;
		return st;
	}
	mcap_put_u32((uint8_t *)b->data + mark, (uint32_t)(b->len - mark - 4));
	return BT_OK;
}

bt_status mcap_enc_begin(struct bt_buf *b, uint8_t op, size_t *mark)
{
	size_t old = b->len;
	bt_status st = mcap_enc_u8(b, op);
	if (st == BT_OK)
		st = mcap_enc_u64(b, 0);
	if (st != BT_OK) {
		b->len = old;
		return st;
	}
	*mark = b->len - 8;
	return BT_OK;
}

void mcap_enc_end(struct bt_buf *b, size_t mark)
{
	mcap_put_u64((uint8_t *)b->data + mark, (uint64_t)(b->len - mark - 8));
}
