/* tpub — the test publisher: writes N messages of a known type on one topic
 * and, with --oracle, records the exact bytes Cyclone sends for each.
 *
 * The oracle comes from Cyclone's own serializer: a typed reader in this
 * process receives each sample by local (synchronous) delivery, and
 * dds_takecdr hands back the writer's serdata (or a byte copy of it when
 * the reader's sertype differs); ddsi_serdata_size/to_ser give the bytes
 * with the encapsulation header and padding, exactly what goes on the wire.
 * That reader is left out of --wait-readers.
 *
 * Exit: 0 ok, 1 readers did not match in time, 2 usage or DDS error. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dds/dds.h>
/* ddsrt/atomics/gcc.h uses the GNU keyword `asm`, absent in strict C11. */
#ifndef asm
#define asm __asm__
#endif
#include <dds/ddsi/ddsi_serdata.h>

#include "bagtest/App.h"
#include "bagtest/Keyed.h"
#include "bagtest/Rich.h"
#include "my_msgs/msg/BatteryState.h"
#include "std_msgs/msg/String.h"

enum tpub_type { TPUB_STRING, TPUB_KEYED, TPUB_APPENDABLE, TPUB_BATTERY, TPUB_RICH };

struct tpub_opts {
	uint32_t domain;
	const char *topic;
	enum tpub_type type;
	long count;
	double rate;
	bool best_effort;
	bool transient_local;
	int32_t depth;
	long size; /* -1: not given */
	long keys;
	long topics; /* > 1: NAME_0 .. NAME_{topics-1}, written round robin */
	const char *oracle;
	long wait_readers;
	double reader_for; /* --reader-for S: no writer, a reader for S seconds */
	double wait_timeout;
	double linger;
	double start_delay;
	double writer_after; /* --writer-after S: NAME_first's writer now, NAME's S later */
	const char *user_data; /* the writer's USER_DATA, as an Iron+ rmw sets it */
	long long source_time; /* --source-time NS: message i's source timestamp NS + i us */
};

struct tpub {
	struct tpub_opts o;
	dds_entity_t pp, topic, writer, oracle_rd;
	dds_instance_handle_t oracle_ih;
	FILE *oracle;
	char *text;      /* string buffer for String / App */
	uint8_t *bytes;  /* payload buffer for Keyed */
	dds_entity_t *writers; /* --topics: one writer per topic */
};

static void tpub_usage(void)
{
	fprintf(stderr,
		"usage: tpub --domain N --topic NAME --type string|keyed|appendable|battery|rich\n"
		"            [--count N]\n"
		"            [--rate HZ] [--best-effort] [--transient-local] [--depth N]\n"
		"            [--size BYTES] [--keys K] [--oracle FILE] [--wait-readers N]\n"
		"            [--wait-timeout S] [--linger S] [--start-delay S] [--topics N]\n"
		"            [--user-data TEXT] [--reader-for S] [--writer-after S]\n"
		"            [--source-time NS]\n"
		"  --reader-for S  no writer: a reader on the topic for S seconds\n"
		"  --writer-after S  a writer on NAME_first at once (never written), NAME's S later:\n"
		"                    a new publisher of a participant already known\n"
		"  --topics N  publish NAME_0 .. NAME_{N-1}, messages round robin (load tests)\n"
		"  --user-data TEXT  the writers' USER_DATA QoS, e.g. 'typehash=RIHS01_<64 hex>;'\n"
		"  --source-time NS  message i goes out with DDS source timestamp NS + i * 1000\n"
		"                    (ns since the epoch) instead of the time of the write\n");
	exit(2);
}

static void tpub_die(const char *what, dds_return_t rc)
{
	fprintf(stderr, "tpub: %s: %s\n", what, dds_strretcode(rc));
	exit(2);
}

static long tpub_long(const char *s, long min)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < min)
		tpub_usage();
	return v;
}

static double tpub_double(const char *s)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0.0))
		tpub_usage();
	return v;
}

static enum tpub_type tpub_parse_type(const char *s)
{
	if (!strcmp(s, "string"))
		return TPUB_STRING;
	if (!strcmp(s, "keyed"))
		return TPUB_KEYED;
	if (!strcmp(s, "appendable"))
		return TPUB_APPENDABLE;
	if (!strcmp(s, "battery"))
		return TPUB_BATTERY;
	if (!strcmp(s, "rich"))
		return TPUB_RICH;
	tpub_usage();
	return TPUB_STRING;
}

