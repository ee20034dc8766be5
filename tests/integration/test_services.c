/* rosbag2's recorder services of a running `bagtop record`, called by a
 * client written here from ../shared/docs/ROS2_SERVICES_OVER_DDS.md alone:
 * every request and every reply check is raw bytes laid out by this file
 * (encapsulation header, guid, seq, body), the client's USER_DATA clientid
 * is made here from its participant's GUID, and btdds_raw only carries the
 * bytes (no bagtop encoder, server or client code). Then `bagtop call`
 * against real recorders. Real processes on loopback-only DDS domains
 * 164..171:
 *   164 each service's payload, guid/seq echoed (also a big-endian request)
 *   165 `bagtop call snapshot` in snapshot mode writes a file
 *   166 the reply waits for the requesting client's reply reader (another
 *       client's reader does not count); two clients, one reply each
 *   167 requests sent as soon as the request writer matched (the server's
 *       discovery of the client's reader not finished) are answered
 *   168 bad input: truncated, wrong byte order flag, not CDR, header only,
 *       huge: dropped and counted, a good request still answered
 *   169 1000 requests in a burst: bounded, refused and counted, capture
 *       unaffected (recorded = published)
 *   170 `bagtop call` split / pause / is-paused / resume, snapshot false
 *   171 --no-remote-control serves nothing; --compat humble only snapshot
 *   52  bagtop's ~/snapshot_with_parameters: a raw request (before, topics,
 *       name), its reply, the named file with the one topic; a bad name
 *       answered success false; `bagtop call snapshot --topics --name`;
 *       `bagtop call --list` names the service
 *   54  two recorders of the same node name, one in snapshot mode: `bagtop
 *       call snapshot` prints each one's reply after its process (host,
 *       pid) and exits 1 for the one that says success false; the other
 *       wrote its snapshot; `call --list` lists both and says so; a reader
 *       of the requests made here is no server, until it writes replies too
 *       and never answers: then reported as such */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dds/dds.h>

#include "bt_mem.h"
#include "btdds_raw.h"
#include "rec_harness.h"
#include "test_bag.h"
#include "test_util.h"

#define TYPE_PFX "rosbag2_interfaces::srv::dds_::"
#define MAX_REPLIES 64

/* ---- a client, by hand ---- */

struct cli {
	dds_entity_t pp, rq_tp, rr_tp, wr, rd;
	uint64_t guid; /* the request writer's instance handle */
	char id[64];   /* its clientid */
	char svc[128];
};

struct reply {
	unsigned char b[320];
	size_t len;
};

static unsigned cli_counter;

/* The clientid the doc describes: participant GUID bytes 0..11, then a
 * counter big-endian; hex bytes joined by '.', the first "%2x". */
static void cli_make_id(dds_entity_t pp, char *out, size_t cap)
{
	dds_guid_t g;
	assert_int_equal(dds_get_guid(pp, &g), 0);
	unsigned char b[16];
	memcpy(b, g.v, 12);
	unsigned c = ++cli_counter;
	b[12] = (unsigned char)(c >> 24);
	b[13] = (unsigned char)(c >> 16);
	b[14] = (unsigned char)(c >> 8);
	b[15] = (unsigned char)c;
	int n = snprintf(out, cap, "%2x", b[0]);
	for (int i = 1; i < 16; i++)
		n += snprintf(out + n, cap - (size_t)n, ".%x", b[i]);
}

/* rmw's service QoS; keep-all for the burst, so that all its requests
 * reach the server (history is the client's own business: it does not
 * take part in matching). */
static bool cli_keep_all;

static dds_qos_t *cli_qos(const char *id)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, cli_keep_all ? DDS_HISTORY_KEEP_ALL : DDS_HISTORY_KEEP_LAST, 10);
	char ud[96];
	int n = snprintf(ud, sizeof ud, "clientid=%s;", id);
	dds_qset_userdata(q, ud, (size_t)n);
	return q;
}

/* A client of /rosbag2_recorder/<name> of type <Type>; its reply reader
 * only when `reader` (else cli_reader later). */
