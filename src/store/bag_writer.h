/* bag_writer — writes a rosbag2 bag: <bag>/<bag>_<N>.db3 (or the extension
 * of the storage backend chosen; or a name of the caller's:
 * bag_writer_split_named) files in
 * schema 4 (3 for Humble), metadata.yaml (v9; v5 Humble, v7 Iron: the
 * layout of options.compat) rewritten atomically at open, at every split
 * and at close, splits by size / duration / request, --max-bag-files
 * rotation, zstd FILE and MESSAGE compression.
 *
 * Threads: the writer is used by one thread at a time (the consumer). It
 * owns and joins its helper threads (MESSAGE-mode compression pool, FILE-mode
 * compressor). Every write call is one transaction per storage file touched;
 * when it returns BT_OK, the messages are committed.
 *
 * After a failed write (disk full, I/O error) the writer keeps refusing
 * writes with the same error; close it to finish the bag: everything
 * committed before stays readable.
 *
 * Statistics: metadata.yaml carries, per topic and per closed file,
 * messages recorded, bytes written, losses by cause and the average rate
 * (struct bag_stats; keys in bag_metadata.h), rewritten at every split and
 * at close; the topic totals are the sums over the closed files (at close:
 * all). The metadata row a file gets when it is closed carries the topic
 * totals and that file's own figures (the row at open has none).
 * Who counts what, so nothing is counted twice:
 * - the writer: messages recorded and bytes written (committed only), and
 *   lost_toobig for the messages it refuses itself as too large for the
 *   store; each write says which of its messages went which way (struct
 *   bag_write_result), so the caller counts them without diffing;
 * - the caller, through bag_writer_add_losses: every other loss — transport
 *   gaps, SAMPLE_REJECTED, cache and compression-queue overflow, write
 *   failures (messages handed to a bag_writer_write that failed and were
 *   not committed, or never handed to it), and lost_toobig only for
 *   messages it refused itself before the writer saw them.
 * A loss counts in the file that is current when it is added. A file
 * rotated out by max_bag_files takes its figures out of the bag's totals,
 * as it takes its messages. */
#ifndef BAG_WRITER_H
#define BAG_WRITER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_compat.h"
#include "bag_types.h"
#include "bt_status.h"

/* rosbag2's MIN_SPLIT_FILE_SIZE for sqlite3 (the sqlite3 backend's
 * min_split_size). */
#define BAG_MIN_SPLIT_SIZE UINT64_C(86016)

enum bag_preset {
	BAG_PRESET_NONE,     /* default: survives a process crash (see man page) */
	BAG_PRESET_RESILIENT /* WAL + synchronous NORMAL, as rosbag2 */
};

enum bag_compression { BAG_COMPRESSION_NONE, BAG_COMPRESSION_FILE, BAG_COMPRESSION_MESSAGE };

struct bag_message;
struct bag_file_closed;

