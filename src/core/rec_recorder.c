/* rec_recorder — start and stop the engine in the order rec_recorder.h
 * writes down, and report totals. The threads are owned here: the
 * discovery thread (rec_discovery.c) and the consumer (rec_consumer.c). */
#include "rec_recorder.h"

#include <stdlib.h>
#include <string.h>

#include "bt_log.h"
#include "bt_mem.h"
#include "bt_time.h"
#include "bag_compat.h"
#include "btdds_participant.h"
#include "rec__recorder.h"
#include "rec_cmd.h"
#include "btdds_names.h"

#define REC_EVENTS_PERIOD_NS INT64_C(1000000000) /* one loss event a second at most */

static bt_status rec_join_domain(struct rec_recorder *r, struct bt_error *err)
{
	bt_status st = btdds_participant_create(r->opt.domain_id, r->opt.env, &r->pp, err);
	if (st != BT_OK) {
		r->pp = 0;
		return st;
	}
	if (dds_get_guid(r->pp, &r->own_guid) < 0)
		return bt_err_set(err, BT_ERR_DDS, "cannot read the participant's GUID");
	return BT_OK;
}

void rec_recorder_type_hash_counts(const struct rec_recorder *r, uint64_t *with,
				   uint64_t *without)
{
	struct rec_recorder *m = (struct rec_recorder *)r; /* atomics: loads only */
	*with = atomic_load_explicit(&m->ros_pubs_hash, memory_order_relaxed);
	*without = atomic_load_explicit(&m->ros_pubs_no_hash, memory_order_relaxed);
}

/* The writer calls it on the consumer's thread, which exists by then. */
static size_t rec_on_split(void *ctx, int64_t t_last, const struct bag_message **msgs)
{
	struct rec_recorder *r = ctx;
	*msgs = NULL;
	return r->consumer != NULL ? rec_consumer_on_split(r->consumer, t_last, msgs) : 0;
}

/* The writer's on_file_closed (writer thread): says why the file closed. */
static void rec_on_file_closed(void *ctx, const struct bag_file_closed *f)
{
	struct rec_recorder *r = ctx;
	if (r->opt.snapshot_mode && f->messages == 0 && f->ok)
		return; /* waited for a snapshot that did not come */
	if (r->events != NULL)
		rec_events_file_closed(r->events, f->path, f->opened);
	const char *reason = r->opt.snapshot_mode ? "snapshot" : f->final ? "close" : "split";
	if (r->opt.on_file_closed != NULL)
		r->opt.on_file_closed(r->opt.on_file_closed_ctx, f, reason);
}

/* The node and its events tell others what the recorder does: when they
 * cannot start, recording goes on without them (a warning says so). */
static void rec_start_node(struct rec_recorder *r)
{
	struct bt_error e;
	if (r->opt.node && r->opt.node_name != NULL &&
	    btdds_node_new(r->pp, "/", r->opt.node_name,
			   r->opt.writer.compat == BAG_COMPAT_HUMBLE ? BTDDS_GID_SIZE_HUMBLE
								    : BTDDS_GID_SIZE_IRON,
			   &r->node, &e) != BT_OK) {
		bt_log_warn("no ROS 2 node /%s: %s", r->opt.node_name, e.msg);
		r->node = NULL;
	}
}

static void rec_start_events(struct rec_recorder *r)
{
	if (!r->opt.events || r->opt.node_name == NULL)
		return;
	char *fqn = bt_xasprintf("/%s", r->opt.node_name);
	struct rec_events_options o = {.pp = r->pp, .node = r->node, .node_fqn = fqn,
				       .split_node_name = r->opt.writer.compat == BAG_COMPAT_JAZZY,
				       .topics = r->topics, .lost_period_ns = REC_EVENTS_PERIOD_NS};
	struct bt_error e;
	if (rec_events_start(&o, &r->events, &e) != BT_OK) {
		bt_log_warn("no rosbag2 events: %s", e.msg);
		r->events = NULL;
	}
	free(fqn);
}

