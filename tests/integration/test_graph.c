/* The recorder as a ROS 2 node, end to end, with real bagtop and tpub
 * processes on loopback-only DDS domains 172..178: what a ROS 2 tool sees
 * on the wire, decoded here from the raw bytes by the layouts of
 * rosbag2_interfaces and rmw_dds_common (not with bagtop's decoders):
 *   - events/write_split on every split by size (Jazzy: closed_file,
 *     opened_file, node_name) and on a snapshot (Humble: two strings);
 *   - events/rosbag2_messages_lost while the recorder loses messages, at
 *     most once a second;
 *   - ros_discovery_info: the node with its namespace and name, its events
 *     writers, none of its capture readers, in both Gid layouts;
 *   - `bagtop call --list` finds two recorders by node name, and not one
 *     run with --no-remote-control;
 *   - two recorders of one node name each warn that the other serves
 *     their services too. */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <dds/dds.h>

#include "bt_mem.h"
#include "btdds_participant.h"
#include "btdds_raw.h"
#include "rec_harness.h"
#include "test_util.h"

/* ---- what the test reads: every sample of a few raw topics ---- */

#define W_MAX 256

struct w_sample {
	unsigned char *data;
	size_t len;
	int64_t t; /* source timestamp, ns */
};

struct w_topic {
	dds_entity_t topic, reader;
	struct w_sample s[W_MAX];
	size_t n;
};

struct watch {
	dds_entity_t pp;
	struct w_topic split, lost, graph;
};

static void w_reader(struct watch *w, struct w_topic *t, const char *name, const char *type,
		     bool transient_local)
{
	t->topic = btdds_raw_topic_create(w->pp, name, type, false);
	assert_true(t->topic > 0);
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_durability(q, transient_local ? DDS_DURABILITY_TRANSIENT_LOCAL
					       : DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_ALL, 0);
	t->reader = dds_create_reader(w->pp, t->topic, q, NULL);
	dds_delete_qos(q);
	assert_true(t->reader > 0);
}

static void watch_open(struct watch *w, int domain)
{
	memset(w, 0, sizeof *w);
	assert_int_equal(btdds_participant_create((uint32_t)domain, NULL, &w->pp, NULL), BT_OK);
	w_reader(w, &w->split, "rt/events/write_split",
		 "rosbag2_interfaces::msg::dds_::WriteSplitEvent_", false);
	w_reader(w, &w->lost, "rt/events/rosbag2_messages_lost",
		 "rosbag2_interfaces::msg::dds_::MessagesLostEvent_", false);
	w_reader(w, &w->graph, "ros_discovery_info",
		 "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_", true);
}

static bool w_keep(void *arg, const struct btdds_raw_sample *s)
{
	struct w_topic *t = arg;
	assert_true(t->n < W_MAX);
	struct w_sample *k = &t->s[t->n++];
	k->data = bt_xmalloc(s->len ? s->len : 1);
	memcpy(k->data, s->data, s->len);
	k->len = s->len;
	k->t = s->source_time;
	return true;
}

static void watch_take(struct watch *w)
{
	struct w_topic *t[] = {&w->split, &w->lost, &w->graph};
	for (size_t i = 0; i < 3; i++)
		assert_true(btdds_raw_take(t[i]->reader, w_keep, t[i]) >= 0);
}

/* Takes samples until topic t has `n`, for at most `secs`. */
static void watch_until(struct watch *w, struct w_topic *t, size_t n, double secs)
{
	double end = rec_now() + secs;
	while (watch_take(w), t->n < n && rec_now() < end)
		rec_sleep(0.05);
}

static void watch_close(struct watch *w)
{
	struct w_topic *t[] = {&w->split, &w->lost, &w->graph};
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < t[i]->n; k++)
			free(t[i]->s[k].data);
	(void)btdds_participant_delete(w->pp);
}

/* ---- plain CDR by hand: little-endian, offsets after the 4-byte header ---- */

struct cdr {
	const unsigned char *p;
	size_t len, off;
};

