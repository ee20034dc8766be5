/* rec_consumer against a real bag: exact per-topic accounting under cache
 * pressure (every pushed message is recorded or counted lost), the bag
 * holding exactly what was counted, byte for byte and in push order; split
 * requests; topics registered without messages; a real write failure (the
 * file-size limit) counted as lost_write with the bag still readable. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bag_reader.h"
#include "bag_writer.h"
#include "bt_mem.h"
#include "rec_cache.h"
#include "rec_consumer.h"
#include "rec_topics.h"
#include "test_bag.h"

#define T0 INT64_C(1700000000000000000) /* one timestamp: bag order = write order */
#define HDR 9                           /* CDR header + producer + seq */
#define STRING_TYPE "std_msgs::msg::dds_::String_" /* the type of every topic but one */

struct fx {
	char *tmp, *dir;
	struct bag_writer *w;
	struct rec_topics *topics;
	struct rec_cache *cache;
	struct rec_consumer *cons;
};

static void fx_open_split(struct fx *f, size_t max_cache, uint64_t split_size)
{
	f->tmp = tu_mkdtemp("consumer");
	f->dir = bt_xasprintf("%s/bag", f->tmp);
	struct bag_writer_options wo = {.uri = f->dir, .ros_distro = "",
					.max_bagfile_size = split_size};
	f->w = tb_writer_open(&wo);
	f->topics = rec_topics_new();
	f->cache = rec_cache_new(max_cache);
}

static void fx_open(struct fx *f, size_t max_cache)
{
	fx_open_split(f, max_cache, 0);
}

static void fx_start(struct fx *f, uint32_t delay_us)
{
	struct rec_consumer_options o = {.cache = f->cache, .topics = f->topics, .writer = f->w,
					 .test_delay_us = delay_us};
	struct bt_error err;
	if (rec_consumer_start(&o, &f->cons, &err) != BT_OK)
		fail_msg("rec_consumer_start: %s", err.msg);
}

/* Closes the cache, stops the consumer and closes the writer; returns the
 * consumer's status (the writer's must match it). */
static bt_status fx_stop(struct fx *f)
{
	rec_cache_close(f->cache);
	struct bt_error err = {0};
	bt_status st = rec_consumer_stop(f->cons, &err);
	rec_consumer_free(f->cons);
	f->cons = NULL;
	struct bt_error werr = {0};
	bt_status wst = bag_writer_close(f->w, &werr);
	assert_int_equal(wst, st);
	return st;
}

static void fx_free(struct fx *f)
{
	rec_cache_free(f->cache);
	rec_topics_free(f->topics);
	tu_rmrf(f->tmp);
	free(f->dir);
	free(f->tmp);
}

/* What the discovery thread does once bag and def are filled: `described`
 * with release order, then (its reader made) `subscribed`. */
static void fx_subscribe(struct rec_topic *tp)
{
	atomic_store_explicit(&tp->described, true, memory_order_release);
	atomic_store_explicit(&tp->subscribed, true, memory_order_release);
}

/* A topic as the discovery thread publishes it: bag description first,
 * then `described` and `subscribed`. */
static struct rec_topic *fx_topic(struct fx *f, const char *dds_name, const char *dds_type,
				  bool subscribe)
{
	struct rec_topic *tp = rec_topics_add(f->topics, dds_name, dds_type, false);
	assert_non_null(tp);
	tp->bag.name = bt_xstrdup(tp->names.name);
	tp->bag.type = bt_xstrdup(tp->names.type);
	tp->bag.serialization_format = bt_xstrdup("cdr");
	tp->bag.type_description_hash = bt_xstrdup("");
	if (subscribe)
		fx_subscribe(tp);
	return tp;
}

static size_t payload_len(uint32_t producer, uint32_t seq)
{
	return HDR + (seq * 7u + producer * 5u) % 200u;
}

static unsigned char payload_byte(uint32_t producer, uint32_t seq, size_t k)
{
	return (unsigned char)(seq * 31u + producer + k);
}

/* CDR header, producer id, seq (LE), then a pattern: checkable byte for byte. */
static struct rec_msg *payload(uint32_t topic, uint32_t producer, uint32_t seq, size_t len)
{
	struct rec_msg *m = rec_msg_new(topic, len);
	assert_non_null(m);
	m->recv_time = T0;
	unsigned char *d = m->data;
	d[0] = 0, d[1] = 1, d[2] = 0, d[3] = 0;
	d[4] = (unsigned char)producer;
	for (int i = 0; i < 4; i++)
		d[5 + i] = (unsigned char)(seq >> (8 * i));
	for (size_t k = HDR; k < len; k++)
		d[k] = payload_byte(producer, seq, k);
	return m;
}

