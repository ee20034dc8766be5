/* crash_bench — does a bag survive its writer being killed with SIGKILL in
 * the middle of a transaction, per SQLite journal_mode / synchronous pair?
 *
 * DESIGN
 * For every pair (MEMORY/OFF = rosbag2's default, PERSIST/OFF, TRUNCATE/OFF,
 * WAL/OFF, WAL/NORMAL = rosbag2's resilient) and batch size B (1000, 10000):
 * 1. Rate: in this process, bag_writer writes --rate-messages 1 KiB
 *    messages in batches of B with the pair as override; median msgs/s of 3
 *    runs (open .. close).
 * 2. Kills: a forked child writes the same kind of bag until killed; after
 *    each bag_writer_write that returned BT_OK (= committed) it writes the
 *    committed count to a pipe. The parent waits for the first count, then
 *    sleeps a uniformly random time in [0, 3 batch periods) (the period from
 *    step 1) and sends SIGKILL, so kills land in every phase: inserting,
 *    committing, between batches. It drains the pipe for the last count C,
 *    opens <bag>_0.db3 with plain sqlite3 read-write (as a recovering reader:
 *    SQLite rolls back a hot journal or replays the WAL), runs
 *    PRAGMA integrity_check, and reads every message in id order. Message k
 *    (0-based) must have id k + 1, timestamp BASE + k and the payload
 *    cb_payload(k), byte for byte.
 *    - corrupt: open, integrity_check or a read failed / complained;
 *    - lost: committed messages (k < C) not present intact;
 *    - bad: a row whose content is not what was written;
 *    - torn: rows present beyond C other than exactly one whole batch (the
 *      one in flight may have committed before the child could report it).
 * The parent holds no SQLite connection when it forks; the child writes
 * without compression, so it has no thread.
 *
 * Bounds: the child stops by itself after CB_CHILD_SECONDS or
 * CB_CHILD_MESSAGES; bags are written under --dir (default $TMPDIR or /tmp)
 * and removed after each check. */
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bag_writer.h"
#include "bench_util.h"
#include "bt_mem.h"
#include "bt_parse.h"

#define CB_BASE_TIME INT64_C(1700000000000000000)
#define CB_MSG_SIZE 1024u
#define CB_CHILD_SECONDS 20.0
#define CB_CHILD_MESSAGES 2000000u
#define CB_MAX_MODES 8
#define CB_MAX_BATCHES 4
#define CB_RATE_REPEATS 3

struct cb_mode {
	const char *journal_mode, *synchronous;
};

static const struct cb_mode cb_default_modes[] = {
	{"MEMORY", "OFF"}, {"PERSIST", "OFF"}, {"TRUNCATE", "OFF"},
	{"WAL", "OFF"},	   {"WAL", "NORMAL"},
};

struct cb_opts {
	const char *dir;
	unsigned kills;
	uint64_t rate_messages;
	uint64_t batches[CB_MAX_BATCHES];
	size_t n_batches;
	struct cb_mode modes[CB_MAX_MODES];
	size_t n_modes;
	uint64_t seed;
};

/* The outcome of one cell (mode x batch). */
struct cb_cell {
	double rate; /* msgs/s, median */
	unsigned kills, corrupt, runs_lost, bad_runs, torn, early_exit, errors;
	unsigned plus_batch; /* intact runs holding the in-flight batch too */
	uint64_t lost_rows, committed_sum, rows_sum;
};

/* ---- payload ---- */

/* Message k: CDR header, k, then a pattern from k; CB_MSG_SIZE bytes. */
static void cb_payload(uint64_t k, uint8_t *out)
{
	out[0] = 0x00;
	out[1] = 0x01;
	out[2] = out[3] = 0x00;
	memcpy(out + 4, &k, 8);
	for (size_t i = 12; i < CB_MSG_SIZE; i++)
		out[i] = (uint8_t)(k * 31 + i * 7 + (i >> 8));
}

/* ---- writing (rate runs and the child) ---- */

struct cb_writer {
	struct bag_writer *w;
	struct bag_message *m;
	uint8_t *buf;
	size_t batch;
	uint64_t next;
};

