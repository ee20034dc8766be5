/* Snapshot mode and repeat-transient-local, end to end: `bagtop record
 * --snapshot-mode` with real publishers (tpub) on loopback-only DDS domains
 * 150..154, 159 and 191, triggered by `bagtop snapshot --pid` and SIGUSR1; each
 * snapshot file read back on its own. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bag_reader.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "test_util.h"

/* One snapshot file: per topic count, the /tl timestamps, the range. */
struct snapfile {
	unsigned long long fast, tl;
	int64_t tl_time[4];
	int64_t first, last; /* smallest and largest timestamp */
};

static void snapfile_one(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			 void *arg)
{
	(void)t;
	struct snapfile *f = arg;
	if (m->timestamp < f->first)
		f->first = m->timestamp;
	if (m->timestamp > f->last)
		f->last = m->timestamp;
	if (strcmp(m->name, "/fast") == 0) {
		f->fast++;
	} else if (strcmp(m->name, "/tl") == 0) {
		if (f->tl < 4)
			f->tl_time[f->tl] = m->timestamp;
		f->tl++;
	} else {
		fail_msg("unexpected topic %s", m->name);
	}
}

static void snapfile_read(const char *path, struct snapfile *f)
{
	memset(f, 0, sizeof *f);
	f->first = INT64_MAX;
	f->last = INT64_MIN;
	tb_each(path, 0, snapfile_one, f);
}

/* `bagtop snapshot --pid PID`: exit status, output in *out. */
static int snapshot_cmd(pid_t pid, char **out)
{
	char p[32];
	snprintf(p, sizeof p, "%ld", (long)pid);
	return tu_bagtop(out, "snapshot", "--pid", p, "--timeout", "20", NULL);
}

static void chomp(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

/* `bagtop snapshot` on the recorder pid must succeed: the file it names
 * (malloc'ed) is returned, read into *f. */
static char *snapshot_take(pid_t pid, struct snapfile *f)
{
	char *out = NULL;
	int rc = snapshot_cmd(pid, &out);
	if (rc != 0)
		fail_msg("bagtop snapshot: exit %d: %s", rc, out);
	chomp(out);
	snapfile_read(out, f);
	return out;
}

/* Waits until the recorder's output contains `what`. */
static void wait_output(const struct rec *r, const char *what)
{
	if (!rec_wait_said(r->out_path, what, 20.0))
		fail_msg("\"%s\" never appeared", what);
}

/* The file a "snapshot N: ... written to FILE" line names. */
static char *snapshot_file_of(const struct rec *r, int n)
{
	char key[64];
	snprintf(key, sizeof key, "snapshot %d: ", n);
	wait_output(r, key);
	char *text = rec_read(r->out_path);
	const char *p = strstr(strstr(text, key), "written to ");
	assert_non_null(p);
	p += strlen("written to ");
	size_t len = strcspn(p, "\n");
	char *file = bt_xasprintf("%.*s", (int)len, p);
	free(text);
	return file;
}

/* "E messages evicted from the buffer, B still in it" from the summary. */
static unsigned long long not_written(const char *out)
{
	const char *p = strstr(out, "not written by design: ");
	if (!p)
		fail_msg("no snapshot summary in: %s", out);
	unsigned long long ev, buf;
	if (sscanf(p, "not written by design: %llu messages evicted from the buffer, %llu still",
		   &ev, &buf) != 2)
		fail_msg("cannot parse: %.100s", p);
	return ev + buf;
}

/* The topic's count in the recorder's summary; nothing lost. */
static unsigned long long recorded_of(const char *out, const char *name)
{
	struct rec_tally v = rec_summary(out, name);
	assert_int_equal(v.lost_transport + v.lost_recorder, 0);
	return v.recorded;
}

/* 1. /tl published once at start, then /fast evicts it from a small
 * buffer: each of two snapshots (bagtop snapshot, SIGUSR1) holds /tl
 * exactly once, at the file's first timestamp; every message published is
 * written, evicted or still buffered: none lost. */
static void test_snapshot_repeat_tl(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"-a", "--snapshot-mode", "--max-cache-size", "200K",
			"--repeat-transient-local", "/tl", NULL};
	rec_start(&r, 150, args, NULL);
	char *tl_args[] = {"--transient-local", "--count", "1", "--wait-readers", "1",
			   "--linger", "12", NULL};
	struct rec_pub tl = rec_pub_start(r.tmp, 150, "rt/tl", tl_args);
	rec_sleep(1.0);
	char *fast_args[] = {"--size", "1000", "--count", "3000", "--rate", "1000",
			     "--wait-readers", "1", NULL};
	struct rec_pub fast = rec_pub_start(r.tmp, 150, "rt/fast", fast_args);
	rec_sleep(2.0);

	struct snapfile f1;
	char *out = snapshot_take(r.pid, &f1);
	assert_true(out[0] == '/'); /* an absolute path */
	printf("snapshot 1 %s: %llu /fast, %llu /tl\n", out, f1.fast, f1.tl);
	assert_int_equal(f1.tl, 1);
	assert_true(f1.tl_time[0] == f1.first);
	assert_true(f1.fast > 100);
	free(out);

	rec_sleep(0.5);
	kill(r.pid, SIGUSR1);
	char *file2 = snapshot_file_of(&r, 2);
	struct snapfile f2;
	snapfile_read(file2, &f2);
	assert_int_equal(f2.tl, 1);
	assert_true(f2.tl_time[0] == f2.first);
	assert_true(f2.first > f1.last);
	assert_int_equal(rec_pub_finish(&fast), 3000);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(rec_pub_finish(&tl), 1);
	/* Every arrival (3000 + 1) is in a file, evicted, or still buffered. */
	/* The status line names the file of the snapshot just written; no
	 * "split: now writing" line names it once more as if it were the
	 * next one's. */
	assert_null(strstr(r.out, "split: now writing"));
	const char *base2 = strrchr(file2, '/') + 1;
	char *stop = strstr(r.out, "Interrupt");
	assert_non_null(stop);
	*stop = '\0';
	const char *last = r.out, *p;
	while ((p = strstr(last, " topics | ")) != NULL)
		last = p + 1;
	if (strncmp(last + strcspn(last, "\n") - strlen(base2), base2, strlen(base2)) != 0)
		fail_msg("the last status line does not name %s: %.200s", base2, last);
	*stop = 'I';
	unsigned long long rec_fast = recorded_of(r.out, "/fast");
	unsigned long long rec_tl = recorded_of(r.out, "/tl");
	assert_int_equal(rec_fast, f1.fast + f2.fast);
	assert_int_equal(rec_fast + rec_tl + not_written(r.out), 3001);
	rec_check(r.dir);
	free(file2);
	rec_free(&r);
}

