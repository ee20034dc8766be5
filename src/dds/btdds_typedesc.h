/* btdds_typedesc — REP 2011's type_description_interfaces on the wire: the
 * GetTypeDescription request a client sends, its response decoded strictly
 * (btdds_cdr: a reply that lies about a length, or holds more than
 * BTDDS_TD_TYPES_MAX types, is a clear error), and a type description's
 * fields rendered as .msg text for when a node sends no sources. Pure.
 *
 * Messages (ros2/rcl_interfaces, jazzy, type_description_interfaces):
 *   GetTypeDescription_Request  { string type_name; string type_hash;
 *                                 bool include_type_sources }
 *   GetTypeDescription_Response { bool successful; string failure_reason;
 *     TypeDescription type_description; TypeSource[] type_sources;
 *     KeyValue[] extra_information }
 *   TypeDescription { IndividualTypeDescription type_description;
 *                     IndividualTypeDescription[] referenced_type_descriptions }
 *   IndividualTypeDescription { string<=255 type_name; Field[] fields }
 *   Field { string name; FieldType type; string default_value }
 *   FieldType { uint8 type_id; uint64 capacity; uint64 string_capacity;
 *               string<=255 nested_type_name }
 *   TypeSource { string type_name; string encoding; string raw_file_contents }
 *   KeyValue { string key; string value } */
#ifndef BTDDS_TYPEDESC_H
#define BTDDS_TYPEDESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_buf.h"
#include "bt_status.h"
#include "btdds_cdr.h"

#define BTDDS_TD_SERVICE_TYPE "type_description_interfaces/srv/GetTypeDescription"
#define BTDDS_TD_NAME_MAX 255   /* string<=255 type_name, nested_type_name */
#define BTDDS_TD_TYPES_MAX 1024 /* referenced types accepted in one reply */

struct btdds_td_field {
	const char *name; /* all strings point into the reply */
	uint8_t type_id;  /* FieldType.FIELD_TYPE_* */
	uint64_t capacity, string_capacity;
	const char *nested_type_name;
	const char *default_value;
};

struct btdds_td_type {
	const char *type_name; /* "pkg/msg/Type" */
	struct btdds_td_field *fields;
	size_t n_fields;
};

struct btdds_td_source {
	const char *type_name, *encoding, *raw_file_contents;
};

/* A decoded response; its strings point into the reply bytes, which must
 * outlive it. */
struct btdds_td_reply {
	bool successful;
	const char *failure_reason;
	struct btdds_td_type *types; /* [0] the type asked for, then the referenced ones */
	size_t n_types;
	struct btdds_td_source *sources;
	size_t n_sources;
};

/* Appends the request body (after the service header) to *w. */
void btdds_td_put_request(struct btdds_cdr_wr *w, const char *type_name, const char *type_hash,
			  bool include_sources);

/* Decodes the response body from *r (positioned after the service header).
 * BT_OK: *out filled (btdds_td_reply_fini frees it). BT_ERR_FORMAT with one
 * line in *err for anything malformed; *out is then empty. */
BT_MUST_CHECK bt_status btdds_td_decode(struct btdds_cdr_rd *r, struct btdds_td_reply *out,
					struct bt_error *err);
void btdds_td_reply_fini(struct btdds_td_reply *t);

/* A type's fields as .msg text ("int32[<=4] values\n..."), nested types
 * as "pkg/Type": appended to *b. BT_ERR_FORMAT (*err names the field) for a
 * type id .msg cannot express (long double, wchar, an unknown id) or a
 * nested type name that is not pkg/msg/Type. Aborts on OOM. */
BT_MUST_CHECK bt_status btdds_td_msg_text(const struct btdds_td_type *t, struct bt_buf *b,
					  struct bt_error *err);

#endif