static void payload_decode(const struct bag_read_msg *m, uint32_t *producer, uint32_t *seq)
{
	assert_true(m->len >= HDR);
	*producer = m->data[4];
	*seq = 0;
	for (int i = 0; i < 4; i++)
		*seq |= (uint32_t)m->data[5 + i] << (8 * i);
	for (size_t k = HDR; k < m->len; k++)
		if (m->data[k] != payload_byte(*producer, *seq, k))
			fail_msg("message %u/%u differs at byte %zu", *producer, *seq, k);
}

static uint64_t ld(atomic_uint_fast64_t *a)
{
	return atomic_load(a);
}

static struct bag_reader *open_bag(const char *dir)
{
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(dir, 0, &r, &err) != BT_OK)
		fail_msg("bag_reader_open: %s", err.msg);
	return r;
}

static uint64_t bag_topic_count(struct bag_reader *r, const char *name)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].topic.name, name) == 0)
			return t[i].count;
	fail_msg("topic %s not in the bag", name);
	return 0;
}

/* ---- counts under pressure ---- */

#define CP_PRODUCERS 2
#define CP_PUSHES 3000u /* per producer, alternating topics /a and /b */

struct cp_producer {
	struct fx *f;
	uint32_t id;
	pthread_t th;
	bool accepted[CP_PUSHES];
	uint64_t pushed[2], lost[2], bytes[2], other;
};

/* Bursts of 200 pushes overflow the 4 KiB cache; 400 paced pushes follow
 * that the slowed consumer mostly keeps up with. */
static void cp_pace(uint32_t s)
{
	if (s % 600 >= 200 && s % 4 == 0)
		usleep(500);
}

static void *cp_run(void *arg)
{
	struct cp_producer *p = arg;
	for (uint32_t s = 0; s < CP_PUSHES; s++) {
		cp_pace(s);
		uint32_t t = s % 2;
		size_t len = payload_len(p->id, s);
		struct rec_topic *tp = rec_topics_get(p->f->topics, t);
		atomic_fetch_add_explicit(&tp->st.received, 1, memory_order_relaxed);
		p->pushed[t]++;
		bt_status st = rec_cache_push(p->f->cache, payload(t, p->id, s, len));
		if (st == BT_OK) {
			p->accepted[s] = true;
			p->bytes[t] += len;
		} else if (st == BT_ERR_FULL) {
			/* What the listener does: count it as lost in the recorder. */
			atomic_fetch_add_explicit(&tp->st.lost_cache, 1, memory_order_relaxed);
			p->lost[t]++;
		} else {
			p->other++;
		}
	}
	return NULL;
}

/* The bag holds exactly each producer's accepted messages, in push order. */
static void cp_check_bag(const char *dir, struct cp_producer *p, const uint64_t recorded[2])
{
	struct bag_reader *r = open_bag(dir);
	assert_int_equal(bag_reader_n_files(r), 1);
	assert_int_equal(bag_topic_count(r, "/a"), recorded[0]);
	assert_int_equal(bag_topic_count(r, "/b"), recorded[1]);
	uint32_t next[CP_PRODUCERS] = {0};
	struct bag_read_msg m;
	struct bt_error err;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		uint32_t id, seq;
		payload_decode(&m, &id, &seq);
		assert_true(id < CP_PRODUCERS);
		while (next[id] < CP_PUSHES && !p[id].accepted[next[id]])
			next[id]++;
		assert_int_equal(seq, next[id]); /* the next accepted, in order */
		assert_int_equal(m.len, payload_len(id, seq));
		assert_string_equal(m.name, seq % 2 ? "/b" : "/a");
		next[id]++;
	}
	assert_int_equal(rc, 0);
	for (uint32_t id = 0; id < CP_PRODUCERS; id++) {
		while (next[id] < CP_PUSHES && !p[id].accepted[next[id]])
			next[id]++;
		assert_int_equal(next[id], CP_PUSHES); /* none missing */
	}
	bag_reader_close(r);
}

