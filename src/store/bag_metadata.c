#include "bag_metadata.h"

#include <stdlib.h>
#include <string.h>

#include "bag_compat.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "bag_qos.h"
#include "store__qos.h"
#include "store__yaml.h"

#define BAG_ROOT_KEY "rosbag2_bagfile_information"

/* Recording statistics are bagtop's additions to every layout (5, 7, 9): a
 * `statistics` mapping as the last key of each topics_with_message_count
 * entry and a `topics_statistics` sequence as the last key of each files
 * entry; every rosbag2 key stays as it was, in its order. rosbag2 ignores
 * them: its decoder (rosbag2_storage/include/rosbag2_storage/yaml.hpp,
 * ros2/rosbag2 @ 25304dd, Oct 2024: convert<TopicInformation>::decode,
 * convert<FileInformation>::decode, convert<BagMetadata>::decode) only
 * looks keys up by name (node["message_count"], node["path"], ...) and
 * never iterates a topic or file entry, so yaml-cpp leaves unknown keys
 * unread; metadata.yaml (MetadataIo::read_metadata) and the embedded row
 * (deserialize_metadata) both go through that decoder. The humble and iron
 * branches' decoders (rosbag2_storage metadata_io.cpp on humble, yaml.hpp
 * on iron) do the same, and a `files` entry there is decoded by
 * convert<FileInformation> by name too, so the keys stay in their layouts;
 * a topic's version-gated keys (offered_qos_profiles from 4,
 * type_description_hash from 7) are all rosbag2 reads of topic_metadata.
 *
 * bagtop's reader is lenient with them: a statistics block it cannot read
 * is dropped (marked absent), never an error, since rosbag2 reads the bag. */

/* ---- writing ---- */

static void bag_md_emit_ns(struct ye *e, const char *key, const char *sub, int64_t v)
{
	ye_key(e, key);
	ye_open(e, YE_MAP);
	ye_key(e, sub);
	ye_i64(e, v);
	ye_close(e, YE_MAP);
}

static void bag_md_emit_u64(struct ye *e, const char *key, uint64_t v)
{
	ye_key(e, key);
	ye_u64(e, v);
}

static void bag_md_emit_str(struct ye *e, const char *key, const char *v)
{
	ye_key(e, key);
	ye_str(e, v);
}

static void bag_md_emit_causes(struct ye *e, const struct bag_losses *l)
{
	ye_key(e, "lost_by_cause");
	ye_open(e, YE_MAP);
	for (int k = 0; k < BAG_LOSS_N_CAUSES; k++)
		bag_md_emit_u64(e, bag_loss_causes[k].yaml, bag_losses_get(l, k));
	ye_close(e, YE_MAP);
}

/* The counters of messages not written on purpose (BAG_NOT_LOST: no
 * loss, so beside the loss sums, not under lost_by_cause); only when not
 * 0, so a bag that throttled nothing reads as before. */
static void bag_md_emit_not_lost(struct ye *e, const struct bag_losses *l)
{
	for (int k = BAG_LOSS_N_CAUSES; k < BAG_N_COUNTERS; k++)
		if (bag_losses_get(l, k) != 0)
			bag_md_emit_u64(e, bag_loss_causes[k].yaml, bag_losses_get(l, k));
}

/* The keys of a statistics mapping, into the mapping already begun. Loss
 * keys only when known: an absent key means "not known", never 0. */
static void bag_md_emit_stats(struct ye *e, const struct bag_stats *st, bool causes)
{
	bag_md_emit_u64(e, "messages_recorded", st->messages_recorded);
	if (st->losses_known) {
		bag_md_emit_u64(e, "lost_in_transport", st->lost_in_transport);
		bag_md_emit_u64(e, "lost_in_recorder", st->lost_in_recorder);
		if (causes && st->has_causes)
			bag_md_emit_not_lost(e, &st->causes);
	}
	bag_md_emit_u64(e, "bytes_written", st->bytes_written);
	ye_key(e, "average_rate_hz");
	ye_f64(e, st->average_rate_hz);
	if (causes && st->losses_known && st->has_causes)
		bag_md_emit_causes(e, &st->causes);
}

