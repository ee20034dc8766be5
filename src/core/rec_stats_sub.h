/* rec_stats_sub — the reading side of the live statistics (rec_stats_pub):
 * what `bagtop stats` shows. It joins a domain, reads "BagtopStatistics"
 * (transient-local: every running recorder's latest sample arrives at
 * once) and keeps the latest sample of each recorder as plain structs, so
 * the front end needs no DDS header. Single-threaded: one owner calls
 * everything. */
#ifndef REC_STATS_SUB_H
#define REC_STATS_SUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_types.h"
#include "bt_status.h"
#include "btdds_env.h"

enum rec_stats_state {
	REC_STATS_RECORDING,
	REC_STATS_PAUSED,
	REC_STATS_WRITE_FAILED,
	REC_STATS_STOPPED
};

struct rec_stats_row {
	char *name, *type, *dds_name;
	uint32_t publishers;
	bool subscribed, enabled, reliable, transient_local;
	uint64_t received, recorded, bytes;
	struct bag_losses lost; /* by cause (bag_counters.h) */
	uint64_t lost_transport_total; /* transport + rejected */
	uint64_t lost_recorder_total;  /* every cause lost in the recorder */
	double rate_hz, bandwidth_bps, average_rate_hz;
	int64_t last_receive_time; /* ns since the epoch, 0 = never */
	/* In the storage file being written now. */
	uint64_t file_received;
	double file_average_rate_hz;
	uint64_t file_recorded, file_bytes, file_lost_transport, file_lost_recorder;
};

struct rec_stats_totals {
	uint32_t topics_seen, topics_recorded;
	uint64_t received, recorded, bytes, lost_transport, lost_recorder;
	uint64_t cache_fill, cache_max;
};

/* One recorder's latest statistics sample. */
struct rec_stats_sample {
	char *id, *host, *version, *bag, *current_file;
	int32_t pid;
	int64_t start_time, time; /* ns since the epoch */
	uint64_t serial;
	double update_rate;
	enum rec_stats_state state;
	uint32_t file_index;
	int64_t file_start_time; /* ns since the epoch, 0 = unknown */
	struct rec_stats_totals totals;
	struct rec_stats_row *rows;
	size_t n_rows;
};

struct rec_stats_sub;

/* Called for each sample as it is taken (the latest of its recorder). */
typedef void (*rec_stats_sample_fn)(void *ctx, const struct rec_stats_sample *s);

/* Joins `domain_id` (UINT32_MAX: the default, see btdds_participant_create)
 * with the ROS 2 environment `env` (NULL: Cyclone's configuration only) and
 * creates the reader. BT_ERR_DDS when DDS will not start. */
BT_MUST_CHECK bt_status rec_stats_sub_open(uint32_t domain_id, const struct btdds_env *env,
					   struct rec_stats_sub **out, struct bt_error *err);
/* The id of the domain joined; false when DDS cannot say. */
bool rec_stats_sub_domain(const struct rec_stats_sub *s, uint32_t *id);
/* Waits up to `timeout_ns` for samples, takes every one that arrived and
 * calls `fn` (may be NULL) for each. Returns the number taken (>= 0), or
 * BT_ERR_DDS. */
int rec_stats_sub_poll(struct rec_stats_sub *s, int64_t timeout_ns, rec_stats_sample_fn fn,
		       void *ctx);
/* True when at least one writer is matched and every matched writer has
 * delivered a sample: nothing more is expected. */
bool rec_stats_sub_complete(struct rec_stats_sub *s);
/* The latest sample of each recorder seen, ordered by host, pid, id. */
size_t rec_stats_sub_count(const struct rec_stats_sub *s);
const struct rec_stats_sample *rec_stats_sub_get(const struct rec_stats_sub *s, size_t i);
/* Leaves the domain and frees everything. NULL is fine. */
void rec_stats_sub_close(struct rec_stats_sub *s);

#endif
