/* DESIGN: one mutex guards the per-topic FIFOs (a fixed array of
 * REC_TOPICS_MAX slots, allocated once) and the totals. A second array of
 * relaxed atomics mirrors each slot's depth for the lock-free fast path of
 * rec_tl_offer: it is written under `mu`, and the decision is taken again
 * under `mu`, so a stale read only costs a copy that is then freed (mark
 * racing a message) or skips a message offered as the mark lands.
 *
 * Stored messages are wrapped in reference-counted entries: the store holds
 * one reference, rec_tl_copy takes one per entry under the lock (a pointer
 * move) and copies the bytes after unlocking, so a 10 MiB /map is never
 * copied while producers wait. Whoever drops the last reference frees the
 * entry, always outside the lock. Copies for the store are made before
 * locking, for the same reason.
 *
 * Lock order: only `mu` (a leaf lock). */
#include "rec_tl.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "bt_list.h"
#include "bt_mem.h"
#include "bt_parse.h"
#include "rec_topics.h"

struct tl_entry {
	struct tl_entry *next; /* FIFO link, under mu */
	atomic_uint refs;      /* the store's + rec_tl_copy's in flight */
	uint64_t order;        /* offer order, for stable sorting */
	struct rec_msg *m;     /* immutable once stored */
};

struct tl_topic {
	struct tl_entry *head; /* oldest */
	struct tl_entry *tail;
	uint32_t count;
	uint32_t depth; /* 0: not marked */
};

struct rec_tl {
	pthread_mutex_t mu;
	struct tl_topic *topics; /* REC_TOPICS_MAX, under mu */
	atomic_uint *depth;      /* REC_TOPICS_MAX mirror of topics[].depth */
	uint64_t order;
	size_t marked, messages, bytes;
	atomic_uint_fast64_t alloc_failed;
};

struct rec_tl *rec_tl_new(void)
{
	struct rec_tl *tl = bt_xcalloc(1, sizeof *tl);
	if (pthread_mutex_init(&tl->mu, NULL) != 0)
		abort();
	tl->topics = bt_xcalloc(REC_TOPICS_MAX, sizeof *tl->topics);
	tl->depth = bt_xcalloc(REC_TOPICS_MAX, sizeof *tl->depth);
	for (size_t i = 0; i < REC_TOPICS_MAX; i++)
		atomic_init(&tl->depth[i], 0);
	atomic_init(&tl->alloc_failed, 0);
	return tl;
}

static void tl_entry_put(struct tl_entry *e)
{
	if (atomic_fetch_sub_explicit(&e->refs, 1, memory_order_acq_rel) == 1) {
		rec_msg_free(e->m);
		free(e);
	}
}

/* Drops the store's reference of every entry of a list (unlocked). */
static void tl_entry_put_list(struct tl_entry *e)
{
	while (e != NULL) {
		struct tl_entry *next = e->next;
		tl_entry_put(e);
		e = next;
	}
}

void rec_tl_free(struct rec_tl *tl)
{
	if (tl == NULL)
		return;
	for (size_t i = 0; i < REC_TOPICS_MAX; i++)
		tl_entry_put_list(tl->topics[i].head);
	free(tl->depth);
	free(tl->topics);
	pthread_mutex_destroy(&tl->mu);
	free(tl);
}

/* A copy of m (header and bytes; `next` cleared); NULL when memory is short. */
static struct rec_msg *tl_msg_copy(const struct rec_msg *m)
{
	struct rec_msg *c = rec_msg_new(m->topic, m->len);
	if (c == NULL)
		return NULL;
	c->recv_time = m->recv_time;
	c->source_time = m->source_time;
	c->writer_sn = m->writer_sn;
	memcpy(c->data, m->data, m->len);
	return c;
}

/* Unlinks the oldest entries of t beyond its depth (mu held); returns them
 * as a list for tl_entry_put_list after unlocking. */
static struct tl_entry *tl_trim(struct rec_tl *tl, struct tl_topic *t)
{
	struct tl_entry *gone = NULL, **last = &gone;
	while (t->count > t->depth) {
		struct tl_entry *e = t->head;
		t->head = e->next;
		if (t->head == NULL)
			t->tail = NULL;
		t->count--;
		tl->messages--;
		tl->bytes -= e->m->len;
		e->next = NULL;
		*last = e;
		last = &e->next;
	}
	return gone;
}