/* offered_qos_profiles: a YAML sequence from version 9 on; before, the
 * string yaml-cpp's Dump makes of the sequence (policies as numbers),
 * written double-quoted on one line as rosbag2's own metadata.yaml has it. */
static void bag_md_emit_qos(struct ye *e, const struct bag_topic *t, int version)
{
	ye_key(e, "offered_qos_profiles");
	if (bag_qos_uses_names(version)) {
		bag_qos_emit(e, t->qos, t->n_qos, version);
		return;
	}
	struct bt_buf b = BT_BUF_INIT;
	if (bag_qos_to_string(t->qos, t->n_qos, version, &b) != BT_OK)
		e->failed = true;
	ye_dq(e, b.data ? b.data : "");
	bt_buf_fini(&b);
}

static void bag_md_emit_topic(struct ye *e, const void *elem, int version)
{
	const struct bag_topic_info *ti = elem;
	const struct bag_topic *t = &ti->topic;
	ye_open(e, YE_MAP);
	ye_key(e, "topic_metadata");
	ye_open(e, YE_MAP);
	bag_md_emit_str(e, "name", t->name);
	bag_md_emit_str(e, "type", t->type);
	bag_md_emit_str(e, "serialization_format", t->serialization_format);
	if (version >= BAG_MDV_QOS)
		bag_md_emit_qos(e, t, version);
	if (version >= BAG_MDV_TYPE_HASH)
		bag_md_emit_str(e, "type_description_hash", t->type_description_hash);
	ye_close(e, YE_MAP);
	bag_md_emit_u64(e, "message_count", ti->message_count);
	if (ti->has_stats) {
		ye_key(e, "statistics");
		ye_open(e, YE_MAP);
		bag_md_emit_stats(e, &ti->stats, true);
		ye_close(e, YE_MAP);
	}
	ye_close(e, YE_MAP);
}

/* `key` and a sequence of the n `size`-byte elements at arr, each emitted
 * by fn; "[]" when there are none. */
typedef void (*bag_md_emit_fn)(struct ye *e, const void *elem, int version);

static void bag_md_emit_list(struct ye *e, const char *key, const void *arr, size_t n,
			     size_t size, int version, bag_md_emit_fn fn)
{
	ye_key(e, key);
	if (!n) {
		bag_qos_emit(e, NULL, 0, BAG_MDV_NEWEST); /* the same "[]" */
		return;
	}
	ye_open(e, YE_SEQ);
	for (size_t i = 0; i < n; i++)
		fn(e, (const char *)arr + i * size, version);
	ye_close(e, YE_SEQ);
}

static void bag_md_emit_file_topic(struct ye *e, const void *elem, int version)
{
	const struct bag_file_topic_stats *ts = elem;
	(void)version;
	ye_open(e, YE_MAP);
	bag_md_emit_str(e, "topic", ts->topic);
	bag_md_emit_stats(e, &ts->stats, false);
	ye_close(e, YE_MAP);
}

static void bag_md_emit_path(struct ye *e, const void *elem, int version)
{
	(void)version;
	ye_str(e, *(char *const *)elem);
}

static void bag_md_emit_file(struct ye *e, const void *elem, int version)
{
	const struct bag_file_info *f = elem;
	ye_open(e, YE_MAP);
	bag_md_emit_str(e, "path", f->path);
	bag_md_emit_ns(e, "starting_time", "nanoseconds_since_epoch", f->starting_time);
	bag_md_emit_ns(e, "duration", "nanoseconds", f->duration);
	bag_md_emit_u64(e, "message_count", f->message_count);
	if (f->has_stats)
		bag_md_emit_list(e, "topics_statistics", f->topics_stats, f->n_topics_stats,
				 sizeof *f->topics_stats, version, bag_md_emit_file_topic);
	ye_close(e, YE_MAP);
}

/* A string-to-string mapping; `~` when empty (custom_data, as rosbag2). */
static void bag_md_emit_kv(struct ye *e, const char *key, const struct bag_kv *kv, size_t n)
{
	ye_key(e, key);
	if (!n) {
		ye_plain(e, "~");
		return;
	}
	ye_open(e, YE_MAP);
	for (size_t i = 0; i < n; i++) {
		ye_str(e, kv[i].key);
		ye_str(e, kv[i].value);
	}
	ye_close(e, YE_MAP);
}