static void tpub_parse(struct tpub_opts *o, int argc, char **argv)
{
	*o = (struct tpub_opts){.count = 10, .rate = 100.0, .depth = 100, .size = -1, .keys = 1,
				.wait_timeout = 10.0};
	bool have_domain = false, have_type = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--best-effort")) {
			o->best_effort = true;
			continue;
		}
		if (!strcmp(a, "--transient-local")) {
			o->transient_local = true;
			continue;
		}
		if (i + 1 >= argc)
			tpub_usage();
		const char *v = argv[++i];
		if (!strcmp(a, "--domain")) {
			o->domain = (uint32_t)tpub_long(v, 0);
			have_domain = true;
		} else if (!strcmp(a, "--topic")) {
			o->topic = v;
		} else if (!strcmp(a, "--type")) {
			o->type = tpub_parse_type(v);
			have_type = true;
		} else if (!strcmp(a, "--count")) {
			o->count = tpub_long(v, 0);
		} else if (!strcmp(a, "--rate")) {
			o->rate = tpub_double(v);
		} else if (!strcmp(a, "--depth")) {
			o->depth = (int32_t)tpub_long(v, 1);
		} else if (!strcmp(a, "--size")) {
			o->size = tpub_long(v, 0);
		} else if (!strcmp(a, "--keys")) {
			o->keys = tpub_long(v, 1);
		} else if (!strcmp(a, "--topics")) {
			o->topics = tpub_long(v, 1);
		} else if (!strcmp(a, "--oracle")) {
			o->oracle = v;
		} else if (!strcmp(a, "--wait-readers")) {
			o->wait_readers = tpub_long(v, 0);
		} else if (!strcmp(a, "--wait-timeout")) {
			o->wait_timeout = tpub_double(v);
		} else if (!strcmp(a, "--linger")) {
			o->linger = tpub_double(v);
		} else if (!strcmp(a, "--user-data")) {
			o->user_data = v;
		} else if (!strcmp(a, "--reader-for")) {
			o->reader_for = tpub_double(v);
		} else if (!strcmp(a, "--start-delay")) {
			o->start_delay = tpub_double(v);
		} else if (!strcmp(a, "--writer-after")) {
			o->writer_after = tpub_double(v);
		} else if (!strcmp(a, "--source-time")) {
			o->source_time = tpub_long(v, 1);
		} else {
			tpub_usage();
		}
	}
	if (!have_domain || !have_type || !o->topic || o->size > 100000000)
		tpub_usage();
}

static double tpub_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void tpub_sleep_until(double t)
{
	struct timespec ts;
	ts.tv_sec = (time_t)t;
	ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static dds_qos_t *tpub_qos(const struct tpub_opts *o)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, o->best_effort ? DDS_RELIABILITY_BEST_EFFORT : DDS_RELIABILITY_RELIABLE,
			     DDS_SECS(10));
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, o->depth);
	if (o->transient_local) {
		dds_qset_durability(q, DDS_DURABILITY_TRANSIENT_LOCAL);
		/* as rmw_cyclonedds: the TL cache keeps what the history keeps */
		dds_qset_durability_service(q, 0, DDS_HISTORY_KEEP_LAST, o->depth,
					    DDS_LENGTH_UNLIMITED, DDS_LENGTH_UNLIMITED,
					    DDS_LENGTH_UNLIMITED);
	} else {
		dds_qset_durability(q, DDS_DURABILITY_VOLATILE);
	}
	if (o->user_data != NULL)
		dds_qset_userdata(q, o->user_data, strlen(o->user_data));
	return q;
}

static const dds_topic_descriptor_t *tpub_desc(enum tpub_type t)
{
	switch (t) {
	case TPUB_KEYED:
		return &bagtest_Keyed_desc;
	case TPUB_APPENDABLE:
		return &bagtest_App_desc;
	case TPUB_BATTERY:
		return &my_msgs_msg_dds__BatteryState__desc;
	case TPUB_RICH:
		return &bagtest_Rich_desc;
	case TPUB_STRING:
	default:
		return &std_msgs_msg_dds__String__desc;
	}
}

/* --topics N: NAME_0 .. NAME_{N-1}, one writer each (the first topic's
 * writer replaces NAME's for the wait for readers). */
