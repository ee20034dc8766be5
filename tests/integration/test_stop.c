/* The stop always stops, end to end with real processes (bagtop record,
 * tpub) on loopback-only DDS domains 180..186 and 88:
 *  - many topics and a small -b: the files split on their messages, not
 *    at every message (the split storm), and SIGINT ends the recording
 *    within 5 s with every message in a bag `bagtop check` accepts;
 *  - a wedged writer (BAGTOP_TEST_WRITE_DELAY_US): a second SIGINT, or
 *    --stop-timeout with a single SIGTERM, abandons what is not written
 *    yet within a couple of seconds; exit status 1, the log says what was
 *    abandoned, the bag passes `bagtop check`, its metadata counts equal
 *    its rows, and recorded + lost in the recorder = published;
 *  - slow FILE compression at the stop: a second SIGINT cancels it;
 *  - a writer stuck in the kernel: a third SIGINT, or 10 s after the
 *    abandon, ends the process (then `bagtop reindex` finishes the bag);
 *  - a slow but sound writer: one SIGINT and
 *    patience write everything (nothing is abandoned by itself before
 *    --stop-timeout), also when the signal comes twice at once (timeout). */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "test_util.h"

/* Waits for the recorder after a stop signal sent at `t_sig`; returns the
 * seconds it took. Fails (and kills it) after `limit` seconds. */
static double stop_wait(struct rec *r, double t_sig, double limit)
{
	r->rc = rec_wait(r->pid, limit - (rec_now() - t_sig), "bagtop record");
	double took = rec_now() - t_sig;
	r->out = rec_read(r->out_path);
	printf("%s\n(exit %d, %.2f s after the stop signal)\n", r->out, r->rc, took);
	return took;
}

/* The bag holds what metadata.yaml says, `check` passes, and what was
 * recorded plus what was lost in the recorder is what was published.
 * Returns the losses in the recorder. */
static unsigned long long stop_bag_honest(const char *dir, unsigned long long published)
{
	rec_check(dir);
	unsigned long long rows = tb_each(dir, 0, NULL, NULL); /* all topics */
	struct bag_metadata md;
	rec_metadata(dir, &md);
	assert_int_equal(md.message_count, rows);
	unsigned long long recorded = 0, lost = 0, per_file = 0;
	for (size_t i = 0; i < md.n_topics; i++) {
		assert_true(md.topics[i].has_stats);
		recorded += md.topics[i].stats.messages_recorded;
		lost += md.topics[i].stats.lost_in_recorder;
		assert_int_equal(md.topics[i].stats.lost_in_transport, 0);
	}
	for (size_t f = 0; f < md.n_files; f++)
		per_file += md.files[f].message_count;
	assert_int_equal(recorded, rows);
	assert_int_equal(per_file, rows);
	assert_int_equal(recorded + lost, published);
	bag_metadata_fini(&md);
	return lost;
}

/* 200 topics, -b 90K: a new file's topic rows, definitions and metadata
 * row alone exceed 90 KiB. Before, every message split again (thousands
 * of one-message files) and SIGINT could not end it. */
static void test_split_storm(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"-e", "^/storm_", "-b", "90K", NULL};
	rec_start(&r, 180, args, NULL);
	char *tout = bt_xasprintf("%s/tpub.txt", r.tmp);
	/* 200 x 20 messages of 200 bytes, once the recorder has had time to
	 * subscribe to all the topics. */
	char *extra[] = {"--topics", "200", "--count", "4000", "--size", "200", "--rate", "4000",
			 "--wait-readers", "1", "--start-delay", "4", "--linger", "1", NULL};
	pid_t tp = tpub_spawn(180, "rt/storm", extra, tout);
	long published = tpub_finish(tp, tout);
	assert_int_equal(published, 4000);
	rec_sleep(1.0);
	double t_sig = rec_now();
	kill(r.pid, SIGINT);
	stop_wait(&r, t_sig, 5.0);
	assert_int_equal(r.rc, 0);
	assert_non_null(strstr(r.out, "alone exceed --max-bag-size")); /* said once */
	assert_null(strstr(strstr(r.out, "alone exceed --max-bag-size") + 1,
			   "alone exceed --max-bag-size"));
	assert_int_equal(stop_bag_honest(r.dir, 4000), 0);
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	/* ~800 KiB of payload (and row overhead) in 90 KiB per file: about
	 * ten files, far from one per message. */
	printf("%zu files\n", md.n_files);
	assert_true(md.n_files >= 2 && md.n_files <= 40);
	for (size_t f = 0; f + 1 < md.n_files; f++)
		assert_true(md.files[f].message_count >= 100);
	bag_metadata_fini(&md);
	free(tout);
	rec_free(&r);
}

