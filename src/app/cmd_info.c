/* bagtop info: what `ros2 bag info` prints, from metadata.yaml as written
 * (or, without one, from the storage files); -v adds per-file and
 * per-topic detail read from the files themselves. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "app.h"
#include "app_info_scan.h"
#include "app_read_opts.h"
#include "bag_compat.h"
#include "btdds_names.h"
#include "btdds_xtypes.h"
#include "defs.h"
#include "bag_qos.h"
#include "bag_metadata.h"
#include "bag_msgdefs.h"
#include "bag_reader.h"
#include "bag_storage.h"
#include "bag_tools.h"
#include "bt_fmt.h"
#include "bt_mem.h"
#include "bt_str.h"
#include "bt_time.h"

enum { INFO_VERBOSE = 1, INFO_TOPIC_NAME, INFO_SORT };

static const struct app_opt info_opts[] = {
	{"verbose", 'v', NULL,
	 "read every message: each topic's size and each service's requests and responses, "
	 "and per-file and per-topic detail",
	 INFO_VERBOSE},
	{"topic-name", 't', NULL, "print only the names of the topics (not of services), one a line",
	 INFO_TOPIC_NAME},
	{"sort", 0, "KEY", "list topics and services by name (the default), type or count",
	 INFO_SORT},
	APP_READ_STORAGE_OPT_ROW,
};

enum info_sort { INFO_SORT_NAME, INFO_SORT_TYPE, INFO_SORT_COUNT };

struct info_ctx {
	const struct app_cmd *cmd;
	bool verbose, names_only;
	enum info_sort sort;
	const char *storage; /* -s, or NULL */
};

static int info_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct info_ctx *c = ctx;
	static const char *const keys[] = {"name", "type", "count"};
	switch (o->id) {
	case INFO_VERBOSE: c->verbose = true; return 0;
	case INFO_TOPIC_NAME: c->names_only = true; return 0;
	case APP_S_STORAGE: return app_read_storage_arg(c->cmd, arg, &c->storage);
	case INFO_SORT:
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
			if (!strcasecmp(arg, keys[i])) {
				c->sort = (enum info_sort)i;
				return 0;
			}
		return app_usage_error(c->cmd, "--sort is name, type or count, not '%s'", arg);
	default: return app_usage_error(c->cmd, "unhandled option --%s", o->lng);
	}
}

/* ---- the order topics are listed in (--sort) ---- */

struct info_key {
	const char *name, *type;
	uint64_t count;
	size_t index;
	enum info_sort by; /* in every key: qsort's comparator has no context */
};

