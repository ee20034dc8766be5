/* Private to the recorder (rec_recorder.c, rec_discovery.c, rec_sub.c).
 *
 * Threads and what they own:
 *  - the owner (app) thread: start/stop; the participant.
 *  - "rec-discovery": the subscription table (struct rec_sub), every
 *    reader and raw topic; it creates, adapts and deletes readers.
 *  - Cyclone receive threads: run rec_sub listeners, which read a sub's
 *    immutable fields, its atomics, and its sn table under sn_lock.
 *  - "rec-writer" (rec_consumer): the bag writer.
 *  - "rec-typedesc" (rec_typedesc): asks nodes for definitions found
 *    nowhere; the discovery thread queues topics for it.
 *  - "rec-xtypes" (rec_xtypes): resolves plain DDS types' XTypes type
 *    objects; the discovery thread queues topics for it.
 *  - "btdds-svc" (rec_svc): rosbag2's services; it only submits commands
 *    to the command queue.
 * Locks: rec_sub.sn_lock guards only the sequence-number table and is
 * released before the cache is touched; no two locks are ever held. */
#ifndef REC__RECORDER_H
#define REC__RECORDER_H

#include <pthread.h>
#include <stdatomic.h>

#include <dds/dds.h>

#include "btdds_qos_overrides.h"
#include "rec_cache.h"
#include "rec_clock.h"
#include "rec_consumer.h"
#include "rec_events.h"
#include "rec_qos.h"
#include "rec_rates.h"
#include "rec_recorder.h"
#include "rec_stats_pub.h"
#include "rec_svc.h"
#include "rec_typedesc.h"
#include "rec_xtypes.h"

/* One publication (remote writer) of a topic, as discovery saw it. */
struct rec_pub {
	dds_instance_handle_t handle; /* DCPSPublication instance = the writer */
	dds_guid_t guid;              /* the writer's GUID (its gid in ros_discovery_info) */
	struct rec_offered off;       /* partitions point into `parts` */
	char **parts;
	bool has_type_info;
	bool has_complete_id; /* its type information names a complete type: */
	struct DDS_XTypes_TypeIdentifier complete_id;
};

/* Last sequence number seen per publication, for gaps and duplicates. */
struct rec_sn {
	dds_instance_handle_t pub;
	int64_t last; /* REC_SN_HEAD: none yet, and what came before the first counts */
};

/* rec_sn.last of a publication that appeared while recording (noted by the
 * discovery thread before its first message): the first sequence number
 * seen, less one, is what it published before the recorder matched it
 * (counted as `unmatched`). */
#define REC_SN_HEAD INT64_MIN

struct rec_sub {
	struct rec_recorder *r;
	struct rec_topic *tp;
	bool selected;   /* evaluated once, when the topic first appears */
	/* Selected but held back by --ignore-leaf-topics: nobody subscribed
	 * yet (rec_subscribers_alive releases it). */
	bool leaf_held;
	dds_entity_t topic;  /* raw topic, 0 until first subscribed */
	dds_entity_t reader; /* 0 when not subscribed */
	dds_entity_t retiring; /* the reader before a re-adaptation, or 0 */
	int64_t retire_from;   /* monotonic ns: not before (remote writers catch up) */
	int64_t retire_at;     /* monotonic ns: delete `retiring` by then at the latest */
	struct rec_requested req;
	struct rec_pub *pubs; /* alive publications */
	size_t n_pubs, cap_pubs;
	/* The offered QoS profiles the bag lists, one per publisher seen while
	 * the topic is recorded (rosbag2 writes one per publisher), and the
	 * publication each belongs to (0 once it left: the entry stays, since
	 * it published into the bag). Parallel arrays. */
	struct bag_qos *prof_qos;
	dds_instance_handle_t *prof_owner;
	size_t n_prof, cap_prof, cap_prof_owner;
	atomic_bool incompatible_warned;
	bool user_data_warned; /* a publisher's USER_DATA was not understood */
	bool type_hash_warned; /* publishers disagree on the type hash */
	bool xtypes_asked;     /* queued for rec_xtypes once */
	atomic_bool overridden; /* the reader's QoS comes from the overrides file */
	pthread_mutex_t sn_lock;
	struct rec_sn *sns;
	size_t n_sns, cap_sns;
	/* A topic marked for repeating while recorded (rec_sub_fill_start):
	 * a short-lived transient-local reader fetching its publishers'
	 * history into the repeat store only. 0 when none. */
	dds_entity_t fill_reader;
	dds_entity_t fill_cond; /* its read condition, on the discovery waitset */
	int64_t fill_until;     /* monotonic ns: deleted by then at the latest */
	uint32_t fill_depth;
	size_t fill_got;
};

