/* play__player — the player's private state, shared by its files:
 * play_player.c (start, join, controls, view), play_topics.c (the topic
 * table), play_reader.c ("play-reader"), play_pub.c ("play-pub"),
 * play_clock.c ("play-clock").
 *
 * One mutex (mu) guards the queue and the playing state; critical
 * sections only move pointers and numbers: no I/O, no DDS call under it.
 * The per-topic counters are relaxed atomics (written by the publisher,
 * read by the view). */
#ifndef PLAY__PLAYER_H
#define PLAY__PLAYER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <dds/dds.h>

#include "bag_reader.h"
#include "bag_types.h"
#include "btdds_names.h"
#include "btdds_raw.h"
#include "btdds_service.h"
#include "bt_lathist.h"
#include "bt_rate.h"
#include "play.h"
#include "play_sched.h"
#include "play_svcreq.h"

/* Before a deadline further away than this the publisher waits on its
 * condition variable (a control wakes it); the last stretch is one
 * clock_nanosleep to the absolute deadline. */
#define PLAY_SPIN_NS INT64_C(2000000)
/* How long a player of service requests waits at the start for servers
 * it has not discovered yet (without --wait-for-subscribers). */
#define PLAY_SERVERS_WAIT_NS INT64_C(2000000000)
/* ... and at the end for the replies to the requests it sent. */
#define PLAY_REPLIES_WAIT_NS INT64_C(1000000000)

enum play_msg_kind {
	PLAY_MSG_DATA,
	PLAY_MSG_PASS_END, /* the reader reached the window's end */
};

/* A queued message. DATA: the header of a sample made by the reader
 * (btdds_raw_out_new: the recorded bytes, copied once, in the buffer that
 * goes out), so the publisher only writes it; freed by play_msg_free or
 * given up by the write. PASS_END: malloc'd. */
struct play_msg {
	struct play_msg *next;
	enum play_msg_kind kind;
	bool more;    /* PASS_END: the reader goes on with the next pass */
	uint32_t gen; /* the position generation it was read for */
	size_t topic; /* index into play.topics */
	int64_t t;    /* recorded time */
	size_t len;
	int64_t deadline; /* DATA in a run the publisher took: when it was due */
};

struct play_topic {
	/* name, type: as in the bag; dds_name, dds_type: what is published
	 * (dds_name remapped) */
	struct btdds_topic_names names;
	bool keyed;
	struct bag_qos qos; /* the writer's profile */
	bool qos_recorded, qos_overridden;
	_Atomic uint64_t total; /* in the window (one pass) */
	dds_entity_t writer;
	const struct btdds_raw_type *raw_type; /* writer's, for btdds_raw_out_new */
	_Atomic uint64_t published, bytes, late, failed;
	_Atomic int64_t max_late;
	_Atomic uint32_t matched;
	atomic_bool muted;
	bool clock_trigger; /* --clock-topics: /clock goes out before each message */
	/* --publish-service-requests: this service event topic goes out as
	 * requests of its service (names: the request topic and type), on
	 * the client's ends; NULL for a topic. A request with no server
	 * matched is not sent (unserved; said once: no_server_said, the
	 * publisher's). Replies with the client's guid (play_svcreq_guid) are
	 * counted in answered by a listener on the reply reader. */
	struct play_svcreq *svcreq;
	struct btdds_svc_ends svc_ends;
	bool no_server_said;
	_Atomic uint64_t answered, unserved;
	/* Steps and bursts (untimed writes) wait for reliable readers' acks
	 * every step_window writes, so that a KEEP_LAST writer does not drop
	 * what they have not got yet: its depth when reliable, else 0 (no
	 * wait; KEEP_ALL blocks by itself). Set with the writer; the rest is
	 * the publishing thread's. */
	uint32_t step_window;
	uint32_t step_unacked; /* untimed writes since the last acknowledged one */
	bool step_slow;        /* a reader did not acknowledge in time: not waited for again */
	struct bt_rate rate; /* view_mu */
};

struct play {
	struct play_options o; /* strings below are the player's copies */
	char *bag_path;
	char *qos_path;
	struct bag_reader *rd; /* opened by start; the reader thread's after */
	unsigned open_flags;   /* bag_reader_open's, for every reopening */
	char **skipped;        /* storage files that could not be read (set at start) */
	size_t n_skipped;
	size_t *topic_of;      /* bag topic index -> play topic, SIZE_MAX: not played */
	size_t n_bag_topics;
	struct play_topic *topics;
	size_t n_topics;
	int64_t bag_start, bag_end;
	int64_t win_start, win_end; /* inclusive */
	bool whole_window;          /* totals known from the summary */

