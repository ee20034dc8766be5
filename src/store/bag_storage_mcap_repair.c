/* DESIGN: the repair `bagtop reindex` makes of an MCAP file that ends
 * without a footer (killed recorder, full disk): the data section is
 * walked as mcap_reader_recover does, and every record up to the end of
 * the last complete one (whole chunks only) is written again, through
 * mcap_writer, into "<file>.reindex" with a new summary: schemas and
 * channels (ids renumbered in order), messages with their times and
 * sequence, metadata and attachments; chunk compression as the file's
 * first chunk had it. The new file is synced, renamed over the old one and
 * the directory synced: the file is never left half-rewritten. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "mcap_writer.h"
#include "store__mcap_repair.h"

char *bag_mcap_strdup(struct mcap_str s)
{
	return bt_xstrndup(s.p ? s.p : "", s.len);
}

/* A string map as n key/value pairs kv[2i], kv[2i+1] (malloc'ed). */
static char **mr_map_kv(struct mcap_map m, size_t *n)
{
	char **kv = NULL;
	size_t cap = 0;
	struct mcap_str k, v;
	*n = 0;
	while (mcap_map_next_str(&m, &k, &v)) {
		bt_xgrow((void **)&kv, &cap, 2 * *n + 2, sizeof *kv);
		kv[2 * *n] = bag_mcap_strdup(k);
		kv[2 * *n + 1] = bag_mcap_strdup(v);
		(*n)++;
	}
	return kv;
}

static void mr_kv_free(char **kv, size_t n)
{
	for (size_t i = 0; i < 2 * n; i++)
		free(kv[i]);
	free(kv);
}

/* State of one rebuild: old ids → new ones (0 = not seen). */
struct mr_rebuild {
	struct mcap_writer *w;
	uint16_t *schema_map, *channel_map;
	uint64_t good_end;
	uint64_t messages;
};

/* Whether record `it` lies in the part recover found complete. */
static bool mr_kept(const struct mr_rebuild *rb, const struct mcap_item *it)
{
	return (it->in_chunk ? it->chunk_offset : it->offset) < rb->good_end;
}

