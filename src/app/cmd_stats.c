/* bagtop stats: the live statistics of every recorder running on a domain
 * (rec_stats_sub), as a table per recorder in the style of `bagtop info`,
 * or as JSON. One-shot by default; --watch prints each new sample until
 * SIGINT / SIGTERM / SIGHUP (blocked before DDS starts its threads and
 * received with sigtimedwait, as app_record does). */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "bt_fmt.h"
#include "bt_parse.h"
#include "app_ros_env.h"
#include "bt_time.h"
#include "rec_stats_sub.h"

enum { STATS_DOMAIN = 1, STATS_JSON, STATS_TIMEOUT, STATS_WATCH };

#define STATS_POLL_NS (100 * INT64_C(1000000))
#define STATS_SETTLE_NS (500 * INT64_C(1000000)) /* for writers not yet discovered */

static const struct app_opt stats_opts[] = {
	{"domain", 0, "ID", "DDS domain id (default: ROS_DOMAIN_ID, else 0)", STATS_DOMAIN},
	{"json", 0, NULL, "print JSON instead of tables", STATS_JSON},
	{"timeout", 0, "SECONDS", "wait this long for recorders (default 2)", STATS_TIMEOUT},
	{"watch", 0, NULL, "print every new sample until Ctrl-C", STATS_WATCH},
};

struct stats_ctx {
	const struct app_cmd *cmd;
	uint32_t domain;
	bool json, watch;
	int64_t timeout_ns;
	struct btdds_env env;
};

static int stats_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct stats_ctx *c = ctx;
	switch (o->id) {
	case STATS_DOMAIN: return app_ros_env_domain(c->cmd, arg, &c->domain);
	case STATS_TIMEOUT:
		if (bt_parse_seconds(arg, &c->timeout_ns) != BT_OK || c->timeout_ns <= 0)
			return app_usage_error(c->cmd, "--timeout wants seconds > 0, got '%s'",
					       arg);
		return 0;
	case STATS_JSON: c->json = true; return 0;
	default: c->watch = true; return 0;
	}
}

static const char *stats_state_name(enum rec_stats_state s)
{
	static const char *const names[] = {"recording", "paused", "write failed", "stopped"};
	return (unsigned)s < 4 ? names[s] : "unknown";
}

/* ---- the table ---- */

static void stats_time_line(const char *label, int64_t ns)
{
	char t[112];
	bt_time_format_both(ns, t, sizeof t);
	printf("%s%s\n", label, t);
}

static void stats_header(const struct rec_stats_sample *r)
{
	char host[300], bag[1024], file[1024], bytes[32], fill[32], max[32];
	app_escape(r->host, host, sizeof host);
	app_escape(r->bag, bag, sizeof bag);
	app_escape(r->current_file, file, sizeof file);
	const struct rec_stats_totals *t = &r->totals;
	bt_fmt_iec(t->bytes, bytes, sizeof bytes);
	bt_fmt_iec(t->cache_fill, fill, sizeof fill);
	bt_fmt_iec(t->cache_max, max, sizeof max);
	printf("Recorder:          %s, pid %" PRId32 " (bagtop %s, id %s)\n", host, r->pid,
	       r->version, r->id);
	printf("Bag:               %s\n", bag);
	printf("State:             %s\n", stats_state_name(r->state));
	printf("File:              %s (index %" PRIu32 ")\n", file[0] ? file : "-", r->file_index);
	stats_time_line("Started:           ", r->start_time);
	stats_time_line("Updated:           ", r->time);
	printf("Sample:            %" PRIu64 " (every %g s)\n", r->serial,
	       r->update_rate > 0 ? 1.0 / r->update_rate : 0.0);
	printf("Messages:          %" PRIu64 " recorded of %" PRIu64 " received (%s)\n",
	       t->recorded, t->received, bytes);
	printf("Lost:              %" PRIu64 " in transport, %" PRIu64 " in recorder\n",
	       t->lost_transport, t->lost_recorder);
	if (t->throttled != 0)
		printf("Throttled:         %" PRIu64 " (above a --throttle rate; not lost)\n",
		       t->throttled);
	printf("Cache:             %s of %s\n", fill, max);
	printf("Topics:            %" PRIu32 " seen, %" PRIu32 " recorded\n", t->topics_seen,
	       t->topics_recorded);
}

static int stats_width(const struct rec_stats_sample *r, bool type, int min)
{
	int w = min;
	for (size_t i = 0; i < r->n_rows; i++) {
		int len = (int)strlen(type ? r->rows[i].type : r->rows[i].name);
		if (len > w)
			w = len;
	}
	return w > 60 ? 60 : w;
}

