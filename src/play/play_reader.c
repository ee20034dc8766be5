/* play_reader — the "play-reader" thread: reads the bag ahead into the
 * player's queue, bounded in messages and bytes, from the position the
 * current generation asks for (play.seek_to), to the window's end; then
 * a PASS_END marker, and the next pass at once when looping (so a loop
 * starts without waiting for the bag to reopen). A seek bumps the
 * generation: the reader reopens the bag (bag_reader cannot go back) and
 * skips to the new position. Reading happens outside the mutex. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "play__player.h"

struct rd_ctx {
	struct play *p;
	struct bag_reader *rd;
	uint32_t gen;
	int64_t from;
	uint32_t pass;  /* passes this generation has read, the current one included */
	uint32_t first_pass; /* p->loop_index when the generation started */
	bool counting;  /* the first pass of a partial window counts totals */
};

/* Waits for room (or a new generation or a stop); pushes m unless the
 * generation changed (then frees it). Returns false on a stop. */
static bool rd_push(struct rd_ctx *c, struct play_msg *m)
{
	struct play *p = c->p;
	pthread_mutex_lock(&p->mu);
	while (!p->stop && p->gen == c->gen && p->q_count > 0 &&
	       (p->q_count >= p->o.read_ahead_count || p->q_bytes + m->len > p->o.read_ahead_bytes)) {
		p->reader_full = true; /* the publisher wakes it when half is free */
		pthread_cond_wait(&p->cv_reader, &p->mu);
	}
	bool keep = !p->stop && p->gen == c->gen;
	if (keep) {
		m->gen = c->gen;
		if (p->tail)
			p->tail->next = m;
		else
			p->head = m;
		p->tail = m;
		/* the publisher waits for a message only when there is none */
		if (p->q_count++ == 0)
			pthread_cond_signal(&p->cv_pub);
		p->q_bytes += m->len;
	}
	bool stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	if (!keep)
		play_msg_free(m);
	return !stop;
}

static bool rd_reopen(struct rd_ctx *c)
{
	bag_reader_close(c->rd);
	c->rd = NULL;
	struct bt_error err;
	if (bag_reader_open(c->p->bag_path, c->p->open_flags, &c->rd, &err) != BT_OK) {
		pthread_mutex_lock(&c->p->mu);
		play_warn_locked(c->p, err.msg);
		pthread_mutex_unlock(&c->p->mu);
		return false;
	}
	return true;
}

/* Takes a new generation's position (under mu). */
static void rd_take_gen_locked(struct rd_ctx *c)
{
	c->gen = c->p->gen;
	c->from = c->p->seek_to;
	c->pass = 1;
	c->first_pass = c->p->loop_index;
}

/* Should another pass follow this one (looping, passes left)? */
static bool rd_more(struct rd_ctx *c)
{
	struct play *p = c->p;
	pthread_mutex_lock(&p->mu);
	bool more = p->loop && !p->stop && p->gen == c->gen &&
		    (p->o.loop_count == 0 || c->first_pass + c->pass - 1 < p->o.loop_count);
	pthread_mutex_unlock(&p->mu);
	return more;
}

static bool rd_pass_end(struct rd_ctx *c, bool more)
{
	struct play_msg *m = calloc(1, sizeof *m);
	if (!m)
		return true; /* the publisher then ends when the reader idles */
	m->kind = PLAY_MSG_PASS_END;
	m->more = more;
	return rd_push(c, m);
}

/* Waits for a new generation; false on a stop. */
static bool rd_idle(struct rd_ctx *c)
{
	struct play *p = c->p;
	pthread_mutex_lock(&p->mu);
	p->reader_waiting = true;
	pthread_cond_signal(&p->cv_pub);
	while (!p->stop && p->gen == c->gen)
		pthread_cond_wait(&p->cv_reader, &p->mu);
	p->reader_waiting = false;
	rd_take_gen_locked(c);
	bool stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	return !stop;
}

static void rd_count(struct rd_ctx *c, size_t topic)
{
	if (c->counting)
		c->p->topics[topic].total++;
}

/* One message read: queued when played. Returns false on a stop. */
static bool rd_message(struct rd_ctx *c, const struct bag_read_msg *m)
{
	struct play *p = c->p;
	size_t topic = m->topic < p->n_bag_topics ? p->topic_of[m->topic] : SIZE_MAX;
	if (topic == SIZE_MAX || m->timestamp < p->win_start)
		return true;
	if (c->gen == 0)
		rd_count(c, topic);
	if (m->timestamp < c->from)
		return true;
	void *data;
	struct play_msg *q = btdds_raw_out_new(p->topics[topic].raw_type, m->len, &data);
	if (!q)
		return true; /* dropped: the publisher counts nothing for it */
	*q = (struct play_msg){.kind = PLAY_MSG_DATA, .topic = topic, .t = m->timestamp,
			       .len = m->len};
	memcpy(data, m->data, m->len);
	return rd_push(c, q);
}

/* Reads one pass from c->from; 1 = window end, 0 = stop, -1 = new
 * generation, -2 = read error. */
static int rd_pass(struct rd_ctx *c)
{
	struct play *p = c->p;
	if (!c->rd)
		return -2; /* the bag did not reopen (said so) */
	for (;;) {
		pthread_mutex_lock(&p->mu);
		bool stop = p->stop, moved = p->gen != c->gen;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			return 0;
		if (moved)
			return -1;
		struct bag_read_msg m;
		struct bt_error err;
		int n = bag_reader_next(c->rd, &m, &err);
		if (n < 0) {
			char line[256];
			snprintf(line, sizeof line, "%s: playing what could be read", err.msg);
			pthread_mutex_lock(&p->mu);
			play_warn_locked(p, line);
			if (p->o.strict && p->result == BT_OK) {
				p->result = err.code;
				p->err = err;
			}
			pthread_mutex_unlock(&p->mu);
			return -2;
		}
		if (n == 0 || m.timestamp > p->win_end)
			return 1;
		if (!rd_message(c, &m))
			return 0;
	}
}

void *play_reader_main(void *arg)
{
	struct rd_ctx c = {.p = arg};
	pthread_setname_np(pthread_self(), "play-reader");
	pthread_mutex_lock(&c.p->mu);
	c.rd = c.p->rd; /* opened by play_start: the first pass reads it */
	c.p->rd = NULL;
	rd_take_gen_locked(&c);
	pthread_mutex_unlock(&c.p->mu);
	c.counting = !c.p->whole_window;
	for (;;) {
		int r = rd_pass(&c);
		if (r == 0)
			break;
		c.counting = false;
		if (r == -1) {
			pthread_mutex_lock(&c.p->mu);
			rd_take_gen_locked(&c);
			pthread_mutex_unlock(&c.p->mu);
		} else {
			bool more = r == 1 && rd_more(&c);
			if (!rd_pass_end(&c, more))
				break;
			if (more) {
				c.pass++;
				c.from = c.p->win_start;
			} else if (!rd_idle(&c)) {
				break;
			}
		}
		if (!rd_reopen(&c) && !rd_idle(&c))
			break;
	}
	bag_reader_close(c.rd);
	return NULL;
}