struct btdds_node *rec_recorder_node(const struct rec_recorder *r)
{
	return r->node;
}

/* Whether finished files are told to anyone: the hook or the events. */
static bool rec_files_told(const struct rec_recorder *r)
{
	return r->opt.on_file_closed != NULL || (r->opt.events && r->opt.node_name != NULL);
}

static bt_status rec_prepare(struct rec_recorder *r, struct bt_error *err)
{
	bt_status st = btdds_select_new(&r->opt.select, &r->select, err);
	if (st == BT_OK && r->opt.qos_overrides_path != NULL) {
		st = btdds_qos_overrides_load(r->opt.qos_overrides_path, &r->overrides, err);
		if (st != BT_OK)
			(void)bt_err_prefix(err, "QoS overrides");
	}
	if (st == BT_OK)
		st = rec_join_domain(r, err);
	if (st == BT_OK)
		rec_start_node(r);
	/* Before discovery: the first reader's listener reads the clock. */
	if (st == BT_OK && r->opt.use_sim_time)
		st = rec_clock_start_sim(r->pp, &r->clock, err);
	/* Repeated transient-local messages start every split file; in
	 * snapshot mode the snapshot merge places them instead. */
	struct bag_writer_options wo = r->opt.writer;
	if (!r->opt.snapshot_mode) {
		wo.on_split = rec_on_split;
		wo.on_split_ctx = r;
		/* A stream: to the disk as it comes (bt_wbehind). A snapshot is a
		 * burst that its trigger waits for: the page cache takes it. */
		wo.write_behind = true;
		/* A definition learned after its type's MCAP Schema went out
		 * starts a new file that has it (a snapshot stays one file). */
		wo.split_on_late_definition = true;
	}
	if (rec_files_told(r)) {
		wo.on_file_closed = rec_on_file_closed;
		wo.on_file_closed_ctx = r;
		/* Each snapshot's file is closed as written (rec_consumer's
		 * close_snapshot_files): the one opened after the last is
		 * empty at the end. */
		wo.drop_empty_last = r->opt.snapshot_mode;
	}
	if (st == BT_OK)
		st = bag_writer_open(&wo, &r->writer, err);
	if (st == BT_OK)
		bag_writer_set_cancel(r->writer, &r->abandon);
	return st;
}

static void rec_stats_status(void *ctx, struct rec_status *st)
{
	rec_recorder_get_status(ctx, st);
}

/* The live statistics are for watching: when they cannot start, recording
 * goes on without them (a warning says so). */
static void rec_start_stats(struct rec_recorder *r)
{
	if (!(r->opt.stats_rate > 0.0))
		return;
	struct rec_stats_pub_options so = {.participant = r->pp, .topics = r->topics,
					   .update_rate = r->opt.stats_rate,
					   .bag = r->opt.writer.uri, .version = r->opt.version,
					   .status = rec_stats_status, .status_ctx = r,
					   .rates = r->rates};
	struct bt_error e;
	if (rec_stats_pub_start(&so, &r->stats, &e) != BT_OK)
		bt_log_warn("%s", e.msg);
}

static void rec_repeat_names(struct rec_recorder *r)
{
	r->n_repeat = r->opt.n_repeat;
	r->repeat = r->n_repeat ? bt_xcalloc(r->n_repeat, sizeof *r->repeat) : NULL;
	for (size_t i = 0; i < r->n_repeat; i++) {
		r->repeat[i].arg = bt_xstrdup(r->opt.repeat[i].name);
		r->repeat[i].dds = btdds_names_dds_topic(r->opt.repeat[i].name);
		r->repeat[i].depth = r->opt.repeat[i].depth;
	}
}

/* Definitions from the publishing nodes and from XTypes type information
 * are a bonus: when asking or resolving cannot start, recording goes on
 * with the definitions found locally. */
