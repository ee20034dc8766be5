/* btdds_typedesc — GetTypeDescription on the wire (btdds_typedesc.h). */
#include "btdds_typedesc.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"

/* FieldType ids: a base type (0..22) plus 48 per container kind. */
#define TD_KIND_STEP 48
enum { TD_PLAIN, TD_ARRAY, TD_BOUNDED_SEQ, TD_UNBOUNDED_SEQ };
#define TD_NESTED 1
#define TD_FIXED_STRING 19
#define TD_BOUNDED_WSTRING 22

/* The smallest encodings, for checking a sequence count against the bytes
 * left: a string is at least its length and NUL. */
#define TD_MIN_STRING 5
#define TD_MIN_FIELD (TD_MIN_STRING + 1 + 16 + TD_MIN_STRING + TD_MIN_STRING)
#define TD_MIN_TYPE (TD_MIN_STRING + 4)
#define TD_MIN_SOURCE (3 * TD_MIN_STRING)

void btdds_td_put_request(struct btdds_cdr_wr *w, const char *type_name, const char *type_hash,
			  bool include_sources)
{
	btdds_cdr_put_string(w, type_name);
	btdds_cdr_put_string(w, type_hash);
	btdds_cdr_put_u8(w, include_sources ? 1 : 0);
	btdds_cdr_wr_finish(w);
}

static const char *td_string(struct btdds_cdr_rd *r, size_t max)
{
	size_t n;
	return btdds_cdr_string(r, max, &n);
}

static void td_field(struct btdds_cdr_rd *r, struct btdds_td_field *f)
{
	if (!btdds_cdr_enter(r))
		return;
	f->name = td_string(r, 0);
	if (btdds_cdr_enter(r)) { /* FieldType */
		f->type_id = btdds_cdr_u8(r);
		f->capacity = btdds_cdr_u64(r);
		f->string_capacity = btdds_cdr_u64(r);
		f->nested_type_name = td_string(r, BTDDS_TD_NAME_MAX);
		btdds_cdr_leave(r);
	}
	f->default_value = td_string(r, 0);
	btdds_cdr_leave(r);
}

static void td_type(struct btdds_cdr_rd *r, struct btdds_td_type *t)
{
	if (!btdds_cdr_enter(r))
		return;
	t->type_name = td_string(r, BTDDS_TD_NAME_MAX);
	uint32_t n = btdds_cdr_seq(r, TD_MIN_FIELD);
	t->fields = n ? bt_xcalloc(n, sizeof *t->fields) : NULL;
	t->n_fields = n;
	for (uint32_t i = 0; i < n && btdds_cdr_ok(r); i++)
		td_field(r, &t->fields[i]);
	btdds_cdr_leave(r);
}

/* False when the reply lists more referenced types than accepted. */
static bool td_description(struct btdds_cdr_rd *r, struct btdds_td_reply *t)
{
	if (!btdds_cdr_enter(r))
		return true;
	t->types = bt_xcalloc(1, sizeof *t->types);
	t->n_types = 1;
	td_type(r, &t->types[0]);
	uint32_t n = btdds_cdr_seq(r, TD_MIN_TYPE);
	if (n >= BTDDS_TD_TYPES_MAX)
		return false;
	t->types = bt_xrealloc(t->types, (n + 1) * sizeof *t->types);
	memset(t->types + 1, 0, n * sizeof *t->types);
	t->n_types = n + 1;
	for (uint32_t i = 1; i <= n && btdds_cdr_ok(r); i++)
		td_type(r, &t->types[i]);
	btdds_cdr_leave(r);
	return true;
}

static void td_sources(struct btdds_cdr_rd *r, struct btdds_td_reply *t)
{
	uint32_t n = btdds_cdr_seq(r, TD_MIN_SOURCE);
	t->sources = n ? bt_xcalloc(n, sizeof *t->sources) : NULL;
	t->n_sources = n;
	for (uint32_t i = 0; i < n && btdds_cdr_ok(r); i++) {
		if (!btdds_cdr_enter(r))
			break;
		t->sources[i].type_name = td_string(r, 0);
		t->sources[i].encoding = td_string(r, 0);
		t->sources[i].raw_file_contents = td_string(r, 0);
		btdds_cdr_leave(r);
	}
}

