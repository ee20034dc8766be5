/* DESIGN: the consumer thread ("rec-writer") owns the bag writer while it
 * runs. Its loop: swap the cache → run requests (split, topic registration,
 * offered QoS) → write the batch → count → publish the current file →
 * free → hand the losses to the writer (every 100 ms) → sleep (test hook);
 * a wake with nothing to write lets the writer flush (bag_writer_idle:
 * MCAP's open chunk reaches the disk within a second);
 * in snapshot mode it writes snapshots instead (rec_snap). Other threads
 * only set atomics (split request, topics generation, the abandon flag),
 * queue offered QoS under `qos_mu`, wake the cache (or snap), and read the
 * first error and the current file under `err_mu` and the abandoned totals
 * (atomics).
 *
 * A batch is written with one bag_writer_write_batch call when the
 * reusable message array can hold it. When growing that array fails, the batch goes
 * in chunks of the array's current size instead: the data path never
 * aborts and never loses a message for want of memory. A message of
 * CONS_ALONE_BYTES or more is written in a chunk of its own, so a store
 * refusal as too large is pinned on exactly that message (bytes included).
 *
 * Accounting of a chunk: the writer says what became of each message
 * (struct bag_write_result): committed (recorded, bytes), refused as too
 * large (lost_toobig) or not written (lost_write: a failed write may have
 * committed a prefix before a split; lost_abandoned when abandoning). The
 * consumer adds that to the topics' counters: nothing is diffed. (A
 * snapshot's report counts its file as a whole, repeated copies included:
 * the writer's message total before and after it, cons_snapshot.)
 *
 * Abandon (opt.abandon, a second stop request): the writer stops within
 * its batch (same flag), the consumer writes nothing more and frees what
 * the cache still holds. Each message not written is lost_abandoned, so
 * the bag's statistics stay whole, and counted here too; one warning
 * at the end says what, per topic.
 *
 * The free-space guard (rec_guard, --min-free-space) is checked before each
 * batch: while it stops recording, chunks are not handed to the writer and
 * their messages count lost_disk_guard; stopping closes the current file
 * (a split, outside snapshot mode), so recording resumes in a new one.
 *
 * Offered-QoS changes (a publisher joined a recorded topic) come from the
 * discovery thread as whole lists per topic under `qos_mu`; the consumer
 * takes the queue by swapping pointers and hands each list to the writer
 * after unlocking, between batches. Message definitions found late (a
 * node's get_type_description answered: rec_typedesc's thread) take the
 * same way, under the same lock.
 *
 * Lock order: `err_mu` and `qos_mu` are leaves, never nested, never held
 * across I/O. */
#include "rec_consumer.h"

#include <assert.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bt_buf.h"
#include "bt_fmt.h"
#include "bt_hiwater.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "rec_clock.h"
#include "rec_guard.h"
#include "rec_repeat.h"

#define CONS_WAIT_NS INT64_C(100000000)   /* a request is seen within 100 ms */
#define CONS_INITIAL_CAP 256u             /* messages; grown with the batches */
#define CONS_ALONE_BYTES ((size_t)64 << 20) /* big messages get a chunk each */
#define CONS_POST_POLL_NS INT64_C(50000000) /* snapshot-post: drain every 50 ms */
#define CONS_LOSS_SYNC_NS INT64_C(100000000) /* losses into the bag's statistics */
#define CONS_AHEAD 8 /* messages read ahead by the batch's walks */

/* Consumer-private handle states besides real bag handles. */
#define CONS_HANDLE_NONE UINT32_MAX          /* not registered yet */
#define CONS_HANDLE_REFUSED (UINT32_MAX - 1) /* the bag refused the topic */

/* A topic's new offered QoS profiles, waiting for the consumer. */
struct cons_qos_req {
	uint32_t topic;
	struct bag_qos *qos; /* owned */
	size_t n;
};

/* A topic's message definition, found after it was registered. */
struct cons_def_req {
	uint32_t topic;
	char *encoding, *text; /* owned; NULL: none, only its source */
	char *source;
};

/* Per-topic tally of the chunk being written (indexed by topic index). */
struct cons_tally {
	bool touched;      /* listed in `touched` */
	uint64_t recorded; /* arrivals committed */
	uint64_t repeated; /* repeated copies committed */
	uint64_t bytes;    /* the recorded ones' payload bytes */
	uint64_t toobig;   /* arrivals refused as too large */
	uint64_t unwritten; /* arrivals not written */
};

/* What cons_account needs of a chunk's rec_msg. */
struct cons_mref {
	uint32_t topic;
	bool repeat;
};

/* The reusable chunk: bag messages, what of their rec_msg the accounting
 * needs (copied: after the write the rec_msg headers are out of cache, one
 * miss per message) and what became of them (enum bag_msg_fate), side by
 * side, room for cap of each. */
struct cons_chunk {
	struct bag_message *bm;
	struct cons_mref *mr;
	uint8_t *fate;
	size_t cap;
	struct bt_hiwater cap_hw; /* when a backlog's room goes back */
};

