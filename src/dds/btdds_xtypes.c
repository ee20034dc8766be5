/* btdds_xtypes — complete TypeObjects rendered as OMG IDL (see the header).
 *
 * The walk is depth first: before a named type's declaration is appended,
 * every type it uses has been (so dependencies come before use); a table of
 * the named types met, keyed by their equivalence hash, makes each appear
 * once and finds cycles (a type met again while its own dependencies are
 * being walked). Declarations go into the modules of their scoped names;
 * consecutive declarations of one module share it. Errors are sticky in
 * `xt.st`: once set, nothing more is appended. */
#include "btdds_xtypes.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_mem.h"

#define XT_NAME_MAX (sizeof(DDS_XTypes_QualifiedTypeName) - 1)

typedef struct DDS_XTypes_TypeIdentifier xt_id;
typedef struct DDS_XTypes_TypeObject xt_obj;
typedef struct DDS_XTypes_CompleteTypeObject xt_cobj;

/* A type object met on the walk: named ones are declared once. */
struct xt_type {
	DDS_XTypes_EquivalenceHash hash; /* zero for the root */
	const xt_obj *o;
	const char *name; /* qualified, NULL for anonymous collections */
	bool done;        /* declared (or, anonymous, walked) */
};

struct xt {
	btdds_xt_lookup lookup;
	void *ctx;
	struct bt_error *err;
	bt_status st;
	struct bt_buf out;
	struct xt_type *types;
	size_t n_types, cap_types;
	char scope[XT_NAME_MAX + 1]; /* the modules open in `out`, "a::b" */
	unsigned open;               /* how many */
	unsigned depth;
};

/* ---- errors and text ---- */

static bt_status xt_fail(struct xt *x, const char *fmt, ...) BT_PRINTF(2, 3);
static bt_status xt_fail(struct xt *x, const char *fmt, ...)
{
	if (x->st != BT_OK)
		return x->st;
	char msg[sizeof x->err->msg];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	x->st = bt_err_set(x->err, BT_ERR_FORMAT, "type object: %s", msg);
	return x->st;
}

static void xt_put(struct xt *x, struct bt_buf *b, const char *fmt, ...) BT_PRINTF(3, 4);
static void xt_put(struct xt *x, struct bt_buf *b, const char *fmt, ...)
{
	if (x->st != BT_OK)
		return;
	va_list ap;
	va_start(ap, fmt);
	char small[512];
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		xt_fail(x, "cannot format");
		return;
	}
	bt_status st;
	if ((size_t)n < sizeof small) {
		st = bt_buf_append(b, small, (size_t)n);
	} else {
		char *big = bt_xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		st = bt_buf_append(b, big, (size_t)n);
		free(big);
	}
	if (st != BT_OK)
		x->st = bt_err_set(x->err, st, "type object: out of memory");
}

static void xt_indent(struct xt *x)
{
	for (unsigned i = 0; i < x->open; i++)
		xt_put(x, &x->out, "  ");
}

/* A member's line: one level inside its declaration. */
static void xt_indent_member(struct xt *x)
{
	xt_indent(x);
	xt_put(x, &x->out, "  ");
}

/* ---- names ---- */

static bool xt_ident_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* `len` bytes at `s` form one IDL identifier. */
static bool xt_ident_ok(const char *s, size_t len)
{
	if (len == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!xt_ident_char(s[i], i == 0))
			return false;
	return true;
}

/* A member or literal name: NUL-terminated in its array, an identifier. */
static const char *xt_member_name(struct xt *x, const DDS_XTypes_MemberName name)
{
	size_t len = strnlen(name, sizeof(DDS_XTypes_MemberName));
	if (len == sizeof(DDS_XTypes_MemberName) || !xt_ident_ok(name, len)) {
		xt_fail(x, "a member name is not an IDL identifier");
		return NULL;
	}
	return name;
}

/* A type's scoped name "a::b::T": identifiers joined by "::". */
static const char *xt_type_name(struct xt *x, const DDS_XTypes_QualifiedTypeName name)
{
	size_t len = strnlen(name, sizeof(DDS_XTypes_QualifiedTypeName));
	bool ok = len < sizeof(DDS_XTypes_QualifiedTypeName);
	for (size_t i = 0, start = 0; ok && i <= len; i++) {
		if (i < len && name[i] != ':')
			continue;
		ok = xt_ident_ok(name + start, i - start) &&
		     (i == len || (i + 2 < len && name[i + 1] == ':'));
		start = i + 2;
		i++;
	}
	if (!ok) {
		xt_fail(x, "a type name is not a scoped IDL name");
		return NULL;
	}
	return name;
}

