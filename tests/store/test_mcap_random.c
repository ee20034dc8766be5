/* Randomized mcap_writer → mcap_reader round trips. Deterministic: the
 * seeds are fixed and the generator (xorshift64*) is our own, so a failure
 * names a seed that fails the same way on every run and machine
 * (MR_SEED=n runs that seed alone).
 *
 * Per seed, two files: writer options drawn from all that
 * mcap_writer_options offers (compression levels up to Slow: Slowest, zstd
 * 19, would take seconds), and in the second file the same with late
 * definitions and direct I/O drawn too (bt_dio forced on any file system,
 * or for real where the file system takes it: chunks then go to the file
 * from the chunk buffer, and lent data is copied, not pointed at);
 * 1-4 channels, some added in the middle of the file, also while a batch
 * is lent; messages of 0..4 KiB (in some files all of one size), a few of
 * 64 KiB and more (written from the caller's buffer when they fill an
 * uncompressed chunk), log times increasing, tied, earlier or anywhere;
 * written in batches, two in three lent to the writer (borrow_begin ..
 * borrow_end, their buffers overwritten after it, so that data the writer
 * failed to copy shows), the others from a buffer overwritten after each
 * write; channels and flushes between and inside batches, metadata and
 * attachments between. Each file is read back streamed (messages in the
 * order written), indexed (in log_time order, ties in the order written;
 * the summary used when there is one, its statistics as written) and by
 * recover, and every field and byte of every message compared.
 *
 * Chunk sizes and batch lengths cluster around 64, 128 and 256 messages of
 * 512 bytes or more (what the writer points at while borrowing), so that
 * chunks close holding exactly as many lent messages as the writer's ref
 * array has room for: the count at which a writev piece was written past
 * the end of its array (fixed in b150b30; a dozen of the seeds here wrote
 * it, at 64, 128 and 256 messages). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcap_reader.h"
#include "mcap_writer.h"
#include "test_bag.h"

#define MR_SEEDS 300u
#define MR_MSGS_MAX 1000u
#define MR_CHANNELS_MAX 4u
#define MR_REF_MIN 512u /* the writer's W_REF_MIN: lent data pointed at */
#define MR_MSG_PRE 31u  /* a Message record's bytes before its data */
#define MR_LARGE (64u * 1024u) /* the writer's W_OUT_FLUSH: large messages */
#define MR_LEN_MAX (MR_LARGE + 96u * 1024u)

struct mr_rng {
	uint64_t s; /* never 0 */
};

/* xorshift64* (Vigna): the same numbers on every platform. */
static uint64_t mr_next(struct mr_rng *r)
{
	r->s ^= r->s >> 12;
	r->s ^= r->s << 25;
	r->s ^= r->s >> 27;
	return r->s * 0x2545F4914F6CDD1Dull;
}

/* In [0, n), n > 0 (the modulo's bias does not matter here). */
static uint64_t mr_below(struct mr_rng *r, uint64_t n)
{
	return mr_next(r) % n;
}

/* In [lo, hi]. */
static uint64_t mr_range(struct mr_rng *r, uint64_t lo, uint64_t hi)
{
	return lo + mr_below(r, hi - lo + 1);
}

static bool mr_one_in(struct mr_rng *r, uint64_t n)
{
	return mr_below(r, n) == 0;
}

/* What was written, to be read back. */
struct mr_msg {
	uint16_t channel;
	uint32_t sequence;
	uint64_t log_time, publish_time;
	size_t from, len; /* its bytes: mr_noise[from .. from + len) */
};

struct mr_file {
	unsigned seed;
	bool side; /* the second pass: late definitions and direct I/O drawn too */
	struct mr_rng r;
	struct mcap_writer_options o;
	struct mcap_writer *w;
	size_t len_lo, len_hi; /* the usual message lengths */
	size_t k;              /* lent messages the chunk size and batches aim at */
	bool ordered;          /* log times never go back */
	uint64_t t;            /* the latest log time */
	uint16_t n_schemas, n_channels;
	uint16_t schema_of[MR_CHANNELS_MAX + 1]; /* by channel id */
	uint32_t n_meta, n_att;
	size_t n, want;
	uint64_t placed; /* chunks written from the chunk buffer (direct I/O) */
	struct mr_msg msgs[MR_MSGS_MAX];
};