static int cb_open(struct cb_writer *cw, const char *bag, const struct cb_mode *mode,
		   size_t batch, struct bt_error *err)
{
	struct bag_writer_options o = {0};
	o.uri = bag;
	o.ros_distro = "";
	o.journal_mode = mode->journal_mode;
	o.synchronous = mode->synchronous;
	*cw = (struct cb_writer){NULL, bt_xcalloc(batch, sizeof *cw->m),
				 bt_xmalloc(batch * CB_MSG_SIZE), batch, 0};
	if (bag_writer_open(&o, &cw->w, err) != BT_OK)
		return -1;
	struct bag_qos q;
	bag_qos_default(&q);
	struct bag_topic t = {"/crash", "std_msgs/msg/String", "cdr", &q, 1, ""};
	uint32_t h;
	return bag_writer_add_topic(cw->w, &t, NULL, &h, err) == BT_OK ? 0 : -1;
}

/* Writes the next batch; returns 0 once it is committed. */
static int cb_write_batch(struct cb_writer *cw, struct bt_error *err)
{
	for (size_t i = 0; i < cw->batch; i++) {
		uint64_t k = cw->next + i;
		cb_payload(k, cw->buf + i * CB_MSG_SIZE);
		cw->m[i] = (struct bag_message){0, CB_BASE_TIME + (int64_t)k,
						cw->buf + i * CB_MSG_SIZE, CB_MSG_SIZE, 0};
	}
	if (bag_writer_write(cw->w, cw->m, cw->batch, err) != BT_OK)
		return -1;
	cw->next += cw->batch;
	return 0;
}

static int cb_close(struct cb_writer *cw, struct bt_error *err)
{
	int rc = cw->w && bag_writer_close(cw->w, err) == BT_OK ? 0 : -1;
	free(cw->m);
	free(cw->buf);
	return rc;
}

/* The child: writes until killed (or its bounds), reporting commits on fd. */
static void cb_child(const char *bag, const struct cb_mode *mode, size_t batch, int fd)
{
	struct cb_writer cw;
	struct bt_error err = {0};
	double end = bench_now() + CB_CHILD_SECONDS;
	if (cb_open(&cw, bag, mode, batch, &err) != 0) {
		fprintf(stderr, "crash_bench child: open: %s\n", err.msg);
		_exit(1);
	}
	while (cw.next < CB_CHILD_MESSAGES && bench_now() < end) {
		if (cb_write_batch(&cw, &err) != 0) {
			fprintf(stderr, "crash_bench child: write: %s\n", err.msg);
			_exit(1);
		}
		char line[32];
		int n = snprintf(line, sizeof line, "%llu\n", (unsigned long long)cw.next);
		if (write(fd, line, (size_t)n) != n)
			_exit(1);
	}
	_exit(cb_close(&cw, &err) == 0 ? 0 : 1);
}

/* Median msgs/s of writing opt->rate_messages (rounded up to batches). */
static double cb_rate(const struct cb_opts *o, const struct cb_mode *mode, size_t batch)
{
	double r[CB_RATE_REPEATS];
	for (int i = 0; i < CB_RATE_REPEATS; i++) {
		char *dir = bench_scratch_new(o->dir, "crash_bench.");
		if (!dir)
			return -1;
		char *bag = bt_xasprintf("%s/bag", dir);
		struct cb_writer cw;
		struct bt_error err = {0};
		double t0 = bench_now();
		int rc = cb_open(&cw, bag, mode, batch, &err);
		while (!rc && cw.next < o->rate_messages)
			rc = cb_write_batch(&cw, &err);
		uint64_t n = cw.next;
		rc = cb_close(&cw, rc ? NULL : &err) || rc;
		r[i] = (double)n / (bench_now() - t0);
		bench_rmtree(dir);
		free(bag);
		free(dir);
		if (rc) {
			fprintf(stderr, "crash_bench: rate run: %s\n", err.msg);
			return -1;
		}
	}
	return bench_median(r, CB_RATE_REPEATS);
}

/* ---- checking a killed bag ---- */

struct cb_check {
	bool corrupt;
	uint64_t rows, intact; /* rows read; leading rows exactly as written */
	uint64_t bad;          /* rows present but not as written */
	char why[160];
};

static void cb_corrupt(struct cb_check *c, sqlite3 *db, const char *what)
{
	if (!c->corrupt)
		snprintf(c->why, sizeof c->why, "%s: %s", what, db ? sqlite3_errmsg(db) : "open");
	c->corrupt = true;
}