/* The last identifier of a scoped name, and the length of its scope. */
static const char *xt_base(const char *name, size_t *scope_len)
{
	const char *p = name, *q;
	while ((q = strstr(p, "::")) != NULL)
		p = q + 2;
	*scope_len = p == name ? 0 : (size_t)(p - name) - 2;
	return p;
}

/* The length of the first segment of scoped name s[0, len). */
static size_t xt_seg(const char *s, size_t len)
{
	const char *e = memchr(s, ':', len);
	return e ? (size_t)(e - s) : len;
}

/* Opens and closes modules so that `out` is inside scope[0, len). */
static void xt_enter_scope(struct xt *x, const char *scope, size_t len)
{
	size_t cur = strlen(x->scope), i = 0; /* i: bytes of whole shared modules */
	unsigned keep = 0;
	while (i < cur && i < len) {
		size_t a = xt_seg(x->scope + i, cur - i), b = xt_seg(scope + i, len - i);
		if (a != b || memcmp(x->scope + i, scope + i, a) != 0)
			break;
		keep++;
		i += a + 2;
	}
	while (x->open > keep) {
		x->open--;
		xt_indent(x);
		xt_put(x, &x->out, "};\n");
	}
	while (i < len) {
		size_t n = xt_seg(scope + i, len - i);
		xt_indent(x);
		xt_put(x, &x->out, "module %.*s {\n", (int)n, scope + i);
		x->open++;
		i += n + 2;
	}
	memcpy(x->scope, scope, len);
	x->scope[len] = '\0';
}

/* ---- the walk ---- */

static bool xt_hashed(const xt_id *id)
{
	return id->_d == DDS_XTypes_EK_COMPLETE || id->_d == DDS_XTypes_EK_MINIMAL;
}

static struct xt_type *xt_find(struct xt *x, const xt_id *id)
{
	for (size_t i = 0; i < x->n_types; i++)
		if (x->types[i].o != NULL && i > 0 &&
		    memcmp(x->types[i].hash, id->_u.equivalence_hash, sizeof x->types[i].hash) == 0)
			return &x->types[i];
	return NULL;
}

static void xt_declare(struct xt *x, struct xt_type *t);
static void xt_need(struct xt *x, const xt_id *id);

/* The table entry of hashed id `id`, looked up and walked if new. */
static struct xt_type *xt_need_hashed(struct xt *x, const xt_id *id)
{
	if (id->_d == DDS_XTypes_EK_MINIMAL) {
		xt_fail(x, "a minimal type (no names) where a complete one was expected");
		return NULL;
	}
	struct xt_type *t = xt_find(x, id);
	if (t != NULL) {
		if (!t->done)
			xt_fail(x, "a type refers back to itself (cycle)");
		return x->st == BT_OK ? t : NULL;
	}
	if (x->n_types >= BTDDS_XT_MAX_TYPES) {
		xt_fail(x, "more than %u types", BTDDS_XT_MAX_TYPES);
		return NULL;
	}
	const xt_obj *o = x->lookup(x->ctx, id, x->err);
	if (o == NULL) {
		if (x->st == BT_OK)
			x->st = x->err->code != BT_OK ? x->err->code : BT_ERR_NOTFOUND;
		return NULL;
	}
	bt_xgrow((void **)&x->types, &x->cap_types, x->n_types + 1, sizeof *x->types);
	size_t i = x->n_types++;
	x->types[i] = (struct xt_type){.o = o};
	memcpy(x->types[i].hash, id->_u.equivalence_hash, sizeof x->types[i].hash);
	xt_declare(x, &x->types[i]);
	return x->st == BT_OK ? &x->types[i] : NULL;
}

/* Enters one more level of the walk over a type: false when it must not
 * go on (x failed before, or now: nested too deep). After a true, the
 * caller leaves the level with x->depth--. */