bt_status btdds_td_decode(struct btdds_cdr_rd *r, struct btdds_td_reply *out,
			  struct bt_error *err)
{
	memset(out, 0, sizeof *out);
	out->successful = btdds_cdr_bool(r);
	out->failure_reason = td_string(r, 0);
	bool fits = td_description(r, out);
	if (fits) {
		td_sources(r, out);
		uint32_t n_extra = btdds_cdr_seq(r, 2 * TD_MIN_STRING); /* KeyValue[] */
		for (uint32_t i = 0; i < n_extra && btdds_cdr_ok(r); i++) {
			(void)td_string(r, 0);
			(void)td_string(r, 0);
		}
	}
	if (fits && btdds_cdr_ok(r))
		return BT_OK;
	if (!btdds_cdr_ok(r))
		(void)btdds_cdr_error(r, "GetTypeDescription reply", err);
	else
		(void)bt_err_set(err, BT_ERR_FORMAT, "GetTypeDescription reply: more than %d "
				 "referenced types", BTDDS_TD_TYPES_MAX - 1);
	btdds_td_reply_fini(out);
	return BT_ERR_FORMAT;
}

void btdds_td_reply_fini(struct btdds_td_reply *t)
{
	for (size_t i = 0; i < t->n_types; i++)
		free(t->types[i].fields);
	free(t->types);
	free(t->sources);
	memset(t, 0, sizeof *t);
}

/* ---- rendering as .msg ---- */

static const char *const td_base_names[] = {
	[2] = "int8",	 [3] = "uint8",	 [4] = "int16",	  [5] = "uint16",  [6] = "int32",
	[7] = "uint32",	 [8] = "int64",	 [9] = "uint64",  [10] = "float32", [11] = "float64",
	[13] = "char",	 [15] = "bool",	 [16] = "byte",	  [17] = "string", [18] = "wstring",
	[19] = "string", [20] = "wstring", [21] = "string", [22] = "wstring",
};

/* "pkg/msg/Type" → "pkg/Type", as .msg files name nested types. */
static bool td_nested_name(const char *full, struct bt_buf *b)
{
	const char *a = strchr(full, '/');
	if (a == NULL || a == full || strncmp(a, "/msg/", 5) != 0 || a[5] == '\0' ||
	    strchr(a + 5, '/') != NULL)
		return false;
	return bt_buf_printf(b, "%.*s/%s", (int)(a - full), full, a + 5) == BT_OK;
}

static bt_status td_field_text(const struct btdds_td_field *f, struct bt_buf *b,
			       struct bt_error *err)
{
	unsigned base = f->type_id % TD_KIND_STEP, kind = f->type_id / TD_KIND_STEP;
	bool ok = kind <= TD_UNBOUNDED_SEQ;
	if (ok && base == TD_NESTED)
		ok = td_nested_name(f->nested_type_name ? f->nested_type_name : "", b);
	else if (ok)
		ok = base < sizeof td_base_names / sizeof *td_base_names &&
		     td_base_names[base] != NULL &&
		     bt_buf_puts(b, td_base_names[base]) == BT_OK;
	if (!ok)
		return bt_err_set(err, BT_ERR_FORMAT, "field '%s': type id %u has no .msg form",
				  f->name, f->type_id);
	bt_status st = BT_OK;
	if (base >= TD_FIXED_STRING && base <= TD_BOUNDED_WSTRING)
		st = bt_buf_printf(b, "<=%" PRIu64, f->string_capacity);
	if (st == BT_OK && kind == TD_ARRAY)
		st = bt_buf_printf(b, "[%" PRIu64 "]", f->capacity);
	else if (st == BT_OK && kind == TD_BOUNDED_SEQ)
		st = bt_buf_printf(b, "[<=%" PRIu64 "]", f->capacity);
	else if (st == BT_OK && kind == TD_UNBOUNDED_SEQ)
		st = bt_buf_puts(b, "[]");
	if (st == BT_OK)
		st = bt_buf_printf(b, " %s", f->name);
	if (st == BT_OK && f->default_value != NULL && f->default_value[0] != '\0')
		st = bt_buf_printf(b, " %s", f->default_value);
	if (st == BT_OK)
		st = bt_buf_puts(b, "\n");
	if (st != BT_OK)
		abort();
	return BT_OK;
}

bt_status btdds_td_msg_text(const struct btdds_td_type *t, struct bt_buf *b,
			    struct bt_error *err)
{
	for (size_t i = 0; i < t->n_fields; i++) {
		bt_status st = td_field_text(&t->fields[i], b, err);
		if (st != BT_OK)
			return bt_err_prefix(err, "%s", t->type_name);
	}
	return BT_OK;
}
