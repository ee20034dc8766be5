/* defs_type — message layouts from rosbag2's definition text (defs_type.h).
 *
 * Two passes: the text is cut into sections (the root's, then one per
 * "MSG: "/"IDL: "/"SRV: " header after a line of '='), then structs are
 * built from the root down, each field's type looked up among the
 * sections by its full name, each struct once. A last pass refuses a type
 * that contains itself (rosidl never makes one; the walker would recurse
 * without consuming bytes). */
#include "defs_type.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "defs__text.h"

#define TYPE_NAME_MAX 256

struct type_section {
	char *name;        /* "pkg/msg/T" / "pkg/srv/T", normalised */
	const char *text;  /* into the definition text */
	size_t len;
	bool idl;
};

struct type_parse {
	struct type_section *sec;
	size_t n_sec;
	struct defs_types *t;
	size_t n_fields;
	struct bt_error *err;
};

/* ---- sections ------------------------------------------------------------ */

/* "pkg/T", "pkg/msg/T" -> "pkg/msg/T"; "pkg/srv/T" kept. NULL if not a name. */
static char *type_full_name(const char *s, size_t n)
{
	char buf[TYPE_NAME_MAX], pkg[TYPE_NAME_MAX], name[TYPE_NAME_MAX];
	if (n == 0 || n >= sizeof buf)
		return NULL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (!defs_type_split(buf, pkg, name, sizeof pkg))
		return NULL;
	return bt_xasprintf("%s/%s/%s", pkg, strstr(buf, "/srv/") ? "srv" : "msg", name);
}

/* n without the trailing blanks and '\r' of line l. */
static size_t type_trim(const char *l, size_t n)
{
	while (n > 0 && (l[n - 1] == '\r' || l[n - 1] == ' '))
		n--;
	return n;
}

/* The package of full name `name` ("pkg/msg/T") into pkg. */
static void type_pkg(const char *name, char pkg[TYPE_NAME_MAX])
{
	size_t pl = (size_t)(strchr(name, '/') - name);
	memcpy(pkg, name, pl);
	pkg[pl] = '\0';
}

static bool type_is_rule(const char *l, size_t n)
{
	n = type_trim(l, n);
	if (n < 3)
		return false;
	for (size_t i = 0; i < n; i++)
		if (l[i] != '=')
			return false;
	return true;
}

static size_t type_line_len(const char *l)
{
	const char *e = strchr(l, '\n');
	return e ? (size_t)(e - l) : strlen(l);
}

static const char *type_next_line(const char *l)
{
	const char *e = strchr(l, '\n');
	return e ? e + 1 : l + strlen(l);
}

static bt_status type_add_section(struct type_parse *p, char *name, const char *text,
				  size_t len, bool idl)
{
	if (name == NULL)
		return bt_err_set(p->err, BT_ERR_FORMAT, "a section of the definition names no "
				  "type (want \"MSG: pkg/Type\")");
	if (p->n_sec == DEFS_TYPES_MAX_STRUCTS) {
		free(name);
		return bt_err_set(p->err, BT_ERR_FORMAT, "more than %d sections in the definition",
				  DEFS_TYPES_MAX_STRUCTS);
	}
	p->sec = bt_xrealloc(p->sec, (p->n_sec + 1) * sizeof *p->sec);
	p->sec[p->n_sec++] = (struct type_section){name, text, len, idl};
	return BT_OK;
}

/* The header line `l` after a rule ("MSG: name"): its section, whose text
 * starts at the next line (*body). */
static bt_status type_header(struct type_parse *p, const char *l, const char **body)
{
	size_t n = type_line_len(l);
	*body = type_next_line(l);
	bool idl = n >= 5 && !memcmp(l, "IDL: ", 5);
	if (n < 5 || (!idl && memcmp(l, "MSG: ", 5) && memcmp(l, "SRV: ", 5)))
		return bt_err_set(p->err, BT_ERR_FORMAT, "a line of '=' not followed by "
				  "\"MSG: pkg/Type\" in the definition");
	n = type_trim(l, n);
	return type_add_section(p, type_full_name(l + 5, n > 5 ? n - 5 : 0), *body, 0, idl);
}

/* Cuts the text into sections; the root's is first unless the text starts
 * with a rule (rosbag2's "SRV: " form names the root itself). */