static bool xt_deeper(struct xt *x)
{
	if (x->st != BT_OK)
		return false;
	if (++x->depth > BTDDS_XT_MAX_DEPTH) {
		xt_fail(x, "nested deeper than %u", BTDDS_XT_MAX_DEPTH);
		x->depth--;
		return false;
	}
	return true;
}

static void xt_need_collection_elem(struct xt *x, const xt_id *elem)
{
	if (elem == NULL)
		xt_fail(x, "a collection without an element type");
	else
		xt_need(x, elem);
}

/* Walks what `id` uses, so that every named type in it is declared. */
static void xt_need(struct xt *x, const xt_id *id)
{
	if (!xt_deeper(x))
		return;
	switch (id->_d) {
	case DDS_XTypes_TI_PLAIN_SEQUENCE_SMALL:
		xt_need_collection_elem(x, id->_u.seq_sdefn.element_identifier);
		break;
	case DDS_XTypes_TI_PLAIN_SEQUENCE_LARGE:
		xt_need_collection_elem(x, id->_u.seq_ldefn.element_identifier);
		break;
	case DDS_XTypes_TI_PLAIN_ARRAY_SMALL:
		xt_need_collection_elem(x, id->_u.array_sdefn.element_identifier);
		break;
	case DDS_XTypes_TI_PLAIN_ARRAY_LARGE:
		xt_need_collection_elem(x, id->_u.array_ldefn.element_identifier);
		break;
	case DDS_XTypes_TI_PLAIN_MAP_SMALL:
		xt_need_collection_elem(x, id->_u.map_sdefn.key_identifier);
		xt_need_collection_elem(x, id->_u.map_sdefn.element_identifier);
		break;
	case DDS_XTypes_TI_PLAIN_MAP_LARGE:
		xt_need_collection_elem(x, id->_u.map_ldefn.key_identifier);
		xt_need_collection_elem(x, id->_u.map_ldefn.element_identifier);
		break;
	case DDS_XTypes_EK_COMPLETE:
	case DDS_XTypes_EK_MINIMAL:
		(void)xt_need_hashed(x, id);
		break;
	case DDS_XTypes_TI_STRONGLY_CONNECTED_COMPONENT:
		xt_fail(x, "recursive types (strongly connected components) are not supported");
		break;
	default:
		break; /* primitives and strings: nothing to declare; others fail in xt_spec */
	}
	x->depth--;
}

/* ---- type specs ---- */

static const char *xt_prim(uint8_t d)
{
	switch (d) {
	case DDS_XTypes_TK_BOOLEAN: return "boolean";
	case DDS_XTypes_TK_BYTE: return "octet";
	case DDS_XTypes_TK_INT16: return "short";
	case DDS_XTypes_TK_INT32: return "long";
	case DDS_XTypes_TK_INT64: return "long long";
	case DDS_XTypes_TK_UINT16: return "unsigned short";
	case DDS_XTypes_TK_UINT32: return "unsigned long";
	case DDS_XTypes_TK_UINT64: return "unsigned long long";
	case DDS_XTypes_TK_FLOAT32: return "float";
	case DDS_XTypes_TK_FLOAT64: return "double";
	case DDS_XTypes_TK_FLOAT128: return "long double";
	case 0x0C: return "int8";  /* TK_INT8, XTypes 1.3 */
	case 0x0D: return "uint8"; /* TK_UINT8 */
	case DDS_XTypes_TK_CHAR8: return "char";
	case DDS_XTypes_TK_CHAR16: return "wchar";
	default: return NULL;
	}
}

static void xt_spec(struct xt *x, const xt_id *id, struct bt_buf *spec, struct bt_buf *dims);

/* "sequence<E>" / "sequence<E, N>" (or map's "map<K, E[, N]>"). */
static void xt_spec_coll(struct xt *x, const char *kind, const xt_id *key, const xt_id *elem,
			 uint32_t bound, struct bt_buf *spec)
{
	struct bt_buf k = BT_BUF_INIT, e = BT_BUF_INIT, d = BT_BUF_INIT;
	if (elem == NULL || (key == NULL && strcmp(kind, "map") == 0)) {
		xt_fail(x, "a collection without an element type");
	} else {
		if (key != NULL)
			xt_spec(x, key, &k, &d);
		xt_spec(x, elem, &e, &d);
		if (d.len > 0)
			xt_fail(x, "an anonymous array inside a %s", kind);
	}
	xt_put(x, spec, "%s<%s%s%s", kind, key ? k.data : "", key ? ", " : "", e.data ? e.data : "");
	if (bound > 0)
		xt_put(x, spec, ", %u", (unsigned)bound);
	/* "> >": IDL 3 lexers (idlc's) read ">>" as a shift */
	xt_put(x, spec, "%s>", spec->len > 0 && spec->data[spec->len - 1] == '>' ? " " : "");
	bt_buf_fini(&k);
	bt_buf_fini(&e);
	bt_buf_fini(&d);
}

