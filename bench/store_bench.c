/* store_bench — how fast bag_writer stores messages, against a ceiling
 * measured in the same run.
 *
 * DESIGN
 * 1. Writer vs raw. For each message size and each pragma pair (the presets
 *    by default), the same pre-built messages are written
 *    (a) through bag_writer_open / add_topic / write per batch / close, and
 *    (b) through plain sqlite3: open, the same PRAGMAs, rosbag2's schema
 *        (incl. timestamp_idx) and schema row, one topic row, one prepared
 *        INSERT, the same batches each in BEGIN TRANSACTION ... COMMIT, close.
 *    The clock covers the same work on both sides: open .. close. Batches are
 *    1000 messages or 64 MiB, whichever comes first. One untimed warm-up
 *    run first (the first run of a case is measurably slower), then runs
 *    alternate (writer first on even repeats, raw first on odd ones) and the
 *    median of the repeats is reported; ratio = writer msgs/s / raw msgs/s.
 * 2. MESSAGE compression with 1, 2 and <online CPUs> compression threads on
 *    compressible data, after a warm-up run, in an order rotated per repeat;
 *    ratio = N threads / 1 thread. cpu s is the process's user + system
 *    time: with it, a ratio limited by the cores available shows as such.
 * 3. MCAP. For each size (default 100 B, 1 KiB, 64 KiB, 1 MiB; at most
 *    --mcap-bytes of messages per case), the same messages are written
 *    (a) by bag_writer into SQLite (preset default: the reference),
 *    (b) as MCAP with rosbag2's default writer options (768 KiB chunks, no
 *        compression, no chunk CRC) and with its zstd_fast preset (zstd
 *        chunks at the Fastest level, -5; no chunk CRC), and
 *    (c) per MCAP variant, a ceiling: the file (b) wrote in its warm-up
 *        run, read back, is written to a new file with plain write(2), one
 *        call per chunk (the Chunk record and its Message Index records:
 *        the unit the writer hands the kernel; the bytes before the first
 *        chunk and the summary after the last ride with the first and last
 *        piece). For zstd chunks the ceiling first compresses each chunk's
 *        records (decompressed from that file at load) at the same level,
 *        so both sides pay the same compression and the ratio is the
 *        writer's own overhead. The same bytes in the same pieces, rather
 *        than the message bytes plus an estimated overhead in 768 KiB
 *        pieces: nothing to estimate, and the ceiling cannot undercount.
 *    (b) goes through bag_writer with storage_id "mcap" when a backend of
 *    that name is registered (the output says which), else through
 *    mcap_writer directly with what rosbag2's plugin writes around the
 *    messages (Header profile ros2, a Schema, a Channel with its metadata
 *    keys, the rosbag2 Metadata record): the stores are a table
 *    (sb_stores), the switch one assignment (sb_mcap_bind). The row
 *    "mcap_writer" always takes that direct path, in batches lent to the
 *    writer as the backend does: the format's writer alone, without the
 *    bag around it (directory, metadata.yaml written and synced at open
 *    and close, per-topic accounting), whose fixed cost weighs on a short
 *    run. The row "chunk floor" (mcap_floor.h) writes that row's file
 *    again from the same messages with only what any writer that builds
 *    chunks by copying must do (per message a record header stored in
 *    place, the data copied behind it, an index entry; one writev per
 *    chunk), and must produce its bytes exactly (checked after the
 *    warm-up): what a chunk-building writer can reach against the ceiling
 *    on this machine. It copies every message, so from 64 KiB on, where
 *    mcap_writer hands a message that fills the chunk to the kernel from
 *    where it is, it is no floor. The row "gather floor" writes the same
 *    bytes without that copy: each chunk one writev whose pieces are the
 *    record headers and the messages' data where they are, the kernel's
 *    copy into the page cache the only one (a writer that never copies,
 *    were every message of a chunk still in memory when it is written).
 *    Both floors always write through the page cache. Every
 *    contestant is timed open .. close; one untimed warm-up run each, then
 *    repeats in an order rotated per repeat; medians. ratio = MCAP msgs/s /
 *    ceiling msgs/s (target >= 0.9); cpu = the ceiling's CPU time over
 *    MCAP's; vs sqlite = MCAP msgs/s / (a)'s. With --write-behind the
 *    MCAP files are written as `bagtop record` writes them: with direct
 *    I/O where the file system takes it (bt_dio), else with the kernel's
 *    write-back started as they go (bt_wbehind), so the bag's close, which
 *    fsyncs metadata.yaml, waits on ext4 (data=ordered) for that data,
 *    while the ceiling's file is deleted before the kernel writes it at
 *    all: wall time then charges the disk to the writer alone, and cpu is
 *    the figure on the same footing (less the writer's share of starting
 *    the write-back).
 *
 * Data: PointCloud2-shaped CDR (see sb_cdr_fill): encapsulation header,
 * std_msgs/Header, four PointFields, then points in PCL's PointXYZI layout
 * (what pcl::toROSMsg publishes: x, y, z float32, 4 bytes of padding,
 * intensity float32, 12 bytes of padding; point_step 32) of a synthetic
 * spinning lidar: ranges smooth over azimuth, 2 mm quantised, a little
 * noise; intensity integer-valued. A message too small for one point after
 * the PointCloud2 fields (100 B) is the Header, then raw point bytes.
 * Neither random nor zeros: the stored file is 59% of the input for 1 KiB messages and 37% for 1 MiB ones with
 * zstd level 1 (column out/in). A pool of distinct messages (at most
 * 64 MiB) is generated once per size and cycled.
 *
 * Bags are written under a scratch directory (--dir, default $TMPDIR or
 * /tmp) and deleted after each run. With synchronous=OFF the data mostly
 * stays in the page cache: this measures the CPU path, as a recorder sees
 * it until the disk's write-back limit. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_storage.h"
#include "bag_writer.h"
#include "bench_util.h"
#include "mcap_floor.h"
#include "mcap_record.h"
#include "mcap_writer.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_parse.h"

#define SB_BASE_TIME INT64_C(1700000000000000000)
#define SB_BATCH_MAX_MSGS 1000u
#define SB_BATCH_MAX_BYTES (64u * 1024u * 1024u)
#define SB_POOL_BYTES (64u * 1024u * 1024u)
#define SB_MAX_PAIRS 8
#define SB_MAX_THREADS 8
#define SB_MAX_REPEATS 15
#define SB_TOPIC_TYPE "sensor_msgs/msg/PointCloud2"
#define SB_POINT_STEP 32u /* pcl::PointXYZI */
#define SB_MIN_SIZE 64u /* --size: the std_msgs/Header fits (sb_cdr_fill) */
/* The page size bag_writer gives files without a split size (bag_db.c);
 * the raw side uses it too, so both do the same work. */
#define SB_WRITER_PAGE_SIZE 32768u

/* rosbag2's schema 4, exactly as sqlite_storage.cpp creates it. */
static const char *const sb_schema_sql[] = {
	"CREATE TABLE schema(schema_version INTEGER PRIMARY KEY,ros_distro TEXT NOT NULL);",
	"CREATE TABLE metadata(id INTEGER PRIMARY KEY,metadata_version INTEGER NOT NULL,"
	"metadata TEXT NOT NULL);",
	"CREATE TABLE topics(id INTEGER PRIMARY KEY,name TEXT NOT NULL,type TEXT NOT NULL,"
	"serialization_format TEXT NOT NULL,offered_qos_profiles TEXT NOT NULL,"
	"type_description_hash TEXT NOT NULL);",
	"CREATE TABLE message_definitions(id INTEGER PRIMARY KEY,topic_type TEXT NOT NULL,"
	"encoding TEXT NOT NULL,encoded_message_definition TEXT NOT NULL,"
	"type_description_hash TEXT NOT NULL);",
	"CREATE TABLE messages(id INTEGER PRIMARY KEY,topic_id INTEGER NOT NULL,"
	"timestamp INTEGER NOT NULL, data BLOB NOT NULL);",
	"CREATE INDEX timestamp_idx ON messages (timestamp ASC);",
	"INSERT INTO schema (schema_version, ros_distro) VALUES (4, '');",
};