bt_status rec_tl_set_depth(struct rec_tl *tl, uint32_t topic, uint32_t depth)
{
	if (topic >= REC_TOPICS_MAX || depth > REC_TL_DEPTH_MAX)
		return BT_ERR_USAGE;
	pthread_mutex_lock(&tl->mu);
	struct tl_topic *t = &tl->topics[topic];
	if ((t->depth == 0) != (depth == 0))
		tl->marked = depth != 0 ? tl->marked + 1 : tl->marked - 1;
	t->depth = depth;
	atomic_store_explicit(&tl->depth[topic], depth, memory_order_relaxed);
	struct tl_entry *gone = tl_trim(tl, t);
	pthread_mutex_unlock(&tl->mu);
	tl_entry_put_list(gone);
	return BT_OK;
}

uint32_t rec_tl_depth(const struct rec_tl *tl, uint32_t topic)
{
	if (topic >= REC_TOPICS_MAX)
		return 0;
	return atomic_load_explicit(&tl->depth[topic], memory_order_relaxed);
}

/* A new entry holding a copy of m, one reference; NULL (counted) when
 * memory is short. */
static struct tl_entry *tl_entry_new(struct rec_tl *tl, const struct rec_msg *m)
{
	struct tl_entry *e = malloc(sizeof *e);
	struct rec_msg *c = e != NULL ? tl_msg_copy(m) : NULL;
	if (c == NULL) {
		free(e);
		atomic_fetch_add_explicit(&tl->alloc_failed, 1, memory_order_relaxed);
		return NULL;
	}
	e->next = NULL;
	atomic_init(&e->refs, 1);
	e->m = c;
	return e;
}

void rec_tl_offer(struct rec_tl *tl, const struct rec_msg *m)
{
	if (rec_tl_depth(tl, m->topic) == 0)
		return;
	struct tl_entry *e = tl_entry_new(tl, m);
	if (e == NULL)
		return;
	struct tl_entry *gone = e; /* unmarked meanwhile: dropped */
	pthread_mutex_lock(&tl->mu);
	struct tl_topic *t = &tl->topics[m->topic];
	if (t->depth != 0) {
		e->order = tl->order++;
		BT_LIST_APPEND(t->head, t->tail, e);
		t->count++;
		tl->messages++;
		tl->bytes += e->m->len;
		gone = tl_trim(tl, t);
	}
	pthread_mutex_unlock(&tl->mu);
	tl_entry_put_list(gone);
}

/* ---- history from before the mark ---- */

static bool tl_holds(const struct tl_topic *t, const struct rec_msg *m)
{
	for (const struct tl_entry *e = t->head; e != NULL; e = e->next)
		if (e->m->writer_sn == m->writer_sn && e->m->len == m->len &&
		    memcmp(e->m->data, m->data, m->len) == 0)
			return true;
	return false;
}

/* The batch as entries (one reference each, adopting the messages);
 * messages for which no entry could be made are freed and counted. */
static struct tl_entry *tl_entries_of(struct rec_tl *tl, struct rec_batch *batch)
{
	struct tl_entry *head = NULL, **last = &head;
	struct rec_msg *m = batch->head;
	*batch = (struct rec_batch){0};
	while (m != NULL) {
		struct rec_msg *next = m->next;
		m->next = NULL;
		struct tl_entry *e = malloc(sizeof *e);
		if (e == NULL) {
			rec_msg_free(m);
			atomic_fetch_add_explicit(&tl->alloc_failed, 1, memory_order_relaxed);
		} else {
			e->next = NULL;
			atomic_init(&e->refs, 1);
			e->m = m;
			*last = e;
			last = &e->next;
		}
		m = next;
	}
	return head;
}

/* Links the entries of `in` the topic does not hold yet before its stored
 * ones (mu held); returns the rest, and what the trim dropped, for
 * tl_entry_put_list after unlocking. */
static struct tl_entry *tl_prepend(struct rec_tl *tl, struct tl_topic *t, struct tl_entry *in,
				   size_t *kept)
{
	struct tl_entry *gone = NULL, *front = NULL, *front_tail = NULL;
	/* Earlier than the oldest stored: rec_tl_copy sorts by recv_time. */
	int64_t cap = t->head != NULL && t->head->m->recv_time > INT64_MIN ? t->head->m->recv_time - 1
									     : INT64_MAX;
	while (in != NULL) {
		struct tl_entry *e = in;
		in = in->next;
		e->next = NULL;
		if (t->depth == 0 || tl_holds(t, e->m)) {
			e->next = gone;
			gone = e;
			continue;
		}
		if (e->m->recv_time > cap)
			e->m->recv_time = cap;
		e->order = tl->order++;
		if (front_tail != NULL)
			front_tail->next = e;
		else
			front = e;
		front_tail = e;
		t->count++;
		tl->messages++;
		tl->bytes += e->m->len;
		(*kept)++;
	}
	if (front != NULL) {
		front_tail->next = t->head;
		if (t->head == NULL)
			t->tail = front_tail;
		t->head = front;
	}
	struct tl_entry *trimmed = tl_trim(tl, t);
	if (trimmed != NULL) {
		struct tl_entry *e = trimmed;
		while (e->next != NULL)
			e = e->next;
		e->next = gone;
		gone = trimmed;
	}
	return gone;
}

