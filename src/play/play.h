/* play — the player: republishes a bag onto DDS with its recorded timing
 * and QoS (`bagtop play`). Any bag the store reads (bagtop's own, rosbag2's
 * sqlite3 schemas 1..4 compressed or not, MCAP) through bag_reader.
 *
 * DESIGN. Three threads, all started by play_start and joined by
 * play_join (or play_free):
 *  - "play-reader" reads ahead through bag_reader into a queue bounded in
 *    messages (read_ahead_count) and bytes (read_ahead_bytes), so disk
 *    and decompression never stall publishing; each message is queued as
 *    the DDS sample that will go out (btdds_raw_out_new: the one copy). A
 *    seek, restart or the next loop makes it reopen/skip; the queue is
 *    then flushed.
 *  - "play-pub" first, with wait_for_subscribers, waits until each topic
 *    played but a muted one has a matched reader (polling the writers'
 *    match counts; the schedule is held at its start meanwhile), then
 *    pops the queue and publishes each message's recorded CDR
 *    bytes unchanged (btdds_raw writer on the topic's DDS name and type),
 *    sleeping to absolute deadlines (clock_nanosleep TIMER_ABSTIME on
 *    CLOCK_MONOTONIC): deadline = anchor_wall + (t_bag - anchor_bag) / rate.
 *    A late message does not push the next; while the next one is due
 *    already, writes share packets (Cyclone's write batching, flushed as
 *    soon as the next one is not due). Every control that changes
 *    the timing (pause/resume, rate, seek, restart, loop) re-anchors the
 *    schedule at the current bag time, so deadlines stay consistent.
 *  - "play-clock" (only with clock_hz > 0) publishes
 *    rosgraph_msgs/msg/Clock on /clock from the bag time the schedule is
 *    at, clock_hz times per second (wall).
 *
 * Ownership: the player owns the reader, the participant, its writers and
 * every queued message; options are copied by play_start (strings too), so
 * the caller's may go away after it returns.
 *
 * Thread-safety: play_start / play_join / play_free from the owning thread.
 * play_request_stop, every control (play_pause ... play_set_topic_muted)
 * and play_view_get from any thread (a UI thread, a signal thread, a
 * service), concurrently; none does I/O or DDS (a control only changes
 * state under the player's mutex and wakes the threads); a pause waits
 * for the one write in flight, if any, so nothing goes out after it. Not from
 * a signal handler: turn the signal into a wake-up first.
 *
 * Teardown (play_join): stop requested or the end reached → reader joined
 * → publisher joined (after the last write) → waiting for acks
 * (wait_for_acked_ns) → clock thread joined → writers and participant
 * deleted → bag closed. */
#ifndef PLAY_H
#define PLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"
#include "btdds_select.h"

struct btdds_env;

/* rosbag2's --read-ahead-queue-size default. */
#define PLAY_READ_AHEAD_DEFAULT 1000u
/* Default byte bound of the read-ahead queue. */
#define PLAY_READ_AHEAD_BYTES_DEFAULT ((size_t)64 << 20)
/* --clock without a value: rosbag2's 40 Hz. */
#define PLAY_CLOCK_HZ_DEFAULT 40.0
/* A message published more than this behind its deadline counts as late. */
#define PLAY_LATE_NS INT64_C(1000000)
/* Rates play_set_rate accepts. */
#define PLAY_RATE_MIN 0.001
#define PLAY_RATE_MAX 1000000.0

/* One --remap OLD:=NEW rule; either side a ROS ("/x") or DDS ("rt/x")
 * topic name. */
struct play_remap {
	const char *from;
	const char *to;
};

/* A --start / --end bound, as `bagtop convert` parses it
 * (app_convert_time_parse): ns since the epoch, or (rel) ns after the
 * bag's first message. */
struct play_bound {
	bool given;
	bool rel;
	int64_t ns;
};

struct play_options {
	const char *bag_path; /* bag directory or storage file */
	uint32_t domain_id;   /* BTDDS_DOMAIN_DEFAULT: ROS_DOMAIN_ID / Cyclone's */
	const struct btdds_env *env; /* NULL: Cyclone's own configuration */

