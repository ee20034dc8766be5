/* test_raw — btdds_raw captures any topic byte-exactly: tpub (a separate
 * process) writes known types and records what Cyclone sends (its oracle);
 * a raw reader here must get the same bytes, in order, with consecutive
 * writer sequence numbers. ddsperf checks well-formedness and gaps at speed.
 *
 * Every DDS process runs with the loopback config from CYCLONEDDS_URI
 * (ctest sets it; children inherit it). Domains: 61 for tpub, 62 and 63
 * for ddsperf (its topic names are fixed). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "btdds_raw.h"
#include "std_msgs/msg/String.h"
#include "test_util.h"


#define TPUB_DOMAIN 61
#define PERF_DOMAIN_1K 62
#define PERF_DOMAIN_100K 63

static bool g_skipped;

/* ---- captured samples ---------------------------------------------- */

struct item {
	unsigned char *data;
	size_t len;
	int64_t sn;
	int64_t ts;
	dds_instance_handle_t ph;
};

struct list {
	struct item *v;
	size_t n, cap;
};

static void list_push(struct list *l, const void *data, size_t len, int64_t sn, int64_t ts,
		      dds_instance_handle_t ph)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 64;
		l->v = realloc(l->v, l->cap * sizeof(*l->v));
		assert_non_null(l->v);
	}
	struct item *it = &l->v[l->n++];
	it->data = malloc(len ? len : 1);
	assert_non_null(it->data);
	memcpy(it->data, data, len);
	it->len = len;
	it->sn = sn;
	it->ts = ts;
	it->ph = ph;
}

static void list_free(struct list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].data);
	free(l->v);
	*l = (struct list){0};
}

static bool on_sample_keep(void *arg, const struct btdds_raw_sample *s)
{
	list_push(arg, s->data, s->len, s->writer_sn, s->source_time, s->publication_handle);
	return true;
}

/* [uint32 LE length][bytes] records, as tpub --oracle writes them. */
static void oracle_load(const char *path, struct list *l)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return;
	unsigned char h[4];
	while (fread(h, 1, 4, f) == 4) {
		size_t len = (size_t)h[0] | (size_t)h[1] << 8 | (size_t)h[2] << 16 |
			     (size_t)h[3] << 24;
		unsigned char *buf = malloc(len ? len : 1);
		assert_non_null(buf);
		if (fread(buf, 1, len, f) != len) {
			free(buf);
			break;
		}
		list_push(l, buf, len, -1, 0, 0);
		free(buf);
	}
	fclose(f);
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return memcmp(x->data, y->data, x->len);
}

/* ---- time and child processes ---------------------------------------- */