static void test_consumer_counts(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, 4096);
	fx_topic(&f, "rt/a", STRING_TYPE, true);
	fx_topic(&f, "rt/b", STRING_TYPE, true);
	fx_start(&f, 2000); /* a slow disk: 2 ms per batch */
	struct cp_producer *p = calloc(CP_PRODUCERS, sizeof *p);
	assert_non_null(p);
	for (uint32_t i = 0; i < CP_PRODUCERS; i++) {
		p[i].f = &f;
		p[i].id = i;
		assert_int_equal(pthread_create(&p[i].th, NULL, cp_run, &p[i]), 0);
	}
	for (uint32_t i = 0; i < CP_PRODUCERS; i++)
		assert_int_equal(pthread_join(p[i].th, NULL), 0);
	uint64_t batches = rec_consumer_batches(f.cons);
	assert_int_equal(fx_stop(&f), BT_OK);
	uint64_t recorded[2];
	for (uint32_t t = 0; t < 2; t++) {
		struct rec_topic_stats *st = &rec_topics_get(f.topics, t)->st;
		uint64_t pushed = 0, lost = 0, bytes = 0;
		for (uint32_t i = 0; i < CP_PRODUCERS; i++) {
			assert_int_equal(p[i].other, 0);
			pushed += p[i].pushed[t];
			lost += p[i].lost[t];
			bytes += p[i].bytes[t];
		}
		recorded[t] = ld(&st->recorded);
		printf("  topic %u: %llu pushed, %llu recorded, %llu lost in cache\n", t,
		       (unsigned long long)pushed, (unsigned long long)recorded[t],
		       (unsigned long long)lost);
		assert_int_equal(pushed, CP_PUSHES);
		assert_int_equal(ld(&st->received), pushed);
		assert_int_equal(ld(&st->lost_cache), lost);
		assert_int_equal(recorded[t] + lost, pushed);
		assert_int_equal(ld(&st->bytes), bytes);
		assert_int_equal(ld(&st->lost_write), 0);
		assert_int_equal(ld(&st->lost_toobig), 0);
		assert_true(recorded[t] > 0);
		assert_true(lost > 0); /* the tiny cache really overflowed */
	}
	printf("  %llu batches\n", (unsigned long long)batches);
	assert_true(batches >= 10 && batches <= recorded[0] + recorded[1]);
	cp_check_bag(f.dir, p, recorded);
	free(p);
	fx_free(&f);
}

/* ---- split ---- */

static void push_ok(struct fx *f, uint32_t topic, uint32_t seq, size_t len)
{
	assert_int_equal(rec_cache_push(f->cache, payload(topic, 0, seq, len)), BT_OK);
}

static void test_consumer_split(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, 0); /* write-through: a push returns once it is written */
	struct rec_topic *tp = fx_topic(&f, "rt/a", STRING_TYPE, true);
	fx_start(&f, 0);
	for (uint32_t s = 0; s < 10; s++)
		push_ok(&f, 0, s, 100);
	assert_int_equal(ld(&tp->st.recorded), 10);
	rec_consumer_request_split(f.cons);
	for (uint32_t s = 10; s < 20; s++)
		push_ok(&f, 0, s, 100);
	assert_int_equal(fx_stop(&f), BT_OK);
	assert_int_equal(ld(&tp->st.recorded), 20);
	assert_int_equal(ld(&tp->st.bytes), 2000);
	struct bag_reader *r = open_bag(f.dir);
	assert_int_equal(bag_reader_n_files(r), 2);
	assert_int_equal(bag_reader_file(r, 0)->message_count, 10);
	assert_int_equal(bag_reader_file(r, 1)->message_count, 10);
	struct bag_read_msg m;
	struct bt_error err;
	for (uint32_t s = 0; s < 20; s++) {
		assert_int_equal(bag_reader_next(r, &m, &err), 1);
		uint32_t id, seq;
		payload_decode(&m, &id, &seq);
		assert_int_equal(seq, s);
		assert_int_equal(m.file, s < 10 ? 0 : 1);
	}
	assert_int_equal(bag_reader_next(r, &m, &err), 0);
	bag_reader_close(r);
	fx_free(&f);
}

/* ---- topic registration ---- */

