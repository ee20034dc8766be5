/* play_ctl — the player's controls (play.h): each changes the state under
 * the mutex, re-anchors the schedule (play_sched) where the timing
 * changes, and wakes the threads. None blocks, but a pause waits for the
 * one write in flight. */
#include <math.h>

#include "bt_time.h"
#include "play__player.h"

/* Locks; PLAY_REFUSED_DONE (unlocked) when playing is over. The run of
 * writes under way (play_pub) ends before its next write. */
static enum play_result ctl_lock(struct play *p)
{
	pthread_mutex_lock(&p->mu);
	if (p->stop || atomic_load(&p->state) == PLAY_STATE_DONE ||
	    atomic_load(&p->state) == PLAY_STATE_WAITING_ACKS) {
		pthread_mutex_unlock(&p->mu);
		return PLAY_REFUSED_DONE;
	}
	atomic_fetch_add(&p->ctl_seq, 1); /* a run being written stops here */
	return PLAY_OK;
}

/* Wakes the threads and unlocks; a burst the control ended (its steps
 * cleared) is told after. */
static enum play_result ctl_unlock(struct play *p)
{
	struct play_burst_end e = play_burst_take_locked(p, false);
	pthread_cond_broadcast(&p->cv_pub);
	pthread_mutex_unlock(&p->mu);
	play_burst_told(&e);
	return PLAY_OK;
}

struct play_burst_end play_burst_take_locked(struct play *p, bool force)
{
	struct play_burst_end e = {NULL, NULL, 0};
	if (force)
		p->steps = 0;
	if (p->burst_fn != NULL && p->steps == 0) {
		e = (struct play_burst_end){p->burst_fn, p->burst_ctx, p->burst_done};
		p->burst_fn = NULL;
		p->burst_ctx = NULL;
		p->burst_done = 0;
	}
	return e;
}

void play_burst_told(const struct play_burst_end *e)
{
	if (e->fn != NULL)
		e->fn(e->ctx, e->n);
}

static void ctl_set_paused_locked(struct play *p, bool paused)
{
	int64_t now = bt_time_monotonic_ns();
	if (paused)
		play_sched_pause(&p->sched, now);
	else
		play_sched_resume(&p->sched, now);
	p->steps = 0;
	atomic_store(&p->state, play_state_for(p, paused));
	/* A write in flight finishes first: once paused is said, nothing more
	 * goes out (the wait is that one write, its max blocking time at most). */
	while (paused && p->writing)
		pthread_cond_wait(&p->cv_written, &p->mu);
}

enum play_result play_pause(struct play *p)
{
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	ctl_set_paused_locked(p, true);
	return ctl_unlock(p);
}

enum play_result play_resume(struct play *p)
{
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	ctl_set_paused_locked(p, false);
	return ctl_unlock(p);
}

enum play_result play_toggle_pause(struct play *p)
{
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	ctl_set_paused_locked(p, !p->sched.paused);
	return ctl_unlock(p);
}

enum play_result play_next(struct play *p)
{
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	enum play_result r = PLAY_OK;
	if (!p->sched.paused)
		r = PLAY_REFUSED_NOT_PAUSED;
	else if (p->reader_waiting && !p->head)
		r = PLAY_REFUSED_AT_END;
	else
		p->steps++;
	ctl_unlock(p);
	return r;
}

enum play_result play_burst(struct play *p, uint64_t n, play_burst_fn done, void *ctx)
{
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	enum play_result r = PLAY_OK;
	if (!p->sched.paused)
		r = PLAY_REFUSED_NOT_PAUSED;
	else if (p->burst_fn != NULL)
		r = PLAY_REFUSED_BUSY;
	else if (p->reader_waiting && !p->head)
		r = PLAY_REFUSED_AT_END;
	if (r != PLAY_OK) {
		pthread_mutex_unlock(&p->mu);
		return r;
	}
	/* n 0: the rest of the pass; the pass's end ends the burst. */
	p->steps = n == 0 || n > UINT64_MAX - p->steps ? UINT64_MAX : p->steps + n;
	p->burst_fn = done;
	p->burst_ctx = ctx;
	p->burst_done = 0;
	return ctl_unlock(p);
}

enum play_result play_set_rate(struct play *p, double rate)
{
	if (!(rate >= PLAY_RATE_MIN && rate <= PLAY_RATE_MAX))
		return PLAY_REFUSED_BAD_VALUE;
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	play_sched_set_rate(&p->sched, bt_time_monotonic_ns(), rate);
	return ctl_unlock(p);
}

enum play_result play_multiply_rate(struct play *p, double factor)
{
	if (!(factor > 0) || isinf(factor))
		return PLAY_REFUSED_BAD_VALUE;
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	double r = p->sched.rate * factor;
	r = r < PLAY_RATE_MIN ? PLAY_RATE_MIN : r > PLAY_RATE_MAX ? PLAY_RATE_MAX : r;
	play_sched_set_rate(&p->sched, bt_time_monotonic_ns(), r);
	return ctl_unlock(p);
}

/* Repositions (under mu): a new generation, the queue dropped, the
 * schedule moved. The dropped messages are freed by the caller. */
static struct play_msg *ctl_move_locked(struct play *p, int64_t t)
{
	if (t < p->win_start)
		t = p->win_start;
	if (t > p->win_end)
		t = p->win_end;
	p->gen++;
	p->seek_to = t;
	p->steps = 0;
	play_sched_move(&p->sched, bt_time_monotonic_ns(), t);
	return play_queue_take_all(p);
}

static enum play_result ctl_seek(struct play *p, bool by, int64_t v)
{
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	int64_t t = v;
	if (by) {
		int64_t pos = play_sched_pos(&p->sched, bt_time_monotonic_ns());
		t = v > 0 && pos > INT64_MAX - v ? INT64_MAX : pos + v;
	} else if (v < p->win_start || v > p->win_end) {
		pthread_mutex_unlock(&p->mu);
		return PLAY_REFUSED_BAD_VALUE;
	}
	struct play_msg *dropped = ctl_move_locked(p, t);
	ctl_unlock(p);
	play_msgs_free(dropped);
	return PLAY_OK;
}

enum play_result play_seek_by(struct play *p, int64_t delta_ns)
{
	return ctl_seek(p, true, delta_ns);
}

enum play_result play_seek_to(struct play *p, int64_t t)
{
	return ctl_seek(p, false, t);
}

enum play_result play_restart(struct play *p)
{
	return ctl_seek(p, true, INT64_MIN / 2);
}

enum play_result play_toggle_loop(struct play *p, bool *now_on)
{
	if (ctl_lock(p) != PLAY_OK)
		return PLAY_REFUSED_DONE;
	p->loop = !p->loop;
	if (now_on)
		*now_on = p->loop;
	return ctl_unlock(p);
}

enum play_result play_set_topic_muted(struct play *p, size_t index, bool muted)
{
	if (index >= p->n_topics)
		return PLAY_REFUSED_BAD_VALUE;
	atomic_store(&p->topics[index].muted, muted);
	return PLAY_OK;
}

enum play_result play_toggle_topic_muted(struct play *p, size_t index)
{
	if (index >= p->n_topics)
		return PLAY_REFUSED_BAD_VALUE;
	atomic_bool *m = &p->topics[index].muted;
	bool was = atomic_load(m);
	while (!atomic_compare_exchange_weak(m, &was, !was))
		;
	return PLAY_OK;
}