static void cb_integrity(sqlite3 *db, struct cb_check *c)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(db, "PRAGMA integrity_check;", -1, &s, NULL) != SQLITE_OK) {
		cb_corrupt(c, db, "integrity_check");
		return;
	}
	int rc = sqlite3_step(s);
	const unsigned char *t = rc == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
	if (!t || strcmp((const char *)t, "ok") != 0) {
		if (t && !c->corrupt) {
			snprintf(c->why, sizeof c->why, "integrity_check: %.120s", t);
			for (char *p = c->why; *p; p++)
				*p = *p == '\n' ? ' ' : *p;
		}
		if (!t)
			cb_corrupt(c, db, "integrity_check");
		c->corrupt = true;
	}
	sqlite3_finalize(s);
}

static bool cb_row_ok(sqlite3_stmt *s, uint64_t k, uint8_t *want)
{
	cb_payload(k, want);
	return sqlite3_column_int64(s, 0) == (int64_t)k + 1 &&
	       sqlite3_column_int64(s, 1) == CB_BASE_TIME + (int64_t)k &&
	       sqlite3_column_bytes(s, 2) == (int)CB_MSG_SIZE &&
	       memcmp(sqlite3_column_blob(s, 2), want, CB_MSG_SIZE) == 0;
}

static void cb_rows(sqlite3 *db, struct cb_check *c)
{
	sqlite3_stmt *s;
	uint8_t want[CB_MSG_SIZE];
	if (sqlite3_prepare_v2(db, "SELECT id, timestamp, data FROM messages ORDER BY id;", -1, &s,
			       NULL) != SQLITE_OK) {
		cb_corrupt(c, db, "select");
		return;
	}
	int rc;
	bool prefix = true;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		bool ok = cb_row_ok(s, c->rows, want);
		c->rows++;
		prefix = prefix && ok;
		c->intact += prefix;
		c->bad += !ok;
	}
	if (rc != SQLITE_DONE)
		cb_corrupt(c, db, "read messages");
	sqlite3_finalize(s);
}

static void cb_check_file(const char *path, struct cb_check *c)
{
	memset(c, 0, sizeof *c);
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		cb_corrupt(c, db, "open");
	} else if (sqlite3_exec(db, "PRAGMA schema_version;", NULL, NULL, NULL) != SQLITE_OK) {
		cb_corrupt(c, db, "first read");
	} else {
		cb_integrity(db, c);
		cb_rows(db, c);
	}
	sqlite3_close(db);
}

/* ---- one kill ---- */

struct cb_rng {
	uint64_t s;
};

static double cb_uniform(struct cb_rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return (double)(r->s >> 11) / 9007199254740992.0;
}

static void cb_sleep(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	while (nanosleep(&ts, &ts) != 0)
		;
}

/* Reads "N\n" lines until EOF or, with `first`, the first one; returns
 * the last N seen, or 0 when none. */
static uint64_t cb_read_counts(FILE *f, bool first)
{
	char line[64];
	uint64_t last = 0;
	while (fgets(line, sizeof line, f)) {
		last = strtoull(line, NULL, 10);
		if (first)
			break;
	}
	return last;
}

/* Spawns the child, kills it, returns its last count (0 = never committed;
 * *exited = it ended by itself). */
static uint64_t cb_spawn_kill(const char *bag, const struct cb_mode *mode, size_t batch,
			      double max_delay, struct cb_rng *rng, bool *exited)
{
	int pfd[2];
	*exited = false;
	if (pipe(pfd) != 0)
		return 0;
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		cb_child(bag, mode, batch, pfd[1]);
	}
	close(pfd[1]);
	FILE *f = fdopen(pfd[0], "r");
	uint64_t c = pid > 0 && f ? cb_read_counts(f, true) : 0;
	if (c)
		cb_sleep(cb_uniform(rng) * max_delay);
	int status = 0;
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	*exited = !(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	uint64_t later = f ? cb_read_counts(f, false) : 0;
	if (f)
		fclose(f);
	return later > c ? later : c;
}