int bag_metadata_layout_version(const struct bag_metadata *md)
{
	return md->version > BAG_MDV_NEWEST || md->version < 1 ? BAG_MDV_NEWEST : md->version;
}

static void bag_md_emit_body(struct ye *e, const struct bag_metadata *md)
{
	int v = bag_metadata_layout_version(md);
	ye_open(e, YE_MAP);
	ye_key(e, "version");
	ye_i64(e, v);
	bag_md_emit_str(e, "storage_identifier", md->storage_identifier);
	bag_md_emit_ns(e, "duration", "nanoseconds", md->duration);
	bag_md_emit_ns(e, "starting_time", "nanoseconds_since_epoch", md->starting_time);
	bag_md_emit_u64(e, "message_count", md->message_count);
	bag_md_emit_list(e, "topics_with_message_count", md->topics, md->n_topics,
			 sizeof *md->topics, v, bag_md_emit_topic);
	if (v >= BAG_MDV_COMPRESSION) {
		bag_md_emit_str(e, "compression_format", md->compression_format);
		bag_md_emit_str(e, "compression_mode", md->compression_mode);
	}
	bag_md_emit_list(e, "relative_file_paths", md->relative_file_paths, md->n_paths,
			 sizeof *md->relative_file_paths, v, bag_md_emit_path);
	if (v >= BAG_MDV_FILES)
		bag_md_emit_list(e, "files", md->files, md->n_files, sizeof *md->files, v,
				 bag_md_emit_file);
	if (v >= BAG_MDV_CUSTOM_DATA)
		bag_md_emit_kv(e, "custom_data", md->custom_data, md->n_custom_data);
	if (v >= BAG_MDV_ROS_DISTRO)
		bag_md_emit_str(e, "ros_distro", md->ros_distro);
	if (md->n_def_sources) /* bagtop's addition */
		bag_md_emit_kv(e, "message_definition_sources", md->def_sources,
			       md->n_def_sources);
	ye_close(e, YE_MAP);
}

bt_status bag_metadata_to_yaml(const struct bag_metadata *md, bool with_root, struct bt_buf *out)
{
	struct ye e;
	ye_begin(&e, out);
	if (with_root) {
		ye_open(&e, YE_MAP);
		ye_key(&e, BAG_ROOT_KEY);
	}
	bag_md_emit_body(&e, md);
	if (with_root)
		ye_close(&e, YE_MAP);
	return ye_end(&e);
}

bt_status bag_metadata_write(const char *bag_dir, const struct bag_metadata *md,
			     struct bt_error *err)
{
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = bag_metadata_to_yaml(md, true, &b);
	if (st != BT_OK) {
		bt_buf_fini(&b);
		return bt_err_set(err, st, "cannot serialise metadata");
	}
	char *path = bt_fs_join(bag_dir, BAG_METADATA_FILE);
	st = bt_fs_write_atomic(path, b.data, b.len, err);
	free(path);
	bt_buf_fini(&b);
	return st;
}

/* ---- reading ---- */

struct bag_md_ctx {
	yaml_document_t *doc;
	yaml_node_t *map;
	struct bt_error *err;
	int version; /* the metadata's, once its head is parsed */
};

static bt_status bag_md_bad(struct bag_md_ctx *c, const char *key, const char *what)
{
	return bt_err_set(c->err, BT_ERR_FORMAT, "key '%s' %s", key, what);
}

/* Reads a nested int64 like `duration: {nanoseconds: N}`. */
static bt_status bag_md_get_ns(struct bag_md_ctx *c, yaml_node_t *map, const char *key,
			       const char *sub, int64_t *out)
{
	yaml_node_t *n = yd_get(c->doc, map, key);
	if (!n)
		return bag_md_bad(c, key, "is missing");
	if (yd_i64(yd_get(c->doc, n, sub), out) != BT_OK)
		return bag_md_bad(c, key, "is not a valid 64-bit time");
	return BT_OK;
}

