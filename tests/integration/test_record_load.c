/* `bagtop record` under load and abuse, end to end: ddsperf's keyed topic
 * at 1 KiB and 100 KiB (every message well-formed, no sequence gap, the
 * summary agreeing with the bag), write-through (--max-cache-size 0),
 * SIGKILL then `bagtop reindex` (a second Ctrl-C while the bag is being
 * finished: test_stop.c). Real processes on loopback-only DDS domains
 * 124..130 and 170. Also the loss statistics in the bag, and their causes. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "test_util.h"


/* Stops the recorder (SIGINT), shows its output and returns topic's
 * summary line. */
static struct rec_tally stop_summary(struct rec *r, const char *topic)
{
	rec_stop(r, SIGINT);
	printf("%s", r->out);
	return rec_summary(r->out, topic);
}

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Reads DDSPerfRDataKS back: KeyedSeq {uint32 seq; uint32 keyval;
 * sequence<octet> baggage} in little-endian XCDR1 after the 4-byte
 * encapsulation header. Every message `len` bytes, sequence numbers
 * consecutive (one key). Returns the count. */
struct keyedseq {
	size_t len;
	unsigned long long n;
	uint32_t prev;
};

static void keyedseq_one(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			 void *arg)
{
	(void)t;
	struct keyedseq *k = arg;
	static const unsigned char hdr[4] = {0x00, 0x01, 0x00, 0x00};
	if (m->len != k->len || memcmp(m->data, hdr, 4) != 0)
		fail_msg("message %llu: %zu bytes or header %02x%02x, want %zu, 0001", k->n,
			 m->len, m->data[0], m->data[1], k->len);
	uint32_t seq = le32(m->data + 4);
	if (k->n > 0 && seq != k->prev + 1)
		fail_msg("message %llu: sequence %u after %u", k->n, seq, k->prev);
	if (le32(m->data + 12) != k->len - 16)
		fail_msg("message %llu: baggage length %u", k->n, le32(m->data + 12));
	k->prev = seq;
	k->n++;
}

static unsigned long long check_keyedseq(const char *dir, size_t len)
{
	struct keyedseq k = {.len = len};
	return tb_each(dir, 0, keyedseq_one, &k);
}

/* ddsperf pub at a rate the recorder sustains, for 3 s. */
static void ddsperf_case(int domain, const char *rate, const char *size, size_t len,
			 unsigned long long min_count)
{
	struct rec r;
	char *args[] = {"DDSPerfRDataKS", NULL};
	rec_start(&r, domain, args, NULL);
	char dom[16];
	snprintf(dom, sizeof dom, "%d", domain);
	char *pout = bt_xasprintf("%s/ddsperf.txt", r.tmp);
	char *argv[] = {"ddsperf", "-D", "3", "-i", dom, "pub", (char *)rate, "size", (char *)size,
			NULL};
	char *exe = bt_xasprintf("/usr/bin/ddsperf");
	argv[0] = access(exe, X_OK) == 0 ? exe : "ddsperf";
	pid_t pid = rec_spawn(argv, pout, NULL);
	int st = rec_wait(pid, 30.0, "ddsperf pub");
	if (st != 0)
		fail_msg("ddsperf exit %d: %s", st, rec_read(pout));
	struct rec_tally v = stop_summary(&r, "DDSPerfRDataKS");
	assert_int_equal(v.lost_transport, 0);
	assert_int_equal(v.lost_recorder, 0);
	unsigned long long n = check_keyedseq(r.dir, len);
	printf("ddsperf pub %s size %s: %llu messages in the bag\n", rate, size, n);
	assert_int_equal(n, v.recorded);
	if (n < min_count)
		fail_msg("only %llu messages recorded, want >= %llu", n, min_count);
	rec_check(r.dir);
	free(exe);
	free(pout);
	rec_free(&r);
}

static void test_record_ddsperf(void **state)
{
	(void)state;
	if (!tu_in_path("ddsperf")) {
		printf("SKIP: ddsperf not found in PATH (package cyclonedds-tools)\n");
		skip();
	}
	/* 3 s at the rate: allow for discovery before the first message. */
	ddsperf_case(124, "2000Hz", "1k", 1028, 4000);
	ddsperf_case(125, "100Hz", "100k", 102404, 200);
}

