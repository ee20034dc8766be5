/* btdds_raw — any DDS topic as raw CDR bytes, without knowing its type:
 * what the recorder captures with, and what ROS 2 service calls (requests
 * written, replies taken: btdds_service) and ros_discovery_info go
 * through. The only file of bagtop that uses Cyclone DDS internals (a raw
 * sertype/serdata that keeps the received bytes exactly, encapsulation
 * header included, plus the RTPS writer sequence number); a Cyclone
 * upgrade touches only btdds_raw.c. See ../shared/docs/CYCLONE_RAW_CDR.md §2.
 *
 * All samples of a topic map to one instance (as rmw_cyclonedds does), so
 * a reader hands them out in arrival order, keyed topics included; readers
 * must therefore use KEEP_ALL or a large KEEP_LAST depth. Raw topics offer
 * no XTypes type information (matching is by type name), as
 * rmw_cyclonedds's own types. */
#ifndef BTDDS_RAW_H
#define BTDDS_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dds/dds.h>

/* Bytes a user may keep in a received sample's buffer (btdds_raw_adopt). */
#define BTDDS_RAW_SLOT_SIZE 80

/* Creates (or finds) topic `name` of type `type_name` on participant pp
 * with the raw sertype; `keyed` must match the writers' entity kind
 * (WITH_KEY / NO_KEY). Returns the topic entity or a negative DDS return
 * code. Thread-safe as dds_create_topic_sertype is. */
dds_entity_t btdds_raw_topic_create(dds_entity_t pp, const char *name, const char *type_name,
				    bool keyed);

struct btdds_raw_sample {
	const void *data; /* received bytes, valid during the callback only */
	size_t len;
	int64_t writer_sn;                      /* or -1 for local writers */
	int64_t source_time;                    /* ns since the epoch */
	dds_instance_handle_t publication_handle;
	void *opaque; /* the received buffer, for btdds_raw_adopt; NULL: copy */
};

/* Keeps the sample's received buffer beyond the callback, without a copy:
 * returns BTDDS_RAW_SLOT_SIZE bytes (max_align_t aligned) of the same
 * allocation for the caller's own header, and the sample's data stays
 * valid until btdds_raw_release(slot). NULL when the sample cannot be
 * adopted (not a raw sample, or a reader sharing it adopted it already):
 * copy it instead. Only inside the callback. */
void *btdds_raw_adopt(const struct btdds_raw_sample *s);
/* Drops what btdds_raw_adopt kept; any thread. */
void btdds_raw_release(void *slot);

/* Writes `len` bytes (encapsulation header included, as they go on the
 * wire) on a raw topic's writer. Returns dds_write's code. */
dds_return_t btdds_raw_write(dds_entity_t writer, const void *data, size_t len);

/* Called once per valid sample; return false to stop the take early. */
typedef bool (*btdds_raw_sample_fn)(void *arg, const struct btdds_raw_sample *s);

/* Takes every sample available on `reader` (in batches) and calls fn for
 * each valid one, releasing each sample right after. Invalid samples
 * (dispose/unregister notifications) are skipped. Returns the number of
 * valid samples handed to fn, or a negative DDS return code. Safe to call
 * from the reader's own on_data_available listener. */
int32_t btdds_raw_take(dds_entity_t reader, btdds_raw_sample_fn fn, void *arg);

#endif