struct rec_consumer {
	struct rec_consumer_options opt;
	pthread_t thread;
	atomic_bool split_requested;
	atomic_uint topics_gen; /* bumped by rec_consumer_topics_changed */
	atomic_uint_fast64_t batches;
	atomic_bool qos_pending; /* qos_reqs is not empty: take it */
	pthread_mutex_t qos_mu;  /* guards qos_reqs only */
	struct cons_qos_req *qos_reqs;
	size_t n_qos_reqs, cap_qos_reqs;
	struct cons_def_req *def_reqs; /* also under qos_mu, flagged by qos_pending */
	size_t n_def_reqs, cap_def_reqs;
	/* Consumer thread only. */
	bool cover_said; /* said once: the layout has no custom_data */
	unsigned seen_gen;
	bool failed; /* a write failed: count the rest as lost_write */
	struct rec_guard guard; /* --min-free-space */
	bool file_has_data; /* snapshot mode: split before the next snapshot */
	/* Snapshot mode, close_snapshot_files: the snapshot's file was closed
	 * and the next (empty) one waits; the status keeps naming the
	 * snapshot's file (and its figures) until the next snapshot. */
	bool hold_file;
	struct rec_repeat_seen *seen; /* repeated copies in the current file */
	/* handles .. sent: fixed at REC_TOPICS_MAX entries, allocated once at
	 * start so the data path never allocates for them (8192 topics:
	 * ~830 KiB). */
	uint32_t *handles;
	struct cons_tally *tally;
	uint32_t *touched; /* topic indices with a non-zero tally */
	size_t n_touched;
	struct bag_losses *sent; /* per topic: losses handed to the writer so far */
	struct rec_batch rep;    /* the last split's repeated messages, and ... */
	struct bag_message *rep_bm; /* ... the same as the writer gets them */
	size_t rep_cap;
	int64_t loss_sync_t;
	struct cons_chunk chunk;
	/* The batch being written as an array (rec_cache_order: its first
	 * order_n messages, or none) and the position of the walk in it:
	 * the walks read CONS_AHEAD messages ahead. */
	struct rec_msg *const *order;
	size_t order_n, walk;
	/* Payload bytes abandoned (how many messages: the topics'
	 * lost_abandoned); read from any thread. */
	atomic_uint_fast64_t abandoned_bytes;
	/* First error and the current file; read from any thread. */
	pthread_mutex_t err_mu;
	struct bt_error first;
	char file[4096];
	size_t file_index;
	int64_t file_start; /* realtime ns when `file` was opened */
};

/* Topic i's figures in the current file, for other threads. */
static void cons_publish_topic_file(struct rec_consumer *c, uint32_t i)
{
	struct bag_writer_topic_stats f;
	if (!bag_writer_get_topic_stats(c->opt.writer, c->handles[i], NULL, &f))
		return;
	struct rec_topic_stats *st = &rec_topics_get(c->opt.topics, i)->st;
	atomic_store_explicit(&st->file_recorded, f.recorded, memory_order_relaxed);
	atomic_store_explicit(&st->file_bytes, f.bytes, memory_order_relaxed);
	atomic_store_explicit(&st->file_lost_transport, bag_losses_transport(&f.lost),
			      memory_order_relaxed);
	atomic_store_explicit(&st->file_lost_recorder, bag_losses_recorder(&f.lost),
			      memory_order_relaxed);
	atomic_store_explicit(&st->file_throttled, f.lost.throttled, memory_order_relaxed);
}

/* Publishes the writer's current file for other threads (the writer's own
 * string is only valid on this thread); on a new file, every topic's
 * figures there too. */
static void cons_publish_file(struct rec_consumer *c)
{
	if (c->hold_file)
		return;
	struct bag_writer_stats ws;
	bag_writer_get_stats(c->opt.writer, &ws);
	/* The path changes only with the index: copy it only then. */
	if (c->file[0] != '\0' && ws.file_index == c->file_index)
		return;
	/* A new file: every topic's figures there start again. Received counts
	 * from here; messages still in the cache arrived before, so a file's
	 * received and recorded differ by what crossed the split in flight. */
	size_t n = rec_topics_count(c->opt.topics);
	for (size_t i = 0; i < n; i++) {
		struct rec_topic_stats *st = &rec_topics_get(c->opt.topics, i)->st;
		atomic_store_explicit(&st->file_received_base,
				      atomic_load_explicit(&st->received, memory_order_relaxed),
				      memory_order_relaxed);
		if (c->handles[i] != CONS_HANDLE_NONE && c->handles[i] != CONS_HANDLE_REFUSED)
			cons_publish_topic_file(c, (uint32_t)i);
	}
	const char *f = bag_writer_current_file(c->opt.writer);
	pthread_mutex_lock(&c->err_mu);
	snprintf(c->file, sizeof c->file, "%s", f != NULL ? f : "");
	c->file_index = ws.file_index;
	c->file_start = bt_time_realtime_ns();
	pthread_mutex_unlock(&c->err_mu);
}

/* ---- errors and counters ---- */

/* Keeps the first error. Not logged here: the owner reports it once, from
 * rec_consumer_error or rec_consumer_stop. */
static void cons_fail(struct rec_consumer *c, bt_status st, const struct bt_error *e)
{
	if (c->failed)
		return;
	c->failed = true;
	pthread_mutex_lock(&c->err_mu);
	c->first = *e;
	c->first.code = st;
	pthread_mutex_unlock(&c->err_mu);
}

static struct rec_topic_stats *cons_stats(struct rec_consumer *c, uint32_t topic)
{
	return &rec_topics_get(c->opt.topics, topic)->st;
}