static void rec_start_def_sources(struct rec_recorder *r)
{
	struct rec_def_source_options o = {.pp = r->pp, .consumer = r->consumer};
	struct bt_error e;
	if (rec_typedesc_start(&o, &r->typedesc, &e) != BT_OK) {
		bt_log_warn("types found nowhere will not be asked of their nodes: %s", e.msg);
		r->typedesc = NULL;
	}
	if (rec_xtypes_start(&o, &r->xtypes, &e) != BT_OK) {
		bt_log_warn("plain DDS types will have no definition: %s", e.msg);
		r->xtypes = NULL;
	}
}

/* The node lists the services' readers and writers (they are its own). */
static void rec_svc_entity(void *ctx, dds_entity_t e, bool add)
{
	struct rec_recorder *r = ctx;
	if (r->node == NULL)
		return;
	struct bt_error err;
	if (!add)
		btdds_node_remove_entity(r->node, e);
	else if (btdds_node_add_entity(r->node, e, &err) != BT_OK)
		bt_log_warn("the node does not list a service endpoint: %s", err.msg); /* it still answers */
}

/* Remote control is a bonus too: when the services cannot start (DDS
 * refused), recording goes on without them, said once. */
static void rec_start_svc(struct rec_recorder *r)
{
	if (!r->opt.node || r->opt.node_name == NULL || r->opt.cmdq == NULL)
		return;
	struct rec_svc_options o = {.pp = r->pp,
				    .cmdq = r->opt.cmdq,
				    .node_name = r->opt.node_name,
				    .humble = r->opt.services_humble,
				    .on_entity = rec_svc_entity,
				    .on_entity_ctx = r};
	struct bt_error e;
	if (rec_svc_start(&o, &r->svc, &e) != BT_OK) {
		bt_log_warn("no remote control (rosbag2's services): %s", e.msg);
		r->svc = NULL;
	}
}

static bt_status rec_start_threads(struct rec_recorder *r, struct bt_error *err)
{
	r->topics = rec_topics_new();
	r->rates = rec_rates_new(r->topics);
	r->tl = rec_tl_new();
	r->want_fill = bt_xcalloc(REC_TOPICS_MAX, sizeof *r->want_fill);
	for (size_t i = 0; i < REC_TOPICS_MAX; i++)
		atomic_init(&r->want_fill[i], 0);
	rec_repeat_names(r);
	if (r->opt.snapshot_mode) {
		struct rec_snap_options so = {r->opt.max_cache_size, r->opt.snapshot_duration_ns,
					      r->opt.snapshot_post_ns};
		if (so.max_bytes == 0)
			return bt_err_set(err, BT_ERR_USAGE, "snapshot mode needs a cache size "
					  "(--max-cache-size above 0)");
		r->snap = rec_snap_new(&so);
	} else {
		r->cache = rec_cache_new(r->opt.max_cache_size);
	}
	struct rec_consumer_options co = {.cache = r->cache,
					  .topics = r->topics,
					  .writer = r->writer,
					  .test_delay_us = r->opt.test_consumer_delay_us,
					  .abandon = &r->abandon,
					  .snap = r->snap,
					  .tl = r->tl,
					  .on_snapshot = r->opt.on_snapshot,
					  .ctx = r->opt.on_snapshot_ctx,
					  .close_snapshot_files = rec_files_told(r),
					  .guard_dir = r->opt.writer.uri,
					  .clock = r->clock,
					  .min_free = r->opt.min_free_space};
	/* Before the consumer: its writer tells the events of files. */
	rec_start_events(r);
	bt_status st = rec_consumer_start(&co, &r->consumer, err);
	if (st == BT_OK)
		rec_start_def_sources(r);
	if (st == BT_OK)
		st = rec_discovery_start(r, err);
	if (st == BT_OK)
		rec_start_stats(r);
	if (st == BT_OK)
		rec_start_svc(r);
	return st;
}

