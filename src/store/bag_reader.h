/* bag_reader — opens any rosbag2 bag whose storage has a backend
 * (bag_storage.h: sqlite3): a bag directory (with or without metadata.yaml,
 * metadata versions 1..9), or a single storage file (.db3 / .db3.zstd);
 * sqlite3 schema 1..4 files; split bags; FILE- and MESSAGE-
 * compressed bags. Summarises every storage file (topics, counts, time
 * range, embedded metadata) and iterates all messages in timestamp order
 * across files, decompressed.
 *
 * FILE-compressed files are inflated into a private temporary directory
 * ($TMPDIR or /tmp) that bag_reader_close removes. Not thread-safe. */
#ifndef BAG_READER_H
#define BAG_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_types.h"
#include "bt_status.h"

struct bag_reader;
struct bag_storage_ops;

enum bag_reader_flags {
	/* Find storage files by listing the directory, not from metadata.yaml
	 * (which is then not read at all): for reindex. */
	BAG_READER_IGNORE_METADATA = 1 << 0,
	/* Open files read-write first so the backend undoes what a crashed
	 * writer left half done (SQLite rolls back its transaction), and leave
	 * out blank files (a writer died creating them; bag_reader_blank lists
	 * them): for reindex. */
	BAG_READER_RECOVER = 1 << 1,
	/* Run the backend's integrity check (sqlite's quick_check) on every
	 * file: for check. */
	BAG_READER_INTEGRITY = 1 << 2,
	/* The same check, but a file that fails it is kept, its failure noted
	 * in bag_reader_file.damage: for reindex, which must say what it
	 * could not recover. */
	BAG_READER_NOTE_DAMAGE = 1 << 3,
	/* A storage file that is missing, or that does not open or
	 * summarise (not a database, a bad header, no permission), is left
	 * out, its reason kept (bag_reader_skipped), instead of failing the
	 * open; the open still fails, with the first file's reason, when no
	 * file is left: for play, which plays what can be read. */
	BAG_READER_SKIP_UNREADABLE = 1 << 4,
	/* A file's per-topic message counts are taken from metadata.yaml
	 * instead of counting its messages (sqlite3: reading the whole
	 * file) when metadata.yaml gives them for that file (a bag of one
	 * file: the topic totals; else the file's topics_statistics) and
	 * they add up to the file's message count in metadata.yaml and in
	 * the file itself (asked of its index: bag_storage read_outline);
	 * else they are counted. A topic's time range in such a file
	 * (bag_reader_file_topic start/end) is then the file's: for play,
	 * which needs the counts and the bag's time range only. */
	BAG_READER_COUNTS_FROM_METADATA = 1 << 5,
	/* With INTEGRITY: the same pass also notes why other readers of the
	 * format may refuse or misread a file (bag_reader_file.interop): for
	 * check (play --strict asks only for integrity). */
	BAG_READER_INTEROP = 1 << 6,
};

/* A storage file left out by BAG_READER_SKIP_UNREADABLE. */
struct bag_reader_skip {
	char *path;   /* where it is (or was expected) on disk */
	char *reason; /* one line naming the file: why it was left out */
};

struct bag_reader_file_topic {
	size_t topic; /* index into bag_reader_topics() */
	int64_t id;   /* the file's own id for it (its messages' topic id) */
	uint64_t count;
	int64_t start, end; /* BAG_TIME_NONE / INT64_MIN when count is 0 */
};

