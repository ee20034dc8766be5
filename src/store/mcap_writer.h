/* mcap_writer — writes an MCAP file (https://mcap.dev/spec): Header, schemas,
 * channels, messages (in chunks, optionally zstd/lz4-compressed, each chunk
 * followed by its message indexes), metadata and attachments, then DataEnd,
 * the summary (schemas, channels, statistics, metadata/attachment/chunk
 * indexes), summary offsets and Footer.
 *
 * Threads: a writer is used by one thread at a time; writers are independent.
 * Buffers: every pointer passed in is only read during the call (data is
 * copied into the open chunk or written out; message data lent between
 * borrow_begin and borrow_end is read until borrow_end); the writer owns
 * its memory.
 * Errors: every function returns a bt_status and fills *err. After an I/O
 * error the writer refuses further writes (BT_ERR_STATE) but can still be
 * closed; what reached the file before stays valid up to the last complete
 * chunk (mcap_reader_recover finds it).
 * Memory: writing a message allocates nothing once the chunk buffer and the
 * channel's message index have grown to their working size.
 * Page cache: with write_behind, the file is written with direct I/O where
 * its file system takes it (bt_dio: after a flush the file may end in
 * zeros, up to a 4 KiB block, until more is written or it is closed),
 * else what is written leaves the page cache behind the writer
 * (bt_wbehind), so a recording does not fill it. Also memory: 1 MiB for
 * direct I/O's aligned buffer, and up to as much again in the chunk
 * buffer, which then keeps room for what that buffer has staged in front
 * of the chunk, so that a chunk that is not compressed is written from
 * where it was built rather than copied there first (a message larger
 * than that 1 MiB is written from where it is and never enters the chunk
 * buffer). */
#ifndef MCAP_WRITER_H
#define MCAP_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "store__mcap_z.h"

/* rosbag2's compressionLevel names; mapped to zstd levels -5, -3, 1, 5, 19
 * and lz4 levels 0, 0, 0 (fast), 9, 12 (high compression). */
enum mcap_level {
	MCAP_LEVEL_FASTEST,
	MCAP_LEVEL_FAST,
	MCAP_LEVEL_DEFAULT,
	MCAP_LEVEL_SLOW,
	MCAP_LEVEL_SLOWEST
};

#define MCAP_DEFAULT_CHUNK_SIZE (768u * 1024u)

/* The options of mcap::McapWriterOptions as rosbag2's MCAP storage reads
 * them from its YAML (key names in comments). Defaults are rosbag2's: 768 KiB
 * chunks, no compression, no chunk CRC; everything else on. */
struct mcap_writer_options {
	uint64_t chunk_size;               /* chunkSize */
	enum mcap_compression compression; /* compression: None | Lz4 | Zstd */
	enum mcap_level level;             /* compressionLevel */
	bool force_compression;  /* forceCompression: keep compressed even if larger */
	bool no_chunk_crc;       /* noChunkCRC */
	bool no_attachment_crc;  /* noAttachmentCRC */
	bool enable_data_crc;    /* enableDataCRC: DataEnd's CRC of the data section */
	bool no_summary_crc;     /* noSummaryCRC */
	bool no_chunking;        /* noChunking: messages as loose records */
	bool no_message_index;   /* noMessageIndex */
	bool no_summary;         /* noSummary: no summary section at all */
	bool no_repeated_schemas;  /* noRepeatedSchemas */
	bool no_repeated_channels; /* noRepeatedChannels */
	bool no_attachment_index;  /* noAttachmentIndex */
	bool no_metadata_index;    /* noMetadataIndex */
	bool no_chunk_index;       /* noChunkIndex */
	bool no_statistics;        /* noStatistics */
	bool no_summary_offsets;   /* noSummaryOffsets */
	/* bagtop's own, not rosbag2's, for a file written as a stream: direct
	 * I/O where the file system takes it (bt_dio), else each 8 MiB written
	 * is handed to the kernel's write-back at once and dropped from the
	 * page cache 32 MiB later (bt_wbehind). */
	bool write_behind;
	/* bagtop's own: Schema and Channel records wait, loose (outside
	 * chunks), until just before the chunk that holds the channel's first
	 * messages is written (with noChunking, its first message), or the
	 * end of the data section: until then mcap_writer_update_schema can
	 * still change a schema, for a definition learned after its topic was
	 * created (a plain DDS type's XTypes type information, say). */
	bool late_definitions;
	/* Tests only: 3 extra bytes after the fields of every record that may
	 * have them, outside chunks, as the conformance suite's "pad" files do,
	 * so readers' skipping of unknown trailing bytes can be checked. */
	bool test_pad_records;
	/* Tests only: with write_behind, bt_dio's staging and placed writes on
	 * any file system, O_DIRECT left off (bt_dio_start's `force`). */
	bool test_dio_force;
};

struct mcap_writer;

/* Fills *o with the defaults above. */
void mcap_writer_options_init(struct mcap_writer_options *o);

/* Sets one option from rosbag2's YAML key and value text ("true"/"false",
 * an integer for chunkSize, None|Lz4|Zstd, Fastest|Fast|Default|Slow|
 * Slowest). An unknown key or a bad value is BT_ERR_USAGE naming the key. */
BT_MUST_CHECK bt_status mcap_writer_option_set(struct mcap_writer_options *o, const char *key,
					       const char *value, struct bt_error *err);

/* Creates `path` (must not exist; mode 0644) and writes magic and Header.
 * *out is NULL on error. */