bt_status rec_recorder_start(const struct rec_recorder_options *opt, struct rec_recorder **out,
			     struct bt_error *err)
{
	struct rec_recorder *r = bt_xcalloc(1, sizeof *r);
	r->opt = *opt;
	r->started_mono = bt_time_monotonic_ns();
	atomic_init(&r->stopping, false);
	atomic_init(&r->abandon, false);
	atomic_init(&r->paused, opt->start_paused);
	atomic_init(&r->subscribe_requested, false);
	atomic_init(&r->fill_requested, false);
	bt_status st = rec_prepare(r, err);
	if (st == BT_OK)
		st = rec_start_threads(r, err);
	if (st != BT_OK) {
		rec_recorder_free(r); /* stops what was started */
		return st;
	}
	*out = r;
	return BT_OK;
}

void rec_recorder_pause(struct rec_recorder *r, bool paused)
{
	atomic_store(&r->paused, paused);
}

void rec_recorder_set_topic_enabled(struct rec_recorder *r, size_t index, bool on)
{
	if (index >= rec_topics_count(r->topics))
		return;
	struct rec_topic *tp = rec_topics_get(r->topics, index);
	atomic_store(&tp->enabled, on);
	if (!on || atomic_load_explicit(&tp->subscribed, memory_order_acquire))
		return;
	atomic_store(&tp->want_subscribe, true);
	atomic_store(&r->subscribe_requested, true);
	if (r->wake > 0)
		(void)dds_set_guardcondition(r->wake, true);
}

enum rec_trigger rec_recorder_snapshot(struct rec_recorder *r, uint64_t *id)
{
	return rec_recorder_snapshot_with(r, NULL, id);
}

_Static_assert(REC_SNAP_NAME_MAX == REC_CMD_SNAP_NAME_MAX, "a snapshot's name fits rec_snap");

/* The topics p leaves out and its file name, into sp; returns sp->skip (the caller's to
 * free, NULL when p names no topic). */
static bool *rec_snap_select(struct rec_recorder *r, const struct rec_cmd_snap *p,
			    struct rec_snap_params *sp)
{
	sp->before_ns = p->before_ns < 0 ? REC_SNAP_ALL : p->before_ns;
	sp->after_ns = p->after_ns < 0 ? REC_SNAP_ALL : p->after_ns;
	sp->skip_rest = p->topics[0] != '\0';
	sp->name = p->name;
	if (p->topics[0] == '\0' && p->exclude[0] == '\0')
		return NULL;
	size_t n = rec_topics_count(r->topics);
	bool *skip = bt_xcalloc(n + 1, sizeof *skip);
	for (size_t i = 0; i < n; i++) {
		const struct rec_topic *tp = rec_topics_get(r->topics, i);
		bool named = p->topics[0] == '\0' || rec_cmd_in_list(p->topics, tp->names.name) ||
			     rec_cmd_in_list(p->topics, tp->names.dds_name);
		skip[i] = !named || rec_cmd_in_list(p->exclude, tp->names.name) ||
			  rec_cmd_in_list(p->exclude, tp->names.dds_name);
	}
	sp->skip = skip;
	sp->n_skip = (uint32_t)n;
	return skip;
}

enum rec_trigger rec_recorder_snapshot_with(struct rec_recorder *r,
					    const struct rec_cmd_snap *p, uint64_t *id)
{
	if (r->snap == NULL)
		return REC_TRIGGER_NOT_SNAPSHOT;
	struct rec_snap_params sp = {REC_SNAP_ALL, REC_SNAP_ALL, NULL, 0, false, NULL};
	bool *skip = p != NULL ? rec_snap_select(r, p, &sp) : NULL;
	struct rec_snap_trigger_info info = {0};
	enum rec_snap_trigger_result res =
		rec_snap_trigger_with(r->snap, rec_clock_now(r->clock), &sp, &info);
	free(skip);
	switch (res) {
	case REC_SNAP_TRIGGERED:
		if (id != NULL)
			*id = info.id;
		return REC_TRIGGER_STARTED;
	case REC_SNAP_EMPTY: return REC_TRIGGER_EMPTY;
	case REC_SNAP_BUSY: return REC_TRIGGER_BUSY;
	default: return REC_TRIGGER_STOPPING;
	}
}