static void xt_spec_array(struct xt *x, const xt_id *elem, size_t n, const void *bounds,
			  bool small, struct bt_buf *spec, struct bt_buf *dims)
{
	if (n == 0 || elem == NULL || (n > 0 && bounds == NULL)) {
		xt_fail(x, "an array without dimensions or element type");
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t b = small ? ((const uint8_t *)bounds)[i] : ((const uint32_t *)bounds)[i];
		if (b == 0)
			xt_fail(x, "an array dimension of 0");
		xt_put(x, dims, "[%u]", (unsigned)b);
	}
	xt_spec(x, elem, spec, dims);
}

/* A hashed reference: a named type's scoped name, or an anonymous
 * collection object spelled out. */
static void xt_spec_hashed(struct xt *x, const xt_id *id, struct bt_buf *spec, struct bt_buf *dims)
{
	struct xt_type *t = xt_find(x, id);
	if (t == NULL || !t->done) {
		xt_fail(x, "a type used before it was walked");
		return;
	}
	if (t->name != NULL) {
		xt_put(x, spec, "%s", t->name);
		return;
	}
	const xt_cobj *c = &t->o->_u.complete;
	switch (c->_d) {
	case DDS_XTypes_TK_SEQUENCE:
		xt_spec_coll(x, "sequence", NULL, &c->_u.sequence_type.element.common.type,
			     c->_u.sequence_type.header.common.bound, spec);
		break;
	case DDS_XTypes_TK_MAP:
		xt_spec_coll(x, "map", &c->_u.map_type.key.common.type,
			     &c->_u.map_type.element.common.type, c->_u.map_type.header.common.bound,
			     spec);
		break;
	case DDS_XTypes_TK_ARRAY:
		xt_spec_array(x, &c->_u.array_type.element.common.type,
			      c->_u.array_type.header.common.bound_seq._length,
			      c->_u.array_type.header.common.bound_seq._buffer, false, spec, dims);
		break;
	default:
		xt_fail(x, "type kind %u cannot be used here", (unsigned)c->_d);
	}
}

/* The IDL type spec of `id` into `spec`, and its array dimensions (they
 * follow the declarator in IDL) into `dims`. */
static void xt_spec(struct xt *x, const xt_id *id, struct bt_buf *spec, struct bt_buf *dims)
{
	if (!xt_deeper(x))
		return;
	const char *prim = xt_prim(id->_d);
	const char *w = id->_d == DDS_XTypes_TI_STRING16_SMALL ||
				id->_d == DDS_XTypes_TI_STRING16_LARGE ? "w" : "";
	uint32_t bound;
	switch (id->_d) {
	case DDS_XTypes_TI_STRING8_SMALL:
	case DDS_XTypes_TI_STRING16_SMALL:
	case DDS_XTypes_TI_STRING8_LARGE:
	case DDS_XTypes_TI_STRING16_LARGE:
		bound = id->_d == DDS_XTypes_TI_STRING8_SMALL || id->_d == DDS_XTypes_TI_STRING16_SMALL
				? id->_u.string_sdefn.bound : id->_u.string_ldefn.bound;
		if (bound == 0)
			xt_put(x, spec, "%sstring", w);
		else
			xt_put(x, spec, "%sstring<%u>", w, (unsigned)bound);
		break;
	case DDS_XTypes_TI_PLAIN_SEQUENCE_SMALL:
		xt_spec_coll(x, "sequence", NULL, id->_u.seq_sdefn.element_identifier,
			     id->_u.seq_sdefn.bound, spec);
		break;
	case DDS_XTypes_TI_PLAIN_SEQUENCE_LARGE:
		xt_spec_coll(x, "sequence", NULL, id->_u.seq_ldefn.element_identifier,
			     id->_u.seq_ldefn.bound, spec);
		break;
	case DDS_XTypes_TI_PLAIN_MAP_SMALL:
		xt_spec_coll(x, "map", id->_u.map_sdefn.key_identifier,
			     id->_u.map_sdefn.element_identifier, id->_u.map_sdefn.bound, spec);
		break;
	case DDS_XTypes_TI_PLAIN_MAP_LARGE:
		xt_spec_coll(x, "map", id->_u.map_ldefn.key_identifier,
			     id->_u.map_ldefn.element_identifier, id->_u.map_ldefn.bound, spec);
		break;
	case DDS_XTypes_TI_PLAIN_ARRAY_SMALL:
		xt_spec_array(x, id->_u.array_sdefn.element_identifier,
			      id->_u.array_sdefn.array_bound_seq._length,
			      id->_u.array_sdefn.array_bound_seq._buffer, true, spec, dims);
		break;
	case DDS_XTypes_TI_PLAIN_ARRAY_LARGE:
		xt_spec_array(x, id->_u.array_ldefn.element_identifier,
			      id->_u.array_ldefn.array_bound_seq._length,
			      id->_u.array_ldefn.array_bound_seq._buffer, false, spec, dims);
		break;
	case DDS_XTypes_EK_COMPLETE:
		xt_spec_hashed(x, id, spec, dims);
		break;
	default:
		if (prim != NULL)
			xt_put(x, spec, "%s", prim);
		else
			xt_fail(x, "unknown type identifier kind %u", (unsigned)id->_d);
	}
	x->depth--;
}

