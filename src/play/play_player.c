/* play_player — the player's life (start, stop, join), its controls and
 * its view (play.h). Start order: bag opened and summarised → topics and
 * window resolved → participant and writers → threads (reader, publisher,
 * clock). Teardown in play.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "btdds_node.h"
#include "btdds_participant.h"
#include "play__player.h"
#include "play_svc.h"

/* The player's domain: its writers ask their reliable readers for acks
 * 1 ms after a write they have not acknowledged, not Cyclone's 100 ms, so
 * that a step or a burst waiting for acks (play_pub's pub_step_room)
 * waits about that long, not a heartbeat period, per window of writes.
 * Heartbeats go out only while something is unacknowledged. A
 * HeartbeatInterval in CYCLONEDDS_URI wins. */
#define PLAYER_DDS_CONFIG                                                            \
	"<CycloneDDS><Domain><Internal><HeartbeatInterval minsched=\"1ms\">1ms</" \
	"HeartbeatInterval></Internal></Domain></CycloneDDS>"

_Static_assert(sizeof(struct play_msg) <= BTDDS_RAW_SLOT_SIZE,
	       "a DATA message's header lives in its sample's slot");

void play_msg_free(struct play_msg *m)
{
	if (m->kind == PLAY_MSG_DATA)
		btdds_raw_release(m);
	else
		free(m);
}

void play_msgs_free(struct play_msg *m)
{
	while (m) {
		struct play_msg *n = m->next;
		play_msg_free(m);
		m = n;
	}
}

struct play_msg *play_queue_take_all(struct play *p)
{
	struct play_msg *m = p->head;
	p->head = p->tail = NULL;
	p->q_count = p->q_bytes = 0;
	pthread_cond_broadcast(&p->cv_reader);
	return m;
}

void play_warn_locked(struct play *p, const char *msg)
{
	if (!p->warning[0]) {
		snprintf(p->warning, sizeof p->warning, "%s", msg);
		bt_log_warn("%s", msg); /* the sink takes its own lock, never ours */
	}
}

void play_finish_locked(struct play *p)
{
	p->stop = true;
	atomic_fetch_add(&p->ctl_seq, 1);
	atomic_store(&p->state, PLAY_STATE_DONE);
	pthread_cond_broadcast(&p->cv_pub);
	pthread_cond_broadcast(&p->cv_reader);
	pthread_cond_broadcast(&p->cv_done);
}

/* ---- start ---- */

static void player_copy_options(struct play *p, const struct play_options *o)
{
	p->o = *o;
	p->bag_path = bt_xstrdup(o->bag_path);
	p->qos_path = bt_xstrdup(o->qos_overrides_path);
	p->node_name = bt_xstrdup(o->node_name);
	p->o.node_name = p->node_name;
	p->o.bag_path = p->bag_path;
	p->o.qos_overrides_path = p->qos_path;
	if (p->o.read_ahead_count == 0)
		p->o.read_ahead_count = PLAY_READ_AHEAD_DEFAULT;
	if (p->o.read_ahead_bytes == 0)
		p->o.read_ahead_bytes = PLAY_READ_AHEAD_BYTES_DEFAULT;
	if (p->o.loop_count > 0)
		p->o.loop = true;
	/* The selection and remaps are used by play_topics_build only, within
	 * play_start: borrowed, then forgotten. */
}

static int64_t bound_of(const struct play_bound *b, int64_t bag_start)
{
	return b->rel ? bag_start + b->ns : b->ns;
}

