/* DESIGN: the mcap backend — a bag file as rosbag2's rosbag2_storage_mcap
 * plugin writes it (mcap_storage.cpp, Jazzy): Header profile "ros2", one
 * Schema per type (name = type, encoding and data = the definition, or
 * "unknown" and empty without one, as rosbag2's empty definition), one
 * Channel per topic (message encoding "cdr", metadata offered_qos_profiles
 * and topic_type_hash), Messages with sequence 0 and log_time =
 * publish_time = the receive time (bagtop keeps no other), a Metadata
 * record "rosbag2" {serialized_metadata: the metadata YAML without its
 * root key} at each write_metadata, and the summary at close. The writer
 * options are rosbag2's: its defaults (768 KiB chunks, no compression, no
 * chunk CRC), its presets and its storage-config keys.
 *
 * Batches: MCAP appends; nothing can be rolled back. A commit makes the
 * messages durable by closing the open chunk once a second (BSM_FLUSH_NS),
 * not at every commit: a chunk per commit would make chunks of a few
 * messages. So a kill -9 loses at most the last second; the writer's
 * idle tick (flush op) closes a chunk that waits while nothing arrives.
 *
 * Reading goes through mcap_reader: the summary when there is one, a scan
 * otherwise. Topic ids are channel ids. RECOVER (reindex) rebuilds a file
 * that ends without a footer: every record up to the last complete one is
 * written again into "<file>.reindex" with a new summary, which then
 * replaces the file by rename. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_qos.h"
#include "bag_storage.h"
#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "mcap_reader.h"
#include "mcap_writer.h"
#include "store__storage.h"

#ifndef BAGTOP_VERSION
#define BAGTOP_VERSION "0"
#endif

/* At most this long between a message's commit and its chunk on disk. */
#define BSM_FLUSH_NS INT64_C(1000000000)
/* rosbag2's get_minimum_split_file_size for MCAP. */
#define BSM_MIN_SPLIT 1024u
/* What the repaired file is called while reindex writes it. */
#define BSM_REPAIR_SUFFIX ".reindex"

struct bsm_schema {
	char *type;
	uint16_t id;
};

struct bsm {
	struct bag_storage base;
	char *path;
	/* writing */
	struct mcap_writer *w;
	struct bsm_schema *schemas;
	size_t n_schemas, cap_schemas;
	int qos_version;        /* the metadata version whose QoS form channels take */
	int64_t last_flush;     /* monotonic ns */
	bool unflushed;         /* messages written since the last flush */
	uint64_t chunk_msgs;    /* messages in the open chunk (for size) */
	uint64_t prev_chunk;    /* mcap_writer_chunk_bytes after the last write */
	uint16_t n_channels;
	/* reading */
	struct mcap_reader *r;
	bool blank;
	bool reading; /* read_next started */
};

static struct bsm *bsm(struct bag_storage *s)
{
	return (struct bsm *)s;
}

/* ---- options ---- */

/* rosbag2's SetOptionsForPreset. */
static bt_status bsm_preset(const char *p, struct mcap_writer_options *o, struct bt_error *err)
{
	if (!p || !*p || !strcmp(p, "none"))
		return BT_OK;
	if (!strcmp(p, "fastwrite")) {
		o->no_chunking = true;
		o->no_summary_crc = true;
	} else if (!strcmp(p, "zstd_fast")) {
		o->compression = MCAP_COMPRESSION_ZSTD;
		o->level = MCAP_LEVEL_FASTEST;
		o->no_chunk_crc = true;
	} else if (!strcmp(p, "zstd_small")) {
		o->compression = MCAP_COMPRESSION_ZSTD;
		o->level = MCAP_LEVEL_SLOWEST;
		o->chunk_size = 4u * 1024u * 1024u;
	} else {
		return bt_err_set(err, BT_ERR_USAGE, "unknown mcap storage preset '%s' (known: none, "
				  "fastwrite, zstd_fast, zstd_small%s)", p,
				  !strcmp(p, "resilient") ? "; resilient is sqlite3's" : "");
	}
	return BT_OK;
}