static bt_status type_sections(struct type_parse *p, const char *root, const char *text)
{
	bt_status st = BT_OK;
	if (!type_is_rule(text, type_line_len(text)))
		st = type_add_section(p, type_full_name(root, strlen(root)), text, 0, false);
	const char *l = text;
	while (st == BT_OK && *l) {
		if (!type_is_rule(l, type_line_len(l))) {
			l = type_next_line(l);
			continue;
		}
		if (p->n_sec > 0)
			p->sec[p->n_sec - 1].len = (size_t)(l - p->sec[p->n_sec - 1].text);
		st = type_header(p, type_next_line(l), &l);
	}
	if (st == BT_OK && p->n_sec > 0)
		p->sec[p->n_sec - 1].len = strlen(p->sec[p->n_sec - 1].text);
	return st;
}

/* The section of `name`; an IDL one wins (a failed .msg leaves an empty
 * MSG section before it). NULL when there is none. */
static const struct type_section *type_section_of(const struct type_parse *p, const char *name)
{
	const struct type_section *hit = NULL;
	for (size_t i = 0; i < p->n_sec; i++)
		if (!strcmp(p->sec[i].name, name) && (hit == NULL || p->sec[i].idl))
			hit = &p->sec[i];
	return hit;
}

/* ---- fields -------------------------------------------------------------- */

/* The names of the kinds up to DEFS_KIND_WSTRING, as .msg files write them. */
static const char *const type_prims[] = {
	[DEFS_KIND_BOOL] = "bool",
	[DEFS_KIND_BYTE] = "byte",
	[DEFS_KIND_CHAR] = "char",
	[DEFS_KIND_FLOAT32] = "float32",
	[DEFS_KIND_FLOAT64] = "float64",
	[DEFS_KIND_INT8] = "int8",
	[DEFS_KIND_UINT8] = "uint8",
	[DEFS_KIND_INT16] = "int16",
	[DEFS_KIND_UINT16] = "uint16",
	[DEFS_KIND_INT32] = "int32",
	[DEFS_KIND_UINT32] = "uint32",
	[DEFS_KIND_INT64] = "int64",
	[DEFS_KIND_UINT64] = "uint64",
	[DEFS_KIND_STRING] = "string",
	[DEFS_KIND_WSTRING] = "wstring",
};

/* A decimal in s[0..n) that fits uint32 and is > 0 (when `positive`). */
static bool type_number(const char *s, size_t n, bool positive, uint32_t *out)
{
	uint64_t v = 0;
	if (n == 0 || n > 10)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v > UINT32_MAX || (positive && v == 0))
		return false;
	*out = (uint32_t)v;
	return true;
}

/* "[N]", "[]", "[<=N]" at the end of a type token (s[0..n)). */
static bool type_array(const char *s, size_t n, struct defs_field *f)
{
	if (n < 2 || s[0] != '[' || s[n - 1] != ']')
		return false;
	s++;
	n -= 2;
	if (n == 0) {
		f->array = DEFS_ARRAY_SEQ;
		return true;
	}
	if (n > 2 && s[0] == '<' && s[1] == '=') {
		f->array = DEFS_ARRAY_SEQ;
		return type_number(s + 2, n - 2, true, &f->count);
	}
	f->array = DEFS_ARRAY_FIXED;
	return type_number(s, n, true, &f->count);
}

/* The struct of full name `name`, made (empty, to be filled) when new. */
static size_t type_struct_of(struct type_parse *p, char *name)
{
	struct defs_types *t = p->t;
	size_t i = defs_types_find(t, name);
	if (i != SIZE_MAX) {
		free(name);
		return i;
	}
	t->v = bt_xrealloc(t->v, (t->n + 1) * sizeof *t->v);
	t->v[t->n] = (struct defs_struct){.name = name};
	return t->n++;
}

/* The base type (before any "[...]") of a field in package `pkg`. */
static bool type_base(struct type_parse *p, const char *s, size_t n, const char *pkg,
		      struct defs_field *f)
{
	for (size_t k = 0; k < sizeof type_prims / sizeof type_prims[0]; k++) {
		size_t m = strlen(type_prims[k]);
		if (n == m && !memcmp(s, type_prims[k], m)) {
			f->kind = (enum defs_kind)k;
			return true;
		}
		bool str = k == DEFS_KIND_STRING || k == DEFS_KIND_WSTRING;
		if (str && n > m + 2 && !memcmp(s, type_prims[k], m) && !memcmp(s + m, "<=", 2)) {
			f->kind = (enum defs_kind)k;
			return type_number(s + m + 2, n - m - 2, true, &f->str_bound);
		}
	}
	char *full = NULL;
	if (memchr(s, '/', n) != NULL) {
		full = type_full_name(s, n);
	} else if (n < TYPE_NAME_MAX) {
		char *rel = bt_xasprintf("%s/%.*s", pkg, (int)n, s);
		full = type_full_name(rel, strlen(rel));
		free(rel);
	}
	if (full == NULL || strstr(full, "/srv/") != NULL) {
		free(full);
		return false;
	}
	f->kind = DEFS_KIND_NESTED;
	f->nested = type_struct_of(p, full);
	return true;
}