/* Write-through: the listener waits for the writer, so DDS delivery is
 * slowed to the writer's pace (reliable: nothing is dropped); the
 * publisher lingers so its unacknowledged samples are still resent. */
static void test_record_cache_zero(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/wt", "--max-cache-size", "0", NULL};
	char *extra[] = {"--size", "1000", "--count", "1000", "--rate", "5000",
			 "--wait-readers", "1", "--linger", "6", NULL};
	rec_session(&r, &(struct rec_session){126, args, "BAGTOP_TEST_CONSUMER_DELAY_US=2000",
					      "rt/wt", extra, 1000});
	struct rec_tally v = rec_summary(r.out, "/wt");
	assert_int_equal(v.recorded, 1000);
	assert_int_equal(v.lost_recorder, 0);
	rec_expect_count(r.dir, "/wt", 1000);
	rec_free(&r);
}

/* SIGKILL: every message received more than a second before the kill is
 * recovered by `bagtop reindex`, and the bag then passes `check`. */
static void test_record_sigkill_reindex(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/k", NULL};
	rec_start(&r, 127, args, NULL);
	char *extra[] = {"--count", "300", "--rate", "200", "--wait-readers", "1", "--linger", "4",
			 NULL};
	struct rec_pub tp = rec_pub_start(r.tmp, 127, "rt/k", extra);
	rec_sleep(1.0 + 300.0 / 200.0 + 1.5); /* matched, written, then 1.5 s */
	kill(r.pid, SIGKILL);
	assert_int_equal(rec_wait(r.pid, 10.0, "bagtop record"), 128 + SIGKILL);
	assert_int_equal(rec_pub_finish(&tp), 300);
	char *out = NULL;
	int rc = tu_bagtop(&out, "reindex", r.dir, NULL);
	if (rc != 0)
		fail_msg("reindex exit %d: %s", rc, out);
	printf("%s", out);
	free(out);
	rec_expect_count(r.dir, "/k", 300);
	rec_free(&r);
}

/* Losses in the bag: a tiny cache and a slowed writer, split every
 * second. metadata.yaml's statistics say per topic what the summary said,
 * and the files' figures add up to the totals. */
static void test_record_loss_statistics(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/ls", "--max-cache-size", "20000", "-d", "1", NULL};
	char *extra[] = {"--size", "1000", "--count", "3000", "--rate", "1500",
			 "--wait-readers", "1", NULL};
	rec_session(&r, &(struct rec_session){129, args, "BAGTOP_TEST_CONSUMER_DELAY_US=20000",
					      "rt/ls", extra, 3000});
	struct rec_tally v = rec_summary(r.out, "/ls");
	assert_true(v.lost_recorder > 0);
	assert_int_equal(v.recorded + v.lost_recorder, 3000);
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	assert_true(md.n_files >= 2);
	assert_int_equal(md.n_topics, 1);
	const struct bag_topic_info *ti = &md.topics[0];
	assert_true(ti->has_stats && ti->stats.losses_known);
	assert_int_equal(ti->stats.messages_recorded, v.recorded);
	assert_int_equal(ti->stats.lost_in_recorder, v.lost_recorder);
	assert_int_equal(ti->stats.lost_in_transport, v.lost_transport);
	unsigned long long msgs = 0, lost = 0;
	for (size_t f = 0; f < md.n_files; f++)
		for (size_t k = 0; k < md.files[f].n_topics_stats; k++) {
			msgs += md.files[f].topics_stats[k].stats.messages_recorded;
			lost += md.files[f].topics_stats[k].stats.lost_in_recorder;
		}
	assert_int_equal(msgs, v.recorded);
	assert_int_equal(lost, v.lost_recorder);
	bag_metadata_fini(&md);
	char *out = NULL;
	int rc = tu_bagtop(&out, "info", "-v", r.dir, NULL);
	assert_int_equal(rc, 0);
	char want[64];
	snprintf(want, sizeof want, "%llu", v.lost_recorder);
	assert_non_null(strstr(out, want));
	free(out);
	rec_check(r.dir);
	rec_free(&r);
}

/* MESSAGE compression slowed on purpose (5 ms a message, one thread)
 * behind a tiny cache: the cache overflows while the writer waits for the
 * compression thread, nearly all the time, so the losses are counted as
 * "compression behind" rather than plain cache overflow; the headless LOST
 * line names the cause and the bag's statistics keep it. */