/* As rosbag2's info sorts: ascending by the key; equal keys by name. */
static int info_key_cmp(const void *a, const void *b)
{
	const struct info_key *x = a, *y = b;
	int c = 0;
	if (x->by == INFO_SORT_TYPE)
		c = strcmp(x->type, y->type);
	else if (x->by == INFO_SORT_COUNT)
		c = (x->count > y->count) - (x->count < y->count);
	if (c == 0)
		c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* keys[0..n) (each with its `by`) sorted in place; returns keys. */
static struct info_key *info_sort_keys(struct info_key *keys, size_t n)
{
	if (n)
		qsort(keys, n, sizeof *keys, info_key_cmp);
	return keys;
}

/* metadata's topics in --sort's order (indexes into md->topics). */
static struct info_key *info_md_order(const struct bag_metadata *md, enum info_sort by)
{
	struct info_key *k = bt_xcalloc(md->n_topics + 1, sizeof *k);
	for (size_t i = 0; i < md->n_topics; i++)
		k[i] = (struct info_key){md->topics[i].topic.name, md->topics[i].topic.type,
					 md->topics[i].message_count, i, by};
	return info_sort_keys(k, md->n_topics);
}

#define INFO_INDENT "                   " /* 19 columns, as ros2 bag info */

static void info_time_line(const char *label, int64_t ns)
{
	char t[112];
	bt_time_format_both(ns, t, sizeof t);
	printf("%s%s\n", label, t);
}

/* What -v read from every message (app_info_scan). */
struct info_scan {
	struct app_info_scan_topic *t;
	size_t n;
};

static bool info_is_service(const struct bag_topic *t)
{
	return bt_str_ends_with(t->name, BTDDS_SERVICE_EVENT_SUFFIX);
}

/* What -v adds to a topic's or service's line, as `ros2 bag info -v`: a
 * service's requests and responses instead of its event count, and the
 * bytes of its messages; `s` NULL: the event count alone. */
static void info_counts(const struct bag_topic_info *ti, bool service,
			const struct app_info_scan_topic *s)
{
	char size[32];
	if (s == NULL) {
		printf("%s: %" PRIu64, service ? "Event Count" : "Count", ti->message_count);
		return;
	}
	bt_fmt_iec(s->bytes, size, sizeof size);
	if (service)
		printf("Request Count: %" PRIu64 " | Response Count: %" PRIu64, s->requests,
		       s->responses);
	else
		printf("Count: %" PRIu64, ti->message_count);
	printf(" | Size Contribution: %s", size);
}

static void info_topics(const struct bag_metadata *md, const struct info_key *order,
			bool services, const struct info_scan *scan)
{
	size_t shown = 0;
	for (size_t i = 0; i < md->n_topics; i++) {
		const struct bag_topic_info *ti = &md->topics[order[i].index];
		if (info_is_service(&ti->topic) != services)
			continue;
		const char *name = ti->topic.name, *type = ti->topic.type;
		int name_len = (int)strlen(name), type_len = (int)strlen(type);
		/* "/svc/_service_event" of "pkg/srv/X_Event" is service "/svc" of "pkg/srv/X" */
		if (services) {
			name_len -= (int)strlen(BTDDS_SERVICE_EVENT_SUFFIX);
			if (bt_str_ends_with(type, "_Event"))
				type_len -= 6;
		}
		printf("%s%s: %.*s | Type: %.*s | ",
		       shown++ ? (services ? INFO_INDENT "  " : INFO_INDENT) : "",
		       services ? "Service" : "Topic", name_len, name, type_len, type);
		info_counts(ti, services,
			    scan ? app_info_scan_find(scan->t, scan->n, name) : NULL);
		printf(" | Serialization Format: %s\n", ti->topic.serialization_format);
	}
	if (!shown)
		printf("\n");
}

static size_t info_count_services(const struct bag_metadata *md)
{
	size_t n = 0;
	for (size_t i = 0; i < md->n_topics; i++)
		n += info_is_service(&md->topics[i].topic);
	return n;
}

/* "rosbag2 metadata v5 (humble), sqlite schema 3": the layout the bag was
 * written in (--compat), schemas as the files hold them (sqlite3 files
 * only: an MCAP file has no schema version). */
static void info_layout(const struct bag_metadata *md, const struct bag_reader *r)
{
	int lo = 0, hi = 0;
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		int s = bag_reader_file(r, i)->schema_version;
		lo = !i || s < lo ? s : lo;
		hi = !i || s > hi ? s : hi;
	}
	printf("Layout:            rosbag2 metadata v%d (%s)", md->version,
	       bag_layout_distro(md->version));
	const struct bag_reader_file *f0 = bag_reader_n_files(r) ? bag_reader_file(r, 0) : NULL;
	if (!f0 || (f0->storage && strcmp(f0->storage->identifier, "sqlite3") != 0))
		printf("\n");
	else if (lo == hi)
		printf(", sqlite schema %d\n", lo);
	else
		printf(", sqlite schema %d..%d\n", lo, hi);
}

static void info_summary(const struct bag_metadata *md, const struct bag_reader *r,
			 const struct info_key *order, const struct info_scan *scan)
{
	uint64_t size = bag_reader_size(r);
	char buf[64];
	printf("\nFiles:             ");
	for (size_t i = 0; i < md->n_paths; i++)
		printf("%s%s\n", i ? INFO_INDENT : "", md->relative_file_paths[i]);
	if (!md->n_paths)
		printf("\n");
	bt_fmt_iec(size, buf, sizeof buf);
	printf("Bag size:          %s\n", buf);
	printf("Storage id:        %s\n", md->storage_identifier);
	printf("ROS Distro:        %s\n", md->ros_distro[0] ? md->ros_distro : "unknown");
	info_layout(md, r);
	if (md->compression_mode[0])
		printf("Compression:       %s (%s)\n", md->compression_format, md->compression_mode);
	bt_fmt_duration(md->duration, buf, sizeof buf);
	printf("Duration:          %s\n", buf);
	int64_t end;
	if (md->message_count && md->starting_time != BAG_TIME_NONE) {
		info_time_line("Start:             ", md->starting_time);
		if (__builtin_add_overflow(md->starting_time, md->duration, &end))
			printf("End:               (beyond the range of a timestamp)\n");
		else
			info_time_line("End:               ", end);
	} else {
		printf("Start:             (no messages)\nEnd:               (no messages)\n");
	}
	printf("Messages:          %" PRIu64 "\n", md->message_count);
	printf("Topic information: ");
	info_topics(md, order, false, scan);
	printf("Service:           %zu\n", info_count_services(md));
	printf("Service information: ");
	info_topics(md, order, true, scan);
}

