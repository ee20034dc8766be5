/* tsvc — a test ROS 2 service server as rmw_cyclonedds lays it out on the
 * wire (rq/<service>Request read, rr/<service>Reply written, the service id
 * in USER_DATA), for test_play_svc_requests: it prints each request it
 * takes, one line, flushed:
 *   REQ <service> seq=<sequence number> body=<hex of the bytes after the
 *   16-byte request header, the sample's end padding included>
 * so that the test compares the bytes with ones it lays out from the spec.
 * With --reply 1 it answers each with the request's header and 8 zero
 * bytes (an int64: AddTwoInts's response; the player reads only the
 * header), laid out by hand.
 *
 *   tsvc --domain N --service NAME=pkg/srv/Type [--service ...] --duration S
 *        [--reply 1]
 * Prints "READY" once its entities exist; ends after S seconds. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "bt_time.h"
#include "btdds_cdr.h"
#include "btdds_raw.h"
#include "btdds_service.h"
#include "cdr_hand.h"

#define TSVC_MAX 8

struct tsvc {
	char *name;
	struct btdds_svc_ends e;
	bool reply;
};

/* The reply to (guid, seq): the header echoed, then an int64 0. */
static void tsvc_reply(const struct tsvc *t, uint64_t guid, int64_t seq)
{
	struct out o = {0};
	start(&o);
	u64(&o, guid);
	u64(&o, (uint64_t)seq);
	u64(&o, 0);
	finish(&o);
	if (btdds_raw_write(t->e.writer, o.b, o.len) < 0)
		printf("REPLY FAILED %s seq=%lld\n", t->name, (long long)seq);
	free(o.b);
}

static bool tsvc_print(void *arg, const struct btdds_raw_sample *s)
{
	const struct tsvc *t = arg;
	struct btdds_cdr_rd r;
	uint64_t guid;
	int64_t seq;
	if (btdds_cdr_rd_init(&r, s->data, s->len) != BT_OK ||
	    !btdds_svc_get_header(&r, &guid, &seq)) {
		printf("BAD %s len=%zu\n", t->name, s->len);
		return true;
	}
	printf("REQ %s seq=%lld body=", t->name, (long long)seq);
	for (size_t i = 4 + 16; i < s->len; i++)
		printf("%02x", ((const unsigned char *)s->data)[i]);
	printf("\n");
	fflush(stdout);
	if (t->reply)
		tsvc_reply(t, guid, seq);
	return true;
}

static int tsvc_usage(void)
{
	fprintf(stderr, "usage: tsvc --domain N --service NAME=pkg/srv/Type... --duration S "
			"[--reply 1]\n");
	return 2;
}

int main(int argc, char **argv)
{
	long domain = -1;
	double duration = 0;
	bool reply = false;
	struct tsvc s[TSVC_MAX];
	size_t n = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--domain")) {
			domain = strtol(argv[i + 1], NULL, 10);
		} else if (!strcmp(argv[i], "--duration")) {
			duration = strtod(argv[i + 1], NULL);
		} else if (!strcmp(argv[i], "--reply")) {
			reply = !strcmp(argv[i + 1], "1");
		} else if (!strcmp(argv[i], "--service") && n < TSVC_MAX && strchr(argv[i + 1], '=')) {
			s[n].name = argv[i + 1];
			*strchr(argv[i + 1], '=') = '\0';
			n++;
		} else {
			return tsvc_usage();
		}
	}
	if (domain < 0 || domain > 232 || duration <= 0 || n == 0)
		return tsvc_usage();
	dds_entity_t pp = dds_create_participant((dds_domainid_t)domain, NULL, NULL);
	if (pp < 0)
		return 1;
	dds_entity_t ws = dds_create_waitset(pp);
	for (size_t i = 0; i < n; i++) {
		const char *type = s[i].name + strlen(s[i].name) + 1;
		s[i].reply = reply;
		if (btdds_svc_ends_create(pp, s[i].name, type, true, &s[i].e) < 0 ||
		    dds_waitset_attach(ws, s[i].e.cond, (dds_attach_t)i) < 0) {
			fprintf(stderr, "tsvc: cannot serve %s (%s)\n", s[i].name, type);
			return 1;
		}
	}
	printf("READY\n");
	fflush(stdout);
	int64_t end = bt_time_monotonic_ns() + (int64_t)(duration * 1e9);
	while (bt_time_monotonic_ns() < end) {
		(void)dds_waitset_wait(ws, NULL, 0, DDS_MSECS(50));
		for (size_t i = 0; i < n; i++)
			(void)btdds_raw_take(s[i].e.reader, tsvc_print, &s[i]);
	}
	(void)dds_delete(pp);
	return 0;
}
