/* bag_types — the plain data of a rosbag2 bag, shared by writer, reader and
 * metadata. Strings are malloc'ed and owned by the struct that holds them;
 * the *_fini functions free them. Field names follow rosbag2's BagMetadata
 * and TopicMetadata so rosbag2 users recognise them. */
#ifndef BAG_TYPES_H
#define BAG_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_counters.h"

/* rmw enum numbers, as stored by rosbag2 up to metadata version 8. */
enum bag_history { BAG_HISTORY_SYSTEM_DEFAULT, BAG_HISTORY_KEEP_LAST, BAG_HISTORY_KEEP_ALL,
		   BAG_HISTORY_UNKNOWN };
enum bag_reliability { BAG_RELIABILITY_SYSTEM_DEFAULT, BAG_RELIABILITY_RELIABLE,
		       BAG_RELIABILITY_BEST_EFFORT, BAG_RELIABILITY_UNKNOWN,
		       BAG_RELIABILITY_BEST_AVAILABLE };
enum bag_durability { BAG_DURABILITY_SYSTEM_DEFAULT, BAG_DURABILITY_TRANSIENT_LOCAL,
		      BAG_DURABILITY_VOLATILE, BAG_DURABILITY_UNKNOWN,
		      BAG_DURABILITY_BEST_AVAILABLE };
enum bag_liveliness { BAG_LIVELINESS_SYSTEM_DEFAULT, BAG_LIVELINESS_AUTOMATIC,
		      BAG_LIVELINESS_MANUAL_BY_NODE, BAG_LIVELINESS_MANUAL_BY_TOPIC,
		      BAG_LIVELINESS_UNKNOWN, BAG_LIVELINESS_BEST_AVAILABLE };

/* rmw_time_t; RMW_DURATION_INFINITE is {9223372036, 854775807}. */
struct bag_qos_time {
	uint64_t sec;
	uint64_t nsec;
};

#define BAG_QOS_TIME_INFINITE ((struct bag_qos_time){9223372036u, 854775807u})

struct bag_qos {
	int history; /* enum bag_history */
	uint64_t depth;
	int reliability; /* enum bag_reliability */
	int durability;  /* enum bag_durability */
	struct bag_qos_time deadline;
	struct bag_qos_time lifespan;
	int liveliness; /* enum bag_liveliness */
	struct bag_qos_time liveliness_lease_duration;
	bool avoid_ros_namespace_conventions;
};

struct bag_topic {
	char *name;                 /* "/chatter" */
	char *type;                 /* "std_msgs/msg/String" */
	char *serialization_format; /* "cdr" */
	struct bag_qos *qos;        /* offered QoS, one per publisher */
	size_t n_qos;
	char *type_description_hash; /* "RIHS01_..." or "" */
};

/* One row of message_definitions. All strings may be "" (unknown). */
struct bag_msgdef {
	char *topic_type;
	char *encoding; /* "ros2msg", "ros2idl", "unknown" or "" */
	char *encoded_message_definition;
	char *type_description_hash;
};

struct bag_kv {
	char *key;
	char *value;
};

/* Messages lost, per cause (bagtop's own figures; rosbag2 has none): one
 * member per row of BAG_LOSS_CAUSES (bag_counters.h), which says what each
 * is and whether it is lost in transport or in the recorder. */
struct bag_losses {
	union {
		uint64_t n[BAG_LOSS_N_CAUSES]; /* by enum bag_loss_cause */
		struct {
#define BAG_LOSS_X_FIELD(field, yaml, idl, json, label, col, group, required) uint64_t field;
			BAG_LOSS_CAUSES(BAG_LOSS_X_FIELD)
#undef BAG_LOSS_X_FIELD
		};
	};
};

/* Cause `c` (enum bag_loss_cause) of `l`, by index. */
static inline uint64_t *bag_losses_at(struct bag_losses *l, enum bag_loss_cause c)
{
	return &l->n[c];
}

static inline uint64_t bag_losses_get(const struct bag_losses *l, enum bag_loss_cause c)
{
	return l->n[c];
}

void bag_losses_add(struct bag_losses *to, const struct bag_losses *d);
/* `now - was`, cause by cause (counters that only grow). */
struct bag_losses bag_losses_sub(const struct bag_losses *now, const struct bag_losses *was);
bool bag_losses_any(const struct bag_losses *l);
/* Sums of the causes of the group: lost in transport, in the recorder. */
uint64_t bag_losses_group(const struct bag_losses *l, enum bag_loss_group g);
uint64_t bag_losses_transport(const struct bag_losses *l);
uint64_t bag_losses_recorder(const struct bag_losses *l);

