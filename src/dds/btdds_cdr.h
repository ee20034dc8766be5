/* btdds_cdr — plain CDR (XCDR1, as rmw_cyclonedds writes ROS 2 messages)
 * read strictly and written simply. Pure; no DDS.
 *
 * The reader takes bytes from any participant on the network: every length
 * is checked against what is left of the buffer before anything is read or
 * allocated, a sequence's count against the bytes its elements need at
 * least, strings must end in their NUL, and nesting is capped
 * (BTDDS_CDR_DEPTH_MAX). The first problem sticks: later reads fail too and
 * btdds_cdr_error says what and where, so a decoder may read a whole struct
 * and check once. Offsets (and so alignment) count from the first byte
 * after the 4-byte encapsulation header, as CDR's do. */
#ifndef BTDDS_CDR_H
#define BTDDS_CDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_buf.h"
#include "bt_status.h"

#define BTDDS_CDR_DEPTH_MAX 32 /* nested structs/sequences a decoder may enter */

struct btdds_cdr_rd {
	const unsigned char *p; /* the payload after the encapsulation header */
	size_t len, off;
	bool swap;        /* the data's byte order is not ours */
	unsigned depth;
	const char *what; /* the first problem, NULL while none */
	size_t what_off;
};

/* Starts reading a serialized sample (`n` bytes, encapsulation header
 * included): BT_OK, or BT_ERR_FORMAT when it is shorter than the header or
 * not plain CDR (representation 0x0000 / 0x0001). */
BT_MUST_CHECK bt_status btdds_cdr_rd_init(struct btdds_cdr_rd *r, const void *data, size_t n);

bool btdds_cdr_ok(const struct btdds_cdr_rd *r);
/* The first problem as one line ("string length 4000 beyond the end at
 * offset 24"), or BT_OK; `what` names the message for the line. */
bt_status btdds_cdr_error(const struct btdds_cdr_rd *r, const char *what, struct bt_error *err);

/* Reads; on any problem the value is 0 / "" / false and the reader fails. */
uint8_t btdds_cdr_u8(struct btdds_cdr_rd *r);
bool btdds_cdr_bool(struct btdds_cdr_rd *r);
uint16_t btdds_cdr_u16(struct btdds_cdr_rd *r);
uint32_t btdds_cdr_u32(struct btdds_cdr_rd *r);
uint64_t btdds_cdr_u64(struct btdds_cdr_rd *r);
/* A string: points into the buffer (NUL-terminated there), *n its length
 * without the NUL. "" on failure. Strings longer than `max` (0 = no bound
 * but the buffer) fail, like a bounded string<=max that lies. */
const char *btdds_cdr_string(struct btdds_cdr_rd *r, size_t max, size_t *n);
/* `n` raw bytes (a char[n] / octet[n] array), NULL on failure. */
const unsigned char *btdds_cdr_bytes(struct btdds_cdr_rd *r, size_t n);
/* A sequence's count, checked against the bytes left: each element takes
 * at least `min_elem` bytes (>= 1). 0 on failure. */
uint32_t btdds_cdr_seq(struct btdds_cdr_rd *r, size_t min_elem);
/* Fails the reader with `what` (a static string) at the current offset,
 * for a decoder that finds a value it cannot take; the first problem
 * sticks. */
void btdds_cdr_fail(struct btdds_cdr_rd *r, const char *what);
/* Entering and leaving a nested struct or sequence element; false (and the
 * reader fails) beyond BTDDS_CDR_DEPTH_MAX. */
bool btdds_cdr_enter(struct btdds_cdr_rd *r);
void btdds_cdr_leave(struct btdds_cdr_rd *r);

/* A writer: little-endian plain CDR into a bt_buf, encapsulation header
 * first. Offsets count from after the header. Appends abort on OOM (only
 * small control messages and requests are written). */
struct btdds_cdr_wr {
	struct bt_buf b;
};
void btdds_cdr_wr_init(struct btdds_cdr_wr *w);
void btdds_cdr_wr_fini(struct btdds_cdr_wr *w);
void btdds_cdr_put_u8(struct btdds_cdr_wr *w, uint8_t v);
void btdds_cdr_put_u16(struct btdds_cdr_wr *w, uint16_t v);
void btdds_cdr_put_u32(struct btdds_cdr_wr *w, uint32_t v);
void btdds_cdr_put_u64(struct btdds_cdr_wr *w, uint64_t v);
void btdds_cdr_put_string(struct btdds_cdr_wr *w, const char *s);
/* `n` raw bytes, unaligned (a char[n] / octet[n] array). */
void btdds_cdr_put_bytes(struct btdds_cdr_wr *w, const void *p, size_t n);
/* Pads the sample to a multiple of 4 bytes, as rmw_cyclonedds does (the
 * padding count stays 0 in the header, as rmw writes it). */
void btdds_cdr_wr_finish(struct btdds_cdr_wr *w);

#endif
