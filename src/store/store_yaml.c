#include "store__yaml.h"

#include <float.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_parse.h"

/* ---- emitting ---- */

static int ye_write(void *ctx, unsigned char *buf, size_t n)
{
	return bt_buf_append(ctx, buf, n) == BT_OK;
}

static void ye_emit(struct ye *e, yaml_event_t *ev, int ok)
{
	if (e->failed || !ok || !yaml_emitter_emit(&e->em, ev))
		e->failed = true;
}

void ye_begin(struct ye *e, struct bt_buf *out)
{
	yaml_event_t ev;
	memset(e, 0, sizeof *e);
	if (!yaml_emitter_initialize(&e->em)) {
		e->failed = true;
		return;
	}
	yaml_emitter_set_output(&e->em, ye_write, out);
	yaml_emitter_set_indent(&e->em, 2);
	yaml_emitter_set_width(&e->em, -1);
	yaml_emitter_set_unicode(&e->em, 1);
	ye_emit(e, &ev, yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING));
	ye_emit(e, &ev, yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1));
}

bt_status ye_end(struct ye *e)
{
	yaml_event_t ev;
	ye_emit(e, &ev, yaml_document_end_event_initialize(&ev, 1));
	ye_emit(e, &ev, yaml_stream_end_event_initialize(&ev));
	if (!e->failed && !yaml_emitter_flush(&e->em))
		e->failed = true;
	yaml_emitter_delete(&e->em);
	return e->failed ? BT_ERR_NOMEM : BT_OK;
}

void ye_open(struct ye *e, enum ye_coll kind)
{
	yaml_event_t ev;
	int ok = 0;
	switch (kind) {
	case YE_MAP:
		ok = yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 YAML_BLOCK_MAPPING_STYLE);
		break;
	case YE_SEQ:
	case YE_FLOW_SEQ:
		ok = yaml_sequence_start_event_initialize(
			&ev, NULL, NULL, 1,
			kind == YE_SEQ ? YAML_BLOCK_SEQUENCE_STYLE : YAML_FLOW_SEQUENCE_STYLE);
		break;
	}
	ye_emit(e, &ev, ok);
}

void ye_close(struct ye *e, enum ye_coll kind)
{
	yaml_event_t ev;
	ye_emit(e, &ev, kind == YE_MAP ? yaml_mapping_end_event_initialize(&ev)
				       : yaml_sequence_end_event_initialize(&ev));
}

static void ye_scalar(struct ye *e, const char *s, yaml_scalar_style_t style, int plain_ok)
{
	yaml_event_t ev;
	ye_emit(e, &ev, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
						     (int)strlen(s), plain_ok, !plain_ok, style));
}

/* A string must read back as a string: plain only when YAML would not take
 * it for a number, bool or null; rosbag2 (yaml-cpp) writes "" for empty. */
static bool ye_plain_is_ambiguous(const char *s)
{
	static const char *const words[] = {"~", "null", "Null", "NULL", "true", "True", "TRUE",
					    "false", "False", "FALSE", "yes", "no", "on", "off",
					    "Yes", "No", "On", "Off", "YES", "NO", "ON", "OFF",
					    ".inf", ".nan", "y", "n", "Y", "N"};
	if (!*s)
		return true;
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (!strcmp(s, words[i]))
			return true;
	char *end;
	(void)strtod(s, &end);
	return *end == '\0';
}

void ye_str(struct ye *e, const char *s)
{
	if (!s)
		s = "";
	if (ye_plain_is_ambiguous(s))
		ye_scalar(e, s, YAML_DOUBLE_QUOTED_SCALAR_STYLE, 0);
	else
		ye_scalar(e, s, YAML_ANY_SCALAR_STYLE, 1);
}

void ye_dq(struct ye *e, const char *s)
{
	ye_scalar(e, s ? s : "", YAML_DOUBLE_QUOTED_SCALAR_STYLE, 0);
}

void ye_plain(struct ye *e, const char *s)
{
	ye_scalar(e, s, YAML_PLAIN_SCALAR_STYLE, 1);
}

void ye_i64(struct ye *e, int64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%" PRId64, v);
	ye_plain(e, b);
}

void ye_u64(struct ye *e, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof b, "%" PRIu64, v);
	ye_plain(e, b);
}

void ye_f64(struct ye *e, double v)
{
	char b[400]; /* DBL_MAX has 309 digits before the point */
	snprintf(b, sizeof b, "%.6f", v);
	ye_plain(e, b);
}

void ye_key(struct ye *e, const char *k)
{
	ye_scalar(e, k, YAML_PLAIN_SCALAR_STYLE, 1);
}

/* ---- reading ---- */

/* libyaml has no nesting limit and its scanner is quadratic in the flow
 * nesting depth (a 2 MB "[[[...]]]" takes some 40 minutes), while rosbag2
 * metadata is at most 8 levels deep: one pass over the first document's
 * events refuses deeper input before it is loaded (and too many anchors,
 * below). A syntax error ends the
 * pass; the load reports it. */