/* One field line (comments, blank lines and constants give *have false). */
static bt_status type_line(struct type_parse *p, const char *l, size_t n, const char *pkg,
			   const char *in, struct defs_field *f, bool *have)
{
	*have = false;
	size_t i = 0;
	while (i < n && isspace((unsigned char)l[i]))
		i++;
	if (i == n || l[i] == '#')
		return BT_OK;
	size_t ts = i;
	while (i < n && !isspace((unsigned char)l[i]))
		i++;
	size_t te = i;
	while (i < n && isspace((unsigned char)l[i]))
		i++;
	size_t ns = i;
	while (i < n && (isalnum((unsigned char)l[i]) || l[i] == '_'))
		i++;
	size_t ne = i;
	while (i < n && isspace((unsigned char)l[i]))
		i++;
	if (i < n && l[i] == '=')
		return BT_OK; /* a constant: not on the wire */
	const char *br = memchr(l + ts, '[', te - ts);
	size_t base_end = br ? (size_t)(br - l) : te;
	*f = (struct defs_field){0};
	bool name_ends = ne == n || isspace((unsigned char)l[ne]) || l[ne] == '#';
	if (ne == ns || !name_ends ||
	    (br && !type_array(br, te - base_end, f)) ||
	    !type_base(p, l + ts, base_end - ts, pkg, f))
		return bt_err_set(p->err, BT_ERR_FORMAT, "%s: cannot read the field line '%.*s'", in,
				  (int)(n > 80 ? 80 : n), l);
	f->name = bt_xstrndup(l + ns, ne - ns);
	*have = true;
	return BT_OK;
}

static void type_push_field(struct defs_struct *s, const struct defs_field *f)
{
	s->fields = bt_xrealloc(s->fields, (s->n_fields + 1) * sizeof *s->fields);
	s->fields[s->n_fields++] = *f;
}

/* Fills struct `si` from text[0..len) (a message, or one half of a .srv);
 * `in` names it for errors. */
static bt_status type_fill(struct type_parse *p, size_t si, const char *text, size_t len,
			   const char *pkg, const char *in)
{
	bt_status st = BT_OK;
	for (const char *l = text; st == BT_OK && l < text + len; l = type_next_line(l)) {
		size_t n = type_line_len(l);
		if (n > (size_t)(text + len - l))
			n = (size_t)(text + len - l);
		struct defs_field f;
		bool have;
		st = type_line(p, l, n, pkg, in, &f, &have);
		if (st != BT_OK || !have)
			continue;
		if (++p->n_fields > DEFS_TYPES_MAX_FIELDS) {
			free(f.name);
			return bt_err_set(p->err, BT_ERR_FORMAT, "more than %d fields in the definition",
					  DEFS_TYPES_MAX_FIELDS);
		}
		type_push_field(&p->t->v[si], &f);
	}
	return st;
}

/* The "---" line that ends a service's request, or NULL. */
static const char *type_srv_split(const char *text, size_t len)
{
	for (const char *l = text; l < text + len; l = type_next_line(l)) {
		if (type_trim(l, type_line_len(l)) == 3 && !memcmp(l, "---", 3))
			return l;
	}
	return NULL;
}

/* Builds struct `si` (and, for a service's section, its two halves). */
static bt_status type_build(struct type_parse *p, size_t si)
{
	const char *name = p->t->v[si].name;
	const struct type_section *sec = type_section_of(p, name);
	if (sec == NULL)
		return bt_err_set(p->err, BT_ERR_FORMAT, "the definition lacks the type %s", name);
	if (sec->idl)
		return bt_err_set(p->err, BT_ERR_FORMAT, "%s is given as IDL, which bagtop does not "
				  "read (only .msg text)", name);
	char pkg[TYPE_NAME_MAX];
	type_pkg(name, pkg);
	return type_fill(p, si, sec->text, sec->len, pkg, name);
}

