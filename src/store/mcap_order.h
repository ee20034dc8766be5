/* mcap_order — whether an MCAP file's records come in the order the
 * specification asks of them (https://mcap.dev/spec, Schema and Channel):
 *   - a Schema record occurs before any Channel record that refers to its
 *     id (schema id 0 means "no schema");
 *   - a Channel record occurs before any Message record on its channel;
 *   - two Schema (or two Channel) records with the same id are identical,
 *     the summary's copies included.
 *
 * Why a check of its own: bagtop's reader does not need the first two (it
 * learns every Schema and Channel before it hands out a message), but
 * readers that stream a file do: Foxglove's stops at a Message whose
 * Channel it has not met. A file bagtop reads and plays can so still fail
 * elsewhere; `bagtop check` says so (bag_storage's check, *interop).
 *
 * Use: feed every item of a streamed read (mcap_reader_next), in order, to
 * mcap_order_feed; it returns false at the first record that breaks a rule,
 * with one line saying which. Identity is compared on the records' fields
 * (bytes a later version of the format may append are not part of it), by
 * a 64-bit hash per id.
 *
 * Threads: one per struct. Memory: up to 1 MiB per struct (a hash per
 * possible id), zeroed lazily by the allocator. */
#ifndef MCAP_ORDER_H
#define MCAP_ORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "mcap_reader.h"

struct mcap_order;

/* A new checker, at the start of a file; NULL when out of memory. */
struct mcap_order *mcap_order_new(void);
void mcap_order_free(struct mcap_order *o);

/* Takes the next streamed item. True while the order holds; false at the
 * first record that breaks it, with `why` (n bytes) filled in; what is fed
 * after that is not looked at and returns false (`why` untouched). */
bool mcap_order_feed(struct mcap_order *o, const struct mcap_item *it, char *why, size_t n);

#endif