static int64_t add_sat(int64_t a, int64_t b)
{
	return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* The window [win_start, win_end] from the bag's range and the options. */
static bt_status player_window(struct play *p, struct bt_error *err)
{
	const struct play_options *o = &p->o;
	if (o->rate < PLAY_RATE_MIN || o->rate > PLAY_RATE_MAX || isnan(o->rate))
		return bt_err_set(err, BT_ERR_USAGE, "--rate %g is out of range (%g..%g)", o->rate,
				  PLAY_RATE_MIN, PLAY_RATE_MAX);
	if (o->start_offset_ns < 0)
		return bt_err_set(err, BT_ERR_USAGE, "--start-offset must not be negative");
	int64_t s = add_sat(p->bag_start, o->start_offset_ns), e = p->bag_end;
	if (o->start.given && bound_of(&o->start, p->bag_start) > s)
		s = bound_of(&o->start, p->bag_start);
	if (o->end.given && bound_of(&o->end, p->bag_start) - 1 < e)
		e = bound_of(&o->end, p->bag_start) - 1; /* --end is exclusive */
	if (o->playback_duration_ns >= 0 && add_sat(s, o->playback_duration_ns) < e)
		e = add_sat(s, o->playback_duration_ns);
	if (o->playback_until_ns >= 0 && o->playback_until_ns < e)
		e = o->playback_until_ns;
	if (o->start.given && o->end.given && s > e)
		return bt_err_set(err, BT_ERR_USAGE, "--end must be after --start");
	p->win_start = s;
	p->win_end = e < s ? s - 1 : e; /* nothing to play: an empty window */
	p->whole_window = s <= p->bag_start && e >= p->bag_end;
	return BT_OK;
}

/* One line per storage file the reader left out (missing, not a
 * database, a bad header, no permission), kept for the summary. */
static void player_note_skipped(struct play *p)
{
	size_t n;
	const struct bag_reader_skip *s = bag_reader_skipped(p->rd, &n);
	p->skipped = bt_xcalloc(n + 1, sizeof *p->skipped);
	for (size_t i = 0; i < n; i++) {
		p->skipped[p->n_skipped++] = bt_xstrdup(s[i].path);
		char line[BT_ERROR_MSG_MAX + 64];
		snprintf(line, sizeof line, "%s: playing what can be read", s[i].reason);
		if (!p->warning[0])
			play_warn_locked(p, line); /* the view's warning, logged */
		else
			bt_log_warn("%s", line);
	}
}

/* A bag with files that are missing or cannot be read: without --strict,
 * the others are played (BAG_READER_SKIP_UNREADABLE), one line naming each
 * file left out. When metadata.yaml itself is at fault, the storage files
 * found by listing the directory are played, and the warning says so. */
static bt_status player_open_lenient(struct play *p, struct bt_error *err)
{
	/* --strict: every file checked first (sqlite's quick_check), so a
	 * corrupt one is refused before anything is played. */
	p->open_flags = p->o.strict ? BAG_READER_INTEGRITY : BAG_READER_SKIP_UNREADABLE;
	/* The per-topic totals from metadata.yaml when the files agree with
	 * it, not by reading every message first (0.5 s for 200 MB) */
	p->open_flags |= BAG_READER_COUNTS_FROM_METADATA;
	bt_status st = bag_reader_open(p->bag_path, p->open_flags, &p->rd, err);
	if (st == BT_OK && !p->o.strict)
		player_note_skipped(p);
	if (st == BT_OK || p->o.strict || st == BT_ERR_NOMEM || !err)
		return st;
	struct bt_error first = *err;
	unsigned flags = BAG_READER_IGNORE_METADATA | BAG_READER_SKIP_UNREADABLE;
	if (bag_reader_open(p->bag_path, flags, &p->rd, err) != BT_OK) {
		*err = first;
		return st;
	}
	p->open_flags = flags;
	char line[BT_ERROR_MSG_MAX + 64];
	snprintf(line, sizeof line, "%s: playing what can be read", first.msg);
	play_warn_locked(p, line);
	player_note_skipped(p);
	return BT_OK;
}

static bt_status player_open(struct play *p, struct bt_error *err)
{
	bt_status st = player_open_lenient(p, err);
	if (st != BT_OK)
		return st;
	p->bag_start = bag_reader_start(p->rd);
	p->bag_end = bag_reader_end(p->rd);
	if (bag_reader_message_count(p->rd) == 0)
		p->bag_start = p->bag_end = 0;
	return BT_OK;
}

static void player_init_sync(struct play *p)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->view_mu, NULL);
	pthread_cond_init(&p->cv_pub, &ca);
	pthread_cond_init(&p->cv_reader, &ca);
	pthread_cond_init(&p->cv_done, &ca);
	pthread_cond_init(&p->cv_written, &ca);
	pthread_condattr_destroy(&ca);
}

/* What the publisher waits for before the schedule starts: every topic's
 * subscriber (--wait-for-subscribers), else the servers of the services
 * played as requests, for PLAY_SERVERS_WAIT_NS at most: discovery takes
 * a moment, and a request sent before it reaches no one. */
static void player_wait_plan(struct play *p, int64_t now)
{
	bool services = false;
	for (size_t i = 0; i < p->n_topics; i++)
		services = services || p->topics[i].svcreq != NULL;
	p->waiting_subs = p->n_topics > 0 && (p->o.wait_for_subscribers || services);
	p->servers_only = !p->o.wait_for_subscribers;
	p->subs_wait_limit = p->o.wait_for_subscribers ? 0 : now + PLAY_SERVERS_WAIT_NS;
}

static bt_status player_threads(struct play *p, struct bt_error *err)
{
	int64_t now = bt_time_monotonic_ns();
	p->started_wall = now;
	play_sched_init(&p->sched, now + (p->o.delay_ns > 0 ? p->o.delay_ns : 0), p->win_start,
			p->o.rate, p->win_start, p->win_end);
	p->sched.paused = p->o.start_paused;
	player_wait_plan(p, now);
	if (p->waiting_subs)
		play_sched_hold(&p->sched, now);
	p->loop = p->o.loop;
	p->loop_index = 1;
	p->seek_to = p->win_start;
	atomic_store(&p->state, play_state_for(p, p->o.start_paused));
	if (pthread_create(&p->reader_thr, NULL, play_reader_main, p) != 0)
		return bt_err_set(err, BT_ERR_NOMEM, "cannot start the reader thread");
	p->reader_started = true;
	if (pthread_create(&p->pub_thr, NULL, play_pub_main, p) != 0)
		return bt_err_set(err, BT_ERR_NOMEM, "cannot start the publishing thread");
	p->pub_started = true;
	if (p->o.clock_hz > 0) {
		if (pthread_create(&p->clock_thr, NULL, play_clock_main, p) != 0)
			return bt_err_set(err, BT_ERR_NOMEM, "cannot start the clock thread");
		p->clock_started = true;
	}
	return BT_OK;
}