	double rate;          /* -r; > 0 (PLAY_RATE_MIN..PLAY_RATE_MAX) */
	bool loop;            /* -l */
	uint32_t loop_count;  /* --loop-count N: play N times (N >= 1, implies
			       * loop); 0 = forever when loop */

	/* Selection, as `ros2 bag play`: explicit topics and services (every
	 * one must be in the bag, else BT_ERR_USAGE), -e, -x,
	 * --exclude-topics, --exclude-services; none of topics, services or
	 * -e: every topic. Names ROS or DDS. `all`, `include_hidden` and
	 * `include_services` are the player's to set (a bag holds what was
	 * chosen when it was recorded). */
	struct btdds_select_options select;

	const struct play_remap *remaps; /* -m OLD:=NEW, first match wins */
	size_t n_remaps;

	double clock_hz;          /* --clock: 0 = no /clock */
	/* --clock-topics / --clock-topics-all (not with clock_hz): /clock
	 * goes out right before each message of these topics (ROS or DDS
	 * names, each in the bag, else BT_ERR_USAGE) / of every topic, with
	 * that message's recorded time. Whenever the player publishes /clock,
	 * the bag's own /clock topic is not played (as rosbag2's --clock). */
	const char *const *clock_topics;
	size_t n_clock_topics;
	bool clock_topics_all;
	int64_t delay_ns;         /* -d: wall delay before the first message */
	int64_t start_offset_ns;  /* --start-offset: after the bag's start (>= 0) */
	int64_t playback_duration_ns; /* --playback-duration; < 0: none */
	int64_t playback_until_ns;    /* --playback-until-*: bag time; < 0: none */
	struct play_bound start, end; /* --start / --end: window [start, end) */
	bool start_paused;        /* -p */
	/* --wait-for-subscribers (ROS 1 rosbag's): nothing is published until
	 * every topic played has a subscriber (a matched reader); the
	 * schedule, -d included, starts then. */
	bool wait_for_subscribers;
	int64_t wait_for_acked_ns; /* --wait-for-all-acked: < 0 = do not wait */
	const char *qos_overrides_path; /* --qos-profile-overrides-path; NULL none */
	size_t read_ahead_count;  /* --read-ahead-queue-size; 0 = default */
	size_t read_ahead_bytes;  /* 0 = PLAY_READ_AHEAD_BYTES_DEFAULT */
	bool strict;              /* --strict: a damaged bag is refused */
	/* --node-name: the ROS 2 node the player is (btdds_node, listing its
	 * services) and whose rosbag2 player services it serves (play_svc.h)
	 * on its participant; NULL: neither (--no-remote-control). */
	const char *node_name;
	bool humble; /* the node as Humble's player: its services, its graph layout */
	/* --publish-service-requests: service event topics are played as calls
	 * of their services (play_svcreq.h), from the server's events, or the
	 * clients' when `service_requests_from_clients`
	 * (--service-requests-source client_introspection). */
	bool publish_service_requests;
	bool service_requests_from_clients;
};

/* Fills *o with the defaults (rate 1, no window, no clock, no wait,
 * BTDDS_DOMAIN_DEFAULT, no env). */
void play_options_init(struct play_options *o);

enum play_state {
	PLAY_STATE_PLAYING,
	PLAY_STATE_PAUSED,
	PLAY_STATE_WAITING_SUBSCRIBERS, /* --wait-for-subscribers, before playing */
	PLAY_STATE_WAITING_ACKS, /* everything published; --wait-for-all-acked */
	PLAY_STATE_DONE,         /* ended, stopped or failed: nothing more goes out */
};

/* What a control did. */
enum play_result {
	PLAY_OK = 0,
	PLAY_REFUSED_DONE,       /* playing has ended (or is stopping) */
	PLAY_REFUSED_NOT_PAUSED, /* play_next while playing */
	PLAY_REFUSED_AT_END,     /* play_next with nothing left in the window */
	PLAY_REFUSED_BAD_VALUE,  /* a rate, time or topic index out of range */
	PLAY_REFUSED_BUSY,       /* play_burst while another burst is under way */
};