#define YD_MAX_DEPTH 64
/* Its loader also looks every alias up in a list of all anchors so far
 * (quadratic: 100k anchors in 1.4 MB take 25 s), and rosbag2 writes none:
 * the same pass refuses more than this many anchors and aliases. */
#define YD_MAX_ANCHORS 1000

static bool yd_has_anchor(const yaml_event_t *ev)
{
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		return ev->data.scalar.anchor != NULL;
	case YAML_SEQUENCE_START_EVENT:
		return ev->data.sequence_start.anchor != NULL;
	case YAML_MAPPING_START_EVENT:
		return ev->data.mapping_start.anchor != NULL;
	case YAML_ALIAS_EVENT:
		return true;
	default:
		return false;
	}
}

static bt_status yd_check_limits(const char *text, size_t len, struct bt_error *err)
{
	yaml_parser_t p;
	if (!yaml_parser_initialize(&p))
		return bt_err_set(err, BT_ERR_NOMEM, "cannot start the YAML parser");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	bt_status st = BT_OK;
	int depth = 0;
	size_t anchors = 0;
	bool done = false;
	yaml_event_t ev;
	while (!done && st == BT_OK && yaml_parser_parse(&p, &ev)) {
		if (ev.type == YAML_SEQUENCE_START_EVENT || ev.type == YAML_MAPPING_START_EVENT)
			depth++;
		else if (ev.type == YAML_SEQUENCE_END_EVENT || ev.type == YAML_MAPPING_END_EVENT)
			depth--;
		done = ev.type == YAML_DOCUMENT_END_EVENT || ev.type == YAML_STREAM_END_EVENT;
		if (depth > YD_MAX_DEPTH)
			st = bt_err_set(err, BT_ERR_FORMAT, "YAML error at line %zu: nested deeper "
					"than %d levels", ev.start_mark.line + 1, YD_MAX_DEPTH);
		anchors += yd_has_anchor(&ev);
		if (st == BT_OK && anchors > YD_MAX_ANCHORS)
			st = bt_err_set(err, BT_ERR_FORMAT, "YAML error at line %zu: more than %d "
					"anchors and aliases (rosbag2 metadata has none)",
					ev.start_mark.line + 1, YD_MAX_ANCHORS);
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&p);
	return st;
}

bt_status yd_load(yaml_document_t *doc, const char *text, size_t len, struct bt_error *err)
{
	yaml_parser_t p;
	bt_status depth_st = yd_check_limits(text, len, err);
	if (depth_st != BT_OK)
		return depth_st;
	if (!yaml_parser_initialize(&p))
		return bt_err_set(err, BT_ERR_NOMEM, "cannot start the YAML parser");
	yaml_parser_set_input_string(&p, (const unsigned char *)text, len);
	if (!yaml_parser_load(&p, doc)) {
		bt_status st = bt_err_set(err, BT_ERR_FORMAT, "YAML error at line %zu: %s",
					  p.problem_mark.line + 1,
					  p.problem ? p.problem : "unknown problem");
		yaml_parser_delete(&p);
		return st;
	}
	yaml_parser_delete(&p);
	if (!yaml_document_get_root_node(doc)) {
		yaml_document_delete(doc);
		return bt_err_set(err, BT_ERR_FORMAT, "empty YAML document");
	}
	return BT_OK;
}

static bool yd_scalar_is(const yaml_node_t *n, const char *s)
{
	return n && n->type == YAML_SCALAR_NODE && n->data.scalar.length == strlen(s) &&
	       !memcmp(n->data.scalar.value, s, n->data.scalar.length);
}

yaml_node_t *yd_get(yaml_document_t *doc, yaml_node_t *map, const char *key)
{
	if (!map || map->type != YAML_MAPPING_NODE)
		return NULL;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++)
		if (yd_scalar_is(yaml_document_get_node(doc, p->key), key))
			return yaml_document_get_node(doc, p->value);
	return NULL;
}

