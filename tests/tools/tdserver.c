/* tdserver — a test ROS 2 "node" as an Iron+ rclcpp node looks on the wire
 * with rmw_cyclonedds, for test_typedesc: it publishes a custom type
 * (my_msgs/msg/Probe, found in no definition source) with a
 * `typehash=RIHS01_…;` USER_DATA, announces itself as node /probe_node in
 * ros_discovery_info (ParticipantEntitiesInfo, 16-byte gids, its writer
 * listed), and serves /probe_node/get_type_description
 * (rq/probe_node/get_type_descriptionRequest →
 * rr/probe_node/get_type_descriptionReply, the request's guid and seq
 * echoed), answering per --mode:
 *   sources  successful, the description and the .msg sources
 *   fields   successful, the description only (no sources)
 *   fail     successful=false, "type not in use"
 *   never    no answer at all
 *   deep     successful, no sources, a chain of 1000 nested types
 *   nograph  as sources, but no node announced in ros_discovery_info
 * Every byte it sends is laid out here by hand from the message
 * definitions (type_description_interfaces, rmw_dds_common, jazzy), not
 * with bagtop's encoder; btdds_raw only carries the bytes.
 *
 *   tdserver --domain N --mode M [--count N] [--rate HZ] [--duration S] [--hold 1]
 *            [--reply-after N]
 * Publishes --count messages at --rate once a reader matched (10 s at
 * most), then serves until --duration seconds passed since the start.
 * --hold 1: after the first message, publishes the rest only once it
 * answered a request (15 s at most) and 300 ms more, so that a recorder
 * splitting by duration has the definition before its second file.
 * --reply-after N: a request is answered only once N messages are out, so
 * that the definition comes after the recorder wrote the type without it
 * (with -s mcap: after the first chunk, once a second). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "btdds_raw.h"
#include "cdr_hand.h"

#define HASH "RIHS01_" \
	"1111111111111111111111111111111111111111111111111111111111111111"

/* ---- the messages ---- */

/* Field { string name; FieldType { uint8 type_id; uint64 capacity;
 * uint64 string_capacity; string<=255 nested_type_name }; string
 * default_value } */
static void field(struct out *o, const char *name, unsigned id, const char *nested)
{
	str(o, name);
	u8(o, id);
	u64(o, 0);
	u64(o, 0);
	str(o, nested);
	str(o, "");
}

/* IndividualTypeDescription of Probe: int32 count, string label,
 * my_msgs/msg/Inner inner (or D1 when deep), uint8[<=4] flags. */
static void probe_type(struct out *o, bool deep)
{
	str(o, "my_msgs/msg/Probe");
	u32(o, 4);
	field(o, "count", 6, "");
	field(o, "label", 17, "");
	field(o, "inner", 1, deep ? "my_msgs/msg/D1" : "my_msgs/msg/Inner");
	/* uint8 bounded sequence: 3 + 96 = 99, capacity 4 */
	str(o, "flags");
	u8(o, 99);
	u64(o, 4);
	u64(o, 0);
	str(o, "");
	str(o, "");
}

static void reply_description(struct out *o, bool deep)
{
	probe_type(o, deep);
	if (!deep) {
		u32(o, 1);
		str(o, "my_msgs/msg/Inner");
		u32(o, 1);
		field(o, "x", 11, "");
		return;
	}
	u32(o, 1000); /* D1 → D2 → … → D1000 (float64 x) */
	for (int i = 1; i <= 1000; i++) {
		char name[64], next[64];
		snprintf(name, sizeof name, "my_msgs/msg/D%d", i);
		snprintf(next, sizeof next, "my_msgs/msg/D%d", i + 1);
		str(o, name);
		u32(o, 1);
		if (i < 1000)
			field(o, "d", 1, next);
		else
			field(o, "x", 11, "");
	}
}