	dds_entity_t pp, clock_writer;

	pthread_mutex_t mu;
	pthread_cond_t cv_pub, cv_reader, cv_done;
	pthread_cond_t cv_written; /* `writing` went false */
	/* Under mu: */
	struct play_msg *head, *tail;
	size_t q_count, q_bytes;
	bool stop;
	uint32_t gen;      /* bumped by a seek: the reader repositions */
	int64_t seek_to;   /* where the reader starts for gen */
	struct play_sched sched;
	bool loop;
	uint32_t loop_index;
	uint64_t steps; /* play_next / play_burst messages not yet published */
	play_burst_fn burst_fn; /* the burst under way, or NULL */
	void *burst_ctx;
	uint64_t burst_done;    /* published by it so far */
	bool reader_waiting; /* the reader ended its pass and waits for a seek */
	bool reader_full;    /* the reader waits for room in the queue */
	bool writing;        /* the publisher writes a message outside mu */
	/* --wait-for-subscribers: not every topic has one yet. Set before the
	 * threads start, cleared by the publisher alone (which reads it unlocked). */
	bool waiting_subs;
	int64_t subs_wait_end; /* when that wait ended (monotonic), 0 until then */
	/* Without --wait-for-subscribers, a player of service requests waits
	 * for their servers alone (servers_only), until subs_wait_limit
	 * (monotonic; 0: no limit). Set with waiting_subs. */
	bool servers_only;
	int64_t subs_wait_limit;
	char warning[256];
	bt_status result;
	struct bt_error err;
	_Atomic int state; /* enum play_state */
	/* Bumped under mu by every control and by a stop: the publisher
	 * writing a run of due messages outside mu stops at it. */
	_Atomic uint32_t ctl_seq;
	_Atomic uint32_t clock_published;

	/* How late each timed write went out (the publishing thread adds). */
	struct bt_lathist late_hist;

	pthread_mutex_t view_mu; /* the rates; never taken with mu */
	int64_t started_wall;

	struct play_svc *svc; /* the node and its services (node_name), or NULL */
	char *node_name;      /* o.node_name's copy */

	pthread_t reader_thr, pub_thr, clock_thr;
	bool reader_started, pub_started, clock_started, joined;
};

/* Under mu (or before the threads): the state while not ended, `paused`
 * or not: PAUSED, else WAITING_SUBSCRIBERS until every topic has a
 * subscriber (--wait-for-subscribers), else PLAYING. */
static inline enum play_state play_state_for(const struct play *p, bool paused)
{
	if (paused)
		return PLAY_STATE_PAUSED;
	return p->waiting_subs ? PLAY_STATE_WAITING_SUBSCRIBERS : PLAY_STATE_PLAYING;
}

/* play_topics.c: builds the topic table from the bag and the options
 * (selection, remaps, QoS). BT_ERR_USAGE for the options' mistakes. */
BT_MUST_CHECK bt_status play_topics_build(struct play *p, struct bt_error *err);
void play_topics_free(struct play *p);
/* Creates every topic's writer (and /clock's) on p->pp. */
BT_MUST_CHECK bt_status play_topics_create_writers(struct play *p, struct bt_error *err);

/* play_reader.c / play_pub.c / play_clock.c: the thread bodies. */
void *play_reader_main(void *arg);
void *play_pub_main(void *arg);
void *play_clock_main(void *arg);
/* Publishes bag time t on /clock (clock_writer), counted in
 * clock_published; any thread. */
void play_clock_publish(struct play *p, int64_t t);

/* A burst's end, taken under mu and told outside it (play_burst_told). */
struct play_burst_end {
	play_burst_fn fn; /* NULL: nothing to tell */
	void *ctx;
	uint64_t n;
};
/* Under mu: when steps ran out (or `force`), ends the burst under way and
 * returns what to tell; steps are cleared when forced. */
struct play_burst_end play_burst_take_locked(struct play *p, bool force);
/* Outside mu: tells it. */
void play_burst_told(const struct play_burst_end *e);

/* Frees one message (outside mu). */
void play_msg_free(struct play_msg *m);
/* Frees a chain of messages (outside mu). */
void play_msgs_free(struct play_msg *m);
/* Under mu: takes everything queued off the queue and returns it. */
struct play_msg *play_queue_take_all(struct play *p);
/* Sets the warning once (under mu), logs it. */
void play_warn_locked(struct play *p, const char *msg);
/* Ends playing (under mu): state DONE, everyone woken. */
void play_finish_locked(struct play *p);

#endif