/* A journal_mode / synchronous pair, and the writer preset it belongs to. */
struct sb_pragmas {
	const char *label;
	const char *journal_mode, *synchronous;
	enum bag_preset preset;
	bool override; /* pass the pair to the writer (not a preset's own) */
};

/* The writer's presets; their pragmas are filled in from the writer. */
static const struct sb_pragmas sb_presets[] = {
	{"default", NULL, NULL, BAG_PRESET_NONE, false},
	{"resilient", NULL, NULL, BAG_PRESET_RESILIENT, false},
};

struct sb_opts {
	const char *dir;
	bool quick;
	uint64_t messages; /* 0: per size default */
	uint64_t batch;    /* messages per transaction at most */
	uint64_t max_bag_size; /* given to the writer (0: no splitting) */
	uint64_t mcap_bytes;   /* MCAP section: bytes of messages per case at most */
	uint64_t raw_page_size; /* PRAGMA page_size of the raw side */
	uint64_t sizes[4];
	size_t n_sizes;
	uint64_t mcap_sizes[4]; /* the MCAP section's (--size sets both) */
	size_t n_mcap_sizes;
	unsigned repeats;
	struct sb_pragmas pairs[SB_MAX_PAIRS];
	size_t n_pairs;
	uint64_t threads[SB_MAX_THREADS];
	size_t n_threads;
	bool do_raw, do_message, do_mcap;
	bool verbose; /* print every run */
	bool write_behind; /* the MCAP stores write as the recorder does */
	int side; /* -1 writer only, 1 raw only, 0 both (one side: for profiling) */
	double budget; /* seconds; past it, one repeat per case */
	double mcap_budget; /* the same for the MCAP section, from its start */
};

/* The messages of one case: n descriptors cycling over a pool. */
struct sb_data {
	size_t size, n, batch;
	uint8_t *pool;
	struct bag_message *msgs;
};

struct sb_sample {
	double wall, cpu;
	uint64_t out_bytes; /* size of the storage file after close */
};

static double sb_t0, sb_mcap_t0; /* start of the run, of the MCAP section */

/* ---- data ---- */

struct sb_cdr {
	uint8_t *p;
	size_t len, cap;
};

static void sb_put(struct sb_cdr *c, const void *v, size_t n)
{
	if (c->len + n <= c->cap)
		memcpy(c->p + c->len, v, n);
	c->len += n;
}

static void sb_align(struct sb_cdr *c, size_t a)
{
	static const uint8_t zeros[8];
	size_t off = (c->len - 4) % a; /* alignment counts after the 4-byte header */
	if (off)
		sb_put(c, zeros, a - off);
}

static void sb_u32(struct sb_cdr *c, uint32_t v)
{
	sb_align(c, 4);
	sb_put(c, &v, 4); /* little-endian host, CDR_LE */
}

static void sb_str(struct sb_cdr *c, const char *s)
{
	sb_u32(c, (uint32_t)strlen(s) + 1);
	sb_put(c, s, strlen(s) + 1);
}

static uint32_t sb_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 32);
}

/* One lidar point (x, y, z, intensity) of scan `seq`, point j. */
static void sb_point(uint64_t seq, size_t j, uint64_t *rng, float out[4])
{
	const size_t rings = 32;
	float el = (-15.0f + (float)(j % rings)) * 0.01745f;
	float az = (float)((j / rings + seq * 7) % 1800) * 0.2f * 0.01745f;
	float r = 12.0f + 4.0f * sinf(3.0f * az) + 1.5f * cosf((float)(j % rings) * 0.7f);
	r += (float)(sb_rand(rng) % 11) * 0.002f - 0.01f;
	r = roundf(r * 500.0f) / 500.0f; /* 2 mm steps, as lidar firmware reports */
	out[0] = r * cosf(el) * cosf(az);
	out[1] = r * cosf(el) * sinf(az);
	out[2] = r * sinf(el);
	out[3] = (float)(40 + (j % rings) * 3 + sb_rand(rng) % 8);
}

/* Writes `len` bytes of lidar points of scan `seq` (PCL's PointXYZI layout,
 * the last point cut short if it does not fit) at data. */
static void sb_points(uint8_t *data, size_t len, uint64_t seq)
{
	uint64_t rng = seq * 0x9E3779B97F4A7C15u + 1;
	for (size_t j = 0; j * SB_POINT_STEP < len; j++) {
		uint8_t rec[SB_POINT_STEP] = {0};
		float pt[4];
		sb_point(seq, j, &rng, pt);
		memcpy(rec, pt, 12);
		memcpy(rec + 16, &pt[3], 4);
		size_t left = len - j * SB_POINT_STEP;
		memcpy(data + j * SB_POINT_STEP, rec, left < SB_POINT_STEP ? left : SB_POINT_STEP);
	}
}

/* Encapsulation header and std_msgs/Header (stamp from seq, frame_id). */
static void sb_cdr_header(struct sb_cdr *c, uint64_t seq)
{
	static const uint8_t enc[4] = {0x00, 0x01, 0x00, 0x00};
	sb_put(c, enc, 4);
	sb_u32(c, (uint32_t)(1700000000 + seq / 10));
	sb_u32(c, (uint32_t)(seq % 10) * 100000000u);
	sb_str(c, "lidar_top");
}

/* PointCloud2 from height to the data length; *head, *row_step: offsets of
 * height and row_step, patched by the caller. */
static void sb_cdr_pc2(struct sb_cdr *c, size_t *head, size_t *row_step)
{
	static const char *const names[4] = {"x", "y", "z", "intensity"};
	static const uint32_t offsets[4] = {0, 4, 8, 16};
	*head = c->len; /* height, width follow; width patched below */
	sb_u32(c, 1);
	sb_u32(c, 0);
	sb_u32(c, 4);
	for (uint32_t f = 0; f < 4; f++) {
		sb_str(c, names[f]);
		sb_u32(c, offsets[f]);
		uint8_t type = 7; /* FLOAT32 */
		sb_put(c, &type, 1);
		sb_u32(c, 1);
	}
	uint8_t big = 0;
	sb_put(c, &big, 1);
	sb_u32(c, SB_POINT_STEP);
	*row_step = c->len;
	sb_u32(c, 0);
	sb_u32(c, 0); /* data length, patched below */
}

/* Bytes before the points of a PointCloud2 message (sb_cdr_fill). */
static size_t sb_cdr_pc2_len(void)
{
	struct sb_cdr c = {NULL, 0, 0}; /* cap 0: counts, writes nothing */
	size_t head, row_step;
	sb_cdr_header(&c, 0);
	sb_cdr_pc2(&c, &head, &row_step);
	return c.len;
}

/* Fills buf with a CDR message of exactly `size` bytes (size >= SB_MIN_SIZE):
 * a PointCloud2 when at least one point fits, else a std_msgs/Header
 * followed by raw point bytes (the same data, shaped like a small sensor
 * message: what 100-byte topics carry). */
static void sb_cdr_fill(uint8_t *buf, size_t size, uint64_t seq)
{
	struct sb_cdr c = {buf, 0, size};
	sb_cdr_header(&c, seq);
	if (size < sb_cdr_pc2_len() + SB_POINT_STEP + 1) {
		sb_points(buf + c.len, size - c.len, seq);
		return;
	}
	size_t head, row_step;
	sb_cdr_pc2(&c, &head, &row_step);
	size_t data_len = size - c.len - 1;
	uint32_t points = (uint32_t)(data_len / SB_POINT_STEP);
	memcpy(buf + head + 4, &points, 4);
	uint32_t rs = points * SB_POINT_STEP, dl = (uint32_t)data_len;
	memcpy(buf + row_step, &rs, 4);
	memcpy(buf + c.len - 4, &dl, 4);
	memset(buf + c.len, 0, data_len);
	sb_points(buf + c.len, points * SB_POINT_STEP, seq);
	buf[size - 1] = 1; /* is_dense */
}

