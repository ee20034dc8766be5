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

/* A raw topic's type as its writers use it (btdds_raw_out_new). Owned by
 * the topic: valid while the topic exists. */
struct btdds_raw_type;

/* btdds_raw_topic_create, also giving the type its writers use in *type. */
dds_entity_t btdds_raw_topic_create_typed(dds_entity_t pp, const char *name,
					  const char *type_name, bool keyed,
					  const struct btdds_raw_type **type);

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

/* A sample made before it is written, on any thread: the bytes are copied
 * once, into the buffer that goes out, so the writing thread only writes.
 * Returns BTDDS_RAW_SLOT_SIZE bytes (max_align_t aligned) for the caller's
 * header, and in *data room for `len` bytes to fill; NULL when out of
 * memory. Give it to btdds_raw_out_write, or drop it with
 * btdds_raw_release(slot). */
void *btdds_raw_out_new(const struct btdds_raw_type *type, size_t len, void **data);
/* Writes the sample made by btdds_raw_out_new on `writer` (a writer of
 * the type's topic), stamped with the time of the write (its lowest bit
 * cleared: see btdds_raw.c), and gives it up: slot and header are invalid
 * after, whatever the outcome. Returns dds_forwardcdr's code. */
dds_return_t btdds_raw_out_write(dds_entity_t writer, void *slot);

/* Turns on Cyclone's write batching, for the whole process (Cyclone 0.10
 * has no per-writer switch): a write may then wait in its writer's packet
 * until btdds_raw_flush or the packet is full. btdds_raw_write flushes
 * after each write from then on, so only btdds_raw_out_write batches; any
 * other dds_write in the process must be followed by dds_write_flush. */
void btdds_raw_batch_enable(void);
/* Sends what the writes on `writer` left in its batch (nothing: no-op). */
void btdds_raw_flush(dds_entity_t writer);

/* Called once per valid sample; return false to stop the take early. */
typedef bool (*btdds_raw_sample_fn)(void *arg, const struct btdds_raw_sample *s);

/* Takes every sample available on `reader` (in batches) and calls fn for
 * each valid one, releasing each sample right after. Invalid samples
 * (dispose/unregister notifications) are skipped. Returns the number of
 * valid samples handed to fn, or a negative DDS return code. Safe to call
 * from the reader's own on_data_available listener. */
int32_t btdds_raw_take(dds_entity_t reader, btdds_raw_sample_fn fn, void *arg);

#endif