static void info_files_detail(const struct bag_reader *r)
{
	int w = 32; /* the names' column: as wide as the longest */
	for (size_t i = 0; i < bag_reader_n_files(r); i++)
		if ((int)strlen(bag_reader_file(r, i)->name) > w)
			w = (int)strlen(bag_reader_file(r, i)->name);
	printf("\nStorage files (as read from disk):\n");
	printf("  %-3s %-*s %10s %6s %10s  %-30s %s\n", "#", w, "File", "Size", "Schema",
	       "Messages", "Start", "Duration");
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		char size[32], start[64] = "-", dur[40] = "-";
		bt_fmt_iec(f->size, size, sizeof size);
		if (f->message_count) {
			bt_time_format_date(f->start, start, sizeof start);
			bt_fmt_duration(bag_span(f->start, f->end), dur, sizeof dur);
		}
		/* the sqlite schema; an MCAP file has none */
		char schema[16] = "-";
		if (!f->storage || !strcmp(f->storage->identifier, "sqlite3"))
			snprintf(schema, sizeof schema, "%d", f->schema_version);
		printf("  %-3zu %-*s %10s %6s %10" PRIu64 "  %-30s %s\n", i, w, f->name, size, schema,
		       f->message_count, start, dur);
	}
}

/* Under this span a quotient is noise (3 messages in 12 us are not
 * "164771 Hz"). */
#define INFO_MIN_RATE_SPAN_NS INT64_C(1000000)

/* The one rate info prints, as average_rate_hz in metadata.yaml: messages
 * over the bag's duration (over the file's, per file); "-" for fewer than
 * two messages or a duration under 1 ms. */
static void info_rate(uint64_t messages, int64_t duration_ns, double rate, char *out, size_t cap)
{
	if (messages < 2 || duration_ns < INFO_MIN_RATE_SPAN_NS)
		snprintf(out, cap, "-");
	else
		snprintf(out, cap, "%.3f", rate);
}

struct info_span {
	int64_t first, last;
};

static struct info_span info_topic_span(const struct bag_reader *r, size_t topic)
{
	struct info_span s = {BAG_TIME_NONE, INT64_MIN};
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		for (size_t k = 0; k < f->n_topics; k++) {
			const struct bag_reader_file_topic *ft = &f->topics[k];
			if (ft->topic != topic || !ft->count)
				continue;
			if (ft->start < s.first)
				s.first = ft->start;
			if (ft->end > s.last)
				s.last = ft->end;
		}
	}
	return s;
}

static void info_topic_files(const struct bag_reader *r, size_t topic)
{
	printf("      per file:");
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		uint64_t n = 0;
		for (size_t k = 0; k < f->n_topics; k++)
			if (f->topics[k].topic == topic)
				n += f->topics[k].count;
		printf(" %" PRIu64, n);
	}
	printf("\n");
}

static void info_topic_qos(const struct bag_topic *t)
{
	printf("      offered QoS: %zu publisher%s", t->n_qos, t->n_qos == 1 ? "" : "s");
	for (size_t q = 0; q < t->n_qos; q++)
		printf("%s%s/%s", q ? ", " : " (", bag_qos_reliability_name(t->qos[q].reliability),
		       bag_qos_durability_name(t->qos[q].durability));
	printf("%s\n", t->n_qos ? ")" : "");
}

static void info_topics_detail(const struct bag_reader *r, enum info_sort by)
{
	size_t n;
	const struct bag_reader_topic *t = bag_reader_topics(r, &n);
	int64_t bag_ns = bag_span(bag_reader_start(r), bag_reader_end(r));
	struct info_key *order = bt_xcalloc(n + 1, sizeof *order);
	for (size_t i = 0; i < n; i++)
		order[i] = (struct info_key){t[i].topic.name, t[i].topic.type, t[i].count, i, by};
	info_sort_keys(order, n);
	printf("\nTopics (as read from disk; rate = messages / bag duration):\n");
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k].index;
		struct info_span s = info_topic_span(r, i);
		char rate[64];
		info_rate(t[i].count, bag_ns, bag_stats_rate(t[i].count, bag_ns), rate, sizeof rate);
		printf("  %s  [%s]  %" PRIu64 " message%s, rate %s Hz\n", t[i].topic.name,
		       t[i].topic.type, t[i].count, bt_fmt_s(t[i].count), rate);
		if (t[i].count) {
			char a[40], b[40];
			bt_time_format_sec(s.first, a, sizeof a);
			bt_time_format_sec(s.last, b, sizeof b);
			printf("      first %s, last %s\n", a, b);
		}
		info_topic_files(r, i);
		info_topic_qos(&t[i].topic);
	}
	free(order);
}