/* One line for the user ("ok", "not paused", ...). */
const char *play_result_str(enum play_result r);

struct play;

/* Opens the bag, resolves the selection, window, remaps and QoS, joins the
 * domain, creates the writers and starts the threads (paused when
 * start_paused). Errors: BT_ERR_USAGE (an option: an unknown topic in
 * topics, a bad remap rule, a bad regex, a rate out of range, --end
 * before --start, a bad profile in the overrides file), the
 * reader's error naming the file (a bag that does not open; with strict,
 * also a bag with a missing, truncated or corrupt file), BT_ERR_DDS (exit
 * status 3). Without strict, a damaged bag opens what can be read, one
 * line naming each file left out (play_skipped lists them), and
 * play_warning says so. Nothing is left running on error. */
BT_MUST_CHECK bt_status play_start(const struct play_options *opt, struct play **out,
				   struct bt_error *err);
/* Asks every thread to stop at once (any thread; idempotent): the
 * publisher writes nothing more, acks are not waited for. */
void play_request_stop(struct play *p);
/* True once playing is over (DONE): the end reached (and acks waited
 * for), stopped, or failed. Any thread; does not block. */
bool play_done(const struct play *p);
/* Waits until DONE or `timeout_ns` of wall time (< 0: no limit). Any
 * thread. Returns play_done(). */
bool play_wait(struct play *p, int64_t timeout_ns);
/* Waits until DONE, joins the threads and releases DDS and the bag (see
 * the teardown above). Returns BT_OK, or the first error (a read error
 * mid-bag with strict) with *err filled; writes DDS refused are counted
 * (play_topic_view.failed), not errors.
 * Idempotent: later calls return the first call's result. The view stays
 * readable until play_free. */
BT_MUST_CHECK bt_status play_join(struct play *p, struct bt_error *err);
/* Requests a stop, joins if needed and frees. NULL is fine. */
void play_free(struct play *p);

/* ---- Controls (any thread; none blocks but a pause, on a write in flight) ---- */

enum play_result play_pause(struct play *p);
enum play_result play_resume(struct play *p);
enum play_result play_toggle_pause(struct play *p);
/* While paused: publishes the next selected (unmuted) message at once and
 * stays paused; the schedule moves to its time. Returns when it is queued
 * for the publishing thread (PLAY_OK), not after the write. */
enum play_result play_next(struct play *p);
/* Called once when a burst is over, with how many messages it published:
 * from the publishing thread, or from the thread of the control that ended
 * it early (pause, resume, seek, restart), never under the player's lock.
 * Must not block. */
typedef void (*play_burst_fn)(void *ctx, uint64_t published);
/* While paused: publishes the next n selected (unmuted) messages (n 0:
 * every one left in this pass) at once, one after the other, and stays
 * paused, as rosbag2's Burst. Returns at once; done(ctx, count) tells
 * when it is over: n published, the end of the window reached, a stop,
 * or a control that moves or unpauses the schedule. Not PLAY_OK: done
 * is not called. REFUSED_BUSY while another burst is under way. */
enum play_result play_burst(struct play *p, uint64_t n, play_burst_fn done, void *ctx);
/* Sets the rate (PLAY_RATE_MIN..PLAY_RATE_MAX, else BAD_VALUE); takes
 * effect at once (re-anchored at the current bag time). */
enum play_result play_set_rate(struct play *p, double rate);
/* rate *= factor (↑ ×1.1, ↓ ÷1.1), clamped to the range. */
enum play_result play_multiply_rate(struct play *p, double factor);
/* Moves the current bag time by delta_ns (±), clamped to the window. */
enum play_result play_seek_by(struct play *p, int64_t delta_ns);
/* Moves to bag time t (ns since the epoch); BAD_VALUE outside the window. */
enum play_result play_seek_to(struct play *p, int64_t t);
/* Back to the window's start (Home); the loop counter is kept. */
enum play_result play_restart(struct play *p);
/* Switches looping on/off; *now_on (may be NULL) is the new setting. */
enum play_result play_toggle_loop(struct play *p, bool *now_on);
/* Mutes (skips) or unmutes topic `index` (play_view topic order, stable
 * for the player's life); BAD_VALUE for a bad index. */
