/* defs_source — where definition files are found, first hit wins:
 *   1. each --message-definitions-path DIR: DIR/share/<pkg>/ (an install
 *      prefix), DIR/<pkg>/share/<pkg>/ (a colcon install directory, one
 *      prefix per package), DIR/<pkg>/ (a share directory);
 *   2. AMENT_PREFIX_PATH: the package's share directory is
 *      <prefix>/share/<pkg> of the first prefix whose ament index lists the
 *      package (share/ament_index/resource_index/packages/<pkg>), as
 *      ament_index_cpp::get_package_share_directory gives rosbag2; a tree
 *      without an index counts with the first prefix that has share/<pkg>;
 *   3. the built-in set of the distro (interfaces/).
 * In each: msg/<T>.msg or .idl, srv/<T>.srv. A file that is there but
 * unusable (too large, not text, not a field list) is an error, not a miss:
 * the type gets no definition and the log says why. */
#include "defs.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "defs__builtin.h"
#include "defs__text.h"

#define DEFS_MAX_FILE (1u << 20) /* an interface file larger than this is not one */

struct defs_source {
	char **paths;
	size_t n_paths;
	char **prefixes;
	size_t n_prefixes;
	unsigned distro_bit;
	const char *distro;
	bool quiet;
	char *first_missing; /* during a lookup: the first file found nowhere */
};

static const char *const defs_ext[] = {"", "msg", "idl", "srv"};

const char *const *defs_builtin_distros(void)
{
	return defs_builtin_distros_tab;
}

static int defs_distro_index(const char *distro)
{
	for (int i = 0; defs_builtin_distros_tab[i] != NULL; i++)
		if (strcmp(defs_builtin_distros_tab[i], distro) == 0)
			return i;
	return -1;
}

size_t defs_builtin_count(const char *distro)
{
	int d = defs_distro_index(distro);
	size_t n = 0;
	for (size_t i = 0; d >= 0 && i < defs_builtin_n_files; i++)
		n += (defs_builtin_files[i].mask >> d) & 1u;
	return n;
}

const char *defs_origin_name(enum defs_origin o)
{
	switch (o) {
	case DEFS_ORIGIN_PATH: return "path";
	case DEFS_ORIGIN_AMENT: return "ament";
	case DEFS_ORIGIN_BUILTIN: return "built-in";
	case DEFS_ORIGIN_SERVICE: return "get_type_description";
	case DEFS_ORIGIN_NONE: break;
	}
	return "none";
}

bt_status defs_source_new(const struct defs_options *o, struct defs_source **out,
			  struct bt_error *err)
{
	const char *distro = o->distro != NULL ? o->distro : "jazzy";
	int d = defs_distro_index(distro);
	if (d < 0)
		return bt_err_set(err, BT_ERR_USAGE, "no built-in message definitions for '%s'",
				  distro);
	struct defs_source *s = bt_xcalloc(1, sizeof *s);
	s->distro_bit = 1u << d;
	s->distro = defs_builtin_distros_tab[d];
	s->quiet = o->quiet;
	s->n_paths = o->n_paths;
	s->paths = o->n_paths ? bt_xcalloc(o->n_paths, sizeof *s->paths) : NULL;
	for (size_t i = 0; i < o->n_paths; i++)
		s->paths[i] = bt_xstrdup(o->paths[i]);
	const char *p = o->ament_prefix_path != NULL ? o->ament_prefix_path : "";
	while (*p != '\0') {
		size_t n = strcspn(p, ":");
		if (n > 0) {
			s->prefixes = bt_xrealloc(s->prefixes, (s->n_prefixes + 1) * sizeof *s->prefixes);
			s->prefixes[s->n_prefixes++] = bt_xstrndup(p, n);
		}
		p += n + (p[n] == ':');
	}
	*out = s;
	return BT_OK;
}

void defs_source_free(struct defs_source *s)
{
	if (s == NULL)
		return;
	for (size_t i = 0; i < s->n_paths; i++)
		free(s->paths[i]);
	for (size_t i = 0; i < s->n_prefixes; i++)
		free(s->prefixes[i]);
	free(s->paths);
	free(s->prefixes);
	free(s->first_missing);
	free(s);
}

