/* rec_recorder — the recording engine: one DDS participant, a discovery
 * thread ("rec-discovery") that follows DCPSPublication and creates,
 * adapts and deletes raw readers; listeners that only take, copy and push
 * into the cache; the consumer thread that writes the bag; a thread
 * ("rec-xtypes") that resolves plain DDS types' XTypes type objects; the
 * services' thread (rec_svc) and the events' thread (rec_events); the ROS 2
 * node's sample (btdds_node).
 *
 * Shutdown (rec_recorder_stop, idempotent), in this order: services stopped
 * (rec_svc: no new command from the network; their endpoints leave the
 * node) → discovery thread joined → get_type_description thread joined
 * (rec_typedesc) → XTypes thread joined (after its lookup in progress, at
 * most REC_XTYPES_CALL_NS) → readers deleted (in-flight callbacks finish) →
 * cache closed → statistics thread stopped → consumer drains and is joined
 * → bag closed (compression finished, final metadata written atomically)
 * → events told (the last file, the last losses) and their thread joined
 * → node freed (its sample says it is gone) → final statistics sample →
 * participant deleted.
 *
 * Thread-safety: start/stop/free from the owning thread; the command calls
 * (pause, split, status) from any thread. */
#ifndef REC_RECORDER_H
#define REC_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bag_writer.h"
#include "defs.h"
#include "bt_cmdq.h"
#include "bt_status.h"
#include "btdds_participant.h"
#include "btdds_node.h"
#include "rec_consumer.h"
#include "rec_rates.h"
#include "btdds_select.h"
#include "rec_topics.h"

#define REC_DOMAIN_DEFAULT BTDDS_DOMAIN_DEFAULT /* see btdds_participant_create */

/* One --repeat-transient-local argument: TOPIC (ROS or DDS name), depth. */
struct rec_repeat_topic {
	const char *name;
	uint32_t depth; /* >= 1 */
};

struct rec_throttle;
struct rec_snapwin;