/* 2. --snapshot-post 1: the messages of the second after the trigger are
 * in the same file, and the next snapshot starts after them. */
static void test_snapshot_post(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/fast", "--snapshot-mode", "--max-cache-size", "100K",
			"--snapshot-post", "1", NULL};
	rec_start(&r, 151, args, NULL);
	char *fast_args[] = {"--size", "500", "--count", "3000", "--rate", "500",
			     "--wait-readers", "1", NULL};
	struct rec_pub fast = rec_pub_start(r.tmp, 151, "rt/fast", fast_args);
	rec_sleep(2.0);
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int64_t t_trigger = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	struct snapfile f1;
	char *out = snapshot_take(r.pid, &f1);
	double after = (double)(f1.last - t_trigger) / 1e9;
	printf("snapshot with post: %llu messages, last %.3f s after the trigger\n", f1.fast,
	       after);
	assert_true(after > 0.8 && after < 1.5);
	free(out);
	rec_sleep(0.5);
	struct snapfile f2;
	out = snapshot_take(r.pid, &f2);
	assert_true(f2.first > f1.last);
	free(out);
	assert_int_equal(rec_pub_finish(&fast), 3000);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	unsigned long long rec_fast = recorded_of(r.out, "/fast");
	assert_int_equal(rec_fast, f1.fast + f2.fast);
	assert_int_equal(rec_fast + not_written(r.out), 3000);
	rec_check(r.dir);
	rec_free(&r);
}

/* 3. Refusals: nothing buffered; not in snapshot mode. Exit 1, the
 * recorder's reason on one line, nothing written. */