static void sb_data_build(struct sb_data *d, size_t size, size_t n, size_t max_batch)
{
	d->size = size;
	d->n = n;
	d->batch = SB_BATCH_MAX_BYTES / size;
	if (d->batch > max_batch)
		d->batch = max_batch;
	if (d->batch == 0)
		d->batch = 1;
	size_t pool_n = SB_POOL_BYTES / size;
	if (pool_n > n)
		pool_n = n;
	if (pool_n == 0)
		pool_n = 1;
	d->pool = bt_xmalloc(pool_n * size);
	for (size_t i = 0; i < pool_n; i++)
		sb_cdr_fill(d->pool + i * size, size, i);
	d->msgs = bt_xcalloc(n, sizeof *d->msgs);
	for (size_t i = 0; i < n; i++)
		d->msgs[i] = (struct bag_message){0, SB_BASE_TIME + (int64_t)i * 1000000,
						  d->pool + (i % pool_n) * size, size, 0};
}

static void sb_data_free(struct sb_data *d)
{
	free(d->pool);
	free(d->msgs);
}

/* ---- the two contestants ---- */

struct sb_run {
	const struct sb_pragmas *pragmas;
	enum bag_compression compression;
	unsigned threads;
	uint64_t max_bag_size;
	uint64_t raw_page_size;
	const char *storage_id;     /* bag_writer's backend; NULL: sqlite3 */
	const char *storage_preset; /* the backend's preset; NULL: its default */
	bool write_behind;          /* bag_writer_options' */
};

static int sb_writer_topic(struct bag_writer *w, struct bt_error *err)
{
	struct bag_qos q;
	bag_qos_default(&q);
	struct bag_topic t = {"/lidar/points", SB_TOPIC_TYPE, "cdr", &q, 1, ""};
	uint32_t h;
	return bag_writer_add_topic(w, &t, NULL, &h, err) == BT_OK && h == 0 ? 0 : -1;
}

/* The first storage file of bag directory `bag` written by backend
 * `storage_id` (NULL: the default); malloc'ed. */
static char *sb_writer_file(const char *bag, const char *storage_id)
{
	const struct bag_storage_ops *ops =
		storage_id ? bag_storage_find(storage_id) : bag_storage_default();
	const char *base = strrchr(bag, '/');
	return bt_xasprintf("%s/%s_0%s", bag, base ? base + 1 : bag, ops ? ops->extension : "");
}

/* Writes d through bag_writer into bag directory `bag`. */
static int sb_writer(const struct sb_run *r, const struct sb_data *d, const char *bag,
		     struct sb_sample *s)
{
	struct bag_writer_options o = {0};
	o.uri = bag;
	o.preset = r->pragmas->preset;
	o.compression = r->compression;
	o.compression_threads = r->threads;
	o.max_bagfile_size = r->max_bag_size;
	o.ros_distro = "";
	o.storage_id = r->storage_id;
	o.storage_preset = r->storage_preset;
	o.write_behind = r->write_behind;
	if (r->pragmas->override) {
		o.journal_mode = r->pragmas->journal_mode;
		o.synchronous = r->pragmas->synchronous;
	}
	struct bt_error err = {0};
	struct bag_writer *w;
	double t0 = bench_now(), c0 = bench_cpu();
	if (bag_writer_open(&o, &w, &err) != BT_OK) {
		fprintf(stderr, "store_bench: open: %s\n", err.msg);
		return -1;
	}
	bt_status st = sb_writer_topic(w, &err) == 0 ? BT_OK : BT_ERR_IO;
	for (size_t i = 0; st == BT_OK && i < d->n; i += d->batch)
		st = bag_writer_write(w, d->msgs + i, d->n - i < d->batch ? d->n - i : d->batch,
				      &err);
	bt_status st2 = bag_writer_close(w, st == BT_OK ? &err : NULL);
	s->wall = bench_now() - t0;
	s->cpu = bench_cpu() - c0;
	if (st != BT_OK || st2 != BT_OK) {
		fprintf(stderr, "store_bench: writer: %s\n", err.msg);
		return -1;
	}
	char *file = sb_writer_file(bag, r->storage_id);
	s->out_bytes = bench_file_size(file);
	free(file);
	return 0;
}

static int sb_exec(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
		return 0;
	fprintf(stderr, "store_bench: raw: %.60s: %s\n", sql, sqlite3_errmsg(db));
	return -1;
}

static int sb_raw_setup(sqlite3 *db, const struct sb_pragmas *p, uint64_t page_size)
{
	char sql[128];
	snprintf(sql, sizeof sql, "PRAGMA page_size=%llu;", (unsigned long long)page_size);
	int rc = sb_exec(db, sql);
	snprintf(sql, sizeof sql, "PRAGMA journal_mode=%s;", p->journal_mode);
	rc = rc ? rc : sb_exec(db, sql);
	snprintf(sql, sizeof sql, "PRAGMA synchronous=%s;", p->synchronous);
	rc = rc ? rc : sb_exec(db, sql);
	rc = rc ? rc : sb_exec(db, "BEGIN;");
	for (size_t i = 0; !rc && i < sizeof sb_schema_sql / sizeof sb_schema_sql[0]; i++)
		rc = sb_exec(db, sb_schema_sql[i]);
	rc = rc ? rc : sb_exec(db, "COMMIT;");
	return rc ? rc
		  : sb_exec(db, "INSERT INTO topics(name, type, serialization_format, "
				"offered_qos_profiles, type_description_hash) VALUES "
				"('/lidar/points', '" SB_TOPIC_TYPE "', 'cdr', '', '');");
}

static int sb_raw_batch(sqlite3 *db, sqlite3_stmt *ins, const struct bag_message *m, size_t n)
{
	if (sb_exec(db, "BEGIN TRANSACTION;"))
		return -1;
	for (size_t i = 0; i < n; i++) {
		sqlite3_bind_int64(ins, 1, m[i].timestamp);
		sqlite3_bind_int64(ins, 2, 1);
		sqlite3_bind_blob(ins, 3, m[i].data, (int)m[i].len, SQLITE_STATIC);
		int rc = sqlite3_step(ins);
		sqlite3_reset(ins);
		if (rc != SQLITE_DONE) {
			fprintf(stderr, "store_bench: raw insert: %s\n", sqlite3_errmsg(db));
			return -1;
		}
	}
	return sb_exec(db, "COMMIT;");
}

/* Writes d with plain sqlite3 into "<dir>/raw.db3". */
static int sb_raw(const struct sb_run *r, const struct sb_data *d, const char *dir,
		  struct sb_sample *s)
{
	char *path = bt_xasprintf("%s/raw.db3", dir);
	sqlite3 *db = NULL;
	sqlite3_stmt *ins = NULL;
	double t0 = bench_now(), c0 = bench_cpu();
	int rc = sqlite3_open_v2(path, &db,
				 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
				 NULL) == SQLITE_OK ? 0 : -1;
	if (!rc) {
		sqlite3_extended_result_codes(db, 1);
		rc = sb_raw_setup(db, r->pragmas, r->raw_page_size);
	}
	if (!rc && sqlite3_prepare_v3(db, "INSERT INTO messages (timestamp, topic_id, data) "
				      "VALUES (?, ?, ?);", -1, SQLITE_PREPARE_PERSISTENT, &ins,
				      NULL) != SQLITE_OK)
		rc = sb_exec(db, "SELECT prepare_failed;");
	for (size_t i = 0; !rc && i < d->n; i += d->batch)
		rc = sb_raw_batch(db, ins, d->msgs + i, d->n - i < d->batch ? d->n - i : d->batch);
	sqlite3_finalize(ins);
	if (sqlite3_close(db) != SQLITE_OK)
		rc = -1;
	s->wall = bench_now() - t0;
	s->cpu = bench_cpu() - c0;
	s->out_bytes = bench_file_size(path);
	free(path);
	return rc;
}