static void build_reply(struct out *o, const unsigned char *hdr16, const char *mode)
{
	start(o);
	put(o, hdr16, 16); /* guid and seq, echoed */
	bool ok = strcmp(mode, "fail") != 0;
	bool sources = strcmp(mode, "sources") == 0 || strcmp(mode, "nograph") == 0;
	u8(o, ok ? 1 : 0);
	str(o, ok ? "" : "type not in use");
	if (!ok) {
		str(o, "");  /* empty IndividualTypeDescription */
		u32(o, 0);   /* no fields */
		u32(o, 0);   /* no referenced types */
		u32(o, 0);   /* no sources */
	} else {
		reply_description(o, strcmp(mode, "deep") == 0);
		if (sources) {
			u32(o, 2);
			str(o, "my_msgs/msg/Probe");
			str(o, "msg");
			str(o, "# a probe\nint32 count\nstring label\nInner inner\nuint8[<=4] flags\n");
			str(o, "my_msgs/msg/Inner");
			str(o, "msg");
			str(o, "float64 x\n");
		} else {
			u32(o, 0);
		}
	}
	u32(o, 0); /* extra_information */
	finish(o);
}

/* ParticipantEntitiesInfo { Gid gid; NodeEntitiesInfo[] } with one node
 * owning `writer`. */
static void build_graph(struct out *o, const dds_guid_t *pp, const dds_guid_t *writer)
{
	start(o);
	put(o, pp->v, 16);
	u32(o, 1);
	str(o, "/");
	str(o, "probe_node");
	u32(o, 0);
	u32(o, 1);
	put(o, writer->v, 16);
	finish(o);
}

/* Probe { int32 count; string label; Inner { float64 x } inner; uint8[<=4] flags } */
static void build_probe(struct out *o, int i)
{
	char label[32];
	snprintf(label, sizeof label, "probe %d", i);
	start(o);
	u32(o, (uint32_t)i);
	str(o, label);
	u64(o, 0x3ff8000000000000u); /* 1.5 */
	u32(o, 2);
	u8(o, 7);
	u8(o, 9);
	finish(o);
}

/* ---- DDS ---- */

static dds_qos_t *qos(bool tl, int depth, const char *ud)
{
	dds_qos_t *q = dds_create_qos();
	dds_qset_reliability(q, DDS_RELIABILITY_RELIABLE, DDS_INFINITY);
	dds_qset_durability(q, tl ? DDS_DURABILITY_TRANSIENT_LOCAL : DDS_DURABILITY_VOLATILE);
	dds_qset_history(q, DDS_HISTORY_KEEP_LAST, depth);
	if (ud != NULL)
		dds_qset_userdata(q, ud, strlen(ud));
	return q;
}

static dds_entity_t endpoint(dds_entity_t pp, const char *topic, const char *type, bool writer,
			     bool tl, int depth, const char *ud)
{
	dds_entity_t tp = btdds_raw_topic_create(pp, topic, type, false);
	dds_qos_t *q = qos(tl, depth, ud);
	dds_entity_t e = tp < 0 ? tp : writer ? dds_create_writer(pp, tp, q, NULL)
					      : dds_create_reader(pp, tp, q, NULL);
	dds_delete_qos(q);
	if (e < 0) {
		fprintf(stderr, "tdserver: %s: %s\n", topic, dds_strretcode(e));
		exit(3);
	}
	return e;
}

struct served {
	dds_entity_t reply;
	const char *mode;
	struct out o;
	int n;
	int reply_after, sent; /* --reply-after; messages out so far */
	bool pending;          /* a reply built, held until sent >= reply_after */
};

static void send_reply(struct served *sv)
{
	sv->pending = false;
	/* As rmw waits for the client's reply reader (a volatile reader takes
	 * nothing written before it matched: under TSan the reply was lost
	 * twice): at most 2 s, then a moment for the reader's own side. */
	dds_publication_matched_status_t rm = {0};
	(void)dds_get_publication_matched_status(sv->reply, &rm);
	if (rm.current_count == 0) {
		for (int i = 0; i < 200 && rm.current_count == 0; i++) {
			dds_sleepfor(DDS_MSECS(10));
			(void)dds_get_publication_matched_status(sv->reply, &rm);
		}
		dds_sleepfor(DDS_MSECS(200));
	}
	if (btdds_raw_write(sv->reply, sv->o.b, sv->o.len) < 0)
		fprintf(stderr, "tdserver: reply not sent\n");
}