static void test_snapshot_refused(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/none", "--snapshot-mode", "--max-cache-size", "1M", NULL};
	rec_start(&r, 152, args, NULL);
	char *out = NULL;
	assert_int_equal(snapshot_cmd(r.pid, &out), 1);
	assert_non_null(strstr(out, "nothing buffered"));
	free(out);
	rec_stop(&r, SIGINT);
	assert_non_null(strstr(r.out, "Snapshot mode: 0 snapshots"));
	rec_free(&r);

	char *args2[] = {"/none", NULL};
	rec_start(&r, 153, args2, NULL);
	assert_int_equal(snapshot_cmd(r.pid, &out), 1);
	assert_non_null(strstr(out, "not recording in snapshot mode"));
	free(out);
	rec_stop(&r, SIGINT);
	rec_free(&r);

	assert_int_equal(snapshot_cmd(1, &out), 1); /* init is no recorder */
	assert_non_null(strstr(out, "not a running bagtop record"));
	free(out);
}

/* 4. Usage errors: exit 2, one line. */
static void test_snapshot_usage(void **state)
{
	(void)state;
	static const char *const cases[][6] = {
		{"record", "-a", "--snapshot-post", "1", NULL},
		{"record", "-a", "--snapshot-mode", "--max-cache-size", "0", NULL},
		{"record", "-a", "--repeat-transient-local", "/x=0", NULL},
		{"record", "-a", "--repeat-transient-local", "/x=many", NULL},
		{"snapshot", NULL},
		{"snapshot", "--pid", "nope", NULL},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *argv[8] = {getenv("BAGTOP_BIN")};
		for (size_t k = 0; cases[i][k]; k++)
			argv[k + 1] = (char *)cases[i][k];
		char *out = NULL;
		int rc = tu_run(argv, &out);
		if (rc != 2 || strchr(out, '\n') != out + strlen(out) - 1)
			fail_msg("%s %s: exit %d: %s", cases[i][0], cases[i][1] ? cases[i][1] : "",
				 rc, out);
		free(out);
	}
}

/* Per file: messages and timestamps of up to four topics. */
struct filestat {
	const char *names[4];
	unsigned long long n[4];
	int64_t first[4], last[4];
	int64_t max; /* the file's last timestamp */
};

static void filestat_one(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			 void *arg)
{
	(void)t;
	struct filestat *f = arg;
	if (m->timestamp > f->max)
		f->max = m->timestamp;
	for (int i = 0; i < 4 && f->names[i]; i++) {
		if (strcmp(m->name, f->names[i]) != 0)
			continue;
		f->n[i]++;
		if (m->timestamp < f->first[i])
			f->first[i] = m->timestamp;
		if (m->timestamp > f->last[i])
			f->last[i] = m->timestamp;
	}
}

static void filestat_read(const char *path, struct filestat *f)
{
	for (int i = 0; i < 4; i++) {
		f->n[i] = 0;
		f->first[i] = INT64_MAX;
		f->last[i] = INT64_MIN;
	}
	f->max = INT64_MIN;
	tb_each(path, 0, filestat_one, f);
}

/* 5. Repeat at split (-d 1): every later file starts with /tl1 (depth 1)
 * and the five /tl5 (depth 5), stamped with the previous file's last
 * timestamp, exactly once; /tl1 re-published mid-way is recorded once and
 * only the next files repeat it. */