/* One timed run in a fresh scratch directory, removed afterwards. */
static int sb_once(const struct sb_opts *o, const struct sb_run *r, const struct sb_data *d,
		   bool raw, struct sb_sample *s)
{
	char *dir = bench_scratch_new(o->dir, "store_bench.");
	if (!dir)
		return -1;
	char *bag = bt_xasprintf("%s/bag", dir);
	int rc = raw ? sb_raw(r, d, dir, s) : sb_writer(r, d, bag, s);
	if (o->verbose)
		fprintf(stderr, "  %-6s %zu x %zu B  %s/%s  threads %u: %.3f s wall, %.3f s cpu\n",
			raw ? "raw" : "writer", d->n, d->size, r->pragmas->journal_mode,
			r->pragmas->synchronous, r->threads, s->wall, s->cpu);
	if (bench_rmtree(dir) != 0)
		rc = -1;
	free(bag);
	free(dir);
	return rc;
}

/* ---- report ---- */

struct sb_stat {
	double wall, cpu, out;
};

static struct sb_stat sb_median(struct sb_sample *s, unsigned n)
{
	double w[SB_MAX_REPEATS], c[SB_MAX_REPEATS], b[SB_MAX_REPEATS];
	for (unsigned i = 0; i < n; i++) {
		w[i] = s[i].wall;
		c[i] = s[i].cpu;
		b[i] = (double)s[i].out_bytes;
	}
	return (struct sb_stat){bench_median(w, n), bench_median(c, n), bench_median(b, n)};
}

/* --repeats, or 1 once `budget` seconds have passed since t0. */
static unsigned sb_repeats(const struct sb_opts *o, double t0, double budget)
{
	if (bench_now() - t0 <= budget)
		return o->repeats;
	fprintf(stderr, "store_bench: past the %.0f s budget: one repeat for this case\n",
		budget);
	return 1;
}

static void sb_size_label(size_t size, char *out, size_t n)
{
	if (size % (1024 * 1024) == 0)
		snprintf(out, n, "%zu MiB", size / (1024 * 1024));
	else if (size % 1024 == 0)
		snprintf(out, n, "%zu KiB", size / 1024);
	else
		snprintf(out, n, "%zu B", size);
}

static double sb_rate(const struct sb_data *d, double wall)
{
	return (double)d->n / wall;
}

static double sb_mibs(const struct sb_data *d, double wall)
{
	return (double)d->n * (double)d->size / BENCH_MIB / wall;
}

/* ---- section 1: writer vs raw ---- */

static void sb_raw_header(void)
{
	printf("\n== bag_writer vs raw sqlite3 (same schema, pragmas, INSERT, batches, data) ==\n");
	printf("%-8s %-26s %6s %5s | %10s %8s %6s | %10s %8s %6s | %6s\n", "size", "pragmas",
	       "msgs", "batch", "writer/s", "MiB/s", "cpu s", "raw/s", "MiB/s", "cpu s",
	       "ratio");
}

static int sb_raw_case(const struct sb_opts *o, const struct sb_data *d,
		       const struct sb_pragmas *p)
{
	struct sb_run r = {p, BAG_COMPRESSION_NONE, 0, o->max_bag_size, o->raw_page_size, NULL, NULL,
			   false};
	struct sb_sample ws[SB_MAX_REPEATS], rs[SB_MAX_REPEATS];
	unsigned n = sb_repeats(o, sb_t0, o->budget);
	struct sb_sample warm;
	if (sb_once(o, &r, d, o->side != -1, &warm)) /* untimed: the first run is slower */
		return -1;
	for (unsigned i = 0; i < n; i++) {
		bool raw_first = i % 2;
		ws[i] = rs[i] = (struct sb_sample){1e-9, 0, 0};
		if ((o->side != (raw_first ? -1 : 1) &&
		     sb_once(o, &r, d, raw_first, raw_first ? &rs[i] : &ws[i])) ||
		    (o->side != (raw_first ? 1 : -1) &&
		     sb_once(o, &r, d, !raw_first, raw_first ? &ws[i] : &rs[i])))
			return -1;
	}
	struct sb_stat w = sb_median(ws, n), rw = sb_median(rs, n);
	char size[16], label[40];
	sb_size_label(d->size, size, sizeof size);
	snprintf(label, sizeof label, "%s (%s/%s)", p->label, p->journal_mode, p->synchronous);
	double ratio = rw.wall / w.wall;
	printf("%-8s %-26s %6zu %5zu | %10.0f %8.1f %6.2f | %10.0f %8.1f %6.2f | %5.3f%s\n",
	       size, label, d->n, d->batch, sb_rate(d, w.wall), sb_mibs(d, w.wall), w.cpu,
	       sb_rate(d, rw.wall), sb_mibs(d, rw.wall), rw.cpu, ratio,
	       ratio >= 0.95 ? "" : " < 0.95");
	fflush(stdout);
	return 0;
}

/* ---- section 2: MESSAGE compression threads ---- */

static void sb_msg_header(void)
{
	printf("\n== MESSAGE compression (zstd level 1), preset default, writer only ==\n");
	printf("%-8s %6s %5s %7s | %10s %10s %7s %7s | %8s\n", "size", "msgs", "batch",
	       "threads", "msgs/s", "in MiB/s", "cpu s", "out/in", "vs 1 thr");
}

static int sb_msg_case(const struct sb_opts *o, const struct sb_data *d)
{
	static struct sb_sample s[SB_MAX_THREADS][SB_MAX_REPEATS];
	unsigned n = sb_repeats(o, sb_t0, o->budget);
	struct sb_run r = {&sb_presets[0], BAG_COMPRESSION_MESSAGE, (unsigned)o->threads[0],
			   o->max_bag_size, o->raw_page_size, NULL, NULL, false};
	struct sb_sample warm;
	if (sb_once(o, &r, d, false, &warm)) /* untimed: the first run is slower */
		return -1;
	for (unsigned i = 0; i < n; i++)
		for (size_t k = 0; k < o->n_threads; k++) {
			size_t t = (i + k) % o->n_threads; /* rotate the order per repeat */
			r.threads = (unsigned)o->threads[t];
			if (sb_once(o, &r, d, false, &s[t][i]))
				return -1;
		}
	char size[16];
	sb_size_label(d->size, size, sizeof size);
	double one = 0;
	for (size_t t = 0; t < o->n_threads; t++) {
		struct sb_stat m = sb_median(s[t], n);
		if (o->threads[t] == 1)
			one = m.wall;
		printf("%-8s %6zu %5zu %7llu | %10.0f %10.1f %7.2f %7.3f | ", size, d->n, d->batch,
		       (unsigned long long)o->threads[t], sb_rate(d, m.wall), sb_mibs(d, m.wall),
		       m.cpu, m.out / ((double)d->n * (double)d->size));
		if (one > 0)
			printf("%7.2fx\n", one / m.wall);
		else
			printf("%8s\n", "-");
	}
	fflush(stdout);
	return 0;
}

/* ---- section 3: MCAP ---- */

/* A store the MCAP section compares, and how it writes a case's messages
 * into scratch directory `dir`: *file gets the storage file's path
 * (malloc'ed, also on error). */
struct sb_store;
typedef int (*sb_store_fn)(const struct sb_store *st, const struct sb_data *d, const char *dir,
			   struct sb_sample *s, char **file);