/* "<spec> <name><dims>" (a member, a typedef's declarator). */
static void xt_decl(struct xt *x, const xt_id *id, const char *name)
{
	struct bt_buf spec = BT_BUF_INIT, dims = BT_BUF_INIT;
	xt_spec(x, id, &spec, &dims);
	xt_put(x, &x->out, "%s %s%s", spec.data ? spec.data : "", name, dims.data ? dims.data : "");
	bt_buf_fini(&spec);
	bt_buf_fini(&dims);
}

/* ---- declarations ---- */

static const char *xt_extensibility(uint16_t flags)
{
	if (flags & DDS_XTypes_IS_MUTABLE)
		return "@mutable ";
	if (flags & DDS_XTypes_IS_APPENDABLE)
		return "@appendable ";
	return "@final ";
}

static void xt_member_annotations(struct xt *x, uint16_t flags, uint32_t id, uint32_t expect)
{
	if (flags & DDS_XTypes_IS_KEY)
		xt_put(x, &x->out, "@key ");
	if (flags & DDS_XTypes_IS_OPTIONAL)
		xt_put(x, &x->out, "@optional ");
	if (flags & DDS_XTypes_IS_EXTERNAL)
		xt_put(x, &x->out, "@external ");
	/* XTypes sets must_understand on every key: only an explicit one shows */
	if ((flags & DDS_XTypes_IS_MUST_UNDERSTAND) && !(flags & DDS_XTypes_IS_KEY))
		xt_put(x, &x->out, "@must_understand ");
	if (id != expect)
		xt_put(x, &x->out, "@id(%u) ", (unsigned)id);
}

/* Starts a named declaration: its modules, then the indentation. */
static const char *xt_open_decl(struct xt *x, const struct xt_type *t)
{
	size_t scope_len;
	const char *base = xt_base(t->name, &scope_len);
	xt_enter_scope(x, t->name, scope_len);
	xt_indent(x);
	return base;
}

/* Ends a declaration that has a body. */
static void xt_close_decl(struct xt *x)
{
	xt_indent(x);
	xt_put(x, &x->out, "};\n");
}