void defs_result_fini(struct defs_result *r)
{
	free(r->encoding);
	free(r->text);
	r->encoding = r->text = NULL;
}

char *defs_service_of_event(const char *topic, const char *type)
{
	if (!bt_str_ends_with(topic, "/_service_event") || !bt_str_ends_with(type, "_Event") ||
	    strstr(type, "/srv/") == NULL)
		return NULL;
	return bt_xstrndup(type, strlen(type) - strlen("_Event"));
}

/* ---- checking a .msg / .srv file ------------------------------------------ */

/* End of the line's content: a '#' outside quotes starts a comment. */
static size_t defs_line_end(const char *l, size_t n)
{
	char q = 0;
	for (size_t i = 0; i < n; i++) {
		if (q != 0) {
			if (l[i] == q)
				q = 0;
		} else if (l[i] == '"' || l[i] == '\'') {
			q = l[i];
		} else if (l[i] == '#') {
			return i;
		}
	}
	return n;
}

static size_t defs_digits(const char *l, size_t i, size_t n)
{
	while (i < n && isdigit((unsigned char)l[i]))
		i++;
	return i;
}

/* "type[<=N][[N]|[<=N]|[]] name [default]" or "type NAME=value". */
static bool defs_field_ok(const char *l, size_t n)
{
	size_t i = 0;
	while (i < n && (isalnum((unsigned char)l[i]) || l[i] == '_' || l[i] == '/'))
		i++;
	if (i == 0)
		return false;
	if (i + 1 < n && l[i] == '<' && l[i + 1] == '=') {
		size_t j = defs_digits(l, i + 2, n);
		if (j == i + 2)
			return false;
		i = j;
	}
	if (i < n && l[i] == '[') {
		i++;
		if (i + 1 < n && l[i] == '<' && l[i + 1] == '=')
			i += 2;
		i = defs_digits(l, i, n);
		if (i >= n || l[i] != ']')
			return false;
		i++;
	}
	if (i >= n || !isspace((unsigned char)l[i]))
		return false;
	while (i < n && isspace((unsigned char)l[i]))
		i++;
	if (i >= n || !(isalpha((unsigned char)l[i]) || l[i] == '_'))
		return false;
	while (i < n && (isalnum((unsigned char)l[i]) || l[i] == '_'))
		i++;
	return i == n || isspace((unsigned char)l[i]) || l[i] == '=';
}

/* NULL when `text` is a field list; else the first bad line's number. */
static size_t defs_check_fields(const char *text, bool srv)
{
	size_t line = 1, seps = 0;
	for (const char *l = text; *l != '\0'; line++) {
		size_t n = strcspn(l, "\n");
		size_t e = defs_line_end(l, n), b = 0;
		while (b < e && isspace((unsigned char)l[b]))
			b++;
		while (e > b && isspace((unsigned char)l[e - 1]))
			e--;
		bool sep = e - b == 3 && memcmp(l + b, "---", 3) == 0;
		seps += sep;
		if (e > b && !(sep && srv && seps <= 1) && !defs_field_ok(l + b, e - b))
			return line;
		l += n + (l[n] == '\n');
	}
	return 0;
}

/* A file's text, checked: no NUL byte; .msg/.srv a field list. */
static bt_status defs_check(const char *what, enum defs_format f, const char *text, size_t len,
			    struct bt_error *err)
{
	if (strlen(text) != len)
		return bt_err_set(err, BT_ERR_FORMAT, "%s: not a text file (NUL byte)", what);
	size_t bad = f == DEFS_FMT_IDL ? 0 : defs_check_fields(text, f == DEFS_FMT_SRV);
	if (bad != 0)
		return bt_err_set(err, BT_ERR_FORMAT, "%s:%zu: not a field, constant or '---'", what,
				  bad);
	return BT_OK;
}

/* ---- the sources --------------------------------------------------------- */