/* rosbag2's defaults, then the preset, then the config keys over it. */
static bt_status bsm_writer_options(const struct bag_storage_options *so,
				    struct mcap_writer_options *o, struct bt_error *err)
{
	mcap_writer_options_init(o);
	bt_status st = bsm_preset(so->preset, o, err);
	for (size_t i = 0; st == BT_OK && i < so->n_config; i++)
		st = mcap_writer_option_set(o, so->config[i].key, so->config[i].value, err);
	if (st == BT_OK && o->chunk_size == 0 && !o->no_chunking)
		st = bt_err_set(err, BT_ERR_USAGE, "mcap storage option 'chunkSize' must be > 0");
	return st;
}

static bt_status bsm_check_options(const struct bag_storage_options *so, struct bt_error *err)
{
	struct mcap_writer_options o;
	return bsm_writer_options(so, &o, err);
}

/* ---- open / close ---- */

static struct bsm *bsm_new(const char *path)
{
	struct bsm *b = bt_xcalloc(1, sizeof *b);
	b->base.ops = &bag_storage_mcap_ops;
	b->path = bt_xstrdup(path);
	return b;
}

static void bsm_free(struct bsm *b)
{
	for (size_t i = 0; i < b->n_schemas; i++)
		free(b->schemas[i].type);
	free(b->schemas);
	mcap_reader_close(b->r);
	free(b->path);
	free(b);
}

static bt_status bsm_create(const char *path, const struct bag_storage_options *so,
			    struct bag_storage **out, struct bt_error *err)
{
	struct mcap_writer_options o;
	bt_status st = bsm_writer_options(so, &o, err);
	if (st != BT_OK)
		return st;
	if (bt_fs_exists(path))
		return bt_err_set(err, BT_ERR_EXISTS, "%s: already exists", path);
	struct bsm *b = bsm_new(path);
	st = mcap_writer_open(&b->w, path, &o, "ros2", "bagtop " BAGTOP_VERSION, err);
	if (st != BT_OK) {
		bsm_free(b);
		return st;
	}
	b->qos_version = bag_compat_metadata_version(so->compat);
	b->last_flush = bt_time_monotonic_ns();
	*out = &b->base;
	return BT_OK;
}

static bt_status bsm_repair(struct bsm *b, struct bt_error *err);

/* A file shorter than the magic is one its writer died creating (the
 * writer buffers the Header until its first flush): blank. */
static bt_status bsm_open(const char *path, enum bag_storage_mode mode, struct bag_storage **out,
			  struct bt_error *err)
{
	uint64_t size = 0;
	bt_status st = bt_fs_file_size(path, &size, err);
	if (st != BT_OK)
		return st;
	struct bsm *b = bsm_new(path);
	if (size < MCAP_MAGIC_LEN) {
		b->blank = true;
		*out = &b->base;
		return BT_OK;
	}
	st = mcap_reader_open(&b->r, path, err);
	if (st == BT_OK && mode == BAG_STORAGE_RECOVER)
		st = bsm_repair(b, err);
	if (st == BT_OK)
		st = mcap_reader_index(b->r, err);
	if (st != BT_OK) {
		bsm_free(b);
		return st;
	}
	*out = &b->base;
	return BT_OK;
}

static bt_status bsm_close(struct bag_storage *s, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	bt_status st = BT_OK;
	if (b->w) {
		st = mcap_writer_flush(b->w, true, err);
		bt_status cs = mcap_writer_close(b->w, st == BT_OK ? err : NULL);
		st = st == BT_OK ? cs : st;
	}
	bsm_free(b);
	return st;
}

static void bsm_discard(struct bag_storage *s)
{
	struct bsm *b = bsm(s);
	mcap_writer_abandon(b->w);
	bsm_free(b);
}

/* ---- writing ---- */

static const struct bsm_schema *bsm_schema_find(const struct bsm *b, const char *type)
{
	for (size_t i = 0; i < b->n_schemas; i++)
		if (!strcmp(b->schemas[i].type, type))
			return &b->schemas[i];
	return NULL;
}

/* The type's Schema, added on first use: rosbag2 writes the definition
 * it has, or encoding "unknown" and no data without one. */