struct bag_writer_options {
	const char *uri;               /* bag directory; must not exist */
	/* bytes; 0 = never, else >= BAG_MIN_SPLIT_SIZE. The messages' share of
	 * a file: its fixed part (topics, definitions, metadata row) comes on
	 * top, so with many topics a file holds messages all the same. */
	uint64_t max_bagfile_size;
	int64_t max_bagfile_duration;  /* ns; 0 = never */
	uint64_t max_bag_files;        /* keep at most this many files; 0 = all */
	enum bag_preset preset;
	enum bag_compression compression;
	unsigned compression_threads; /* MESSAGE mode; 0 = number of online CPUs */
	/* The FILE and MESSAGE compression threads' nice value when
	 * compression_nice_set (--compression-threads-priority,
	 * bt_sync_nice), else the process's. */
	bool compression_nice_set;
	int32_t compression_nice;
	/* test hook: each compression sleeps first (MESSAGE: each message;
	 * FILE: each file, cut short by the cancel flag); 0 */
	uint32_t test_compress_delay_us;
	uint32_t test_write_delay_us; /* test hook: each message insert sleeps first; 0 */
	/* test hook: closing sleeps this long first, deaf to the cancel flag
	 * (a call stuck in the kernel); 0 */
	uint32_t test_close_stall_us;
	const struct bag_kv *custom_data;
	size_t n_custom_data;
	const char *ros_distro; /* NULL: $ROS_DISTRO, or "" when unset */
	/* The distro whose rosbag2 layout the bag takes (bag_compat.h):
	 * metadata version, sqlite schema, QoS form; 0 = Jazzy. Humble's
	 * layout has no custom_data (BT_ERR_USAGE with any) and no
	 * message_definitions table (definitions given are not stored). */
	enum bag_compat compat;
	/* The storage backend's identifier (bag_storage.h); NULL: sqlite3. */
	const char *storage_id;
	/* A stream written as it arrives (the recorder, outside snapshot
	 * mode): the backend hands each file's data to the disk as it goes and
	 * keeps it out of the page cache (MCAP: bt_dio, else bt_wbehind). Off, a burst a
	 * user waits for (a snapshot, convert) goes at the page cache's speed
	 * and reaches the disk when the kernel writes it back. */
	bool write_behind;
	/* Also a stream's: when a type's definition arrives (set_type_def)
	 * after the current file wrote that type without one and cannot take
	 * it any more (MCAP: its Schema record is out; update_msgdef's
	 * *missed), the next message starts a new file, which carries it.
	 * Otherwise only files opened by the usual splits do (a snapshot stays
	 * one file). */
	bool split_on_late_definition;
	/* The backend's preset by its name (e.g. an MCAP profile); NULL: the
	 * one `preset` names. And backend settings (key/value), passed through
	 * as given; the backend refuses unknown keys at open (BT_ERR_USAGE). */
	const char *storage_preset;
	const struct bag_kv *storage_config;
	size_t n_storage_config;
	/* For benchmarks and crash tests only: replace the preset's pragmas
	 * (passed to the backend as its journal_mode / synchronous settings). */
	const char *journal_mode;
	const char *synchronous;
	/* Repeat-transient-local: called on the writing thread right after a
	 * split (size, duration or bag_writer_split) opened a new file, before
	 * anything else goes into it. The n messages it returns in *msgs are
	 * written first, in their own transaction; they stay the callback's and
	 * must stay valid until its next call or bag_writer_close. t_last: the
	 * last timestamp written to the previous file (BAG_TIME_NONE if none).
	 * A file holding only these is never split again for its size or
	 * duration. NULL: nothing is repeated. */
	size_t (*on_split)(void *ctx, int64_t t_last, const struct bag_message **msgs);
	void *on_split_ctx;
	/* Called on the writing thread once per storage file when it is
	 * finished: closed with its metadata row, with FILE compression
	 * compressed (or left as it is when that failed), and named in
	 * metadata.yaml as it now is; or when its close failed (ok false).
	 * Not for a file max_bag_files deleted before that. NULL: nothing is
	 * said. */
	void (*on_file_closed)(void *ctx, const struct bag_file_closed *f);
	/* At close, a last file without messages (the one a split opened after
	 * the last snapshot, when snapshot files are closed as written) is
	 * deleted, not kept as an empty file of the bag; never the only one. */
	bool drop_empty_last;
	void *on_file_closed_ctx;
};

/* What on_file_closed reports; valid during the call. */
struct bag_file_closed {
	const char *path;  /* the file as a user takes it: "<bag>/<name>[.zstd]" */
	size_t seq;        /* its number, unique in the bag: the N of a <bag>_<N> name */
	uint64_t messages; /* in it */
	bool final;        /* closed by bag_writer_close, not by a split */
	/* The file opened in its place by the split that closed it,
	 * "<bag>/<name>" as it was opened; NULL when final. */
	const char *opened;
	bool ok;           /* false: its close failed (disk full...), it may be incomplete */
};

struct bag_message {
	uint32_t topic;    /* handle from bag_writer_add_topic */
	int64_t timestamp; /* receive time, ns since the epoch */
	const void *data;  /* CDR incl. its 4-byte header; borrowed for the call */
	size_t len;
	/* The publisher's send time (its DDS source timestamp), ns since the
	 * epoch; 0: not known, the receive time stands for it (rosbag2's
	 * send_timestamp). MCAP keeps it as publish_time; sqlite3 has no
	 * place for it. */
	int64_t send_time;
};

struct bag_writer_stats {
	uint64_t messages;       /* committed (repeated ones included) */
	uint64_t repeated;       /* of them, written by on_split */
	uint64_t bytes;          /* payload bytes committed (before compression) */
	uint64_t dropped_toobig; /* refused by sqlite as too large */
	size_t file_index;       /* the current file's number (bag_file_closed.seq) */
	size_t files_removed;    /* by max_bag_files */
};