struct sb_store {
	const char *label;
	const char *storage_id; /* bag_writer's backend (NULL: sqlite3) */
	const char *preset;     /* the backend's preset, rosbag2's name (NULL: default) */
	/* The same preset as rosbag2_storage_mcap's SetOptionsForPreset sets
	 * it, as storage-config keys: for mcap_writer used directly. */
	const char *const *mcap_keys; /* key, value, ..., NULL */
	int zstd_level; /* the level that preset compresses at (mcap_writer's Fastest: -5) */
	sb_store_fn write;
	bool write_behind; /* --write-behind */
	bool direct;       /* always mcap_writer alone: the format's writer, no bag */
};

static int sb_store_writer(const struct sb_store *st, const struct sb_data *d, const char *dir,
			   struct sb_sample *s, char **file);
static int sb_store_mcap(const struct sb_store *st, const struct sb_data *d, const char *dir,
			 struct sb_sample *s, char **file);
static int sb_store_floor(const struct sb_store *st, const struct sb_data *d, const char *dir,
			  struct sb_sample *s, char **file);
static int sb_store_gather(const struct sb_store *st, const struct sb_data *d, const char *dir,
			   struct sb_sample *s, char **file);

static const char *const sb_mcap_default[] = {NULL};
static const char *const sb_mcap_zstd_fast[] = {"compression", "Zstd", "compressionLevel",
						"Fastest", "noChunkCRC", "true", NULL};

/* Entry 0 is the reference the others are compared with. The MCAP entries
 * write through mcap_writer directly until a backend named "mcap" is
 * registered; sb_mcap_bind then switches them to bag_writer (write =
 * sb_store_writer), the same path as sqlite3. */
static struct sb_store sb_stores[] = {
	{"sqlite3 default", NULL, NULL, NULL, 0, sb_store_writer, false, false},
	{"mcap", "mcap", NULL, sb_mcap_default, 0, sb_store_mcap, false, false},
	{"mcap zstd_fast", "mcap", "zstd_fast", sb_mcap_zstd_fast, -5, sb_store_mcap, false, false},
	{"mcap_writer", "mcap", NULL, sb_mcap_default, 0, sb_store_mcap, false, true},
	{"chunk floor", NULL, NULL, NULL, 0, sb_store_floor, false, true},
	{"gather floor", NULL, NULL, NULL, 0, sb_store_gather, false, true},
};
/* The floors replay the file of the mcap_writer row (mcap_floor.h). */
#define SB_MCAP_WRITER 3
#define SB_FLOOR 4
#define SB_GATHER 5
static const struct sb_ceiling *sb_floor_model; /* set by sb_mcap_case */
#define SB_N_STORES (sizeof sb_stores / sizeof sb_stores[0])
/* Contestants: the stores, then a write(2) ceiling per store but the first. */
#define SB_N_MCAP (2 * SB_N_STORES - 1)

/* Which path the MCAP stores take; returns a phrase for the output. */
static const char *sb_mcap_bind(bool write_behind)
{
	for (size_t i = 0; i < SB_N_STORES; i++)
		sb_stores[i].write_behind = write_behind && sb_stores[i].storage_id;
	if (!bag_storage_find("mcap"))
		return "mcap_writer directly (no \"mcap\" storage backend registered)";
	for (size_t i = 0; i < SB_N_STORES; i++)
		if (sb_stores[i].storage_id && !sb_stores[i].direct)
			sb_stores[i].write = sb_store_writer;
	return write_behind ? "bag_writer with storage_id \"mcap\", write_behind on (as record)"
			    : "bag_writer with storage_id \"mcap\" (the backend is registered)";
}

static int sb_store_writer(const struct sb_store *st, const struct sb_data *d, const char *dir,
			   struct sb_sample *s, char **file)
{
	struct sb_run r = {&sb_presets[0], BAG_COMPRESSION_NONE, 0, 0, 0, st->storage_id,
			   st->preset, st->write_behind};
	char *bag = bt_xasprintf("%s/bag", dir);
	int rc = sb_writer(&r, d, bag, s);
	*file = sb_writer_file(bag, st->storage_id);
	free(bag);
	return rc;
}

/* What rosbag2_storage_mcap writes around the messages: Header profile
 * ros2, one Schema, one Channel with its metadata keys, the rosbag2
 * Metadata record at close. */
static bt_status sb_mcap_open(const struct sb_store *st, const char *file,
			      struct mcap_writer **w, uint16_t *chan, struct bt_error *err)
{
	static const char *const meta[] = {"offered_qos_profiles", "", "topic_type_hash", ""};
	struct mcap_writer_options mo;
	mcap_writer_options_init(&mo);
	mo.write_behind = st->write_behind;
	bt_status rc = BT_OK;
	for (size_t i = 0; rc == BT_OK && st->mcap_keys[i]; i += 2)
		rc = mcap_writer_option_set(&mo, st->mcap_keys[i], st->mcap_keys[i + 1], err);
	uint16_t schema = 0;
	if (rc == BT_OK)
		rc = mcap_writer_open(w, file, &mo, "ros2", "bagtop store_bench", err);
	if (rc == BT_OK)
		rc = mcap_writer_add_schema(*w, SB_TOPIC_TYPE, "ros2msg", "", 0, &schema, err);
	if (rc == BT_OK)
		rc = mcap_writer_add_channel(*w, "/lidar/points", "cdr", schema, meta, 2, chan, err);
	return rc;
}

static int sb_store_mcap(const struct sb_store *st, const struct sb_data *d, const char *dir,
			 struct sb_sample *s, char **file)
{
	static const char *const kv[] = {"serialized_metadata", ""};
	*file = bt_xasprintf("%s/bag_0.mcap", dir);
	struct bt_error err = {0}, err2 = {0};
	struct mcap_writer *w = NULL;
	uint16_t chan = 0;
	double t0 = bench_now(), c0 = bench_cpu();
	bt_status rc = sb_mcap_open(st, *file, &w, &chan, &err);
	/* In batches lent to the writer, as the mcap backend writes them. */
	for (size_t b = 0; rc == BT_OK && b < d->n; b += d->batch) {
		size_t end = d->n - b < d->batch ? d->n : b + d->batch;
		mcap_writer_borrow_begin(w);
		for (size_t i = b; rc == BT_OK && i < end; i++)
			rc = mcap_writer_write(w, chan, 0, (uint64_t)d->msgs[i].timestamp,
					       (uint64_t)d->msgs[i].timestamp, d->msgs[i].data,
					       d->msgs[i].len, &err);
		mcap_writer_borrow_end(w);
	}
	if (rc == BT_OK)
		rc = mcap_writer_add_metadata(w, "rosbag2", kv, 1, &err);
	if (w && mcap_writer_close(w, &err2) != BT_OK && rc == BT_OK) {
		rc = BT_ERR_IO;
		err = err2;
	}
	s->wall = bench_now() - t0;
	s->cpu = bench_cpu() - c0;
	s->out_bytes = bench_file_size(*file);
	if (rc != BT_OK)
		fprintf(stderr, "store_bench: mcap_writer: %s\n", err.msg);
	return rc == BT_OK ? 0 : -1;
}

/* The bytes of one MCAP file cut into the pieces the ceiling writes, one
 * write(2) each: a Chunk record with the Message Index records after it
 * (the unit the writer hands the kernel); the first piece is what precedes
 * the first chunk, the last one takes the summary. A compressed chunk's
 * records are kept uncompressed too (plain): the ceiling compresses them
 * again, as the writer does, before it writes the piece. */
struct sb_piece {
	size_t off, len;             /* in bytes */
	size_t plain_off, plain_len; /* in plain; 0 bytes: nothing to compress */
};

struct sb_ceiling {
	char *bytes;
	size_t len;
	struct bt_buf plain;
	struct sb_piece *pieces;
	size_t n_pieces;
	struct mcap_z *z;
	struct bt_buf zbuf;
};

static void sb_ceiling_free(struct sb_ceiling *c)
{
	free(c->bytes);
	free(c->pieces);
	bt_buf_fini(&c->plain);
	bt_buf_fini(&c->zbuf);
	mcap_z_free(c->z);
	*c = (struct sb_ceiling){0};
}