static void test_consumer_topics(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, 1 << 20);
	struct rec_topic *a = fx_topic(&f, "rt/a", STRING_TYPE, true);
	fx_topic(&f, "rt/b", STRING_TYPE, true);  /* subscribed, never a message */
	fx_topic(&f, "rt/c", STRING_TYPE, false); /* never subscribed */
	/* Same recorded name as /a, another type: the bag refuses it. */
	struct rec_topic *dup = fx_topic(&f, "rt/a", "other_msgs::msg::dds_::X_", true);
	struct rec_topic *e = fx_topic(&f, "rt/e", STRING_TYPE, false);
	struct rec_topic *d = fx_topic(&f, "rt/d", STRING_TYPE, false);
	atomic_store(&a->enabled, false); /* disabled: still written if pushed */
	fx_start(&f, 500000); /* 500 ms after each batch: see /d below */
	push_ok(&f, a->index, 0, 20);
	push_ok(&f, a->index, 1, 20);
	for (uint32_t s = 0; s < 3; s++)
		push_ok(&f, dup->index, s, 20);
	/* Subscribed without topics_changed: registered with its message. */
	fx_subscribe(e);
	push_ok(&f, e->index, 0, 30);
	/* Once /e's batch is counted, the consumer sleeps 500 ms: /d is
	 * subscribed, announced and the cache closed meanwhile, so only the
	 * consumer's last registration pass can put /d in the bag. */
	for (int i = 0; i < 10000 && ld(&e->st.recorded) == 0; i++)
		usleep(1000);
	assert_int_equal(ld(&e->st.recorded), 1);
	fx_subscribe(d);
	rec_consumer_topics_changed(f.cons);
	assert_int_equal(fx_stop(&f), BT_OK);
	assert_int_equal(ld(&a->st.recorded), 2);
	assert_int_equal(ld(&e->st.recorded), 1);
	assert_int_equal(ld(&dup->st.recorded), 0);
	assert_int_equal(ld(&dup->st.lost_write), 3);
	struct bag_reader *r = open_bag(f.dir);
	size_t n;
	bag_reader_topics(r, &n);
	assert_int_equal(n, 4);
	assert_int_equal(bag_topic_count(r, "/a"), 2);
	assert_int_equal(bag_topic_count(r, "/b"), 0);
	assert_int_equal(bag_topic_count(r, "/e"), 1);
	assert_int_equal(bag_topic_count(r, "/d"), 0);
	const struct bag_metadata *md = bag_reader_metadata(r);
	assert_non_null(md);
	assert_int_equal(md->n_topics, 4); /* metadata.yaml lists the empty ones too */
	assert_int_equal(md->message_count, 3);
	bag_reader_close(r);
	fx_free(&f);
}

/* ---- offered QoS of later publishers ---- */

static const struct bag_topic *md_topic(const struct bag_metadata *md, const char *name)
{
	for (size_t i = 0; i < md->n_topics; i++)
		if (strcmp(md->topics[i].topic.name, name) == 0)
			return &md->topics[i].topic;
	fail_msg("%s is not in metadata.yaml", name);
	return NULL;
}

/* The newest list posted for a topic reaches the bag (an older one still
 * waiting is superseded); a list for a topic the consumer has not
 * registered yet registers it first. */
static void test_consumer_topic_qos(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, 1 << 20);
	struct rec_topic *q = fx_topic(&f, "rt/q", STRING_TYPE, false);
	struct bag_qos prof[3];
	for (size_t i = 0; i < 3; i++) {
		bag_qos_default(&prof[i]);
		prof[i].depth = 10 + i;
	}
	q->bag.qos = bt_xcalloc(1, sizeof *q->bag.qos);
	q->bag.qos[0] = prof[0];
	q->bag.n_qos = 1;
	fx_subscribe(q);
	struct rec_topic *r = fx_topic(&f, "rt/r", STRING_TYPE, false);
	fx_start(&f, 0);
	push_ok(&f, q->index, 0, 20);
	for (int i = 0; i < 10000 && ld(&q->st.recorded) == 0; i++)
		usleep(1000);
	rec_consumer_set_topic_qos(f.cons, q->index, prof, 2);
	rec_consumer_set_topic_qos(f.cons, q->index, prof, 3);
	/* Subscribed without topics_changed: the list alone brings it in. */
	fx_subscribe(r);
	rec_consumer_set_topic_qos(f.cons, r->index, &prof[2], 1);
	assert_int_equal(fx_stop(&f), BT_OK);
	struct bag_reader *br = open_bag(f.dir);
	const struct bag_metadata *md = bag_reader_metadata(br);
	assert_non_null(md);
	const struct bag_topic *tq = md_topic(md, "/q"), *tr = md_topic(md, "/r");
	assert_int_equal(tq->n_qos, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(tq->qos[i].depth, 10 + i);
	assert_int_equal(tr->n_qos, 1);
	assert_int_equal(tr->qos[0].depth, 12);
	bag_reader_close(br);
	fx_free(&f);
}

/* ---- write failure ---- */

/* A file-size limit (soft only, so it can be raised again), and SIGXFSZ
 * ignored: a write beyond it fails with EFBIG, as bagtop runs. */
static void fsize_limit(struct rlimit *saved, rlim_t limit)
{
	assert_int_equal(getrlimit(RLIMIT_FSIZE, saved), 0);
	struct rlimit rl = *saved;
	rl.rlim_cur = limit;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &rl), 0);
}