static void tpub_create_many(struct tpub *t, const dds_qos_t *wq)
{
	if (t->o.oracle)
		tpub_usage(); /* one oracle, one topic */
	t->writers = calloc((size_t)t->o.topics, sizeof *t->writers);
	size_t len = strlen(t->o.topic) + 24;
	char *name = malloc(len);
	if (t->writers == NULL || name == NULL)
		abort();
	for (long k = 0; k < t->o.topics; k++) {
		snprintf(name, len, "%s_%ld", t->o.topic, k);
		dds_entity_t tp = dds_create_topic(t->pp, tpub_desc(t->o.type), name, NULL, NULL);
		if (tp < 0)
			tpub_die("create topic", tp);
		if ((t->writers[k] = dds_create_writer(t->pp, tp, wq, NULL)) < 0)
			tpub_die("create writer", t->writers[k]);
	}
	free(name);
	(void)dds_delete(t->writer);
	t->writer = t->writers[0];
}

/* --writer-after: the participant publishes NAME_first first; NAME's writer
 * comes writer_after seconds later (the caller makes it). */
static void tpub_first_writer(struct tpub *t, const dds_qos_t *wq)
{
	char *name = NULL;
	if (asprintf(&name, "%s_first", t->o.topic) < 0)
		abort();
	dds_entity_t tp = dds_create_topic(t->pp, tpub_desc(t->o.type), name, NULL, NULL);
	free(name);
	if (tp < 0)
		tpub_die("create topic", tp);
	dds_entity_t w = dds_create_writer(t->pp, tp, wq, NULL);
	if (w < 0)
		tpub_die("create writer", w);
	tpub_sleep_until(tpub_now() + t->o.writer_after);
}

static void tpub_create(struct tpub *t)
{
	dds_return_t rc;
	if ((t->pp = dds_create_participant(t->o.domain, NULL, NULL)) < 0)
		tpub_die("create participant", t->pp);
	t->topic = dds_create_topic(t->pp, tpub_desc(t->o.type), t->o.topic, NULL, NULL);
	if (t->topic < 0)
		tpub_die("create topic", t->topic);
	if (t->o.oracle) {
		if ((t->oracle = fopen(t->o.oracle, "ab")) == NULL) {
			fprintf(stderr, "tpub: %s: %s\n", t->o.oracle, strerror(errno));
			exit(2);
		}
		dds_qos_t *rq = dds_create_qos();
		dds_qset_reliability(rq, t->o.best_effort ? DDS_RELIABILITY_BEST_EFFORT
							  : DDS_RELIABILITY_RELIABLE,
				     DDS_SECS(10));
		dds_qset_history(rq, DDS_HISTORY_KEEP_ALL, 0);
		t->oracle_rd = dds_create_reader(t->pp, t->topic, rq, NULL);
		dds_delete_qos(rq);
		if (t->oracle_rd < 0)
			tpub_die("create oracle reader", t->oracle_rd);
		if ((rc = dds_get_instance_handle(t->oracle_rd, &t->oracle_ih)) < 0)
			tpub_die("oracle reader handle", rc);
	}
	dds_qos_t *wq = tpub_qos(&t->o);
	if (t->o.writer_after > 0.0)
		tpub_first_writer(t, wq);
	t->writer = dds_create_writer(t->pp, t->topic, wq, NULL);
	if (t->writer < 0)
		tpub_die("create writer", t->writer);
	if (t->o.topics > 1)
		tpub_create_many(t, wq);
	dds_delete_qos(wq);
}

/* How long --wait-readers waits after the readers matched, for their own
 * side of the match. */
#define TPUB_SETTLE_MS 300

/* Matched readers other than our own oracle reader. */
static long tpub_matched(const struct tpub *t)
{
	dds_instance_handle_t h[256];
	dds_return_t n = dds_get_matched_subscriptions(t->writer, h, 256);
	if (n < 0)
		tpub_die("get matched subscriptions", n);
	long count = 0;
	for (dds_return_t i = 0; i < n && i < 256; i++)
		if (!t->oracle || h[i] != t->oracle_ih)
			count++;
	return count;
}

static bool tpub_wait_readers(const struct tpub *t)
{
	double deadline = tpub_now() + t->o.wait_timeout;
	long m;
	while ((m = tpub_matched(t)) < t->o.wait_readers) {
		if (tpub_now() >= deadline) {
			fprintf(stderr, "tpub: %ld of %ld readers matched within %.1f s\n", m,
				t->o.wait_readers, t->o.wait_timeout);
			return false;
		}
		dds_sleepfor(DDS_MSECS(10));
	}
	/* Matched on this side only: the reader's side matches this writer
	 * when our discovery data reaches it, and a volatile reader takes
	 * nothing written before that (a message lost, with no gap to count,
	 * once in a while under TSan). Give it that moment. */
	dds_sleepfor(DDS_MSECS(TPUB_SETTLE_MS));
	return true;
}