static void cli_open(struct cli *c, int domain, const char *name, const char *type, bool reader)
{
	memset(c, 0, sizeof *c);
	snprintf(c->svc, sizeof c->svc, "%s", name);
	c->pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	assert_true(c->pp > 0);
	char rq[160], rr[160], tq[160], tr[160];
	snprintf(rq, sizeof rq, "rq/rosbag2_recorder/%sRequest", name);
	snprintf(rr, sizeof rr, "rr/rosbag2_recorder/%sReply", name);
	const char *pfx = strstr(type, "::") ? "" : TYPE_PFX; /* else: a full type name */
	snprintf(tq, sizeof tq, "%s%s_Request_", pfx, type);
	snprintf(tr, sizeof tr, "%s%s_Response_", pfx, type);
	c->rq_tp = btdds_raw_topic_create(c->pp, rq, tq, false);
	c->rr_tp = btdds_raw_topic_create(c->pp, rr, tr, false);
	assert_true(c->rq_tp > 0 && c->rr_tp > 0);
	cli_make_id(c->pp, c->id, sizeof c->id);
	dds_qos_t *q = cli_qos(c->id);
	c->wr = dds_create_writer(c->pp, c->rq_tp, q, NULL);
	assert_true(c->wr > 0);
	if (reader)
		c->rd = dds_create_reader(c->pp, c->rr_tp, q, NULL);
	dds_delete_qos(q);
	dds_instance_handle_t ih;
	assert_int_equal(dds_get_instance_handle(c->wr, &ih), 0);
	c->guid = ih;
}

static void cli_reader(struct cli *c)
{
	dds_qos_t *q = cli_qos(c->id);
	c->rd = dds_create_reader(c->pp, c->rr_tp, q, NULL);
	dds_delete_qos(q);
	assert_true(c->rd > 0);
}

static void cli_close(struct cli *c)
{
	(void)dds_delete(c->pp);
}

/* Waits (10 s at most) until the request writer matched the server. */
static void cli_wait_server(const struct cli *c)
{
	double end = rec_now() + 10.0;
	dds_publication_matched_status_t st;
	while (dds_get_publication_matched_status(c->wr, &st) == 0 && st.current_count == 0) {
		if (rec_now() > end)
			fail_msg("%s: no server within 10 s", c->svc);
		rec_sleep(0.01);
	}
}

/* The request bytes: 00 01 00 00, guid, seq (LE), body byte, padding. */
static size_t req_le(unsigned char *b, uint64_t guid, int64_t seq)
{
	memset(b, 0, 24);
	b[1] = 1;
	for (int i = 0; i < 8; i++) {
		b[4 + i] = (unsigned char)(guid >> (8 * i));
		b[12 + i] = (unsigned char)((uint64_t)seq >> (8 * i));
	}
	return 24;
}

static void cli_send(const struct cli *c, const void *b, size_t len)
{
	assert_true(btdds_raw_write(c->wr, b, len) >= 0);
}

struct take {
	struct reply *r;
	size_t n, cap;
};

static bool take_fn(void *arg, const struct btdds_raw_sample *s)
{
	struct take *t = arg;
	if (t->n < t->cap && s->len <= sizeof t->r[0].b) {
		memcpy(t->r[t->n].b, s->data, s->len);
		t->r[t->n++].len = s->len;
	}
	return true;
}

/* Takes the replies that arrive within `secs` (until `want` arrived). */
static size_t cli_replies(const struct cli *c, double secs, size_t want, struct reply *r,
			  size_t cap)
{
	struct take t = {r, 0, cap};
	double end = rec_now() + secs;
	while (t.n < want && rec_now() < end) {
		assert_true(btdds_raw_take(c->rd, take_fn, &t) >= 0);
		rec_sleep(0.01);
	}
	return t.n;
}