struct rec_recorder_options {
	uint32_t domain_id;
	/* The ROS 2 environment the domain is joined with (btdds_participant);
	 * NULL: Cyclone's own configuration. Read by start only. */
	const struct btdds_env *env;
	struct btdds_select_options select;
	/* --include-unpublished-topics: a selected topic that other
	 * participants subscribe to is subscribed to (and in the bag) before
	 * it has a publisher. --ignore-leaf-topics: a selected topic nobody
	 * but the recorder subscribes to is held back until someone does (then
	 * recorded, for good). rosbag2's record options of those names. */
	bool include_unpublished;
	bool ignore_leaf;
	/* --no-discovery: only topics discovered in the first moments of the
	 * recording (rec_discovery.c's DISC_APPEARED_NS) are subscribed to; one
	 * that appears later is not (the user can still switch it on). */
	bool no_discovery;
	/* --use-sim-time: messages stamped with the last /clock time, nothing
	 * recorded before the first (rec_clock.h). */
	bool use_sim_time;
	const char *qos_overrides_path; /* NULL = none */
	struct bag_writer_options writer;
	size_t max_cache_size; /* bytes; 0 = write-through */
	bool start_paused;
	/* Where message definitions come from (borrowed; used by the
	 * discovery thread only while recording). NULL: every type gets
	 * rosbag2's row for a definition not found. */
	struct defs_source *defs;
	uint32_t test_consumer_delay_us; /* test hook, 0 in production */
	/* Test hook, 0 in production: each received sample stalls the DDS
	 * receive thread this long, so a fast best-effort publisher overruns
	 * the socket buffer (losses in transport, on purpose). */
	uint32_t test_listener_delay_us;
	/* Test hook: the discovery thread waits this long between creating a
	 * topic's reader and marking the topic subscribed, so that its first
	 * messages are handled in between (the order rec_topics.h sets). */
	uint32_t test_subscribe_delay_us;
	double stats_rate;   /* Hz of the live statistics on DDS (rec_stats_pub); 0 = none */
	const char *version; /* bagtop's, named in the statistics; NULL = "" */
	/* Snapshot mode: a circular cache of max_cache_size bytes (> 0) and,
	 * when > 0, snapshot_duration_ns; written only on a trigger. */
	bool snapshot_mode;
	int64_t snapshot_duration_ns;
	int64_t snapshot_post_ns; /* messages of this long after a trigger join it */
	/* Topics whose last N messages start every file and snapshot; they are
	 * recorded even when the selection leaves them out. */
	const struct rec_repeat_topic *repeat;
	size_t n_repeat;
	/* Called on the writer thread when a snapshot file is finished. */
	void (*on_snapshot)(void *ctx, const struct rec_snapshot_done *d);
	void *on_snapshot_ctx;
	/* Called on the writer thread once per storage file when it is
	 * finished (bag_writer_options.on_file_closed), with why it was closed:
	 * "split", "snapshot" (snapshot mode, where each snapshot's file is
	 * then closed as soon as it is written; files without messages are
	 * not reported) or "close" (the end of recording). Must not block.
	 * NULL: none. */
	void (*on_file_closed)(void *ctx, const struct bag_file_closed *f, const char *reason);
	void *on_file_closed_ctx;
	/* The free-space guard (rec_guard.h, rec_consumer_options): bytes
	 * that must stay free on the bag's filesystem; 0 = no guard. */
	uint64_t min_free_space;
	/* The recorder's ROS 2 node name, in the root namespace
	 * ("rosbag2_recorder"); NULL: neither node nor events. */
	const char *node_name;
	/* Be that node in the graph (ros_discovery_info, btdds_node.h, with
	 * the Gid layout of writer.compat) and serve its services: its events'
	 * writers and its services' readers and writers are listed by it, its
	 * capture readers never are. */
	bool node;
	/* rosbag2's events (rec_events.h: events/write_split,
	 * events/rosbag2_messages_lost) with node_name "/" + node_name, node
	 * or not. */
	bool events;
	/* --throttle (rec_throttle.h): borrowed, outlives the recording; NULL
	 * = none. Each topic takes its first matching rule when discovered. */
	const struct rec_throttle *throttle;
	/* The command queue (rec_cmd.h) the recorder's own control sources
	 * (the DDS services) submit to: borrowed, made before start and freed
	 * after rec_recorder_free by the caller, whose thread consumes it.
	 * NULL: no remote control. */
	struct bt_cmdq *cmdq;
	/* With `node` and `cmdq`: rosbag2's recorder services (rec_svc.h)
	 * under node_name, on the recorder's participant, listed by the node,
	 * submitting to `cmdq` (without: none, --no-remote-control).
	 * services_humble: only what Humble's recorder serves. */
	bool services_humble;
	/* Snapshot mode: --snapshot-window / --snapshot-topic-cache
	 * (rec_snapwin.h): borrowed, outlives the recording; NULL = none. Each
	 * topic takes its window when discovered. */
	const struct rec_snapwin *snapwin;
};

/* What a snapshot trigger did (rec_recorder_snapshot). */
enum rec_trigger {
	REC_TRIGGER_STARTED,      /* being written; on_snapshot reports the file */
	REC_TRIGGER_EMPTY,        /* nothing buffered: nothing written */
	REC_TRIGGER_BUSY,         /* the previous snapshot is still being written */
	REC_TRIGGER_STOPPING,     /* recording is stopping */
	REC_TRIGGER_NOT_SNAPSHOT, /* not recording in snapshot mode */
};

/* One line's worth of totals, for the headless status and the header. */
struct rec_status {
	size_t topics_seen;
	size_t topics_recorded; /* subscribed */
	uint64_t received;
	uint64_t recorded;
	uint64_t bytes;
	uint64_t lost_recorder;  /* every cause of the RECORDER group (bag_counters.h) */
	uint64_t lost_transport; /* gaps + rejected */
	uint64_t throttled;      /* above a --throttle rate: not written, no loss */
	size_t cache_fill;
	size_t cache_max;
	size_t file_index;
	int64_t file_start; /* realtime ns the current file was opened, 0 = none yet */
	char current_file[4096];
	bool paused;
	bool waiting_clock; /* --use-sim-time and no /clock time yet: nothing is recorded */
	bool write_failed;
	bool snapshot_mode;
	bool snapshot_busy;         /* a snapshot is being written */
	uint64_t snapshot_buffered; /* messages in the snapshot buffer now */
	uint64_t evicted;           /* left the snapshot buffer unwritten, by design */
	uint64_t repeated;          /* repeated transient-local copies written */
	uint64_t repeat_kept;       /* messages kept to repeat (marked topics' last N) */
	uint64_t abandoned;         /* not written: rec_recorder_abandon (also in lost_recorder) */
	uint64_t abandoned_bytes;   /* their payload bytes */
	bool disk_guard;            /* the free-space guard stops recording now */
	uint64_t free_space;        /* bytes free on the bag's filesystem, as last seen;
				     * UINT64_MAX: not known (no guard) */
	uint64_t min_free_space;    /* the guard's threshold; 0 = none */
};

