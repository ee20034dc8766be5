/* rec_raw — capture any DDS topic as raw CDR without knowing its type.
 * The only file that uses Cyclone DDS internals (a raw sertype/serdata
 * that keeps the received bytes exactly, encapsulation header included,
 * plus the RTPS writer sequence number); a Cyclone upgrade touches only
 * rec_raw.c. See ../shared/docs/CYCLONE_RAW_CDR.md §2.
 *
 * All samples of a topic map to one instance (as rmw_cyclonedds does), so
 * a reader hands them out in arrival order, keyed topics included; readers
 * must therefore use KEEP_ALL or a large KEEP_LAST depth. */
#ifndef REC_RAW_H
#define REC_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dds/dds.h>

#include "rec_msg.h"

/* Creates (or finds) topic `name` of type `type_name` on participant pp
 * with the raw sertype; `keyed` must match the writers' entity kind
 * (WITH_KEY / NO_KEY). Returns the topic entity or a negative DDS return
 * code. Thread-safe as dds_create_topic_sertype is. */
dds_entity_t rec_raw_topic_create(dds_entity_t pp, const char *name, const char *type_name,
				  bool keyed);

struct rec_raw_sample {
	const void *data; /* received bytes, valid during the callback only */
	size_t len;
	int64_t writer_sn;                      /* or -1 for local writers */
	int64_t source_time;                    /* ns since the epoch */
	dds_instance_handle_t publication_handle;
	void *opaque; /* the received buffer, for rec_raw_adopt; NULL: copy */
};

/* The sample as a rec_msg of `topic` whose bytes stay in the received
 * buffer (no copy), other fields zero; it holds a reference to that buffer
 * until rec_msg_free. NULL when the sample cannot be adopted (not a raw
 * sample, or a reader sharing it adopted it already): copy it instead.
 * Only inside the callback. */
struct rec_msg *rec_raw_adopt(const struct rec_raw_sample *s, uint32_t topic);

/* Called once per valid sample; return false to stop the take early. */
typedef bool (*rec_raw_sample_fn)(void *arg, const struct rec_raw_sample *s);

/* Takes every sample available on `reader` (in batches) and calls fn for
 * each valid one, releasing each sample right after. Invalid samples
 * (dispose/unregister notifications) are skipped. Returns the number of
 * valid samples handed to fn, or a negative DDS return code. Safe to call
 * from the reader's own on_data_available listener. */
int32_t rec_raw_take(dds_entity_t reader, rec_raw_sample_fn fn, void *arg);

#endif
