/* app_convert — `bagtop convert`: copies the messages of a bag (any bag
 * bag_reader opens) into a new bag written by bag_writer, as
 * `ros2 bag convert` does: a topic selection (btdds_select, record's rules),
 * a time window, and the writer's options (storage, compression, splits,
 * --compat). Messages, topics (QoS, type hash) and message definitions go
 * through unchanged; the new bag's statistics are those of the copy
 * (messages recorded = copied; the input's loss figures are not carried
 * over: they describe a recording, not this copy). */
#ifndef APP_CONVERT_H
#define APP_CONVERT_H

#include <stdbool.h>
#include <stdint.h>

#include "bag_writer.h"
#include "bt_status.h"

struct btdds_select;

/* A --start / --end value: ns since the epoch, or (rel) ns after the
 * bag's first message. */
struct app_convert_time {
	bool given;
	bool rel;
	int64_t ns;
};

struct app_convert_options {
	const char *in;                   /* bag directory or storage file */
	const struct btdds_select *select;  /* NULL: every topic */
	struct app_convert_time start;    /* messages stamped >= start ... */
	struct app_convert_time end;      /* ... and < end */
	const struct bag_writer_options *writer; /* writer->uri: OUT, must not exist */
};

struct app_convert_result {
	uint64_t messages; /* copied */
	size_t topics;     /* selected (in OUT, also those without a message) */
	size_t files;      /* storage files of OUT */
};

/* Parses a time as --start / --end take it: "SECONDS[.FRACTION]" since the
 * epoch, or "+SECONDS[.FRACTION]" after the bag's first message; exact to
 * the nanosecond. BT_ERR_USAGE (t unchanged) when malformed. */
BT_MUST_CHECK bt_status app_convert_time_parse(const char *s, struct app_convert_time *t);

/* Copies o->in into the new bag o->writer->uri. Before anything is
 * created: BT_ERR_EXISTS when OUT exists, BT_ERR_USAGE for a window that
 * ends before it starts (known once the bag's start is, for +offsets),
 * the reader's error for a bag that does not open. After: the first
 * error reading or writing (OUT is then closed as far as it got, and the
 * message says so). *res is filled on success. */
BT_MUST_CHECK bt_status app_convert(const struct app_convert_options *o,
				    struct app_convert_result *res, struct bt_error *err);

#endif