struct rec_recorder;

/* Opens the bag, joins the domain and starts the threads. Errors:
 * BT_ERR_USAGE (selection, overrides file), BT_ERR_EXISTS / BT_ERR_IO (the
 * bag), BT_ERR_DDS (DDS would not start: exit status 3). Nothing is left
 * running on error. */
BT_MUST_CHECK bt_status rec_recorder_start(const struct rec_recorder_options *opt,
					   struct rec_recorder **out, struct bt_error *err);
void rec_recorder_pause(struct rec_recorder *r, bool paused);
/* Starts or stops recording topic `index` (any thread). While off, a
 * subscribed topic's messages still arrive and are counted (`ignored`,
 * `rx_bytes`: the live view keeps its rates) but are not recorded.
 * Switching on a topic the selection left out subscribes it (the
 * discovery thread does it at once). */
void rec_recorder_set_topic_enabled(struct rec_recorder *r, size_t index, bool on);
void rec_recorder_split(struct rec_recorder *r);
/* Triggers a snapshot (any thread): `s`, SIGUSR1, `bagtop snapshot`. For
 * REC_TRIGGER_STARTED, *id (may be NULL) is the snapshot's id, the one
 * on_snapshot reports it with. */
enum rec_trigger rec_recorder_snapshot(struct rec_recorder *r, uint64_t *id);
/* rec_recorder_snapshot with a trigger's own parameters (rec_cmd_snap;
 * NULL: as configured). A topic is named by its recorded name or its DDS
 * name; a topic discovered after the trigger is in the snapshot unless
 * --topics was given. */
struct rec_cmd_snap;
enum rec_trigger rec_recorder_snapshot_with(struct rec_recorder *r,
					    const struct rec_cmd_snap *p, uint64_t *id);
const char *rec_trigger_str(enum rec_trigger t); /* one line for the user */
/* Repeats topic `index`'s last `depth` messages at the start of every file
 * and snapshot (0: stop repeating). Any thread. Messages that arrived
 * before the mark are fetched again from the topic's transient-local
 * publishers, shortly after (status: repeat_kept). BT_ERR_USAGE: bad index
 * or depth. */
BT_MUST_CHECK bt_status rec_recorder_set_repeat(struct rec_recorder *r, size_t index,
						uint32_t depth);
uint32_t rec_recorder_repeat_depth(const struct rec_recorder *r, size_t index);

void rec_recorder_get_status(struct rec_recorder *r, struct rec_status *st);
/* ROS 2 publications seen so far with and without a type hash in their
 * USER_DATA. Iron and newer publishers announce one; a ROS 2 publication
 * without one is Humble or older (the ground for suggesting --compat
 * humble). Any thread; relaxed counts. */
void rec_recorder_type_hash_counts(const struct rec_recorder *r, uint64_t *with,
				   uint64_t *without);
/* The topic table (read-only use; valid until rec_recorder_free). */
const struct rec_topics *rec_recorder_topics(const struct rec_recorder *r);
/* The rates of its topics, the one window everything shows (valid until
 * rec_recorder_free). */
struct rec_rates *rec_recorder_rates(const struct rec_recorder *r);
/* Stops recording and finishes the bag (see the order above). Idempotent:
 * later calls return the first call's result. */
BT_MUST_CHECK bt_status rec_recorder_stop(struct rec_recorder *r, struct bt_error *err);
/* Abandons what is not written yet (any thread, typically while another
 * is in rec_recorder_stop): the writer stops within its batch, commits
 * what it inserted, and the consumer drops what the cache still holds,
 * counting it lost_abandoned (and `abandoned` in the status); the stop then
 * finishes at once, metadata included. Cannot be undone. */
void rec_recorder_abandon(struct rec_recorder *r);
/* The recorder's ROS 2 node (opt.node_name), for more entities to list
 * (its services); NULL when it has none. Valid until rec_recorder_stop,
 * which frees it after the events' writers: entities listed by others
 * must be taken off (btdds_node_remove_entity) and deleted before. */
struct btdds_node *rec_recorder_node(const struct rec_recorder *r);
/* Stops if needed, then frees. */
void rec_recorder_free(struct rec_recorder *r);

#endif