/* The writer's send time: the sample's source timestamp as DDS gave it,
 * also with --use-sim-time (then it is the publisher's system clock, as
 * rosbag2 records it); a repeated copy carries its new time (rec_repeat). */
static int64_t cons_send_time(const struct rec_msg *m)
{
	return m->source_time > 0 ? m->source_time : 0;
}

static void cons_count(atomic_uint_fast64_t *ctr, uint64_t n)
{
	if (n != 0)
		atomic_fetch_add_explicit(ctr, n, memory_order_relaxed);
}

static void cons_lost_write(struct rec_consumer *c, const struct rec_msg *m)
{
	cons_count(&cons_stats(c, m->topic)->lost_write, 1);
}

/* ---- topic registration ---- */

/* Registers topic `i` if it is described; false when it cannot be (not
 * described yet, refused by the bag, or the writer failed). */
static bool cons_register(struct rec_consumer *c, uint32_t i)
{
	assert(i < rec_topics_count(c->opt.topics));
	if (c->handles[i] == CONS_HANDLE_REFUSED || c->failed)
		return false;
	if (c->handles[i] != CONS_HANDLE_NONE)
		return true;
	struct rec_topic *tp = rec_topics_get(c->opt.topics, i);
	/* Acquire: pairs with the discovery thread's release; bag/def final.
	 * `described`, not `subscribed`: a message may come before the latter. */
	if (!atomic_load_explicit(&tp->described, memory_order_acquire))
		return false;
	struct bt_error e = {0};
	bt_status st = bag_writer_add_topic(c->opt.writer, &tp->bag, &tp->def, &c->handles[i], &e);
	if (st == BT_OK)
		return true;
	if (st == BT_ERR_EXISTS || st == BT_ERR_USAGE) {
		/* Only this topic is affected (same name, other type): skip it. */
		bt_log_warn("topic %s not recorded: %s", tp->names.name, e.msg);
		c->handles[i] = CONS_HANDLE_REFUSED;
		return false;
	}
	cons_fail(c, st, &e);
	return false;
}

static void cons_register_all(struct rec_consumer *c)
{
	unsigned gen = atomic_load_explicit(&c->topics_gen, memory_order_acquire);
	if (gen == c->seen_gen)
		return;
	c->seen_gen = gen;
	size_t n = rec_topics_count(c->opt.topics);
	for (size_t i = 0; i < n && !c->failed; i++)
		(void)cons_register(c, (uint32_t)i); /* false: not (yet) recordable */
}

static void cons_qos_reqs_free(struct cons_qos_req *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].qos);
	free(r);
}

static void cons_def_reqs_free(struct cons_def_req *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(r[i].encoding);
		free(r[i].text);
		free(r[i].source);
	}
	free(r);
}

/* Topic t's bag handle, the topic registered first when needed (its
 * generation bump may have arrived since cons_register_all); false when
 * the bag does not have it (not recordable, or refused). */
static bool cons_handle_of(struct rec_consumer *c, uint32_t t, uint32_t *h)
{
	(void)cons_register(c, t); /* false: not recordable, checked below */
	*h = c->handles[t];
	return *h != CONS_HANDLE_NONE && *h != CONS_HANDLE_REFUSED;
}

/* Hands the writer the definitions found late (after cons_apply_qos took
 * the queue: the topic registered first, as there). */
static void cons_apply_defs(struct rec_consumer *c, struct cons_def_req *reqs, size_t n)
{
	for (size_t i = 0; i < n && !c->failed; i++) {
		uint32_t t = reqs[i].topic, h;
		if (!cons_handle_of(c, t, &h))
			continue;
		struct bt_error e = {0};
		const struct rec_topic *tp = rec_topics_get(c->opt.topics, t);
		bt_status st = bag_writer_set_type_def(c->opt.writer, tp->names.type,
						       reqs[i].encoding, reqs[i].text,
						       reqs[i].source, &e);
		if (st != BT_OK && st != BT_ERR_NOTFOUND)
			cons_fail(c, st, &e);
	}
	cons_def_reqs_free(reqs, n);
}

/* Hands the writer the offered QoS lists discovery posted (and the
 * definitions found late, queued under the same lock). */
static void cons_apply_qos(struct rec_consumer *c)
{
	if (!atomic_exchange_explicit(&c->qos_pending, false, memory_order_acquire))
		return;
	pthread_mutex_lock(&c->qos_mu);
	struct cons_qos_req *reqs = c->qos_reqs;
	size_t n = c->n_qos_reqs;
	c->qos_reqs = NULL;
	c->n_qos_reqs = c->cap_qos_reqs = 0;
	struct cons_def_req *defs = c->def_reqs;
	size_t n_defs = c->n_def_reqs;
	c->def_reqs = NULL;
	c->n_def_reqs = c->cap_def_reqs = 0;
	pthread_mutex_unlock(&c->qos_mu);
	for (size_t i = 0; i < n; i++) {
		uint32_t h;
		if (!cons_handle_of(c, reqs[i].topic, &h))
			continue;
		struct bt_error e = {0};
		bt_status st = bag_writer_set_topic_qos(c->opt.writer, h, reqs[i].qos, reqs[i].n, &e);
		if (st != BT_OK)
			cons_fail(c, st, &e);
	}
	cons_qos_reqs_free(reqs, n);
	cons_apply_defs(c, defs, n_defs);
}

