/* defs_text — rosbag2's definition text (local_message_definition_source.cpp
 * in ros2/rosbag2, rosbag2_cpp), reproduced step by step so that a bag
 * carries the very text rosbag2 would write from the same files:
 *   - a type's dependencies are what two regular expressions find (field
 *     types at the start of a line that are not one of 14 primitive names;
 *     "#include <pkg/msg/T.idl>" lines in IDL), kept in a sorted set;
 *   - the root's text comes first; each dependency not seen before follows
 *     as "\n", a line of 80 '=', "MSG: <name as written>" (or "IDL: "), and
 *     its own text with its dependencies, depth first;
 *   - a .msg missing anywhere makes the whole type fall back to .idl files
 *     (every part "IDL: ", the root too); a service ("/srv/" in its name)
 *     starts with "SRV: " and falls back per dependency, where rosbag2's
 *     "\n" + delimiter of the failed .msg attempt stays in the text.
 * Where rosbag2 throws past its own catch (an unknown name during the IDL
 * fallback, its depth limit) the caller writes the empty row instead. */
#include "defs__text.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"

#define DEFS_NAME_MAX 256
#define DEFS_RULE "================================================================================\n"

static const char *const defs_primitives[] = {
	"bool",  "byte",   "char",  "float32", "float64", "int8",   "uint8",
	"int16", "uint16", "int32", "uint32",  "int64",   "uint64", "string",
};

static bool defs_is_word(int c)
{
	return isalnum(c) || c == '_';
}

static bool defs_is_type_char(int c)
{
	return defs_is_word(c) || c == '/';
}

static bool defs_is_primitive(const char *t, size_t n)
{
	for (size_t i = 0; i < sizeof defs_primitives / sizeof defs_primitives[0]; i++)
		if (strlen(defs_primitives[i]) == n && memcmp(defs_primitives[i], t, n) == 0)
			return true;
	return false;
}

/* Copies a run of word characters of length n into dst (cap bytes). */
static bool defs_word_copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n == 0 || n >= cap)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!defs_is_word((unsigned char)s[i]))
			return false;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return true;
}

bool defs_type_split(const char *type, char *pkg, char *name, size_t cap)
{
	const char *a = strchr(type, '/');
	if (a == NULL || !defs_word_copy(pkg, cap, type, (size_t)(a - type)))
		return false;
	const char *rest = a + 1;
	const char *b = strchr(rest, '/');
	if (b != NULL) {
		if ((size_t)(b - rest) != 3 || (memcmp(rest, "msg", 3) != 0 && memcmp(rest, "srv", 3) != 0))
			return false;
		rest = b + 1;
	}
	return defs_word_copy(name, cap, rest, strlen(rest));
}

/* ---- dependencies ------------------------------------------------------- */

struct defs_set {
	char **v;
	size_t n, cap;
};

static void defs_set_add(struct defs_set *s, char *owned)
{
	bt_xgrow((void **)&s->v, &s->cap, s->n + 1, sizeof *s->v);
	s->v[s->n++] = owned;
}

static int defs_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted and unique, as std::set<std::string>. */
static void defs_set_finish(struct defs_set *s)
{
	if (s->n == 0)
		return;
	qsort(s->v, s->n, sizeof *s->v, defs_cmp);
	size_t w = 1;
	for (size_t i = 1; i < s->n; i++) {
		if (strcmp(s->v[i], s->v[w - 1]) == 0)
			free(s->v[i]);
		else
			s->v[w++] = s->v[i];
	}
	s->n = w;
}

static size_t defs_skip_space(const char *t, size_t j)
{
	while (t[j] != '\0' && isspace((unsigned char)t[j]))
		j++;
	return j;
}

/* MSG_FIELD_TYPE_REGEX, (?:^|\n)\s*([a-zA-Z0-9_/]+)(?:\[[^\]]*\])?\s+,
 * tried at candidate k: the match's end (0 = none), the type's span. */