static void stats_table(const struct rec_stats_sample *r)
{
	stats_header(r);
	if (r->n_rows == 0)
		return;
	int nw = stats_width(r, false, 5), tw = stats_width(r, true, 4);
	printf("\n  %-*s  %-*s %10s %10s %14s %13s %9s %10s\n", nw, "Topic", tw, "Type",
	       "Recorded", "Bytes", "Lost transport", "Lost recorder", "Rate (Hz)", "Throttled");
	for (size_t i = 0; i < r->n_rows; i++) {
		const struct rec_stats_row *w = &r->rows[i];
		char name[512], type[512], bytes[32];
		app_escape(w->name, name, sizeof name);
		app_escape(w->type, type, sizeof type);
		bt_fmt_iec(w->bytes, bytes, sizeof bytes);
		printf("  %-*s  %-*s %10" PRIu64 " %10s %14" PRIu64 " %13" PRIu64 " %9.1f %10" PRIu64
		       "\n",
		       nw, name, tw, type, w->recorded, bytes, w->lost_transport_total,
		       w->lost_recorder_total, w->rate_hz, w->lost.throttled);
	}
}

/* ---- JSON ---- */

static void stats_json_str(const char *s)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void stats_json_key_str(const char *key, const char *val)
{
	printf("\"%s\":", key);
	stats_json_str(val);
	putchar(',');
}

static void stats_json_loss(const struct bag_losses *l)
{
	printf("\"lost\":{");
	for (int k = 0; k < BAG_LOSS_N_CAUSES; k++)
		printf("%s\"%s\":%" PRIu64, k ? "," : "", bag_loss_causes[k].json,
		       bag_losses_get(l, k));
	printf("},");
}

static void stats_json_row(const struct rec_stats_row *w)
{
	putchar('{');
	stats_json_key_str("name", w->name);
	stats_json_key_str("type", w->type);
	stats_json_key_str("dds_name", w->dds_name);
	printf("\"publishers\":%" PRIu32 ",\"subscribed\":%s,\"enabled\":%s,\"reliable\":%s,"
	       "\"transient_local\":%s,",
	       w->publishers, w->subscribed ? "true" : "false", w->enabled ? "true" : "false",
	       w->reliable ? "true" : "false", w->transient_local ? "true" : "false");
	printf("\"received\":%" PRIu64 ",\"recorded\":%" PRIu64 ",\"bytes\":%" PRIu64 ",",
	       w->received, w->recorded, w->bytes);
	stats_json_loss(&w->lost);
	printf("\"throttled\":%" PRIu64 ",", w->lost.throttled); /* no loss: not under "lost" */
	printf("\"lost_in_transport\":%" PRIu64 ",\"lost_in_recorder\":%" PRIu64
	       ",\"rate_hz\":%.3f,\"bandwidth_bps\":%.1f,\"average_rate_hz\":%.3f,"
	       "\"last_receive_time\":%" PRId64 ",",
	       w->lost_transport_total, w->lost_recorder_total, w->rate_hz, w->bandwidth_bps,
	       w->average_rate_hz, w->last_receive_time);
	printf("\"file_received\":%" PRIu64 ",\"file_average_rate_hz\":%.3f,"
	       "\"file_recorded\":%" PRIu64 ",\"file_bytes\":%" PRIu64
	       ",\"file_lost_in_transport\":%" PRIu64 ",\"file_lost_in_recorder\":%" PRIu64 "}",
	       w->file_received, w->file_average_rate_hz, w->file_recorded, w->file_bytes,
	       w->file_lost_transport, w->file_lost_recorder);
}

static void stats_json(const struct rec_stats_sample *r)
{
	const struct rec_stats_totals *t = &r->totals;
	putchar('{');
	stats_json_key_str("id", r->id);
	stats_json_key_str("host", r->host);
	printf("\"pid\":%" PRId32 ",", r->pid);
	stats_json_key_str("version", r->version);
	stats_json_key_str("bag", r->bag);
	stats_json_key_str("state", stats_state_name(r->state));
	stats_json_key_str("current_file", r->current_file);
	printf("\"file_index\":%" PRIu32 ",\"start_time\":%" PRId64 ",\"time\":%" PRId64
	       ",\"file_start_time\":%" PRId64 ",\"serial\":%" PRIu64 ",\"update_rate\":%g,",
	       r->file_index, r->start_time, r->time, r->file_start_time, r->serial,
	       r->update_rate);
	printf("\"totals\":{\"topics_seen\":%" PRIu32 ",\"topics_recorded\":%" PRIu32
	       ",\"received\":%" PRIu64 ",\"recorded\":%" PRIu64 ",\"bytes\":%" PRIu64
	       ",\"lost_in_transport\":%" PRIu64 ",\"lost_in_recorder\":%" PRIu64
	       ",\"cache_fill\":%" PRIu64 ",\"cache_max\":%" PRIu64 ",\"throttled\":%" PRIu64
	       "},\"topics\":[",
	       t->topics_seen, t->topics_recorded, t->received, t->recorded, t->bytes,
	       t->lost_transport, t->lost_recorder, t->cache_fill, t->cache_max, t->throttled);
	for (size_t i = 0; i < r->n_rows; i++) {
		if (i)
			putchar(',');
		stats_json_row(&r->rows[i]);
	}
	printf("]}");
}

