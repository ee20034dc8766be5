/* bag_storage — one storage file of a bag behind one interface, the shape
 * of rosbag2's storage plugins (rosbag2_storage's ReadWriteInterface): a
 * backend is an ops table with an identifier (metadata.yaml's
 * storage_identifier) and a file extension; the writer, reader, check and
 * reindex call only these functions, never a backend directly. Adding a
 * backend is one file defining a `const struct bag_storage_ops` plus its
 * line in the registry (bag_storage.c).
 *
 * Contract for every backend:
 * - A struct bag_storage is one open file, used by one thread at a time
 *   (the writer's, or the reader's); backends keep no global state, so
 *   different files may be used from different threads at once.
 * - Memory: what a read op returns in *out is the caller's (free it with
 *   the matching bag_storage_*_free); a message from bag_storage_read_next
 *   is the backend's and stays valid until the next call on that storage.
 *   Pointers passed to write ops need only live for the call.
 * - Errors: every op returns BT_OK or sets *err (err may be NULL) with one
 *   line naming the file. BT_ERR_FULL = out of disk space; BT_ERR_TOOBIG
 *   from bag_storage_write only: that message was not stored, the batch
 *   goes on (the caller drops and counts it).
 * - FILE-mode compression (".zstd" after the extension) is not a backend:
 *   the whole file is compressed after close and inflated before open by
 *   the caller; backends only ever see plain files. */
#ifndef BAG_STORAGE_H
#define BAG_STORAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_compat.h"
#include "bag_types.h"
#include "bt_status.h"

/* The suffix FILE-mode compression adds to a closed storage file. */
#define BAG_STORAGE_FILE_COMPRESSED ".zstd"

/* How a file is opened for reading. */
enum bag_storage_mode {
	BAG_STORAGE_READ,
	/* Read-write first, so whatever a crashed writer left half done is
	 * undone (reindex); a file its writer died creating opens with
	 * version 0, "blank". */
	BAG_STORAGE_RECOVER,
};

/* What a writer asks of a new file. */
struct bag_storage_options {
	const char *ros_distro;  /* recorded in the file where the format has room ("" ok) */
	enum bag_compat compat;  /* the distro layout (bag_compat.h); 0 = Jazzy */
	uint64_t max_file_size;  /* the split size, 0 = never: a sizing hint */
	const char *preset;      /* NULL or "" = the backend's default */
	/* Backend settings as key/value pairs, applied over the preset;
	 * sqlite3 knows journal_mode and synchronous. Unknown keys are a
	 * usage error naming the key (bag_storage_check_options). */
	const struct bag_kv *config;
	size_t n_config;
	bool write_behind; /* bag_writer_options' (a backend may ignore it) */
};

/* A topic of a file as read back, with its figures. */
struct bag_storage_topic {
	int64_t id; /* the file's own id for it (what bag_storage_msg.topic_id says) */
	struct bag_topic topic;
	uint64_t count;
	int64_t min_ts, max_ts; /* BAG_TIME_NONE / INT64_MIN when count is 0 */
};

/* A message as read back; data owned by the storage (see above). */
struct bag_storage_msg {
	int64_t topic_id;
	int64_t timestamp;
	const uint8_t *data;
	size_t len;
	int64_t send_time; /* as bag_message's; 0 where the format keeps none */
};

struct bag_storage;

/* The ops table of a backend. Every op is required unless it says it is
 * optional. */
struct bag_storage_ops {
	const char *identifier;    /* metadata.yaml storage_identifier: "sqlite3" */
	const char *extension;     /* of its files, with the dot: ".db3" */
	/* The bytes its files start with, to know a file named freely (a
	 * file created but not yet written may be empty). */
	const unsigned char *magic;
	size_t magic_len;
	uint64_t min_split_size;   /* smallest max_file_size it accepts; 0 = any */
	/* An append-only format (mcap): what write() took stays in the file
	 * (batch_abort takes nothing back, though a commit is still durable
	 * for everything before it), and a topic's QoS is fixed when the
	 * topic is created (update_topic_qos reaches only the metadata the
	 * writer records: metadata.yaml and write_metadata). */
	bool append_only;
	/* Files beside a storage file that belong to it (SQLite's journals):
	 * suffixes of its path, NULL-terminated. Removed and moved with it. */
	const char *const *side_suffixes;