/* One topic's figures as the writer holds them. */
struct bag_writer_topic_stats {
	uint64_t recorded; /* committed */
	uint64_t bytes;    /* payload bytes committed (before compression) */
	struct bag_losses lost;
};

struct bag_writer;

/* Creates the bag directory and file 0. On error nothing is left behind
 * except what could not be removed. */
BT_MUST_CHECK bt_status bag_writer_open(const struct bag_writer_options *opt,
					struct bag_writer **out, struct bt_error *err);
/* Registers a topic (copied); `def` may be NULL (an empty definition is
 * stored). Adding a known name again returns its handle (BT_ERR_EXISTS if
 * the type differs). */
BT_MUST_CHECK bt_status bag_writer_add_topic(struct bag_writer *w, const struct bag_topic *t,
					     const struct bag_msgdef *def, uint32_t *handle,
					     struct bt_error *err);
/* Replaces topic `handle`'s offered QoS profiles (copied; one per
 * publisher, as rosbag2 lists them) with `profiles[0..n)`: at once in the
 * current file's topics row, then in every metadata write (metadata.yaml
 * and row, at the next split and at close) and in the topics table of
 * every file opened later. Files already closed keep their rows. After a
 * failed write only the metadata gets them (BT_OK). BT_ERR_USAGE for an
 * unknown handle. Same thread as bag_writer_write. */
BT_MUST_CHECK bt_status bag_writer_set_topic_qos(struct bag_writer *w, uint32_t handle,
						 const struct bag_qos *profiles, size_t n,
						 struct bt_error *err);
/* Sets custom_data's KEY to VALUE (both copied; added when new), written
 * with the next metadata.yaml (each split and the close). BT_ERR_STATE when
 * the bag's layout (--compat) has no custom_data. Same thread as
 * bag_writer_write. */
BT_MUST_CHECK bt_status bag_writer_set_custom(struct bag_writer *w, const char *key,
					      const char *value, struct bt_error *err);
/* A message definition known only after its type's topics were added
 * (a node's get_type_description answered): type `type`'s encoding and
 * text (copied) replace the empty ones at once in the current file's
 * message_definitions row, and every file opened later gets them. Files
 * already closed keep their rows. `source` (copied) says where it came
 * from, or why there is none (then `encoding` and `text` are NULL and the
 * row is left alone): metadata.yaml's message_definition_sources.
 * BT_ERR_NOTFOUND when no topic of that type was added. Same thread as
 * bag_writer_write. */
BT_MUST_CHECK bt_status bag_writer_set_type_def(struct bag_writer *w, const char *type,
						const char *encoding, const char *text,
						const char *source, struct bt_error *err);
/* What became of each message of a bag_writer_write_batch. */
enum bag_msg_fate {
	BAG_MSG_NOT_WRITTEN, /* not committed: the write failed, or cancelled first */
	BAG_MSG_RECORDED,    /* committed */
	BAG_MSG_TOOBIG,      /* refused by the store as too large (lost_toobig) */
	BAG_MSG_PENDING      /* inserted, not committed yet (never returned) */
};

/* What one write committed, so the caller adds it up rather than diffing
 * the writer's figures. `fate` is the caller's array of n entries, one per
 * message of msgs; the totals are over msgs (what on_split repeated is
 * not msgs': it is in `repeated`). */
struct bag_write_result {
	uint8_t *fate; /* enum bag_msg_fate, per message */
	uint64_t recorded, bytes, toobig;
	uint64_t repeated; /* copies on_split had written, in splits during the call */
};

/* Writes `n` messages in order, splitting first where a limit is reached,
 * and fills *res (res->fate set by the caller, n entries) with what it
 * committed, also when it fails. Once the cancel flag
 * (bag_writer_set_cancel) is set it inserts no more: it commits those
 * already inserted and returns BT_OK; the rest are BAG_MSG_NOT_WRITTEN. */
BT_MUST_CHECK bt_status bag_writer_write_batch(struct bag_writer *w,
					       const struct bag_message *msgs, size_t n,
					       struct bag_write_result *res,
					       struct bt_error *err);
/* bag_writer_write_batch without the result (bag_writer_get_stats has the
 * totals). */
