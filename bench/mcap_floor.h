/* mcap_floor — the least work any chunked MCAP writer does to write a given
 * file: store_bench's "chunk floor" and "gather floor" rows.
 *
 * A file mcap_writer wrote (the model) is laid out again from the same
 * messages with nothing but what the format requires of every writer that
 * builds chunks in memory: per message a 31-byte Message record header
 * stored in place, the data copied in behind it and a 16-byte Message Index
 * entry; per chunk its header and one Message Index record, and one
 * writev(2) of the chunk, its index and what follows it up to the next
 * chunk (MCAP_FLOOR_COPY). Everything else (the Header, Schemas and
 * Channels, the summary) is copied from the model as it is: per file, not
 * per message. The result must be the model's bytes (store_bench compares
 * them), so the floor and mcap_writer do the same job and their times
 * compare.
 *
 * MCAP_FLOOR_GATHER drops the one copy a chunk-building writer cannot:
 * the writev's pieces are the record headers and each message's data
 * where it is, so the kernel's copy into the page cache is the only one.
 * It is what a writer could reach that never copies a message, which
 * needs every message of a chunk still in memory when the chunk is
 * written (rosbag2's writer and ours are lent them for one batch).
 *
 * It replays files with uncompressed chunks, no chunk CRC and one channel
 * (store_bench's `mcap_writer` row); mcap_floor_plan says which rule a
 * model breaks. Single-threaded; a plan borrows the model's bytes, which
 * must outlive it. */
#ifndef MCAP_FLOOR_H
#define MCAP_FLOOR_H

#include <stddef.h>
#include <stdint.h>

#include "bag_writer.h"

/* One chunk of the model. */
struct mcap_floor_chunk {
	size_t lead_off, lead_len;   /* records before its first Message (Schemas, Channels) */
	size_t n_msgs;               /* its Message records: the next n of the input */
	size_t after_off, after_len; /* after its Message Index, up to the next chunk */
};

struct mcap_floor {
	const uint8_t *model; /* borrowed */
	size_t head_len;      /* the model's bytes before its first chunk */
	struct mcap_floor_chunk *chunks;
	size_t n_chunks, n_msgs;
	size_t max_records, max_msgs; /* the largest chunk's records, its messages */
	uint16_t channel;
};

/* Plans the replay of model[0..len). On a model it cannot replay returns -1
 * with the reason in err[0..errn), and *f holds nothing to free. */
int mcap_floor_plan(struct mcap_floor *f, const uint8_t *model, size_t len, char *err,
		    size_t errn);

/* How the floor hands a chunk to the kernel. */
enum mcap_floor_way {
	MCAP_FLOOR_COPY,   /* the data copied into the chunk, one writev of it */
	MCAP_FLOOR_GATHER, /* nothing copied: each message's data a writev piece */
};

/* Writes the file again from msgs[0..n) (the messages the model holds, in
 * its order: log and publish time = timestamp, sequence 0) into a new file
 * `path`, open to close, the chunks handed over `way`. 0, or -1 with errno
 * set. */
int mcap_floor_write(const struct mcap_floor *f, const char *path, const struct bag_message *msgs,
		     size_t n, enum mcap_floor_way way);

void mcap_floor_fini(struct mcap_floor *f);

#endif