	/* Validates options before anything is created. */
	bt_status (*check_options)(const struct bag_storage_options *o, struct bt_error *err);
	/* Creates a new file (BT_ERR_EXISTS if present), ready for topics. */
	bt_status (*create)(const char *path, const struct bag_storage_options *o,
			    struct bag_storage **out, struct bt_error *err);
	/* Opens an existing file to read. */
	bt_status (*open)(const char *path, enum bag_storage_mode mode, struct bag_storage **out,
			  struct bt_error *err);
	/* Finishes a written file (indexes, footers) and frees it; a read one
	 * is just freed. After an error the file is freed all the same. */
	bt_status (*close)(struct bag_storage *s, struct bt_error *err);
	/* Frees without finishing anything beyond what is committed (error paths). */
	void (*discard)(struct bag_storage *s);

	/* ---- writing ---- */
	/* A topic of this file; `def` is the definition of its type when this
	 * file has none yet (NULL otherwise). *id: the file's id for it. */
	bt_status (*create_topic)(struct bag_storage *s, const struct bag_topic *t,
				  const struct bag_msgdef *def, int64_t *id, struct bt_error *err);
	/* Replaces the encoding and text of the definition row of type
	 * d->topic_type (a definition learned late); none there: nothing to
	 * do. *missed: true when the file already holds that type without a
	 * definition and cannot take one any more (mcap: its Schema record is
	 * written), so only files created later carry it. NULL: the format
	 * cannot (files created later carry it). */
	bt_status (*update_msgdef)(struct bag_storage *s, const struct bag_msgdef *d,
				   bool *missed, struct bt_error *err);
	/* Rewrites the QoS profiles of topic `id`, durably now (a no-op when
	 * append_only). */
	bt_status (*update_topic_qos)(struct bag_storage *s, int64_t id, const struct bag_qos *q,
				      size_t n, struct bt_error *err);
	/* Records the bag's metadata in the file (rosbag2's metadata row or
	 * record); each call adds the newest. */
	bt_status (*write_metadata)(struct bag_storage *s, const struct bag_metadata *md,
				    struct bt_error *err);
	/* A batch is the unit of commit: messages written between begin and
	 * commit become durable (and visible to a reader) together, or none
	 * do (abort, or a crash before commit; see append_only). The data
	 * given to write stays valid and unchanged until the batch's commit
	 * or abort returns: a backend may point at it until then (mcap does,
	 * to write a chunk without copying its messages). */
	bt_status (*batch_begin)(struct bag_storage *s, struct bt_error *err);
	/* send_time: bag_message's (0: not known); a format without a place
	 * for it drops it. */
	bt_status (*write)(struct bag_storage *s, int64_t topic_id, int64_t timestamp,
			   int64_t send_time, const void *data, size_t len,
			   struct bt_error *err);
	bt_status (*batch_commit)(struct bag_storage *s, struct bt_error *err);
	void (*batch_abort)(struct bag_storage *s); /* no-op outside a batch */
	/* Outside a batch, while no messages arrive: makes durable what a
	 * backend keeps buffered past its commits (mcap: the open chunk, once
	 * it waits a second); a no-op for one whose commit is durable. */
	bt_status (*flush)(struct bag_storage *s, struct bt_error *err);
	/* The file's size as the split rule counts it (rosbag2's measure). */
	bt_status (*size)(struct bag_storage *s, uint64_t *bytes, struct bt_error *err);
	/* At most how much writing a message of `len` bytes grows `size`:
	 * lets the writer read the size only when a split may be due. */
	uint64_t (*growth_bound)(const struct bag_storage *s, size_t len);