static size_t defs_msg_match(const char *t, size_t k, size_t *ts, size_t *tn)
{
	size_t j = defs_skip_space(t, k);
	size_t s = j;
	while (defs_is_type_char((unsigned char)t[j]))
		j++;
	if (j == s)
		return 0;
	*ts = s;
	*tn = j - s;
	if (t[j] == '[') {
		const char *close = strchr(t + j, ']');
		if (close == NULL)
			return 0;
		j = (size_t)(close - t) + 1;
	}
	if (!isspace((unsigned char)t[j]))
		return 0;
	return defs_skip_space(t, j);
}

/* IDL_FIELD_TYPE_REGEX, (?:^|\n)#include\s+(?:"|<)([a-zA-Z0-9_/]+)\.idl(?:"|>),
 * tried at candidate k. */
static size_t defs_idl_match(const char *t, size_t k, size_t *ts, size_t *tn)
{
	size_t j = k;
	if (t[j] == '\n')
		j++;
	if (strncmp(t + j, "#include", 8) != 0)
		return 0;
	j += 8;
	if (!isspace((unsigned char)t[j]))
		return 0;
	j = defs_skip_space(t, j);
	if (t[j] != '"' && t[j] != '<')
		return 0;
	size_t s = ++j;
	while (defs_is_type_char((unsigned char)t[j]))
		j++;
	if (j == s || strncmp(t + j, ".idl", 4) != 0 || (t[j + 4] != '"' && t[j + 4] != '>'))
		return 0;
	*ts = s;
	*tn = j - s;
	return j + 5;
}

typedef size_t (*defs_match_fn)(const char *t, size_t k, size_t *ts, size_t *tn);

/* std::sregex_iterator: candidates are the string's start and each '\n';
 * after a match the search resumes at its end. */
static void defs_scan(const char *t, defs_match_fn match, bool msg, const char *pkg,
		      struct defs_set *out)
{
	size_t k = 0;
	while (t[k] != '\0') {
		size_t ts = 0, tn = 0, end = match(t, k, &ts, &tn);
		size_t from = k + 1;
		if (end != 0) {
			if (!msg)
				defs_set_add(out, bt_xstrndup(t + ts, tn));
			else if (!defs_is_primitive(t + ts, tn))
				defs_set_add(out, memchr(t + ts, '/', tn) != NULL
							  ? bt_xstrndup(t + ts, tn)
							  : bt_xasprintf("%s/%.*s", pkg, (int)tn, t + ts));
			from = end;
		}
		const char *nl = strchr(t + from, '\n');
		if (nl == NULL)
			return;
		k = (size_t)(nl - t);
	}
}

void defs_parse_deps(enum defs_format f, const char *text, const char *pkg, char ***deps,
		     size_t *n)
{
	struct defs_set s = {0};
	if (f == DEFS_FMT_IDL) {
		defs_scan(text, defs_idl_match, false, pkg, &s);
	} else {
		defs_scan(text, defs_msg_match, true, pkg, &s);
		if (f == DEFS_FMT_SRV && s.n == 0)
			defs_scan(text, defs_idl_match, false, pkg, &s);
	}
	defs_set_finish(&s);
	*deps = s.v;
	*n = s.n;
}

void defs_deps_free(char **deps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(deps[i]);
	free(deps);
}
/* ---- the full text ------------------------------------------------------- */

/* What rosbag2 keys its seen set by: a type name in one format. */
struct defs_seen {
	enum defs_format *f;
	char **name;
	size_t n, cap, cap_f;
};

struct defs_build {
	defs_load_fn load;
	void *ctx;
	struct defs_seen seen;
	struct bt_buf out;
	bool not_understood; /* rosbag2's TypenameNotUnderstoodError */
	enum defs_origin root_origin;
	bool have_origin;
	struct bt_error *err;
};

/* True when (f, name) was not seen before (and is now). */
static bool defs_seen_insert(struct defs_seen *s, enum defs_format f, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->f[i] == f && strcmp(s->name[i], name) == 0)
			return false;
	bt_xgrow((void **)&s->name, &s->cap, s->n + 1, sizeof *s->name);
	bt_xgrow((void **)&s->f, &s->cap_f, s->n + 1, sizeof *s->f);
	s->f[s->n] = f;
	s->name[s->n++] = bt_xstrdup(name);
	return true;
}