/* Hands the writer the losses counted since the last call, so the bag's
 * statistics (per file and in total) carry them. The writer counts its
 * own too-large refusals; everything else is ours. */
static void cons_sync_losses(struct rec_consumer *c)
{
	c->loss_sync_t = bt_time_monotonic_ns();
	size_t n = rec_topics_count(c->opt.topics);
	for (size_t i = 0; i < n; i++) {
		uint32_t h = c->handles[i];
		if (h == CONS_HANDLE_NONE || h == CONS_HANDLE_REFUSED)
			continue;
		struct rec_topic_stats *st = &rec_topics_get(c->opt.topics, i)->st;
		struct bag_losses now = rec_topic_losses(st);
		now.lost_toobig = 0; /* the writer's own */
		struct bag_losses *was = &c->sent[i];
		struct bag_losses d = bag_losses_sub(&now, was);
		if (bag_losses_any(&d) &&
		    bag_writer_add_losses(c->opt.writer, h, &d) == BT_OK) {
			*was = now;
			cons_publish_topic_file(c, (uint32_t)i);
		}
	}
}

/* A split; to a file named `name` (a snapshot's --name; NULL: as usual,
 * else the current file is dropped when empty: bag_writer_split_named). */
static void cons_split_named(struct rec_consumer *c, const char *name)
{
	if (c->failed)
		return;
	cons_sync_losses(c);
	struct bt_error e = {0};
	bt_status st = name != NULL ? bag_writer_split_named(c->opt.writer, name, &e)
				    : bag_writer_split(c->opt.writer, &e);
	if (st != BT_OK)
		cons_fail(c, st, &e);
}

static void cons_split(struct rec_consumer *c)
{
	cons_split_named(c, NULL);
}

size_t rec_consumer_on_split(struct rec_consumer *c, int64_t t_last,
			     const struct bag_message **msgs)
{
	rec_msg_free_list(c->rep.head);
	c->rep = (struct rec_batch){0};
	*msgs = NULL;
	if (c->opt.tl == NULL)
		return 0;
	struct rec_batch copies = {0};
	(void)rec_tl_copy(c->opt.tl, &copies); /* failed copies: counted by rec_tl */
	(void)rec_repeat_for_split(&copies, t_last == BAG_TIME_NONE ? REC_REPEAT_KEEP_TIME : t_last,
				   c->seen, &c->rep);
	if (c->rep.count > c->rep_cap) {
		struct bag_message *bm = realloc(c->rep_bm, c->rep.count * sizeof *bm);
		if (bm == NULL)
			return 0; /* no memory: this file goes without them */
		c->rep_bm = bm;
		c->rep_cap = c->rep.count;
	}
	size_t n = 0;
	for (const struct rec_msg *m = c->rep.head; m != NULL; m = m->next) {
		uint32_t h = c->handles[m->topic];
		if (h == CONS_HANDLE_NONE || h == CONS_HANDLE_REFUSED)
			continue; /* not in the bag: nothing to repeat */
		c->rep_bm[n++] = (struct bag_message){h, m->recv_time, m->data, m->len,
						       cons_send_time(m)};
		cons_count(&cons_stats(c, m->topic)->repeated, 1);
	}
	*msgs = c->rep_bm;
	return n;
}

static void cons_commands(struct rec_consumer *c)
{
	/* In snapshot mode every snapshot starts its own file: no request. */
	if (atomic_exchange_explicit(&c->split_requested, false, memory_order_relaxed) &&
	    c->opt.snap == NULL)
		cons_split(c);
	cons_register_all(c);
	cons_apply_qos(c);
}

/* ---- writing a batch ---- */

static void cons_chunk_init(struct cons_chunk *k)
{
	k->bm = bt_xcalloc(CONS_INITIAL_CAP, sizeof *k->bm);
	k->mr = bt_xcalloc(CONS_INITIAL_CAP, sizeof *k->mr);
	k->fate = bt_xcalloc(CONS_INITIAL_CAP, sizeof *k->fate);
	k->cap = CONS_INITIAL_CAP;
}

/* Grows the chunk arrays to `need`; on failure they keep their size and the
 * batch is written in chunks. */
static void cons_chunk_grow(struct cons_chunk *k, size_t need)
{
	if (need <= k->cap || need > SIZE_MAX / sizeof *k->bm)
		return;
	struct bag_message *bm = realloc(k->bm, need * sizeof *bm);
	if (bm == NULL)
		return;
	k->bm = bm;
	struct cons_mref *mr = realloc(k->mr, need * sizeof *mr);
	if (mr == NULL)
		return;
	k->mr = mr;
	uint8_t *fate = realloc(k->fate, need * sizeof *fate);
	if (fate == NULL)
		return;
	k->fate = fate;
	k->cap = need;
}

static void cons_chunk_fini(struct cons_chunk *k)
{
	free(k->bm);
	free(k->mr);
	free(k->fate);
}

/* Gives back the room a backlog's batch grew the chunk arrays to, once the
 * batches have long been much smaller (bt_hiwater): or the largest backlog
 * ever seen stays in the process's memory. A shrinking realloc that fails
 * keeps the larger block, so each array holds at least `to`. */