	/* ---- reading ---- */
	/* The file's format version (sqlite3: schema 1..4); 0 = blank. */
	int (*version)(const struct bag_storage *s);
	/* Every topic with its figures, ordered by id; *orphans counts
	 * messages whose topic id names no topic. */
	bt_status (*read_topics)(struct bag_storage *s, struct bag_storage_topic **out, size_t *n,
				 uint64_t *orphans, struct bt_error *err);
	/* Optional (NULL: read_topics is as cheap). Every topic ordered by
	 * id without its figures (count 0, no time range), with the file's
	 * message count and time range (BAG_TIME_NONE / INT64_MIN when
	 * empty), found without reading every message (sqlite3: from its
	 * timestamp index); enough to trust per-topic counts written
	 * elsewhere (metadata.yaml) that agree with them. */
	bt_status (*read_outline)(struct bag_storage *s, struct bag_storage_topic **out, size_t *n,
				  uint64_t *count, int64_t *first, int64_t *last,
				  struct bt_error *err);
	bt_status (*read_msgdefs)(struct bag_storage *s, struct bag_msgdef **out, size_t *n,
				  struct bt_error *err);
	/* The newest metadata the file records; *found false if none. */
	bt_status (*read_metadata)(struct bag_storage *s, struct bag_metadata *md, bool *found,
				   struct bt_error *err);
	/* True when the first message looks MESSAGE-mode compressed (zstd). */
	bt_status (*peek_compressed)(struct bag_storage *s, bool *yes, struct bt_error *err);
	/* The format's own integrity check (sqlite3: quick_check);
	 * BT_ERR_FORMAT with its first complaint. *interop (when interop is
	 * not NULL; the caller sets it NULL): for a file that passes, why
	 * other readers of the format may still refuse or misread it, where
	 * bagtop's reader does not (mcap: the specification's rules on record
	 * order, identity and indexes, mcap_doctor.h), as one malloc'd line
	 * naming the file; left NULL when none would. Not an integrity
	 * failure: the file reads and plays. */
	bt_status (*check)(struct bag_storage *s, char **interop, struct bt_error *err);
	/* Next message in (timestamp, order written) order: 1 = *m filled,
	 * 0 = end, < 0 = error. The first call starts at the first message. */
	int (*read_next)(struct bag_storage *s, struct bag_storage_msg *m, struct bt_error *err);
};

/* Every backend's open file starts with this. */
struct bag_storage {
	const struct bag_storage_ops *ops;
};

/* ---- registry ---- */

/* The backend a writer uses when none is named: sqlite3. */
const struct bag_storage_ops *bag_storage_default(void);
/* The backend named `identifier`, or NULL. */
const struct bag_storage_ops *bag_storage_find(const char *identifier);
/* The backend whose magic `head` (a file's first n bytes) starts with, or
 * NULL. BAG_STORAGE_MAGIC_MAX bytes are enough to tell. */
#define BAG_STORAGE_MAGIC_MAX 16
const struct bag_storage_ops *bag_storage_by_magic(const void *head, size_t n);
/* The same, with a one-line usage error listing the known ones if unknown. */
BT_MUST_CHECK bt_status bag_storage_lookup(const char *identifier,
					   const struct bag_storage_ops **out,
					   struct bt_error *err);
/* The backend whose files are named like `name` ("x.db3", or FILE-mode
 * "x.db3.zstd"), or NULL. *stem (if not NULL) gets the length of the name
 * before the extension, *compressed whether the name is FILE-compressed. */
const struct bag_storage_ops *bag_storage_by_name(const char *name, size_t *stem,
						  bool *compressed);
/* The registered backends, for listing: index 0.. until NULL. */
const struct bag_storage_ops *bag_storage_at(size_t i);
/* "sqlite3 (.db3, .db3.zstd), ..." for messages; the caller frees it. */
char *bag_storage_known_list(void);

/* Reads a --storage-config-file: a YAML mapping of keys to scalar values
 * (rosbag2's MCAP writer options: `chunkSize: 1048576`), as key/value
 * pairs in file order (*kv malloc'ed; bag_kv_free). Unreadable file, bad
 * YAML, a non-mapping or a value that is no scalar: BT_ERR_USAGE in one
 * line naming the file (and the key). The keys are the backend's to judge
 * (check_options). */
BT_MUST_CHECK bt_status bag_storage_config_read(const char *path, struct bag_kv **kv, size_t *n,
						struct bt_error *err);

/* ---- calls through the ops table (contracts above) ---- */

BT_MUST_CHECK bt_status bag_storage_create(const struct bag_storage_ops *ops, const char *path,
					   const struct bag_storage_options *o,
					   struct bag_storage **out, struct bt_error *err);
/* Opens `path` with the backend its name says, or a one-line
 * BT_ERR_FORMAT error naming the unknown extension. */
BT_MUST_CHECK bt_status bag_storage_open(const char *path, enum bag_storage_mode mode,
					 struct bag_storage **out, struct bt_error *err);
BT_MUST_CHECK bt_status bag_storage_close(struct bag_storage *s, struct bt_error *err);
void bag_storage_discard(struct bag_storage *s); /* NULL is fine */
void bag_storage_topics_free(struct bag_storage_topic *t, size_t n);
void bag_storage_msgdefs_free(struct bag_msgdef *d, size_t n);

#endif