static bt_status bag_md_get_u64(struct bag_md_ctx *c, yaml_node_t *map, const char *key,
				uint64_t *out)
{
	yaml_node_t *n = yd_get(c->doc, map, key);
	if (!n)
		return bag_md_bad(c, key, "is missing");
	if (yd_u64(n, out) != BT_OK)
		return bag_md_bad(c, key, "is not a valid unsigned 64-bit count");
	return BT_OK;
}

/* Optional string: absent or null gives "", a non-scalar is an error. */
static bt_status bag_md_get_str(struct bag_md_ctx *c, yaml_node_t *map, const char *key,
				bool required, char **out)
{
	yaml_node_t *n = yd_get(c->doc, map, key);
	if (!n && required)
		return bag_md_bad(c, key, "is missing");
	if (yd_is_null(n)) {
		free(*out);
		*out = bt_xstrdup("");
		return BT_OK;
	}
	char *s;
	if (yd_str(n, &s) != BT_OK)
		return bag_md_bad(c, key, "is not a string");
	free(*out);
	*out = s;
	return BT_OK;
}

static bt_status bag_md_parse_qos(struct bag_md_ctx *c, yaml_node_t *tm, struct bag_topic *t)
{
	yaml_node_t *n = yd_get(c->doc, tm, "offered_qos_profiles");
	bt_status st = BT_OK;
	if (!n || yd_is_null(n))
		return BT_OK;
	if (n->type == YAML_SCALAR_NODE) {
		char *s = bt_xstrndup((const char *)n->data.scalar.value, n->data.scalar.length);
		st = bag_qos_from_string(s, &t->qos, &t->n_qos, c->err);
		free(s);
	} else {
		st = bag_qos_parse_node(c->doc, n, &t->qos, &t->n_qos, c->err);
	}
	if (st != BT_OK)
		bt_err_prefix(c->err, "topic '%s'", t->name);
	return st;
}

/* ---- reading statistics (lenient: false = unreadable, treat as absent) ---- */

static bool bag_md_stat_u64(struct bag_md_ctx *c, yaml_node_t *map, const char *key,
			    uint64_t *out)
{
	return yd_u64(yd_get(c->doc, map, key), out) == BT_OK;
}

/* Every cause's key; a cause added later may be absent (reads 0). */
static bool bag_md_parse_causes(struct bag_md_ctx *c, yaml_node_t *map, struct bag_losses *l)
{
	for (int k = 0; k < BAG_LOSS_N_CAUSES; k++) {
		const struct bag_loss_cause_info *ci = &bag_loss_causes[k];
		if (!ci->required && yd_get(c->doc, map, ci->yaml) == NULL)
			continue;
		if (!bag_md_stat_u64(c, map, ci->yaml, bag_losses_at(l, k)))
			return false;
	}
	return true;
}

static bool bag_md_parse_losses(struct bag_md_ctx *c, yaml_node_t *map, struct bag_stats *st)
{
	bool tr = yd_get(c->doc, map, "lost_in_transport") != NULL;
	bool rec = yd_get(c->doc, map, "lost_in_recorder") != NULL;
	if (!tr && !rec)
		return true; /* not known */
	st->losses_known = true;
	return bag_md_stat_u64(c, map, "lost_in_transport", &st->lost_in_transport) &&
	       bag_md_stat_u64(c, map, "lost_in_recorder", &st->lost_in_recorder);
}

static bool bag_md_parse_stats(struct bag_md_ctx *c, yaml_node_t *map, bool causes,
			       struct bag_stats *st)
{
	memset(st, 0, sizeof *st);
	if (!map || map->type != YAML_MAPPING_NODE ||
	    !bag_md_stat_u64(c, map, "messages_recorded", &st->messages_recorded) ||
	    !bag_md_stat_u64(c, map, "bytes_written", &st->bytes_written) ||
	    yd_f64(yd_get(c->doc, map, "average_rate_hz"), &st->average_rate_hz) != BT_OK ||
	    !bag_md_parse_losses(c, map, st))
		return false;
	for (int k = BAG_LOSS_N_CAUSES; causes && st->losses_known && k < BAG_N_COUNTERS; k++)
		if (yd_get(c->doc, map, bag_loss_causes[k].yaml) != NULL &&
		    !bag_md_stat_u64(c, map, bag_loss_causes[k].yaml, bag_losses_at(&st->causes, k)))
			return false;
	yaml_node_t *lc = causes && st->losses_known ? yd_get(c->doc, map, "lost_by_cause") : NULL;
	if (lc) {
		st->has_causes = true;
		return lc->type == YAML_MAPPING_NODE && bag_md_parse_causes(c, lc, &st->causes);
	}
	return true;
}