/* How a failure names the pass (mr_seed) after the seed. */
#define MR_PASS(f) ((f)->side ? " (second pass)" : "")

static void mr_ok(const struct mr_file *f, bt_status st, const struct bt_error *err,
		  const char *what)
{
	if (st != BT_OK)
		fail_msg("seed %u%s: %s: %s", f->seed, MR_PASS(f), what, err->msg);
}

/* Random bytes that messages are cut from, at random offsets: as good as
 * bytes of their own for telling messages apart, and no cost to make or
 * check (under valgrind, generating them was a third of the time). */
#define MR_NOISE (2u * MR_LEN_MAX)
static uint8_t mr_noise[MR_NOISE];

static void mr_noise_init(void)
{
	struct mr_rng r = {1};
	for (size_t k = 0; k < MR_NOISE; k += 8) {
		uint64_t v = mr_next(&r);
		memcpy(mr_noise + k, &v, 8);
	}
}

/* ---- what to write ---- */

static void mr_options(struct mr_file *f)
{
	struct mcap_writer_options *o = &f->o;
	struct mr_rng *r = &f->r;
	static const enum mcap_compression comp[] = {
		MCAP_COMPRESSION_NONE, MCAP_COMPRESSION_NONE, MCAP_COMPRESSION_ZSTD,
		MCAP_COMPRESSION_LZ4};
	mcap_writer_options_init(o);
	o->compression = comp[mr_below(r, 4)];
	o->level = (enum mcap_level)mr_below(r, MCAP_LEVEL_SLOWEST);
	o->force_compression = mr_one_in(r, 4);
	o->no_chunking = mr_one_in(r, 8);
	o->test_pad_records = mr_one_in(r, 8);
	bool *often[] = {&o->no_chunk_crc, &o->no_attachment_crc, &o->enable_data_crc,
			 &o->no_summary_crc};
	bool *sometimes[] = {&o->no_message_index,    &o->no_summary,
			     &o->no_repeated_schemas, &o->no_repeated_channels,
			     &o->no_attachment_index, &o->no_metadata_index,
			     &o->no_chunk_index,      &o->no_statistics,
			     &o->no_summary_offsets};
	for (size_t i = 0; i < sizeof often / sizeof often[0]; i++)
		*often[i] = mr_one_in(r, 2);
	for (size_t i = 0; i < sizeof sometimes / sizeof sometimes[0]; i++)
		*sometimes[i] = mr_one_in(r, 6);
	if (!f->side)
		return;
	/* Drawn apart, so that the seed's other draws, and its file but for
	 * these, stay what they were in its first pass. */
	struct mr_rng side = {(f->seed + 1ull) * 0xD1B54A32D192ED03ull};
	o->late_definitions = mr_one_in(&side, 2);
	o->write_behind = !mr_one_in(&side, 4);
	o->test_dio_force = o->write_behind && !mr_one_in(&side, 3);
}

/* The file's usual message lengths: all one size (lent: pointed at), small
 * (copied), or anything up to 4 KiB and more. */
static void mr_lengths(struct mr_file *f)
{
	struct mr_rng *r = &f->r;
	switch (mr_below(r, 4)) {
	case 0:
		f->len_lo = f->len_hi = mr_range(r, MR_REF_MIN, 2048);
		break;
	case 1:
		f->len_lo = 0;
		f->len_hi = mr_range(r, 1, 700);
		break;
	default:
		f->len_lo = mr_below(r, 2048);
		f->len_hi = f->len_lo + mr_below(r, 4096);
	}
}

/* Tiny (a chunk per message or two), small, large, or what f->k messages
 * of the file's mean length fill: the k-th closes the chunk when they are
 * all that size. */