static struct cdr cdr_of(const struct w_sample *s)
{
	assert_true(s->len >= 4);
	assert_int_equal(s->data[0], 0x00);
	assert_int_equal(s->data[1], 0x01); /* CDR little-endian */
	return (struct cdr){s->data + 4, s->len - 4, 0};
}

static void cdr_align(struct cdr *c, size_t a)
{
	c->off = (c->off + a - 1) / a * a;
}

static uint32_t cdr_u32(struct cdr *c)
{
	cdr_align(c, 4);
	assert_true(c->off + 4 <= c->len);
	const unsigned char *b = c->p + c->off;
	c->off += 4;
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static uint64_t cdr_u64(struct cdr *c)
{
	cdr_align(c, 8);
	uint64_t lo = cdr_u32(c);
	return lo | (uint64_t)cdr_u32(c) << 32;
}

/* A string: its length counts the NUL, which must be there. */
static const char *cdr_str(struct cdr *c)
{
	uint32_t n = cdr_u32(c);
	assert_true(n >= 1 && c->off + n <= c->len);
	const char *s = (const char *)c->p + c->off;
	assert_int_equal(s[n - 1], '\0');
	assert_int_equal(strlen(s), n - 1);
	c->off += n;
	return s;
}

static const unsigned char *cdr_bytes(struct cdr *c, size_t n)
{
	assert_true(c->off + n <= c->len);
	c->off += n;
	return c->p + c->off - n;
}

/* Nothing but padding is left. */
static void cdr_end(const struct cdr *c)
{
	if (c->len - c->off >= 4)
		fail_msg("%zu bytes left after the message", c->len - c->off);
}

/* ---- events/write_split ---- */

static char *file_path(const struct rec *r, int i)
{
	return bt_xasprintf("%s/bag_%d.db3", r->dir, i);
}

/* Sample i is closed `closed`, opened `opened` ("" for none), with
 * node_name `node` (NULL: Humble's layout, no node_name). */
static void expect_split(const struct w_sample *s, const char *closed, const char *opened,
			 const char *node)
{
	struct cdr c = cdr_of(s);
	const char *cf = cdr_str(&c), *of = cdr_str(&c);
	if (strcmp(cf, closed) || strcmp(of, opened))
		fail_msg("write_split: closed '%s' opened '%s', want '%s' '%s'", cf, of, closed,
			 opened);
	if (node != NULL)
		assert_string_equal(cdr_str(&c), node);
	cdr_end(&c);
}

static int count_files(const char *dir)
{
	int n = 0;
	for (;; n++) {
		char *p = bt_xasprintf("%s/bag_%d.db3", dir, n);
		bool there = access(p, F_OK) == 0;
		free(p);
		if (!there)
			return n;
	}
}

/* 1. A split by size: one event per file, each naming the file closed and
 * the one opened in its place; the last file's, at the end, none. */
static void test_split_events(void **state)
{
	(void)state;
	struct watch w;
	watch_open(&w, 172);
	struct rec r;
	char *args[] = {"/g", "--max-bag-size", "86016", NULL};
	rec_start(&r, 172, args, NULL);
	char *extra[] = {"--size", "2000", "--count", "150", "--rate", "300",
			 "--wait-readers", "1", NULL};
	rec_publish(&r, 172, "rt/g", extra, 150);
	rec_stop(&r, SIGINT);
	int files = count_files(r.dir);
	printf("%d files\n", files);
	assert_true(files >= 3);
	watch_until(&w, &w.split, (size_t)files, 10.0);
	assert_int_equal(w.split.n, files);
	for (int i = 0; i < files; i++) {
		char *c = file_path(&r, i), *o = i + 1 < files ? file_path(&r, i + 1) : bt_xstrdup("");
		expect_split(&w.split.s[i], c, o, "/rosbag2_recorder");
		free(c);
		free(o);
	}
	rec_expect_count(r.dir, "/g", 150);
	watch_close(&w);
	rec_free(&r);
}

/* 2. Snapshot mode, Humble's layout: the snapshot's file is told as soon
 * as it is written, with the (empty) file the next snapshot goes to. */
static void test_snapshot_event(void **state)
{
	(void)state;
	struct watch w;
	watch_open(&w, 173);
	struct rec r;
	char *args[] = {"/g", "--snapshot-mode", "--max-cache-size", "1M", "--compat", "humble",
			NULL};
	rec_start(&r, 173, args, NULL);
	char *extra[] = {"--count", "40", "--rate", "200", "--wait-readers", "1", NULL};
	rec_publish(&r, 173, "rt/g", extra, 40);
	rec_sleep(0.5);
	assert_int_equal(kill(r.pid, SIGUSR1), 0);
	watch_until(&w, &w.split, 1, 15.0);
	assert_int_equal(w.split.n, 1);
	char *c = file_path(&r, 0), *o = file_path(&r, 1);
	expect_split(&w.split.s[0], c, o, NULL);
	assert_int_equal(access(c, F_OK), 0); /* finished by now */
	free(c);
	free(o);
	rec_stop(&r, SIGINT);
	watch_until(&w, &w.split, 2, 1.5);
	assert_int_equal(w.split.n, 1); /* the empty file told no event */
	assert_int_equal(count_files(r.dir), 1); /* and is gone */
	rec_expect_count(r.dir, "/g", 40);
	watch_close(&w);
	rec_free(&r);
}

/* ---- events/rosbag2_messages_lost ---- */

/* 3. A slow writer and a small cache: loss events while messages are lost
 * in the recorder, one a second at most, naming the topic. */
static void test_lost_events(void **state)
{
	(void)state;
	struct watch w;
	watch_open(&w, 174);
	struct rec r;
	char *args[] = {"/g", "--max-cache-size", "20000", NULL};
	rec_start(&r, 174, args, "BAGTOP_TEST_CONSUMER_DELAY_US=20000");
	char *extra[] = {"--size", "1000", "--count", "3000", "--rate", "1000",
			 "--wait-readers", "1", NULL};
	rec_publish(&r, 174, "rt/g", extra, 3000);
	rec_stop(&r, SIGINT);
	watch_until(&w, &w.lost, W_MAX, 1.0);
	struct rec_tally v = rec_summary(r.out, "/g");
	printf("%zu loss events; lost %llu in the recorder\n", w.lost.n, v.lost_recorder);
	assert_true(v.lost_recorder > 0);
	assert_true(w.lost.n >= 2);
	unsigned long long sum = 0;
	for (size_t i = 0; i < w.lost.n; i++) {
		struct cdr c = cdr_of(&w.lost.s[i]);
		assert_string_equal(cdr_str(&c), "/rosbag2_recorder");
		assert_int_equal(cdr_u32(&c), 1); /* only the topic that lost */
		assert_string_equal(cdr_str(&c), "/g");
		assert_int_equal(cdr_u64(&c), 0); /* transport */
		uint64_t rec = cdr_u64(&c);
		assert_true(rec > 0);
		sum += rec;
		cdr_end(&c);
		if (i > 0 && w.lost.s[i].t - w.lost.s[i - 1].t < INT64_C(990000000))
			fail_msg("loss events %zu and %zu %.3f s apart", i - 1, i,
				 (double)(w.lost.s[i].t - w.lost.s[i - 1].t) / 1e9);
	}
	/* Each counts what was lost since the one before: never more than all. */
	assert_true(sum <= v.lost_recorder);
	watch_close(&w);
	rec_free(&r);
}

/* ---- ros_discovery_info ---- */

struct ep {
	dds_guid_t key, pp;
	char topic[128];
};

/* Every endpoint on the domain now (publications or subscriptions). */
static size_t endpoints(dds_entity_t pp, dds_entity_t builtin, struct ep *out, size_t max)
{
	dds_entity_t rd = dds_create_reader(pp, builtin, NULL, NULL);
	assert_true(rd > 0);
	rec_sleep(0.3);
	void *ptrs[128] = {NULL};
	dds_sample_info_t info[128];
	dds_return_t n = dds_read(rd, ptrs, info, 128, 128);
	assert_true(n >= 0);
	size_t k = 0;
	for (int i = 0; i < n && k < max; i++) {
		if (!info[i].valid_data)
			continue;
		const dds_builtintopic_endpoint_t *e = ptrs[i];
		out[k].key = e->key;
		out[k].pp = e->participant_key;
		snprintf(out[k].topic, sizeof out[k].topic, "%s", e->topic_name);
		k++;
	}
	(void)dds_return_loan(rd, ptrs, n);
	(void)dds_delete(rd);
	return k;
}

static const struct ep *ep_find(const struct ep *e, size_t n, const char *topic)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(e[i].topic, topic))
			return &e[i];
	return NULL;
}