static bt_status type_build_service(struct type_parse *p, const char *root)
{
	const struct type_section *sec = type_section_of(p, root);
	if (sec == NULL || sec->idl)
		return bt_err_set(p->err, BT_ERR_FORMAT, "the definition lacks the .srv text of %s",
				  root);
	const char *sep = type_srv_split(sec->text, sec->len);
	if (sep == NULL)
		return bt_err_set(p->err, BT_ERR_FORMAT, "%s: no '---' between request and "
				  "response", root);
	char pkg[TYPE_NAME_MAX];
	type_pkg(root, pkg);
	size_t rq = type_struct_of(p, bt_xasprintf("%s_Request", root));
	size_t rs = type_struct_of(p, bt_xasprintf("%s_Response", root));
	const char *after = type_next_line(sep);
	bt_status st = type_fill(p, rq, sec->text, (size_t)(sep - sec->text), pkg, root);
	if (st == BT_OK)
		st = type_fill(p, rs, after, (size_t)(sec->text + sec->len - after), pkg, root);
	return st;
}

/* ---- containment ---------------------------------------------------------- */

/* Depth-first over nested fields: 1 = on the path, 2 = done. */
static bool type_cyclic(const struct defs_types *t, size_t i, unsigned char *mark)
{
	if (mark[i] == 2)
		return false;
	if (mark[i] == 1)
		return true;
	mark[i] = 1;
	for (size_t k = 0; k < t->v[i].n_fields; k++) {
		const struct defs_field *f = &t->v[i].fields[k];
		if (f->kind == DEFS_KIND_NESTED && type_cyclic(t, f->nested, mark))
			return true;
	}
	mark[i] = 2;
	return false;
}

static bt_status type_check_cycles(struct type_parse *p)
{
	const struct defs_types *t = p->t;
	unsigned char *mark = bt_xcalloc(t->n ? t->n : 1, 1);
	bt_status st = BT_OK;
	for (size_t i = 0; i < t->n && st == BT_OK; i++)
		if (type_cyclic(t, i, mark))
			st = bt_err_set(p->err, BT_ERR_FORMAT, "the type %s contains itself",
					t->v[i].name);
	free(mark);
	return st;
}

/* ---- the table -------------------------------------------------------------- */

bt_status defs_types_parse(const char *root, const char *text, struct defs_types **out,
			   struct bt_error *err)
{
	*out = NULL;
	char *full = type_full_name(root, strlen(root));
	if (full == NULL)
		return bt_err_set(err, BT_ERR_FORMAT, "'%s' is not a type name (pkg/msg/Type)", root);
	struct type_parse p = {.t = bt_xcalloc(1, sizeof *p.t), .err = err};
	bt_status st = type_sections(&p, full, text);
	size_t built = 0;
	if (st == BT_OK && strstr(full, "/srv/") != NULL) {
		st = type_build_service(&p, full);
		built = 2; /* its request and response, the first two structs */
		free(full);
	} else if (st == BT_OK) {
		(void)type_struct_of(&p, full);
	} else {
		free(full);
	}
	/* Structs referenced while building are appended: build up to the end. */
	for (size_t i = built; st == BT_OK && i < p.t->n; i++)
		st = p.t->n > DEFS_TYPES_MAX_STRUCTS
			     ? bt_err_set(err, BT_ERR_FORMAT, "more than %d types in the definition",
					  DEFS_TYPES_MAX_STRUCTS)
			     : type_build(&p, i);
	if (st == BT_OK)
		st = type_check_cycles(&p);
	for (size_t i = 0; i < p.n_sec; i++)
		free(p.sec[i].name);
	free(p.sec);
	if (st != BT_OK) {
		defs_types_free(p.t);
		return st;
	}
	*out = p.t;
	return BT_OK;
}

void defs_types_free(struct defs_types *t)
{
	if (t == NULL)
		return;
	for (size_t i = 0; i < t->n; i++) {
		for (size_t k = 0; k < t->v[i].n_fields; k++)
			free(t->v[i].fields[k].name);
		free(t->v[i].fields);
		free(t->v[i].name);
	}
	free(t->v);
	free(t);
}

size_t defs_types_find(const struct defs_types *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (!strcmp(t->v[i].name, name))
			return i;
	return SIZE_MAX;
}