static bt_status bsm_schema(struct bsm *b, const char *type, const struct bag_msgdef *def,
			    uint16_t *id, struct bt_error *err)
{
	const struct bsm_schema *have = bsm_schema_find(b, type);
	if (have) {
		*id = have->id;
		return BT_OK;
	}
	const char *enc = def && def->encoding && *def->encoding ? def->encoding : "unknown";
	const char *text = def && def->encoded_message_definition ? def->encoded_message_definition
								   : "";
	bt_status st = mcap_writer_add_schema(b->w, type, enc, text, strlen(text), id, err);
	if (st != BT_OK)
		return st;
	bt_xgrow((void **)&b->schemas, &b->cap_schemas, b->n_schemas + 1, sizeof *b->schemas);
	b->schemas[b->n_schemas++] = (struct bsm_schema){bt_xstrdup(type), *id};
	return BT_OK;
}

static bt_status bsm_create_topic(struct bag_storage *s, const struct bag_topic *t,
				  const struct bag_msgdef *def, int64_t *id, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	uint16_t schema = 0, ch = 0;
	bt_status st = bsm_schema(b, t->type, def, &schema, err);
	if (st != BT_OK)
		return st;
	struct bt_buf qos = BT_BUF_INIT;
	st = bag_qos_to_string(t->qos, t->n_qos, b->qos_version, &qos);
	if (st != BT_OK)
		return bt_err_set(err, st, "%s: cannot write the QoS of %s", b->path, t->name);
	const char *meta[4] = {"offered_qos_profiles", qos.data ? qos.data : "",
			       "topic_type_hash",
			       t->type_description_hash ? t->type_description_hash : ""};
	const char *enc = t->serialization_format && *t->serialization_format
				  ? t->serialization_format : "cdr";
	st = mcap_writer_add_channel(b->w, t->name, enc, schema, meta, 2, &ch, err);
	bt_buf_fini(&qos);
	if (st == BT_OK) {
		*id = ch;
		b->n_channels++;
	}
	return st;
}

/* MCAP channels cannot change: the channel keeps the profiles it was
 * created with (rosbag2's plugin has no update either); metadata.yaml and
 * the rosbag2 Metadata record get the new ones. */
static bt_status bsm_update_topic_qos(struct bag_storage *s, int64_t id, const struct bag_qos *q,
				      size_t n, struct bt_error *err)
{
	(void)s, (void)id, (void)q, (void)n, (void)err;
	return BT_OK;
}

/* rosbag2's update_metadata: a Metadata record "rosbag2" holding the
 * metadata YAML (no root key), the newest last. */
static bt_status bsm_write_metadata(struct bag_storage *s, const struct bag_metadata *md,
				    struct bt_error *err)
{
	struct bsm *b = bsm(s);
	struct bt_buf y = BT_BUF_INIT;
	bt_status st = bag_metadata_to_yaml(md, false, &y);
	if (st != BT_OK)
		return bt_err_set(err, st, "%s: cannot serialize the metadata", b->path);
	const char *kv[2] = {"serialized_metadata", y.data ? y.data : ""};
	st = mcap_writer_add_metadata(b->w, "rosbag2", kv, 1, err);
	bt_buf_fini(&y);
	return st;
}

static bt_status bsm_batch_begin(struct bag_storage *s, struct bt_error *err)
{
	(void)s, (void)err;
	return BT_OK;
}

static bt_status bsm_write(struct bag_storage *s, int64_t topic_id, int64_t timestamp,
			   const void *data, size_t len, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	if (topic_id <= 0 || topic_id > b->n_channels)
		return bt_err_set(err, BT_ERR_USAGE, "%s: no topic %" PRId64, b->path, topic_id);
	if (len > MCAP_READER_LIMIT - 1024) /* a chunk this large is refused by readers */
		return bt_err_set(err, BT_ERR_TOOBIG, "%s: a %zu-byte message is too large for "
				  "MCAP", b->path, len);
	uint64_t t = timestamp < 0 ? 0 : (uint64_t)timestamp;
	bt_status st = mcap_writer_write(b->w, (uint16_t)topic_id, 0, t, t, data, len, err);
	if (st != BT_OK)
		return st;
	uint64_t cb = mcap_writer_chunk_bytes(b->w);
	b->chunk_msgs = cb > b->prev_chunk ? b->chunk_msgs + 1 : (cb ? 1 : 0);
	b->prev_chunk = cb;
	b->unflushed = true;
	return BT_OK;
}