static const struct ep *ep_by_gid(const struct ep *e, size_t n, const unsigned char *gid)
{
	for (size_t i = 0; i < n; i++)
		if (!memcmp(e[i].key.v, gid, 16))
			return &e[i];
	return NULL;
}

/* A gid: the GUID, then zeros to the layout's size. */
static void expect_gid(const unsigned char *gid, size_t size, const dds_guid_t *g)
{
	assert_memory_equal(gid, g->v, 16);
	for (size_t i = 16; i < size; i++)
		assert_int_equal(gid[i], 0);
}

/* The recorder's last ros_discovery_info sample, decoded with `gsz`-byte
 * gids: node "/"/"graph_rec" listing both events writers and no capture
 * reader; every gid it lists is an endpoint of the recorder's on an events
 * or service topic. */
static void graph_case(int domain, const char *compat, size_t gsz)
{
	struct watch w;
	watch_open(&w, domain);
	struct rec r;
	char *args[] = {"/g", "--node-name", "graph_rec", "--compat", (char *)compat, NULL};
	rec_start(&r, domain, args, NULL);
	char *extra[] = {"--count", "5", "--wait-readers", "1", NULL};
	rec_publish(&r, domain, "rt/g", extra, 5);
	struct ep pubs[64], subs[64];
	size_t np = endpoints(w.pp, DDS_BUILTIN_TOPIC_DCPSPUBLICATION, pubs, 64);
	size_t ns = endpoints(w.pp, DDS_BUILTIN_TOPIC_DCPSSUBSCRIPTION, subs, 64);
	const struct ep *split = ep_find(pubs, np, "rt/events/write_split");
	const struct ep *lost = ep_find(pubs, np, "rt/events/rosbag2_messages_lost");
	const struct ep *capture = ep_find(subs, ns, "rt/g");
	assert_non_null(split);
	assert_non_null(lost);
	assert_non_null(capture); /* the recorder's reader exists... */
	assert_memory_equal(capture->pp.v, split->pp.v, 16);
	watch_until(&w, &w.graph, 1, 5.0);
	assert_true(w.graph.n >= 1);
	struct cdr c = cdr_of(&w.graph.s[w.graph.n - 1]);
	expect_gid(cdr_bytes(&c, gsz), gsz, &split->pp);
	assert_int_equal(cdr_u32(&c), 1);
	assert_string_equal(cdr_str(&c), "/");
	assert_string_equal(cdr_str(&c), "graph_rec");
	bool seen_split = false, seen_lost = false;
	for (int writers = 0; writers < 2; writers++) {
		uint32_t k = cdr_u32(&c);
		for (uint32_t i = 0; i < k; i++) {
			const unsigned char *gid = cdr_bytes(&c, gsz);
			const struct ep *e = ep_by_gid(writers ? pubs : subs, writers ? np : ns, gid);
			assert_non_null(e);
			expect_gid(gid, gsz, &e->key);
			/* ...and is not the node's: only events and services are */
			if (strncmp(e->topic, "rt/events/", 10) && strncmp(e->topic, "rq/", 3) &&
			    strncmp(e->topic, "rr/", 3))
				fail_msg("the node lists an endpoint of %s", e->topic);
			seen_split |= e == split;
			seen_lost |= e == lost;
		}
	}
	cdr_end(&c);
	assert_true(seen_split && seen_lost);
	rec_stop(&r, SIGINT);
	watch_close(&w);
	rec_free(&r);
}