static void cons_chunk_shrink(struct cons_chunk *k, size_t batch)
{
	size_t to = bt_hiwater_note(&k->cap_hw, batch, k->cap, CONS_INITIAL_CAP);
	if (to == 0)
		return;
	struct bag_message *bm = realloc(k->bm, to * sizeof *bm);
	k->bm = bm != NULL ? bm : k->bm;
	struct cons_mref *mr = realloc(k->mr, to * sizeof *mr);
	k->mr = mr != NULL ? mr : k->mr;
	uint8_t *fate = realloc(k->fate, to * sizeof *fate);
	k->fate = fate != NULL ? fate : k->fate;
	k->cap = to;
}

/* The message CONS_AHEAD after the walk's position is fetched into the
 * cache now: each message's header is in a block of its own (the received
 * sample's), so a walk down the list would wait for memory at every step;
 * with the order array the waits overlap. */
static void cons_ahead(struct rec_consumer *c)
{
	size_t i = c->walk++ + CONS_AHEAD;
	if (i < c->order_n)
		__builtin_prefetch(c->order[i]);
}

/* Fills the chunk from `m` on; returns the first message not taken. */
static const struct rec_msg *cons_fill(struct rec_consumer *c, const struct rec_msg *m,
				       size_t *n)
{
	*n = 0;
	while (m != NULL && *n < c->chunk.cap) {
		cons_ahead(c);
		if (!cons_register(c, m->topic)) {
			cons_lost_write(c, m);
			m = m->next;
			continue;
		}
		if (!m->repeat && rec_repeat_seen_has(c->seen, m)) {
			/* Already in this file as a repeated copy: once is enough. */
			cons_count(&cons_stats(c, m->topic)->recorded, 1);
			m = m->next;
			continue;
		}
		bool big = m->len >= CONS_ALONE_BYTES;
		if (big && *n > 0) {
			c->walk--; /* not taken: the next fill starts with it */
			break; /* it starts the next chunk, alone */
		}
		uint32_t h = c->handles[m->topic];
		c->chunk.bm[*n] = (struct bag_message){h, m->recv_time, m->data, m->len,
						       cons_send_time(m)};
		c->chunk.mr[*n] = (struct cons_mref){m->topic, m->repeat};
		++*n;
		m = m->next;
		if (big)
			break;
	}
	return m;
}

/* Adds what became of the chunk's messages (c->chunk.fate) to their topics'
 * counters; arrivals not written count under `cause` (lost_write,
 * lost_abandoned, lost_disk_guard). A refused repeated copy is no lost
 * arrival. */
static void cons_account(struct rec_consumer *c, size_t n, enum bag_loss_cause cause)
{
	for (size_t i = 0; i < n; i++) {
		const struct cons_mref *m = &c->chunk.mr[i];
		struct cons_tally *t = &c->tally[m->topic];
		if (!t->touched) {
			t->touched = true;
			c->touched[c->n_touched++] = m->topic;
		}
		switch (c->chunk.fate[i]) {
		case BAG_MSG_RECORDED:
			if (m->repeat) {
				t->repeated++;
			} else {
				t->recorded++;
				t->bytes += c->chunk.bm[i].len;
			}
			break;
		case BAG_MSG_TOOBIG: t->toobig += !m->repeat; break;
		default: t->unwritten += !m->repeat; break;
		}
	}
	for (size_t k = 0; k < c->n_touched; k++) {
		uint32_t ti = c->touched[k];
		struct cons_tally *t = &c->tally[ti];
		struct rec_topic_stats *st = cons_stats(c, ti);
		cons_count(&st->recorded, t->recorded);
		cons_count(&st->repeated, t->repeated);
		cons_count(&st->bytes, t->bytes);
		cons_count(&st->lost_toobig, t->toobig);
		cons_count(&st->lost[cause], t->unwritten);
		cons_publish_topic_file(c, ti);
		*t = (struct cons_tally){0};
	}
	c->n_touched = 0;
}

static bool cons_abandoning(const struct rec_consumer *c)
{
	return c->opt.abandon != NULL && atomic_load_explicit(c->opt.abandon, memory_order_relaxed);
}

/* The bytes of the chunk's messages not written (abandoned); how many per
 * topic is the topics' lost_abandoned (cons_account). */
static void cons_abandon_rest(struct rec_consumer *c, size_t n)
{
	uint64_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		if (!c->chunk.mr[i].repeat && c->chunk.fate[i] == BAG_MSG_NOT_WRITTEN)
			bytes += c->chunk.bm[i].len; /* an arrival (not a copy) not written */
	cons_count(&c->abandoned_bytes, bytes);
}

/* One warning at the end: what was abandoned, in total and per topic. */
static void cons_abandon_report(struct rec_consumer *c)
{
	struct bt_buf b = {0};
	uint64_t msgs = 0;
	bool listing = true;
	size_t n = rec_topics_count(c->opt.topics);
	for (size_t i = 0; i < n; i++) {
		const struct rec_topic *tp = rec_topics_get(c->opt.topics, i);
		uint64_t k = atomic_load_explicit(&tp->st.lost_abandoned, memory_order_relaxed);
		if (k == 0)
			continue;
		/* Out of memory: the list stops, the total still goes out. */
		if (listing && bt_buf_printf(&b, "%s%s %llu", msgs ? ", " : "", tp->names.name,
					     (unsigned long long)k) != BT_OK)
			listing = false;
		msgs += k;
	}
	if (msgs == 0) {
		bt_buf_fini(&b);
		return;
	}
	char size[32];
	bt_fmt_iec(atomic_load(&c->abandoned_bytes), size, sizeof size);
	bt_log_warn("abandoned at stop: %llu messages (%s) not written, counted as lost in the "
		    "recorder (%s)%s%s", (unsigned long long)msgs, size,
		    bag_loss_causes[BAG_CAUSE_lost_abandoned].yaml, listing ? ": " : "",
		    listing ? b.data : "");
	bt_buf_fini(&b);
}