/* A --repeat-transient-local topic, as given and as a DDS name. */
struct rec_repeat_name {
	char *arg;
	char *dds;
	uint32_t depth;
	bool seen; /* discovered */
};

struct rec_recorder {
	struct rec_recorder_options opt;
	struct btdds_select *select;
	/* --use-sim-time: the /clock follower stamping messages (rec_clock.h);
	 * NULL: the real-time clock. Made before discovery, its reader deleted
	 * with the participant, freed by rec_recorder_free; read by listeners,
	 * the consumer, commands and status. */
	struct rec_clock *clock;
	struct btdds_qos_overrides *overrides;
	struct rec_topics *topics;
	struct rec_rates *rates; /* every rate shown, over one window */
	struct rec_cache *cache; /* NULL in snapshot mode */
	struct rec_snap *snap;   /* snapshot mode, else NULL */
	struct rec_tl *tl;       /* repeated transient-local messages */
	struct rec_repeat_name *repeat;
	size_t n_repeat;
	bool repeat_warned;
	struct bag_writer *writer;
	struct rec_consumer *consumer;
	struct rec_stats_pub *stats; /* NULL when off or it could not start */
	struct rec_typedesc *typedesc; /* NULL when it could not start */
	struct rec_xtypes *xtypes;   /* NULL when it could not start */
	struct rec_svc *svc;         /* the services; NULL when none */
	struct btdds_node *node;     /* opt.node_name's, or NULL */
	struct rec_events *events;   /* opt.events and started, else NULL */
	dds_entity_t pp;
	dds_guid_t own_guid;
	dds_entity_t pub_reader; /* DCPSPublication */
	/* DCPSSubscription, only for opt.include_unpublished / ignore_leaf
	 * (else 0), and the other participants' subscriptions alive, by
	 * instance: discovery thread only (rec_subscribers.c). */
	dds_entity_t sub_reader;
	struct rec_foreign_sub *fsubs;
	size_t n_fsubs, cap_fsubs;
	/* The participants whose first publication was seen in the last
	 * DISC_SIBLING_NS, with when (monotonic ns); older ones are dropped
	 * as the list is walked: discovery thread only (rec_discovery.c). */
	struct rec_participant_seen *pps_seen;
	size_t n_pps_seen, cap_pps_seen;
	dds_entity_t waitset;
	dds_entity_t wake;       /* guard condition: stop */
	pthread_t discovery;
	bool discovery_started;
	atomic_bool stopping;
	atomic_bool abandon; /* rec_recorder_abandon: the writer and consumer stop writing */
	atomic_bool paused;
	atomic_bool subscribe_requested; /* some topic's want_subscribe is set */
	/* Per topic index (REC_TOPICS_MAX): the depth a run-time mark asked
	 * the discovery thread to fetch history for, 0 = none. */
	atomic_uint *want_fill;
	atomic_bool fill_requested; /* some want_fill is set */
	struct rec_sub **subs;   /* by topic index; discovery thread only */
	size_t cap_subs;
	/* ROS 2 publications seen with and without a type hash in USER_DATA
	 * (without: Humble or older). Relaxed; any thread reads them. */
	atomic_uint_fast64_t ros_pubs_hash, ros_pubs_no_hash;
	int64_t started_mono;
	int64_t discovery_mono; /* when discovery started (rec_discovery_start) */
	bool explicit_warned;
	bool no_topics_warned;
	bool clock_warned;
	bool stopped;
	bt_status stop_status;
	struct bt_error stop_err;
};