/* ---- message definitions ---- */

#define INFO_RULE "================================================================================\n"

/* Types in a definition: the root and each chunk after a delimiter. */
static size_t info_def_types(const char *text)
{
	size_t n = 0;
	for (const char *p = text; (p = strstr(p, "\n" INFO_RULE)) != NULL; p++)
		n++;
	return text[0] == '\0' ? 0 : n + 1;
}

/* Where a definition in the bag came from, as far as the bag tells: the
 * text bagtop's built-in set gives for a distro, or interface files (a ROS
 * installation, --message-definitions-path, or another recorder); OMG
 * IDL ("omgidl") is what the publisher's XTypes type information gave for
 * a plain DDS type. The recorder's log names the source as it was found. */
static void info_def_source(const struct bag_msgdef *d, char *out, size_t n)
{
	if (d->encoded_message_definition[0] == '\0') {
		snprintf(out, n, "none%s", strcmp(d->encoding, "unknown") == 0
						   ? " (not a ROS 2 type name)" : "");
		return;
	}
	if (strcmp(d->encoding, BTDDS_XT_ENCODING) == 0) {
		snprintf(out, n, "XTypes type information");
		return;
	}
	size_t len = (size_t)snprintf(out, n, "built-in (");
	for (const char *const *distro = defs_builtin_distros(); *distro != NULL; distro++) {
		struct defs_options o = {.distro = *distro, .quiet = true};
		struct defs_source *s = NULL;
		struct bt_error err;
		if (defs_source_new(&o, &s, &err) != BT_OK)
			continue;
		struct defs_result r;
		defs_source_lookup(s, d->topic_type, &r);
		if (strcmp(r.text, d->encoded_message_definition) == 0 && len < n)
			len += (size_t)snprintf(out + len, n - len, "%s%s", out[len - 1] == '(' ? "" : ", ",
						*distro);
		defs_result_fini(&r);
		defs_source_free(s);
	}
	if (out[len - 1] == '(')
		snprintf(out, n, "interface files");
	else if (len < n)
		snprintf(out + len, n - len, ")");
}

/* What the recorder said about a type it asked a node for (metadata.yaml's
 * message_definition_sources), or NULL. */
static const char *info_def_asked(const struct bag_reader *r, const char *type)
{
	const struct bag_metadata *md = bag_reader_metadata(r);
	for (size_t i = 0; md != NULL && i < md->n_def_sources; i++)
		if (strcmp(md->def_sources[i].key, type) == 0)
			return md->def_sources[i].value;
	return NULL;
}

static void info_definitions(const struct bag_reader *r)
{
	struct bag_msgdef *d = NULL;
	size_t n = 0;
	struct bt_error err;
	if (bag_msgdefs_read(r, &d, &n, &err) != BT_OK) {
		printf("\nMessage definitions: cannot be read: %s\n", err.msg);
		return;
	}
	if (n == 0)
		return;
	printf("\nMessage definitions (source: bagtop's built-in set, interface files, a node's "
	       "get_type_description, XTypes type information, or none):\n");
	int w = 4;
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(d[i].topic_type) > w)
			w = (int)strlen(d[i].topic_type);
	for (size_t i = 0; i < n; i++) {
		char src[600];
		const char *asked = info_def_asked(r, d[i].topic_type);
		bool none = d[i].encoded_message_definition[0] == '\0';
		if (asked != NULL)
			snprintf(src, sizeof src, "%s%s%s", none ? "none (" : "", asked, none ? ")" : "");
		else
			info_def_source(&d[i], src, sizeof src);
		size_t types = info_def_types(d[i].encoded_message_definition);
		printf("  %-*s  %s", w, d[i].topic_type, src);
		if (strcmp(d[i].encoding, BTDDS_XT_ENCODING) == 0) /* IDL: no delimiters */
			printf(", %s", d[i].encoding);
		else if (types > 0)
			printf(", %s, %zu type%s", d[i].encoding, types, bt_fmt_s(types));
		printf("\n");
	}
	bag_msgdefs_free(d, n);
}