static void fsize_restore(const struct rlimit *saved)
{
	assert_int_equal(setrlimit(RLIMIT_FSIZE, saved), 0);
	signal(SIGXFSZ, SIG_DFL);
}


#define WF_PUSHES 1000u
#define WF_LEN 1000u

static void test_consumer_write_failure(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, 0); /* write-through: every push is its own batch */
	struct rec_topic *tp = fx_topic(&f, "rt/a", STRING_TYPE, true);
	fx_start(&f, 0);
	/* A file-size limit is what a full disk looks like to SQLite (as in
	 * tests/recovery/test_disk_full.c); only the soft limit, so it can be
	 * raised again. */
	struct rlimit saved;
	fsize_limit(&saved, 256 * 1024);
	for (uint32_t s = 0; s < WF_PUSHES; s++)
		push_ok(&f, 0, s, WF_LEN); /* producers never see the failure */
	struct bt_error err = {0};
	bt_status first = rec_consumer_error(f.cons, &err);
	printf("  error: %s (%s)\n", bt_status_str(first), err.msg);
	assert_int_not_equal(first, BT_OK);
	assert_int_equal(err.code, first);
	assert_true(err.msg[0] != '\0');
	bt_status st = fx_stop(&f); /* the writer is closed under the limit too */
	fsize_restore(&saved);
	assert_int_equal(st, first);
	uint64_t recorded = ld(&tp->st.recorded), lost = ld(&tp->st.lost_write);
	printf("  %llu recorded, %llu lost_write\n", (unsigned long long)recorded,
	       (unsigned long long)lost);
	assert_true(recorded > 0);
	assert_true(lost > 0);
	assert_int_equal(recorded + lost, WF_PUSHES);
	assert_int_equal(ld(&tp->st.bytes), recorded * WF_LEN);
	/* Every committed message is readable: the first `recorded`, in order. */
	struct bag_reader *r = open_bag(f.dir);
	struct bag_read_msg m;
	uint32_t s = 0;
	int rc;
	while ((rc = bag_reader_next(r, &m, &err)) == 1) {
		uint32_t id, seq;
		payload_decode(&m, &id, &seq);
		assert_int_equal(seq, s);
		s++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(s, recorded);
	bag_reader_close(r);
	fx_free(&f);
}

#define WS_SMALL 120u /* 1000-byte messages: more than one split size */
#define WS_BIG (300u * 1024u)

/* One batch that splits (the store commits file 0) and then fails in file
 * 1: exactly the committed prefix is recorded, the rest lost_write. */
static void test_consumer_write_failure_split(void **state)
{
	(void)state;
	struct fx f;
	fx_open_split(&f, 1 << 20, BAG_MIN_SPLIT_SIZE);
	struct rec_topic *tp = fx_topic(&f, "rt/a", STRING_TYPE, true);
	/* Queued before the consumer starts: its first swap takes one batch. */
	for (uint32_t s = 0; s < WS_SMALL; s++)
		push_ok(&f, 0, s, 1000);
	push_ok(&f, 0, WS_SMALL, WS_BIG); /* file 1 cannot hold it */
	struct rlimit saved;
	fsize_limit(&saved, 200 * 1024);
	fx_start(&f, 0);
	bt_status st = fx_stop(&f);
	fsize_restore(&saved);
	assert_int_not_equal(st, BT_OK);
	uint64_t recorded = ld(&tp->st.recorded), lost = ld(&tp->st.lost_write);
	printf("  %llu recorded, %llu lost_write\n", (unsigned long long)recorded,
	       (unsigned long long)lost);
	assert_true(recorded > 0 && recorded < WS_SMALL);
	assert_int_equal(recorded + lost, WS_SMALL + 1);
	assert_int_equal(ld(&tp->st.bytes), recorded * 1000);
	assert_int_equal(ld(&tp->st.lost_toobig), 0);
	struct bag_reader *r = open_bag(f.dir);
	/* Split at least once; the failing file holds nothing. */
	size_t nf = bag_reader_n_files(r);
	assert_true(nf >= 2);
	assert_int_equal(bag_reader_file(r, nf - 1)->message_count, 0);
	assert_int_equal(bag_reader_message_count(r), recorded);
	bag_reader_close(r);
	assert_int_equal(rec_cache_fill(f.cache), 0);
	fx_free(&f);
}

TU_MAIN(
	cmocka_unit_test(test_consumer_counts),
	cmocka_unit_test(test_consumer_split),
	cmocka_unit_test(test_consumer_topics),
	cmocka_unit_test(test_consumer_topic_qos),
	cmocka_unit_test(test_consumer_write_failure),
	cmocka_unit_test(test_consumer_write_failure_split))
