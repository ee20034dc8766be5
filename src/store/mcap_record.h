/* mcap_record — the records of the MCAP file format (https://mcap.dev/spec):
 * their opcodes, a parsed view of each, and the bounds-checked parser and the
 * encoders the reader and writer share. Knows nothing of rosbag2, sqlite or
 * DDS.
 *
 * A parsed record is a view: its strings, byte fields and maps point into the
 * buffer that was parsed and live as long as that buffer. Strings are NOT
 * NUL-terminated (use .len). Every length inside a record is checked against
 * the record's own length; extra bytes after the known fields (the spec's
 * padding) are ignored; unknown opcodes parse to a record with no fields.
 * No function here keeps state: any thread may call them. */
#ifndef MCAP_RECORD_H
#define MCAP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_status.h"

#define MCAP_MAGIC_LEN 8
/* opcode (1) + length (8) */
#define MCAP_RECORD_PREFIX 9
/* A Footer record, prefix included, is always this long. */
#define MCAP_FOOTER_LEN (MCAP_RECORD_PREFIX + 20)

extern const uint8_t mcap_magic[MCAP_MAGIC_LEN];

enum mcap_opcode {
	MCAP_OP_HEADER = 0x01,
	MCAP_OP_FOOTER = 0x02,
	MCAP_OP_SCHEMA = 0x03,
	MCAP_OP_CHANNEL = 0x04,
	MCAP_OP_MESSAGE = 0x05,
	MCAP_OP_CHUNK = 0x06,
	MCAP_OP_MESSAGE_INDEX = 0x07,
	MCAP_OP_CHUNK_INDEX = 0x08,
	MCAP_OP_ATTACHMENT = 0x09,
	MCAP_OP_ATTACHMENT_INDEX = 0x0A,
	MCAP_OP_STATISTICS = 0x0B,
	MCAP_OP_METADATA = 0x0C,
	MCAP_OP_METADATA_INDEX = 0x0D,
	MCAP_OP_SUMMARY_OFFSET = 0x0E,
	MCAP_OP_DATA_END = 0x0F
};

struct mcap_str {
	const char *p;
	uint32_t len;
};

struct mcap_bytes {
	const uint8_t *p;
	uint64_t len;
};

/* A map's raw entries, already validated by the parser; walk it with
 * mcap_map_next_str (string → string) or mcap_map_next_u16 (u16 → u64). */
struct mcap_map {
	const uint8_t *p;
	uint32_t len;
};

struct mcap_header {
	struct mcap_str profile, library;
};
struct mcap_footer {
	uint64_t summary_start, summary_offset_start;
	uint32_t summary_crc;
};
struct mcap_schema {
	uint16_t id;
	struct mcap_str name, encoding;
	struct mcap_bytes data;
};
struct mcap_channel {
	uint16_t id, schema_id;
	struct mcap_str topic, message_encoding;
	struct mcap_map metadata;
};
struct mcap_message {
	uint16_t channel_id;
	uint32_t sequence;
	uint64_t log_time, publish_time;
	struct mcap_bytes data;
};
struct mcap_chunk {
	uint64_t message_start_time, message_end_time, uncompressed_size;
	uint32_t uncompressed_crc;
	struct mcap_str compression;
	struct mcap_bytes records; /* compressed as `compression` says */
};
struct mcap_message_index {
	uint16_t channel_id;
	uint64_t count;        /* entries of 16 bytes: log_time u64, offset u64 */
	const uint8_t *entries;
};
struct mcap_chunk_index {
	uint64_t message_start_time, message_end_time, chunk_start_offset, chunk_length;
	struct mcap_map message_index_offsets; /* u16 channel → u64 offset */
	uint64_t message_index_length;
	struct mcap_str compression;
	uint64_t compressed_size, uncompressed_size;
};
struct mcap_attachment {
	uint64_t log_time, create_time;
	struct mcap_str name, media_type;
	struct mcap_bytes data;
	uint32_t crc;          /* 0: not computed by the writer */
	uint32_t crc_computed; /* CRC-32 of the fields before crc, as found */
};
struct mcap_attachment_index {
	uint64_t offset, length, log_time, create_time, data_size;
	struct mcap_str name, media_type;
};
struct mcap_statistics {
	uint64_t message_count;
	uint16_t schema_count;
	uint32_t channel_count, attachment_count, metadata_count, chunk_count;
	uint64_t message_start_time, message_end_time;
	struct mcap_map channel_message_counts; /* u16 channel → u64 count */
};
struct mcap_metadata {
	struct mcap_str name;
	struct mcap_map metadata;
};
struct mcap_metadata_index {
	uint64_t offset, length;
	struct mcap_str name;
};
struct mcap_summary_offset {
	uint8_t group_opcode;
	uint64_t group_start, group_length;
};
struct mcap_data_end {
	uint32_t data_section_crc;
};