static void cons_write_chunk(struct rec_consumer *c, size_t n)
{
	bool guarded = !c->failed && rec_guard_stopped(&c->guard);
	if (c->failed || guarded || cons_abandoning(c)) {
		memset(c->chunk.fate, BAG_MSG_NOT_WRITTEN, n * sizeof *c->chunk.fate);
		bool abandoned = !c->failed && !guarded;
		if (abandoned)
			cons_abandon_rest(c, n);
		cons_account(c, n, abandoned  ? BAG_CAUSE_lost_abandoned
				   : guarded ? BAG_CAUSE_lost_disk_guard
					     : BAG_CAUSE_lost_write);
		return;
	}
	struct bag_write_result res = {.fate = c->chunk.fate};
	struct bt_error e = {0};
	bt_status st = bag_writer_write_batch(c->opt.writer, c->chunk.bm, n, &res, &e);
	bool abandoned = st == BT_OK && res.recorded + res.toobig < n && cons_abandoning(c);
	if (abandoned)
		cons_abandon_rest(c, n); /* the writer stopped early */
	cons_account(c, n, abandoned ? BAG_CAUSE_lost_abandoned : BAG_CAUSE_lost_write);
	if (st != BT_OK)
		cons_fail(c, st, &e);
}

/* The free-space guard, before each batch: when it stops recording, the
 * current file is closed (a split, so that it is finished and its
 * --on-file-closed command can move it away) and said loudly; when there
 * is room again, recording resumes in the file that split opened. */
static void cons_guard(struct rec_consumer *c)
{
	int change = rec_guard_check(&c->guard, bt_time_monotonic_ns(), false);
	if (change == 0 || c->failed)
		return;
	char avail[32], min[32];
	bt_fmt_iec(rec_guard_free(&c->guard), avail, sizeof avail);
	bt_fmt_iec(c->guard.min, min, sizeof min);
	if (change < 0) {
		bt_log_warn("disk guard: %s free on %s's filesystem again: recording resumed in %s",
			    avail, c->opt.guard_dir, c->file);
		return;
	}
	bt_log_warn("disk guard: only %s free on %s's filesystem, under --min-free-space %s: "
		    "recording stopped, messages counted as lost in the recorder (disk guard) "
		    "until there is room again; %s closed", avail, c->opt.guard_dir, min, c->file);
	if (c->opt.snap == NULL) {
		cons_split(c);
		cons_publish_file(c);
	}
}

static void cons_write_batch(struct rec_consumer *c, const struct rec_batch *b)
{
	c->walk = 0;
	cons_guard(c);
	cons_chunk_grow(&c->chunk, b->count);
	cons_chunk_shrink(&c->chunk, b->count);
	const struct rec_msg *m = b->head;
	while (m != NULL) {
		size_t n;
		m = cons_fill(c, m, &n);
		if (n != 0)
			cons_write_chunk(c, n);
	}
}

/* ---- snapshot mode ---- */

/* The snapshot merged with the repeated transient-local messages. */
static struct rec_batch cons_snapshot_merge(struct rec_consumer *c, struct rec_batch *b)
{
	if (c->opt.tl == NULL)
		return *b;
	struct rec_batch rep = {0}, out = {0};
	(void)rec_tl_copy(c->opt.tl, &rep); /* failed copies: counted by rec_tl */
	for (struct rec_msg *m = rep.head; m != NULL; m = m->next)
		m->repeat = true;
	(void)rec_repeat_for_snapshot(b, &rep, c->seen, &out); /* likewise */
	return out;
}

static void cons_write_free(struct rec_consumer *c, struct rec_batch *b)
{
	if (b->count != 0)
		cons_write_batch(c, b);
	rec_msg_free_list(b->head);
	*b = (struct rec_batch){0};
}

/* Which windows memory cut short, into d->coverage and the metadata's
 * custom_data (before the file is closed: its metadata.yaml has it). */
static void cons_snapshot_cover(struct rec_consumer *c, struct rec_snapshot_done *d)
{
	if (!rec_snap_cover_describe(c->opt.snap, c->opt.topics, d->coverage, sizeof d->coverage))
		return;
	char key[sizeof d->file + 32];
	snprintf(key, sizeof key, "snapshot_coverage.%s", d->file);
	struct bt_error e = {0};
	if (bag_writer_set_custom(c->opt.writer, key, d->coverage, &e) != BT_OK && !c->cover_said) {
		bt_log_info("snapshot coverage not in the metadata: %s", e.msg);
		c->cover_said = true;
	}
}