/* rec_sub.c */
struct rec_sub *rec_sub_new(struct rec_recorder *r, struct rec_topic *tp);
void rec_sub_free(struct rec_sub *s); /* reader must be deleted already */
/* Adds or refreshes a publication; (re)subscribes when selected.
 * `appeared`: its participant appeared while recording (rec_discovery.c),
 * so what it published before the match is counted (REC_SN_HEAD). */
void rec_sub_pub_alive(struct rec_sub *s, dds_instance_handle_t ih,
		       const dds_builtintopic_endpoint_t *ep, bool appeared);
/* Selects a topic the selection left out (the user switched it on) or
 * --ignore-leaf-topics held back, and subscribes it when it has
 * publishers. */
void rec_sub_select(struct rec_sub *s);
/* Deletes the reader a re-adaptation replaced once the new one has matched
 * every publisher (or after 2 s). Discovery thread, every tick. */
void rec_sub_tick(struct rec_sub *s);
/* Forgets a publication; true when it was one of this topic's. */
bool rec_sub_pub_gone(struct rec_sub *s, dds_instance_handle_t ih);
/* Deletes the reader (waits for its running callbacks). */
void rec_sub_unsubscribe(struct rec_sub *s);
/* The topic was just marked to repeat its last `depth` messages: when it
 * is recorded and some publisher offers transient-local durability,
 * creates a reader fetching that history (rec_sub_tick takes it into the
 * repeat store, then deletes the reader). Discovery thread. */
void rec_sub_fill_start(struct rec_sub *s, uint32_t depth);

/* --include-unpublished-topics: a selected topic without publishers is
 * subscribed to now (at once when selected). Discovery thread. */
void rec_sub_subscribe_unpublished(struct rec_sub *s);

/* rec_discovery.c */
bt_status rec_discovery_start(struct rec_recorder *r, struct bt_error *err);
void rec_discovery_stop(struct rec_recorder *r);
/* Is `ep` another participant's endpoint on a topic that can be recorded
 * (named, typed, not DDS- or ROS-internal)? */
bool rec_discovery_foreign(const struct rec_recorder *r, const dds_builtintopic_endpoint_t *ep);
/* The topic of endpoint `ep` (a publication or subscription) with its
 * subscription entry, made when new (selection evaluated then); NULL past
 * REC_TOPICS_MAX. Discovery thread. */
struct rec_sub *rec_discovery_sub_for(struct rec_recorder *r,
				      const dds_builtintopic_endpoint_t *ep);

struct rec_participant_seen {
	unsigned char prefix[12]; /* the GUID prefix: the participant */
	int64_t first;            /* monotonic ns */
};

/* rec_subscribers.c: other participants' subscriptions (discovery thread) */
struct rec_foreign_sub {
	dds_instance_handle_t ih;
	char *topic; /* DDS name */
};
/* A subscription appeared: noted; a topic held back as a leaf is
 * released; with include_unpublished, its topic is made and subscribed. */
void rec_subscribers_alive(struct rec_recorder *r, dds_instance_handle_t ih,
			   const dds_builtintopic_endpoint_t *ep);
void rec_subscribers_gone(struct rec_recorder *r, dds_instance_handle_t ih);
/* Does another participant subscribe to DDS topic `dds_name`? */
bool rec_subscribers_has(const struct rec_recorder *r, const char *dds_name);
void rec_subscribers_fini(struct rec_recorder *r);

#endif