/* ---- running ---- */

static void stats_print(void *ctx, const struct rec_stats_sample *r)
{
	const struct stats_ctx *c = ctx;
	if (c->json) {
		stats_json(r);
		putchar('\n');
	} else {
		stats_table(r);
		putchar('\n');
	}
	fflush(stdout);
}

/* Waits until every discovered recorder answered (after a short settle
 * time for late discovery) or the timeout. */
static bt_status stats_gather(struct rec_stats_sub *s, int64_t timeout_ns)
{
	int64_t t0 = bt_time_monotonic_ns(), now = t0;
	int64_t settle = timeout_ns < STATS_SETTLE_NS ? timeout_ns : STATS_SETTLE_NS;
	while (now - t0 < timeout_ns) {
		int64_t left = timeout_ns - (now - t0);
		int64_t wait = left < STATS_POLL_NS ? left : STATS_POLL_NS;
		if (rec_stats_sub_poll(s, wait, NULL, NULL) < 0)
			return BT_ERR_DDS;
		now = bt_time_monotonic_ns();
		if (now - t0 >= settle && rec_stats_sub_complete(s))
			break;
	}
	return BT_OK;
}

static void stats_print_all(const struct stats_ctx *c, const struct rec_stats_sub *s)
{
	size_t n = rec_stats_sub_count(s);
	if (c->json && !c->watch)
		printf("{\"recorders\":[");
	for (size_t i = 0; i < n; i++) {
		if (c->json && !c->watch) {
			printf(i ? ",\n" : "\n");
			stats_json(rec_stats_sub_get(s, i));
		} else {
			stats_print((void *)c, rec_stats_sub_get(s, i));
		}
	}
	if (c->json && !c->watch)
		printf("\n]}\n");
}

/* --watch: every new sample until a signal. */
static int stats_watch(struct stats_ctx *c, struct rec_stats_sub *s, const sigset_t *sigs)
{
	const struct timespec zero = {0, 0};
	while (sigtimedwait(sigs, NULL, &zero) < 0)
		if (rec_stats_sub_poll(s, STATS_POLL_NS, stats_print, c) < 0) {
			app_error("reading the statistics failed (DDS)");
			return APP_EXIT_DDS;
		}
	return APP_EXIT_OK;
}

static int stats_show(struct stats_ctx *c)
{
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	if (c->watch) /* before DDS starts its threads: they inherit the mask */
		pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	struct rec_stats_sub *s;
	struct bt_error err;
	if (rec_stats_sub_open(c->domain, &c->env, &s, &err) != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_DDS;
	}
	int rc = APP_EXIT_OK;
	if (stats_gather(s, c->timeout_ns) != BT_OK) {
		app_error("reading the statistics failed (DDS)");
		rc = APP_EXIT_DDS;
	} else if (rec_stats_sub_count(s) == 0 && !c->watch) {
		char dom[32] = "the default domain";
		uint32_t id; /* the one joined: the default is 0 or Cyclone's */
		if (rec_stats_sub_domain(s, &id))
			snprintf(dom, sizeof dom, "domain %" PRIu32, id);
		app_error("no bagtop recorder answered on %s within %g s", dom,
			  (double)c->timeout_ns / 1e9);
		rc = APP_EXIT_ERROR;
	} else {
		stats_print_all(c, s);
		fflush(stdout);
		if (c->watch)
			rc = stats_watch(c, s, &sigs);
	}
	rec_stats_sub_close(s);
	return rc;
}

static int stats_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct stats_ctx c = {.cmd = cmd, .domain = UINT32_MAX, .timeout_ns = 2 * BT_NS_PER_S};
	int rc = app_opts_no_operand(cmd, argc, argv, stats_opt, &c);
	if (rc == 0)
		rc = app_ros_env_read(cmd, &c.env, &c.domain);
	if (rc == 0)
		rc = stats_show(&c);
	btdds_env_fini(&c.env);
	return rc < 0 ? APP_EXIT_OK : rc;
}

const struct app_cmd app_cmd_stats = {
	"stats", NULL,
	"Show the live statistics of every recorder running on a DDS domain.",
	"\nReads what each 'bagtop record' publishes at --statistics-update-rate on\n"
	"the DDS topic BagtopStatistics (transient-local: the latest at once) and\n"
	"prints, per recorder, its state and per topic what was recorded and lost.\n"
	"Exit status 1 when no recorder answered within the timeout.\n",
	stats_opts, sizeof stats_opts / sizeof stats_opts[0], stats_run};
