/* rec_qos — what the recorder's reader must request so that it matches
 * every publisher of a topic without ever throttling one (rosbag2's QoS
 * adaptation), with a profile from rosbag2's --qos-profile-overrides-path
 * file (btdds_qos_overrides) applied on top.
 * Pure: no DDS types; the recorder maps these plain structs to dds_qos_t. */
#ifndef REC_QOS_H
#define REC_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_types.h"
#include "bt_status.h"

/* What one publisher offers, from its DCPSPublication sample. */
struct rec_offered {
	struct bag_qos qos;       /* in rosbag2's terms (stored in the bag) */
	const char *const *partitions; /* borrowed; n 0 = the default partition */
	size_t n_partitions;
	bool exclusive_ownership;
	int64_t latency_budget_ns;
};

/* What the recorder's reader requests. */
struct rec_requested {
	bool reliable;
	bool transient_local;
	bool keep_all;        /* only from an override */
	uint32_t depth;       /* KEEP_LAST depth */
	char **partitions;    /* owned; union of the publishers' partitions */
	size_t n_partitions;  /* 0 = default partition */
	bool exclusive_ownership;
	int64_t latency_budget_ns; /* >= every publisher's */
	struct bag_qos_time deadline;                 /* infinite unless overridden */
	struct bag_qos_time liveliness_lease_duration; /* infinite unless overridden */
	int liveliness;                                /* enum bag_liveliness */
	bool overridden;      /* an override named this topic */
};

/* The default KEEP_LAST depth of recorder readers: deep enough that a
 * transient-local burst and a slow take never overwrite anything. */
#define REC_QOS_DEFAULT_DEPTH 1000u

/* Adapts to n publishers (n may be 0: defaults) and applies `ovr` (NULL =
 * none): reliable only if every publisher is, transient-local only if
 * every publisher is, partitions united, ownership and latency budget
 * copied so the reader matches. `force_transient_local` (repeat-TL topics)
 * asks for transient-local when every publisher offers it. */
void rec_qos_adapt(const struct rec_offered *pubs, size_t n, const struct bag_qos *ovr,
		   bool force_transient_local, struct rec_requested *out);
void rec_requested_fini(struct rec_requested *r);
/* Would a reader requesting `r` match a publisher offering `p`? (For
 * warnings: overrides may make the reader incompatible.) */
bool rec_qos_compatible(const struct rec_requested *r, const struct rec_offered *p);

#endif