static void test_repeat_split(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/fast", "/tl1", "/tl5", "-d", "1", "--repeat-transient-local", "/tl1",
			"/tl5=5", NULL};
	rec_start(&r, 154, args, NULL);
	char *tl1_args[] = {"--transient-local", "--count", "1", "--wait-readers", "1",
			    "--linger", "8", NULL};
	char *tl5_args[] = {"--transient-local", "--depth", "5", "--count", "5", "--rate", "100",
			    "--wait-readers", "1", "--linger", "8", NULL};
	struct rec_pub p1 = rec_pub_start(r.tmp, 154, "rt/tl1", tl1_args);
	struct rec_pub p5 = rec_pub_start(r.tmp, 154, "rt/tl5", tl5_args);
	rec_sleep(0.5);
	char *fast_args[] = {"--size", "200", "--count", "3500", "--rate", "1000",
			     "--wait-readers", "1", NULL};
	struct rec_pub pf = rec_pub_start(r.tmp, 154, "rt/fast", fast_args);
	/* The re-publish: a second writer on /tl1, after the first split. */
	char *again_args[] = {"--count", "1", "--wait-readers", "1", "--start-delay", "1.8",
			      NULL};
	struct rec_pub p2 = rec_pub_start(r.tmp, 154, "rt/tl1", again_args);
	assert_int_equal(rec_pub_finish(&pf), 3500);
	assert_int_equal(rec_pub_finish(&p2), 1);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(rec_pub_finish(&p1), 1);
	assert_int_equal(rec_pub_finish(&p5), 5);

	struct filestat prev = {.names = {"/tl1", "/tl5", "/fast"}};
	char *path = bt_xasprintf("%s/bag_0.db3", r.dir);
	filestat_read(path, &prev);
	assert_int_equal(prev.n[0], 1);
	assert_int_equal(prev.n[1], 5);
	unsigned long long tl1_total = prev.n[0], repeats_seen = 0;
	int files = 1, republished_in = -1;
	for (;; files++) {
		free(path);
		path = bt_xasprintf("%s/bag_%d.db3", r.dir, files);
		if (access(path, F_OK) != 0)
			break;
		struct filestat f = {.names = {"/tl1", "/tl5", "/fast"}};
		filestat_read(path, &f);
		printf("file %d: /tl1 %llu, /tl5 %llu, /fast %llu\n", files, f.n[0], f.n[1], f.n[2]);
		/* The repeats: at the previous file's last timestamp. */
		assert_int_equal(f.n[1], 5);
		assert_true(f.first[1] == prev.max && f.last[1] == prev.max);
		assert_true(f.first[0] == prev.max);
		repeats_seen++;
		if (f.n[0] == 2) { /* the re-publish landed here, once */
			assert_int_equal(republished_in, -1);
			republished_in = files;
			assert_true(f.last[0] > prev.max);
		} else {
			assert_int_equal(f.n[0], 1);
		}
		tl1_total += f.n[0];
		prev = f;
	}
	free(path);
	assert_true(files >= 3);
	assert_true(republished_in >= 1);
	/* Originals: 1 + the re-publish; the rest are repeats, one per file. */
	assert_int_equal(tl1_total, 2 + repeats_seen);
	rec_check(r.dir);
	rec_free(&r);
}

/* VmRSS of pid in bytes, 0 when unreadable. */
static unsigned long long rss_of(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	char *text = rec_read(path);
	const char *p = strstr(text, "VmRSS:");
	unsigned long long kb = 0;
	if (p == NULL || sscanf(p, "VmRSS: %llu kB", &kb) != 1)
		kb = 0;
	free(text);
	return kb * 1024;
}

/* 6. Memory: 120 MB pass through an 8 MiB snapshot buffer (a snapshot
 * written mid-way); the recorder's RSS grows by no more than the buffer
 * twice (the one being written and the one filling), the post list and a
 * generous 24 MiB for DDS and the store; the TL store holds one message. */
static void test_snapshot_memory(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/big", "/tl", "--snapshot-mode", "--max-cache-size", "8M",
			"--repeat-transient-local", "/tl", NULL};
	rec_start(&r, 159, args, NULL);
	char *tl_args[] = {"--transient-local", "--count", "1", "--wait-readers", "1",
			   "--linger", "10", NULL};
	struct rec_pub pt = rec_pub_start(r.tmp, 159, "rt/tl", tl_args);
	rec_sleep(0.5);
	unsigned long long base = rss_of(r.pid), peak = base;
	char *big_args[] = {"--size", "20000", "--count", "6000", "--rate", "1500",
			    "--wait-readers", "1", NULL};
	struct rec_pub pb = rec_pub_start(r.tmp, 159, "rt/big", big_args);
	bool triggered = false;
	double t0 = rec_now();
	for (;;) {
		if (tu_poll(pb.pid) != TU_RUNNING) {
			break;
		}
		unsigned long long now = rss_of(r.pid);
		if (now > peak)
			peak = now;
		if (!triggered && rec_now() - t0 > 2.0) {
			kill(r.pid, SIGUSR1);
			triggered = true;
		}
		if (rec_now() - t0 > 30.0)
			fail_msg("the publisher did not finish within 30 s");
		rec_sleep(0.05);
	}
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(rec_pub_finish(&pt), 1);
	free(pb.out_path); /* ended above: its output is not read */
	const unsigned long long mib = 1024 * 1024;
	printf("RSS: %.1f MiB at start, %.1f MiB at the peak\n", (double)base / (double)mib,
	       (double)peak / (double)mib);
	assert_true(base > 0);
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
	/* ASan's quarantine keeps freed memory (256 MiB) and TSan's shadow
	 * grows with it: RSS says nothing about the bound there. The plain
	 * build checks it. */
	printf("RSS bound not checked under a sanitizer\n");