static void defs_seen_fini(struct defs_seen *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->name[i]);
	free(s->name);
	free(s->f);
}

static bt_status defs_put(struct defs_build *b, const char *s)
{
	if (b->out.len + strlen(s) > DEFS_MAX_TEXT)
		return bt_err_set(b->err, BT_ERR_TOOBIG, "the definition exceeds %u MiB",
				  DEFS_MAX_TEXT >> 20);
	bt_status st = bt_buf_puts(&b->out, s);
	return st < 0 ? bt_err_set(b->err, st, "out of memory") : BT_OK;
}

/* LocalMessageDefinitionSource::delimiter. */
static bt_status defs_delimiter(struct defs_build *b, enum defs_format f, const char *type)
{
	static const char *const tag[] = {"", "MSG: ", "IDL: ", "SRV: "};
	bt_status st = defs_put(b, DEFS_RULE);
	if (st == BT_OK)
		st = defs_put(b, tag[f]);
	if (st == BT_OK)
		st = defs_put(b, type);
	return st == BT_OK ? defs_put(b, "\n") : st;
}

/* load_message_spec: the name understood, then the loader. */
static bt_status defs_load(struct defs_build *b, enum defs_format f, const char *type,
			   char *pkg, char **text)
{
	char name[DEFS_NAME_MAX];
	if (!defs_type_split(type, pkg, name, DEFS_NAME_MAX)) {
		b->not_understood = true;
		return bt_err_set(b->err, BT_ERR_FORMAT, "type name '%s' not understood", type);
	}
	enum defs_origin origin = DEFS_ORIGIN_NONE;
	bt_status st = b->load(b->ctx, pkg, name, f, text, &origin, b->err);
	if (st == BT_OK && !b->have_origin) {
		b->root_origin = origin;
		b->have_origin = true;
	}
	return st;
}

/* Loads `type`'s file, appends its text and lists its dependencies
 * (*deps freed by the caller with defs_deps_free, also on error). */
static bt_status defs_put_file(struct defs_build *b, enum defs_format f, const char *type,
			       char ***deps, size_t *n)
{
	char pkg[DEFS_NAME_MAX], *text = NULL;
	*deps = NULL;
	*n = 0;
	bt_status st = defs_load(b, f, type, pkg, &text);
	if (st != BT_OK)
		return st;
	st = defs_put(b, text);
	if (st == BT_OK)
		defs_parse_deps(f, text, pkg, deps, n);
	free(text);
	return st;
}

/* append_recursive: `type`'s text, then its unseen dependencies. */
static bt_status defs_append(struct defs_build *b, enum defs_format f, const char *type,
			     int depth)
{
	if (depth <= 0)
		return bt_err_set(b->err, BT_ERR_TOOBIG, "more than %d levels of nested types",
				  DEFS_MAX_DEPTH);
	char **deps;
	size_t n;
	bt_status st = defs_put_file(b, f, type, &deps, &n);
	for (size_t i = 0; i < n && st == BT_OK; i++) {
		if (!defs_seen_insert(&b->seen, f, deps[i]))
			continue;
		st = defs_put(b, "\n");
		if (st == BT_OK)
			st = defs_delimiter(b, f, deps[i]);
		if (st == BT_OK)
			st = defs_append(b, f, deps[i], depth - 1);
	}
	defs_deps_free(deps, n);
	return st;
}