/* "hello <i>" padded with 'x' to --size characters. */
static void tpub_text(struct tpub *t, long i)
{
	size_t len = t->o.size > 0 ? (size_t)t->o.size : 0;
	int n = snprintf(NULL, 0, "hello %ld", i);
	size_t need = (size_t)n > len ? (size_t)n : len;
	char *p = realloc(t->text, need + 1);
	if (p == NULL)
		abort();
	t->text = p;
	snprintf(p, need + 1, "hello %ld", i);
	memset(p + n, 'x', need - (size_t)n);
	p[need] = 0;
}

/* Writes sample m, number i: stamped now, or as --source-time says. */
static dds_return_t tpub_put(struct tpub *t, const void *m, long i)
{
	if (t->o.source_time == 0)
		return dds_write(t->writer, m);
	return dds_write_ts(t->writer, m, (dds_time_t)t->o.source_time + (dds_time_t)i * 1000);
}

/* my_msgs/msg/BatteryState number i: values tests/decode/decode.mjs checks. */
static dds_return_t tpub_write_battery(struct tpub *t, long i)
{
	my_msgs_msg_dds__CellState_ cells[2];
	for (int k = 0; k < 2; k++)
		cells[k] = (my_msgs_msg_dds__CellState_){
			3.5f + 0.25f * (float)k,
			{(int16_t)(20 + k), (int16_t)(-21 - k), (int16_t)(22 + k)},
			{(uint32_t)(i * 10 + k), k == 1}};
	my_msgs_msg_dds__BatteryState_ m = {
		.header = {{(int32_t)i, 500u}, "battery_link"},
		.cells = {2, 2, cells, false},
		.voltage = 7.25f,
		.status = (uint8_t)(i % 2),
	};
	snprintf(m.label, sizeof m.label, "pack-%ld", i % 100000); /* string<16> */
	return tpub_put(t, &m, i);
}

/* bagtest::Rich (plain DDS, with type information): every field set from i. */
static dds_return_t tpub_write_rich(struct tpub *t, long i)
{
	bagtest_parts_Point pts[3] = {{1.5, -2.0}, {(double)i, 0.25}, {3.0, 4.0}};
	char tags[2][9] = {"alpha", "b"};
	int32_t maybe = (int32_t)(i * 3);
	bagtest_Rich m = {.id = (int32_t)(i % t->o.keys),
			  .mode = (bagtest_parts_Mode)(i % 3),
			  .points = {3, 3, pts, false},
			  .few_points = {1, 1, pts + 1, false},
			  .tags = {2, 2, tags, false},
			  .maybe = i % 2 ? &maybe : NULL};
	snprintf(m.name, sizeof m.name, "rich-%ld", i % 100000);
	snprintf(m.label, sizeof m.label, "label");
	for (int r = 0; r < 2; r++)
		for (int c = 0; c < 3; c++)
			m.matrix[r][c] = r * 10 + c + (double)i;
	m.extra._d = m.mode;
	if (m.mode == bagtest_parts_IDLE)
		m.extra._u.code = (int32_t)i;
	else
		snprintf(m.extra._u.note, sizeof m.extra._u.note, "n%ld", i % 1000);
	return tpub_put(t, &m, i);
}

static dds_return_t tpub_write_one(struct tpub *t, long i)
{
	switch (t->o.type) {
	case TPUB_STRING: {
		tpub_text(t, i);
		std_msgs_msg_dds__String_ m = {.data = t->text};
		return tpub_put(t, &m, i);
	}
	case TPUB_BATTERY: return tpub_write_battery(t, i);
	case TPUB_RICH: return tpub_write_rich(t, i);
	case TPUB_APPENDABLE: {
		tpub_text(t, i);
		bagtest_App m = {.seq = (int32_t)i, .text = t->text};
		return tpub_put(t, &m, i);
	}
	case TPUB_KEYED:
	default: {
		uint32_t len = t->o.size >= 0 ? (uint32_t)t->o.size : 8u;
		for (uint32_t j = 0; j < len; j++)
			t->bytes[j] = (uint8_t)(i + (long)j);
		bagtest_Keyed m = {.id = (int32_t)(i % t->o.keys), .seq = (int32_t)i};
		m.payload._length = m.payload._maximum = len;
		m.payload._buffer = t->bytes;
		return tpub_put(t, &m, i);
	}
	}
}

