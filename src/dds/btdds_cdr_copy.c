/* btdds_cdr_copy — a typed value re-aligned from one CDR stream to another
 * (btdds_cdr_copy.h). Every loop also stops at the reader's first problem:
 * a failed reader returns zeros, and a fixed array of a billion elements
 * must not be walked for nothing. */
#include "btdds_cdr_copy.h"

#include <string.h>

static void copy_struct(const struct defs_types *t, size_t si, struct btdds_cdr_rd *r,
			struct btdds_cdr_wr *w);

/* The fewest bytes one element of `f` takes on the wire (a sequence's
 * count is checked against what is left with it). */
static size_t copy_min_size(const struct defs_field *f)
{
	switch (f->kind) {
	case DEFS_KIND_INT16:
	case DEFS_KIND_UINT16:
		return 2;
	case DEFS_KIND_FLOAT32:
	case DEFS_KIND_INT32:
	case DEFS_KIND_UINT32:
		return 4;
	case DEFS_KIND_FLOAT64:
	case DEFS_KIND_INT64:
	case DEFS_KIND_UINT64:
		return 8;
	case DEFS_KIND_STRING:
		return 5; /* a count and the NUL */
	default:
		return 1;
	}
}

static void copy_string(const struct defs_field *f, struct btdds_cdr_rd *r,
			struct btdds_cdr_wr *w)
{
	size_t n;
	const char *s = btdds_cdr_string(r, f->str_bound, &n);
	if (!btdds_cdr_ok(r))
		return;
	btdds_cdr_put_u32(w, (uint32_t)(n + 1));
	btdds_cdr_put_bytes(w, s, n + 1);
}

static void copy_one(const struct defs_types *t, const struct defs_field *f,
		     struct btdds_cdr_rd *r, struct btdds_cdr_wr *w)
{
	switch (f->kind) {
	case DEFS_KIND_NESTED:
		copy_struct(t, f->nested, r, w);
		return;
	case DEFS_KIND_STRING:
		copy_string(f, r, w);
		return;
	case DEFS_KIND_WSTRING:
		btdds_cdr_fail(r, "a wstring field, which bagtop does not copy");
		return;
	default:
		break;
	}
	switch (copy_min_size(f)) {
	case 2:
		btdds_cdr_put_u16(w, btdds_cdr_u16(r));
		break;
	case 4:
		btdds_cdr_put_u32(w, btdds_cdr_u32(r));
		break;
	case 8:
		btdds_cdr_put_u64(w, btdds_cdr_u64(r));
		break;
	default:
		btdds_cdr_put_u8(w, btdds_cdr_u8(r));
	}
}

static void copy_field(const struct defs_types *t, const struct defs_field *f,
		       struct btdds_cdr_rd *r, struct btdds_cdr_wr *w)
{
	uint32_t n = 1;
	if (f->array == DEFS_ARRAY_FIXED) {
		n = f->count;
	} else if (f->array == DEFS_ARRAY_SEQ) {
		n = btdds_cdr_seq(r, copy_min_size(f));
		if (f->count != 0 && n > f->count)
			btdds_cdr_fail(r, "sequence longer than its bound");
		if (!btdds_cdr_ok(r))
			return;
		btdds_cdr_put_u32(w, n);
	}
	for (uint32_t i = 0; i < n && btdds_cdr_ok(r); i++)
		copy_one(t, f, r, w);
}

static void copy_struct(const struct defs_types *t, size_t si, struct btdds_cdr_rd *r,
			struct btdds_cdr_wr *w)
{
	if (!btdds_cdr_enter(r))
		return;
	const struct defs_struct *s = &t->v[si];
	if (s->n_fields == 0) /* rosidl's structure_needs_at_least_one_member */
		btdds_cdr_put_u8(w, btdds_cdr_u8(r));
	for (size_t k = 0; k < s->n_fields && btdds_cdr_ok(r); k++)
		copy_field(t, &s->fields[k], r, w);
	btdds_cdr_leave(r);
}

bt_status btdds_cdr_copy(const struct defs_types *t, size_t type, struct btdds_cdr_rd *r,
			 struct btdds_cdr_wr *w, const char *what, struct bt_error *err)
{
	if (type >= t->n)
		return bt_err_set(err, BT_ERR_FORMAT, "%s: no such type", what);
	copy_struct(t, type, r, w);
	return btdds_cdr_error(r, what, err);
}