static void xt_struct(struct xt *x, const struct xt_type *t)
{
	const struct DDS_XTypes_CompleteStructType *s = &t->o->_u.complete._u.struct_type;
	bool has_base = s->header.base_type._d != DDS_XTypes_TK_NONE;
	if (has_base && !xt_hashed(&s->header.base_type))
		xt_fail(x, "%s: its base is not a struct", t->name);
	if (has_base)
		xt_need(x, &s->header.base_type);
	const struct DDS_XTypes_CompleteStructMemberSeq *m = &s->member_seq;
	if (m->_length > 0 && m->_buffer == NULL)
		xt_fail(x, "%s: members missing", t->name);
	for (uint32_t i = 0; i < m->_length && x->st == BT_OK; i++)
		xt_need(x, &m->_buffer[i].common.member_type_id);
	if (x->st != BT_OK)
		return;
	const char *base = xt_open_decl(x, t);
	xt_put(x, &x->out, "%s%sstruct %s", xt_extensibility(s->struct_flags),
	       (s->struct_flags & DDS_XTypes_IS_AUTOID_HASH) ? "@autoid(HASH) " : "", base);
	if (has_base) {
		struct xt_type *b = xt_find(x, &s->header.base_type);
		if (b == NULL || b->o->_u.complete._d != DDS_XTypes_TK_STRUCTURE)
			xt_fail(x, "%s: its base is not a struct", t->name);
		else
			xt_put(x, &x->out, " : %s", b->name);
	}
	xt_put(x, &x->out, " {\n");
	uint32_t expect = 0;
	for (uint32_t i = 0; i < m->_length && x->st == BT_OK; i++) {
		const struct DDS_XTypes_CompleteStructMember *mb = &m->_buffer[i];
		const char *name = xt_member_name(x, mb->detail.name);
		if (name == NULL)
			return;
		xt_indent_member(x);
		xt_member_annotations(x, mb->common.member_flags, mb->common.member_id,
				      (s->struct_flags & DDS_XTypes_IS_AUTOID_HASH)
					      ? mb->common.member_id : expect);
		xt_decl(x, &mb->common.member_type_id, name);
		xt_put(x, &x->out, ";\n");
		expect = mb->common.member_id + 1;
	}
	xt_close_decl(x);
}

/* A case label of a union whose discriminator is `disc`. */
static void xt_label(struct xt *x, const xt_id *disc, int32_t v)
{
	if (disc->_d == DDS_XTypes_TK_BOOLEAN) {
		xt_put(x, &x->out, "case %s: ", v ? "TRUE" : "FALSE");
		return;
	}
	if (disc->_d == DDS_XTypes_TK_CHAR8 || disc->_d == DDS_XTypes_TK_CHAR16) {
		if (v < 0 || v > 0xffff)
			xt_fail(x, "a union label %ld that is not a character", (long)v);
		else if (v >= 0x20 && v < 0x7f && v != '\'' && v != '\\')
			xt_put(x, &x->out, "case %s'%c': ", disc->_d == DDS_XTypes_TK_CHAR16 ? "L" : "",
			       (char)v);
		else
			xt_put(x, &x->out, "case %s'\\x%02lx': ",
			       disc->_d == DDS_XTypes_TK_CHAR16 ? "L" : "", (long)v);
		return;
	}
	if (disc->_d != DDS_XTypes_EK_COMPLETE) {
		xt_put(x, &x->out, "case %ld: ", (long)v);
		return;
	}
	struct xt_type *e = xt_find(x, disc);
	if (e == NULL || e->o->_u.complete._d != DDS_XTypes_TK_ENUM) {
		xt_fail(x, "a union discriminator that is not an integer, boolean or enum");
		return;
	}
	const struct DDS_XTypes_CompleteEnumeratedLiteralSeq *l =
		&e->o->_u.complete._u.enumerated_type.literal_seq;
	size_t scope_len;
	(void)xt_base(e->name, &scope_len);
	for (uint32_t i = 0; i < l->_length; i++)
		if (l->_buffer[i].common.value == v) {
			xt_put(x, &x->out, "case %.*s%s%s: ", (int)scope_len, e->name,
			       scope_len ? "::" : "", l->_buffer[i].detail.name);
			return;
		}
	xt_fail(x, "a union label %ld that %s does not have", (long)v, e->name);
}

