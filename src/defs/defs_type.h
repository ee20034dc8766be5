/* defs_type — the layout of ROS 2 message types, read from rosbag2's
 * definition text (encoding "ros2msg": the root type's .msg or .srv text,
 * then each dependency after a line of '=' and "MSG: pkg/Type"), for code
 * that walks a message's CDR by its fields (a service event's request,
 * cut out and sent again by `bagtop play --publish-service-requests`).
 *
 * Field lines are rosidl's: "TYPE NAME", an optional default after it, and
 * constants ("TYPE NAME=VALUE") and comments skipped. TYPE is one of the 14
 * primitives or wstring, "string<=N", "pkg/Type", "pkg/msg/Type" or "Type"
 * (in the package of the file it is in), with "[N]" (fixed array), "[]" or
 * "[<=N]" (sequences) after it. A struct without fields is rosidl's one
 * uint8 (structure_needs_at_least_one_member) on the wire.
 *
 * The text comes from a bag, so from anyone: every name a field uses must
 * have its section, a type must not contain itself, and sizes are capped;
 * any problem is BT_ERR_FORMAT with a line saying where. "IDL:" sections
 * (encoding "ros2idl") are refused: only .msg text is read.
 *
 * Depends on src/util only. Pure: no I/O; a parsed table is read-only and
 * may be shared between threads. */
#ifndef DEFS_TYPE_H
#define DEFS_TYPE_H

#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

enum defs_kind {
	DEFS_KIND_BOOL,
	DEFS_KIND_BYTE,
	DEFS_KIND_CHAR,
	DEFS_KIND_FLOAT32,
	DEFS_KIND_FLOAT64,
	DEFS_KIND_INT8,
	DEFS_KIND_UINT8,
	DEFS_KIND_INT16,
	DEFS_KIND_UINT16,
	DEFS_KIND_INT32,
	DEFS_KIND_UINT32,
	DEFS_KIND_INT64,
	DEFS_KIND_UINT64,
	DEFS_KIND_STRING,
	DEFS_KIND_WSTRING,
	DEFS_KIND_NESTED,
};

enum defs_array {
	DEFS_ARRAY_NONE,  /* one value */
	DEFS_ARRAY_FIXED, /* T[N]: N values, no count on the wire */
	DEFS_ARRAY_SEQ,   /* T[] or T[<=N]: a uint32 count, then the values */
};

struct defs_field {
	char *name;
	enum defs_kind kind;
	uint32_t str_bound; /* string<=N / wstring<=N: N; 0 = unbounded */
	enum defs_array array;
	uint32_t count;     /* FIXED: N; SEQ: the bound, 0 = unbounded */
	size_t nested;      /* NESTED: index of its struct in defs_types.v */
};

struct defs_struct {
	char *name; /* "pkg/msg/Type"; a service's halves "pkg/srv/T_Request", "_Response" */
	struct defs_field *fields;
	size_t n_fields;
};

struct defs_types {
	struct defs_struct *v;
	size_t n;
};

#define DEFS_TYPES_MAX_STRUCTS 1024
#define DEFS_TYPES_MAX_FIELDS 4096 /* in all structs together */

/* Parses the definition `text` of `root` ("pkg/msg/T", "pkg/T", or a
 * service "pkg/srv/T", whose text is request "---" response: two structs
 * "pkg/srv/T_Request" and "pkg/srv/T_Response"). BT_OK: *out (free with
 * defs_types_free). BT_ERR_FORMAT: *err names the line or the type at
 * fault (a field type without its section, a type that contains itself,
 * an IDL section, a malformed line). */
BT_MUST_CHECK bt_status defs_types_parse(const char *root, const char *text,
					 struct defs_types **out, struct bt_error *err);
void defs_types_free(struct defs_types *t); /* NULL is fine */

/* The index of the struct named `name` (as struct defs_struct.name), or
 * SIZE_MAX. */
size_t defs_types_find(const struct defs_types *t, const char *name);

#endif
