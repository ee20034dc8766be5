/* DESIGN: the mcap backend — a bag file as rosbag2's rosbag2_storage_mcap
 * plugin writes it (mcap_storage.cpp, Jazzy): Header profile "ros2", one
 * Schema per type (name = type, encoding and data = the definition, or
 * "unknown" and empty without one, as rosbag2's empty definition), one
 * Channel per topic (message encoding "cdr", metadata offered_qos_profiles
 * and topic_type_hash), Messages with sequence 0, log_time = the receive
 * time and publish_time = the send time (the publisher's DDS source
 * timestamp; the receive time when not known, as rosbag2), a Metadata
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
 * A written Schema or Channel cannot change, so they wait (the writer's
 * late_definitions) until just before the chunk that holds their first
 * messages: a definition learned by then (update_msgdef; a plain DDS
 * type's XTypes type information comes a round trip after its topic)
 * still reaches this file, one learned later the files created after it.
 * A channel keeps the QoS it was created with (append_only).
 *
 * Reading goes through mcap_reader: the summary when there is one, a scan
 * otherwise. Topic ids are channel ids. RECOVER (reindex) rebuilds a file
 * that ends without a footer (store__mcap_repair.h). */
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
#include "bt_mem.h"
#include "bt_time.h"
#include "mcap_doctor.h"
#include "mcap_reader.h"
#include "mcap_writer.h"
#include "store__mcap_repair.h"
#include "store__storage.h"

#ifndef BAGTOP_VERSION
#define BAGTOP_VERSION "0"
#endif

/* At most this long between a message's commit and its chunk on disk. */
#define BSM_FLUSH_NS INT64_C(1000000000)
/* rosbag2's get_minimum_split_file_size for MCAP. */
#define BSM_MIN_SPLIT 1024u

struct bsm_schema {
	char *type;
	uint16_t id;
	bool defined; /* its record has a definition (or will, while it waits) */
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
	o->write_behind = so->write_behind;
	o->late_definitions = true;
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

/* A file that does not start with the magic is no MCAP file at all (a
 * truncated one still does): an error naming it, as sqlite's "not a
 * database" is, rather than a file of no messages. */
static bt_status bsm_magic(struct bsm *b, struct bt_error *err)
{
	struct bt_error why;
	bt_status st = mcap_reader_stream_begin(b->r, &why);
	if (st != BT_OK)
		return bt_err_set(err, st, "%s: %s", b->path, why.msg);
	return BT_OK;
}

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
	if (st == BT_OK && mode == BAG_STORAGE_READ)
		st = bsm_magic(b, err); /* RECOVER: the repair says what it finds */
	if (st == BT_OK && mode == BAG_STORAGE_RECOVER)
		st = bag_mcap_repair(path, &b->r, err);
	if (st == BT_OK)
		st = mcap_reader_index(b->r, err);
	if (st != BT_OK) {
		bsm_free(b);
		return st;
	}
	*out = &b->base;
	return BT_OK;
}

/* No fsync, as with sqlite3's default (synchronous OFF) and rosbag2's
 * plugin (fclose): a process that dies keeps what reached the kernel; an
 * fdatasync here made every close (every split) wait for the disk. */