struct mcap_record {
	uint8_t opcode;
	uint64_t length;     /* of the body */
	const uint8_t *body; /* the raw body (padding included) */
	union {
		struct mcap_header header;
		struct mcap_footer footer;
		struct mcap_schema schema;
		struct mcap_channel channel;
		struct mcap_message message;
		struct mcap_chunk chunk;
		struct mcap_message_index message_index;
		struct mcap_chunk_index chunk_index;
		struct mcap_attachment attachment;
		struct mcap_attachment_index attachment_index;
		struct mcap_statistics statistics;
		struct mcap_metadata metadata;
		struct mcap_metadata_index metadata_index;
		struct mcap_summary_offset summary_offset;
		struct mcap_data_end data_end;
	} u;
};

/* True for the opcodes this file knows (0x01..0x0F). */
bool mcap_opcode_known(uint8_t op);
/* The spec's name of an opcode ("Schema", "ChunkIndex", ...), or "Unknown". */
const char *mcap_opcode_name(uint8_t op);

/* Reads a little-endian integer from p (no bounds check: callers check).
 * Inline: on the per-message path, where each compiles to one load. */
static inline uint16_t mcap_get_u16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t mcap_get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t mcap_get_u64(const uint8_t *p)
{
	return (uint64_t)mcap_get_u32(p) | (uint64_t)mcap_get_u32(p + 4) << 32;
}

/* Writes a little-endian integer to p (no bounds check); inline, one store
 * on a little-endian host (GCC -O2 keeps a byte loop as byte stores, and
 * these are on the writer's per-message path). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
static inline void mcap_put_u32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, sizeof v);
}

static inline void mcap_put_u64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, sizeof v);
}
#else
static inline void mcap_put_u32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void mcap_put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}
#endif

/* Parses the body of a record of opcode `op` (body[0..len)) into *out. On a
 * field running past `len`, or a map whose entries do not fill its declared
 * length exactly, returns BT_ERR_FORMAT with the field named in *err; on
 * opcode 0x00, which the specification makes invalid, BT_ERR_FORMAT too
 * (other unknown opcodes: BT_OK, the body unparsed, to be skipped). */
BT_MUST_CHECK bt_status mcap_record_parse(uint8_t op, const uint8_t *body, uint64_t len,
					  struct mcap_record *out, struct bt_error *err);

/* Iterators over a validated map: return false at its end. */
bool mcap_map_next_str(struct mcap_map *it, struct mcap_str *key, struct mcap_str *val);
bool mcap_map_next_u16(struct mcap_map *it, uint16_t *key, uint64_t *val);

/* CRC-32 (ISO-HDLC, as the spec and zlib use). Start with crc = 0. */
uint32_t mcap_crc32(uint32_t crc, const void *data, size_t len);

/* --- encoders: append to a bt_buf; BT_ERR_NOMEM leaves it as it was --- */

/* Starts a record: appends opcode and a length placeholder; *mark is where
 * the length goes. mcap_enc_end fills it with the bytes appended since. */
BT_MUST_CHECK bt_status mcap_enc_begin(struct bt_buf *b, uint8_t op, size_t *mark);
void mcap_enc_end(struct bt_buf *b, size_t mark);
BT_MUST_CHECK bt_status mcap_enc_u8(struct bt_buf *b, uint8_t v);
BT_MUST_CHECK bt_status mcap_enc_u16(struct bt_buf *b, uint16_t v);
BT_MUST_CHECK bt_status mcap_enc_u32(struct bt_buf *b, uint32_t v);
BT_MUST_CHECK bt_status mcap_enc_u64(struct bt_buf *b, uint64_t v);
/* A u32-length-prefixed string of `len` bytes (len ≤ UINT32_MAX). */
BT_MUST_CHECK bt_status mcap_enc_str(struct bt_buf *b, const char *s, size_t len);
/* A string → string map from n key/value pairs kv[2i], kv[2i+1]. */
BT_MUST_CHECK bt_status mcap_enc_map_str(struct bt_buf *b, const char *const *kv, size_t n);

#endif