static uint64_t mr_chunk_size(struct mr_file *f)
{
	static const size_t k[] = {64, 64, 128, 256};
	struct mr_rng *r = &f->r;
	uint64_t rec = MR_MSG_PRE + (f->len_lo + f->len_hi) / 2;
	f->k = k[mr_below(r, 4)];
	switch (mr_below(r, 6)) {
	case 0:
		return mr_below(r, 300);
	case 1:
		return mr_range(r, 300, 16 * 1024);
	case 2:
	case 3:
		return f->k * rec - mr_below(r, rec);
	default:
		return mr_range(r, 16 * 1024, 400 * 1024);
	}
}

static size_t mr_len(struct mr_file *f)
{
	struct mr_rng *r = &f->r;
	if (f->len_lo != f->len_hi && mr_one_in(r, 250))
		return mr_range(r, MR_LARGE, MR_LEN_MAX);
	if (f->len_lo != f->len_hi && mr_one_in(r, 30))
		return 0;
	return mr_range(r, f->len_lo, f->len_hi);
}

static uint64_t mr_time(struct mr_file *f)
{
	struct mr_rng *r = &f->r;
	uint64_t pick = mr_below(r, 64);
	if (pick < 4) /* a tie */
		return f->t;
	if (!f->ordered && pick < 12) /* earlier */
		return f->t - mr_below(r, f->t < 100000 ? f->t + 1 : 100000);
	if (!f->ordered && pick < 13) /* anywhere */
		return mr_next(r);
	f->t += mr_range(r, 1, 1000);
	return f->t;
}

static void mr_draw_msg(struct mr_file *f, struct mr_msg *m)
{
	struct mr_rng *r = &f->r;
	m->channel = (uint16_t)mr_range(r, 1, f->n_channels);
	m->sequence = (uint32_t)mr_next(r);
	m->log_time = mr_time(f);
	m->publish_time = mr_one_in(r, 2) ? m->log_time : mr_next(r);
	m->len = mr_len(f);
	m->from = mr_below(r, MR_NOISE - m->len + 1);
}

/* A few, a few hundred, or f->k to 3 * f->k: chunks fill while they are
 * lent. */
static size_t mr_batch_len(struct mr_file *f)
{
	struct mr_rng *r = &f->r;
	size_t n;
	switch (mr_below(r, 4)) {
	case 0:
		n = mr_range(r, 1, 8);
		break;
	case 1:
		n = mr_range(r, f->k, 3 * f->k);
		break;
	default:
		n = mr_range(r, 1, 300);
	}
	return n < f->want - f->n ? n : f->want - f->n;
}

/* ---- writing ---- */

static void mr_add_channel(struct mr_file *f)
{
	if (f->n_channels == MR_CHANNELS_MAX)
		return;
	char topic[32];
	snprintf(topic, sizeof topic, "/mr/%u", f->n_channels + 1u);
	uint16_t schema = (uint16_t)mr_below(&f->r, f->n_schemas + 1u), id;
	const char *meta[] = {"offered_qos_profiles", "- history: 3"};
	struct bt_error err;
	mr_ok(f, mcap_writer_add_channel(f->w, topic, "cdr", schema, meta, 1, &id, &err), &err,
	      "add_channel");
	assert_int_equal(id, ++f->n_channels);
	f->schema_of[id] = schema;
}

/* Now and then, between messages: a channel, metadata, an attachment, a
 * flush (`inside` a batch, lent or not: only channels and flushes). */
static void mr_extras(struct mr_file *f, bool inside)
{
	struct mr_rng *r = &f->r;
	struct bt_error err;
	uint64_t pick = mr_below(r, inside ? 1000 : 40);
	if (pick == 0)
		mr_add_channel(f);
	if (pick == 1)
		mr_ok(f, mcap_writer_flush(f->w, mr_one_in(r, 8), &err), &err, "flush");
	if (pick == 2 && !inside) {
		const char *kv[] = {"k", "v", "serialized_metadata", "x"};
		mr_ok(f, mcap_writer_add_metadata(f->w, "m", kv, 2, &err), &err, "add_metadata");
		f->n_meta++;
	}
	if (pick == 3 && !inside) {
		mr_ok(f, mcap_writer_add_attachment(f->w, f->t, 7, "a.bin", "application/x", "abc",
						    3, &err),
		      &err, "add_attachment");
		f->n_att++;
	}
}