#else
	assert_true(peak - base <= 3 * 8 * mib + 24 * mib);
#endif
	assert_non_null(strstr(r.out, "snapshot 1: "));
	rec_check(r.dir);
	rec_free(&r);
}

/* One `bagtop snapshot --pid PID` started as a process, its output to `out`. */
static pid_t snapshot_spawn(pid_t pid, const char *out)
{
	char p[32];
	snprintf(p, sizeof p, "%ld", (long)pid);
	char *argv[] = {getenv("BAGTOP_BIN"), "snapshot", "--pid", p, "--timeout", "30", NULL};
	return rec_spawn(argv, out, NULL);
}

/* 7. Two `bagtop snapshot --pid` at once, five rounds: each gets its own
 * answer. Both a file (two different ones), or one a file and the other
 * the refusal that another snapshot is being written (true: its sibling's
 * is); never the same file twice, never both refused. */
static void test_snapshot_concurrent(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/fast", "--snapshot-mode", "--max-cache-size", "50M", NULL};
	rec_start(&r, 191, args, NULL);
	char *fast_args[] = {"--size", "1000", "--count", "40000", "--rate", "4000",
			     "--wait-readers", "1", NULL};
	struct rec_pub fast = rec_pub_start(r.tmp, 191, "rt/fast", fast_args);
	rec_sleep(2.0);
	char *files[10] = {0};
	size_t n_files = 0;
	for (int round = 0; round < 5; round++) {
		char *oa = bt_xasprintf("%s/a%d.txt", r.tmp, round);
		char *ob = bt_xasprintf("%s/b%d.txt", r.tmp, round);
		pid_t a = snapshot_spawn(r.pid, oa), b = snapshot_spawn(r.pid, ob);
		int rc[2] = {rec_wait(a, 40.0, "bagtop snapshot"),
			     rec_wait(b, 40.0, "bagtop snapshot")};
		char *text[2] = {rec_read(oa), rec_read(ob)};
		printf("round %d: [%d] %s[%d] %s", round, rc[0], text[0], rc[1], text[1]);
		assert_true(rc[0] == 0 || rc[1] == 0);
		for (int k = 0; k < 2; k++) {
			if (rc[k] != 0) {
				assert_int_equal(rc[k], 1);
				assert_non_null(strstr(text[k], "still being written"));
				continue;
			}
			chomp(text[k]);
			assert_true(text[k][0] == '/');
			for (size_t i = 0; i < n_files; i++)
				if (strcmp(files[i], text[k]) == 0)
					fail_msg("round %d: %s answered twice", round, text[k]);
			struct snapfile f;
			snapfile_read(text[k], &f);
			assert_true(f.fast > 0);
			files[n_files++] = bt_xstrdup(text[k]);
		}
		free(text[0]);
		free(text[1]);
		free(oa);
		free(ob);
		rec_sleep(0.3); /* the buffer fills again */
	}
	kill(fast.pid, SIGTERM);
	(void)rec_wait(fast.pid, 10.0, "tpub");
	free(fast.out_path); /* stopped early: its output is not read */
	rec_stop(&r, SIGINT);
	rec_check(r.dir);
	char key[64];
	snprintf(key, sizeof key, "Snapshot mode: %zu snapshots", n_files);
	if (strstr(r.out, key) == NULL)
		fail_msg("expected \"%s\" in: %s", key, r.out);
	for (size_t i = 0; i < n_files; i++)
		free(files[i]);
	rec_free(&r);
}

REC_MAIN(
	cmocka_unit_test(test_snapshot_repeat_tl),
	cmocka_unit_test(test_snapshot_post),
	cmocka_unit_test(test_snapshot_refused),
	cmocka_unit_test(test_snapshot_usage),
	cmocka_unit_test(test_repeat_split),
	cmocka_unit_test(test_snapshot_memory),
	cmocka_unit_test(test_snapshot_concurrent))
