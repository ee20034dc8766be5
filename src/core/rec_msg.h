/* rec_msg — one received message: a header and the CDR bytes
 * (encapsulation header included). Either one allocation holding both
 * (rec_msg_new), or a header inside a buffer someone else allocated and
 * knows how to release (rec_raw adopts the received sample's own buffer,
 * so the bytes are never copied on the receive path). A rec_msg has
 * exactly one owner; handing it on (rec_cache_push) moves it. */
#ifndef REC_MSG_H
#define REC_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REC_SN_UNKNOWN INT64_C(-1) /* local writers carry no sequence number */

struct rec_msg {
	struct rec_msg *next; /* list link; belongs to the current owner */
	uint32_t topic;       /* index in rec_topics */
	int64_t recv_time;    /* ns since the epoch, CLOCK_REALTIME: messages.timestamp */
	int64_t source_time;  /* the writer's source timestamp, ns since the epoch */
	int64_t writer_sn;    /* RTPS writer sequence number or REC_SN_UNKNOWN */
	bool repeat;          /* a repeated transient-local copy (rec_tl), not an arrival */
	uint32_t arrival;     /* rec_snap's arrival count (wraps): orders equal recv_times */
	size_t len;
	unsigned char *data; /* len bytes */
	/* Frees the message; NULL for rec_msg_new's single allocation. */
	void (*release)(struct rec_msg *m);
};

/* A message with room for `len` bytes, fields zeroed; NULL when memory is
 * short (the data path never aborts: the caller drops and counts). */
struct rec_msg *rec_msg_new(uint32_t topic, size_t len);
void rec_msg_free(struct rec_msg *m);
/* Frees a whole list linked through `next`. */
void rec_msg_free_list(struct rec_msg *head);

#endif