/* Draws and writes one batch, lent or not, from one buffer that is
 * overwritten as soon as the writer may no longer read it. */
static void mr_write_batch(struct mr_file *f)
{
	size_t n = mr_batch_len(f), total = 0;
	bool lent = !mr_one_in(&f->r, 3);
	struct mr_msg *m = &f->msgs[f->n];
	for (size_t i = 0; i < n; i++) {
		mr_draw_msg(f, &m[i]);
		total += m[i].len;
	}
	uint8_t *pool = malloc(total + 1);
	assert_non_null(pool);
	if (lent)
		mcap_writer_borrow_begin(f->w);
	struct bt_error err;
	for (size_t i = 0, at = 0; i < n; at += m[i++].len) {
		mr_extras(f, true);
		memcpy(pool + at, mr_noise + m[i].from, m[i].len);
		mr_ok(f,
		      mcap_writer_write(f->w, m[i].channel, m[i].sequence, m[i].log_time,
					m[i].publish_time, pool + at, m[i].len, &err),
		      &err, "write");
		if (!lent)
			memset(pool + at, 0xAA, m[i].len);
	}
	if (lent) {
		mcap_writer_borrow_end(f->w);
		memset(pool, 0xAA, total);
	}
	free(pool);
	f->n += n;
}

static void mr_write(struct mr_file *f, const char *path)
{
	struct mr_rng *r = &f->r;
	struct bt_error err;
	mr_options(f);
	mr_lengths(f);
	f->o.chunk_size = mr_chunk_size(f);
	f->ordered = mr_one_in(r, 4);
	f->t = mr_below(r, 1ull << 60);
	f->want = mr_one_in(r, 30) ? 0 : mr_range(r, 1, mr_one_in(r, 2) ? 200 : MR_MSGS_MAX);
	mr_ok(f, mcap_writer_open(&f->w, path, &f->o, "ros2", "bagtop test", &err), &err, "open");
	for (uint64_t k = mr_below(r, 3); k > 0; k--) {
		uint16_t id;
		mr_ok(f, mcap_writer_add_schema(f->w, "pkg/msg/T", "ros2msg", "int32 x", 7, &id, &err),
		      &err, "add_schema");
		assert_int_equal(id, ++f->n_schemas);
	}
	for (uint64_t k = mr_range(r, 1, MR_CHANNELS_MAX); k > 0; k--)
		mr_add_channel(f);
	while (f->n < f->want) {
		mr_write_batch(f);
		mr_extras(f, false);
	}
	f->placed = mcap_writer_dio_counts(f->w).placed;
	mr_ok(f, mcap_writer_close(f->w, &err), &err, "close");
}

/* ---- reading back ---- */

/* m is what was written as message i. */
static void mr_check_msg(const struct mr_file *f, const struct mcap_message *m, size_t i,
			 const char *how)
{
	if (i >= f->n)
		fail_msg("seed %u%s, %s read: more than the %zu messages written", f->seed,
			 MR_PASS(f), how, f->n);
	const struct mr_msg *e = &f->msgs[i];
	if (m->channel_id != e->channel || m->sequence != e->sequence ||
	    m->log_time != e->log_time || m->publish_time != e->publish_time ||
	    m->data.len != e->len || (e->len && memcmp(m->data.p, mr_noise + e->from, e->len) != 0))
		fail_msg("seed %u%s, %s read: message %zu of %zu (channel %u, %zu bytes) differs",
			 f->seed, MR_PASS(f), how, i, f->n, e->channel, e->len);
}