/* ---- recording statistics (bagtop's additions to metadata.yaml) ---- */

static int info_name_width(const struct bag_metadata *md, int min)
{
	int w = min;
	for (size_t i = 0; i < md->n_topics; i++)
		if ((int)strlen(md->topics[i].topic.name) > w)
			w = (int)strlen(md->topics[i].topic.name);
	for (size_t i = 0; i < md->n_files; i++)
		for (size_t k = 0; k < md->files[i].n_topics_stats; k++)
			if ((int)strlen(md->files[i].topics_stats[k].topic) + 2 > w)
				w = (int)strlen(md->files[i].topics_stats[k].topic) + 2;
	return w;
}

/* Recorded, bytes, rate over `duration_ns`, and the two loss totals
 * ("unknown" when not known: never a figure that was not measured). */
static void info_stats_cells(const struct bag_stats *st, int64_t duration_ns)
{
	char rate[64];
	info_rate(st->messages_recorded, duration_ns, st->average_rate_hz, rate, sizeof rate);
	printf(" %10" PRIu64 " %14" PRIu64 " %10s", st->messages_recorded, st->bytes_written,
	       rate);
	if (st->losses_known)
		printf(" %10" PRIu64 " %10" PRIu64, st->lost_in_transport, st->lost_in_recorder);
	else
		printf(" %10s %10s", "unknown", "unknown");
}

/* "Gaps + Rejected": the column headings of group `g`'s causes. */
static void info_cause_sum(enum bag_loss_group g)
{
	for (int k = 0, n = 0; k < BAG_N_COUNTERS; k++)
		if (bag_loss_causes[k].group == g)
			printf("%s%s", n++ ? " + " : "", bag_loss_causes[k].col);
}

static void info_stats_topics(const struct bag_metadata *md, const struct info_key *order, int w)
{
	printf("\nRecording statistics per topic (Rate = messages / bag duration; lost in\n"
	       "Transport = ");
	info_cause_sum(BAG_LOSS_TRANSPORT);
	printf(",\nin Recorder = ");
	info_cause_sum(BAG_LOSS_RECORDER);
	printf(";\nnot lost: ");
	info_cause_sum(BAG_LOSS_SKIPPED);
	printf(" = above a --throttle rate");
	printf("):\n  %-*s %10s %14s %10s %10s %10s", w, "Topic", "Recorded", "Bytes", "Rate Hz",
	       "Transport", "Recorder");
	for (int k = 0; k < BAG_N_COUNTERS; k++)
		printf(" %8s", bag_loss_causes[k].col);
	printf("\n");
	for (size_t i = 0; i < md->n_topics; i++) {
		const struct bag_topic_info *ti = &md->topics[order[i].index];
		printf("  %-*s", w, ti->topic.name);
		if (!ti->has_stats) {
			printf(" (no statistics)\n");
			continue;
		}
		info_stats_cells(&ti->stats, md->duration);
		for (int k = 0; ti->stats.has_causes && k < BAG_N_COUNTERS; k++)
			printf(" %8" PRIu64, bag_losses_get(&ti->stats.causes, k));
		printf("\n");
	}
}

static void info_stats_files(const struct bag_metadata *md, int w)
{
	printf("\nRecording statistics per file (Rate = messages / file duration; a topic not\n"
	       "listed recorded and lost nothing in that file):\n");
	printf("  %-*s %10s %14s %10s %10s %10s\n", w, "File / Topic", "Recorded", "Bytes",
	       "Rate Hz", "Transport", "Recorder");
	for (size_t i = 0; i < md->n_files; i++) {
		const struct bag_file_info *f = &md->files[i];
		printf("  %s%s\n", f->path, f->has_stats ? "" : "  (no statistics: not closed)");
		for (size_t k = 0; k < f->n_topics_stats; k++) {
			printf("    %-*s", w - 2, f->topics_stats[k].topic);
			info_stats_cells(&f->topics_stats[k].stats, f->duration);
			printf("\n");
		}
	}
}

static void info_stats(const struct bag_metadata *md, const struct info_key *order)
{
	if (!bag_metadata_has_stats(md))
		return; /* not recorded by bagtop: nothing to show, nothing to invent */
	int w = info_name_width(md, 12);
	info_stats_topics(md, order, w);
	info_stats_files(md, w);
}

static void info_custom(const struct bag_metadata *md)
{
	if (!md->n_custom_data)
		return;
	printf("\nCustom data:\n");
	for (size_t i = 0; i < md->n_custom_data; i++)
		printf("  %s: %s\n", md->custom_data[i].key, md->custom_data[i].value);
}