static void test_record_compression_loss(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/cz", "--max-cache-size", "20000", "--compression-mode", "message",
			"--compression-threads", "1", NULL};
	char *extra[] = {"--size", "1000", "--count", "1000", "--rate", "1000",
			 "--wait-readers", "1", NULL};
	rec_session(&r, &(struct rec_session){170, args, "BAGTOP_TEST_COMPRESS_DELAY_US=5000",
					      "rt/cz", extra, 1000});
	struct rec_tally v = rec_summary(r.out, "/cz");
	assert_int_equal(v.recorded + v.lost_recorder, 1000);
	assert_non_null(strstr(r.out, "compression behind"));
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	const struct bag_stats *st = &md.topics[0].stats;
	assert_true(md.topics[0].has_stats && st->has_causes);
	printf("lost: compression %llu, cache %llu of %llu\n",
	       (unsigned long long)st->causes.lost_compression,
	       (unsigned long long)st->causes.lost_cache, v.lost_recorder);
	assert_int_equal(st->lost_in_recorder, v.lost_recorder);
	assert_int_equal(st->causes.lost_compression + st->causes.lost_cache, v.lost_recorder);
	/* At 1000 Hz against 200 compressed a second, most of the second is
	 * spent waiting for the compression thread. */
	assert_true(st->causes.lost_compression * 2 > v.lost_recorder);
	bag_metadata_fini(&md);
	rec_check(r.dir);
	rec_free(&r);
}

/* Messages of /be in the bag: count, and the first and last "hello N"
 * index (tpub writes "hello <index>"; the writer's sequence number is the
 * index + 1). */
struct be_range {
	unsigned long long n;
	long first, last;
};

static void be_range_one(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			 void *arg)
{
	(void)t;
	struct be_range *b = arg;
	long idx;
	/* CDR: 4-byte header, uint32 length, then the characters. */
	if (m->len < 14 || sscanf((const char *)m->data + 8, "hello %ld", &idx) != 1)
		fail_msg("message %llu is not tpub's", b->n);
	if (b->first < 0 || idx < b->first)
		b->first = idx;
	if (idx > b->last)
		b->last = idx;
	b->n++;
}

static unsigned long long be_range(const char *dir, long *first, long *last)
{
	struct be_range b = {0, -1, -1};
	tb_each(dir, 0, be_range_one, &b);
	*first = b.first;
	*last = b.last;
	return b.n;
}

/* Losses in transport: a best-effort publisher faster than a receive path
 * slowed on purpose (the socket buffer overflows). Every message missing
 * between the first and the last one received is a gap in the writer's
 * sequence numbers, counted exactly; what is lost after the last one
 * received leaves no gap and is not seen (the man page says so). */
static void test_record_transport_loss(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/be", NULL};
	rec_start(&r, 130, args, "BAGTOP_TEST_LISTENER_DELAY_US=2000");
	char *extra[] = {"--best-effort", "--size", "4000", "--count", "3000", "--rate", "3000",
			 "--wait-readers", "1", NULL};
	rec_publish(&r, 130, "rt/be", extra, 3000);
	rec_sleep(1.0); /* the slowed receive path catches up */
	struct rec_tally v = stop_summary(&r, "/be");
	long first, last;
	unsigned long long n = be_range(r.dir, &first, &last);
	printf("published 3000, received %llu (indices %ld..%ld), lost in transport %llu, "
	       "unseen after the last %ld\n", n, first, last, v.lost_transport, 2999 - last);
	assert_int_equal(n, v.recorded);
	assert_int_equal(v.lost_recorder, 0);
	assert_true(v.lost_transport > 0);
	assert_int_equal(v.lost_transport, (unsigned long long)(last - first + 1) - n);
	/* The bag says the same. */
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	assert_int_equal(md.n_topics, 1);
	assert_int_equal(md.topics[0].stats.lost_in_transport, v.lost_transport);
	bag_metadata_fini(&md);
	rec_check(r.dir);
	rec_free(&r);
}

REC_MAIN(
	cmocka_unit_test(test_record_ddsperf),
	cmocka_unit_test(test_record_cache_zero),
	cmocka_unit_test(test_record_sigkill_reindex),
	cmocka_unit_test(test_record_loss_statistics),
	cmocka_unit_test(test_record_compression_loss),
	cmocka_unit_test(test_record_transport_loss))
