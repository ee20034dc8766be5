/* DESIGN: the registry is a fixed table: backends are compiled in, so
 * there is nothing to load, lock or free. The calls through the ops table
 * that the writer and reader make per message go straight to s->ops; only
 * opening, closing and freeing go through here. */
#include "bag_storage.h"

#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "store__storage.h"
#include "store__yaml.h"

/* The first one is the default. A new backend: one line here. */
static const struct bag_storage_ops *const bag_storage_table[] = {
	&bag_storage_sqlite_ops,
	&bag_storage_mcap_ops,
};

#define BAG_STORAGE_N (sizeof bag_storage_table / sizeof bag_storage_table[0])

const struct bag_storage_ops *bag_storage_default(void)
{
	return bag_storage_table[0];
}

const struct bag_storage_ops *bag_storage_at(size_t i)
{
	return i < BAG_STORAGE_N ? bag_storage_table[i] : NULL;
}

const struct bag_storage_ops *bag_storage_find(const char *identifier)
{
	for (size_t i = 0; identifier && i < BAG_STORAGE_N; i++)
		if (!strcmp(bag_storage_table[i]->identifier, identifier))
			return bag_storage_table[i];
	return NULL;
}

char *bag_storage_known_list(void)
{
	struct bt_buf b = BT_BUF_INIT;
	for (size_t i = 0; i < BAG_STORAGE_N; i++) {
		const struct bag_storage_ops *o = bag_storage_table[i];
		if (bt_buf_printf(&b, "%s%s (%s, %s%s)", i ? ", " : "", o->identifier, o->extension,
				  o->extension, BAG_STORAGE_FILE_COMPRESSED) != BT_OK) {
			bt_buf_fini(&b);
			return bt_xstrdup("?");
		}
	}
	return b.data;
}

const struct bag_storage_ops *bag_storage_by_magic(const void *head, size_t n)
{
	for (size_t i = 0; i < BAG_STORAGE_N; i++) {
		const struct bag_storage_ops *o = bag_storage_table[i];
		if (o->magic_len <= n && memcmp(head, o->magic, o->magic_len) == 0)
			return o;
	}
	return NULL;
}

bt_status bag_storage_lookup(const char *identifier, const struct bag_storage_ops **out,
			     struct bt_error *err)
{
	*out = bag_storage_find(identifier);
	if (*out)
		return BT_OK;
	char *known = bag_storage_known_list();
	bt_status st = bt_err_set(err, BT_ERR_USAGE, "unknown storage '%s' (known: %s)",
				  identifier ? identifier : "", known);
	free(known);
	return st;
}

const struct bag_storage_ops *bag_storage_by_name(const char *name, size_t *stem,
						  bool *compressed)
{
	size_t len = strlen(name), zlen = strlen(BAG_STORAGE_FILE_COMPRESSED);
	bool z = bt_str_ends_with(name, BAG_STORAGE_FILE_COMPRESSED);
	size_t plain = z ? len - zlen : len;
	for (size_t i = 0; i < BAG_STORAGE_N; i++) {
		const char *ext = bag_storage_table[i]->extension;
		size_t elen = strlen(ext);
		if (plain <= elen || memcmp(name + plain - elen, ext, elen) != 0)
			continue;
		if (stem)
			*stem = plain - elen;
		if (compressed)
			*compressed = z;
		return bag_storage_table[i];
	}
	return NULL;
}

bt_status bag_storage_create(const struct bag_storage_ops *ops, const char *path,
			     const struct bag_storage_options *o, struct bag_storage **out,
			     struct bt_error *err)
{
	*out = NULL;
	return ops->create(path, o, out, err);
}

bt_status bag_storage_open(const char *path, enum bag_storage_mode mode,
			   struct bag_storage **out, struct bt_error *err)
{
	*out = NULL;
	bool z = false;
	const struct bag_storage_ops *ops = bag_storage_by_name(path, NULL, &z);
	if (ops == NULL || z) {
		char *known = bag_storage_known_list();
		bt_status st = bt_err_set(err, BT_ERR_FORMAT, "%s: %s (known: %s)", path,
					  z ? "a FILE-compressed file must be inflated first"
					    : "no storage backend reads files named like this",
					  known);
		free(known);
		return st;
	}
	return ops->open(path, mode, out, err);
}

bt_status bag_storage_close(struct bag_storage *s, struct bt_error *err)
{
	return s->ops->close(s, err);
}

void bag_storage_discard(struct bag_storage *s)
{
	if (s)
		s->ops->discard(s);
}

void bag_storage_topics_free(struct bag_storage_topic *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bag_topic_fini(&t[i].topic);
	free(t);
}

void bag_storage_msgdefs_free(struct bag_msgdef *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bag_msgdef_fini(&d[i]);
	free(d);
}

/* A config file larger than this is no settings file. */
#define BAG_STORAGE_CONFIG_MAX (1024u * 1024u)

static bt_status bag_storage_config_map(const char *path, yaml_document_t *doc,
					yaml_node_t *map, struct bag_kv **kv, size_t *n,
					struct bt_error *err)
{
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *k = yaml_document_get_node(doc, p->key);
		yaml_node_t *v = yaml_document_get_node(doc, p->value);
		char *key = NULL, *val = NULL;
		if (yd_str(k, &key) != BT_OK)
			return bt_err_set(err, BT_ERR_USAGE, "%s: a key that is no string", path);
		if (yd_str(v, &val) != BT_OK) {
			bt_status st = bt_err_set(err, BT_ERR_USAGE, "%s: '%s' wants a single value",
						  path, key);
			free(key);
			return st;
		}
		*kv = bt_xrealloc(*kv, (*n + 1) * sizeof **kv);
		(*kv)[*n].key = key;
		(*kv)[*n].value = val;
		(*n)++;
	}
	return BT_OK;
}

bt_status bag_storage_config_read(const char *path, struct bag_kv **kv, size_t *n,
				  struct bt_error *err)
{
	*kv = NULL;
	*n = 0;
	char *text = NULL;
	size_t len = 0;
	struct bt_error why;
	if (bt_fs_read_all(path, BAG_STORAGE_CONFIG_MAX, &text, &len, &why) != BT_OK)
		return bt_err_set(err, BT_ERR_USAGE, "storage config file: %s", why.msg);
	yaml_document_t doc;
	bt_status st = yd_load(&doc, text, len, &why);
	free(text);
	if (st != BT_OK)
		return bt_err_set(err, BT_ERR_USAGE, "%s: %s", path, why.msg);
	yaml_node_t *root = yaml_document_get_root_node(&doc);
	const yaml_node_t *dup = yd_duplicate_key(&doc);
	if (!root || root->type != YAML_MAPPING_NODE)
		st = bt_err_set(err, BT_ERR_USAGE, "%s: not a YAML mapping of settings", path);
	else if (dup)
		st = bt_err_set(err, BT_ERR_USAGE, "%s: '%.*s' given twice", path,
				(int)dup->data.scalar.length, (const char *)dup->data.scalar.value);
	else
		st = bag_storage_config_map(path, &doc, root, kv, n, err);
	yaml_document_delete(&doc);
	if (st != BT_OK) {
		bag_kv_free(*kv, *n);
		*kv = NULL;
		*n = 0;
	}
	return st;
}
