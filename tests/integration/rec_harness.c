/* rec_harness — drives the real `bagtop record` (BAGTOP_BIN) and the test
 * publisher (BAGTOP_TPUB) as processes on a loopback-only DDS domain, and
 * reads the bags they leave. Shared by the record integration tests. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "test_util.h"

double rec_now(void)
{
	return tu_now();
}

void rec_sleep(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

char *rec_read(const char *path)
{
	char *text = NULL;
	size_t len;
	if (bt_fs_read_all(path, 1 << 22, &text, &len, NULL) != BT_OK)
		return bt_xasprintf("%s", "");
	return text;
}

bool rec_wait_said(const char *path, const char *what, double secs)
{
	double end = rec_now() + secs;
	for (;;) {
		char *text = rec_read(path);
		bool found = strstr(text, what) != NULL;
		free(text);
		if (found)
			return true;
		if (rec_now() > end)
			return false;
		rec_sleep(0.05);
	}
}

pid_t rec_spawn(char *const argv[], const char *out_path, const char *env)
{
	return tu_spawn(argv, &(struct tu_spawn_opts){.out_path = out_path, .env = env});
}

int rec_wait(pid_t pid, double secs, const char *what)
{
	int rc = tu_wait(pid, secs);
	if (rc == TU_TIMED_OUT)
		fail_msg("%s did not exit within %.0f s", what, secs);
	return rc;
}

/* Starts `bagtop record ARGS... --domain D -o DIR --no-tui`, waits for
 * "Recording to" and a second for discovery. */
void rec_start(struct rec *r, int domain, char *const args[], const char *env)
{
	memset(r, 0, sizeof *r);
	r->tmp = tu_mkdtemp("record");
	r->dir = bt_xasprintf("%s/bag", r->tmp);
	r->out_path = bt_xasprintf("%s/stdout.txt", r->tmp);
	char dom[16];
	snprintf(dom, sizeof dom, "%d", domain);
	char *argv[32] = {getenv("BAGTOP_BIN"), "record"};
	size_t n = 2;
	for (size_t i = 0; args[i] && n < 24; i++)
		argv[n++] = args[i];
	if (domain >= 0) {
		argv[n++] = "--domain";
		argv[n++] = dom;
	}
	argv[n++] = "-o";
	argv[n++] = r->dir;
	argv[n++] = "--no-tui";
	argv[n] = NULL;
	r->pid = rec_spawn(argv, r->out_path, env);
	double end = rec_now() + 15.0;
	for (;;) {
		char *text = rec_read(r->out_path);
		int found = strstr(text, "Recording to") != NULL;
		free(text);
		if (found)
			break;
		if (tu_poll(r->pid) != TU_RUNNING) {
			text = rec_read(r->out_path);
			fail_msg("bagtop record exited early: %s", text);
		}
		if (rec_now() > end) {
			tu_stop(r->pid, SIGKILL, -1);
			fail_msg("bagtop record never said \"Recording to\"");
		}
		rec_sleep(0.05);
	}
	rec_sleep(1.0);
}

void rec_stop(struct rec *r, int sig)
{
	rec_sleep(1.0);
	kill(r->pid, sig);
	r->rc = rec_wait(r->pid, 30.0, "bagtop record");
	r->out = rec_read(r->out_path);
	if (r->rc != 0)
		fail_msg("bagtop record exit %d: %s", r->rc, r->out);
}

void rec_free(struct rec *r)
{
	tu_rmrf(r->tmp);
	free(r->tmp);
	free(r->dir);
	free(r->out_path);
	free(r->out);
}

void rec_check(const char *dir)
{
	tu_check_bag(dir);
}

void rec_metadata(const char *dir, struct bag_metadata *md)
{
	struct bt_error err;
	if (bag_metadata_read(dir, md, &err) != BT_OK)
		fail_msg("%s/metadata.yaml: %s", dir, err.msg);
}

bool rec_harness_ready(void)
{
	if (getenv("BAGTOP_BIN") && getenv("BAGTOP_TPUB"))
		return true;
	fprintf(stderr, "BAGTOP_BIN / BAGTOP_TPUB not set\n");
	return false;
}