static bt_status bsm_flush_now(struct bsm *b, struct bt_error *err)
{
	bt_status st = mcap_writer_flush(b->w, false, err);
	if (st == BT_OK) {
		b->unflushed = false;
		b->chunk_msgs = 0;
		b->prev_chunk = 0;
		b->last_flush = bt_time_monotonic_ns();
	}
	return st;
}

/* Flushes what waits since more than BSM_FLUSH_NS (see DESIGN). */
static bt_status bsm_flush_due(struct bsm *b, struct bt_error *err)
{
	if (!b->unflushed || bt_time_monotonic_ns() - b->last_flush < BSM_FLUSH_NS)
		return BT_OK;
	return bsm_flush_now(b, err);
}

static bt_status bsm_batch_commit(struct bag_storage *s, struct bt_error *err)
{
	return bsm_flush_due(bsm(s), err);
}

static bt_status bsm_flush(struct bag_storage *s, struct bt_error *err)
{
	return bsm_flush_due(bsm(s), err);
}

/* Nothing to undo: an append-only file keeps what was written. */
static void bsm_batch_abort(struct bag_storage *s)
{
	(void)s;
}

/* rosbag2 counts the bytes written; the open chunk is counted as it will
 * be written: its records plus a message index entry per message and a
 * chunk record's and index records' overhead. */
static bt_status bsm_size(struct bag_storage *s, uint64_t *bytes, struct bt_error *err)
{
	(void)err;
	struct bsm *b = bsm(s);
	uint64_t cb = mcap_writer_chunk_bytes(b->w);
	*bytes = mcap_writer_bytes(b->w);
	if (cb)
		*bytes += cb + 16 * b->chunk_msgs + 15u * b->n_channels + 128;
	return BT_OK;
}

static uint64_t bsm_growth_bound(const struct bag_storage *s, size_t len)
{
	(void)s;
	return (uint64_t)len + MCAP_RECORD_PREFIX + 22 + 16;
}

/* ---- reading ---- */

static int bsm_version(const struct bag_storage *s)
{
	return ((const struct bsm *)s)->blank ? 0 : 1;
}

static char *bsm_strdup(struct mcap_str s)
{
	return bt_xstrndup(s.p ? s.p : "", s.len);
}

/* The value of `key` in a string map, or NULL. */
static char *bsm_map_get(struct mcap_map m, const char *key)
{
	struct mcap_str k, v;
	size_t kl = strlen(key);
	while (mcap_map_next_str(&m, &k, &v))
		if (k.len == kl && !memcmp(k.p, key, kl))
			return bsm_strdup(v);
	return NULL;
}

/* A channel as rosbag2 reads it back (read_metadata): type = its schema's
 * name, QoS from offered_qos_profiles (unreadable ones left out, as
 * rosbag2 reads such a bag), type_description_hash = topic_type_hash. */
static void bsm_topic_of(const struct bsm *b, const struct mcap_channel *c, struct bag_topic *t)
{
	const struct mcap_schema *sc = c->schema_id ? mcap_reader_schema(b->r, c->schema_id) : NULL;
	memset(t, 0, sizeof *t);
	t->name = bsm_strdup(c->topic);
	t->type = sc ? bsm_strdup(sc->name) : bt_xstrdup("");
	t->serialization_format = bsm_strdup(c->message_encoding);
	char *hash = bsm_map_get(c->metadata, "topic_type_hash");
	t->type_description_hash = hash ? hash : bt_xstrdup("");
	char *qos = bsm_map_get(c->metadata, "offered_qos_profiles");
	if (qos && bag_qos_from_string(qos, &t->qos, &t->n_qos, NULL) != BT_OK) {
		t->qos = NULL;
		t->n_qos = 0;
	}
	free(qos);
}

/* Count and time range of one channel id. */
struct bsm_tally {
	uint64_t count;
	int64_t min, max;
};

/* One pass over the messages, by channel id (*t[id], *n ids): first, as
 * the pass may meet schemas and channels the summary did not repeat. */