/* Starts a piece at `at` (ends the previous one there). */
static void sb_ceiling_cut(struct sb_ceiling *c, size_t at)
{
	if (c->n_pieces)
		c->pieces[c->n_pieces - 1].len = at - c->pieces[c->n_pieces - 1].off;
	if ((c->n_pieces & (c->n_pieces - 1)) == 0) /* 0, 1, 2, 4, ...: grow */
		c->pieces = bt_xrealloc(c->pieces, (c->n_pieces ? 2 * c->n_pieces : 1) *
						   sizeof *c->pieces);
	c->pieces[c->n_pieces++] = (struct sb_piece){at, 0, 0, 0};
}

/* A compressed chunk at `rec` (prefix included): its records, decompressed,
 * become the current piece's plain bytes. */
static bt_status sb_ceiling_plain(struct sb_ceiling *c, const uint8_t *rec, uint64_t len,
				  struct bt_error *err)
{
	struct mcap_record r;
	bt_status st = mcap_record_parse(MCAP_OP_CHUNK, rec + MCAP_RECORD_PREFIX, len, &r, err);
	if (st != BT_OK || r.u.chunk.compression.len == 0)
		return st;
	size_t n = (size_t)r.u.chunk.uncompressed_size, off = c->plain.len;
	if (!c->z && !(c->z = mcap_z_new()))
		return bt_err_set(err, BT_ERR_NOMEM, "out of memory");
	if (bt_buf_reserve(&c->plain, n) != BT_OK)
		return bt_err_set(err, BT_ERR_NOMEM, "out of memory");
	st = mcap_z_decompress(c->z, r.u.chunk.compression, r.u.chunk.records.p,
			       (size_t)r.u.chunk.records.len, (uint8_t *)c->plain.data + off, n, err);
	c->plain.len += st == BT_OK ? n : 0;
	c->pieces[c->n_pieces - 1].plain_off = off;
	c->pieces[c->n_pieces - 1].plain_len = st == BT_OK ? n : 0;
	return st;
}

/* Reads `file` (an MCAP file a store just wrote) into *c. */
static int sb_ceiling_load(const char *file, struct sb_ceiling *c)
{
	struct bt_error err = {0};
	sb_ceiling_free(c);
	bt_status st = bt_fs_read_all(file, SIZE_MAX / 2, &c->bytes, &c->len, &err);
	if (st == BT_OK)
		sb_ceiling_cut(c, 0);
	size_t pos = MCAP_MAGIC_LEN;
	while (st == BT_OK && pos + MCAP_RECORD_PREFIX <= c->len) {
		const uint8_t *r = (const uint8_t *)c->bytes + pos;
		uint64_t len = mcap_get_u64(r + 1);
		if (r[0] == MCAP_OP_FOOTER || len > c->len - pos - MCAP_RECORD_PREFIX)
			break;
		if (r[0] == MCAP_OP_CHUNK) {
			if (pos > MCAP_MAGIC_LEN)
				sb_ceiling_cut(c, pos);
			st = sb_ceiling_plain(c, r, len, &err);
		}
		pos += MCAP_RECORD_PREFIX + (size_t)len;
	}
	if (st != BT_OK) {
		fprintf(stderr, "store_bench: %s: %s\n", file, err.msg);
		return -1;
	}
	sb_ceiling_cut(c, c->len);
	c->n_pieces--; /* the empty one the last cut started */
	return 0;
}

/* The ceiling's write: plain write(2), as it always was (the floor's
 * writev is bench_writev_all). */
static int sb_write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The ceiling: c's pieces into a new file, one write(2) each, a compressed
 * chunk's records compressed first at `level` (the result is the piece's
 * bytes: zstd is deterministic); timed from open to close like a store. */
static int sb_ceiling_write(struct sb_ceiling *c, int level, const char *dir,
			    struct sb_sample *s)
{
	char *path = bt_xasprintf("%s/ceiling.mcap", dir);
	struct bt_error err = {0};
	double t0 = bench_now(), c0 = bench_cpu();
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	int rc = fd < 0 ? -1 : 0;
	for (size_t i = 0; !rc && i < c->n_pieces; i++) {
		const struct sb_piece *p = &c->pieces[i];
		if (p->plain_len &&
		    mcap_z_compress(c->z, MCAP_COMPRESSION_ZSTD, level, c->plain.data + p->plain_off,
				    p->plain_len, &c->zbuf, &err) != BT_OK) {
			fprintf(stderr, "store_bench: ceiling: %s\n", err.msg);
			rc = -1;
		}
		if (!rc && sb_write_all(fd, c->bytes + p->off, p->len))
			rc = -1;
	}
	if (fd >= 0 && close(fd) != 0)
		rc = -1;
	s->wall = bench_now() - t0;
	s->cpu = bench_cpu() - c0;
	s->out_bytes = c->len;
	if (rc && !err.msg[0])
		perror("store_bench: write(2) ceiling");
	free(path);
	return rc;
}

/* A floor: the mcap_writer row's file laid out again from d's messages
 * with only the work every chunked writer does, the data copied or
 * gathered (mcap_floor.h); planned before the clock starts. */
static int sb_floor_run(const struct sb_store *st, const struct sb_data *d, const char *dir,
			struct sb_sample *s, char **file, enum mcap_floor_way way)
{
	*file = bt_xasprintf("%s/floor.mcap", dir);
	struct mcap_floor f;
	char err[160];
	if (!sb_floor_model || mcap_floor_plan(&f, (const uint8_t *)sb_floor_model->bytes,
					       sb_floor_model->len, err, sizeof err)) {
		fprintf(stderr, "store_bench: %s: %s\n", st->label,
			sb_floor_model ? err : "no mcap_writer file to replay");
		return -1;
	}
	double t0 = bench_now(), c0 = bench_cpu();
	int rc = mcap_floor_write(&f, *file, d->msgs, d->n, way);
	s->wall = bench_now() - t0;
	s->cpu = bench_cpu() - c0;
	s->out_bytes = bench_file_size(*file);
	if (rc)
		fprintf(stderr, "store_bench: %s: %s: %s\n", st->label, *file, strerror(errno));
	mcap_floor_fini(&f);
	return rc;
}

static int sb_store_floor(const struct sb_store *st, const struct sb_data *d, const char *dir,
			  struct sb_sample *s, char **file)
{
	return sb_floor_run(st, d, dir, s, file, MCAP_FLOOR_COPY);
}

static int sb_store_gather(const struct sb_store *st, const struct sb_data *d, const char *dir,
			   struct sb_sample *s, char **file)
{
	return sb_floor_run(st, d, dir, s, file, MCAP_FLOOR_GATHER);
}

/* The floor must have written the mcap_writer row's bytes exactly, or it
 * is no floor for that writer. */
static int sb_floor_same(const struct sb_ceiling *floor, const struct sb_ceiling *model,
			 const char *label)
{
	size_t n = floor->len < model->len ? floor->len : model->len, i = 0;
	while (i < n && floor->bytes[i] == model->bytes[i])
		i++;
	if (i == n && floor->len == model->len)
		return 0;
	fprintf(stderr, "store_bench: %s: its file differs from mcap_writer's at byte %zu "
		"(%zu and %zu bytes)\n", label, i, floor->len, model->len);
	return -1;
}

/* Runs contestant k (a store, or the ceiling of store k - SB_N_STORES + 1)
 * once in a fresh scratch directory; with `load`, a store's file becomes
 * ceil[k] first. */