/* Publishes 600 messages of `size` bytes on `topic` in about a second; a
 * wedged writer has written only a few of them when this returns. */
static void stop_publish(struct rec *r, int domain, const char *topic, const char *size)
{
	char *tout = bt_xasprintf("%s/tpub.txt", r->tmp);
	char *extra[] = {"--count", "600", "--size", (char *)size, "--rate", "600",
			 "--wait-readers", "1", "--linger", "1", NULL};
	pid_t tp = tpub_spawn(domain, topic, extra, tout);
	assert_int_equal(tpub_finish(tp, tout), 600);
	free(tout);
}

/* A stop case of the table in main: the recorder's domain and topic, and
 * which way to stop it. */
struct stop_case {
	int domain;
	const char *topic;
	bool flag; /* wedged: --stop-timeout; stuck: a third SIGINT; patient:
		    * echoed signals */
};

/* Records c's topic (with --stop-timeout 2 when `stop_timeout`) with the
 * test hook `env`, and publishes 600 messages to it. */
static void stop_case_start(struct rec *r, const struct stop_case *c, bool stop_timeout,
			    const char *env)
{
	char dds[64];
	snprintf(dds, sizeof dds, "rt%s", c->topic);
	char *args[] = {(char *)c->topic, stop_timeout ? "--stop-timeout" : NULL, "2", NULL};
	rec_start(r, c->domain, args, env);
	stop_publish(r, c->domain, dds, "100");
}

/* A wedged writer (50 ms a message: 30 s for what was received) is
 * stopped: a second SIGINT 1 s after the first (`timeout` false), or a
 * single SIGTERM with --stop-timeout 2 (`timeout` true), abandons the rest
 * within a couple of seconds, says so, exits 1, and leaves an honest bag. */
static void test_stop_wedged(void **state)
{
	const struct stop_case *c = *state;
	bool timeout = c->flag;
	struct rec r;
	stop_case_start(&r, c, timeout, "BAGTOP_TEST_WRITE_DELAY_US=50000");
	if (!timeout) {
		kill(r.pid, SIGINT);
		rec_sleep(1.0); /* not an echo (APP_RUN_SIG_ECHO_NS) */
	}
	double t_sig = rec_now();
	kill(r.pid, timeout ? SIGTERM : SIGINT);
	double took = stop_wait(&r, t_sig, 10.0);
	if (timeout)
		assert_true(took >= 1.9 && took < 5.0);
	else
		assert_true(took < 3.0);
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.out, timeout ? "--stop-timeout 2 s: abandoning what is not "
					      "written yet"
					    : "Interrupt again: abandoning what is not written yet"));
	/* The log line: how many, and per topic. */
	char *per_topic = bt_xasprintf("): %s ", c->topic);
	const char *line = strstr(r.out, "abandoned at stop: ");
	assert_non_null(line);
	assert_non_null(strstr(line, per_topic));
	assert_non_null(strstr(r.out, "stopped before everything was written"));
	unsigned long long lost = stop_bag_honest(r.dir, 600);
	assert_true(lost > 0 && lost < 600);
	/* Every loss is the abandon's, under its own cause. */
	struct bag_metadata md;
	rec_metadata(r.dir, &md);
	unsigned long long abandoned = 0;
	for (size_t i = 0; i < md.n_topics; i++) {
		assert_true(md.topics[i].stats.has_causes);
		abandoned += md.topics[i].stats.causes.lost_abandoned;
		assert_int_equal(md.topics[i].stats.causes.lost_write, 0);
	}
	assert_int_equal(abandoned, lost);
	bag_metadata_fini(&md);
	assert_non_null(strstr(line, "lost in the recorder (lost_abandoned)"));
	free(per_topic);
	rec_free(&r);
}

/* FILE compression that is slow (1 s a file, test hook) with ~14 files of
 * 90 KiB to compress at the stop: a second SIGINT cancels it at once. The
 * files left plain are said, once, with the command that finishes them;
 * every message is in the bag, and after `bagtop reindex` (which
 * compresses them) `check` passes. Before, the stop waited for all. */