static bt_status bsm_tally(struct bsm *b, struct bsm_tally **t, size_t *n, struct bt_error *err)
{
	size_t cap = 0;
	*t = NULL;
	*n = 0;
	b->reading = false;
	bt_status st = mcap_reader_messages_begin(b->r, err);
	struct mcap_message m;
	bool end = false;
	while (st == BT_OK && (st = mcap_reader_messages_next(b->r, &m, &end, err)) == BT_OK && !end) {
		if (m.channel_id >= *n) {
			bt_xgrow((void **)t, &cap, (size_t)m.channel_id + 1, sizeof **t);
			memset(*t + *n, 0, ((size_t)m.channel_id + 1 - *n) * sizeof **t);
			*n = (size_t)m.channel_id + 1;
		}
		struct bsm_tally *c = &(*t)[m.channel_id];
		int64_t ts = m.log_time > INT64_MAX ? INT64_MAX : (int64_t)m.log_time;
		if (!c->count || ts < c->min)
			c->min = ts;
		if (!c->count || ts > c->max)
			c->max = ts;
		c->count++;
	}
	return st;
}

static bt_status bsm_read_topics(struct bag_storage *s, struct bag_storage_topic **out,
				 size_t *n, uint64_t *orphans, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	*out = NULL;
	*n = 0;
	*orphans = 0;
	if (b->blank)
		return BT_OK;
	struct bsm_tally *t = NULL;
	size_t nt = 0;
	bt_status st = bsm_tally(b, &t, &nt, err);
	if (st != BT_OK) {
		free(t);
		return st;
	}
	for (size_t id = 0; id < nt; id++)
		*orphans += mcap_reader_channel(b->r, (uint16_t)id) ? 0 : t[id].count;
	const struct mcap_summary *sum = mcap_reader_summary(b->r);
	size_t cnt = sum->n_channels;
	struct bag_storage_topic *o = cnt ? bt_xcalloc(cnt, sizeof *o) : NULL;
	for (size_t i = 0; i < cnt; i++) {
		uint16_t id = sum->channels[i].id;
		o[i].id = id;
		bsm_topic_of(b, &sum->channels[i], &o[i].topic);
		o[i].count = id < nt ? t[id].count : 0;
		o[i].min_ts = o[i].count ? t[id].min : BAG_TIME_NONE;
		o[i].max_ts = o[i].count ? t[id].max : INT64_MIN;
	}
	free(t);
	*out = o;
	*n = cnt;
	return BT_OK;
}

static bt_status bsm_read_msgdefs(struct bag_storage *s, struct bag_msgdef **out, size_t *n,
				  struct bt_error *err)
{
	(void)err;
	struct bsm *b = bsm(s);
	*out = NULL;
	*n = 0;
	const struct mcap_summary *sum = b->blank ? NULL : mcap_reader_summary(b->r);
	if (!sum || !sum->n_schemas)
		return BT_OK;
	struct bag_msgdef *d = bt_xcalloc(sum->n_schemas, sizeof *d);
	for (size_t i = 0; i < sum->n_schemas; i++) {
		const struct mcap_schema *sc = &sum->schemas[i];
		d[i].topic_type = bsm_strdup(sc->name);
		d[i].encoding = bsm_strdup(sc->encoding);
		d[i].encoded_message_definition =
			bt_xstrndup(sc->data.p ? (const char *)sc->data.p : "", sc->data.len);
		d[i].type_description_hash = bt_xstrdup("");
	}
	*out = d;
	*n = sum->n_schemas;
	return BT_OK;
}

/* The newest "rosbag2" Metadata record's serialized_metadata. */
static bt_status bsm_read_metadata(struct bag_storage *s, struct bag_metadata *md, bool *found,
				   struct bt_error *err)
{
	struct bsm *b = bsm(s);
	*found = false;
	const struct mcap_summary *sum = b->blank ? NULL : mcap_reader_summary(b->r);
	for (size_t i = sum ? sum->n_metadata : 0; i-- > 0;) {
		const struct mcap_metadata_index *mi = &sum->metadata[i];
		if (mi->name.len != 7 || memcmp(mi->name.p, "rosbag2", 7) != 0)
			continue;
		struct mcap_record rec;
		bt_status st = mcap_reader_record_at(b->r, mi->offset, &rec, err);
		if (st != BT_OK)
			return st;
		if (rec.opcode != MCAP_OP_METADATA)
			return bt_err_set(err, BT_ERR_FORMAT, "%s: the metadata index points at "
					  "no Metadata record (offset %" PRIu64 ")", b->path,
					  mi->offset);
		char *y = bsm_map_get(rec.u.metadata.metadata, "serialized_metadata");
		if (!y || !*y) {
			free(y);
			continue;
		}
		st = bag_metadata_from_yaml(y, strlen(y), md, err);
		free(y);
		if (st == BT_OK)
			*found = true;
		return st;
	}
	return BT_OK;
}