BT_MUST_CHECK bt_status bag_writer_write(struct bag_writer *w, const struct bag_message *msgs,
					 size_t n, struct bt_error *err);
/* From now on, bag_writer_write stops early once `*flag` is true (set
 * from any thread; it must outlive the writer), and so does FILE
 * compression: closed files not compressed yet stay plain (said once at
 * close; `bagtop reindex` compresses them; when no kept file was
 * compressed, metadata.yaml says the bag is uncompressed). NULL: never. */
void bag_writer_set_cancel(struct bag_writer *w, const atomic_bool *flag);
/* Between batches, while nothing arrives: lets the storage make durable
 * what it keeps buffered beyond its commits (mcap: the open chunk, once it
 * waits a second), so a crash loses at most the last second. Cheap when
 * there is nothing to do; a no-op after a failed write. Same thread as
 * bag_writer_write. */
BT_MUST_CHECK bt_status bag_writer_idle(struct bag_writer *w, struct bt_error *err);
/* Closes the current file and starts the next one now. */
BT_MUST_CHECK bt_status bag_writer_split(struct bag_writer *w, struct bt_error *err);
/* bag_writer_split, the new file named "<stem><extension>" (a snapshot's
 * --name) instead of <bag>_<N>; never overwriting: when that name is
 * taken (a file of the bag, or on disk as it is or compressed) the first
 * free "<stem>_2", "<stem>_3", … (bag_writer_current_file says which).
 * A current file without messages is deleted and forgotten rather than
 * closed (no on_file_closed for it, gone from metadata.yaml). Later
 * splits name their files <bag>_<N> again, N skipping any name taken.
 * BT_ERR_USAGE for a stem that is not a plain file name
 * (bt_str_file_name_ok); else as bag_writer_split. */
BT_MUST_CHECK bt_status bag_writer_split_named(struct bag_writer *w, const char *stem,
					       struct bt_error *err);
/* Finishes the bag (final metadata, waits for FILE compression unless the
 * cancel flag cuts it short) and frees
 * the writer, also on error. Returns the first error the writer met. */
BT_MUST_CHECK bt_status bag_writer_close(struct bag_writer *w, struct bt_error *err);

void bag_writer_get_stats(const struct bag_writer *w, struct bag_writer_stats *st);
/* How many files the writer keeps a record of: those that exist (the open
 * one included; none that --max-bag-files deleted). */
size_t bag_writer_file_count(const struct bag_writer *w);
/* Name of the current storage file in the bag directory ("<bag>_<N>.db3"
 * or a split_named one); valid until the next write/split. */
const char *bag_writer_current_file(const struct bag_writer *w);
/* True while the writer thread is blocked waiting for the MESSAGE-mode
 * compression threads (they are behind it). Any thread, lock-free; false
 * without MESSAGE compression. */
bool bag_writer_compression_behind(const struct bag_writer *w);
/* Per-topic count of messages refused as too large. */
uint64_t bag_writer_topic_dropped(const struct bag_writer *w, uint32_t handle);
/* Adds `delta` to topic `handle`'s losses, in the current file and in the
 * totals; they appear in the metadata written next (at the next split, and
 * at close: add losses before bag_writer_close). Never allocates; works
 * after a failed write too. BT_ERR_USAGE for an unknown handle. Same
 * thread as bag_writer_write. */
BT_MUST_CHECK bt_status bag_writer_add_losses(struct bag_writer *w, uint32_t handle,
					      const struct bag_losses *delta);
/* Topic `handle`'s figures since open (`total`, rotated-out files included)
 * and in the current file (`file`); either may be NULL. False (and zeros)
 * for an unknown handle. */
bool bag_writer_get_topic_stats(const struct bag_writer *w, uint32_t handle,
				struct bag_writer_topic_stats *total,
				struct bag_writer_topic_stats *file);

/* Parsing helpers for option values (case-insensitive, as rosbag2). */
BT_MUST_CHECK bt_status bag_preset_parse(const char *s, enum bag_preset *out);
BT_MUST_CHECK bt_status bag_compression_parse(const char *s, enum bag_compression *out);
const char *bag_compression_name(enum bag_compression c); /* "", "FILE", "MESSAGE" */
/* The SQLite journal_mode and synchronous values a preset applies. */
void bag_preset_pragmas(enum bag_preset p, const char **journal_mode, const char **synchronous);

#endif