/* 4. Jazzy's layout (16-byte gids) and Humble's (24). */
static void test_graph_jazzy(void **state)
{
	(void)state;
	graph_case(175, "jazzy", 16);
}

static void test_graph_humble(void **state)
{
	(void)state;
	graph_case(176, "humble", 24);
}

/* ---- bagtop call --list ---- */

/* 5. Two recorders (Jazzy's and Humble's node layouts) by node name; one
 * without remote control is no node, so not listed. */
static void test_call_list(void **state)
{
	(void)state;
	struct rec a, b, c;
	char *aa[] = {"/g", "--node-name", "rec_a", NULL};
	char *ba[] = {"/g", "--node-name", "rec_b", "--compat", "humble", NULL};
	char *ca[] = {"/g", "--node-name", "rec_c", "--no-remote-control", NULL};
	rec_start(&a, 177, aa, NULL);
	rec_start(&b, 177, ba, NULL);
	rec_start(&c, 177, ca, NULL);
	char *out = NULL;
	int rc = tu_bagtop(&out, "call", "--list", "--domain", "177", "--timeout", "2", NULL);
	printf("%s", out);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(out, "/rec_a "));
	assert_non_null(strstr(out, "/rec_b "));
	assert_null(strstr(out, "/rec_c"));
	char *line = strstr(out, "/rec_a ");
	assert_non_null(strstr(line, "recorder"));
	free(out);
	rec_stop(&a, SIGINT);
	rec_stop(&b, SIGINT);
	rec_stop(&c, SIGINT);
	rec_free(&a);
	rec_free(&b);
	rec_free(&c);
	/* Nobody left: one line, exit 1. */
	rc = tu_bagtop(&out, "call", "--list", "--domain", "177", "--timeout", "0.5", NULL);
	assert_int_equal(rc, 1);
	assert_non_null(strstr(out, "no rosbag2 recorder or player on domain 177"));
	free(out);
}

