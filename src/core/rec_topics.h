/* rec_topics — the table of every topic the recorder has seen, shared by
 * the discovery thread (adds and describes topics), the DDS listeners
 * (count), the consumer (registers in the bag, counts) and the front end
 * (reads). Append-only: a topic's index and address never change, so a
 * listener holds a `struct rec_topic *` without locking.
 *
 * Publication rule: the discovery thread fills `bag` and `def`, then sets
 * `described` with release order, then creates the reader and sets
 * `subscribed` (release) too; after `described` they are immutable and any
 * thread that reads `described` or `subscribed` true (acquire) may read
 * them. A message of the topic can arrive as soon as its reader exists (a
 * transient-local one at once), before `subscribed` is set: what handles
 * messages looks at `described`. Counters are relaxed atomics. */
#ifndef REC_TOPICS_H
#define REC_TOPICS_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_types.h"
#include "btdds_names.h"
#include "defs.h"
#include "rec_throttle.h"

#define REC_TOPICS_MAX 8192 /* a hard bound on distinct (name, type) pairs */

/* Per-topic counters since start. Received = recorded + every lost_* + throttled +
 * what is still in flight (cache / consumer), once recording is stopped. */
struct rec_topic_stats {
	atomic_uint_fast64_t received;       /* taken from DDS while recording */
	atomic_uint_fast64_t recorded;       /* committed to the bag */
	atomic_uint_fast64_t bytes;          /* payload bytes committed */
	/* Lost, one counter per cause of BAG_LOSS_CAUSES (bag_counters.h),
	 * then the BAG_NOT_LOST ones (throttled): by name, or
	 * lost[enum bag_loss_cause]. */
	union {
		atomic_uint_fast64_t lost[BAG_N_COUNTERS];
		struct {
#define REC_TOPIC_X_LOSS(field, yaml, idl, json, label, col, group, required) \
	atomic_uint_fast64_t field;
			BAG_COUNTERS(REC_TOPIC_X_LOSS)
#undef REC_TOPIC_X_LOSS
		};
	};
	atomic_uint_fast64_t ignored;  /* arrived while paused or switched off: not recorded */
	atomic_uint_fast64_t rx_bytes; /* payload bytes that arrived, recorded or not */
	atomic_uint_fast64_t repeated; /* repeated transient-local copies written */
	/* In the storage file being written now, as the bag's statistics will
	 * say (set by the consumer from the writer's figures). */
	atomic_uint_fast64_t file_recorded, file_bytes, file_lost_transport, file_lost_recorder;
	atomic_uint_fast64_t file_throttled;
	/* `received` when the current file was opened (set by the consumer). */
	atomic_uint_fast64_t file_received_base;
	atomic_int_fast64_t last_recv_time;  /* ns, 0 before the first message */
};

enum rec_def_late {
	REC_DEF_LATE_NONE,    /* not asked (def is final) */
	REC_DEF_LATE_ASKING,  /* a node is being asked */
	REC_DEF_LATE_FOUND,   /* its get_type_description gave the definition */
	REC_DEF_LATE_MISSING, /* no node gave it: the bag keeps the empty row */
};

struct rec_topic {
	uint32_t index;
	/* As recorded ("/chatter", "std_msgs/msg/String", or the DDS ones)
	 * and as discovered ("rt/chatter", "std_msgs::msg::dds_::String_"). */
	struct btdds_topic_names names;
	bool is_ros; /* a ROS 2 topic: both DDS names demangled */
	bool keyed;
	atomic_bool described;  /* bag/def are final (set before the reader) */
	atomic_bool subscribed; /* a reader exists (and described is set) */
	atomic_bool enabled;    /* recording this topic (toggle) */
	atomic_bool want_subscribe; /* switched on by the user though not selected */
	atomic_uint publishers; /* alive publications (discovery) */
	atomic_bool reliable;        /* what the reader requests now */
	atomic_bool transient_local;
	/* "RIHS01_<64 hex>", the type hash the first publisher announcing one
	 * gave in its USER_DATA (Iron and later, REP 2011), or NULL. Set once,
	 * by the discovery thread, which alone reads it; it is copied into
	 * bag and def when the topic is subscribed. */
	char *type_hash;
	struct bag_topic bag;   /* description for the bag (offered QoS...) */
	struct bag_msgdef def;  /* message definition ("" when unknown) */
	enum defs_origin def_origin; /* where def came from (final with def) */
	/* A definition found nowhere is asked of the publishing node
	 * (rec_typedesc): its answer goes to the bag through the consumer,
	 * not into `def`. REC_DEF_LATE_*; any thread reads. */
	atomic_int def_late;
	/* --throttle: the rule (NULL = none) and its bucket, set by the
	 * discovery thread when it first sees the topic, before any reader
	 * exists; then immutable (the bucket's time is atomic). */
	const struct rec_throttle_spec *throttle;
	struct rec_bucket bucket;
	struct rec_topic_stats st;
};

/* The loss counters, read (relaxed) into plain numbers. Any thread. */
struct bag_losses rec_topic_losses(const struct rec_topic_stats *s);
/* Lost in transport / in the recorder: the sums of the groups' causes.
 * Any thread (relaxed reads). */
uint64_t rec_topic_lost_transport(const struct rec_topic_stats *s);
uint64_t rec_topic_lost_recorder(const struct rec_topic_stats *s);
/* Received since the current file was opened (never below 0 while the
 * consumer moves the base). */
uint64_t rec_topic_file_received(const struct rec_topic_stats *s);

struct rec_topics;

struct rec_topics *rec_topics_new(void); /* aborts on OOM (set-up code) */
void rec_topics_free(struct rec_topics *t);
/* Finds the topic (dds_name, dds_type) or appends it with its names
 * derived (ROS names when it is a ROS 2 topic). Only the discovery thread
 * calls this. Returns NULL when REC_TOPICS_MAX is reached. */
struct rec_topic *rec_topics_add(struct rec_topics *t, const char *dds_name,
				 const char *dds_type, bool keyed);
/* Number of topics; any thread. Indices below it are valid. */
size_t rec_topics_count(const struct rec_topics *t);
/* Topic `index` (< rec_topics_count), any thread. */
struct rec_topic *rec_topics_get(const struct rec_topics *t, size_t index);
/* Finds by DDS name and type; NULL if absent. Discovery thread only. */
struct rec_topic *rec_topics_find(const struct rec_topics *t, const char *dds_name,
				  const char *dds_type);

#endif
