/* play_pub — the "play-pub" thread: takes the queue's messages in order
 * and writes each, unchanged, on its topic's raw writer at its deadline
 * (play_sched). Far from a deadline it waits on cv_pub, so a control
 * (pause, seek, rate, stop) applies at once; the last PLAY_SPIN_NS are
 * one clock_nanosleep(TIMER_ABSTIME) on CLOCK_MONOTONIC. How late each
 * write went out is counted per topic (> PLAY_LATE_NS: late). */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "bt_log.h"
#include "bt_time.h"
#include "btdds_raw.h"
#include "play__player.h"

static void pub_wait_until(struct play *p, int64_t wall)
{
	struct timespec ts = bt_time_timespec(wall);
	int rc = pthread_cond_timedwait(&p->cv_pub, &p->mu, &ts);
	(void)rc; /* a timeout or a wake-up: the caller looks again either way */
}

static void pub_sleep_until(int64_t wall)
{
	struct timespec ts = bt_time_timespec(wall);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void pub_pop_locked(struct play *p, struct play_msg *m)
{
	p->head = m->next;
	if (!p->head)
		p->tail = NULL;
	p->q_count--;
	p->q_bytes -= m->len;
	m->next = NULL;
	/* A reader waiting for room is woken once half the queue is free, not
	 * at every message: it refills in a run, and neither thread pays a
	 * wake-up per message at full speed. */
	if (p->reader_full && (p->q_count <= p->o.read_ahead_count / 2 &&
			       p->q_bytes <= p->o.read_ahead_bytes / 2)) {
		p->reader_full = false;
		pthread_cond_signal(&p->cv_reader);
	}
}

static void pub_count(struct play *p, struct play_topic *t, size_t len, int64_t late,
		      bool timed, dds_return_t rc)
{
	if (rc < 0) {
		atomic_fetch_add_explicit(&t->failed, 1, memory_order_relaxed);
		return;
	}
	atomic_fetch_add_explicit(&t->published, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&t->bytes, len, memory_order_relaxed);
	if (!timed)
		return;
	bt_lathist_add(&p->late_hist, late);
	if (late > PLAY_LATE_NS)
		atomic_fetch_add_explicit(&t->late, 1, memory_order_relaxed);
	if (late > atomic_load_explicit(&t->max_late, memory_order_relaxed))
		atomic_store_explicit(&t->max_late, late, memory_order_relaxed);
}

/* An untimed write (a step, a burst) goes out as fast as the readers
 * take it, not faster: once a reliable KEEP_LAST writer holds step_window
 * writes its readers may not have acknowledged, the next would push the
 * oldest out of its history, lost to them (as rosbag2's burst loses it),
 * so the acks are waited for first: in slices, a control or a stop ends
 * the wait (the write goes out then, as a step taken does). A reader that
 * does not acknowledge within PUB_STEP_ACK_NS is not waited for again. */
#define PUB_STEP_ACK_NS INT64_C(500000000)
#define PUB_STEP_SLICE_NS INT64_C(50000000)

static void pub_step_room(struct play *p, struct play_topic *t)
{
	if (t->step_window == 0 || t->step_slow || t->step_unacked < t->step_window)
		return;
	uint32_t seq = atomic_load(&p->ctl_seq);
	for (int64_t waited = 0; waited < PUB_STEP_ACK_NS; waited += PUB_STEP_SLICE_NS) {
		dds_return_t rc = dds_wait_for_acks(t->writer, PUB_STEP_SLICE_NS);
		if (rc != DDS_RETCODE_TIMEOUT) { /* acknowledged (or cannot say) */
			t->step_unacked = 0;
			return;
		}
		if (atomic_load(&p->ctl_seq) != seq)
			return;
	}
	t->step_slow = true;
	bt_log_warn("%s: a reliable subscriber did not acknowledge within %.1f s; steps and "
		    "bursts no longer wait for it",
		    t->names.name, (double)PUB_STEP_ACK_NS / 1e9);
}

/* A request of a service no server offers is not sent (as rosbag2's
 * player: "the service isn't ready"); it is counted. */
static void pub_no_server(struct play_topic *t, struct play_msg *m)
{
	play_msg_free(m);
	atomic_fetch_add_explicit(&t->unserved, 1, memory_order_relaxed);
	if (!t->no_server_said)
		bt_log_warn("%s: no server of the service: its requests are not sent (counted)",
			    t->names.name);
	t->no_server_said = true;
}

/* Writes m (outside mu) unless its topic is muted; m is gone after.
 * Returns the monotonic time just before the write (it may wait in the
 * writer's batch), or 0 when it did not write. */
static int64_t pub_write(struct play *p, struct play_msg *m, int64_t deadline, bool timed)
{
	struct play_topic *t = &p->topics[m->topic];
	if (atomic_load_explicit(&t->muted, memory_order_relaxed)) {
		play_msg_free(m);
		return 0;
	}
	if (t->svcreq && atomic_load_explicit(&t->matched, memory_order_relaxed) == 0) {
		pub_no_server(t, m);
		return 0;
	}
	size_t len = m->len; /* m is the sample's: the write gives it up */
	if (t->clock_trigger)
		play_clock_publish(p, m->t);
	if (!timed)
		pub_step_room(p, t);
	else /* what is still unacknowledged is not known: wait at the next step */
		t->step_unacked = t->step_window;
	int64_t now = bt_time_monotonic_ns();
	dds_return_t rc = btdds_raw_out_write(t->writer, m);
	pub_count(p, t, len, timed ? now - deadline : 0, timed, rc);
	if (!timed && rc >= 0)
		t->step_unacked++;
	return now;
}

/* Under mu, after a write on `topic` at `now`: was the head message due
 * then, on the same writer, and is nothing (pause, seek, stop) in the
 * way? Then the write stays in the writer's batch and goes out with the
 * next one's packet; else it is flushed at once, so a message on time
 * still leaves alone and at once, and nothing waits in a batch while the
 * publisher waits. */
static bool pub_more_due_locked(struct play *p, size_t topic, int64_t now)
{
	const struct play_msg *h = p->head;
	if (h == NULL || h->kind != PLAY_MSG_DATA || h->gen != p->gen || h->topic != topic ||
	    p->stop || p->sched.paused ||
	    atomic_load_explicit(&p->topics[topic].muted, memory_order_relaxed))
		return false;
	return play_sched_deadline(&p->sched, h->t) <= now;
}

/* A PASS_END reached (under mu): the next pass, or the end. Returns false
 * at the end. */
static bool pub_pass_end_locked(struct play *p, const struct play_msg *m)
{
	bool again = p->loop && p->result == BT_OK &&
		     (p->o.loop_count == 0 || p->loop_index < p->o.loop_count);
	if (!again)
		return false;
	p->loop_index++;
	int64_t now = bt_time_monotonic_ns();
	play_sched_move(&p->sched, now, p->win_start);
	if (!m->more) { /* the reader stopped after this pass: send it back */
		p->gen++;
		p->seek_to = p->win_start;
		pthread_cond_broadcast(&p->cv_reader);
	}
	return true;
}

/* Under mu: m, due at `now`, taken off the queue with the messages after
 * it that are due then too (on any topic; a muted one ends the run), up
 * to PUB_RUN_MAX, each with its deadline: written in one go outside mu,
 * the run costs one lock and one look at the clock, not one a message. */
#define PUB_RUN_MAX 32

static void pub_take_run_locked(struct play *p, struct play_msg *m, int64_t now)
{
	pub_pop_locked(p, m);
	struct play_msg *tail = m;
	for (int n = 1; n < PUB_RUN_MAX; n++) {
		struct play_msg *h = p->head;
		if (h == NULL || h->kind != PLAY_MSG_DATA || h->gen != p->gen ||
		    atomic_load_explicit(&p->topics[h->topic].muted, memory_order_relaxed))
			break;
		h->deadline = play_sched_deadline(&p->sched, h->t);
		if (h->deadline > now)
			break;
		pub_pop_locked(p, h);
		tail->next = h;
		tail = h;
	}
}

/* The next thing to do with the head message (under mu): 1 = publish
 * *out now (deadline in *dl and the time it was looked at in *now, timed:
 * a run of due messages; or a step), 0 = looked again after waiting,
 * -1 = the end. `known`: a time already passed (the last write's), so a
 * message due by then needs no look at the clock. */
static int pub_next_locked(struct play *p, struct play_msg **out, int64_t *dl, int64_t *now,
			   bool *timed, int64_t known)
{
	struct play_msg *m = p->head;
	if (!m) {
		pthread_cond_wait(&p->cv_pub, &p->mu);
		return 0;
	}
	if (m->gen != p->gen) {
		pub_pop_locked(p, m);
		play_msg_free(m);
		return 0;
	}
	if (m->kind == PLAY_MSG_PASS_END) {
		pub_pop_locked(p, m);
		bool again = pub_pass_end_locked(p, m);
		if (again && p->burst_fn != NULL && p->sched.paused)
			p->steps = 0; /* a burst ends with its pass; told below */
		play_msg_free(m);
		return again ? 0 : -1;
	}
	if (p->topics[m->topic].muted) { /* skipped at once, also when paused */
		pub_pop_locked(p, m);
		play_msg_free(m);
		return 0;
	}
	if (p->sched.paused) {
		if (p->steps == 0) {
			pthread_cond_wait(&p->cv_pub, &p->mu);
			return 0;
		}
		p->steps--;
		if (p->burst_fn != NULL)
			p->burst_done++;
		p->sched.paused_at = m->t;
		pub_pop_locked(p, m);
		*out = m;
		*timed = false;
		return 1;
	}
	int64_t deadline = play_sched_deadline(&p->sched, m->t);
	*now = deadline <= known ? known : bt_time_monotonic_ns();
	if (deadline - *now > PLAY_SPIN_NS) {
		pub_wait_until(p, deadline - PLAY_SPIN_NS);
		return 0;
	}
	m->deadline = deadline;
	if (deadline <= *now)
		pub_take_run_locked(p, m, *now);
	else
		pub_pop_locked(p, m); /* alone: the publisher sleeps to its deadline */
	*out = m;
	*dl = deadline;
	*timed = true;
	return 1;
}

/* Under mu: a burst whose steps ran out (all published, or its pass
 * ended) is told, outside mu. */
static void pub_burst_check(struct play *p)
{
	if (p->burst_fn == NULL || p->steps != 0)
		return;
	struct play_burst_end e = play_burst_take_locked(p, false);
	pthread_mutex_unlock(&p->mu);
	play_burst_told(&e);
	pthread_mutex_lock(&p->mu);
}

/* Under mu: the messages of chain m (one generation) not written go back
 * to the head of the queue, in order, for their generation; else (a seek
 * or a stop came) they are freed. */
static void pub_unwrite_locked(struct play *p, struct play_msg *m)
{
	if (m->gen != p->gen || p->stop) {
		play_msgs_free(m);
		return;
	}
	struct play_msg *tail = m;
	for (;;) {
		p->q_count++;
		p->q_bytes += tail->len;
		if (tail->next == NULL)
			break;
		tail = tail->next;
	}
	tail->next = p->head;
	p->head = m;
	if (p->tail == NULL)
		p->tail = tail;
}

/* Under mu, after the sleep to m's deadline: when a pause, a seek or a
 * stop came meanwhile, m is not written (pub_unwrite_locked) and true is
 * returned. */
static bool pub_put_back_locked(struct play *p, struct play_msg *m)
{
	if (!p->sched.paused && m->gen == p->gen && !p->stop)
		return false;
	pub_unwrite_locked(p, m);
	return true;
}

/* Under mu: sends what the writes left in *batched's writer (SIZE_MAX:
 * none), outside mu; only then is the write in flight over (`writing`). */
static void pub_flush_locked(struct play *p, size_t *batched)
{
	if (*batched != SIZE_MAX) {
		dds_entity_t w = p->topics[*batched].writer;
		*batched = SIZE_MAX;
		pthread_mutex_unlock(&p->mu);
		btdds_raw_flush(w);
		pthread_mutex_lock(&p->mu);
	}
	p->writing = false;
	pthread_cond_broadcast(&p->cv_written);
}

/* Outside mu: writes the run from m on, each message at its deadline,
 * until a control comes (ctl_seq moves from `seq`); returns what was not
 * written. Writes on one writer share packets; a message on another one
 * sends them first. *wrote: the last write's time, 0 when it was muted. */
static struct play_msg *pub_write_run(struct play *p, struct play_msg *m, uint32_t seq,
				      size_t *batched, int64_t *batched_at, int64_t *wrote)
{
	for (bool first = true; m != NULL; first = false) {
		if (!first && atomic_load(&p->ctl_seq) != seq)
			return m; /* a pause waits for the write in flight only */
		struct play_msg *next = m->next;
		m->next = NULL;
		size_t topic = m->topic;
		if (*batched != SIZE_MAX && *batched != topic) {
			btdds_raw_flush(p->topics[*batched].writer);
			*batched = SIZE_MAX;
		}
		*wrote = pub_write(p, m, m->deadline, true);
		if (*wrote) {
			*batched = topic;
			*batched_at = *wrote;
		}
		m = next;
	}
	return NULL;
}

/* Under mu: writes m (a run when timed: pub_take_run_locked) outside mu.
 * Timed writes stay batched (*batched = the topic, *batched_at = when)
 * for the loop to flush; a step goes out at once, before its burst is
 * told. */
static void pub_send_locked(struct play *p, struct play_msg *m, int64_t deadline, bool timed,
			    size_t *batched, int64_t *batched_at)
{
	p->writing = true; /* a pause waits for it: nothing goes out after */
	uint32_t seq = atomic_load(&p->ctl_seq);
	size_t topic = m->topic;
	int64_t wrote = 0;
	struct play_msg *rest = NULL;
	pthread_mutex_unlock(&p->mu);
	if (timed) {
		rest = pub_write_run(p, m, seq, batched, batched_at, &wrote);
	} else if ((wrote = pub_write(p, m, deadline, false)) != 0) {
		*batched = topic;
		*batched_at = wrote;
	}
	pthread_mutex_lock(&p->mu);
	if (rest)
		pub_unwrite_locked(p, rest);
	if (!timed || !wrote) {
		pub_flush_locked(p, batched);
		if (!timed)
			pub_burst_check(p);
	}
}

/* --wait-for-subscribers: the writers' match counts are polled, as a
 * match is told on a DDS listener thread (on_matched), which does not
 * take mu; a control or a stop wakes the wait at once. */
#define PUB_SUBS_POLL_NS INT64_C(10000000)

/* Under mu: every topic played but a muted one (only the services played
 * as requests that have events to play, when servers_only) has a matched
 * reader. */
static bool pub_all_matched_locked(struct play *p)
{
	for (size_t i = 0; i < p->n_topics; i++) {
		const struct play_topic *t = &p->topics[i];
		bool none = p->whole_window && atomic_load_explicit(&t->total, memory_order_relaxed) == 0;
		if (!atomic_load_explicit(&t->muted, memory_order_relaxed) &&
		    (!p->servers_only || (t->svcreq && !none)) &&
		    atomic_load_explicit(&t->matched, memory_order_relaxed) == 0)
			return false;
	}
	return true;
}

/* Waits (when asked) until every topic has a subscriber, then lets the
 * held schedule run, -d from now; false on a stop. */
static bool pub_wait_subscribers(struct play *p)
{
	/* Set before this thread started and cleared only here: read unlocked. */
	if (!p->waiting_subs)
		return true;
	if (!p->servers_only)
		bt_log_info("waiting for a subscriber on each of %zu topics "
			    "(--wait-for-subscribers)", p->n_topics);
	pthread_mutex_lock(&p->mu);
	while (!p->stop && !pub_all_matched_locked(p) &&
	       (p->subs_wait_limit == 0 || bt_time_monotonic_ns() < p->subs_wait_limit))
		pub_wait_until(p, bt_time_monotonic_ns() + PUB_SUBS_POLL_NS);
	bool all = pub_all_matched_locked(p);
	bool go = !p->stop;
	int64_t now = bt_time_monotonic_ns();
	p->subs_wait_end = now;
	if (go) {
		p->waiting_subs = false;
		play_sched_release(&p->sched, now + (p->o.delay_ns > 0 ? p->o.delay_ns : 0));
		atomic_store(&p->state, play_state_for(p, p->sched.paused));
	}
	pthread_mutex_unlock(&p->mu);
	if (go && !p->servers_only)
		bt_log_info("every topic has a subscriber after %.1f s: playing",
			    (double)(now - p->started_wall) / 1e9);
	else if (go && !all)
		bt_log_info("not every service played as requests has a server after %.1f s: "
			    "playing", (double)(now - p->started_wall) / 1e9);
	return go;
}

/* Playing until the end or a stop; true at the end. Writes go out in
 * packets of several while the publisher is behind its schedule (see
 * pub_more_due_locked): one send per message is what limits its speed. */
static bool pub_loop(struct play *p)
{
	pthread_mutex_lock(&p->mu);
	int r = 0;
	size_t batched = SIZE_MAX; /* the topic whose writer holds unsent writes */
	int64_t batched_at = 0;    /* when the last of them was written */
	while (!p->stop && r >= 0) {
		if (batched != SIZE_MAX && !pub_more_due_locked(p, batched, batched_at))
			pub_flush_locked(p, &batched); /* before any wait */
		if (p->stop)
			break;
		struct play_msg *m = NULL;
		int64_t deadline = 0, now = 0;
		bool timed = false;
		r = pub_next_locked(p, &m, &deadline, &now, &timed,
				    batched != SIZE_MAX ? batched_at : INT64_MIN);
		if (r == 0)
			pub_burst_check(p);
		if (r != 1)
			continue;
		if (timed && deadline > now) {
			pthread_mutex_unlock(&p->mu);
			pub_sleep_until(deadline);
			pthread_mutex_lock(&p->mu);
			if (pub_put_back_locked(p, m))
				continue; /* paused, moved or stopped while it waited */
		}
		pub_send_locked(p, m, deadline, timed, &batched, &batched_at);
	}
	if (batched != SIZE_MAX)
		pub_flush_locked(p, &batched);
	bool end = !p->stop;
	if (end && p->o.wait_for_acked_ns >= 0)
		atomic_store(&p->state, PLAY_STATE_WAITING_ACKS);
	pthread_mutex_unlock(&p->mu);
	return end;
}

/* --wait-for-all-acked: every writer's samples acknowledged by its
 * reliable readers, within the timeout in all (INT64_MAX: no limit);
 * waited for in slices so a stop ends it at once. */
#define PUB_ACK_SLICE_NS INT64_C(100000000)

static bool pub_stopped(struct play *p)
{
	pthread_mutex_lock(&p->mu);
	bool stop = p->stop;
	pthread_mutex_unlock(&p->mu);
	return stop;
}

static void pub_wait_acks(struct play *p)
{
	int64_t t = p->o.wait_for_acked_ns;
	int64_t until = t == INT64_MAX ? INT64_MAX : bt_time_monotonic_ns() + t;
	for (size_t i = 0; i < p->n_topics; i++) {
		for (;;) {
			if (pub_stopped(p))
				return;
			int64_t left = until == INT64_MAX ? PUB_ACK_SLICE_NS
							  : until - bt_time_monotonic_ns();
			if (left <= 0)
				break;
			dds_return_t rc = dds_wait_for_acks(
				p->topics[i].writer, left < PUB_ACK_SLICE_NS ? left : PUB_ACK_SLICE_NS);
			if (rc != DDS_RETCODE_TIMEOUT)
				break; /* acknowledged (or a writer that cannot say) */
		}
		if (until != INT64_MAX && bt_time_monotonic_ns() >= until) {
			pthread_mutex_lock(&p->mu);
			play_warn_locked(p, "--wait-for-all-acked: not every message was "
					    "acknowledged in time");
			pthread_mutex_unlock(&p->mu);
			return;
		}
	}
}

/* Under no lock: a request sent that no reply has answered yet. */
static bool pub_replies_due(struct play *p)
{
	for (size_t i = 0; i < p->n_topics; i++) {
		struct play_topic *t = &p->topics[i];
		if (t->svcreq && atomic_load_explicit(&t->answered, memory_order_relaxed) <
					 atomic_load_explicit(&t->published, memory_order_relaxed))
			return true;
	}
	return false;
}

/* At the end, a player of service requests waits up to
 * PLAY_REPLIES_WAIT_NS for the replies to what it sent, so that they are
 * counted (rosbag2's player ends without them), and what was never
 * answered is known. */
static void pub_wait_replies(struct play *p)
{
	if (!pub_replies_due(p))
		return;
	pthread_mutex_lock(&p->mu);
	atomic_store(&p->state, PLAY_STATE_WAITING_ACKS);
	pthread_mutex_unlock(&p->mu);
	int64_t until = bt_time_monotonic_ns() + PLAY_REPLIES_WAIT_NS;
	while (pub_replies_due(p) && !pub_stopped(p) && bt_time_monotonic_ns() < until)
		dds_sleepfor(DDS_MSECS(10));
}

void *play_pub_main(void *arg)
{
	struct play *p = arg;
	pthread_setname_np(pthread_self(), "play-pub");
	if (pub_wait_subscribers(p) && pub_loop(p)) {
		pub_wait_replies(p);
		if (p->o.wait_for_acked_ns >= 0)
			pub_wait_acks(p);
	}
	pthread_mutex_lock(&p->mu);
	play_finish_locked(p);
	struct play_burst_end e = play_burst_take_locked(p, true); /* the end, a stop */
	pthread_mutex_unlock(&p->mu);
	play_burst_told(&e);
	return NULL;
}
