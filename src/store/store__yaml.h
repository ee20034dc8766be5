/* store__yaml — thin helpers over libyaml for the store: an emitter that
 * writes block-style YAML into a bt_buf (flow only for an empty list), and
 * lookups over a loaded document.
 * Private to src/store. */
#ifndef STORE__YAML_H
#define STORE__YAML_H

#include <stdbool.h>
#include <stdint.h>
#include <yaml.h>

#include "bt_buf.h"
#include "bt_status.h"

/* ---- emitting ---- */
struct ye {
	yaml_emitter_t em;
	bool failed; /* sticky: once set, further calls do nothing */
};

/* Starts a document whose output goes to `out` (appended). */
void ye_begin(struct ye *e, struct bt_buf *out);
/* Ends the document; BT_OK unless any call failed. Always frees the emitter. */
BT_MUST_CHECK bt_status ye_end(struct ye *e);
/* The collections the store writes: block ones, and the flow sequence
 * for rosbag2's empty list "[]". */
enum ye_coll { YE_MAP, YE_SEQ, YE_FLOW_SEQ };
/* Starts a collection of that kind; ye_close with the same kind ends it. */
void ye_open(struct ye *e, enum ye_coll kind);
void ye_close(struct ye *e, enum ye_coll kind);
void ye_str(struct ye *e, const char *s); /* a string ("" quoted) */
void ye_plain(struct ye *e, const char *s); /* a plain scalar: numbers, bools, ~ */
/* A double-quoted string, line breaks escaped as \n, on one line: how
 * yaml-cpp writes a multi-line string (rosbag2's QoS string). */
void ye_dq(struct ye *e, const char *s);
void ye_i64(struct ye *e, int64_t v);
void ye_u64(struct ye *e, uint64_t v);
void ye_f64(struct ye *e, double v); /* fixed point, 6 decimals: never an exponent */
void ye_key(struct ye *e, const char *k);

/* ---- reading ---- */
/* Loads the first document of `text`; BT_ERR_FORMAT with libyaml's reason
 * (and line) on a syntax error or an empty input. */
BT_MUST_CHECK bt_status yd_load(yaml_document_t *doc, const char *text, size_t len,
				struct bt_error *err);
/* The value node of `key` in mapping node `map`, or NULL. */
yaml_node_t *yd_get(yaml_document_t *doc, yaml_node_t *map, const char *key);
bool yd_is_null(const yaml_node_t *n); /* "~", "null", "" plain, or missing */
/* Scalar conversions: BT_ERR_FORMAT when the node is not such a scalar. */
BT_MUST_CHECK bt_status yd_str(const yaml_node_t *n, char **out); /* malloc'ed */
BT_MUST_CHECK bt_status yd_i64(const yaml_node_t *n, int64_t *out);
BT_MUST_CHECK bt_status yd_u64(const yaml_node_t *n, uint64_t *out);
BT_MUST_CHECK bt_status yd_bool(const yaml_node_t *n, bool *out);
/* A finite, non-negative decimal number. */
BT_MUST_CHECK bt_status yd_f64(const yaml_node_t *n, double *out);
/* The first scalar key (in document order of the mappings) that appears
 * again in the same mapping, or NULL: YAML forbids it, and yd_get sees
 * only the first. The node's start_mark gives its line. */
const yaml_node_t *yd_duplicate_key(yaml_document_t *doc);
size_t yd_len(const yaml_node_t *seq);                         /* items of a sequence */
yaml_node_t *yd_item(yaml_document_t *doc, yaml_node_t *seq, size_t i);

#endif