/* Writes snapshot `id` into a file of its own, then its post window. */
static void cons_snapshot(struct rec_consumer *c, struct rec_batch *b, uint64_t id)
{
	struct bag_writer_stats before, after;
	c->hold_file = false;
	const char *name = rec_snap_held_name(c->opt.snap);
	if (name[0] != '\0')
		cons_split_named(c, name);
	else if (c->file_has_data)
		cons_split(c);
	bag_writer_get_stats(c->opt.writer, &before);
	struct rec_batch out = cons_snapshot_merge(c, b);
	cons_write_free(c, &out);
	struct rec_batch post;
	while (rec_snap_post_take(c->opt.snap, rec_clock_now(c->opt.clock), &post)) {
		cons_write_free(c, &post);
		cons_register_all(c);
		struct timespec ts = {0, CONS_POST_POLL_NS};
		nanosleep(&ts, NULL);
	}
	cons_write_free(c, &post);
	c->file_has_data = true;
	cons_publish_file(c);
	bag_writer_get_stats(c->opt.writer, &after);
	struct rec_snapshot_done d = {.id = id, .messages = after.messages - before.messages};
	snprintf(d.file, sizeof d.file, "%s", bag_writer_current_file(c->opt.writer));
	cons_snapshot_cover(c, &d);
	d.status = rec_consumer_error(c, NULL);
	if (c->opt.close_snapshot_files) {
		cons_split(c);
		c->file_has_data = false;
		c->hold_file = true;
	}
	rec_snap_release(c->opt.snap);
	if (c->opt.on_snapshot != NULL)
		c->opt.on_snapshot(c->opt.ctx, &d);
}

static void cons_run_snapshots(struct rec_consumer *c)
{
	struct rec_batch b;
	uint64_t id;
	while (rec_snap_take_wait(c->opt.snap, CONS_WAIT_NS, &b, &id)) {
		cons_commands(c);
		if (id != 0) /* may be empty: a window after the trigger only */
			cons_snapshot(c, &b, id);
		cons_publish_file(c);
	}
}

/* ---- the thread ---- */

/* rec_msg_free_list, reading ahead as the write's walk does. */
static void cons_free_batch(struct rec_consumer *c, struct rec_msg *m)
{
	c->walk = 0;
	while (m != NULL) {
		cons_ahead(c);
		struct rec_msg *next = m->next;
		rec_msg_free(m);
		m = next;
	}
}

/* Nothing arrived: the storage may flush what waits (mcap's open chunk). */
static void cons_idle(struct rec_consumer *c)
{
	struct bt_error e = {0};
	bt_status st = c->failed ? BT_OK : bag_writer_idle(c->opt.writer, &e);
	if (st != BT_OK)
		cons_fail(c, st, &e);
}

static void *cons_main(void *arg)
{
	struct rec_consumer *c = arg;
	pthread_setname_np(pthread_self(), "rec-writer");
	if (c->opt.snap != NULL) {
		cons_run_snapshots(c);
		cons_register_all(c);
		cons_apply_qos(c);
		cons_sync_losses(c);
		cons_abandon_report(c);
		return NULL;
	}
	struct rec_batch b;
	while (rec_cache_swap_wait(c->opt.cache, CONS_WAIT_NS, &b)) {
		cons_commands(c);
		if (b.count == 0) {
			cons_idle(c);
			cons_publish_file(c);
			continue;
		}
		c->order = rec_cache_order(c->opt.cache, &c->order_n);
		cons_write_batch(c, &b);
		cons_publish_file(c);
		cons_free_batch(c, b.head);
		c->order_n = 0;
		if (bt_time_monotonic_ns() - c->loss_sync_t >= CONS_LOSS_SYNC_NS)
			cons_sync_losses(c);
		atomic_fetch_add_explicit(&c->batches, 1, memory_order_relaxed);
		if (c->opt.test_delay_us != 0 && !cons_abandoning(c))
			usleep(c->opt.test_delay_us);
	}
	/* Topics subscribed just before the close still belong in the bag;
	 * the producers are gone: the losses are final. So are the
	 * publishers' offered QoS. */
	cons_register_all(c);
	cons_apply_qos(c);
	cons_sync_losses(c);
	cons_abandon_report(c);
	return NULL;
}

static void cons_free(struct rec_consumer *c)
{
	cons_chunk_fini(&c->chunk);
	free(c->touched);
	free(c->tally);
	free(c->handles);
	free(c->sent);
	rec_msg_free_list(c->rep.head);
	free(c->rep_bm);
	rec_repeat_seen_free(c->seen);
	rec_guard_fini(&c->guard);
	cons_qos_reqs_free(c->qos_reqs, c->n_qos_reqs);
	cons_def_reqs_free(c->def_reqs, c->n_def_reqs);
	pthread_mutex_destroy(&c->qos_mu);
	pthread_mutex_destroy(&c->err_mu);
	free(c);
}