static bt_status bsm_close(struct bag_storage *s, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	bt_status st = b->w ? mcap_writer_close(b->w, err) : BT_OK;
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

static struct bsm_schema *bsm_schema_find(const struct bsm *b, const char *type)
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
	bool defined = def && def->encoding && *def->encoding;
	const char *enc = defined ? def->encoding : "unknown";
	const char *text = def && def->encoded_message_definition ? def->encoded_message_definition
								   : "";
	bt_status st = mcap_writer_add_schema(b->w, type, enc, text, strlen(text), id, err);
	if (st != BT_OK)
		return st;
	bt_xgrow((void **)&b->schemas, &b->cap_schemas, b->n_schemas + 1, sizeof *b->schemas);
	b->schemas[b->n_schemas++] = (struct bsm_schema){bt_xstrdup(type), *id, defined};
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

/* The Schema of d's type, while it waits to be written (see the top);
 * once written without one, *missed. */
static bt_status bsm_update_msgdef(struct bag_storage *s, const struct bag_msgdef *d,
				   bool *missed, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	struct bsm_schema *have = bsm_schema_find(b, d->topic_type);
	*missed = false;
	if (have == NULL || d->encoding == NULL || *d->encoding == '\0')
		return BT_OK;
	const char *text = d->encoded_message_definition ? d->encoded_message_definition : "";
	bool updated = false;
	struct bt_error why;
	bt_status st = mcap_writer_update_schema(b->w, have->id, d->encoding, text, strlen(text),
						 &updated, &why);
	if (st != BT_OK)
		return bt_err_set(err, st, "%s: %s", b->path, why.msg);
	if (updated)
		have->defined = true;
	*missed = !have->defined;
	return BT_OK;
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

/* The batch's message data stays valid until its commit or abort (the
 * storage contract): the writer borrows it, and a chunk that fills
 * during the batch goes to the kernel from where the messages are. */
static bt_status bsm_batch_begin(struct bag_storage *s, struct bt_error *err)
{
	(void)err;
	mcap_writer_borrow_begin(bsm(s)->w);
	return BT_OK;
}

static bt_status bsm_write(struct bag_storage *s, int64_t topic_id, int64_t timestamp,
			   int64_t send_time, const void *data, size_t len, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	if (topic_id <= 0 || topic_id > b->n_channels)
		return bt_err_set(err, BT_ERR_USAGE, "%s: no topic %" PRId64, b->path, topic_id);
	if (len > MCAP_READER_LIMIT - 1024) /* a chunk this large is refused by readers */
		return bt_err_set(err, BT_ERR_TOOBIG, "%s: a %zu-byte message is too large for "
				  "MCAP", b->path, len);
	uint64_t t = timestamp < 0 ? 0 : (uint64_t)timestamp;
	uint64_t sent = send_time > 0 ? (uint64_t)send_time : t; /* rosbag2: recv if unknown */
	bt_status st = mcap_writer_write(b->w, (uint16_t)topic_id, 0, t, sent, data, len, err);
	if (st == BT_OK)
		b->unflushed = true;
	return st;
}

static bt_status bsm_flush_now(struct bsm *b, struct bt_error *err)
{
	bt_status st = mcap_writer_flush(b->w, false, err);
	if (st == BT_OK) {
		b->unflushed = false;
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
	mcap_writer_borrow_end(bsm(s)->w);
	return bsm_flush_due(bsm(s), err);
}

static bt_status bsm_flush(struct bag_storage *s, struct bt_error *err)
{
	return bsm_flush_due(bsm(s), err);
}

/* Nothing to undo: an append-only file keeps what was written (the
 * borrowed data copied in, as the caller takes it back). */
static void bsm_batch_abort(struct bag_storage *s)
{
	mcap_writer_borrow_end(bsm(s)->w);
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
		*bytes += cb + 16 * mcap_writer_chunk_messages(b->w) + 15u * b->n_channels + 128;
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

/* The value of `key` in a string map, or NULL. */
static char *bsm_map_get(struct mcap_map m, const char *key)
{
	struct mcap_str k, v;
	size_t kl = strlen(key);
	while (mcap_map_next_str(&m, &k, &v))
		if (k.len == kl && !memcmp(k.p, key, kl))
			return bag_mcap_strdup(v);
	return NULL;
}

/* A channel as rosbag2 reads it back (read_metadata): type = its schema's
 * name, QoS from offered_qos_profiles (unreadable ones left out, as
 * rosbag2 reads such a bag), type_description_hash = topic_type_hash. */
static void bsm_topic_of(const struct bsm *b, const struct mcap_channel *c, struct bag_topic *t)
{
	const struct mcap_schema *sc = c->schema_id ? mcap_reader_schema(b->r, c->schema_id) : NULL;
	memset(t, 0, sizeof *t);
	t->name = bag_mcap_strdup(c->topic);
	t->type = sc ? bag_mcap_strdup(sc->name) : bt_xstrdup("");
	t->serialization_format = bag_mcap_strdup(c->message_encoding);
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

/* Counts a message of channel `id` at log_time `lt` in *t (*n ids, *cap). */
static void bsm_tally_one(struct bsm_tally **t, size_t *n, size_t *cap, uint16_t id, uint64_t lt)
{
	if (id >= *n) {
		bt_xgrow((void **)t, cap, (size_t)id + 1, sizeof **t);
		memset(*t + *n, 0, ((size_t)id + 1 - *n) * sizeof **t);
		*n = (size_t)id + 1;
	}
	struct bsm_tally *c = &(*t)[id];
	int64_t ts = lt > INT64_MAX ? INT64_MAX : (int64_t)lt;
	if (!c->count || ts < c->min)
		c->min = ts;
	if (!c->count || ts > c->max)
		c->max = ts;
	c->count++;
}

/* The tally from the summary: every chunk's Message Index records (16
 * bytes a message, no chunk read). *used false when the file does not
 * index every message that way (no summary, no statistics, chunks or
 * message indexes missing, messages outside chunks, definitions only in
 * the chunks): the caller reads the messages then. */
static bt_status bsm_tally_indexed(struct bsm *b, struct bsm_tally **t, size_t *n, size_t *cap,
				   bool *used, struct bt_error *err)
{
	const struct mcap_summary *sum = mcap_reader_summary(b->r);
	*used = false;
	/* The summary repeats every schema and channel (else the chunks hold
	 * some: the read meets them) and indexes every chunk. */
	const struct mcap_statistics *stat = &sum->statistics;
	if (!sum->from_summary || !sum->has_statistics || stat->chunk_count != sum->n_chunks ||
	    stat->schema_count != sum->n_schemas || stat->channel_count != sum->n_channels)
		return BT_OK;
	uint64_t seen = 0;
	for (size_t i = 0; i < sum->n_chunks; i++) {
		const struct mcap_chunk_ref *c = &sum->chunks[i];
		uint64_t at = c->offset + c->length, end = at + c->mi_length;
		while (at < end) {
			struct mcap_record rec;
			bt_status st = mcap_reader_record_at(b->r, at, &rec, err);
			if (st != BT_OK)
				return st;
			if (rec.opcode != MCAP_OP_MESSAGE_INDEX)
				return BT_OK; /* not what the index says: read the messages */
			const struct mcap_message_index *mi = &rec.u.message_index;
			for (uint64_t k = 0; k < mi->count; k++)
				bsm_tally_one(t, n, cap, mi->channel_id,
					      mcap_get_u64(mi->entries + 16 * k));
			seen += mi->count;
			at += MCAP_RECORD_PREFIX + rec.length;
		}
	}
	*used = seen == stat->message_count;
	return BT_OK;
}

/* Count and time range by channel id (*t[id], *n ids): from the message
 * indexes when they cover every message, else one pass over the messages
 * (first, as the pass may meet schemas and channels the summary did not
 * repeat). */
static bt_status bsm_tally(struct bsm *b, struct bsm_tally **t, size_t *n, struct bt_error *err)
{
	size_t cap = 0;
	*t = NULL;
	*n = 0;
	b->reading = false;
	bool used = false;
	bt_status st = bsm_tally_indexed(b, t, n, &cap, &used, err);
	if (st != BT_OK || used)
		return st;
	if (*t)
		memset(*t, 0, *n * sizeof **t);
	st = mcap_reader_messages_begin(b->r, err);
	struct mcap_message m;
	bool end = false;
	while (st == BT_OK && (st = mcap_reader_messages_next(b->r, &m, &end, err)) == BT_OK && !end)
		bsm_tally_one(t, n, &cap, m.channel_id, m.log_time);
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
		d[i].topic_type = bag_mcap_strdup(sc->name);
		d[i].encoding = bag_mcap_strdup(sc->encoding);
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
 * any) checked, through to the Footer and the closing magic; the same pass
 * holds the file to the specification's rules for *interop (mcap_doctor). */
static bt_status bsm_check(struct bag_storage *s, char **interop, struct bt_error *err)
{
	struct bsm *b = bsm(s);
	if (b->blank)
		return BT_OK;
	struct mcap_doctor *doc = interop ? mcap_doctor_new() : NULL;
	if (interop && !doc)
		return bt_err_set(err, BT_ERR_NOMEM, "%s: out of memory", b->path);
	bt_status st = mcap_reader_stream_begin(b->r, err);
	struct mcap_item it;
	bool end = false, healthy = true;
	char why[512];
	while (st == BT_OK && !end) {
		st = mcap_reader_next(b->r, &it, &end, err);
		if (st == BT_OK && !end && doc && healthy)
			healthy = mcap_doctor_feed(doc, &it, why, sizeof why);
	}
	mcap_doctor_free(doc);
	if (st != BT_OK && err) {
		struct bt_error e = *err;
		bt_err_set(err, st, "%s: %s (bagtop reindex keeps every complete chunk)", b->path,
			   e.msg);
	} else if (st == BT_OK && !healthy) {
		*interop = bt_xasprintf("%s: %s, against the MCAP specification: other readers "
					"(Foxglove's among them) may refuse or misread the file; "
					"bagtop reads it, and 'bagtop convert' writes a copy that "
					"follows it", b->path, why);
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
	int64_t sent = msg.publish_time > INT64_MAX ? INT64_MAX : (int64_t)msg.publish_time;
	*m = (struct bag_storage_msg){msg.channel_id, t, msg.data.p, (size_t)msg.data.len, sent};
	return 1;
}

static const char *const bsm_side_suffixes[] = {BAG_MCAP_REPAIR_SUFFIX, NULL};

const struct bag_storage_ops bag_storage_mcap_ops = {
	.identifier = "mcap",
	.extension = ".mcap",
	.magic = mcap_magic,
	.magic_len = MCAP_MAGIC_LEN,
	.min_split_size = BSM_MIN_SPLIT,
	.append_only = true,
	.side_suffixes = bsm_side_suffixes,
	.check_options = bsm_check_options,
	.create = bsm_create,
	.open = bsm_open,
	.close = bsm_close,
	.discard = bsm_discard,
	.create_topic = bsm_create_topic,
	.update_msgdef = bsm_update_msgdef,
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