static void bag_md_parse_topic_stats(struct bag_md_ctx *c, yaml_node_t *item,
				     struct bag_topic_info *ti)
{
	yaml_node_t *n = yd_get(c->doc, item, "statistics");
	ti->has_stats = n && bag_md_parse_stats(c, n, true, &ti->stats);
	if (!ti->has_stats)
		memset(&ti->stats, 0, sizeof ti->stats);
}

static void bag_md_file_stats_clear(struct bag_file_info *f)
{
	for (size_t i = 0; i < f->n_topics_stats; i++)
		free(f->topics_stats[i].topic);
	free(f->topics_stats);
	f->topics_stats = NULL;
	f->n_topics_stats = 0;
	f->has_stats = false;
}

static void bag_md_parse_file_stats(struct bag_md_ctx *c, yaml_node_t *m, struct bag_file_info *f)
{
	yaml_node_t *seq = yd_get(c->doc, m, "topics_statistics");
	if (!seq || seq->type != YAML_SEQUENCE_NODE)
		return;
	size_t n = yd_len(seq);
	f->has_stats = true;
	f->topics_stats = n ? bt_xcalloc(n, sizeof *f->topics_stats) : NULL;
	for (size_t i = 0; i < n; i++) {
		yaml_node_t *e = yd_item(c->doc, seq, i);
		struct bag_file_topic_stats *ts = &f->topics_stats[f->n_topics_stats];
		if (yd_str(yd_get(c->doc, e, "topic"), &ts->topic) != BT_OK) {
			bag_md_file_stats_clear(f);
			return;
		}
		f->n_topics_stats++;
		if (!bag_md_parse_stats(c, e, false, &ts->stats)) {
			bag_md_file_stats_clear(f);
			return;
		}
	}
}

static bt_status bag_md_topic_item(struct bag_md_ctx *c, yaml_node_t *item, size_t i,
				   void *elem)
{
	struct bag_topic_info *ti = elem;
	(void)i;
	yaml_node_t *tm = yd_get(c->doc, item, "topic_metadata");
	struct bag_topic *t = &ti->topic;
	if (!tm || tm->type != YAML_MAPPING_NODE)
		return bag_md_bad(c, "topic_metadata", "is missing or not a mapping");
	bt_status st = bag_md_get_str(c, tm, "name", true, &t->name);
	if (st == BT_OK)
		st = bag_md_get_str(c, tm, "type", true, &t->type);
	if (st == BT_OK)
		st = bag_md_get_str(c, tm, "serialization_format", false,
				    &t->serialization_format);
	if (st == BT_OK)
		st = bag_md_get_str(c, tm, "type_description_hash", false,
				    &t->type_description_hash);
	if (st == BT_OK && c->version >= 4)
		st = bag_md_parse_qos(c, tm, t);
	if (st == BT_OK)
		st = bag_md_get_u64(c, item, "message_count", &ti->message_count);
	if (st == BT_OK)
		bag_md_parse_topic_stats(c, item, ti);
	return st;
}

/* The top-level sequence `key`: *seq NULL when it is null (an empty list)
 * or, unless required, absent; an error when it is not a sequence. */
static bt_status bag_md_seq(struct bag_md_ctx *c, const char *key, bool required,
			    yaml_node_t **seq)
{
	yaml_node_t *n = yd_get(c->doc, c->map, key);
	*seq = NULL;
	if (!n && required)
		return bag_md_bad(c, key, "is missing");
	if (yd_is_null(n))
		return BT_OK;
	if (n->type != YAML_SEQUENCE_NODE)
		return bag_md_bad(c, key, "is not a sequence");
	*seq = n;
	return BT_OK;
}

/* The top-level sequence `key` (bag_md_seq) as an array of `size`-byte
 * elements, each filled by fn (given its index, from 0): *arr and *n stay
 * as they are when the sequence is null or absent. The first failure ends
 * it; the elements so far stay for the caller to free. */
