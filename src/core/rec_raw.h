/* rec_raw — a received raw sample (btdds_raw) as the recorder's message,
 * without copying its bytes. */
#ifndef REC_RAW_H
#define REC_RAW_H

#include <stdint.h>

#include "btdds_raw.h"
#include "rec_msg.h"

/* The sample as a rec_msg of `topic` whose bytes stay in the received
 * buffer (no copy), other fields zero; it holds a reference to that buffer
 * until rec_msg_free. NULL when the sample cannot be adopted (not a raw
 * sample, or a reader sharing it adopted it already): copy it instead.
 * Only inside the callback. */
struct rec_msg *rec_raw_adopt(const struct btdds_raw_sample *s, uint32_t topic);

#endif
