/* store__mcap_reader — the reader's state and the helpers its two files
 * share (mcap_reader.c: file, streamed read, recover; mcap_index.c: summary,
 * scan, messages in log_time order). Private to src/store. */
#ifndef STORE__MCAP_READER_H
#define STORE__MCAP_READER_H

#include "mcap_reader.h"
#include "store__mcap_z.h"

/* One message to deliver: where it is and when it was logged. */
struct mcap_ent {
	uint64_t log_time;
	uint64_t off; /* in the chunk's records, or in the file (loose) */
	uint64_t len; /* record length, prefix included */
	uint64_t seq; /* position in its source, for stable order */
};

/* A source of messages being merged: a loaded chunk, or the loose ones. */
struct mcap_src {
	uint8_t *buf; /* decompressed chunk records; NULL for loose messages */
	uint64_t len;
	struct mcap_ent *ent;
	size_t n, pos;
	uint64_t order; /* the chunk's file offset: ties go to the earlier chunk */
};

/* Allocated lengths of the summary's growing arrays. */
struct mcap_caps {
	size_t chunks, meta, att;
};

/* Reads shorter than this are served from one window of the file read
 * ahead (a loose message is two small reads: prefix and body). */
#define MCAP_R_WINDOW (128u * 1024u)

struct mcap_reader {
	int fd;
	uint64_t size, limit;
	struct mcap_z *z;
	/* the file's bytes [win_off, win_off + win_len), read ahead */
	uint8_t *win;
	uint64_t win_off;
	size_t win_len, win_cap;
	/* streamed read */
	bool started, failed, done, data_done;
	uint64_t pos;
	uint32_t data_crc;
	uint8_t *rbuf; /* the current top-level record */
	size_t rcap;
	uint8_t *cbuf; /* the current chunk's records */
	uint64_t clen, cpos, coff;
	/* indexed read */
	bool indexed;
	struct mcap_summary sum;
	struct mcap_caps caps;
	void **keep; /* copies of record bodies the summary's views point into */
	size_t n_keep, cap_keep;
	struct mcap_ent *loose;
	size_t n_loose, cap_loose;
	/* messages in log_time order */
	bool merging;
	size_t next_chunk;
	struct mcap_src *srcs;
	size_t n_srcs;
	uint8_t *mbuf;
	size_t mcap;
};

/* Reads exactly n bytes at `off`; a short file is BT_ERR_FORMAT. What
 * lies in the window is copied from it; a read shorter than the window
 * refills it from `off` first, so records read in file order cost one
 * pread per window rather than two per record. */
BT_MUST_CHECK bt_status mcap_r_pread(struct mcap_reader *r, void *buf, uint64_t n, uint64_t off,
				     struct bt_error *err);
/* Reads the record at file offset `off` into r->rbuf: checks that its
 * prefix and body lie inside the file and under the limit. */
BT_MUST_CHECK bt_status mcap_r_read_record(struct mcap_reader *r, uint64_t off, uint8_t *op,
					   uint64_t *len, struct bt_error *err);
/* Frames the record at buf[pos..len): *op, *blen; BT_ERR_FORMAT if the
 * prefix or the body does not fit. `where` names the place for the message. */
BT_MUST_CHECK bt_status mcap_r_frame(const uint8_t *buf, uint64_t len, uint64_t pos, uint8_t *op,
				     uint64_t *blen, uint64_t where, struct bt_error *err);
/* Decompresses the chunk found at file offset `at` into a new buffer of
 * exactly its uncompressed size (capped), checking its CRC. *out is
 * malloc'ed, owned by the caller. */
BT_MUST_CHECK bt_status mcap_r_unpack(struct mcap_reader *r, const struct mcap_chunk *c,
				      uint64_t at, uint8_t **out, struct bt_error *err);
/* Frees the index and the merge state. */
void mcap_r_index_free(struct mcap_reader *r);

#endif