typedef bt_status (*bag_md_item_fn)(struct bag_md_ctx *c, yaml_node_t *item, size_t i,
				    void *elem);

static bt_status bag_md_parse_list(struct bag_md_ctx *c, const char *key, bool required,
				   size_t size, void **arr, size_t *n, bag_md_item_fn fn)
{
	yaml_node_t *seq;
	bt_status st = bag_md_seq(c, key, required, &seq);
	if (st != BT_OK || seq == NULL)
		return st;
	*n = yd_len(seq);
	*arr = bt_xcalloc(*n, size);
	for (size_t i = 0; i < *n && st == BT_OK; i++)
		st = fn(c, yd_item(c->doc, seq, i), i, (char *)*arr + i * size);
	return st;
}

static bt_status bag_md_path_item(struct bag_md_ctx *c, yaml_node_t *n, size_t i, void *elem)
{
	char **path = elem;
	(void)i;
	if (yd_str(n, path) != BT_OK || !(*path)[0])
		return bag_md_bad(c, "relative_file_paths", "holds a non-string or empty entry");
	return BT_OK;
}

static bt_status bag_md_file_item(struct bag_md_ctx *c, yaml_node_t *m, size_t i, void *elem)
{
	struct bag_file_info *f = elem;
	bt_status st = bag_md_get_str(c, m, "path", true, &f->path);
	if (st == BT_OK)
		st = bag_md_get_ns(c, m, "starting_time", "nanoseconds_since_epoch",
				   &f->starting_time);
	if (st == BT_OK)
		st = bag_md_get_ns(c, m, "duration", "nanoseconds", &f->duration);
	if (st == BT_OK)
		st = bag_md_get_u64(c, m, "message_count", &f->message_count);
	if (st == BT_OK && f->duration < 0)
		st = bag_md_bad(c, "files.duration", "is negative");
	if (st != BT_OK)
		return bt_err_prefix(c->err, "files entry %zu", i + 1);
	bag_md_parse_file_stats(c, m, f);
	return BT_OK;
}

static bool bag_kv_find(const struct bag_kv *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(kv[i].key, key))
			return true;
	return false;
}

/* A string-to-string mapping (custom_data, message_definition_sources). */
static bt_status bag_md_parse_kv(struct bag_md_ctx *c, const char *key, struct bag_kv **out,
				 size_t *n_out)
{
	yaml_node_t *m = yd_get(c->doc, c->map, key);
	if (yd_is_null(m))
		return BT_OK;
	if (m->type != YAML_MAPPING_NODE)
		return bag_md_bad(c, key, "is not a mapping");
	size_t n = (size_t)(m->data.mapping.pairs.top - m->data.mapping.pairs.start);
	*out = bt_xcalloc(n, sizeof **out);
	for (size_t i = 0; i < n; i++) {
		yaml_node_pair_t *p = &m->data.mapping.pairs.start[i];
		struct bag_kv *kv = &(*out)[*n_out];
		if (yd_str(yaml_document_get_node(c->doc, p->key), &kv->key) != BT_OK)
			return bag_md_bad(c, key, "has a non-string key");
		if (bag_kv_find(*out, *n_out, kv->key)) {
			/* Invalid YAML (check reports it): the first wins, as in yd_get. */
			free(kv->key);
			kv->key = NULL;
			continue;
		}
		(*n_out)++;
		if (yd_str(yaml_document_get_node(c->doc, p->value), &kv->value) != BT_OK)
			return bag_md_bad(c, key, "has a non-string value");
	}
	return BT_OK;
}

static bt_status bag_md_parse_head(struct bag_md_ctx *c, struct bag_metadata *md)
{
	int64_t v;
	if (!yd_get(c->doc, c->map, "version"))
		return bag_md_bad(c, "version", "is missing");
	if (yd_i64(yd_get(c->doc, c->map, "version"), &v) != BT_OK || v < 1 || v > 100)
		return bag_md_bad(c, "version", "is not a supported metadata version (1..9)");
	md->version = c->version = (int)v;
	bt_status st = bag_md_get_str(c, c->map, "storage_identifier", true,
				      &md->storage_identifier);
	if (st == BT_OK)
		st = bag_md_get_ns(c, c->map, "duration", "nanoseconds", &md->duration);
	if (st == BT_OK)
		st = bag_md_get_ns(c, c->map, "starting_time", "nanoseconds_since_epoch",
				   &md->starting_time);
	if (st == BT_OK)
		st = bag_md_get_u64(c, c->map, "message_count", &md->message_count);
	if (st == BT_OK && md->duration < 0)
		st = bag_md_bad(c, "duration", "is negative");
	return st;
}