struct bag_reader_file {
	char *name;       /* as listed in metadata.yaml, or the file name */
	char *path;       /* where it is on disk */
	bool compressed;  /* FILE mode .zstd */
	/* Its backend: by its name, else metadata.yaml's storage_identifier;
	 * NULL when none (opening then fails naming the file). */
	const struct bag_storage_ops *storage;
	uint64_t size;    /* bytes on disk */
	int schema_version; /* the backend's format version; 0 = blank */
	uint64_t message_count;
	int64_t start, end; /* BAG_TIME_NONE / INT64_MIN when empty */
	uint64_t orphans;   /* messages whose topic_id names no topic */
	struct bag_reader_file_topic *topics;
	size_t n_topics;
	bool has_embedded; /* the last row of the file's metadata table */
	struct bag_metadata embedded;
	bool message_compressed; /* a blob looked like a zstd frame */
	char *inflated;          /* the reader's inflated copy of a .zstd file, or NULL */
	char *damage; /* BAG_READER_NOTE_DAMAGE: why quick_check failed, or NULL */
	/* BAG_READER_INTEROP: why other readers of the format may refuse or
	 * misread this file, which bagtop reads (bag_storage's check), or NULL */
	char *interop;
};

struct bag_reader_topic {
	struct bag_topic topic;
	uint64_t count; /* summed over files */
};

struct bag_read_msg {
	size_t topic; /* index into bag_reader_topics() */
	const char *name;
	int64_t timestamp;
	const uint8_t *data; /* decompressed; valid until the next call */
	size_t len;
	size_t file; /* index of the file it came from */
	int64_t send_time; /* MCAP's publish_time; 0 in sqlite3 (not kept) */
};

/* True for a storage file name some backend reads: "*.db3" or "*.db3.zstd". */
bool bag_reader_is_storage_name(const char *name);

/* The first file in directory `dir` named like a storage file
 * ("<prefix>_<N>.<ext>") that no backend reads, or NULL; the caller frees
 * it. Says why a bag of an unknown storage does not open. */
char *bag_reader_foreign_file(const char *dir);

/* The backend the bag at `path` is in, found cheaply, as bag_reader_open
 * would take it: metadata.yaml's storage_identifier, else the first
 * storage file's name, else (a file named freely) its first bytes. NULL
 * when none is known (bag_reader_open then says why). */
const struct bag_storage_ops *bag_reader_storage_of(const char *path);

/* Opens and summarises the bag at `path`. Every storage file must open:
 * a missing, truncated or foreign file is an error naming it (unless
 * BAG_READER_SKIP_UNREADABLE). */
BT_MUST_CHECK bt_status bag_reader_open(const char *path, unsigned flags,
					struct bag_reader **out, struct bt_error *err);
void bag_reader_close(struct bag_reader *r); /* NULL is fine */

/* The bag directory (the file's directory for a single file). */
const char *bag_reader_dir(const struct bag_reader *r);
/* metadata.yaml as parsed, or NULL when there is none (or it was ignored). */
const struct bag_metadata *bag_reader_metadata(const struct bag_reader *r);
/* The newest embedded metadata row of any file, or NULL. */
const struct bag_metadata *bag_reader_embedded(const struct bag_reader *r);
size_t bag_reader_n_files(const struct bag_reader *r);
const struct bag_reader_file *bag_reader_file(const struct bag_reader *r, size_t i);
const struct bag_reader_topic *bag_reader_topics(const struct bag_reader *r, size_t *n);
/* Files left out as blank (BAG_READER_RECOVER only); paths on disk. */
const char *const *bag_reader_blank(const struct bag_reader *r, size_t *n);
/* Files left out as unreadable (BAG_READER_SKIP_UNREADABLE only), in the
 * bag's file order; valid until close. */
const struct bag_reader_skip *bag_reader_skipped(const struct bag_reader *r, size_t *n);
/* Totals over all files. */
uint64_t bag_reader_message_count(const struct bag_reader *r);
int64_t bag_reader_start(const struct bag_reader *r); /* BAG_TIME_NONE if empty */
int64_t bag_reader_end(const struct bag_reader *r);   /* INT64_MIN if empty */
uint64_t bag_reader_size(const struct bag_reader *r); /* bytes on disk */
/* "", "FILE" or "MESSAGE", as the data show it. */
const char *bag_reader_compression(const struct bag_reader *r);

/* Next message in (timestamp, file, id) order: 1 = *m filled, 0 = end,
 * < 0 = error (a corrupt file or frame). */
int bag_reader_next(struct bag_reader *r, struct bag_read_msg *m, struct bt_error *err);

#endif