static int sb_mcap_once(const struct sb_opts *o, size_t k, const struct sb_data *d,
			struct sb_ceiling *ceil, bool load, struct sb_sample *s)
{
	char *dir = bench_scratch_new(o->dir, "store_bench.");
	if (!dir)
		return -1;
	int rc;
	if (k < SB_N_STORES) {
		char *file = NULL;
		rc = sb_stores[k].write(&sb_stores[k], d, dir, s, &file);
		if (!rc && load)
			rc = sb_ceiling_load(file, &ceil[k]);
		free(file);
	} else {
		const struct sb_store *st = &sb_stores[k - SB_N_STORES + 1];
		rc = sb_ceiling_write(&ceil[k - SB_N_STORES + 1], st->zstd_level, dir, s);
	}
	if (o->verbose)
		fprintf(stderr, "  %-16s%s %zu x %zu B: %.3f s wall, %.3f s cpu\n",
			sb_stores[k < SB_N_STORES ? k : k - SB_N_STORES + 1].label,
			k < SB_N_STORES ? "" : " write(2)", d->n, d->size, s->wall, s->cpu);
	if (bench_rmtree(dir) != 0)
		rc = -1;
	free(dir);
	return rc;
}

static void sb_mcap_header(const char *via)
{
	printf("\n== MCAP vs write(2) of the same bytes in the same pieces (zstd: compressing "
	       "the same chunks first), and vs sqlite3 ==\n");
	printf("(MCAP through %s)\n", via);
	printf("%-8s %-16s %6s | %10s %8s %6s %7s | %10s %7s %7s | %9s\n", "size", "store",
	       "msgs", "msgs/s", "MiB/s", "cpu s", "out/in", "ceiling/s", "ratio", "cpu", "vs sqlite");
}

static void sb_mcap_report(const struct sb_data *d, struct sb_sample s[][SB_MAX_REPEATS],
			   unsigned n)
{
	char size[16];
	sb_size_label(d->size, size, sizeof size);
	double ref = sb_median(s[0], n).wall;
	for (size_t k = 0; k < SB_N_STORES; k++) {
		struct sb_stat m = sb_median(s[k], n);
		printf("%-8s %-16s %6zu | %10.0f %8.1f %6.2f %7.3f | ", size, sb_stores[k].label,
		       d->n, sb_rate(d, m.wall), sb_mibs(d, m.wall), m.cpu,
		       m.out / ((double)d->n * (double)d->size));
		if (k == 0) {
			printf("%10s %7s %7s | %9s\n", "-", "-", "-", "-");
			continue;
		}
		struct sb_stat c = sb_median(s[k + SB_N_STORES - 1], n);
		printf("%10.0f %7.3f%s %6.3f%s | %8.2fx\n", sb_rate(d, c.wall), c.wall / m.wall,
		       c.wall / m.wall >= 0.9 ? " " : "<", c.cpu / m.cpu, c.cpu / m.cpu >= 0.9 ? " " : "<",
		       ref / m.wall);
	}
	fflush(stdout);
}

/* One size: an untimed warm-up of every contestant (the stores' files are
 * the ceilings' bytes), then repeats in an order rotated per repeat. */
static int sb_mcap_case(const struct sb_opts *o, const struct sb_data *d)
{
	static struct sb_sample s[SB_N_MCAP][SB_MAX_REPEATS];
	struct sb_ceiling ceil[SB_N_STORES] = {0};
	unsigned n = sb_repeats(o, sb_mcap_t0, o->mcap_budget);
	struct sb_sample warm;
	int rc = 0;
	sb_floor_model = &ceil[SB_MCAP_WRITER];
	for (size_t k = 0; !rc && k < SB_N_MCAP; k++)
		rc = sb_mcap_once(o, k, d, ceil, k > 0 && k < SB_N_STORES, &warm);
	if (!rc)
		rc = sb_floor_same(&ceil[SB_FLOOR], &ceil[SB_MCAP_WRITER], "chunk floor");
	if (!rc)
		rc = sb_floor_same(&ceil[SB_GATHER], &ceil[SB_MCAP_WRITER], "gather floor");
	for (unsigned i = 0; !rc && i < n; i++)
		for (size_t j = 0; !rc && j < SB_N_MCAP; j++) {
			size_t k = (i + j) % SB_N_MCAP;
			rc = sb_mcap_once(o, k, d, ceil, false, &s[k][i]);
		}
	if (!rc)
		sb_mcap_report(d, s, n);
	for (size_t k = 0; k < SB_N_STORES; k++)
		sb_ceiling_free(&ceil[k]);
	return rc;
}

/* ---- options ---- */

static void sb_usage(FILE *f)
{
	fprintf(f,
		"usage: store_bench [--quick] [--dir DIR] [--size BYTES[,BYTES...]] [--messages N]\n"
		"                   [--batch N] [--repeats N] [--threads N[,N...]]\n"
		"                   [--pragmas J/S[,J/S...]] [--only raw|message|mcap]\n"
		"                   [--budget SECONDS] [--side writer|raw] [--verbose]\n"
		"                   [--max-bag-size BYTES] [--raw-page-size BYTES]\n"
		"                   [--mcap-bytes BYTES] [--mcap-budget SECONDS] [--write-behind]\n"
		"  --quick     small run (a few seconds)\n"
		"  --dir       where scratch bags are written (default $TMPDIR or /tmp)\n"
		"  --size      message sizes (default 1K,1M; MCAP section 100,1K,64K,1M)\n"
		"  --batch     messages per transaction at most (default 1000; also 64 MiB at most)\n"
		"  --messages  messages per case (default 200000 for sizes < 64 KiB, else 200 MiB\n"
		"              worth)\n"
		"  --repeats   timed runs per case after one untimed warm-up run; the median\n"
		"              is reported (default 5)\n"
		"  --threads   MESSAGE-mode thread counts (default 1,2,<online CPUs>)\n"
		"  --pragmas   journal_mode/synchronous pairs given to the writer as overrides,\n"
		"              instead of the presets (e.g. PERSIST/OFF,TRUNCATE/OFF,WAL/OFF)\n"
		"  --only      run one section\n"
		"  --budget    past this many seconds, later cases run once (default 110)\n"
		"  --mcap-budget  the same for the MCAP section, counted from its start\n"
		"              (default 45)\n"
		"  --side      writer|raw: run one contestant only (for perf; no ratio)\n"
		"  --verbose   print every run on stderr\n"
		"  --max-bag-size  give the writer this split size (e.g. 1T: the per-message\n"
		"              size check without splitting; with a small one, the writer\n"
		"              splits and the raw side does not)\n"
		"  --raw-page-size  PRAGMA page_size of the raw side (default 32768, the\n"
		"              writer's without a split size; 4096 is SQLite's and rosbag2's)\n"
		"  --mcap-bytes  MCAP section: message bytes per case at most (default 128M)\n"
		"  --write-behind  MCAP section: the MCAP files handed to the disk as they are\n"
		"              written and kept out of the page cache, as `bagtop record` writes\n"
		"              them (direct I/O, bt_dio, where the file system takes it, else\n"
		"              bt_wbehind); the ceiling stays plain write(2)\n");
}

static int sb_parse_pairs(struct sb_opts *o, const char *s)
{
	char *copy = bt_xstrdup(s), *save = NULL;
	o->n_pairs = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *slash = strchr(t, '/');
		if (!slash || o->n_pairs == SB_MAX_PAIRS)
			return -1; /* exits; `copy` is not worth freeing */
		*slash = 0;
		struct sb_pragmas *p = &o->pairs[o->n_pairs++];
		*p = (struct sb_pragmas){"override", bt_xstrdup(t), bt_xstrdup(slash + 1),
					 BAG_PRESET_NONE, true};
	}
	free(copy);
	return o->n_pairs ? 0 : -1;
}

static void sb_default_threads(struct sb_opts *o)
{
	unsigned cpus = bench_cpus();
	o->threads[0] = 1;
	o->threads[1] = 2;
	o->n_threads = 2;
	if (cpus > 2 && cpus <= 64)
		o->threads[o->n_threads++] = cpus;
}