/* A message type: .msg files, else .idl files throughout. */
static bt_status defs_build_msg(struct defs_build *b, const char *root, enum defs_format *f)
{
	*f = DEFS_FMT_MSG;
	bt_status st = defs_append(b, DEFS_FMT_MSG, root, DEFS_MAX_DEPTH);
	if (st == BT_OK || b->not_understood) {
		if (b->not_understood) { /* rosbag2: "definition will be left empty" */
			*f = DEFS_FMT_UNKNOWN;
			bt_buf_reset(&b->out);
			b->have_origin = false;
		}
		return BT_OK;
	}
	if (st != BT_ERR_NOTFOUND)
		return st;
	*f = DEFS_FMT_IDL;
	bt_buf_reset(&b->out);
	b->have_origin = false;
	st = defs_delimiter(b, DEFS_FMT_IDL, root);
	return st == BT_OK ? defs_append(b, DEFS_FMT_IDL, root, DEFS_MAX_DEPTH) : st;
}

/* One dependency of a service: .msg, else .idl; rosbag2's "\n" + delimiter
 * of a failed attempt stays, the attempt's partial text does not. */
static bt_status defs_build_srv_dep(struct defs_build *b, const char *dep, enum defs_format *f)
{
	if (!defs_seen_insert(&b->seen, DEFS_FMT_MSG, dep))
		return BT_OK;
	bt_status st = defs_put(b, "\n");
	if (st == BT_OK)
		st = defs_delimiter(b, DEFS_FMT_MSG, dep);
	if (st != BT_OK)
		return st;
	size_t mark = b->out.len;
	st = defs_append(b, DEFS_FMT_MSG, dep, DEFS_MAX_DEPTH);
	if (st == BT_OK) {
		*f = DEFS_FMT_MSG;
		return BT_OK;
	}
	b->out.len = mark;
	b->out.data[mark] = '\0';
	if (b->not_understood) {
		b->not_understood = false;
		*f = DEFS_FMT_UNKNOWN;
		return BT_OK;
	}
	if (st != BT_ERR_NOTFOUND || !defs_seen_insert(&b->seen, DEFS_FMT_IDL, dep))
		return st == BT_ERR_NOTFOUND ? BT_OK : st;
	st = defs_put(b, "\n");
	if (st == BT_OK)
		st = defs_delimiter(b, DEFS_FMT_IDL, dep);
	if (st == BT_OK)
		st = defs_append(b, DEFS_FMT_IDL, dep, DEFS_MAX_DEPTH);
	if (st == BT_OK)
		*f = DEFS_FMT_IDL;
	return st;
}

/* A service: "SRV: " and the .srv text; the encoding follows the last
 * dependency ("unknown" when it has none, as rosbag2). */
static bt_status defs_build_srv(struct defs_build *b, const char *root, enum defs_format *f)
{
	*f = DEFS_FMT_UNKNOWN;
	(void)defs_seen_insert(&b->seen, DEFS_FMT_SRV, root);
	bt_status st = defs_delimiter(b, DEFS_FMT_SRV, root);
	char **deps = NULL;
	size_t n = 0;
	if (st == BT_OK)
		st = defs_put_file(b, DEFS_FMT_SRV, root, &deps, &n);
	for (size_t i = 0; i < n && st == BT_OK; i++)
		st = defs_build_srv_dep(b, deps[i], f);
	defs_deps_free(deps, n);
	return st;
}

bt_status defs_text_build(const char *root, defs_load_fn load, void *ctx,
			  struct defs_result *out, struct bt_error *err)
{
	struct defs_build b = {.load = load, .ctx = ctx, .out = BT_BUF_INIT, .err = err};
	enum defs_format f = DEFS_FMT_UNKNOWN;
	bt_status st = strstr(root, "/srv/") == NULL ? defs_build_msg(&b, root, &f)
						      : defs_build_srv(&b, root, &f);
	defs_seen_fini(&b.seen);
	if (st != BT_OK) {
		bt_buf_fini(&b.out);
		return st;
	}
	static const char *const enc[] = {"unknown", "ros2msg", "ros2idl", "ros2msg"};
	out->encoding = bt_xstrdup(enc[f]);
	out->text = b.out.data != NULL ? bt_buf_steal(&b.out) : bt_xstrdup("");
	out->origin = b.have_origin ? b.root_origin : DEFS_ORIGIN_NONE;
	return BT_OK;
}