bool yd_is_null(const yaml_node_t *n)
{
	if (!n)
		return true;
	if (n->type != YAML_SCALAR_NODE || n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
		return false;
	return yd_scalar_is(n, "~") || yd_scalar_is(n, "null") || yd_scalar_is(n, "Null") ||
	       yd_scalar_is(n, "NULL") || n->data.scalar.length == 0;
}

/* Copies a scalar into a NUL-terminated string; refuses embedded NULs. */
static bt_status yd_cstr(const yaml_node_t *n, char *buf, size_t cap)
{
	if (!n || n->type != YAML_SCALAR_NODE || n->data.scalar.length >= cap ||
	    memchr(n->data.scalar.value, '\0', n->data.scalar.length))
		return BT_ERR_FORMAT;
	memcpy(buf, n->data.scalar.value, n->data.scalar.length);
	buf[n->data.scalar.length] = '\0';
	return BT_OK;
}

bt_status yd_str(const yaml_node_t *n, char **out)
{
	if (!n || n->type != YAML_SCALAR_NODE)
		return BT_ERR_FORMAT;
	*out = bt_xstrndup((const char *)n->data.scalar.value, n->data.scalar.length);
	return BT_OK;
}

bt_status yd_i64(const yaml_node_t *n, int64_t *out)
{
	char b[32];
	if (yd_cstr(n, b, sizeof b) != BT_OK)
		return BT_ERR_FORMAT;
	return bt_parse_i64(b, INT64_MIN, INT64_MAX, out) == BT_OK ? BT_OK : BT_ERR_FORMAT;
}

bt_status yd_u64(const yaml_node_t *n, uint64_t *out)
{
	char b[32];
	if (yd_cstr(n, b, sizeof b) != BT_OK)
		return BT_ERR_FORMAT;
	return bt_parse_u64(b, 0, UINT64_MAX, out) == BT_OK ? BT_OK : BT_ERR_FORMAT;
}

bt_status yd_bool(const yaml_node_t *n, bool *out)
{
	static const char *const t[] = {"true", "True", "TRUE", "yes", "Yes", "on", "1"};
	static const char *const f[] = {"false", "False", "FALSE", "no", "No", "off", "0"};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (yd_scalar_is(n, t[i])) {
			*out = true;
			return BT_OK;
		}
		if (yd_scalar_is(n, f[i])) {
			*out = false;
			return BT_OK;
		}
	}
	return BT_ERR_FORMAT;
}

bt_status yd_f64(const yaml_node_t *n, double *out)
{
	char b[400];
	if (yd_cstr(n, b, sizeof b) != BT_OK || !b[0])
		return BT_ERR_FORMAT;
	/* strtod also takes "nan", "inf", hex and leading blanks: only digits,
	 * one point and an exponent are numbers here. */
	for (const char *p = b; *p; p++)
		if (!strchr("0123456789.eE+-", *p))
			return BT_ERR_FORMAT;
	char *end;
	double v = strtod(b, &end);
	if (*end != '\0' || !(v >= 0.0) || v > DBL_MAX)
		return BT_ERR_FORMAT;
	*out = v;
	return BT_OK;
}

size_t yd_len(const yaml_node_t *seq)
{
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return 0;
	return (size_t)(seq->data.sequence.items.top - seq->data.sequence.items.start);
}

yaml_node_t *yd_item(yaml_document_t *doc, yaml_node_t *seq, size_t i)
{
	if (i >= yd_len(seq))
		return NULL;
	return yaml_document_get_node(doc, seq->data.sequence.items.start[i]);
}

/* Scalar keys of one mapping, sorted by (length, bytes) to find equal ones. */
static int yd_cmp_keys(const void *a, const void *b)
{
	const yaml_node_t *x = *(yaml_node_t *const *)a, *y = *(yaml_node_t *const *)b;
	if (x->data.scalar.length != y->data.scalar.length)
		return x->data.scalar.length < y->data.scalar.length ? -1 : 1;
	int c = memcmp(x->data.scalar.value, y->data.scalar.value, x->data.scalar.length);
	if (c)
		return c;
	size_t i = x->start_mark.index, j = y->start_mark.index;
	return i < j ? -1 : i > j;
}

/* The later of two equal scalar keys of mapping `m`, or NULL. */
static const yaml_node_t *yd_map_duplicate(yaml_document_t *doc, const yaml_node_t *m)
{
	size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start), k = 0;
	const yaml_node_t **keys = bt_xcalloc(n + 1, sizeof *keys);
	for (size_t i = 0; i < n; i++) {
		const yaml_node_t *key = yaml_document_get_node(doc, m->data.mapping.pairs.start[i].key);
		if (key && key->type == YAML_SCALAR_NODE)
			keys[k++] = key;
	}
	if (k > 1)
		qsort(keys, k, sizeof *keys, yd_cmp_keys);
	const yaml_node_t *dup = NULL;
	for (size_t i = 1; i < k && !dup; i++)
		if (keys[i]->data.scalar.length == keys[i - 1]->data.scalar.length &&
		    !memcmp(keys[i]->data.scalar.value, keys[i - 1]->data.scalar.value,
			    keys[i]->data.scalar.length))
			dup = keys[i];
	free(keys);
	return dup;
}

const yaml_node_t *yd_duplicate_key(yaml_document_t *doc)
{
	for (yaml_node_t *n = doc->nodes.start; n < doc->nodes.top; n++) {
		if (n->type != YAML_MAPPING_NODE)
			continue;
		const yaml_node_t *dup = yd_map_duplicate(doc, n);
		if (dup)
			return dup;
	}
	return NULL;
}