BT_MUST_CHECK bt_status mcap_writer_open(struct mcap_writer **out, const char *path,
					 const struct mcap_writer_options *o, const char *profile,
					 const char *library, struct bt_error *err);

/* Same on an open file descriptor positioned at offset 0 of an empty file.
 * The writer owns fd from now on (closes it), also on error. */
BT_MUST_CHECK bt_status mcap_writer_open_fd(struct mcap_writer **out, int fd,
					    const struct mcap_writer_options *o,
					    const char *profile, const char *library,
					    struct bt_error *err);

/* Adds a Schema; *id gets its id (1, 2, ... in call order). The record goes
 * into the open chunk (or the file when not chunking; later with
 * late_definitions) and, repeated, into the summary. */
BT_MUST_CHECK bt_status mcap_writer_add_schema(struct mcap_writer *w, const char *name,
					       const char *encoding, const void *data,
					       size_t len, uint16_t *id, struct bt_error *err);

/* Adds a Channel of `schema_id` (0: none, else a schema added before) with
 * n_meta key/value pairs meta[2i], meta[2i+1]; *id gets its id (1, 2, ...).
 * Its record goes where a Schema's does. */
BT_MUST_CHECK bt_status mcap_writer_add_channel(struct mcap_writer *w, const char *topic,
						const char *message_encoding, uint16_t schema_id,
						const char *const *meta, size_t n_meta,
						uint16_t *id, struct bt_error *err);

/* Replaces the encoding and data of schema `id` while its record has not
 * reached the file (late_definitions): *updated says whether it did.
 * Without late_definitions, or once written, *updated is false and the
 * file is unchanged: a written Schema cannot change. */
BT_MUST_CHECK bt_status mcap_writer_update_schema(struct mcap_writer *w, uint16_t id,
						  const char *encoding, const void *data,
						  size_t len, bool *updated, struct bt_error *err);

/* Writes one Message on a channel added before; copies data (or points at
 * it while borrowing). Closes and writes the chunk when it reaches
 * chunk_size; a message of 64 KiB or more that fills the chunk is written
 * from data then, not copied. */
BT_MUST_CHECK bt_status mcap_writer_write(struct mcap_writer *w, uint16_t channel_id,
					  uint32_t sequence, uint64_t log_time,
					  uint64_t publish_time, const void *data, size_t len,
					  struct bt_error *err);

/* From borrow_begin to borrow_end the caller lends the data it passes to
 * mcap_writer_write: it stays valid and unchanged until borrow_end returns,
 * and the writer may point at it instead of copying it (messages of 512
 * bytes and more, chunks not compressed), so that a chunk goes to the
 * kernel in one writev from where the messages are. borrow_end copies
 * into the open chunk what it still points at; it allocates nothing (the
 * room is reserved as messages are written) and cannot fail. The file is
 * the same either way. */
void mcap_writer_borrow_begin(struct mcap_writer *w);
void mcap_writer_borrow_end(struct mcap_writer *w);

/* Writes a Metadata record (outside chunks) with n key/value pairs. */
BT_MUST_CHECK bt_status mcap_writer_add_metadata(struct mcap_writer *w, const char *name,
						 const char *const *kv, size_t n,
						 struct bt_error *err);

/* Writes an Attachment record (outside chunks). */
BT_MUST_CHECK bt_status mcap_writer_add_attachment(struct mcap_writer *w, uint64_t log_time,
						   uint64_t create_time, const char *name,
						   const char *media_type, const void *data,
						   size_t len, struct bt_error *err);

/* Closes the open chunk (if it holds anything), writes it and its message
 * indexes, and hands every pending byte to the kernel; with `sync`, also
 * fdatasync. After BT_OK the file up to here survives a crash of the
 * process (or, with sync, of the machine) and mcap_reader_recover keeps it. */
BT_MUST_CHECK bt_status mcap_writer_flush(struct mcap_writer *w, bool sync, struct bt_error *err);

/* Bytes written so far, pending ones included (the file's size once
 * flushed, but for direct I/O's zero padding; the open chunk not
 * included). For split-by-size decisions. */
uint64_t mcap_writer_bytes(const struct mcap_writer *w);
/* Bytes of records in the open chunk (uncompressed), and of the schema and
 * channel records still pending (late_definitions). */
uint64_t mcap_writer_chunk_bytes(const struct mcap_writer *w);
/* Messages in the open chunk. */
uint64_t mcap_writer_chunk_messages(const struct mcap_writer *w);
/* With direct I/O (for tests and benchmarks): chunks that went to the file
 * from the writer's chunk buffer, with no copy into bt_dio's stage
 * (bt_dio_write_placed), and the times direct I/O paused (then chunks
 * are not placed). */
struct mcap_writer_dio_counts {
	uint64_t placed, paused;
};
struct mcap_writer_dio_counts mcap_writer_dio_counts(const struct mcap_writer *w);

/* Finishes the file (last chunk, DataEnd, summary, summary offsets, Footer,
 * magic), closes it and frees w, whatever the result. No fsync: call
 * mcap_writer_flush(w, true, ...) first when it must be durable. */
BT_MUST_CHECK bt_status mcap_writer_close(struct mcap_writer *w, struct bt_error *err);

/* Frees w and closes its fd without finishing the file (error paths);
 * bytes staged for direct I/O are written first, its zero padding cut.
 * NULL is a no-op. */
void mcap_writer_abandon(struct mcap_writer *w);

#endif