static int sb_parse_one(struct sb_opts *o, int argc, char **argv, int *i)
{
	const char *v;
	uint64_t u;
	if (!strcmp(argv[*i], "--quick"))
		o->quick = true;
	else if (!strcmp(argv[*i], "--verbose"))
		o->verbose = true;
	else if (!strcmp(argv[*i], "--write-behind"))
		o->write_behind = true;
	else if (bench_opt(argc, argv, i, "--dir", &v))
		o->dir = v;
	else if (bench_opt(argc, argv, i, "--size", &v)) {
		o->n_sizes = bench_parse_list(v, true, SB_MIN_SIZE, 256u << 20, o->sizes, 4);
		o->n_mcap_sizes = o->n_sizes;
		memcpy(o->mcap_sizes, o->sizes, sizeof o->sizes);
		return o->n_sizes ? 0 : -1;
	}
	else if (bench_opt(argc, argv, i, "--batch", &v))
		return bt_parse_u64(v, 1, 1000000, &o->batch) == BT_OK ? 0 : -1;
	else if (bench_opt(argc, argv, i, "--max-bag-size", &v))
		return bt_parse_size(v, &o->max_bag_size) == BT_OK &&
				       o->max_bag_size >= BAG_MIN_SPLIT_SIZE ? 0 : -1;
	else if (bench_opt(argc, argv, i, "--mcap-bytes", &v))
		return bt_parse_size(v, &o->mcap_bytes) == BT_OK && o->mcap_bytes > 0 ? 0 : -1;
	else if (bench_opt(argc, argv, i, "--raw-page-size", &v))
		return bt_parse_u64(v, 512, 65536, &o->raw_page_size) == BT_OK &&
				       (o->raw_page_size & (o->raw_page_size - 1)) == 0 ? 0 : -1;
	else if (bench_opt(argc, argv, i, "--messages", &v))
		return bt_parse_u64(v, 1, 100000000, &o->messages) == BT_OK ? 0 : -1;
	else if (bench_opt(argc, argv, i, "--repeats", &v)) {
		if (bt_parse_u64(v, 1, SB_MAX_REPEATS, &u) != BT_OK)
			return -1;
		o->repeats = (unsigned)u;
	} else if (bench_opt(argc, argv, i, "--threads", &v))
		return (o->n_threads = bench_parse_list(v, false, 1, 256, o->threads, SB_MAX_THREADS))
			? 0 : -1;
	else if (bench_opt(argc, argv, i, "--pragmas", &v))
		return sb_parse_pairs(o, v);
	else if (bench_opt(argc, argv, i, "--only", &v)) {
		o->do_raw = !strcmp(v, "raw");
		o->do_message = !strcmp(v, "message");
		o->do_mcap = !strcmp(v, "mcap");
		return o->do_raw || o->do_message || o->do_mcap ? 0 : -1;
	} else if (bench_opt(argc, argv, i, "--side", &v)) {
		o->side = !strcmp(v, "writer") ? -1 : !strcmp(v, "raw") ? 1 : 2;
		return o->side == 2 ? -1 : 0;
	} else if (bench_opt(argc, argv, i, "--budget", &v)) {
		if (bt_parse_u64(v, 1, 86400, &u) != BT_OK)
			return -1;
		o->budget = (double)u;
	} else if (bench_opt(argc, argv, i, "--mcap-budget", &v)) {
		if (bt_parse_u64(v, 1, 86400, &u) != BT_OK)
			return -1;
		o->mcap_budget = (double)u;
	} else
		return -1;
	return 0;
}

static int sb_parse(struct sb_opts *o, int argc, char **argv)
{
	*o = (struct sb_opts){.dir = bench_default_dir(), .repeats = 5,
			      .batch = SB_BATCH_MAX_MSGS, .do_raw = true, .do_message = true,
			      .do_mcap = true,
			      .budget = 110, .raw_page_size = SB_WRITER_PAGE_SIZE,
			      .mcap_bytes = 128u << 20, .mcap_budget = 45};
	o->sizes[0] = 1024;
	o->sizes[1] = 1024 * 1024;
	o->n_sizes = 2;
	static const uint64_t mcap_sizes[] = {100, 1024, 64 * 1024, 1024 * 1024};
	memcpy(o->mcap_sizes, mcap_sizes, sizeof mcap_sizes);
	o->n_mcap_sizes = 4;
	o->n_pairs = sizeof sb_presets / sizeof sb_presets[0];
	memcpy(o->pairs, sb_presets, sizeof sb_presets);
	for (size_t i = 0; i < o->n_pairs; i++)
		bag_preset_pragmas(o->pairs[i].preset, &o->pairs[i].journal_mode,
				   &o->pairs[i].synchronous);
	sb_default_threads(o);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			sb_usage(stdout);
			exit(0);
		}
		if (sb_parse_one(o, argc, argv, &i)) {
			fprintf(stderr, "store_bench: bad option or value: %s\n", argv[i]);
			sb_usage(stderr);
			return -1;
		}
	}
	return 0;
}

/* Messages per case: ~200k small messages, ~200 MiB of large ones. */
static size_t sb_count(const struct sb_opts *o, size_t size)
{
	if (o->messages)
		return (size_t)o->messages;
	double total = o->quick ? 24 * BENCH_MIB : 200 * BENCH_MIB;
	size_t n = size < 64 * 1024 ? (o->quick ? 20000 : 200000) : (size_t)(total / (double)size);
	return n ? n : 1;
}

/* Messages per MCAP case: sb_count's, at most --mcap-bytes of them (the
 * section runs 5 contestants per repeat). */
static size_t sb_mcap_count(const struct sb_opts *o, size_t size)
{
	size_t n = sb_count(o, size);
	if (o->messages)
		return n;
	size_t cap = (size_t)(o->mcap_bytes / size);
	return n < cap ? n : cap ? cap : 1;
}

int main(int argc, char **argv)
{
	struct sb_opts o;
	if (sb_parse(&o, argc, argv))
		return 2;
	sb_t0 = bench_now();
	printf("store_bench: sqlite %s, %u CPUs online, load average %.2f at start, dir %s, "
	       "median of %u, raw page size %llu\n", sqlite3_libversion(), bench_cpus(),
	       bench_loadavg(), o.dir, o.repeats, (unsigned long long)o.raw_page_size);
	int rc = 0;
	if (o.do_raw) {
		sb_raw_header();
		for (size_t s = 0; !rc && s < o.n_sizes; s++) {
			struct sb_data d;
			sb_data_build(&d, (size_t)o.sizes[s], sb_count(&o, (size_t)o.sizes[s]),
				      (size_t)o.batch);
			for (size_t p = 0; !rc && p < o.n_pairs; p++)
				rc = sb_raw_case(&o, &d, &o.pairs[p]);
			sb_data_free(&d);
		}
	}
	if (o.do_message && !rc) {
		sb_msg_header();
		for (size_t s = 0; !rc && s < o.n_sizes; s++) {
			struct sb_data d;
			sb_data_build(&d, (size_t)o.sizes[s], sb_count(&o, (size_t)o.sizes[s]),
				      (size_t)o.batch);
			rc = sb_msg_case(&o, &d);
			sb_data_free(&d);
		}
	}
	if (o.do_mcap && !rc) {
		sb_mcap_t0 = bench_now();
		sb_mcap_header(sb_mcap_bind(o.write_behind));
		for (size_t s = 0; !rc && s < o.n_mcap_sizes; s++) {
			struct sb_data d;
			size_t size = (size_t)o.mcap_sizes[s];
			sb_data_build(&d, size, sb_mcap_count(&o, size), (size_t)o.batch);
			rc = sb_mcap_case(&o, &d);
			sb_data_free(&d);
		}
	}
	printf("\nstore_bench: %.1f s, load average %.2f at end%s\n", bench_now() - sb_t0,
	       bench_loadavg(), rc ? ", FAILED" : "");
	return rc ? 1 : 0;
}