enum play_result play_set_topic_muted(struct play *p, size_t index, bool muted);
enum play_result play_toggle_topic_muted(struct play *p, size_t index);

/* ---- View (a snapshot the UI copies at its update rate) ---- */

struct play_topic_view {
	/* Strings owned by the player, valid until play_free. */
	const char *name;     /* ROS name as in the bag ("/chatter") */
	const char *type;     /* "std_msgs/msg/String" */
	const char *dds_name; /* what it is published on (after remap) */
	bool reliable;        /* the writer's QoS */
	bool transient_local;
	uint32_t depth;       /* history depth (KEEP_LAST) */
	bool qos_recorded;    /* the recorded QoS (all publishers agreed), else defaults */
	bool qos_overridden;  /* from --qos-profile-overrides-path */
	uint64_t published;   /* messages written (this loop and before) */
	uint64_t total;       /* messages of the topic in the window (one pass) */
	uint64_t bytes;       /* payload bytes written */
	double hz;            /* over bt_rate's sliding window */
	double bytes_per_s;
	uint32_t matched;     /* subscribers matched now */
	uint64_t late;        /* published > PLAY_LATE_NS behind schedule */
	int64_t max_late_ns;
	uint64_t failed;      /* writes DDS refused */
	bool muted;
	/* --publish-service-requests: a service event topic played as requests
	 * (published counts the requests sent); the replies to them taken, and
	 * requests not sent for want of a server. */
	bool service;
	uint64_t answered, unserved;
};

struct play_view {
	enum play_state state;
	const char *bag_path;  /* owned by the player, valid until play_free */
	int64_t bag_start;     /* first message of the bag, ns since epoch */
	int64_t bag_end;       /* last message of the bag */
	int64_t window_start;  /* what is played: [window_start, window_end] */
	int64_t window_end;
	int64_t bag_now;       /* the bag time the schedule is at */
	int64_t wall_elapsed_ns; /* wall time since playing started, pauses included */
	int64_t waited_subs_ns;  /* of it, waiting for subscribers (--wait-for-subscribers) */
	int64_t wall_total_ns;   /* the window at the current rate (one pass) */
	int64_t wall_remaining_ns; /* of this pass at the current rate */
	double rate;
	bool loop;
	uint32_t loop_index;  /* 1-based pass number */
	uint32_t loop_count;  /* 0 = forever (or no loop) */
	uint64_t published;   /* sums over the topics */
	uint64_t total;
	uint64_t late;
	int64_t max_late_ns;
	/* How late the timed writes went out, p50 and p99 (within 1 µs under
	 * 1 ms, bt_lathist.h); steps and bursts are not timed. */
	int64_t late_p50_ns, late_p99_ns;
	uint64_t failed;
	uint32_t clock_published; /* /clock messages (mod 2^32) */
	size_t n_topics;          /* in the player (may exceed the array given) */
	/* Why part of the bag is not played ("x_1.db3: truncated: playing
	 * what can be read"), or "" */
	char warning[256];
};

/* Whether the player is paused now (cheap: no rates sampled). Any thread. */
bool play_paused(struct play *p);
/* The rate now. Any thread. */
double play_rate(struct play *p);
/* The window played, [*start, *end] in ns since the epoch; fixed after
 * play_start. */
void play_window(const struct play *p, int64_t *start, int64_t *end);

/* Number of topics played (selected), fixed after play_start. */
size_t play_n_topics(const struct play *p);
/* Copies the view; topics[0..min(cap, n)) filled (topics may be NULL
 * with cap 0). Rates are sampled at each call (call it at the UI's tick;
 * one caller at a time gets meaningful rates). Any thread. */
void play_view_get(struct play *p, struct play_view *v, struct play_topic_view *topics,
		   size_t cap);
/* The warning of the view (or NULL when none); valid until play_free. */
const char *play_warning(const struct play *p);
/* The bag's storage files left out because they could not be read
 * (missing, truncated, not a database, no permission; never with strict),
 * paths on disk; *n of them. Set by play_start; valid until play_free. */
const char *const *play_skipped(const struct play *p, size_t *n);

#endif