static bt_status bag_md_parse(struct bag_md_ctx *c, struct bag_metadata *md)
{
	bt_status st = bag_md_parse_head(c, md);
	if (st == BT_OK)
		st = bag_md_parse_list(c, "topics_with_message_count", true, sizeof *md->topics,
				       (void **)&md->topics, &md->n_topics, bag_md_topic_item);
	if (st == BT_OK)
		st = bag_md_parse_list(c, "relative_file_paths", true, sizeof(char *),
				       (void **)&md->relative_file_paths, &md->n_paths,
				       bag_md_path_item);
	if (st == BT_OK)
		st = bag_md_get_str(c, c->map, "compression_format", false,
				    &md->compression_format);
	if (st == BT_OK)
		st = bag_md_get_str(c, c->map, "compression_mode", false, &md->compression_mode);
	if (st == BT_OK)
		st = bag_md_parse_list(c, "files", false, sizeof *md->files, (void **)&md->files,
				       &md->n_files, bag_md_file_item);
	if (st == BT_OK)
		st = bag_md_parse_kv(c, "custom_data", &md->custom_data, &md->n_custom_data);
	if (st == BT_OK)
		st = bag_md_get_str(c, c->map, "ros_distro", false, &md->ros_distro);
	if (st == BT_OK) /* bagtop's addition */
		st = bag_md_parse_kv(c, "message_definition_sources", &md->def_sources,
				     &md->n_def_sources);
	return st;
}

bt_status bag_metadata_from_yaml(const char *text, size_t len, struct bag_metadata *md,
				 struct bt_error *err)
{
	yaml_document_t doc;
	bt_status st = yd_load(&doc, text, len, err);
	if (st != BT_OK)
		return st;
	struct bag_md_ctx c = {&doc, yaml_document_get_root_node(&doc), err, 0};
	yaml_node_t *inner = yd_get(&doc, c.map, BAG_ROOT_KEY);
	if (inner)
		c.map = inner;
	bag_metadata_init(md);
	if (!c.map || c.map->type != YAML_MAPPING_NODE)
		st = bt_err_set(err, BT_ERR_FORMAT, "not a rosbag2 metadata mapping");
	else
		st = bag_md_parse(&c, md);
	yaml_document_delete(&doc);
	if (st != BT_OK)
		bag_metadata_fini(md);
	return st;
}

bt_status bag_metadata_duplicate_key(const char *bag_dir, char **key, size_t *line,
				     struct bt_error *err)
{
	char *path = bt_fs_join(bag_dir, BAG_METADATA_FILE);
	char *text;
	size_t len;
	yaml_document_t doc;
	*key = NULL;
	bt_status st = bt_fs_read_all(path, BAG_METADATA_MAX_BYTES, &text, &len, err);
	if (st == BT_OK) {
		st = yd_load(&doc, text, len, err);
		free(text);
	}
	if (st == BT_OK) {
		const yaml_node_t *dup = yd_duplicate_key(&doc);
		if (dup) {
			*key = bt_xstrndup((const char *)dup->data.scalar.value, dup->data.scalar.length);
			*line = dup->start_mark.line + 1;
		}
		yaml_document_delete(&doc);
	}
	free(path);
	return st;
}

bt_status bag_metadata_read(const char *bag_dir, struct bag_metadata *md, struct bt_error *err)
{
	char *path = bt_fs_join(bag_dir, BAG_METADATA_FILE);
	char *text;
	size_t len;
	bt_status st = bt_fs_read_all(path, BAG_METADATA_MAX_BYTES, &text, &len, err);
	if (st == BT_OK) {
		st = bag_metadata_from_yaml(text, len, md, err);
		free(text);
		if (st != BT_OK)
			bt_err_prefix(err, "%s", path);
	}
	free(path);
	return st;
}