static void test_second_sigint_cancels_file_compression(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/fslow", "--compression-mode", "file", "-b", "90K", NULL};
	rec_start(&r, 184, args, "BAGTOP_TEST_COMPRESS_DELAY_US=1000000");
	stop_publish(&r, 184, "rt/fslow", "2000");
	kill(r.pid, SIGINT);
	rec_sleep(1.0);
	double t_sig = rec_now();
	kill(r.pid, SIGINT);
	double took = stop_wait(&r, t_sig, 10.0);
	assert_true(took < 3.0);
	assert_non_null(strstr(r.out, "the stop was abandoned before FILE compression finished"));
	assert_non_null(strstr(r.out, "'bagtop reindex"));
	char *out = NULL;
	assert_int_equal(tu_bagtop(&out, "reindex", r.dir, NULL), 0);
	free(out);
	assert_int_equal(stop_bag_honest(r.dir, 600), 0);
	rec_expect_count(r.dir, "/fslow", 600);
	rec_free(&r);
}

/* A writer stuck in the kernel at close (test hook: 30 s, deaf to the
 * abandon): after the abandon (a second SIGINT), a third SIGINT
 * (`third`), or else 10 s, ends the process there and then, exit 1, with
 * the line that says to reindex; and reindexing gives a bag `check`
 * accepts with every message committed before. Before, only kill -9. */
static void test_stop_stuck(void **state)
{
	const struct stop_case *c = *state;
	bool third = c->flag;
	struct rec r;
	stop_case_start(&r, c, false, "BAGTOP_TEST_CLOSE_STALL_US=30000000");
	kill(r.pid, SIGINT);
	rec_sleep(1.0);
	kill(r.pid, SIGINT);
	double t_sig = rec_now();
	if (third) {
		rec_sleep(1.0);
		t_sig = rec_now();
		kill(r.pid, SIGINT);
	}
	double took = stop_wait(&r, t_sig, 20.0);
	if (third)
		assert_true(took < 2.0);
	else
		assert_true(took >= 9.5 && took < 14.0);
	assert_int_equal(r.rc, 1);
	assert_non_null(strstr(r.out, "exiting without finishing the bag"));
	assert_non_null(strstr(r.out, "run 'bagtop reindex"));
	char *out = NULL;
	assert_int_equal(tu_bagtop(&out, "reindex", r.dir, NULL), 0);
	free(out);
	rec_check(r.dir);
	rec_expect_count(r.dir, c->topic, 600);
	rec_free(&r);
}

/* A slow writer (5 ms a message: 3 s for all, so some are left at the
 * stop) and one SIGINT (`flag` false), or stop signals sent at once as
 * timeout(1) sends its one (`flag` true: to bagtop, then to its process
 * group; two of a kind may merge while pending, so a SIGTERM between them
 * makes sure more than one is taken): one request, everything is written,
 * nothing abandoned, exit 0. Before, the echo abandoned what was not
 * written yet. */
static void test_patient_stop(void **state)
{
	const struct stop_case *c = *state;
	struct rec r;
	stop_case_start(&r, c, false, "BAGTOP_TEST_WRITE_DELAY_US=5000");
	double t_sig = rec_now();
	kill(r.pid, SIGINT);
	if (c->flag) {
		kill(r.pid, SIGTERM);
		kill(r.pid, SIGINT);
	}
	stop_wait(&r, t_sig, 30.0);
	assert_int_equal(r.rc, 0);
	assert_null(strstr(r.out, "abandoning"));
	assert_null(strstr(r.out, "abandoned at stop"));
	assert_int_equal(stop_bag_honest(r.dir, 600), 0);
	rec_expect_count(r.dir, c->topic, 600);
	rec_free(&r);
}

static const struct stop_case third_sigint = {185, "/stuck3", true}, stuck = {186, "/stuck", false},
				      second_sigint = {181, "/wedged", false},
				      stop_timeout = {182, "/wedged_t", true},
				      patient = {183, "/slow", false}, echoed = {88, "/echo", true};

REC_MAIN(
	cmocka_unit_test(test_split_storm),
	cmocka_unit_test(test_second_sigint_cancels_file_compression),
	TU_CASE_TEST(test_third_sigint_exits_now, test_stop_stuck, &third_sigint),
	TU_CASE_TEST(test_stuck_writer_given_up, test_stop_stuck, &stuck),
	TU_CASE_TEST(test_second_sigint_abandons, test_stop_wedged, &second_sigint),
	TU_CASE_TEST(test_stop_timeout_abandons, test_stop_wedged, &stop_timeout),
	TU_CASE_TEST(test_patient_stop_writes_all, test_patient_stop, &patient),
	TU_CASE_TEST(test_echoed_stop_signals_write_all, test_patient_stop, &echoed))
