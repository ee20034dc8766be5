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
#include "bt_list.h"
#include "play__player.h"

/* Messages go into the queue in runs of up to RD_RUN_MAX (one lock and
 * one wake-up for the run, not for each message), except while the queue
 * is short (fewer than 2 * RD_RUN_MAX at the last push): then each goes
 * at once, so the publisher never waits for a run to fill. */
#define RD_RUN_MAX 32u
/* Messages read and not queued (other topics, before the seek position)
 * between two looks at a stop or a seek. */
#define RD_CHECK_EVERY 64u

struct rd_ctx {
	struct play *p;
	struct bag_reader *rd;
	uint32_t gen;
	int64_t from;
	uint32_t pass;  /* passes this generation has read, the current one included */
	uint32_t first_pass; /* p->loop_index when the generation started */
	bool counting;  /* the first pass of a partial window counts totals */
	/* The run being gathered (messages of generation gen). */
	struct play_msg *run, *run_tail;
	size_t run_n, run_bytes;
	size_t run_max, run_max_bytes; /* a quarter of the queue's bounds at most */
	bool eager; /* the queue was short at the last push */
};

/* What a push found: */
enum rd_state { RD_STOP = 0, RD_GO = 1, RD_MOVED = -1 };

/* Under mu: */
static enum rd_state rd_state_locked(const struct rd_ctx *c)
{
	return c->p->stop ? RD_STOP : c->p->gen != c->gen ? RD_MOVED : RD_GO;
}

/* Queues the run (none: only looks), after waiting for room, unless the
 * generation changed or playing stopped (then frees it). */
static enum rd_state rd_flush(struct rd_ctx *c)
{
	struct play *p = c->p;
	pthread_mutex_lock(&p->mu);
	while (c->run_n > 0 && rd_state_locked(c) == RD_GO && p->q_count > 0 &&
	       (p->q_count + c->run_n > p->o.read_ahead_count ||
		p->q_bytes + c->run_bytes > p->o.read_ahead_bytes)) {
		p->reader_full = true; /* the publisher wakes it when half is free */
		pthread_cond_wait(&p->cv_reader, &p->mu);
	}
	enum rd_state st = rd_state_locked(c);
	struct play_msg *drop = st == RD_GO ? NULL : c->run;
	if (st == RD_GO && c->run_n > 0) {
		if (p->tail)
			p->tail->next = c->run;
		else
			p->head = c->run;
		p->tail = c->run_tail;
		/* the publisher waits for a message only when there is none */
		if (p->q_count == 0)
			pthread_cond_signal(&p->cv_pub);
		p->q_count += c->run_n;
		p->q_bytes += c->run_bytes;
	}
	c->eager = p->q_count < 2 * RD_RUN_MAX;
	pthread_mutex_unlock(&p->mu);
	play_msgs_free(drop);
	c->run = c->run_tail = NULL;
	c->run_n = c->run_bytes = 0;
	return st;
}

/* Adds m to the run; queues the run when it is full or the queue short. */
static enum rd_state rd_push(struct rd_ctx *c, struct play_msg *m)
{
	m->gen = c->gen;
	BT_LIST_APPEND(c->run, c->run_tail, m);
	c->run_n++;
	c->run_bytes += m->len;
	if (c->eager || c->run_n >= c->run_max || c->run_bytes >= c->run_max_bytes)
		return rd_flush(c);
	return RD_GO;
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
	c->eager = true;
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

/* Queues the run and the pass's end marker; false on a stop. */
static bool rd_pass_end(struct rd_ctx *c, bool more)
{
	struct play_msg *m = calloc(1, sizeof *m);
	if (!m) /* the publisher then ends when the reader idles */
		return rd_flush(c) != RD_STOP;
	m->kind = PLAY_MSG_PASS_END;
	m->more = more;
	c->eager = true; /* the marker goes with the run, at once */
	return rd_push(c, m) != RD_STOP;
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

/* One message read: added to the run when played (*added). */
static enum rd_state rd_message(struct rd_ctx *c, const struct bag_read_msg *m, bool *added)
{
	struct play *p = c->p;
	*added = false;
	size_t topic = m->topic < p->n_bag_topics ? p->topic_of[m->topic] : SIZE_MAX;
	if (topic == SIZE_MAX || m->timestamp < p->win_start)
		return RD_GO;
	if (c->gen == 0)
		rd_count(c, topic);
	if (m->timestamp < c->from)
		return RD_GO;
	const struct play_topic *t = &p->topics[topic];
	size_t len = m->len;
	struct play_msg *q;
	if (t->svcreq) { /* a service event: its request, if one to send */
		q = play_svcreq_make(t->svcreq, t->raw_type, m->data, m->len, &len);
	} else {
		void *data;
		q = btdds_raw_out_new(t->raw_type, len, &data);
		if (q)
			memcpy(data, m->data, len);
	}
	if (!q)
		return RD_GO; /* dropped: the publisher counts nothing for it */
	*q = (struct play_msg){.kind = PLAY_MSG_DATA, .topic = topic, .t = m->timestamp,
			       .len = len};
	*added = true;
	return rd_push(c, q);
}

/* Reads one pass from c->from; 1 = window end, 0 = stop, -1 = new
 * generation, -2 = read error. A stop or a seek is seen when the run is
 * queued, or after RD_CHECK_EVERY messages that were not. */
static int rd_pass(struct rd_ctx *c)
{
	struct play *p = c->p;
	if (!c->rd)
		return -2; /* the bag did not reopen (said so) */
	for (size_t unseen = RD_CHECK_EVERY;; unseen++) {
		if (unseen >= RD_CHECK_EVERY) {
			enum rd_state st = rd_flush(c);
			if (st != RD_GO)
				return st;
			unseen = 0;
		}
		struct bag_read_msg m;
		struct bt_error err;
		int n = bag_reader_next(c->rd, &m, &err);
		if (n < 0) {
			if (rd_flush(c) == RD_STOP) /* what was read is played */
				return 0;
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
			return 1; /* the run goes with the pass's end */
		bool added;
		enum rd_state st = rd_message(c, &m, &added);
		if (st != RD_GO)
			return st;
		if (added)
			unseen = 0; /* the push looked, or the next one will soon */
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
	c.run_max = c.p->o.read_ahead_count / 4;
	c.run_max = c.run_max < 1 ? 1 : c.run_max > RD_RUN_MAX ? RD_RUN_MAX : c.run_max;
	c.run_max_bytes = c.p->o.read_ahead_bytes / 4;
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