/* Recording statistics of one topic, for the whole bag or for one file:
 * bagtop's additional keys of every layout (`statistics` under a
 * topics_with_message_count entry, `topics_statistics` under a files
 * entry). Only what was measured is ever set: a bag written by rosbag2 has
 * none (has_stats false), and a bag reindexed without its metadata knows
 * what the files hold but not what was lost (losses_known false). */
struct bag_stats {
	uint64_t messages_recorded; /* committed to the bag */
	uint64_t bytes_written;     /* serialized bytes (CDR, before MESSAGE compression) */
	/* messages_recorded / duration in seconds, where duration is the bag's
	 * (topic totals) or the file's (file entries) `duration` key: last
	 * minus first message. 0 when that duration is 0. */
	double average_rate_hz;
	bool losses_known;
	uint64_t lost_in_transport;
	uint64_t lost_in_recorder;
	bool has_causes; /* the breakdown of the two: topic totals only */
	struct bag_losses causes;
};

/* The rate as defined above. */
double bag_stats_rate(uint64_t messages, int64_t duration_ns);

/* last - first in ns, the duration of a time range: timestamps in a file
 * may be anything from INT64_MIN to INT64_MAX, so a difference that does
 * not fit is INT64_MAX, and a range that ends before it starts is 0. */
int64_t bag_span(int64_t first, int64_t last);

struct bag_topic_info {
	struct bag_topic topic;
	uint64_t message_count;
	bool has_stats;
	struct bag_stats stats;
};

struct bag_file_topic_stats {
	char *topic; /* name */
	struct bag_stats stats;
};

struct bag_file_info {
	char *path;            /* bare file name, as rosbag2 writes it */
	int64_t starting_time; /* ns; INT64_MAX when the file holds no message */
	int64_t duration;      /* ns */
	uint64_t message_count;
	bool has_stats;        /* topics_stats is the file's `topics_statistics` */
	struct bag_file_topic_stats *topics_stats;
	size_t n_topics_stats;
};

#define BAG_TIME_NONE INT64_MAX

struct bag_metadata {
	int version;
	char *storage_identifier;
	int64_t duration;      /* ns */
	int64_t starting_time; /* ns since epoch; INT64_MAX for an empty bag */
	uint64_t message_count;
	struct bag_topic_info *topics;
	size_t n_topics;
	char *compression_format; /* "" or "zstd" */
	char *compression_mode;   /* "", "FILE" or "MESSAGE" */
	char **relative_file_paths;
	size_t n_paths;
	struct bag_file_info *files;
	size_t n_files;
	struct bag_kv *custom_data;
	size_t n_custom_data;
	char *ros_distro;
	/* bagtop's addition (message_definition_sources, after every rosbag2
	 * key, only when not empty): per type whose definition a node was
	 * asked for, where it came from ("get_type_description (node /x)") or
	 * why it is missing. */
	struct bag_kv *def_sources;
	size_t n_def_sources;
};

#define BAG_METADATA_VERSION 9

void bag_qos_default(struct bag_qos *q); /* "unknown" history, infinite times */
void bag_topic_fini(struct bag_topic *t);
/* Deep copy (aborts on OOM: not a data-path call). */
void bag_topic_copy(struct bag_topic *dst, const struct bag_topic *src);
void bag_msgdef_fini(struct bag_msgdef *d);
void bag_msgdef_copy(struct bag_msgdef *dst, const struct bag_msgdef *src);
/* Deep copy of n pairs (NULL when n is 0; aborts on OOM); and its free. */
struct bag_kv *bag_kv_dup(const struct bag_kv *src, size_t n);
void bag_kv_free(struct bag_kv *kv, size_t n);
/* Sets key's value (both copied), appending the pair if the key is new. */
void bag_kv_set(struct bag_kv **kv, size_t *n, const char *key, const char *value);
void bag_metadata_init(struct bag_metadata *md); /* empty v9 sqlite3 bag */
void bag_metadata_fini(struct bag_metadata *md);
void bag_metadata_copy(struct bag_metadata *dst, const struct bag_metadata *src);
/* True when any topic or file entry carries statistics. */
bool bag_metadata_has_stats(const struct bag_metadata *md);
/* Fills the topic totals' statistics from the files' topics_stats: sums
 * over the files that have statistics (the others add nothing), by topic
 * name; losses known only when known in every entry of the topic, causes
 * only when every entry has them; every rate from the bag's and the files'
 * durations. Sets has_stats on every topic. */
void bag_metadata_sum_stats(struct bag_metadata *md);

#endif