static void xt_union(struct xt *x, const struct xt_type *t)
{
	const struct DDS_XTypes_CompleteUnionType *u = &t->o->_u.complete._u.union_type;
	const xt_id *disc = &u->discriminator.common.type_id;
	xt_need(x, disc);
	const struct DDS_XTypes_CompleteUnionMemberSeq *m = &u->member_seq;
	if (m->_length > 0 && m->_buffer == NULL)
		xt_fail(x, "%s: members missing", t->name);
	for (uint32_t i = 0; i < m->_length && x->st == BT_OK; i++)
		xt_need(x, &m->_buffer[i].common.type_id);
	if (x->st != BT_OK)
		return;
	const char *base = xt_open_decl(x, t);
	struct bt_buf spec = BT_BUF_INIT, dims = BT_BUF_INIT;
	xt_spec(x, disc, &spec, &dims);
	if (dims.len > 0)
		xt_fail(x, "%s: an array as discriminator", t->name);
	xt_put(x, &x->out, "%sunion %s switch (%s) {\n", xt_extensibility(u->union_flags), base,
	       spec.data ? spec.data : "");
	bt_buf_fini(&spec);
	bt_buf_fini(&dims);
	for (uint32_t i = 0; i < m->_length && x->st == BT_OK; i++) {
		const struct DDS_XTypes_CompleteUnionMember *mb = &m->_buffer[i];
		const char *name = xt_member_name(x, mb->detail.name);
		if (name == NULL)
			return;
		const DDS_XTypes_UnionCaseLabelSeq *l = &mb->common.label_seq;
		bool dflt = mb->common.member_flags & DDS_XTypes_IS_DEFAULT;
		if ((l->_length == 0 && !dflt) || (l->_length > 0 && l->_buffer == NULL)) {
			xt_fail(x, "%s.%s: a union member without labels", t->name, name);
			return;
		}
		xt_indent_member(x);
		for (uint32_t k = 0; k < l->_length; k++)
			xt_label(x, disc, l->_buffer[k]);
		if (dflt)
			xt_put(x, &x->out, "default: ");
		xt_decl(x, &mb->common.type_id, name);
		xt_put(x, &x->out, ";\n");
	}
	xt_close_decl(x);
}

/* One literal of an enum or bitmask: "ANNOT NAME," on its own line (no
 * comma after the last). False (x failed) when the name is not valid. */
static bool xt_literal(struct xt *x, const char *annot, const char *raw_name, bool last)
{
	const char *name = xt_member_name(x, raw_name);
	if (name == NULL)
		return false;
	xt_indent_member(x);
	xt_put(x, &x->out, "%s%s%s\n", annot, name, last ? "" : ",");
	return true;
}

static void xt_enum(struct xt *x, const struct xt_type *t)
{
	const struct DDS_XTypes_CompleteEnumeratedType *e = &t->o->_u.complete._u.enumerated_type;
	const struct DDS_XTypes_CompleteEnumeratedLiteralSeq *l = &e->literal_seq;
	if (l->_length == 0 || l->_buffer == NULL) {
		xt_fail(x, "%s: an enum without literals", t->name);
		return;
	}
	const char *base = xt_open_decl(x, t);
	if (e->header.common.bit_bound != 32)
		xt_put(x, &x->out, "@bit_bound(%u) ", (unsigned)e->header.common.bit_bound);
	xt_put(x, &x->out, "enum %s {\n", base);
	int64_t expect = 0;
	for (uint32_t i = 0; i < l->_length && x->st == BT_OK; i++) {
		int32_t v = l->_buffer[i].common.value;
		char annot[32] = "";
		if (v != expect)
			snprintf(annot, sizeof annot, "@value(%ld) ", (long)v);
		if (!xt_literal(x, annot, l->_buffer[i].detail.name, i + 1 == l->_length))
			return;
		expect = (int64_t)v + 1;
	}
	xt_close_decl(x);
}

static void xt_bitmask(struct xt *x, const struct xt_type *t)
{
	const struct DDS_XTypes_CompleteBitmaskType *b = &t->o->_u.complete._u.bitmask_type;
	const struct DDS_XTypes_CompleteBitflagSeq *f = &b->flag_seq;
	if (f->_length == 0 || f->_buffer == NULL) {
		xt_fail(x, "%s: a bitmask without flags", t->name);
		return;
	}
	const char *base = xt_open_decl(x, t);
	xt_put(x, &x->out, "@bit_bound(%u) bitmask %s {\n", (unsigned)b->header.common.bit_bound,
	       base);
	for (uint32_t i = 0; i < f->_length && x->st == BT_OK; i++) {
		char annot[32];
		snprintf(annot, sizeof annot, "@position(%u) ", (unsigned)f->_buffer[i].common.position);
		if (!xt_literal(x, annot, f->_buffer[i].detail.name, i + 1 == f->_length))
			return;
	}
	xt_close_decl(x);
}