/* MCAP compresses chunks, never single messages. */
static bt_status bsm_peek_compressed(struct bag_storage *s, bool *yes, struct bt_error *err)
{
	(void)s, (void)err;
	*yes = false;
	return BT_OK;
}

/* Every record in file order, every chunk decompressed and its CRC (if
 * any) checked, through to the Footer and the closing magic. */
static bt_status bsm_check(struct bag_storage *s, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	if (b->blank)
		return BT_OK;
	bt_status st = mcap_reader_stream_begin(b->r, err);
	struct mcap_item it;
	bool end = false;
	while (st == BT_OK && !end)
		st = mcap_reader_next(b->r, &it, &end, err);
	if (st != BT_OK && err) {
		struct bt_error why = *err;
		bt_err_set(err, st, "%s: %s (bagtop reindex keeps every complete chunk)", b->path,
			   why.msg);
	}
	return st;
}

static int bsm_read_next(struct bag_storage *s, struct bag_storage_msg *m, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	if (b->blank)
		return 0;
	if (!b->reading) {
		if (mcap_reader_messages_begin(b->r, err) != BT_OK)
			return -1;
		b->reading = true;
	}
	struct mcap_message msg;
	bool end = false;
	if (mcap_reader_messages_next(b->r, &msg, &end, err) != BT_OK)
		return -1;
	if (end)
		return 0;
	int64_t t = msg.log_time > INT64_MAX ? INT64_MAX : (int64_t)msg.log_time;
	*m = (struct bag_storage_msg){msg.channel_id, t, msg.data.p, (size_t)msg.data.len};
	return 1;
}

/* ---- repair (reindex) ---- */

/* A string map as n key/value pairs kv[2i], kv[2i+1] (malloc'ed). */
static char **bsm_map_kv(struct mcap_map m, size_t *n)
{
	char **kv = NULL;
	size_t cap = 0;
	struct mcap_str k, v;
	*n = 0;
	while (mcap_map_next_str(&m, &k, &v)) {
		bt_xgrow((void **)&kv, &cap, 2 * *n + 2, sizeof *kv);
		kv[2 * *n] = bsm_strdup(k);
		kv[2 * *n + 1] = bsm_strdup(v);
		(*n)++;
	}
	return kv;
}

static void bsm_kv_free(char **kv, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++)
		free(kv[i]);
	free(kv);
}

/* State of one rebuild: old ids → new ones (0 = not seen). */
struct bsm_rebuild {
	struct mcap_writer *w;
	uint16_t *schema_map, *channel_map;
	uint64_t good_end;
	uint64_t messages;
};

/* Whether record `it` lies in the part recover found complete. */
static bool bsm_kept(const struct bsm_rebuild *rb, const struct mcap_item *it)
{
	return (it->in_chunk ? it->chunk_offset : it->offset) < rb->good_end;
}

static bt_status bsm_copy_def(struct bsm_rebuild *rb, const struct mcap_record *rec,
			      struct bt_error *err)
{
	if (rec->opcode == MCAP_OP_SCHEMA) {
		const struct mcap_schema *sc = &rec->u.schema;
		if (rb->schema_map[sc->id] || sc->id == 0)
			return BT_OK;
		char *name = bsm_strdup(sc->name), *enc = bsm_strdup(sc->encoding);
		bt_status st = mcap_writer_add_schema(rb->w, name, enc, sc->data.p,
						      (size_t)sc->data.len, &rb->schema_map[sc->id],
						      err);
		free(name);
		free(enc);
		return st;
	}
	const struct mcap_channel *c = &rec->u.channel;
	if (rb->channel_map[c->id])
		return BT_OK;
	size_t n;
	char **kv = bsm_map_kv(c->metadata, &n);
	char *topic = bsm_strdup(c->topic), *enc = bsm_strdup(c->message_encoding);
	bt_status st = mcap_writer_add_channel(rb->w, topic, enc, rb->schema_map[c->schema_id],
					       (const char *const *)kv, n, &rb->channel_map[c->id],
					       err);
	free(topic);
	free(enc);
	bsm_kv_free(kv, n);
	return st;
}