static void mr_streamed(const struct mr_file *f, const char *path)
{
	struct mcap_reader *r = tb_mcap_streamed(path);
	struct bt_error err;
	size_t n = 0;
	uint32_t meta = 0, att = 0;
	for (bool end = false;;) {
		struct mcap_item it;
		mr_ok(f, mcap_reader_next(r, &it, &end, &err), &err, "streamed read");
		if (end)
			break;
		if (it.rec.opcode == MCAP_OP_MESSAGE)
			mr_check_msg(f, &it.rec.u.message, n++, "streamed");
		meta += it.rec.opcode == MCAP_OP_METADATA;
		att += it.rec.opcode == MCAP_OP_ATTACHMENT;
	}
	if (n != f->n || meta != f->n_meta || att != f->n_att)
		fail_msg("seed %u%s, streamed read: %zu messages, %u metadata, %u attachments",
			 f->seed, MR_PASS(f), n, meta, att);
	mcap_reader_close(r);
}

struct mr_key {
	uint64_t log_time;
	size_t i;
};

static int mr_key_cmp(const void *a, const void *b)
{
	const struct mr_key *x = a, *y = b;
	if (x->log_time != y->log_time)
		return x->log_time < y->log_time ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The order an indexed read gives: by log_time, ties as written. */
static struct mr_key *mr_log_order(const struct mr_file *f)
{
	struct mr_key *k = malloc((f->n + 1) * sizeof *k);
	assert_non_null(k);
	for (size_t i = 0; i < f->n; i++)
		k[i] = (struct mr_key){f->msgs[i].log_time, i};
	qsort(k, f->n, sizeof *k, mr_key_cmp);
	return k;
}

/* Every channel is known to r as added (once the messages are read: the
 * read meets those the summary does not repeat). */
static void mr_check_channels(const struct mr_file *f, struct mcap_reader *r)
{
	for (uint16_t id = 1; id <= f->n_channels; id++) {
		const struct mcap_channel *c = mcap_reader_channel(r, id);
		char topic[32];
		int len = snprintf(topic, sizeof topic, "/mr/%u", id);
		if (!c || c->topic.len != (uint32_t)len ||
		    memcmp(c->topic.p, topic, c->topic.len) != 0 || c->schema_id != f->schema_of[id])
			fail_msg("seed %u%s, indexed read: channel %u wrong or missing", f->seed, MR_PASS(f), id);
	}
}

/* The file's statistics record, as written. */
static void mr_check_statistics(const struct mr_file *f, const struct mcap_statistics *st)
{
	uint64_t lo = 0, hi = 0;
	for (size_t i = 0; i < f->n; i++) {
		uint64_t t = f->msgs[i].log_time;
		lo = i == 0 || t < lo ? t : lo;
		hi = i == 0 || t > hi ? t : hi;
	}
	if (st->message_count != f->n || st->schema_count != f->n_schemas ||
	    st->channel_count != f->n_channels || st->metadata_count != f->n_meta ||
	    st->attachment_count != f->n_att || st->message_start_time != lo ||
	    st->message_end_time != hi)
		fail_msg("seed %u%s: statistics of %llu messages, %u channels, %u metadata, "
			 "%u attachments, times %llu..%llu",
			 f->seed, MR_PASS(f), (unsigned long long)st->message_count, st->channel_count,
			 st->metadata_count, st->attachment_count,
			 (unsigned long long)st->message_start_time,
			 (unsigned long long)st->message_end_time);
}

static void mr_check_summary(const struct mr_file *f, const struct mcap_summary *s)
{
	const struct mcap_writer_options *o = &f->o;
	/* A summary the reader turned down (bad CRC, an index out of place)
	 * would go unseen otherwise: it scans the data section instead. */
	bool summary = !o->no_summary && (!o->no_repeated_channels || !o->no_statistics);
	if ((o->no_summary && s->from_summary) || (summary && !s->from_summary))
		fail_msg("seed %u%s: summary %s (%s)", f->seed, MR_PASS(f),
			 s->from_summary ? "used" : "not used", s->scan_why.msg);
	if (s->has_statistics && s->statistics.message_count != f->n)
		fail_msg("seed %u%s: statistics count %llu messages of %zu", f->seed, MR_PASS(f),
			 (unsigned long long)s->statistics.message_count, f->n);
	if (s->from_summary && !o->no_statistics) {
		assert_true(s->has_statistics);
		mr_check_statistics(f, &s->statistics);
	}
	if (s->from_summary && ((!o->no_metadata_index && s->n_metadata != f->n_meta) ||
				(!o->no_attachment_index && s->n_attachments != f->n_att)))
		fail_msg("seed %u%s: %zu metadata and %zu attachments indexed", f->seed, MR_PASS(f),
			 s->n_metadata, s->n_attachments);
}

static void mr_indexed(const struct mr_file *f, const char *path)
{
	const struct mcap_summary *s;
	struct mcap_reader *r = tb_mcap_indexed(path, &s);
	struct bt_error err;
	mr_check_summary(f, s);
	struct mr_key *order = mr_log_order(f);
	mr_ok(f, mcap_reader_messages_begin(r, &err), &err, "messages_begin");
	size_t n = 0;
	for (bool end = false;;) {
		struct mcap_message m;
		mr_ok(f, mcap_reader_messages_next(r, &m, &end, &err), &err, "indexed read");
		if (end)
			break;
		mr_check_msg(f, &m, n < f->n ? order[n].i : n, "indexed");
		n++;
	}
	if (n != f->n)
		fail_msg("seed %u%s, indexed read: %zu messages of %zu", f->seed, MR_PASS(f), n, f->n);
	mr_check_channels(f, r);
	free(order);
	mcap_reader_close(r);
}

static void mr_recover(const struct mr_file *f, const char *path)
{
	struct mcap_reader *r;
	struct bt_error err;
	struct mcap_recovery rec;
	mr_ok(f, mcap_reader_open(&r, path, &err), &err, "open");
	mr_ok(f, mcap_reader_recover(r, &rec, &err), &err, "recover");
	if (!rec.complete || rec.messages != f->n)
		fail_msg("seed %u%s, recover: %llu messages of %zu (%s)", f->seed, MR_PASS(f),
			 (unsigned long long)rec.messages, f->n, rec.complete ? "" : rec.why.msg);
	mcap_reader_close(r);
}

/* Both passes of a seed; the chunks its second file placed. */
static uint64_t mr_seed(struct mr_file *f, unsigned seed, const char *dir)
{
	uint64_t placed = 0;
	for (int pass = 0; pass < 2; pass++) {
		memset(f, 0, sizeof *f);
		f->seed = seed;
		f->side = pass == 1;
		f->r.s = (seed + 1ull) * 0x9E3779B97F4A7C15ull; /* odd multiplier: never 0 */
		char path[4096];
		snprintf(path, sizeof path, "%s/r%u_%d.mcap", dir, seed, pass);
		mr_write(f, path);
		mr_streamed(f, path);
		mr_indexed(f, path);
		mr_recover(f, path);
		assert_int_equal(unlink(path), 0);
		placed += f->placed;
	}
	return placed;
}

static void test_random_round_trips(void **state)
{
	const char *dir = *state;
	struct mr_file *f = malloc(sizeof *f);
	assert_non_null(f);
	mr_noise_init();
	const char *one = getenv("MR_SEED");
	if (one)
		mr_seed(f, (unsigned)strtoul(one, NULL, 10), dir);
	uint64_t placed = 0, files = 0;
	for (unsigned seed = 0; !one && seed < MR_SEEDS; seed++) {
		uint64_t n = mr_seed(f, seed, dir);
		placed += n;
		files += n != 0;
	}
	/* the seeds reach direct I/O's placed chunks */
	if (!one)
		fprintf(stderr, "test_mcap_random: %llu chunks placed in %llu files\n",
			(unsigned long long)placed, (unsigned long long)files);
	assert_true(one || files >= 10);
	free(f);
}

TU_MAIN(TU_SCRATCH_TEST(test_random_round_trips))