size_t rec_tl_fill(struct rec_tl *tl, uint32_t topic, struct rec_batch *batch)
{
	size_t kept = 0;
	if (topic >= REC_TOPICS_MAX) {
		rec_msg_free_list(batch->head);
		*batch = (struct rec_batch){0};
		return 0;
	}
	struct tl_entry *in = tl_entries_of(tl, batch);
	pthread_mutex_lock(&tl->mu);
	struct tl_entry *gone = tl_prepend(tl, &tl->topics[topic], in, &kept);
	pthread_mutex_unlock(&tl->mu);
	tl_entry_put_list(gone);
	return kept;
}

/* ---- reading ---- */

/* References to every stored entry (mu held), into arr (cap entries).
 * Returns the number of entries, which may exceed cap (then nothing was
 * taken). */
static size_t tl_ref_all(struct rec_tl *tl, struct tl_entry **arr, size_t cap)
{
	if (tl->messages > cap)
		return tl->messages;
	size_t n = 0;
	for (size_t i = 0; i < REC_TOPICS_MAX && n < tl->messages; i++)
		for (struct tl_entry *e = tl->topics[i].head; e != NULL; e = e->next) {
			atomic_fetch_add_explicit(&e->refs, 1, memory_order_relaxed);
			arr[n++] = e;
		}
	return n;
}

/* The entries referenced, in a malloc'ed array (*n of them); NULL with *n
 * 0 when the store is empty or memory is short (*short_of set). */
static struct tl_entry **tl_ref_array(struct rec_tl *tl, size_t *n, size_t *short_of)
{
	struct tl_entry **arr = NULL;
	size_t cap = 0;
	*short_of = 0;
	for (;;) {
		pthread_mutex_lock(&tl->mu);
		*n = tl_ref_all(tl, arr, cap);
		pthread_mutex_unlock(&tl->mu);
		if (*n <= cap)
			return arr;
		free(arr);
		cap = *n + 16; /* room for offers landing meanwhile */
		arr = cap <= SIZE_MAX / sizeof *arr ? malloc(cap * sizeof *arr) : NULL;
		if (arr == NULL) {
			*short_of = *n;
			*n = 0;
			return NULL;
		}
	}
}

static int tl_entry_cmp(const void *a, const void *b)
{
	const struct tl_entry *x = *(struct tl_entry *const *)a;
	const struct tl_entry *y = *(struct tl_entry *const *)b;
	if (x->m->recv_time != y->m->recv_time)
		return x->m->recv_time < y->m->recv_time ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

size_t rec_tl_copy(struct rec_tl *tl, struct rec_batch *out)
{
	*out = (struct rec_batch){0};
	size_t n, failed;
	struct tl_entry **arr = tl_ref_array(tl, &n, &failed);
	if (n > 1)
		qsort(arr, n, sizeof *arr, tl_entry_cmp);
	for (size_t i = 0; i < n; i++) {
		struct rec_msg *c = tl_msg_copy(arr[i]->m);
		tl_entry_put(arr[i]);
		if (c == NULL) {
			failed++;
			continue;
		}
		rec_batch_append(out, c);
	}
	free(arr);
	if (failed != 0)
		atomic_fetch_add_explicit(&tl->alloc_failed, failed, memory_order_relaxed);
	return failed;
}

void rec_tl_get_stats(struct rec_tl *tl, struct rec_tl_stats *out)
{
	pthread_mutex_lock(&tl->mu);
	out->topics = tl->marked;
	out->messages = tl->messages;
	out->bytes = tl->bytes;
	pthread_mutex_unlock(&tl->mu);
	out->alloc_failed = atomic_load_explicit(&tl->alloc_failed, memory_order_relaxed);
}

bt_status rec_tl_parse_spec(const char *arg, char **name, uint32_t *depth, struct bt_error *err)
{
	const char *eq = strrchr(arg, '=');
	size_t len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
	uint64_t n = 1;
	if (len == 0)
		return bt_err_set(err, BT_ERR_USAGE, "--repeat-transient-local: empty topic in '%s'",
				  arg);
	if (eq != NULL && bt_parse_u64(eq + 1, 1, REC_TL_DEPTH_MAX, &n) != BT_OK)
		return bt_err_set(err, BT_ERR_USAGE,
				  "--repeat-transient-local: '%s': N must be a whole number from "
				  "1 to %u",
				  arg, REC_TL_DEPTH_MAX);
	*name = bt_xstrndup(arg, len);
	*depth = (uint32_t)n;
	return BT_OK;
}