static void cb_account(struct cb_cell *cell, const struct cb_check *chk, uint64_t committed,
		       size_t batch)
{
	cell->committed_sum += committed;
	cell->rows_sum += chk->rows;
	cell->corrupt += chk->corrupt;
	cell->bad_runs += chk->bad > 0;
	uint64_t lost = chk->intact < committed ? committed - chk->intact : 0;
	cell->runs_lost += lost > 0;
	cell->lost_rows += lost;
	cell->torn += chk->rows > committed && chk->rows != committed + batch;
	cell->plus_batch += !chk->corrupt && chk->rows == committed + batch &&
			    chk->intact == chk->rows;
	if (chk->corrupt || lost || chk->bad)
		fprintf(stderr, "  kill: committed %llu, rows %llu, intact %llu, bad %llu%s%s\n",
			(unsigned long long)committed, (unsigned long long)chk->rows,
			(unsigned long long)chk->intact, (unsigned long long)chk->bad,
			chk->corrupt ? ", corrupt: " : "", chk->corrupt ? chk->why : "");
}

static int cb_kill_once(const struct cb_opts *o, const struct cb_mode *mode, size_t batch,
			struct cb_rng *rng, struct cb_cell *cell)
{
	char *dir = bench_scratch_new(o->dir, "crash_bench.");
	if (!dir)
		return -1;
	char *bag = bt_xasprintf("%s/bag", dir);
	char *file = bt_xasprintf("%s/bag_0.db3", bag);
	bool exited;
	uint64_t committed = cb_spawn_kill(bag, mode, batch, 3.0 * (double)batch / cell->rate,
					   rng, &exited);
	if (!committed || exited) {
		cell->early_exit += exited;
		cell->errors += !committed;
	} else {
		struct cb_check chk;
		cb_check_file(file, &chk);
		cell->kills++;
		cb_account(cell, &chk, committed, batch);
	}
	int rc = bench_rmtree(dir);
	free(file);
	free(bag);
	free(dir);
	return rc;
}

/* ---- report ---- */

static void cb_header(const struct cb_opts *o)
{
	printf("crash_bench: sqlite %s, %u CPUs online, load average %.2f at start, dir %s, "
	       "%u kills per cell, seed %llu, 1 KiB messages\n",
	       sqlite3_libversion(), bench_cpus(), bench_loadavg(), o->dir, o->kills,
	       (unsigned long long)o->seed);
	printf("\n%-16s %6s | %5s %7s %10s %9s %5s %5s %6s | %9s | %s\n", "journal/sync",
	       "batch", "kills", "corrupt", "runs lost", "lost rows", "bad", "torn", "+batch",
	       "msgs/s", "mean reported / rows");
}

static void cb_print(const struct cb_mode *m, size_t batch, const struct cb_cell *c)
{
	char label[40];
	snprintf(label, sizeof label, "%s/%s", m->journal_mode, m->synchronous);
	unsigned k = c->kills ? c->kills : 1;
	printf("%-16s %6zu | %5u %7u %10u %9llu %5u %5u %6u | %9.0f | %.0f / %.0f", label, batch,
	       c->kills, c->corrupt, c->runs_lost, (unsigned long long)c->lost_rows, c->bad_runs,
	       c->torn, c->plus_batch, c->rate, (double)c->committed_sum / k,
	       (double)c->rows_sum / k);
	if (c->early_exit || c->errors)
		printf("  (%u ended before the kill, %u never committed)", c->early_exit, c->errors);
	printf("\n");
	fflush(stdout);
}

static int cb_cell_run(const struct cb_opts *o, const struct cb_mode *m, size_t batch,
		       struct cb_rng *rng)
{
	struct cb_cell cell = {0};
	cell.rate = cb_rate(o, m, batch);
	if (cell.rate <= 0)
		return -1;
	fprintf(stderr, "%s/%s B=%zu: %.0f msgs/s, killing...\n", m->journal_mode,
		m->synchronous, batch, cell.rate);
	for (unsigned i = 0; i < o->kills; i++)
		if (cb_kill_once(o, m, batch, rng, &cell))
			return -1;
	cb_print(m, batch, &cell);
	return 0;
}

/* ---- options ---- */

static void cb_usage(FILE *f)
{
	fprintf(f,
		"usage: crash_bench [--quick] [--dir DIR] [--kills N] [--batch B[,B...]]\n"
		"                   [--modes J/S[,J/S...]] [--rate-messages N] [--seed S]\n"
		"  --kills          kills per cell (default 30; --quick: 5)\n"
		"  --batch          messages per transaction (default 1000,10000)\n"
		"  --modes          journal_mode/synchronous pairs (default MEMORY/OFF,\n"
		"                   PERSIST/OFF,TRUNCATE/OFF,WAL/OFF,WAL/NORMAL)\n"
		"  --rate-messages  messages per rate run (default 60000; --quick: 20000)\n"
		"  --seed           seed of the kill delays (default: from the clock)\n");
}