/* Remote control is a bonus: when the services cannot start (DDS refused),
 * playing goes on without them, said once. */
static void player_services(struct play *p)
{
	if (p->node_name == NULL)
		return;
	struct play_svc_options o = {p, p->pp, p->node_name, p->o.humble};
	struct bt_error e;
	if (play_svc_start(&o, &p->svc, &e) != BT_OK) {
		bt_log_warn("no remote control (rosbag2's player services): %s", e.msg);
		p->svc = NULL;
	}
}

bt_status play_start(const struct play_options *opt, struct play **out, struct bt_error *err)
{
	struct play *p = bt_xcalloc(1, sizeof *p);
	player_copy_options(p, opt);
	player_init_sync(p);
	bt_lathist_init(&p->late_hist);
	atomic_store(&p->state, PLAY_STATE_DONE);
	bt_status st = player_open(p, err);
	if (st == BT_OK)
		st = player_window(p, err);
	if (st == BT_OK)
		st = play_topics_build(p, err);
	if (st == BT_OK)
		st = btdds_participant_create_with(p->o.domain_id, p->o.env, PLAYER_DDS_CONFIG,
						   &p->pp, err);
	if (st == BT_OK) {
		/* The publisher batches the writes it is behind on (play_pub);
		 * every other write of this process goes through btdds_raw_write,
		 * which then flushes its own. */
		btdds_raw_batch_enable();
		st = play_topics_create_writers(p, err);
	}
	if (st == BT_OK && p->node_name != NULL && !btdds_node_name_valid(p->node_name))
		st = bt_err_set(err, BT_ERR_USAGE, "'%s' is not a ROS node name", p->node_name);
	if (st == BT_OK)
		st = player_threads(p, err);
	if (st == BT_OK)
		player_services(p);
	/* Nothing the options pointed to is kept. */
	p->o.select = (struct btdds_select_options){0};
	p->o.clock_topics = NULL;
	p->o.remaps = NULL;
	p->o.env = NULL;
	if (st != BT_OK) {
		play_free(p);
		return st;
	}
	*out = p;
	return BT_OK;
}

/* ---- stop, join ---- */

void play_request_stop(struct play *p)
{
	pthread_mutex_lock(&p->mu);
	p->stop = true;
	atomic_fetch_add(&p->ctl_seq, 1);
	pthread_cond_broadcast(&p->cv_pub);
	pthread_cond_broadcast(&p->cv_reader);
	pthread_mutex_unlock(&p->mu);
}

bool play_done(const struct play *p)
{
	return atomic_load(&((struct play *)p)->state) == PLAY_STATE_DONE;
}

bool play_wait(struct play *p, int64_t timeout_ns)
{
	int64_t until = timeout_ns < 0 ? INT64_MAX : bt_time_monotonic_ns() + timeout_ns;
	pthread_mutex_lock(&p->mu);
	while (!play_done(p) && bt_time_monotonic_ns() < until) {
		if (until == INT64_MAX) {
			pthread_cond_wait(&p->cv_done, &p->mu);
		} else {
			struct timespec ts = bt_time_timespec(until);
			(void)pthread_cond_timedwait(&p->cv_done, &p->mu, &ts);
		}
	}
	pthread_mutex_unlock(&p->mu);
	return play_done(p);
}

bt_status play_join(struct play *p, struct bt_error *err)
{
	if (!p->joined) {
		p->joined = true;
		if (p->pub_started)
			pthread_join(p->pub_thr, NULL);
		play_request_stop(p); /* the reader and clock end with the publisher */
		if (p->reader_started)
			pthread_join(p->reader_thr, NULL);
		if (p->clock_started)
			pthread_join(p->clock_thr, NULL);
		pthread_mutex_lock(&p->mu);
		play_finish_locked(p);
		struct play_msg *left = play_queue_take_all(p);
		pthread_mutex_unlock(&p->mu);
		play_msgs_free(left);
		play_svc_stop(p->svc); /* no burst ends after the threads: none left */
		p->svc = NULL;
		if (p->pp > 0)
			(void)btdds_participant_delete(p->pp);
		p->pp = 0;
		bag_reader_close(p->rd);
		p->rd = NULL;
	}
	if (p->result != BT_OK && err)
		*err = p->err;
	return p->result;
}

void play_free(struct play *p)
{
	if (!p)
		return;
	play_request_stop(p);
	bt_status ignored = play_join(p, NULL); /* the caller wanted no result */
	(void)ignored;
	play_topics_free(p);
	pthread_cond_destroy(&p->cv_pub);
	pthread_cond_destroy(&p->cv_reader);
	pthread_cond_destroy(&p->cv_written);
	pthread_cond_destroy(&p->cv_done);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->view_mu);
	for (size_t i = 0; i < p->n_skipped; i++)
		free(p->skipped[i]);
	free(p->skipped);
	free(p->bag_path);
	free(p->qos_path);
	free(p->node_name);
	free(p);
}