static uint64_t le64(const unsigned char *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The reply to (guid, seq): exactly 00 01 00 00 | guid | seq | body |
 * zero padding to 24 bytes. */
static void expect_reply(const struct reply *r, uint64_t guid, int64_t seq, unsigned body)
{
	assert_int_equal(r->len, 24);
	assert_int_equal(r->b[0], 0);
	assert_int_equal(r->b[1], 1);
	assert_int_equal(le64(r->b + 4), guid);
	assert_int_equal(le64(r->b + 12), (uint64_t)seq);
	assert_int_equal(r->b[20], body);
	assert_int_equal(r->b[21] | r->b[22] | r->b[23], 0);
}

/* One call of a fresh client: the body byte of its reply. */
static unsigned call_once(int domain, const char *name, const char *type, int64_t seq)
{
	struct cli c;
	cli_open(&c, domain, name, type, true);
	cli_wait_server(&c);
	unsigned char b[24];
	cli_send(&c, b, req_le(b, c.guid, seq));
	struct reply r[MAX_REPLIES];
	size_t n = cli_replies(&c, 10.0, 1, r, MAX_REPLIES);
	if (n != 1)
		fail_msg("%s: %zu replies, want 1", name, n);
	expect_reply(&r[0], c.guid, seq, r[0].b[20]);
	unsigned body = r[0].b[20];
	cli_close(&c);
	return body;
}

/* A recorder on `domain` whose topic (/svc_none) nobody publishes: only its
 * services are of interest. */
static void svc_start(struct rec *r, int domain)
{
	char *args[] = {"/svc_none", NULL};
	rec_start(r, domain, args, NULL);
}

/* ---- 164: each service's payload ---- */

static void test_payloads(void **state)
{
	(void)state;
	struct rec r;
	svc_start(&r, 164);
	int64_t seq = INT64_C(0x0102030405060708);
	assert_int_equal(call_once(164, "is_paused", "IsPaused", seq), 0);
	assert_int_equal(call_once(164, "pause", "Pause", seq + 1), 0);
	assert_int_equal(call_once(164, "is_paused", "IsPaused", 7), 1);
	assert_int_equal(call_once(164, "resume", "Resume", 8), 0);
	assert_int_equal(call_once(164, "is_paused", "IsPaused", 9), 0);
	assert_int_equal(call_once(164, "snapshot", "Snapshot", 10), 0); /* not snapshot mode */
	assert_int_equal(call_once(164, "split_bagfile", "SplitBagfile", 11), 0);
	/* A big-endian request (flag 0): the same guid and seq values come back. */
	struct cli c;
	cli_open(&c, 164, "is_paused", "IsPaused", true);
	cli_wait_server(&c);
	unsigned char b[24] = {0};
	for (int i = 0; i < 8; i++) {
		b[4 + i] = (unsigned char)(c.guid >> (56 - 8 * i));
		b[12 + i] = (unsigned char)(UINT64_C(0x1122334455667788) >> (56 - 8 * i));
	}
	cli_send(&c, b, sizeof b);
	struct reply rp[MAX_REPLIES];
	assert_int_equal(cli_replies(&c, 10.0, 1, rp, MAX_REPLIES), 1);
	expect_reply(&rp[0], c.guid, INT64_C(0x1122334455667788), 0);
	cli_close(&c);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	/* each request is a command, said with its origin */
	assert_non_null(strstr(r.out, "recording paused (service /rosbag2_recorder/pause from "
				      "client "));
	assert_non_null(strstr(r.out, "(service /rosbag2_recorder/split_bagfile from client "));
	rec_free(&r);
}

/* ---- 166: the reply waits for the client's own reply reader ---- */

static void test_gate(void **state)
{
	(void)state;
	struct rec r;
	svc_start(&r, 166);
	struct cli a, b;
	cli_open(&b, 166, "is_paused", "IsPaused", true); /* its reader is there early */
	cli_open(&a, 166, "is_paused", "IsPaused", false);
	cli_wait_server(&a);
	cli_wait_server(&b);
	rec_sleep(1.0); /* the server has matched b's reader long ago */
	unsigned char q[24];
	cli_send(&a, q, req_le(q, a.guid, 1));
	cli_send(&b, q, req_le(q, b.guid, 1)); /* the same seq: only the guid tells */
	rec_sleep(0.5);
	cli_reader(&a); /* a's reader appears only now */
	struct reply ra[MAX_REPLIES], rb[MAX_REPLIES];
	size_t na = cli_replies(&a, 10.0, 1, ra, MAX_REPLIES);
	size_t nb = cli_replies(&b, 3.0, 2, rb, MAX_REPLIES);
	if (na < 1)
		fail_msg("client a got no reply: the server did not wait for its reader");
	size_t mine_a = 0, mine_b = 0;
	for (size_t i = 0; i < na; i++)
		if (le64(ra[i].b + 4) == a.guid) {
			expect_reply(&ra[i], a.guid, 1, 0);
			mine_a++;
		}
	for (size_t i = 0; i < nb; i++)
		if (le64(rb[i].b + 4) == b.guid) {
			expect_reply(&rb[i], b.guid, 1, 0);
			mine_b++;
		}
	assert_int_equal(mine_a, 1);
	assert_int_equal(mine_b, 1);
	/* Whatever b's reader saw of a's reply carries a's guid, never b's. */
	assert_true(nb <= 2);
	cli_close(&a);
	cli_close(&b);
	rec_stop(&r, SIGINT);
	rec_free(&r);
}

/* ---- 167: requests before discovery finished ---- */

static void test_early(void **state)
{
	(void)state;
	struct rec r;
	svc_start(&r, 167);
	for (int i = 0; i < 5; i++) {
		struct cli c;
		cli_open(&c, 167, "is_paused", "IsPaused", true);
		cli_wait_server(&c); /* at once: the server may not know c's reader yet */
		unsigned char q[24];
		cli_send(&c, q, req_le(q, c.guid, 100 + i));
		struct reply rp[MAX_REPLIES];
		size_t n = cli_replies(&c, 10.0, 1, rp, MAX_REPLIES);
		if (n != 1)
			fail_msg("early request %d: %zu replies", i, n);
		expect_reply(&rp[0], c.guid, 100 + i, 0);
		cli_close(&c);
	}
	rec_stop(&r, SIGINT);
	rec_free(&r);
}

/* ---- 168: bad input ---- */

static void test_bad_input(void **state)
{
	(void)state;
	struct rec r;
	svc_start(&r, 168);
	struct cli c;
	cli_open(&c, 168, "is_paused", "IsPaused", true);
	cli_wait_server(&c);
	rec_sleep(0.5);
	unsigned char q[24];
	req_le(q, c.guid, 1);
	cli_send(&c, q, 12); /* truncated header */
	unsigned char flag[24];
	memcpy(flag, q, 24);
	/* A byte-order flag that is not plain CDR's: 3 (PL_CDR_LE). Kinds
	 * Cyclone does not know at all (00 05) never reach a reader: Cyclone
	 * drops the packet, and that writer's reliable stream stalls there
	 * (the sender's problem alone). */
	flag[1] = 3;
	cli_send(&c, flag, 24);
	flag[0] = 1;
	flag[1] = 1; /* not plain CDR */
	cli_send(&c, flag, 24);
	cli_send(&c, q, 20); /* the header alone: no body */
	size_t huge_len = 64 * 1024;
	unsigned char *huge = bt_xcalloc(1, huge_len);
	memcpy(huge, q, 24);
	cli_send(&c, huge, huge_len);
	free(huge);
	rec_sleep(0.5);
	req_le(q, c.guid, 2);
	cli_send(&c, q, 24);
	struct reply rp[MAX_REPLIES];
	size_t n = cli_replies(&c, 10.0, 1, rp, MAX_REPLIES);
	rec_sleep(0.5);
	n += cli_replies(&c, 0.5, 2, rp + n, MAX_REPLIES - n);
	cli_close(&c);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	assert_int_equal(n, 1); /* only the good one */
	expect_reply(&rp[0], c.guid, 2, 0);
	assert_non_null(strstr(r.out, "services: 6 requests received, 1 answered, 1 too large, "
				      "2 not plain CDR, 1 truncated header, 1 body too short"));
	rec_free(&r);
}

/* ---- 169: a burst ---- */

static void test_burst(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/svc_burst", NULL};
	rec_start(&r, 169, args, NULL);
	char *extra[] = {"--count", "2000", "--rate", "1000", "--wait-readers", "1", NULL};
	struct rec_pub p = rec_pub_start(r.tmp, 169, "rt/svc_burst", extra);
	struct cli c;
	cli_keep_all = true;
	cli_open(&c, 169, "is_paused", "IsPaused", true);
	cli_keep_all = false;
	cli_wait_server(&c);
	unsigned char q[24];
	double t0 = rec_now();
	/* 1000 a second: twenty times the rate a server takes on, and slow
	 * enough for its request reader (keep-last 10, as rmw's) to hand it
	 * nearly all of them, so that the refusals are its own and counted. */
	for (int i = 0; i < 1000; i++) {
		req_le(q, c.guid, i + 1);
		cli_send(&c, q, 24);
		rec_sleep(0.001);
	}
	double sent = rec_now() - t0;
	struct reply *rp = bt_xcalloc(1000, sizeof *rp);
	size_t n = cli_replies(&c, 3.0, 1000, rp, 1000);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(le64(rp[i].b + 4), c.guid);
	printf("1000 requests sent in %.2f s, %zu answered\n", sent, n);
	/* BTDDS_SVC_BURST at once, BTDDS_SVC_RATE a second after */
	assert_true(n >= 1 && n <= 50 + (size_t)(50 * (sent + 3.5)));
	free(rp);
	cli_close(&c);
	long published = rec_pub_finish(&p);
	assert_int_equal(published, 2000);
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	/* what the server saw: answered, or refused with a reason */
	const char *line = strstr(r.out, "services: ");
	assert_non_null(line);
	unsigned long long got, answered, refused = 0;
	assert_int_equal(sscanf(line, "services: %llu requests received, %llu answered", &got,
				&answered), 2);
	const char *rate = strstr(line, " answered, ");
	assert_non_null(rate);
	assert_int_equal(sscanf(rate, " answered, %llu refused: over the rate", &refused), 1);
	printf("server: %llu received, %llu answered, %llu refused over the rate\n", got,
	       answered, refused);
	assert_true(got <= 1000 && answered <= 50 + (unsigned long long)(50 * (sent + 3.5)));
	assert_true(refused >= got / 2);
	rec_expect_count(r.dir, "/svc_burst", 2000);
	rec_free(&r);
}

/* ---- bagtop call ---- */

/* `bagtop call --domain D --timeout T ARGS...`: exit status, *out its output. */
static int bcall(const char *tmp, int domain, const char *timeout, char *const args[], char **out)
{
	char dom[16];
	snprintf(dom, sizeof dom, "%d", domain);
	char *argv[16] = {getenv("BAGTOP_BIN"), "call", "--domain", dom, "--timeout",
			  (char *)timeout};
	size_t n = 6;
	for (size_t i = 0; args[i] && n < 15; i++)
		argv[n++] = args[i];
	argv[n] = NULL;
	char *path = bt_xasprintf("%s/call.txt", tmp);
	int rc = rec_wait(rec_spawn(argv, path, NULL), 30.0, "bagtop call");
	*out = rec_read(path);
	printf("bagtop call %s: exit %d: %s", args[0], rc, *out);
	free(path);
	return rc;
}

static void bcall_ok(const char *tmp, int domain, const char *verb, const char *want)
{
	char *out;
	char *args[] = {(char *)verb, NULL};
	int rc = bcall(tmp, domain, "10", args, &out);
	if (rc != 0 || strcmp(out, want) != 0)
		fail_msg("bagtop call %s: exit %d, said '%s', want '%s'", verb, rc, out, want);
	free(out);
}

/* bagtop call ARGS exits `rc` and says `want` (a part of its output). */
static void bcall_says(const char *tmp, int domain, const char *timeout, char *const args[],
		       int rc, const char *want)
{
	char *out;
	assert_int_equal(bcall(tmp, domain, timeout, args, &out), rc);
	if (strstr(out, want) == NULL)
		fail_msg("bagtop call %s: said '%s', want '%s' in it", args[0], out, want);
	free(out);
}

/* Storage files in the bag directory (*.db3, *.mcap). */
static int bag_files(const char *dir)
{
	DIR *d = opendir(dir);
	int n = 0;
	for (struct dirent *e; d != NULL && (e = readdir(d)) != NULL;)
		n += strstr(e->d_name, ".db3") != NULL || strstr(e->d_name, ".mcap") != NULL;
	if (d)
		closedir(d);
	return n;
}

/* 165: snapshot mode: success, and the snapshot's file. */
static void test_call_snapshot(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/svc_snap", "--snapshot-mode", "--max-cache-size", "1M", NULL};
	rec_start(&r, 165, args, NULL);
	char *extra[] = {"--count", "20", "--rate", "100", "--wait-readers", "1", NULL};
	rec_publish(&r, 165, "rt/svc_snap", extra, 20);
	rec_sleep(0.3);
	bcall_ok(r.tmp, 165, "snapshot", "success: true\n");
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	rec_expect_count(r.dir, "/svc_snap", 20);
	rec_free(&r);
}

/* 170: split, pause round trip, snapshot false. */
static void test_call_verbs(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/svc_call", NULL};
	rec_start(&r, 170, args, NULL);
	char *extra[] = {"--count", "10", "--rate", "50", "--wait-readers", "1", NULL};
	rec_publish(&r, 170, "rt/svc_call", extra, 10);
	rec_sleep(0.5);
	int files0 = bag_files(r.dir);
	bcall_ok(r.tmp, 170, "split", "done\n");
	double end = rec_now() + 5.0;
	while (bag_files(r.dir) <= files0 && rec_now() < end)
		rec_sleep(0.05);
	assert_int_equal(bag_files(r.dir), files0 + 1);
	bcall_ok(r.tmp, 170, "is-paused", "paused: false\n");
	bcall_ok(r.tmp, 170, "pause", "done\n");
	bcall_ok(r.tmp, 170, "is-paused", "paused: true\n");
	bcall_ok(r.tmp, 170, "resume", "done\n");
	bcall_ok(r.tmp, 170, "is-paused", "paused: false\n");
	char *snap[] = {"snapshot", NULL};
	bcall_says(r.tmp, 170, "10", snap, 1, "success: false");
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	rec_free(&r);
}

/* 171: --no-remote-control, then --compat humble. */
static void test_call_absent(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/svc_none", "--no-remote-control", NULL};
	rec_start(&r, 171, args, NULL);
	char *out;
	char *verb[] = {"is-paused", NULL};
	assert_int_equal(bcall(r.tmp, 171, "2", verb, &out), 1);
	assert_non_null(strstr(out, "no service /rosbag2_recorder/is_paused"));
	free(out);
	rec_stop(&r, SIGINT);
	rec_free(&r);
	char *humble[] = {"/svc_none", "--compat", "humble", "--node-name", "bt_rec", NULL};
	rec_start(&r, 171, humble, NULL);
	char *hv[] = {"--node", "bt_rec", "is-paused", NULL};
	assert_int_equal(bcall(r.tmp, 171, "2", hv, &out), 1);
	assert_non_null(strstr(out, "no service /bt_rec/is_paused"));
	free(out);
	char *hs[] = {"--node", "bt_rec", "snapshot", NULL};
	assert_int_equal(bcall(r.tmp, 171, "10", hs, &out), 1);
	assert_non_null(strstr(out, "success: false")); /* there, not in snapshot mode */
	free(out);
	rec_stop(&r, SIGINT);
	rec_free(&r);
}

/* ---- 52: bagtop's ~/snapshot_with_parameters ---- */

#define SWP_TYPE "bagtop_interfaces::srv::dds_::SnapshotWithParameters"

/* A CDR string (uint32 length with the NUL, little-endian, 4-aligned from
 * the CDR start, b + 4) at *off. */
static void swp_put_str(unsigned char *b, size_t *off, const char *s)
{
	while ((*off - 4) % 4 != 0)
		b[(*off)++] = 0;
	uint32_t n = (uint32_t)strlen(s) + 1;
	for (int i = 0; i < 4; i++)
		b[(*off)++] = (unsigned char)(n >> (8 * i));
	memcpy(b + *off, s, n);
	*off += n;
}

/* The request: header, float64 before, float64 after, string topics,
 * exclude, name; all little-endian. */
static size_t swp_request(unsigned char *b, uint64_t guid, int64_t seq, double before,
			  double after, const char *topics, const char *exclude, const char *name)
{
	size_t off = req_le(b, guid, seq) - 4; /* the header's 20 bytes */
	double d[2] = {before, after};
	for (int k = 0; k < 2; k++) {
		uint64_t bits;
		memcpy(&bits, &d[k], 8);
		for (int i = 0; i < 8; i++)
			b[off++] = (unsigned char)(bits >> (8 * i));
	}
	swp_put_str(b, &off, topics);
	swp_put_str(b, &off, exclude);
	swp_put_str(b, &off, name);
	return off;
}

/* One call: the reply's success, its message into msg[cap]. */
static bool swp_call(int domain, int64_t seq, const char *topics, const char *name, char *msg,
		     size_t cap)
{
	struct cli c;
	cli_open(&c, domain, "snapshot_with_parameters", SWP_TYPE, true);
	cli_wait_server(&c);
	unsigned char b[256];
	cli_send(&c, b, swp_request(b, c.guid, seq, 30.0, -1.0, topics, "", name));
	struct reply r[MAX_REPLIES];
	if (cli_replies(&c, 15.0, 1, r, MAX_REPLIES) != 1)
		fail_msg("snapshot_with_parameters: no reply");
	/* 00 01 00 00 | guid | seq | bool | pad to 4 | uint32 n | n bytes */
	assert_true(r[0].len >= 29);
	assert_int_equal(r[0].b[1], 1);
	assert_int_equal(le64(r[0].b + 4), c.guid);
	assert_int_equal(le64(r[0].b + 12), (uint64_t)seq);
	assert_true(r[0].b[20] <= 1);
	uint32_t n = (uint32_t)r[0].b[24] | (uint32_t)r[0].b[25] << 8 |
		     (uint32_t)r[0].b[26] << 16 | (uint32_t)r[0].b[27] << 24;
	assert_true(n >= 1 && 28 + n <= r[0].len && r[0].b[28 + n - 1] == 0 && n <= cap);
	memcpy(msg, r[0].b + 28, n);
	printf("snapshot_with_parameters: success %u, '%s'\n", r[0].b[20], msg);
	cli_close(&c);
	return r[0].b[20] == 1;
}


/* The pid of the line that says `text`, when it starts "[host pid N]"; else -1. */
static long line_pid(const char *out, const char *text)
{
	const char *t = strstr(out, text);
	if (t == NULL)
		return -1;
	const char *l = t;
	while (l > out && l[-1] != '\n')
		l--;
	const char *p = strstr(l, " pid ");
	return l[0] == '[' && p != NULL && p < t ? strtol(p + 5, NULL, 10) : -1;
}

/* 54: nodes of the same name (each recorder's default, rosbag2_recorder):
 * each gets the request and acts on it, so each reply is shown. */
static void test_call_same_name(void **state)
{
	(void)state;
	struct rec snap, plain;
	char *sa[] = {"/svc_dup", "--snapshot-mode", "--max-cache-size", "1M", NULL};
	char *pa[] = {"/svc_dup", NULL};
	rec_start(&snap, 54, sa, NULL);
	rec_start(&plain, 54, pa, NULL);
	char *extra[] = {"--count", "20", "--rate", "100", "--wait-readers", "2", NULL};
	rec_publish(&snap, 54, "rt/svc_dup", extra, 20);
	rec_sleep(0.3);
	char *out;
	char *args[] = {"snapshot", NULL};
	assert_int_equal(bcall(snap.tmp, 54, "10", args, &out), 1);
	assert_non_null(strstr(out, "2 servers got the request (nodes of the same name), "
				    "2 replied"));
	assert_non_null(strstr(out, "1 of 2 replies say success: false"));
	assert_int_equal(line_pid(out, "] success: true"), (long)snap.pid);
	assert_int_equal(line_pid(out, "] success: false"), (long)plain.pid);
	free(out);
	char *list[] = {"--list", NULL};
	assert_int_equal(bcall(snap.tmp, 54, "2", list, &out), 0);
	assert_non_null(strstr(out, "2 nodes are named /rosbag2_recorder"));
	char want[64];
	for (int i = 0; i < 2; i++) {
		snprintf(want, sizeof want, " pid %ld]\n", (long)(i ? plain.pid : snap.pid));
		assert_non_null(strstr(out, want));
	}
	free(out);
	rec_stop(&plain, SIGINT);
	rec_free(&plain);
	/* A reader of the requests that writes no replies (a recorder of the
	 * service's topics) is no server: the one reply, as usual. */
	char *again[] = {"--count", "20", "--rate", "100", "--wait-readers", "1", NULL};
	rec_publish(&snap, 54, "rt/svc_dup", again, 20); /* the first snapshot took all */
	rec_sleep(0.3);
	struct cli mute;
	cli_open(&mute, 54, "snapshot", "Snapshot", false);
	assert_true(dds_create_reader(mute.pp, mute.rq_tp, NULL, NULL) > 0);
	bcall_ok(snap.tmp, 54, "snapshot", "success: true\n");
	/* With a writer of replies it is a server, one that never answers:
	 * the reply that came, and the missing one said; exit 1. */
	assert_true(dds_create_writer(mute.pp, mute.rr_tp, NULL, NULL) > 0);
	rec_publish(&snap, 54, "rt/svc_dup", again, 20);
	rec_sleep(0.3);
	assert_int_equal(bcall(snap.tmp, 54, "10", args, &out), 1);
	assert_non_null(strstr(out, "2 servers got the request (nodes of the same name), "
				    "1 replied"));
	assert_non_null(strstr(out, "1 of 2 servers did not reply within the timeout"));
	assert_int_equal(line_pid(out, "] success: true"), (long)snap.pid);
	free(out);
	cli_close(&mute);
	rec_stop(&snap, SIGINT);
	printf("%s", snap.out);
	rec_expect_count(snap.dir, "/svc_dup", 60);
	rec_free(&snap);
}

/* The storage file `stem`.db3 or `stem`.mcap in dir (malloc'd path), or NULL. */
static char *named_file(const char *dir, const char *stem)
{
	static const char *const ext[] = {"db3", "mcap"};
	for (size_t i = 0; i < 2; i++) {
		char *path = bt_xasprintf("%s/%s.%s", dir, stem, ext[i]);
		if (access(path, F_OK) == 0)
			return path;
		free(path);
	}
	return NULL;
}

static void test_snapshot_params(void **state)
{
	(void)state;
	struct rec r;
	char *args[] = {"/svc_pa", "/svc_pb", "--snapshot-mode", "--max-cache-size", "1M", NULL};
	rec_start(&r, 52, args, NULL);
	char *extra[] = {"--count", "20", "--rate", "100", "--wait-readers", "1", NULL};
	struct rec_pub pa = rec_pub_start(r.tmp, 52, "rt/svc_pa", extra);
	struct rec_pub pb = rec_pub_start(r.tmp, 52, "rt/svc_pb", extra);
	assert_int_equal(rec_pub_finish(&pa), 20);
	assert_int_equal(rec_pub_finish(&pb), 20);
	rec_sleep(0.3);
	char msg[320];
	assert_true(swp_call(52, 41, "/svc_pa", "raw1", msg, sizeof msg));
	assert_non_null(strstr(msg, "/raw1."));
	assert_false(swp_call(52, 42, "", "a/b", msg, sizeof msg));
	assert_non_null(strstr(msg, "name"));
	char *out;
	char *call[] = {"--topics", "/svc_pb", "--name", "n1", "snapshot", NULL};
	assert_int_equal(bcall(r.tmp, 52, "15", call, &out), 0);
	assert_true(strncmp(out, "success: true\nmessage: snapshot ", 32) == 0);
	assert_non_null(strstr(out, "/n1."));
	free(out);
	char *bad[] = {"--name", "a/b", "snapshot", NULL};
	bcall_says(r.tmp, 52, "5", bad, 2, "--name wants a file name");
	char *list[] = {"--list", NULL};
	bcall_says(r.tmp, 52, "2", list, 0, "snapshot_with_parameters");
	rec_stop(&r, SIGINT);
	printf("%s", r.out);
	char *raw1 = named_file(r.dir, "raw1"), *n1 = named_file(r.dir, "n1");
	assert_non_null(raw1);
	assert_non_null(n1);
	assert_int_equal(tb_count(raw1, "/svc_pa", TB_ALL), 20);
	assert_int_equal(tb_count(raw1, NULL, TB_ALL), 20);
	assert_int_equal(tb_count(n1, "/svc_pb", TB_ALL), 20);
	assert_int_equal(tb_count(n1, NULL, TB_ALL), 20);
	free(raw1);
	free(n1);
	rec_free(&r);
}

REC_MAIN(
	cmocka_unit_test(test_payloads),
	cmocka_unit_test(test_gate),
	cmocka_unit_test(test_early),
	cmocka_unit_test(test_bad_input),
	cmocka_unit_test(test_burst),
	cmocka_unit_test(test_call_snapshot),
	cmocka_unit_test(test_call_verbs),
	cmocka_unit_test(test_call_absent),
	cmocka_unit_test(test_snapshot_params),
	cmocka_unit_test(test_call_same_name))