const char *rec_trigger_str(enum rec_trigger t)
{
	switch (t) {
	case REC_TRIGGER_STARTED: return "snapshot started";
	case REC_TRIGGER_EMPTY: return "snapshot: nothing buffered yet, nothing written";
	case REC_TRIGGER_BUSY: return "snapshot refused: the previous one is still being written";
	case REC_TRIGGER_STOPPING: return "snapshot refused: recording is stopping";
	default: return "snapshot refused: not recording in snapshot mode (--snapshot-mode)";
	}
}

bt_status rec_recorder_set_repeat(struct rec_recorder *r, size_t index, uint32_t depth)
{
	if (index >= rec_topics_count(r->topics))
		return BT_ERR_USAGE;
	bt_status st = rec_tl_set_depth(r->tl, (uint32_t)index, depth);
	if (st != BT_OK || depth == 0)
		return st;
	/* What arrived before the mark: the discovery thread asks the
	 * topic's transient-local publishers for it (rec_sub_fill_start). */
	atomic_store(&r->want_fill[index], depth);
	atomic_store(&r->fill_requested, true);
	if (r->wake > 0)
		(void)dds_set_guardcondition(r->wake, true);
	return BT_OK;
}

uint32_t rec_recorder_repeat_depth(const struct rec_recorder *r, size_t index)
{
	return index < REC_TOPICS_MAX ? rec_tl_depth(r->tl, (uint32_t)index) : 0;
}

void rec_recorder_split(struct rec_recorder *r)
{
	if (r->consumer != NULL)
		rec_consumer_request_split(r->consumer);
}

const struct rec_topics *rec_recorder_topics(const struct rec_recorder *r)
{
	return r->topics;
}

struct rec_rates *rec_recorder_rates(const struct rec_recorder *r)
{
	return r->rates;
}

static uint64_t ld(atomic_uint_fast64_t *a)
{
	return atomic_load_explicit(a, memory_order_relaxed);
}

void rec_recorder_get_status(struct rec_recorder *r, struct rec_status *st)
{
	memset(st, 0, sizeof *st);
	size_t n = rec_topics_count(r->topics);
	st->topics_seen = n;
	for (size_t i = 0; i < n; i++) {
		struct rec_topic *tp = rec_topics_get(r->topics, i);
		struct rec_topic_stats *s = &tp->st;
		st->topics_recorded += atomic_load(&tp->subscribed) ? 1 : 0;
		st->received += ld(&s->received);
		st->recorded += ld(&s->recorded);
		st->bytes += ld(&s->bytes);
		st->lost_recorder += rec_topic_lost_recorder(s);
		st->throttled += atomic_load_explicit(&s->throttled, memory_order_relaxed);
		st->lost_transport += rec_topic_lost_transport(s);
		st->repeated += ld(&s->repeated);
	}
	if (r->tl != NULL) {
		struct rec_tl_stats ts;
		rec_tl_get_stats(r->tl, &ts);
		st->repeat_kept = ts.messages;
	}
	if (r->snap != NULL) {
		struct rec_snap_stats ss;
		rec_snap_get_stats(r->snap, &ss);
		st->snapshot_mode = true;
		st->snapshot_busy = ss.busy;
		st->snapshot_buffered = ss.fill_count;
		st->evicted = ss.evicted;
		st->cache_fill = ss.fill_bytes;
		st->cache_max = rec_snap_max_bytes(r->snap);
	} else {
		st->cache_fill = rec_cache_fill(r->cache);
		st->cache_max = rec_cache_max_bytes(r->cache);
	}
	st->paused = atomic_load(&r->paused);
	st->waiting_clock = r->clock != NULL && rec_clock_now(r->clock) == 0;
	if (r->consumer != NULL)
		rec_consumer_file(r->consumer, st->current_file, sizeof st->current_file,
				  &st->file_index, &st->file_start);
	st->write_failed = r->consumer != NULL && rec_consumer_error(r->consumer, NULL) != BT_OK;
	if (r->consumer != NULL)
		rec_consumer_abandoned(r->consumer, &st->abandoned, &st->abandoned_bytes);
	st->free_space = UINT64_MAX;
	st->min_free_space = r->opt.min_free_space;
	if (r->consumer != NULL)
		rec_consumer_guard(r->consumer, &st->disk_guard, &st->free_space);
}