static void tpub_oracle_put(struct tpub *t, struct ddsi_serdata *d)
{
	uint32_t sz = ddsi_serdata_size(d);
	unsigned char *buf = malloc(sz ? sz : 1);
	if (buf == NULL)
		abort();
	ddsi_serdata_to_ser(d, 0, sz, buf);
	unsigned char le[4] = {(unsigned char)sz, (unsigned char)(sz >> 8),
			       (unsigned char)(sz >> 16), (unsigned char)(sz >> 24)};
	if (fwrite(le, 1, 4, t->oracle) != 4 || fwrite(buf, 1, sz, t->oracle) != sz ||
	    fflush(t->oracle) != 0) {
		fprintf(stderr, "tpub: writing %s: %s\n", t->o.oracle, strerror(errno));
		exit(2);
	}
	free(buf);
}

/* Local delivery is synchronous, so the sample is there already; allow a
 * second for safety. */
static void tpub_oracle_take(struct tpub *t)
{
	for (int tries = 0; tries < 1000; tries++) {
		struct ddsi_serdata *d = NULL;
		dds_sample_info_t si;
		dds_return_t n = dds_takecdr(t->oracle_rd, &d, 1, &si, DDS_ANY_STATE);
		if (n < 0)
			tpub_die("oracle takecdr", n);
		if (n == 1) {
			bool valid = si.valid_data;
			if (valid)
				tpub_oracle_put(t, d);
			ddsi_serdata_unref(d);
			if (valid)
				return;
			continue;
		}
		dds_sleepfor(DDS_MSECS(1));
	}
	fprintf(stderr, "tpub: oracle reader got nothing\n");
	exit(2);
}

static long tpub_run(struct tpub *t)
{
	if (t->o.type == TPUB_KEYED) {
		size_t len = t->o.size >= 0 ? (size_t)t->o.size : 8u;
		if ((t->bytes = malloc(len ? len : 1)) == NULL)
			abort();
	}
	double t0 = tpub_now();
	long i;
	for (i = 0; i < t->o.count; i++) {
		if (t->o.rate > 0.0)
			tpub_sleep_until(t0 + (double)i / t->o.rate);
		if (t->writers != NULL)
			t->writer = t->writers[i % t->o.topics];
		dds_return_t rc = tpub_write_one(t, i);
		if (rc < 0)
			tpub_die("write", rc);
		if (t->oracle)
			tpub_oracle_take(t);
	}
	return i;
}

/* --reader-for S: a subscriber only (a reliable reader, no writer) for S
 * seconds: what the recorder's --include-unpublished-topics and
 * --ignore-leaf-topics look for. Prints "tpub: wrote 0". */
static int tpub_reader_only(const struct tpub_opts *o)
{
	dds_entity_t pp = dds_create_participant(o->domain, NULL, NULL);
	if (pp < 0)
		tpub_die("create participant", pp);
	dds_entity_t tp = dds_create_topic(pp, tpub_desc(o->type), o->topic, NULL, NULL);
	if (tp < 0)
		tpub_die("create topic", tp);
	dds_qos_t *q = tpub_qos(o);
	dds_entity_t rd = dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (rd < 0)
		tpub_die("create reader", rd);
	tpub_sleep_until(tpub_now() + o->reader_for);
	dds_return_t rc = dds_delete(pp);
	if (rc < 0)
		tpub_die("delete participant", rc);
	printf("tpub: wrote 0\n");
	return 0;
}

int main(int argc, char **argv)
{
	struct tpub t = {0};
	tpub_parse(&t.o, argc, argv);
	if (t.o.reader_for > 0.0)
		return tpub_reader_only(&t.o);
	tpub_create(&t);
	if (t.o.wait_readers > 0 && !tpub_wait_readers(&t)) {
		dds_delete(t.pp);
		return 1;
	}
	if (t.o.start_delay > 0.0)
		tpub_sleep_until(tpub_now() + t.o.start_delay);
	long n = tpub_run(&t);
	if (t.o.linger > 0.0)
		tpub_sleep_until(tpub_now() + t.o.linger);
	if (t.oracle && fclose(t.oracle) != 0) {
		fprintf(stderr, "tpub: closing %s: %s\n", t.o.oracle, strerror(errno));
		return 2;
	}
	dds_return_t rc = dds_delete(t.pp);
	free(t.text);
	free(t.writers);
	free(t.bytes);
	if (rc < 0)
		tpub_die("delete participant", rc);
	printf("tpub: wrote %ld\n", n);
	return 0;
}