/* ---- two nodes of one name ---- */

/* 6. Two recorders given the same --node-name (domain 178): each says once
 * that another process serves its services too, naming the other's pid;
 * a third of another name says nothing. */
static void test_same_node_name(void **state)
{
	(void)state;
	struct rec a, b, c;
	char *aa[] = {"/g", "--node-name", "twin", NULL};
	char *ca[] = {"/g", "--node-name", "single", NULL};
	rec_start(&a, 178, aa, NULL);
	rec_start(&b, 178, aa, NULL);
	rec_start(&c, 178, ca, NULL);
	const char *say = "warning: another process (";
	if (rec_wait_said(a.out_path, say, 15.0))
		(void)rec_wait_said(b.out_path, say, 15.0);
	rec_sleep(1.0); /* c had as long to see both */
	rec_stop(&a, SIGINT);
	rec_stop(&b, SIGINT);
	rec_stop(&c, SIGINT);
	char pid_a[64], pid_b[64];
	snprintf(pid_a, sizeof pid_a, " pid %d) also serves /twin/", (int)a.pid);
	snprintf(pid_b, sizeof pid_b, " pid %d) also serves /twin/", (int)b.pid);
	const char *in_a = strstr(a.out, say), *in_b = strstr(b.out, say);
	if (in_a == NULL || in_b == NULL || strstr(in_a + 1, say) != NULL ||
	    strstr(in_b + 1, say) != NULL || strstr(c.out, "another process") != NULL)
		fail_msg("want the warning once in each twin, none in the other:\n--- a\n%s--- b\n%s"
			 "--- c\n%s",
			 a.out, b.out, c.out);
	char *eol_a = strchr(in_a, '\n'), *eol_b = strchr(in_b, '\n');
	if (eol_a != NULL)
		*eol_a = '\0';
	if (eol_b != NULL)
		*eol_b = '\0';
	if (strstr(in_a, pid_b) == NULL || strstr(in_b, pid_a) == NULL)
		fail_msg("the warning names the other's pid (%d, %d):\n%s\n%s", (int)b.pid,
			 (int)a.pid, in_a, in_b);
	rec_free(&a);
	rec_free(&b);
	rec_free(&c);
}

REC_MAIN(
	cmocka_unit_test(test_split_events),
	cmocka_unit_test(test_snapshot_event),
	cmocka_unit_test(test_lost_events),
	cmocka_unit_test(test_graph_jazzy),
	cmocka_unit_test(test_graph_humble),
	cmocka_unit_test(test_call_list),
	cmocka_unit_test(test_same_node_name))