void rec_recorder_abandon(struct rec_recorder *r)
{
	atomic_store(&r->abandon, true);
	if (r->cache != NULL)
		rec_cache_wake(r->cache);
	if (r->snap != NULL)
		rec_snap_wake(r->snap);
}

static void rec_delete_readers(struct rec_recorder *r)
{
	for (size_t i = 0; i < r->cap_subs; i++)
		if (r->subs[i] != NULL)
			rec_sub_unsubscribe(r->subs[i]);
}

static bt_status rec_keep_first(bt_status first, bt_status st, struct bt_error *first_err,
				const struct bt_error *e)
{
	if (first != BT_OK || st == BT_OK)
		return first;
	*first_err = *e;
	return st;
}

/* The order matters: no producer may outlive the cache, and the writer is
 * closed only once the consumer has drained everything. */
bt_status rec_recorder_stop(struct rec_recorder *r, struct bt_error *err)
{
	if (!r->stopped) {
		bt_status first = BT_OK;
		struct bt_error e = {0};
		r->stopped = true;
		/* First: no new command comes from the network while stopping. */
		rec_svc_stop(r->svc);
		r->svc = NULL;
		rec_discovery_stop(r);
		/* Before the consumer: it posts definitions to it. */
		rec_typedesc_stop(r->typedesc);
		r->typedesc = NULL;
		/* Before the consumer (it posts definitions to it) and the
		 * participant (its lookups use it); waits out one lookup. */
		rec_xtypes_stop(r->xtypes);
		r->xtypes = NULL;
		rec_delete_readers(r);
		if (r->cache != NULL)
			rec_cache_close(r->cache);
		if (r->snap != NULL)
			rec_snap_close(r->snap);
		/* Its thread reads r->consumer (status): joined before that goes. */
		rec_stats_pub_stop(r->stats);
		if (r->consumer != NULL) {
			/* Kept until free: the status getters read it meanwhile. */
			bt_status st = rec_consumer_stop(r->consumer, &e);
			first = rec_keep_first(first, st, &r->stop_err, &e);
		}
		if (r->writer != NULL) {
			bt_status st = bag_writer_close(r->writer, &e);
			first = rec_keep_first(first, st, &r->stop_err, &e);
			r->writer = NULL;
		}
		/* The last file's event and the last losses, then the node's
		 * entities go, the node last. */
		rec_events_free(r->events);
		r->events = NULL;
		btdds_node_free(r->node);
		r->node = NULL;
		rec_stats_pub_write_final(r->stats); /* final counts, state stopped */
		rec_stats_pub_free(r->stats);
		r->stats = NULL;
		(void)btdds_participant_delete(r->pp); /* nothing left to tell the user */
		r->pp = 0;
		r->stop_status = first;
	}
	if (r->stop_status != BT_OK && err != NULL)
		*err = r->stop_err;
	return r->stop_status;
}

void rec_recorder_free(struct rec_recorder *r)
{
	if (r == NULL)
		return;
	struct bt_error ignored;
	if (rec_recorder_stop(r, &ignored) != BT_OK)
		bt_log_debug("recorder stopped with an error: %s", ignored.msg);
	for (size_t i = 0; i < r->cap_subs; i++)
		rec_sub_free(r->subs[i]);
	free(r->subs);
	rec_consumer_free(r->consumer);
	rec_clock_free(r->clock); /* its reader went with the participant */
	rec_cache_free(r->cache);
	rec_snap_free(r->snap);
	rec_tl_free(r->tl);
	free(r->want_fill);
	for (size_t i = 0; i < r->n_repeat; i++) {
		free(r->repeat[i].arg);
		free(r->repeat[i].dds);
	}
	free(r->repeat);
	rec_rates_free(r->rates);
	rec_topics_free(r->topics);
	btdds_qos_overrides_free(r->overrides);
	btdds_select_free(r->select);
	free(r);
}