static bt_status bsm_copy_record(struct bsm_rebuild *rb, const struct mcap_record *rec,
				 struct bt_error *err)
{
	switch (rec->opcode) {
	case MCAP_OP_SCHEMA:
	case MCAP_OP_CHANNEL:
		return bsm_copy_def(rb, rec, err);
	case MCAP_OP_MESSAGE: {
		const struct mcap_message *m = &rec->u.message;
		uint16_t ch = rb->channel_map[m->channel_id];
		if (!ch)
			return BT_OK; /* its channel is in no complete record: not readable */
		rb->messages++;
		return mcap_writer_write(rb->w, ch, m->sequence, m->log_time, m->publish_time,
					 m->data.p, (size_t)m->data.len, err);
	}
	case MCAP_OP_METADATA: {
		size_t n;
		char **kv = bsm_map_kv(rec->u.metadata.metadata, &n);
		char *name = bsm_strdup(rec->u.metadata.name);
		bt_status st = mcap_writer_add_metadata(rb->w, name, (const char *const *)kv, n, err);
		free(name);
		bsm_kv_free(kv, n);
		return st;
	}
	case MCAP_OP_ATTACHMENT: {
		const struct mcap_attachment *a = &rec->u.attachment;
		char *name = bsm_strdup(a->name), *type = bsm_strdup(a->media_type);
		bt_status st = mcap_writer_add_attachment(rb->w, a->log_time, a->create_time, name,
							  type, a->data.p, (size_t)a->data.len, err);
		free(name);
		free(type);
		return st;
	}
	default:
		return BT_OK; /* chunks, indexes, statistics: written anew */
	}
}

/* The writer options the damaged file was written with, as far as its
 * first records say: its chunks' compression, or no chunking. */
static bt_status bsm_sniff(struct bsm *b, uint64_t good_end, struct mcap_writer_options *o,
			   char **profile, char **library, struct bt_error *err)
{
	mcap_writer_options_init(o);
	bt_status st = mcap_reader_stream_begin(b->r, err);
	struct mcap_item it;
	bool end = false;
	while (st == BT_OK && mcap_reader_next(b->r, &it, &end, NULL) == BT_OK && !end &&
	       it.offset < good_end) {
		if (it.rec.opcode == MCAP_OP_HEADER && !*profile) {
			*profile = bsm_strdup(it.rec.u.header.profile);
			*library = bsm_strdup(it.rec.u.header.library);
		} else if (it.rec.opcode == MCAP_OP_CHUNK && !it.in_chunk) {
			struct mcap_str c = it.rec.u.chunk.compression;
			o->compression = c.len == 4 && !memcmp(c.p, "zstd", 4) ? MCAP_COMPRESSION_ZSTD
					 : c.len == 3 && !memcmp(c.p, "lz4", 3) ? MCAP_COMPRESSION_LZ4
					 : MCAP_COMPRESSION_NONE;
			break;
		} else if (it.rec.opcode == MCAP_OP_MESSAGE && !it.in_chunk) {
			o->no_chunking = true;
			break;
		}
	}
	return st;
}

/* Writes every record before rb->good_end again into rb->w. */
static bt_status bsm_rebuild(struct bsm *b, struct bsm_rebuild *rb, struct bt_error *err)
{
	bt_status st = mcap_reader_stream_begin(b->r, err);
	struct mcap_item it;
	bool end = false;
	/* the walk ends at the damage recover found: its error is expected */
	while (st == BT_OK && mcap_reader_next(b->r, &it, &end, NULL) == BT_OK && !end &&
	       bsm_kept(rb, &it))
		st = bsm_copy_record(rb, &it.rec, err);
	return st;
}