static char *file_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f == NULL)
		return strdup("");
	char *buf = calloc(1, 65536);
	assert_non_null(buf);
	size_t n = fread(buf, 1, 65535, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void child_expect_ok(pid_t pid, const char *out, double timeout_s, const char *want)
{
	int st = tu_wait(pid, timeout_s);
	char *text = file_text(out);
	if (st != 0 || (want && !strstr(text, want)))
		fail_msg("child exit %d (%d: killed after %.0f s), output:\n%s", st, TU_TIMED_OUT,
			 timeout_s, text);
	free(text);
}


/* ---- the raw reader rig -------------------------------------------- */

struct rig {
	dds_entity_t pp, topic, reader, ws;
	char *dir;
	char topic_name[128];
};

static void rig_open(struct rig *r, dds_domainid_t domain, const char *tag)
{
	*r = (struct rig){0};
	r->dir = tu_mkdtemp(tag);
	snprintf(r->topic_name, sizeof r->topic_name, "bagtop_raw_%s_%d", tag, (int)getpid());
	r->pp = dds_create_participant(domain, NULL, NULL);
	assert_true(r->pp > 0);
}

/* Reliable KEEP_ALL (max_samples bounds memory when > 0) raw reader. */
static void rig_reader(struct rig *r, const char *topic, const char *type, bool keyed, bool tl,
		       int32_t max_samples)
{
	r->topic = btdds_raw_topic_create(r->pp, topic, type, keyed);
	assert_true(r->topic > 0);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_qset_durability(q, tl ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
	if (max_samples > 0)
		dds_qset_resource_limits(q, max_samples, DDS_LENGTH_UNLIMITED,
					 DDS_LENGTH_UNLIMITED);
	r->reader = dds_create_reader(r->pp, r->topic, q, NULL);
	dds_delete_qos(q);
	assert_true(r->reader > 0);
	r->ws = dds_create_waitset(r->pp);
	assert_true(r->ws > 0);
	dds_entity_t rc = dds_create_readcondition(r->reader, DDS_ANY_STATE);
	assert_true(rc > 0);
	assert_int_equal(dds_waitset_attach(r->ws, rc, 0), 0);
}

/* Takes samples into fn until `want` have arrived (then `settle_s` more, to
 * catch extras), until child `pid` ended and the reader is drained (pid >
 * 0, want 0), or until timeout_s. Returns the child's status or -1. */
static int rig_collect(struct rig *r, btdds_raw_sample_fn fn, void *arg, const size_t *have,
		       size_t want, double timeout_s, double settle_s, pid_t pid)
{
	double deadline = tu_now() + timeout_s, settle_end = 0.0;
	int st = -1;
	for (int iter = 0; iter < 1000000 && tu_now() < deadline; iter++) {
		(void)dds_waitset_wait(r->ws, NULL, 0, DDS_MSECS(50));
		int32_t n = btdds_raw_take(r->reader, fn, arg);
		assert_true(n >= 0);
		if (want > 0 && *have >= want && settle_end == 0.0)
			settle_end = tu_now() + settle_s;
		if (settle_end > 0.0 && tu_now() >= settle_end)
			break;
		if (pid > 0 && want == 0 && st < 0 && (st = tu_poll(pid)) >= 0)
			settle_end = tu_now() + settle_s;
	}
	return st;
}

static void rig_close(struct rig *r)
{
	assert_int_equal(dds_delete(r->pp), 0);
	tu_rmrf(r->dir);
	free(r->dir);
}

static char *rig_path(const struct rig *r, const char *name)
{
	size_t n = strlen(r->dir) + strlen(name) + 2;
	char *p = malloc(n);
	assert_non_null(p);
	snprintf(p, n, "%s/%s", r->dir, name);
	return p;
}

static const char *tpub_bin(void)
{
	const char *p = getenv("BAGTOP_TPUB");
	if (p == NULL || access(p, X_OK) != 0)
		fail_msg("BAGTOP_TPUB not set or not executable (%s)", p ? p : "unset");
	return p;
}

/* ---- checks ------------------------------------------------------------ */

/* got == oracle[from..], same bytes in the same order; one writer whose
 * sequence numbers go up by exactly 1. */
static void expect_identical(const struct list *got, const struct list *oracle, size_t from)
{
	assert_int_equal(got->n, oracle->n - from);
	for (size_t i = 0; i < got->n; i++) {
		const struct item *g = &got->v[i], *o = &oracle->v[from + i];
		if (g->len != o->len || memcmp(g->data, o->data, g->len) != 0)
			fail_msg("sample %zu: %zu bytes received, oracle %zu bytes, differ", i,
				 g->len, o->len);
		assert_true(g->sn > 0);
		assert_true(g->ts > 0);
		assert_true(g->ph != 0);
		if (i > 0) {
			if (g->sn != got->v[i - 1].sn + 1)
				fail_msg("sample %zu: writer_sn %lld after %lld", i, (long long)g->sn,
					 (long long)got->v[i - 1].sn);
			assert_true(g->ph == got->v[0].ph);
		}
	}
}

static void expect_same_multiset(struct list *got, struct list *oracle)
{
	assert_int_equal(got->n, oracle->n);
	struct item *a = malloc(got->n * sizeof(*a)), *b = malloc(oracle->n * sizeof(*b));
	assert_true(a && b);
	memcpy(a, got->v, got->n * sizeof(*a));
	memcpy(b, oracle->v, oracle->n * sizeof(*b));
	qsort(a, got->n, sizeof(*a), item_cmp);
	qsort(b, oracle->n, sizeof(*b), item_cmp);
	for (size_t i = 0; i < got->n; i++)
		assert_int_equal(item_cmp(&a[i], &b[i]), 0);
	free(a);
	free(b);
}

static void print_summary(const char *tag, const struct list *got)
{
	if (got->n == 0)
		return;
	size_t lo = got->v[0].len, hi = lo;
	for (size_t i = 1; i < got->n; i++) {
		lo = got->v[i].len < lo ? got->v[i].len : lo;
		hi = got->v[i].len > hi ? got->v[i].len : hi;
	}
	const unsigned char *h = got->v[0].data;
	printf("%s: %zu samples, %zu..%zu bytes, header %02x %02x %02x %02x, writer_sn %lld..%lld\n",
	       tag, got->n, lo, hi, h[0], h[1], h[2], h[3], (long long)got->v[0].sn,
	       (long long)got->v[got->n - 1].sn);
}

/* ---- tpub cases ---------------------------------------------------------- */

/* A tpub run checked: what arrived is identical to the oracle, in order,
 * and `check` (NULL: nothing) finds what the case is about. */
struct tpub_case {
	const char *tag, *type_arg, *type_name;
	bool keyed;
	long count;
	const char *extra[8]; /* more tpub arguments, NULL-terminated */
	void (*check)(struct list *got, struct list *oracle);
};

/* Raw reader first, then tpub waits for it and writes `count` messages;
 * returns what arrived and the oracle. */
static void run_tpub(const struct tpub_case *c, struct list *got, struct list *oracle)
{
	struct rig r;
	rig_open(&r, TPUB_DOMAIN, c->tag);
	rig_reader(&r, r.topic_name, c->type_name, c->keyed, false, 0);
	char *orc = rig_path(&r, "oracle.bin"), *out = rig_path(&r, "tpub.out");
	char dom[16], cnt[24];
	snprintf(dom, sizeof dom, "%d", TPUB_DOMAIN);
	snprintf(cnt, sizeof cnt, "%ld", c->count);
	char *argv[40] = {(char *)tpub_bin(), "--domain", dom, "--topic", r.topic_name,
			  "--type", (char *)c->type_arg, "--count", cnt, "--oracle", orc,
			  "--wait-readers", "1", "--linger", "0.5"};
	size_t n = 15;
	for (size_t i = 0; c->extra[i] && n < 38; i++)
		argv[n++] = (char *)c->extra[i];
	argv[n] = NULL;
	pid_t pid = tu_spawn(argv, &(struct tu_spawn_opts){.out_path = out});
	rig_collect(&r, on_sample_keep, got, &got->n, (size_t)c->count, 30.0, 0.3, 0);
	char want[64];
	snprintf(want, sizeof want, "tpub: wrote %ld", c->count);
	child_expect_ok(pid, out, 30.0, want);
	rig_collect(&r, on_sample_keep, got, &got->n, 0, 0.2, 0.0, 0); /* drain extras */
	oracle_load(orc, oracle);
	assert_int_equal(oracle->n, (size_t)c->count);
	print_summary(c->tag, got);
	free(orc);
	free(out);
	rig_close(&r);
}

/* The test of a tpub_case (its *state). */
static void test_tpub_case(void **state)
{
	const struct tpub_case *c = *state;
	struct list got = {0}, oracle = {0};
	run_tpub(c, &got, &oracle);
	expect_identical(&got, &oracle, 0);
	if (c->check)
		c->check(&got, &oracle);
	list_free(&got);
	list_free(&oracle);
}

/* XCDR1 little-endian, Cyclone writes the padding count in options. */
static void check_xcdr1(struct list *got, struct list *oracle)
{
	(void)oracle;
	assert_int_equal(got->v[0].data[0], 0x00);
	assert_int_equal(got->v[0].data[1], 0x01);
}

/* @appendable: XCDR2 (0x09 or 0x07 as sent). */
static void check_xcdr2(struct list *got, struct list *oracle)
{
	(void)oracle;
	for (size_t i = 0; i < got->n; i++) {
		assert_int_equal(got->v[i].data[0], 0x00);
		assert_true(got->v[i].data[1] == 0x09 || got->v[i].data[1] == 0x07);
	}
}

/* Fragments reassembled into one sample. */
static void check_large(struct list *got, struct list *oracle)
{
	(void)oracle;
	assert_true(got->v[0].len > 100000);
}

/* ROS-like keyless String without type information: identical, in order. */
static const struct tpub_case raw_string = {
	"string", "string", "std_msgs::msg::dds_::String_", false, 20,
	{"--rate", "200", NULL}, check_xcdr1};
/* Keyed, 3 keys, one raw instance: same multiset and arrival order. */
static const struct tpub_case raw_keyed = {
	"keyed", "keyed", "bagtest::Keyed", true, 30,
	{"--keys", "3", "--size", "33", "--rate", "300", NULL}, expect_same_multiset};
/* @appendable: XCDR2, kept as sent. */
static const struct tpub_case raw_appendable = {
	"app", "appendable", "bagtest::App", false, 10,
	{"--size", "21", "--rate", "200", NULL}, check_xcdr2};
/* 100 kB strings travel as DATA_FRAG: reassembled byte-exactly. */
static const struct tpub_case raw_large = {
	"large", "string", "std_msgs::msg::dds_::String_", false, 8,
	{"--size", "100000", "--rate", "50", NULL}, check_large};

/* A transient-local reader created after the writer finished gets its
 * history: exactly the last `depth` samples. */
static void test_raw_transient_local(void **state)
{
	(void)state;
	struct rig r;
	rig_open(&r, TPUB_DOMAIN, "tl");
	char *orc = rig_path(&r, "oracle.bin"), *out = rig_path(&r, "tpub.out");
	char dom[16];
	snprintf(dom, sizeof dom, "%d", TPUB_DOMAIN);
	char *argv[] = {(char *)tpub_bin(), "--domain", dom, "--topic", r.topic_name, "--type",
			"string", "--count", "20", "--rate", "500", "--transient-local",
			"--depth", "5", "--oracle", orc, "--linger", "4", NULL};
	pid_t pid = tu_spawn(argv, &(struct tu_spawn_opts){.out_path = out});
	struct list oracle = {0};
	double deadline = tu_now() + 20.0;
	while (oracle.n < 20 && tu_now() < deadline && tu_poll(pid) < 0) {
		usleep(50000);
		list_free(&oracle);
		oracle_load(orc, &oracle);
	}
	assert_int_equal(oracle.n, 20);
	rig_reader(&r, r.topic_name, "std_msgs::msg::dds_::String_", false, true, 0);
	struct list got = {0};
	rig_collect(&r, on_sample_keep, &got, &got.n, 5, 10.0, 0.5, 0);
	print_summary("transient-local", &got);
	expect_identical(&got, &oracle, 15);
	child_expect_ok(pid, out, 20.0, "tpub: wrote 20");
	list_free(&got);
	list_free(&oracle);
	free(orc);
	free(out);
	rig_close(&r);
}

/* The CDR Cyclone writes for std_msgs String "text": XCDR1 LE header with
 * the padding count in options, length (NUL included), chars, NUL, zeros. */
static size_t cdr_string(unsigned char *buf, const char *text)
{
	uint32_t n = (uint32_t)strlen(text) + 1;
	size_t body = 4 + n, pad = (4 - body % 4) % 4;
	unsigned char hdr[8] = {0x00, 0x01, 0x00, (unsigned char)pad, (unsigned char)n,
				(unsigned char)(n >> 8), (unsigned char)(n >> 16),
				(unsigned char)(n >> 24)};
	memcpy(buf, hdr, 8);
	memcpy(buf + 8, text, n);
	memset(buf + 8 + n, 0, pad);
	return 4 + body + pad;
}

/* A writer in this process (another participant, typed): delivered
 * locally through from_ser_iov, so the bytes are the same but there is no
 * writer sequence number (-1). */
static void test_raw_local_writer(void **state)
{
	(void)state;
	struct rig r;
	rig_open(&r, TPUB_DOMAIN, "local");
	rig_reader(&r, r.topic_name, "std_msgs::msg::dds_::String_", false, false, 0);
	dds_entity_t pp2 = dds_create_participant(TPUB_DOMAIN, NULL, NULL);
	assert_true(pp2 > 0);
	dds_entity_t tp2 = dds_create_topic(pp2, &std_msgs_msg_dds__String__desc, r.topic_name,
					    NULL, NULL);
	assert_true(tp2 > 0);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_SECS(10));
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	dds_entity_t wr = dds_create_writer(pp2, tp2, q, NULL);
	dds_delete_qos(q);
	assert_true(wr > 0);
	struct list want = {0}, got = {0};
	for (int i = 0; i < 12; i++) {
		char text[32];
		unsigned char cdr[64];
		snprintf(text, sizeof text, "hello %d", i);
		list_push(&want, cdr, cdr_string(cdr, text), -1, 0, 0);
		std_msgs_msg_dds__String_ m = {.data = text};
		assert_int_equal(dds_write(wr, &m), 0);
	}
	rig_collect(&r, on_sample_keep, &got, &got.n, 12, 5.0, 0.2, 0);
	assert_int_equal(got.n, 12);
	for (size_t i = 0; i < got.n; i++) {
		assert_int_equal(got.v[i].sn, -1);
		assert_int_equal(got.v[i].len, want.v[i].len);
		assert_memory_equal(got.v[i].data, want.v[i].data, got.v[i].len);
	}
	print_summary("local", &got);
	list_free(&want);
	list_free(&got);
	assert_int_equal(dds_delete(pp2), 0);
	rig_close(&r);
}

/* ---- ddsperf ------------------------------------------------------------ */

struct perf_stats {
	size_t n, bad_len, bad_hdr, gaps, reorders;
	size_t expect_len;
	dds_instance_handle_t ph[8];
	int64_t last[8];
	size_t nwriters;
};

static bool on_sample_perf(void *arg, const struct btdds_raw_sample *s)
{
	struct perf_stats *p = arg;
	p->n++;
	static const unsigned char hdr[4] = {0x00, 0x01, 0x00, 0x00};
	if (s->len != p->expect_len)
		p->bad_len++;
	if (s->len < 4 || memcmp(s->data, hdr, 4) != 0)
		p->bad_hdr++;
	size_t w = 0;
	while (w < p->nwriters && p->ph[w] != s->publication_handle)
		w++;
	if (w == p->nwriters) {
		if (w == 8)
			return true;
		p->ph[p->nwriters++] = s->publication_handle;
	} else if (s->writer_sn > p->last[w] + 1) {
		p->gaps += (size_t)(s->writer_sn - p->last[w] - 1);
	} else if (s->writer_sn <= p->last[w]) {
		p->reorders++;
	}
	p->last[w] = s->writer_sn;
	return true;
}

static void run_ddsperf(dds_domainid_t domain, const char *size, size_t expect_len,
			int32_t max_samples)
{
	if (!tu_in_path("ddsperf")) {
		printf("SKIP: ddsperf not found in PATH (package cyclonedds-tools)\n");
		g_skipped = true;
		skip();
	}
	struct rig r;
	rig_open(&r, domain, "perf");
	rig_reader(&r, "DDSPerfRDataKS", "KeyedSeq", true, false, max_samples);
	char *out = rig_path(&r, "ddsperf.out");
	char dom[16];
	snprintf(dom, sizeof dom, "%d", (int)domain);
	char *argv[] = {"ddsperf", "-D", "3", "-i", dom, "pub", "size", (char *)size, NULL};
	pid_t pid = tu_spawn(argv, &(struct tu_spawn_opts){.out_path = out});
	struct perf_stats p = {.expect_len = expect_len};
	int st = rig_collect(&r, on_sample_perf, &p, &p.n, 0, 30.0, 0.5, pid);
	if (st < 0)
		st = tu_wait(pid, 10.0);
	char *text = file_text(out);
	printf("ddsperf pub size %s: %zu samples, %zu writer(s), gaps %zu, reorders %zu\n", size,
	       p.n, p.nwriters, p.gaps, p.reorders);
	if (st != 0)
		fail_msg("ddsperf exit %d:\n%s", st, text);
	free(text);
	assert_true(p.n >= 100);
	assert_int_equal(p.nwriters, 1);
	assert_int_equal(p.bad_len, 0);
	assert_int_equal(p.bad_hdr, 0);
	assert_int_equal(p.gaps, 0);
	assert_int_equal(p.reorders, 0);
	free(out);
	rig_close(&r);
}

static void test_raw_ddsperf_1k(void **state)
{
	(void)state;
	run_ddsperf(PERF_DOMAIN_1K, "1k", 1028, 4096);
}

static void test_raw_ddsperf_100k(void **state)
{
	(void)state;
	run_ddsperf(PERF_DOMAIN_100K, "100k", 102404, 64);
}

int main(void)
{
	const char *uri = getenv("CYCLONEDDS_URI");
	if (uri == NULL || strstr(uri, "loopback") == NULL) {
		printf("SKIP: CYCLONEDDS_URI must name the loopback config (ctest sets it)\n");
		return 77;
	}
	const struct CMUnitTest tests[] = {
		TU_CASE_TEST(test_raw_string, test_tpub_case, &raw_string),
		TU_CASE_TEST(test_raw_keyed, test_tpub_case, &raw_keyed),
		TU_CASE_TEST(test_raw_appendable, test_tpub_case, &raw_appendable),
		TU_CASE_TEST(test_raw_large, test_tpub_case, &raw_large),
		cmocka_unit_test(test_raw_transient_local),
		cmocka_unit_test(test_raw_local_writer),
		cmocka_unit_test(test_raw_ddsperf_1k),
		cmocka_unit_test(test_raw_ddsperf_100k),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	(void)dds_delete(DDS_CYCLONEDDS_HANDLE);
	if (rc == 0 && g_skipped)
		return 77;
	return rc;
}
