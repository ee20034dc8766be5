/* rec_recorder — the recording engine: one DDS participant, a discovery
 * thread ("rec-discovery") that follows DCPSPublication and creates,
 * adapts and deletes raw readers; listeners that only take, copy and push
 * into the cache; the consumer thread that writes the bag.
 *
 * Shutdown (rec_recorder_stop, idempotent), in this order: discovery thread
 * joined → readers deleted (in-flight callbacks finish) → cache closed →
 * consumer drains and is joined → bag closed (compression finished, final
 * metadata written atomically) → participant deleted.
 *
 * Thread-safety: start/stop/free from the owning thread; the command calls
 * (pause, split, status) from any thread. */
#ifndef REC_RECORDER_H
#define REC_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_writer.h"
#include "bt_status.h"
#include "rec_select.h"
#include "rec_topics.h"

#define REC_DOMAIN_DEFAULT UINT32_MAX /* Cyclone's default domain (0 or config) */

struct rec_recorder_options {
	uint32_t domain_id;
	struct rec_select_options select;
	const char *qos_overrides_path; /* NULL = none */
	struct bag_writer_options writer;
	size_t max_cache_size; /* bytes; 0 = write-through */
	bool start_paused;
	/* Definitions to store for known types (by ROS or DDS type name). */
	const struct bag_msgdef *known_defs;
	size_t n_known_defs;
	uint32_t test_consumer_delay_us; /* test hook, 0 in production */
};

/* One line's worth of totals, for the headless status and the header. */
struct rec_status {
	size_t topics_seen;
	size_t topics_recorded; /* subscribed */
	uint64_t received;
	uint64_t recorded;
	uint64_t bytes;
	uint64_t lost_recorder;  /* cache + toobig + write */
	uint64_t lost_transport;
	size_t cache_fill;
	size_t cache_max;
	size_t file_index;
	char current_file[4096];
	bool paused;
	bool write_failed;
};

struct rec_recorder;

/* Opens the bag, joins the domain and starts the threads. Errors:
 * BT_ERR_USAGE (selection, overrides file), BT_ERR_EXISTS / BT_ERR_IO (the
 * bag), BT_ERR_DDS (DDS would not start: exit status 3). Nothing is left
 * running on error. */
BT_MUST_CHECK bt_status rec_recorder_start(const struct rec_recorder_options *opt,
					   struct rec_recorder **out, struct bt_error *err);
void rec_recorder_pause(struct rec_recorder *r, bool paused);
void rec_recorder_split(struct rec_recorder *r);
void rec_recorder_get_status(struct rec_recorder *r, struct rec_status *st);
/* The topic table (read-only use; valid until rec_recorder_free). */
const struct rec_topics *rec_recorder_topics(const struct rec_recorder *r);
/* Stops recording and finishes the bag (see the order above). Idempotent:
 * later calls return the first call's result. */
BT_MUST_CHECK bt_status rec_recorder_stop(struct rec_recorder *r, struct bt_error *err);
/* Stops if needed, then frees. */
void rec_recorder_free(struct rec_recorder *r);

#endif