static void info_mismatch_note(const struct bag_metadata *md, const struct bag_reader *r)
{
	uint64_t n = bag_reader_message_count(r);
	if (md->message_count != n || md->n_paths != bag_reader_n_files(r))
		printf("\nNote: metadata.yaml does not match the storage files (they hold %" PRIu64
		       " message%s in %zu file%s); 'bagtop check' lists the differences, "
		       "'bagtop reindex' rewrites it.\n", n, bt_fmt_s(n), bag_reader_n_files(r),
		       bt_fmt_s(bag_reader_n_files(r)));
}

/* -t: the topics' names, services' event topics left out (as rosbag2). */
static void info_names(const struct bag_metadata *md, const struct info_key *order)
{
	for (size_t i = 0; i < md->n_topics; i++)
		if (!info_is_service(&md->topics[order[i].index].topic))
			printf("%s\n", order[i].name);
}

/* -v: every message read once, by a reader of its own (app_info_scan);
 * NULL, said on stderr, when they cannot all be read. */
static struct info_scan *info_scan_new(const char *path)
{
	struct bag_reader *r;
	struct bt_error err;
	struct info_scan *s = bt_xcalloc(1, sizeof *s);
	bt_status st = bag_reader_open(path, 0, &r, &err);
	if (st == BT_OK) {
		st = app_info_scan(r, &s->t, &s->n, &err);
		bag_reader_close(r);
	}
	if (st != BT_OK) {
		fprintf(stderr, "bagtop: warning: -v: not every message could be read (%s): no "
				"sizes, request or response counts\n", err.msg);
		free(s);
		return NULL;
	}
	return s;
}

static void info_scan_free(struct info_scan *s)
{
	if (s != NULL)
		app_info_scan_free(s->t, s->n);
	free(s);
}

static void info_print(const struct info_ctx *c, const struct bag_metadata *md,
		       const struct bag_reader *r, bool built, const char *path)
{
	struct info_key *order = info_md_order(md, c->sort);
	if (c->names_only && !c->verbose) {
		info_names(md, order);
		free(order);
		return;
	}
	struct info_scan *scan = c->verbose ? info_scan_new(path) : NULL;
	info_summary(md, r, order, scan);
	info_scan_free(scan);
	if (!built)
		info_mismatch_note(md, r);
	if (c->verbose) {
		info_files_detail(r);
		info_topics_detail(r, c->sort);
		info_definitions(r);
		info_stats(md, order);
		info_custom(md);
	}
	free(order);
}

static int info_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct info_ctx ctx = {.cmd = cmd};
	int first;
	int rc = app_opts_parse(cmd, argc, argv, info_opt, &ctx, &first);
	if (rc)
		return rc < 0 ? APP_EXIT_OK : rc;
	if (argc - first != 1)
		return app_usage_error(cmd, "expects one BAG: a bag directory or a storage file");
	if (ctx.names_only && ctx.verbose) /* as ros2 bag info says it */
		fprintf(stderr, "bagtop: warning: -t is ignored with -v\n");
	rc = app_read_storage_expect(argv[first], ctx.storage);
	if (rc)
		return rc;
	struct bag_reader *r;
	struct bt_error err;
	if (bag_reader_open(argv[first], 0, &r, &err) != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_ERROR;
	}
	const struct bag_metadata *md = bag_reader_metadata(r);
	struct bag_metadata built;
	if (!md) {
		bag_reindex_build(r, &built);
		md = &built;
	}
	info_print(&ctx, md, r, md == &built, argv[first]);
	if (md == &built)
		bag_metadata_fini(&built);
	bag_reader_close(r);
	return APP_EXIT_OK;
}

const struct app_cmd app_cmd_info = {
	"info", "BAG",
	"Print a summary of a bag, as 'ros2 bag info' does.",
	"\nBAG is a bag directory or a single .db3 / .db3.zstd / .mcap file. The summary\n"
	"shows metadata.yaml as written (from the files when there is none); -v reads\n"
	"every message, as 'ros2 bag info -v' does (each topic's Size Contribution,\n"
	"each service's Request and Response Count), and adds what the storage files\n"
	"themselves hold, per file and per topic, and the recording statistics\n"
	"(messages, bytes, rates, losses) of a bag recorded by bagtop.\n",
	info_opts, sizeof info_opts / sizeof info_opts[0], info_run};