static int cb_parse_modes(struct cb_opts *o, const char *s)
{
	char *copy = bt_xstrdup(s), *save = NULL; /* kept: the modes point into it */
	o->n_modes = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char *slash = strchr(t, '/');
		if (!slash || o->n_modes == CB_MAX_MODES)
			return -1;
		*slash = 0;
		o->modes[o->n_modes++] = (struct cb_mode){t, slash + 1};
	}
	return o->n_modes ? 0 : -1;
}

static int cb_parse_one(struct cb_opts *o, int argc, char **argv, int *i, bool *quick)
{
	const char *v;
	uint64_t u;
	if (!strcmp(argv[*i], "--quick"))
		*quick = true;
	else if (bench_opt(argc, argv, i, "--dir", &v))
		o->dir = v;
	else if (bench_opt(argc, argv, i, "--kills", &v)) {
		if (bt_parse_u64(v, 1, 100000, &u) != BT_OK)
			return -1;
		o->kills = (unsigned)u;
	} else if (bench_opt(argc, argv, i, "--batch", &v))
		return (o->n_batches = bench_parse_list(v, false, 1, 100000, o->batches,
							CB_MAX_BATCHES)) ? 0 : -1;
	else if (bench_opt(argc, argv, i, "--modes", &v))
		return cb_parse_modes(o, v);
	else if (bench_opt(argc, argv, i, "--rate-messages", &v))
		return bt_parse_u64(v, 1, 10000000, &o->rate_messages) == BT_OK ? 0 : -1;
	else if (bench_opt(argc, argv, i, "--seed", &v))
		return bt_parse_u64(v, 1, UINT64_MAX, &o->seed) == BT_OK ? 0 : -1;
	else
		return -1;
	return 0;
}

static int cb_parse(struct cb_opts *o, int argc, char **argv)
{
	*o = (struct cb_opts){.dir = bench_default_dir(), .batches = {1000, 10000},
			      .n_batches = 2, .n_modes = sizeof cb_default_modes /
							 sizeof cb_default_modes[0]};
	memcpy(o->modes, cb_default_modes, sizeof cb_default_modes);
	bool quick = false;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cb_usage(stdout);
			exit(0);
		}
		if (cb_parse_one(o, argc, argv, &i, &quick)) {
			fprintf(stderr, "crash_bench: bad option or value: %s\n", argv[i]);
			cb_usage(stderr);
			return -1;
		}
	}
	if (!o->kills)
		o->kills = quick ? 5 : 30;
	if (!o->rate_messages)
		o->rate_messages = quick ? 20000 : 60000;
	if (!o->seed)
		o->seed = (uint64_t)time(NULL) * 2654435761u | 1;
	return 0;
}

int main(int argc, char **argv)
{
	struct cb_opts o;
	if (cb_parse(&o, argc, argv))
		return 2;
	signal(SIGPIPE, SIG_IGN);
	double t0 = bench_now();
	struct cb_rng rng = {o.seed};
	cb_header(&o);
	int rc = 0;
	for (size_t b = 0; !rc && b < o.n_batches; b++)
		for (size_t m = 0; !rc && m < o.n_modes; m++)
			rc = cb_cell_run(&o, &o.modes[m], (size_t)o.batches[b], &rng);
	printf("\ncorrupt: integrity_check failed or the file could not be read. runs lost: kills\n"
	       "after which a committed message was missing or damaged (lost rows: how many).\n"
	       "bad: runs with a row not as written. torn: rows beyond the last reported\n"
	       "commit that are not exactly the one batch in flight. +batch: intact files that\n"
	       "also hold the batch in flight (killed after its COMMIT, before the report;\n"
	       "in WAL mode e.g. during the auto-checkpoint SQLite runs inside COMMIT).\n"
	       "msgs/s: median of %d uninterrupted runs (open .. close).\n", CB_RATE_REPEATS);
	printf("crash_bench: %.1f s, load average %.2f at end%s\n", bench_now() - t0,
	       bench_loadavg(), rc ? ", FAILED" : "");
	return rc ? 1 : 0;
}