static bt_status mr_copy_def(struct mr_rebuild *rb, const struct mcap_record *rec,
			     struct bt_error *err)
{
	if (rec->opcode == MCAP_OP_SCHEMA) {
		const struct mcap_schema *sc = &rec->u.schema;
		if (rb->schema_map[sc->id] || sc->id == 0)
			return BT_OK;
		char *name = bag_mcap_strdup(sc->name), *enc = bag_mcap_strdup(sc->encoding);
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
	char **kv = mr_map_kv(c->metadata, &n);
	char *topic = bag_mcap_strdup(c->topic), *enc = bag_mcap_strdup(c->message_encoding);
	bt_status st = mcap_writer_add_channel(rb->w, topic, enc, rb->schema_map[c->schema_id],
					       (const char *const *)kv, n, &rb->channel_map[c->id],
					       err);
	free(topic);
	free(enc);
	mr_kv_free(kv, n);
	return st;
}

static bt_status mr_copy_record(struct mr_rebuild *rb, const struct mcap_record *rec,
				struct bt_error *err)
{
	switch (rec->opcode) {
	case MCAP_OP_SCHEMA:
	case MCAP_OP_CHANNEL:
		return mr_copy_def(rb, rec, err);
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
		char **kv = mr_map_kv(rec->u.metadata.metadata, &n);
		char *name = bag_mcap_strdup(rec->u.metadata.name);
		bt_status st = mcap_writer_add_metadata(rb->w, name, (const char *const *)kv, n, err);
		free(name);
		mr_kv_free(kv, n);
		return st;
	}
	case MCAP_OP_ATTACHMENT: {
		const struct mcap_attachment *a = &rec->u.attachment;
		char *name = bag_mcap_strdup(a->name), *type = bag_mcap_strdup(a->media_type);
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
static bt_status mr_sniff(struct mcap_reader *r, uint64_t good_end, struct mcap_writer_options *o,
			  char **profile, char **library, struct bt_error *err)
{
	mcap_writer_options_init(o);
	bt_status st = mcap_reader_stream_begin(r, err);
	struct mcap_item it;
	bool end = false;
	while (st == BT_OK && mcap_reader_next(r, &it, &end, NULL) == BT_OK && !end &&
	       it.offset < good_end) {
		if (it.rec.opcode == MCAP_OP_HEADER && !*profile) {
			*profile = bag_mcap_strdup(it.rec.u.header.profile);
			*library = bag_mcap_strdup(it.rec.u.header.library);
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
static bt_status mr_rebuild(struct mcap_reader *r, struct mr_rebuild *rb, struct bt_error *err)
{
	bt_status st = mcap_reader_stream_begin(r, err);
	struct mcap_item it;
	bool end = false;
	/* the walk ends at the damage recover found: its error is expected */
	while (st == BT_OK && mcap_reader_next(r, &it, &end, NULL) == BT_OK && !end &&
	       mr_kept(rb, &it))
		st = mr_copy_record(rb, &it.rec, err);
	return st;
}

/* The summary mcap_writer_close wrote, on disk before the rename. */
static bt_status mr_fsync_file(const char *path, struct bt_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return bt_err_errno(err, errno, "%s: cannot open", path);
	bt_status st = fsync(fd) == 0 ? BT_OK : bt_err_errno(err, errno, "%s: fsync", path);
	close(fd);
	return st;
}

/* Writes the complete records of the file `r` reads (up to rec->good_end)
 * into a new file `tmp`, synced; *messages: how many messages it holds. */
static bt_status mr_write(struct mcap_reader *r, const struct mcap_recovery *rec,
			  const char *tmp, uint64_t *messages, struct bt_error *err)
{
	struct mcap_writer_options o;
	char *profile = NULL, *library = NULL;
	bt_status st = mr_sniff(r, rec->good_end, &o, &profile, &library, err);
	struct mr_rebuild rb = {.good_end = rec->good_end};
	rb.schema_map = bt_xcalloc(65536, sizeof *rb.schema_map);
	rb.channel_map = bt_xcalloc(65536, sizeof *rb.channel_map);
	if (st == BT_OK)
		st = mcap_writer_open(&rb.w, tmp, &o, profile ? profile : "ros2",
				      library ? library : "bagtop", err);
	if (st == BT_OK)
		st = mr_rebuild(r, &rb, err);
	if (st == BT_OK)
		st = mcap_writer_flush(rb.w, true, err);
	if (rb.w) {
		bt_status cs = mcap_writer_close(rb.w, st == BT_OK ? err : NULL);
		st = st == BT_OK ? cs : st;
	}
	if (st == BT_OK)
		st = mr_fsync_file(tmp, err); /* the summary close wrote */
	*messages = rb.messages;
	free(profile);
	free(library);
	free(rb.schema_map);
	free(rb.channel_map);
	return st;
}

bt_status bag_mcap_repair(const char *path, struct mcap_reader **r, struct bt_error *err)
{
	struct mcap_recovery rec;
	bt_status st = mcap_reader_recover(*r, &rec, err);
	if (st != BT_OK || rec.complete)
		return st;
	/* A file with a valid footer and summary is no unfinished one: it is
	 * damaged inside, and check names the damage; rebuilding it would drop
	 * every record after it. */
	st = mcap_reader_index(*r, err);
	if (st != BT_OK || mcap_reader_summary(*r)->from_summary)
		return st;
	char *tmp = bt_xasprintf("%s%s", path, BAG_MCAP_REPAIR_SUFFIX);
	(void)unlink(tmp); /* a rebuild killed before: ours, incomplete */
	uint64_t messages = 0;
	st = mr_write(*r, &rec, tmp, &messages, err);
	if (st == BT_OK && rename(tmp, path) != 0)
		st = bt_err_errno(err, errno, "%s: cannot replace it with the repaired file", path);
	if (st == BT_OK)
		st = bt_fs_fsync_dir_of(path, err);
	if (st != BT_OK)
		(void)unlink(tmp);
	else
		bt_log_info("%s: ended without a footer (%s); rebuilt with the %" PRIu64
			    " messages of its complete records", path, rec.why.msg, messages);
	free(tmp);
	if (st != BT_OK)
		return st;
	mcap_reader_close(*r);
	*r = NULL;
	return mcap_reader_open(r, path, err);
}
