/* test_bag — reading back what a test wrote: every message of a bag through
 * the store's own reader, and a storage file's rows through raw SQL for the
 * tests that check those rows on purpose; QoS profiles compared field by
 * field; a writer opened, or refused, as the test expects; an MCAP file
 * opened for its index or its records. Failures end the
 * test (cmocka). */
#ifndef TEST_BAG_H
#define TEST_BAG_H

#include <stdint.h>

#include "bag_reader.h"
#include "bag_writer.h"
#include "test_util.h"

struct sqlite3;
struct sqlite3_stmt;

/* Called for each message read back; `t` is its topic. */
typedef void tb_msg_fn(const struct bag_read_msg *m, const struct bag_reader_topic *t,
		       void *arg);
/* Reads every message of the bag, or storage file, at `path` (flags as
 * bag_reader_open's) in the reader's order, calling fn (NULL: none) on
 * each; fails the test when the bag cannot be opened or read to its end.
 * Returns the number of messages. */
unsigned long long tb_each(const char *path, unsigned flags, tb_msg_fn *fn, void *arg);
/* Messages of `topic` (NULL: every topic) stamped in [from, to). */
unsigned long long tb_count(const char *path, const char *topic, int64_t from, int64_t to);
#define TB_ALL INT64_MIN, INT64_MAX /* from, to: any time */

/* bag_qos_default with history KEEP_LAST `depth`, and `reliability` (enum
 * bag_reliability) and `durability` (enum bag_durability). */
struct bag_qos tb_qos_keep_last(uint64_t depth, int reliability, int durability);
/* Every field of a and b is equal (fails the test at the first that is not). */
void tb_assert_qos_equal(const struct bag_qos *a, const struct bag_qos *b);
void tb_assert_qos_time_equal(struct bag_qos_time a, struct bag_qos_time b);
/* The same for a topic (name, type, format, hash, each QoS profile) and
 * for the files of two metadata (path, start, duration, messages of each). */
void tb_assert_topic_equal(const struct bag_topic *a, const struct bag_topic *b);
void tb_assert_files_equal(const struct bag_metadata *a, const struct bag_metadata *b);

/* bag_writer_open(o): the writer, or the test fails with the error. */
struct bag_writer *tb_writer_open(const struct bag_writer_options *o);
/* bag_writer_open(o) must return `want` (not BT_OK) with an error that
 * says `says` (NULL: any non-empty error). */
void tb_writer_refused(const struct bag_writer_options *o, bt_status want, const char *says);

/* The MCAP file at `path` opened (mcap_reader_close it) and indexed, its
 * summary in *s (valid until the close); fails the test when either fails. */
struct mcap_reader;
struct mcap_summary;
struct mcap_reader *tb_mcap_indexed(const char *path, const struct mcap_summary **s);
/* The same, ready to stream the file's records (mcap_reader_next). */
struct mcap_reader *tb_mcap_streamed(const char *path);
/* Streams every record of the file in order (a chunk, then the records in
 * it) to fn(it, arg); a read error fails the test. Returns how many. */
struct mcap_item;
uint64_t tb_mcap_stream_each(const char *path, void (*fn)(const struct mcap_item *it, void *arg),
			     void *arg);
/* Streamed, the file holds to mcap_doctor's rules (itself tested in
 * test_mcap_doctor): every Message's Channel record before it, every
 * Channel's Schema record before the Channel (as Foxglove's streaming
 * reader requires), records sharing an id identical, chunk times, message
 * and chunk indexes and statistics true; else the test fails. */
void tb_mcap_doctor(const char *path);

/* A storage file opened read-only for raw SQL (sqlite3_close it). */
struct sqlite3 *tb_sql_open(const char *db);
/* `sql` prepared on h (sqlite3_finalize it). */
struct sqlite3_stmt *tb_sql(struct sqlite3 *h, const char *sql);

#endif
