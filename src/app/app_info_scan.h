/* app_info_scan — what `bagtop info -v` learns by reading every message,
 * as `ros2 bag info -v` (Jazzy and later) does: per topic its messages'
 * bytes (rosbag2's "Size Contribution"), and per service its requests and
 * responses, each counted once by (client gid, sequence number) from the
 * events' ServiceEventInfo (rosbag2's Info::read_service_info: a request
 * seen by both client and server introspection is one request). */
#ifndef APP_INFO_SCAN_H
#define APP_INFO_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "bag_reader.h"
#include "bt_status.h"

struct app_info_scan_topic {
	char *name;       /* the topic's name (a copy) */
	uint64_t bytes;   /* the messages' bytes as read (decompressed) */
	uint64_t requests, responses; /* a service event topic's; 0 for others */
	uint64_t unreadable;          /* its events whose info could not be read */
};

/* Reads every message of r (from where it stands: open it for this);
 * *out[i] for bag_reader_topics(r)[i], *n of them (app_info_scan_free).
 * BT_OK, or a read error with *err (nothing to free then). */
BT_MUST_CHECK bt_status app_info_scan(struct bag_reader *r, struct app_info_scan_topic **out,
				      size_t *n, struct bt_error *err);
void app_info_scan_free(struct app_info_scan_topic *t, size_t n);

/* The entry of topic `name`, or NULL. */
const struct app_info_scan_topic *app_info_scan_find(const struct app_info_scan_topic *t,
						     size_t n, const char *name);

#endif
