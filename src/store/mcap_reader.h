/* mcap_reader — reads an MCAP file (https://mcap.dev/spec) three ways:
 *   - streamed: every record in file order, descending into chunks
 *     (mcap_reader_next);
 *   - indexed: schemas, channels, statistics and chunk/metadata/attachment
 *     indexes from the summary, or by scanning when the file has none or it
 *     is damaged (mcap_reader_index), then messages in log_time order across
 *     chunks (mcap_reader_messages_next);
 *   - recover: walks the data section and says where the last complete
 *     record ends (mcap_reader_recover), for rebuilding a file that ends
 *     without a footer.
 *
 * Nothing in the file is trusted: every length is checked against the file
 * size and against the reader's limit before anything is allocated or read;
 * a chunk is decompressed into exactly its declared size, which is capped
 * (so a zstd or lz4 bomb fails instead of growing); CRCs that the writer
 * filled in are checked. Files are read with pread, never mapped; small
 * reads (record prefixes, loose messages) come from a window of up to
 * 128 KiB read ahead, so the file is read once per pass whatever its
 * records' sizes. The file is taken as it was when opened (its size then).
 *
 * Threads: one thread at a time per reader; readers are independent.
 * Lifetimes: a record or message returned by next() points into the
 * reader's buffers and is valid until the next call on the reader; what
 * mcap_reader_summary() returns is valid until mcap_reader_close. */
#ifndef MCAP_READER_H
#define MCAP_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "mcap_record.h"

/* Default cap on one record read from the file and on one chunk's
 * decompressed size. */
#define MCAP_READER_LIMIT (1024ull * 1024u * 1024u)

struct mcap_reader;

/* Opens `path` (a regular file) for reading; *out is NULL on error. */
BT_MUST_CHECK bt_status mcap_reader_open(struct mcap_reader **out, const char *path,
					 struct bt_error *err);
/* Same on an open descriptor; the reader owns fd from now on, also on
 * error. */
BT_MUST_CHECK bt_status mcap_reader_open_fd(struct mcap_reader **out, int fd,
					    struct bt_error *err);
/* Closes the file and frees everything. NULL is a no-op. */
void mcap_reader_close(struct mcap_reader *r);

/* Lowers (or raises) the cap on one record / one decompressed chunk. */
void mcap_reader_set_limit(struct mcap_reader *r, uint64_t bytes);
uint64_t mcap_reader_file_size(const struct mcap_reader *r);

/* ---- streamed ---- */

struct mcap_item {
	struct mcap_record rec;
	uint64_t offset;   /* of the record in the file, or in its chunk's records */
	bool in_chunk;     /* true for the records found inside a chunk */
	uint64_t chunk_offset; /* file offset of that chunk */
};

/* Starts (or restarts) the streamed read: checks the leading magic. */
BT_MUST_CHECK bt_status mcap_reader_stream_begin(struct mcap_reader *r, struct bt_error *err);
/* The next record in file order; a Chunk is returned itself, then the
 * records inside it. Unknown opcodes come back with no fields (the caller
 * skips them). *end is true (and *it untouched) after the Footer and the
 * closing magic. A file that ends early, a record that does not fit, a chunk
 * that does not decompress to its size or fails its CRC, a data section CRC
 * mismatch: BT_ERR_FORMAT naming the offset; the stream then stays failed. */
BT_MUST_CHECK bt_status mcap_reader_next(struct mcap_reader *r, struct mcap_item *it, bool *end,
					 struct bt_error *err);

/* ---- recover ---- */

struct mcap_recovery {
	uint64_t good_end;  /* offset just past the last complete data record */
	uint64_t records;   /* complete top-level data records before good_end */
	uint64_t chunks, messages; /* in them (messages inside chunks counted) */
	bool complete;      /* DataEnd, a valid Footer and the closing magic found */
	struct bt_error why; /* when !complete: what stopped the walk, and where */
};

/* Walks the data section from the start and stops at the first truncated
 * or damaged record (a chunk counts only if it decompresses and its CRC, if
 * any, matches). BT_OK whatever the file holds (see out->complete); an
 * error only for I/O or memory failures, or a file without the MCAP magic. */
BT_MUST_CHECK bt_status mcap_reader_recover(struct mcap_reader *r, struct mcap_recovery *out,
					    struct bt_error *err);

/* ---- indexed ---- */

struct mcap_chunk_ref {
	uint64_t offset, length;       /* of the Chunk record */
	uint64_t start, end;           /* message log_time range */
	/* Bytes of the chunk's Message Index records, right after it, as its
	 * chunk index says (0: none, or not known: found by scanning) */
	uint64_t mi_length;
};

/* Everything known about the file once indexed. Schemas and channels are
 * distinct by id and sorted by id; they grow as the message read meets
 * definitions in chunks the summary did not repeat. */
struct mcap_summary {
	bool from_summary;         /* false: built by scanning the data section */
	struct bt_error scan_why;  /* why the summary was not used, if it was not */
	struct mcap_header header;
	struct mcap_schema *schemas;
	size_t n_schemas;
	struct mcap_channel *channels;
	size_t n_channels;
	bool has_statistics;        /* read from the file (from_summary) or counted */
	struct mcap_statistics statistics;
	struct mcap_chunk_ref *chunks;
	size_t n_chunks;
	struct mcap_metadata_index *metadata;
	size_t n_metadata;
	struct mcap_attachment_index *attachments;
	size_t n_attachments;
};

/* Reads the summary through the Footer; when there is none, or it is
 * damaged (bad CRC, a record that does not fit, an index pointing outside
 * the data section), scans the data section instead — up to the first
 * damaged record, as recover does — and counts statistics itself. */
BT_MUST_CHECK bt_status mcap_reader_index(struct mcap_reader *r, struct bt_error *err);
/* The result of mcap_reader_index (NULL before it). */
const struct mcap_summary *mcap_reader_summary(const struct mcap_reader *r);
const struct mcap_channel *mcap_reader_channel(const struct mcap_reader *r, uint16_t id);
const struct mcap_schema *mcap_reader_schema(const struct mcap_reader *r, uint16_t id);

/* Reads and parses the one record at file offset `offset` (e.g. a Metadata
 * or Attachment record its index points at); *out is valid until the next
 * call on the reader. A record not wholly inside the file, or over the
 * limit, is BT_ERR_FORMAT / BT_ERR_TOOBIG. */
BT_MUST_CHECK bt_status mcap_reader_record_at(struct mcap_reader *r, uint64_t offset,
					      struct mcap_record *out, struct bt_error *err);

/* Starts reading messages in log_time order (ties in file order) over all
 * chunks, and the messages outside chunks when the summary indexed no chunk.
 * Needs mcap_reader_index first. */
BT_MUST_CHECK bt_status mcap_reader_messages_begin(struct mcap_reader *r, struct bt_error *err);
/* The next message; *end true when there is none left. */
BT_MUST_CHECK bt_status mcap_reader_messages_next(struct mcap_reader *r, struct mcap_message *m,
						  bool *end, struct bt_error *err);

#endif