/* Reads and checks `path` if it is a file: BT_OK, BT_ERR_NOTFOUND (no such
 * file) or the reason it cannot be used. */
static bt_status defs_read(const char *path, enum defs_format f, char **text,
			   struct bt_error *err)
{
	if (!bt_fs_is_file(path))
		return BT_ERR_NOTFOUND;
	size_t len = 0;
	bt_status st = bt_fs_read_all(path, DEFS_MAX_FILE, text, &len, err);
	if (st == BT_ERR_NOTFOUND)
		return bt_err_set(err, BT_ERR_IO, "%s: vanished while read", path);
	if (st == BT_OK && (st = defs_check(path, f, *text, len, err)) != BT_OK) {
		free(*text);
		*text = NULL;
	}
	return st;
}

/* <share>/msg|srv/<name>.<ext>, malloc'ed. */
static char *defs_file_in(const char *share, const char *name, enum defs_format f)
{
	return bt_xasprintf("%s/%s/%s.%s", share, f == DEFS_FMT_SRV ? "srv" : "msg", name,
			    defs_ext[f]);
}

static bt_status defs_from_paths(struct defs_source *s, const char *pkg, const char *name,
				 enum defs_format f, char **text, struct bt_error *err)
{
	bt_status st = BT_ERR_NOTFOUND;
	for (size_t i = 0; i < s->n_paths && st == BT_ERR_NOTFOUND; i++) {
		char *shares[3] = {bt_xasprintf("%s/share/%s", s->paths[i], pkg),
				   bt_xasprintf("%s/%s/share/%s", s->paths[i], pkg, pkg),
				   bt_xasprintf("%s/%s", s->paths[i], pkg)};
		for (size_t k = 0; k < 3; k++) {
			if (st == BT_ERR_NOTFOUND) {
				char *file = defs_file_in(shares[k], name, f);
				st = defs_read(file, f, text, err);
				free(file);
			}
			free(shares[k]);
		}
	}
	return st;
}

/* The package's share directory under AMENT_PREFIX_PATH (NULL if none). */
static char *defs_ament_share(const struct defs_source *s, const char *pkg)
{
	for (size_t i = 0; i < s->n_prefixes; i++) {
		char *mark = bt_xasprintf("%s/share/ament_index/resource_index/packages/%s",
					  s->prefixes[i], pkg);
		bool listed = bt_fs_exists(mark);
		free(mark);
		if (listed)
			return bt_xasprintf("%s/share/%s", s->prefixes[i], pkg);
	}
	for (size_t i = 0; i < s->n_prefixes; i++) {
		char *share = bt_xasprintf("%s/share/%s", s->prefixes[i], pkg);
		if (bt_fs_is_dir(share))
			return share;
		free(share);
	}
	return NULL;
}

static bt_status defs_from_ament(struct defs_source *s, const char *pkg, const char *name,
				 enum defs_format f, char **text, struct bt_error *err)
{
	char *share = defs_ament_share(s, pkg);
	if (share == NULL)
		return BT_ERR_NOTFOUND;
	char *file = defs_file_in(share, name, f);
	bt_status st = defs_read(file, f, text, err);
	free(file);
	free(share);
	return st;
}

static bt_status defs_from_builtin(const struct defs_source *s, const char *pkg,
				   const char *name, enum defs_format f, char **text)
{
	char *key = defs_file_in(pkg, name, f);
	bt_status st = BT_ERR_NOTFOUND;
	for (size_t i = 0; i < defs_builtin_n_files && st == BT_ERR_NOTFOUND; i++)
		if ((defs_builtin_files[i].mask & s->distro_bit) != 0 &&
		    strcmp(defs_builtin_files[i].path, key) == 0) {
			*text = bt_xstrdup(defs_builtin_files[i].text);
			st = BT_OK;
		}
	free(key);
	return st;
}

