/* DESIGN: both rules work on lists the consumer owns, so nothing here
 * locks. The snapshot merge marks the TL messages already in the batch in
 * one pass over the batch (a topic bitmap keeps that pass to one bit test
 * per message), then emits: restamped older ones, then the batch with the
 * in-window TL messages merged in by recv_time. The seen set is reserved
 * before anything is moved, so a failed allocation leaves the TL messages
 * out (counted) rather than risk a duplicate. */
#include "rec_repeat.h"

#include <stdlib.h>

#include "bt_mem.h"
#include "rec_topics.h"

struct repeat_id {
	uint32_t topic;
	size_t len;
	int64_t writer_sn;
	int64_t recv_time;
};

struct rec_repeat_seen {
	struct repeat_id *ids;
	size_t n, cap;
	int64_t min_recv, max_recv; /* range of ids[].recv_time: a quick no */
};

struct rec_repeat_seen *rec_repeat_seen_new(void)
{
	return bt_xcalloc(1, sizeof(struct rec_repeat_seen));
}

void rec_repeat_seen_free(struct rec_repeat_seen *s)
{
	if (s == NULL)
		return;
	free(s->ids);
	free(s);
}

void rec_repeat_seen_clear(struct rec_repeat_seen *s)
{
	s->n = 0;
}

size_t rec_repeat_seen_count(const struct rec_repeat_seen *s)
{
	return s->n;
}

static bool repeat_id_is(const struct repeat_id *id, const struct rec_msg *m)
{
	return id->topic == m->topic && id->writer_sn == m->writer_sn &&
	       id->recv_time == m->recv_time && id->len == m->len;
}

bool rec_repeat_seen_has(const struct rec_repeat_seen *s, const struct rec_msg *m)
{
	if (s->n == 0 || m->recv_time < s->min_recv || m->recv_time > s->max_recv)
		return false;
	for (size_t i = 0; i < s->n; i++)
		if (repeat_id_is(&s->ids[i], m))
			return true;
	return false;
}

bool rec_repeat_same(const struct rec_msg *a, const struct rec_msg *b)
{
	return a->topic == b->topic && a->writer_sn == b->writer_sn &&
	       a->recv_time == b->recv_time && a->len == b->len;
}

/* Clears s and makes room for n identities; false when memory is short. */
static bool repeat_seen_reset(struct rec_repeat_seen *s, size_t n)
{
	s->n = 0;
	if (n <= s->cap)
		return true;
	if (n > SIZE_MAX / sizeof *s->ids)
		return false;
	struct repeat_id *ids = realloc(s->ids, n * sizeof *ids);
	if (ids == NULL)
		return false;
	s->ids = ids;
	s->cap = n;
	return true;
}

/* Records m's identity (room was reserved). */
static void repeat_seen_add(struct rec_repeat_seen *s, const struct rec_msg *m)
{
	if (s->n == 0 || m->recv_time < s->min_recv)
		s->min_recv = m->recv_time;
	if (s->n == 0 || m->recv_time > s->max_recv)
		s->max_recv = m->recv_time;
	s->ids[s->n++] = (struct repeat_id){m->topic, m->len, m->writer_sn, m->recv_time};
}

static void repeat_restamp(struct rec_msg *m, int64_t t)
{
	if (t == REC_REPEAT_KEEP_TIME)
		return;
	m->recv_time = t;
	m->source_time = t;
}

/* Frees a list, returns its length (for "left out" counts). */
static size_t repeat_drop(struct rec_batch *b)
{
	size_t n = b->count;
	rec_msg_free_list(b->head);
	*b = (struct rec_batch){0};
	return n;
}

size_t rec_repeat_for_split(struct rec_batch *tl, int64_t t_last, struct rec_repeat_seen *seen,
			    struct rec_batch *out)
{
	*out = (struct rec_batch){0};
	if (!repeat_seen_reset(seen, tl->count))
		return repeat_drop(tl);
	struct rec_msg *m = tl->head;
	while (m != NULL) {
		struct rec_msg *next = m->next;
		repeat_seen_add(seen, m);
		repeat_restamp(m, t_last);
		rec_batch_append(out, m);
		m = next;
	}
	*tl = (struct rec_batch){0};
	return 0;
}

/* ---- snapshot ---- */