static bool on_request(void *arg, const struct btdds_raw_sample *s)
{
	struct served *sv = arg;
	if (s->len < 20)
		return true;
	sv->n++;
	if (strcmp(sv->mode, "never") == 0)
		return true;
	build_reply(&sv->o, (const unsigned char *)s->data + 4, sv->mode);
	sv->pending = true;
	if (sv->sent >= sv->reply_after)
		send_reply(sv);
	return true;
}

int main(int argc, char **argv)
{
	uint32_t domain = 0;
	const char *mode = "sources";
	int count = 10;
	double rate = 10, duration = 30;
	bool hold = false;
	int reply_after = 0;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--domain"))
			domain = (uint32_t)atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--mode"))
			mode = argv[i + 1];
		else if (!strcmp(argv[i], "--count"))
			count = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--rate"))
			rate = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--hold"))
			hold = atoi(argv[i + 1]) != 0;
		else if (!strcmp(argv[i], "--duration"))
			duration = atof(argv[i + 1]);
		else if (!strcmp(argv[i], "--reply-after"))
			reply_after = atoi(argv[i + 1]);
		else {
			fprintf(stderr, "tdserver: unknown option %s\n", argv[i]);
			return 2;
		}
	}
	dds_time_t t0 = dds_time();
	dds_entity_t pp = dds_create_participant(domain, NULL, NULL);
	if (pp < 0) {
		fprintf(stderr, "tdserver: %s\n", dds_strretcode(pp));
		return 3;
	}
	dds_entity_t data = endpoint(pp, "rt/td_probe", "my_msgs::msg::dds_::Probe_", true, false,
				     100, "typehash=" HASH ";");
	dds_entity_t graph = endpoint(pp, "ros_discovery_info",
				      "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_", true,
				      true, 1, NULL);
	dds_entity_t rq = endpoint(pp, "rq/probe_node/get_type_descriptionRequest",
				   "type_description_interfaces::srv::dds_::GetTypeDescription_Request_",
				   false, false, 10, "serviceid= 1.2.3;");
	struct served sv = {.mode = mode, .reply_after = reply_after};
	sv.reply = endpoint(pp, "rr/probe_node/get_type_descriptionReply",
			    "type_description_interfaces::srv::dds_::GetTypeDescription_Response_",
			    true, false, 10, "serviceid= 1.2.3;");
	dds_guid_t gp, gw;
	if (dds_get_guid(pp, &gp) < 0 || dds_get_guid(data, &gw) < 0)
		return 3;
	struct out o = {0};
	build_graph(&o, &gp, &gw);
	if (strcmp(mode, "nograph") != 0 && btdds_raw_write(graph, o.b, o.len) < 0)
		return 3;
	dds_publication_matched_status_t pm = {0};
	for (int i = 0; i < 1000 && pm.current_count == 0; i++) {
		dds_sleepfor(DDS_MSECS(10));
		(void)dds_get_publication_matched_status(data, &pm);
	}
	int sent = 0;
	dds_time_t next = dds_time();
	dds_time_t end = t0 + (dds_time_t)(duration * 1e9);
	while (dds_time() < end) {
		(void)btdds_raw_take(rq, on_request, &sv);
		if (sent < count && dds_time() >= next) {
			build_probe(&o, sent);
			if (btdds_raw_write(data, o.b, o.len) < 0)
				fprintf(stderr, "tdserver: message not sent\n");
			sent++;
			sv.sent = sent;
			next += (dds_time_t)(1e9 / rate);
		}
		if (sv.pending && sent >= sv.reply_after)
			send_reply(&sv);
		if (hold && sent == 1) {
			dds_time_t until = dds_time() + DDS_SECS(15);
			while (sv.n == 0 && dds_time() < until) {
				(void)btdds_raw_take(rq, on_request, &sv);
				dds_sleepfor(DDS_MSECS(5));
			}
			dds_sleepfor(DDS_MSECS(300));
			next = dds_time();
			hold = false;
		}
		dds_sleepfor(DDS_MSECS(5));
	}
	printf("tdserver: sent %d, requests %d\n", sent, sv.n);
	free(o.b);
	free(sv.o.b);
	dds_delete(pp);
	return 0;
}