/* The defs_load_fn over the three sources, in order. */
static bt_status defs_load_file(void *ctx, const char *pkg, const char *name, enum defs_format f,
				char **text, enum defs_origin *origin, struct bt_error *err)
{
	struct defs_source *s = ctx;
	bt_status st = defs_from_paths(s, pkg, name, f, text, err);
	*origin = DEFS_ORIGIN_PATH;
	if (st == BT_ERR_NOTFOUND) {
		st = defs_from_ament(s, pkg, name, f, text, err);
		*origin = DEFS_ORIGIN_AMENT;
	}
	if (st == BT_ERR_NOTFOUND) {
		st = defs_from_builtin(s, pkg, name, f, text);
		*origin = DEFS_ORIGIN_BUILTIN;
	}
	if (st == BT_ERR_NOTFOUND) {
		char *file = bt_xasprintf("%s/%s/%s.%s", pkg, f == DEFS_FMT_SRV ? "srv" : "msg",
					  name, defs_ext[f]);
		if (s->first_missing == NULL)
			s->first_missing = bt_xstrdup(file);
		bt_err_set(err, BT_ERR_NOTFOUND, "%s found nowhere", file);
		free(file);
	}
	return st;
}

void defs_source_lookup(struct defs_source *s, const char *type, struct defs_result *out)
{
	struct bt_error err = {0};
	free(s->first_missing);
	s->first_missing = NULL;
	bt_status st = defs_text_build(type, defs_load_file, s, out, &err);
	if (st == BT_OK) {
		if (strcmp(out->encoding, "unknown") == 0 && out->text[0] == '\0' && !s->quiet)
			bt_log_info("%s: not a ROS 2 type name; no message definition", type);
		return;
	}
	if (s->quiet)
		st = BT_OK; /* nothing to say */
	else if (st == BT_ERR_NOTFOUND)
		bt_log_warn("%s: no message definition (%s in neither --message-definitions-path, "
			    "AMENT_PREFIX_PATH nor the built-in %s set)",
			    type, s->first_missing != NULL ? s->first_missing : "a file", s->distro);
	else
		bt_log_warn("%s: no message definition: %s", type, err.msg);
	out->encoding = bt_xstrdup("");
	out->text = bt_xstrdup("");
	out->origin = DEFS_ORIGIN_NONE;
}

/* ---- files a node gave ---------------------------------------------------- */

struct defs_files {
	const struct defs_file *f;
	size_t n;
};

static bt_status defs_load_given(void *ctx, const char *pkg, const char *name, enum defs_format f,
				 char **text, enum defs_origin *origin, struct bt_error *err)
{
	const struct defs_files *g = ctx;
	if (f == DEFS_FMT_SRV)
		return BT_ERR_NOTFOUND;
	char *want = bt_xasprintf("%s/msg/%s", pkg, name);
	bt_status st = BT_ERR_NOTFOUND;
	for (size_t i = 0; i < g->n && st == BT_ERR_NOTFOUND; i++) {
		if (strcmp(g->f[i].type, want) != 0 || g->f[i].idl != (f == DEFS_FMT_IDL))
			continue;
		size_t len = strlen(g->f[i].text);
		st = len > DEFS_MAX_FILE ? bt_err_set(err, BT_ERR_TOOBIG, "%s: larger than %u "
						      "bytes", want, (unsigned)DEFS_MAX_FILE)
					 : defs_check(want, f, g->f[i].text, len, err);
		if (st == BT_OK) {
			*text = bt_xstrdup(g->f[i].text);
			*origin = DEFS_ORIGIN_SERVICE;
		}
	}
	if (st == BT_ERR_NOTFOUND)
		bt_err_set(err, BT_ERR_NOTFOUND, "%s.%s not given", want,
			   f == DEFS_FMT_IDL ? "idl" : "msg");
	free(want);
	return st;
}

bt_status defs_build_from_files(const char *root, const struct defs_file *files, size_t n,
				struct defs_result *out, struct bt_error *err)
{
	struct defs_files g = {files, n};
	bt_status st = defs_text_build(root, defs_load_given, &g, out, err);
	if (st == BT_OK && out->text[0] == '\0') {
		defs_result_fini(out);
		return bt_err_set(err, BT_ERR_FORMAT, "%s: no definition in what was given", root);
	}
	return st;
}