bt_status rec_consumer_start(const struct rec_consumer_options *opt, struct rec_consumer **out,
			     struct bt_error *err)
{
	assert((opt->cache != NULL) != (opt->snap != NULL) && opt->topics != NULL &&
	       opt->writer != NULL);
	struct rec_consumer *c = bt_xcalloc(1, sizeof *c);
	c->opt = *opt;
	atomic_init(&c->split_requested, false);
	atomic_init(&c->topics_gen, 1u); /* != seen_gen: register at once */
	atomic_init(&c->batches, 0);
	atomic_init(&c->abandoned_bytes, 0);
	c->handles = bt_xmalloc(REC_TOPICS_MAX * sizeof *c->handles);
	memset(c->handles, 0xff, REC_TOPICS_MAX * sizeof *c->handles); /* CONS_HANDLE_NONE */
	c->tally = bt_xcalloc(REC_TOPICS_MAX, sizeof *c->tally);
	c->sent = bt_xcalloc(REC_TOPICS_MAX, sizeof *c->sent);
	c->touched = bt_xcalloc(REC_TOPICS_MAX, sizeof *c->touched);
	cons_chunk_init(&c->chunk);
	c->seen = rec_repeat_seen_new();
	rec_guard_init(&c->guard, opt->guard_dir, opt->guard_dir != NULL ? opt->min_free : 0);
	atomic_init(&c->qos_pending, false);
	if (pthread_mutex_init(&c->err_mu, NULL) != 0 || pthread_mutex_init(&c->qos_mu, NULL) != 0)
		abort(); /* set-up: cannot fail on Linux */
	cons_publish_file(c); /* before the thread: no race */
	int rc = pthread_create(&c->thread, NULL, cons_main, c);
	if (rc != 0) {
		cons_free(c);
		return bt_err_set(err, rc == EAGAIN ? BT_ERR_NOMEM : BT_ERR_STATE,
				  "cannot start the writer thread: %s", strerror(rc));
	}
	*out = c;
	return BT_OK;
}

static void cons_wake(struct rec_consumer *c)
{
	if (c->opt.snap != NULL)
		rec_snap_wake(c->opt.snap);
	else
		rec_cache_wake(c->opt.cache);
}

void rec_consumer_request_split(struct rec_consumer *c)
{
	atomic_store_explicit(&c->split_requested, true, memory_order_relaxed);
	cons_wake(c);
}

void rec_consumer_topics_changed(struct rec_consumer *c)
{
	atomic_fetch_add_explicit(&c->topics_gen, 1u, memory_order_release);
	cons_wake(c);
}

void rec_consumer_set_topic_qos(struct rec_consumer *c, uint32_t topic, const struct bag_qos *q,
				size_t n)
{
	struct bag_qos *copy = n ? bt_xcalloc(n, sizeof *copy) : NULL;
	if (n)
		memcpy(copy, q, n * sizeof *copy);
	pthread_mutex_lock(&c->qos_mu);
	size_t i = 0;
	while (i < c->n_qos_reqs && c->qos_reqs[i].topic != topic)
		i++;
	if (i == c->n_qos_reqs) {
		bt_xgrow((void **)&c->qos_reqs, &c->cap_qos_reqs, i + 1, sizeof *c->qos_reqs);
		c->n_qos_reqs++;
	} else {
		free(c->qos_reqs[i].qos); /* superseded: only the newest list counts */
	}
	c->qos_reqs[i] = (struct cons_qos_req){topic, copy, n};
	pthread_mutex_unlock(&c->qos_mu);
	atomic_store_explicit(&c->qos_pending, true, memory_order_release);
	cons_wake(c);
}

void rec_consumer_set_definition(struct rec_consumer *c, uint32_t topic, const char *encoding,
				 const char *text, const char *source)
{
	struct cons_def_req d = {topic, bt_xstrdup(encoding), bt_xstrdup(text), bt_xstrdup(source)};
	pthread_mutex_lock(&c->qos_mu);
	bt_xgrow((void **)&c->def_reqs, &c->cap_def_reqs, c->n_def_reqs + 1, sizeof *c->def_reqs);
	c->def_reqs[c->n_def_reqs++] = d;
	pthread_mutex_unlock(&c->qos_mu);
	atomic_store_explicit(&c->qos_pending, true, memory_order_release);
	cons_wake(c);
}

bt_status rec_consumer_error(struct rec_consumer *c, struct bt_error *err)
{
	pthread_mutex_lock(&c->err_mu);
	struct bt_error e = c->first;
	pthread_mutex_unlock(&c->err_mu);
	if (e.code != BT_OK && err != NULL)
		*err = e;
	return e.code;
}

void rec_consumer_file(struct rec_consumer *c, char *buf, size_t cap, size_t *index,
		       int64_t *start)
{
	pthread_mutex_lock(&c->err_mu);
	snprintf(buf, cap, "%s", c->file);
	*index = c->file_index;
	*start = c->file_start;
	pthread_mutex_unlock(&c->err_mu);
}

void rec_consumer_guard(const struct rec_consumer *c, bool *stopped, uint64_t *free_bytes)
{
	*stopped = rec_guard_stopped(&c->guard);
	*free_bytes = rec_guard_free(&c->guard);
}

void rec_consumer_abandoned(const struct rec_consumer *c, uint64_t *msgs, uint64_t *bytes)
{
	struct rec_consumer *m = (struct rec_consumer *)c; /* atomics: read-only use */
	*msgs = 0;
	size_t n = rec_topics_count(c->opt.topics);
	for (size_t i = 0; i < n; i++)
		*msgs += atomic_load_explicit(&rec_topics_get(c->opt.topics, i)->st.lost_abandoned,
					      memory_order_relaxed);
	*bytes = atomic_load_explicit(&m->abandoned_bytes, memory_order_relaxed);
}

uint64_t rec_consumer_batches(const struct rec_consumer *c)
{
	return atomic_load_explicit(&((struct rec_consumer *)c)->batches, memory_order_relaxed);
}

bt_status rec_consumer_stop(struct rec_consumer *c, struct bt_error *err)
{
	if (c == NULL)
		return BT_OK;
	pthread_join(c->thread, NULL);
	return rec_consumer_error(c, err);
}

void rec_consumer_free(struct rec_consumer *c)
{
	if (c != NULL)
		cons_free(c);
}