/* The summary mcap_writer_close wrote, on disk before the rename. */
static bt_status bsm_fsync_file(const char *path, struct bt_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bt_err_errno(err, errno, "%s: cannot open", path);
	bt_status st = fsync(fd) == 0 ? BT_OK : bt_err_errno(err, errno, "%s: fsync", path);
	close(fd);
	return st;
}

/* Rebuilds a file that ends without a valid footer and summary beside it,
 * syncs it and renames it over the original; then reads the new one. */
static bt_status bsm_repair(struct bsm *b, struct bt_error *err)
{
	struct mcap_recovery rec;
	bt_status st = mcap_reader_recover(b->r, &rec, err);
	if (st != BT_OK || rec.complete)
		return st;
	/* A file with a valid footer and summary is no unfinished one: it is
	 * damaged inside, and check names the damage; rebuilding it would drop
	 * every record after it. */
	st = mcap_reader_index(b->r, err);
	if (st != BT_OK || mcap_reader_summary(b->r)->from_summary)
		return st;
	struct mcap_writer_options o;
	char *profile = NULL, *library = NULL;
	st = bsm_sniff(b, rec.good_end, &o, &profile, &library, err);
	char *tmp = bt_xasprintf("%s%s", b->path, BSM_REPAIR_SUFFIX);
	struct bsm_rebuild rb = {.good_end = rec.good_end};
	rb.schema_map = bt_xcalloc(65536, sizeof *rb.schema_map);
	rb.channel_map = bt_xcalloc(65536, sizeof *rb.channel_map);
	(void)unlink(tmp); /* a rebuild killed before: ours, incomplete */
	if (st == BT_OK)
		st = mcap_writer_open(&rb.w, tmp, &o, profile ? profile : "ros2",
				      library ? library : "bagtop " BAGTOP_VERSION, err);
	if (st == BT_OK)
		st = bsm_rebuild(b, &rb, err);
	if (st == BT_OK)
		st = mcap_writer_flush(rb.w, true, err);
	if (rb.w) {
		bt_status cs = mcap_writer_close(rb.w, st == BT_OK ? err : NULL);
		st = st == BT_OK ? cs : st;
	}
	if (st == BT_OK)
		st = bsm_fsync_file(tmp, err);
	if (st == BT_OK && rename(tmp, b->path) != 0)
		st = bt_err_errno(err, errno, "%s: cannot replace it with the repaired file", b->path);
	if (st == BT_OK)
		st = bt_fs_fsync_dir_of(b->path, err);
	if (st != BT_OK)
		(void)unlink(tmp);
	else
		bt_log_info("%s: ended without a footer (%s); rebuilt with the %" PRIu64
			    " messages of its complete records", b->path, rec.why.msg, rb.messages);
	free(tmp);
	free(profile);
	free(library);
	free(rb.schema_map);
	free(rb.channel_map);
	if (st != BT_OK)
		return st;
	mcap_reader_close(b->r);
	b->r = NULL;
	return mcap_reader_open(&b->r, b->path, err);
}

static const char *const bsm_side_suffixes[] = {BSM_REPAIR_SUFFIX, NULL};

const struct bag_storage_ops bag_storage_mcap_ops = {
	.identifier = "mcap",
	.extension = ".mcap",
	.min_split_size = BSM_MIN_SPLIT,
	.append_only = true,
	.side_suffixes = bsm_side_suffixes,
	.check_options = bsm_check_options,
	.create = bsm_create,
	.open = bsm_open,
	.close = bsm_close,
	.discard = bsm_discard,
	.create_topic = bsm_create_topic,
	.update_topic_qos = bsm_update_topic_qos,
	.write_metadata = bsm_write_metadata,
	.batch_begin = bsm_batch_begin,
	.write = bsm_write,
	.batch_commit = bsm_batch_commit,
	.batch_abort = bsm_batch_abort,
	.flush = bsm_flush,
	.size = bsm_size,
	.growth_bound = bsm_growth_bound,
	.version = bsm_version,
	.read_topics = bsm_read_topics,
	.read_msgdefs = bsm_read_msgdefs,
	.read_metadata = bsm_read_metadata,
	.peek_compressed = bsm_peek_compressed,
	.check = bsm_check,
	.read_next = bsm_read_next,
};