int rec_harness_run(const char *name, const struct CMUnitTest *tests, size_t n)
{
	if (!rec_harness_ready())
		return 77;
	return _cmocka_run_group_tests(name, tests, n, NULL, NULL);
}

/* Spawns tpub: --domain D --topic T --type string plus extra args. */
pid_t tpub_spawn(int domain, const char *topic, char *const extra[], const char *out_path)
{
	char dom[16];
	snprintf(dom, sizeof dom, "%d", domain);
	char *argv[40] = {getenv("BAGTOP_TPUB"), "--domain", dom, "--topic", (char *)topic,
			  "--type", "string"};
	size_t n = 7;
	for (size_t i = 0; extra[i] && n < 38; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	return rec_spawn(argv, out_path, NULL);
}

/* Waits for a tpub; asserts exit 0 and returns N of "tpub: wrote N". */
long tpub_finish(pid_t pid, const char *out_path)
{
	int rc = rec_wait(pid, 30.0, "tpub");
	char *text = rec_read(out_path);
	if (rc != 0)
		fail_msg("tpub exit %d: %s", rc, text);
	long n = -1;
	const char *p = strstr(text, "tpub: wrote ");
	if (!p || sscanf(p, "tpub: wrote %ld", &n) != 1)
		fail_msg("tpub said: %s", text);
	free(text);
	return n;
}

struct rec_pub rec_pub_start(const char *dir, int domain, const char *topic,
			     char *const extra[])
{
	static unsigned n_pubs; /* names the output files apart */
	struct rec_pub p = {.out_path = bt_xasprintf("%s/tpub-%u.txt", dir, n_pubs++)};
	p.pid = tpub_spawn(domain, topic, extra, p.out_path);
	return p;
}

long rec_pub_finish(struct rec_pub *p)
{
	long n = tpub_finish(p->pid, p->out_path);
	free(p->out_path);
	p->out_path = NULL;
	return n;
}

void rec_publish(const struct rec *r, int domain, const char *topic, char *const extra[],
		 long want)
{
	struct rec_pub p = rec_pub_start(r->tmp, domain, topic, extra);
	long n = rec_pub_finish(&p);
	if (n != want)
		fail_msg("tpub on %s wrote %ld messages, not %ld", topic, n, want);
}

void rec_session(struct rec *r, const struct rec_session *s)
{
	rec_start(r, s->domain, s->args, s->env);
	rec_publish(r, s->domain, s->topic, s->extra, s->count);
	rec_stop(r, SIGINT);
	printf("%s", r->out);
}

struct rec_tally rec_summary(const char *out, const char *name)
{
	struct rec_tally v;
	char *key = bt_xasprintf("\n  %s ", name);
	const char *line = strstr(out, key);
	if (!line)
		fail_msg("no summary line for %s in: %s", name, out);
	if (sscanf(line + strlen(key), "%llu recorded lost %llu transport, %llu recorder",
		   &v.recorded, &v.lost_transport, &v.lost_recorder) != 3)
		fail_msg("cannot parse: %.120s", line + 1);
	free(key);
	return v;
}

void counts_free(struct bag_counts *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->name[i]);
		free(c->type[i]);
	}
}

static void bag_count_one(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			  void *arg)
{
	struct bag_counts *c = arg;
	size_t i;
	for (i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], m->name))
			break;
	if (i == c->n) {
		assert_true(c->n < REC_MAX_TOPICS);
		c->name[i] = bt_xasprintf("%s", m->name);
		c->type[i] = bt_xasprintf("%s", t ? t->topic.type : "?");
		c->n++;
	}
	c->count[i]++;
	c->total++;
}

/* Messages per topic as read from the bag (only topics with messages). */
void bag_count(const char *dir, struct bag_counts *c)
{
	memset(c, 0, sizeof *c);
	tb_each(dir, 0, bag_count_one, c);
}

unsigned long long counts_of(const struct bag_counts *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->name[i], name))
			return c->count[i];
	return 0;
}

void rec_expect_count(const char *dir, const char *topic, unsigned long long n)
{
	assert_int_equal(tb_count(dir, topic, TB_ALL), n);
	rec_check(dir);
}
