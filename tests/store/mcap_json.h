/* mcap_json — MCAP records in the conformance suite's JSON form (tests only):
 * {"type": "Schema", "fields": [[name, value], ...]}, fields sorted by name,
 * numbers as decimal strings, bytes as arrays of decimal strings, maps as
 * objects of strings. */
#ifndef MCAP_JSON_H
#define MCAP_JSON_H

#include <jansson.h>
#include <stdbool.h>

#include "mcap_record.h"

/* A new JSON object for `rec`, or NULL for records the suite does not list
 * (Chunk, MessageIndex, unknown opcodes). */
json_t *mcap_json_record(const struct mcap_record *rec);

/* The value of field `name` of a suite record, or NULL. */
json_t *mcap_json_field(json_t *record, const char *name);
/* The field as an unsigned number (its decimal string), 0 if absent. */
unsigned long long mcap_json_u64(json_t *record, const char *name);

#endif
