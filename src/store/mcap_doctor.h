/* mcap_doctor — holds a streamed MCAP file to the rules of the
 * specification (https://mcap.dev/spec) that bagtop's reader does not
 * need, but other readers do: what the format's own CLI (`mcap doctor`)
 * reports as errors.
 *   - order: a Schema record before any Channel record that refers to its
 *     id; a Channel record before any Message on its channel; a Message
 *     Index right after its Chunk (or another Message Index);
 *   - identity: records sharing an id are identical, the summary's copies
 *     included; schema id 0 is invalid; a Schema with no encoding has no
 *     data;
 *   - what readers seek by: a Chunk's message_start_time / end_time are
 *     its messages' earliest and latest log_time; every Message Index entry
 *     is a message of its channel at that offset with that log_time; a
 *     Chunk Index describes the chunk at its offset (length, times,
 *     compression, sizes) and no chunk has two; one Statistics record, whose
 *     counts are the messages'.
 * Not held, though `mcap doctor` calls them errors: that Schema and Channel
 * records in the summary are also in the data section (libmcap, which
 * rosbag2 writes with, puts those of a channel without messages in the
 * summary alone: harmless, a streaming reader meets them after every
 * message); the Statistics' time range (the format's Go writer leaves a
 * message at log_time 0 out of it; rosbag2's convert_a test bag has one);
 * the log_time order of messages outside chunks (the specification does
 * not ask it; bagtop's reader sorts them). Nor its warnings.
 *
 * Why a check of its own: a file bagtop reads and plays can still fail in
 * Foxglove, whose streamed reader stops at a Message whose Channel it has
 * not met and whose indexed reader trusts the chunk times. `bagtop check`
 * says so (bag_storage's check, *interop).
 *
 * Use: feed every item of a streamed read (mcap_reader_next), in order, to
 * mcap_doctor_feed; it returns false at the first record that breaks a
 * rule, with one line saying which and where. Identity is compared on the
 * records' fields (bytes a later version of the format may append are not
 * part of it), by a 64-bit hash per id.
 *
 * Threads: one per struct. Memory: 1.5 MiB per struct (a hash per possible
 * schema and channel id, a count per channel id; zeroed lazily by the
 * allocator), plus 24 bytes per message of the chunk read last and 64 per
 * chunk. */
#ifndef MCAP_DOCTOR_H
#define MCAP_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>

#include "mcap_reader.h"

struct mcap_doctor;

/* A new doctor, at the start of a file; NULL when out of memory. */
struct mcap_doctor *mcap_doctor_new(void);
void mcap_doctor_free(struct mcap_doctor *d);

/* Takes the next streamed item. True while the file holds to the rules;
 * false at the first record that breaks one, with `why` (n bytes) filled
 * in; what is fed after that is not looked at and returns false (`why`
 * untouched). Out of memory is reported as such, in `why`. */
bool mcap_doctor_feed(struct mcap_doctor *d, const struct mcap_item *it, char *why, size_t n);

#endif