static void xt_alias(struct xt *x, const struct xt_type *t)
{
	const xt_id *rel = &t->o->_u.complete._u.alias_type.body.common.related_type;
	xt_need(x, rel);
	if (x->st != BT_OK)
		return;
	const char *base = xt_open_decl(x, t);
	xt_put(x, &x->out, "typedef ");
	xt_decl(x, rel, base);
	xt_put(x, &x->out, ";\n");
}

/* The scoped name of a named complete type object, NULL otherwise. */
static const char *xt_object_name(struct xt *x, const xt_cobj *c)
{
	switch (c->_d) {
	case DDS_XTypes_TK_STRUCTURE: return xt_type_name(x, c->_u.struct_type.header.detail.type_name);
	case DDS_XTypes_TK_UNION: return xt_type_name(x, c->_u.union_type.header.detail.type_name);
	case DDS_XTypes_TK_ENUM:
		return xt_type_name(x, c->_u.enumerated_type.header.detail.type_name);
	case DDS_XTypes_TK_BITMASK:
		return xt_type_name(x, c->_u.bitmask_type.header.detail.type_name);
	case DDS_XTypes_TK_ALIAS: return xt_type_name(x, c->_u.alias_type.header.detail.type_name);
	default: return NULL;
	}
}

/* Declares table entry `t` (after what it uses), or walks an anonymous
 * collection's element. */
static void xt_declare(struct xt *x, struct xt_type *t)
{
	size_t ti = (size_t)(t - x->types); /* x->types moves as it grows */
	if (t->o->_d != DDS_XTypes_EK_COMPLETE) {
		xt_fail(x, "not a complete type object");
		return;
	}
	const xt_cobj *c = &t->o->_u.complete;
	t->name = xt_object_name(x, c);
	for (size_t i = 0; t->name != NULL && i < x->n_types && x->st == BT_OK; i++)
		if (i != ti && x->types[i].name != NULL && strcmp(x->types[i].name, t->name) == 0)
			xt_fail(x, x->types[i].done ? "two different types named %s"
						    : "%s refers back to itself (cycle)", t->name);
	if (x->st != BT_OK)
		return;
	const struct xt_type me = *t; /* `t` moves when the walk grows the table */
	switch (c->_d) {
	case DDS_XTypes_TK_STRUCTURE: xt_struct(x, &me); break;
	case DDS_XTypes_TK_UNION: xt_union(x, &me); break;
	case DDS_XTypes_TK_ENUM: xt_enum(x, &me); break;
	case DDS_XTypes_TK_BITMASK: xt_bitmask(x, &me); break;
	case DDS_XTypes_TK_ALIAS: xt_alias(x, &me); break;
	case DDS_XTypes_TK_SEQUENCE: xt_need(x, &c->_u.sequence_type.element.common.type); break;
	case DDS_XTypes_TK_ARRAY: xt_need(x, &c->_u.array_type.element.common.type); break;
	case DDS_XTypes_TK_MAP:
		xt_need(x, &c->_u.map_type.key.common.type);
		xt_need(x, &c->_u.map_type.element.common.type);
		break;
	default: xt_fail(x, "type kind %u is not supported", (unsigned)c->_d);
	}
	x->types[ti].done = x->st == BT_OK;
}

bt_status btdds_xtypes_idl(const xt_obj *root, btdds_xt_lookup lookup, void *ctx, char **idl,
			   struct bt_error *err)
{
	*idl = NULL;
	struct xt x = {.lookup = lookup, .ctx = ctx, .err = err, .st = BT_OK};
	if (root == NULL || root->_d != DDS_XTypes_EK_COMPLETE ||
	    (root->_u.complete._d != DDS_XTypes_TK_STRUCTURE &&
	     root->_u.complete._d != DDS_XTypes_TK_UNION))
		return bt_err_set(err, BT_ERR_FORMAT, "type object: the topic's type is not a "
				  "complete struct or union");
	x.types = bt_xcalloc(1, sizeof *x.types);
	x.cap_types = x.n_types = 1;
	x.types[0] = (struct xt_type){.o = root};
	xt_declare(&x, &x.types[0]);
	xt_enter_scope(&x, "", 0);
	free(x.types);
	if (x.st != BT_OK) {
		bt_buf_fini(&x.out);
		return x.st;
	}
	*idl = bt_buf_steal(&x.out);
	return BT_OK;
}