struct repeat_merge {
	struct rec_msg **tl; /* the TL messages; NULL once dropped or placed */
	size_t n;
	int64_t first, last; /* T_earliest, T_latest of the batch */
	uint64_t topics[REC_TOPICS_MAX / 64]; /* topics with TL messages */
};

static bool repeat_topic_has(const struct repeat_merge *g, uint32_t topic)
{
	return topic < REC_TOPICS_MAX && (g->topics[topic / 64] >> (topic % 64) & 1u) != 0;
}

/* The batch's recv_time range, and drops every TL message the batch
 * already holds. */
static void repeat_mark_dups(struct repeat_merge *g, const struct rec_batch *batch)
{
	g->first = INT64_MAX;
	g->last = INT64_MIN;
	for (const struct rec_msg *m = batch->head; m != NULL; m = m->next) {
		if (m->recv_time < g->first)
			g->first = m->recv_time;
		if (m->recv_time > g->last)
			g->last = m->recv_time;
		if (!repeat_topic_has(g, m->topic))
			continue;
		for (size_t i = 0; i < g->n; i++)
			if (g->tl[i] != NULL && rec_repeat_same(g->tl[i], m)) {
				rec_msg_free(g->tl[i]);
				g->tl[i] = NULL;
			}
	}
}

/* Loads *tl into g (array and topic bitmap); false when memory is short. */
static bool repeat_merge_load(struct repeat_merge *g, struct rec_batch *tl)
{
	g->n = tl->count;
	g->tl = malloc((g->n != 0 ? g->n : 1) * sizeof *g->tl);
	if (g->tl == NULL)
		return false;
	size_t i = 0;
	for (struct rec_msg *m = tl->head; m != NULL; m = m->next) {
		g->tl[i++] = m;
		if (m->topic < REC_TOPICS_MAX)
			g->topics[m->topic / 64] |= UINT64_C(1) << (m->topic % 64);
	}
	*tl = (struct rec_batch){0};
	return true;
}

/* TL messages older than the batch, restamped, first; newer ones dropped;
 * the in-window ones stay in g->tl for the merge. */
static void repeat_place_outside(struct repeat_merge *g, struct rec_repeat_seen *seen,
				 struct rec_batch *out)
{
	for (size_t i = 0; i < g->n; i++) {
		struct rec_msg *m = g->tl[i];
		if (m == NULL || (m->recv_time >= g->first && m->recv_time <= g->last))
			continue;
		g->tl[i] = NULL;
		if (m->recv_time > g->last) {
			rec_msg_free(m);
			continue;
		}
		repeat_seen_add(seen, m);
		repeat_restamp(m, g->first);
		rec_batch_append(out, m);
	}
}

/* The batch in its order, each in-window TL message before the first batch
 * message newer than it. */
static void repeat_merge_window(struct repeat_merge *g, struct rec_batch *batch,
				struct rec_repeat_seen *seen, struct rec_batch *out)
{
	size_t i = 0;
	struct rec_msg *m = batch->head;
	while (m != NULL || i < g->n) {
		if (i < g->n && g->tl[i] == NULL) {
			i++;
			continue;
		}
		if (i < g->n && (m == NULL || g->tl[i]->recv_time < m->recv_time)) {
			repeat_seen_add(seen, g->tl[i]);
			rec_batch_append(out, g->tl[i++]);
			continue;
		}
		struct rec_msg *next = m->next;
		rec_batch_append(out, m);
		m = next;
	}
	*batch = (struct rec_batch){0};
}

size_t rec_repeat_for_snapshot(struct rec_batch *batch, struct rec_batch *tl,
			       struct rec_repeat_seen *seen, struct rec_batch *out)
{
	*out = (struct rec_batch){0};
	rec_repeat_seen_clear(seen);
	if (batch->count == 0) {
		(void)repeat_drop(tl); /* by design, not for want of memory */
		return 0;
	}
	struct repeat_merge *g = calloc(1, sizeof *g);
	if (g == NULL || !repeat_seen_reset(seen, tl->count) || !repeat_merge_load(g, tl)) {
		free(g);
		size_t left = repeat_drop(tl);
		*out = *batch;
		*batch = (struct rec_batch){0};
		return left;
	}
	repeat_mark_dups(g, batch);
	repeat_place_outside(g, seen, out);
	repeat_merge_window(g, batch, seen, out);
	free(g->tl);
	free(g);
	return 0;
}
