/* rec_events — the recorder's events on DDS, as rosbag2's recorder node
 * publishes them (rosbag2_transport recorder_event_notifier; the types in
 * rosbag2_interfaces/msg), each a writer of its own listed by the node:
 *   "rt/events/write_split" (rosbag2_interfaces/msg/WriteSplitEvent): one
 *     per finished file: a split (closed_file, and the file opened in its
 *     place as opened_file), a snapshot's file (snapshot mode: opened_file
 *     is the empty file the next snapshot goes to) and the last file at the
 *     end (opened_file ""). Humble and Iron: closed_file, opened_file;
 *     Jazzy adds node_name.
 *   "rt/events/rosbag2_messages_lost" (MessagesLostEvent, rosbag2 after
 *     Jazzy, #2150): node_name and, per topic whose losses grew since the
 *     previous event, the messages lost since then in transport and in the
 *     recorder. At most one a second, none while nothing is lost.
 * QoS as rosbag2's EventQoS: reliable, volatile, keep-last 3. Paths are
 * the bag's path joined with the file's name, as rosbag2's writer says them.
 *
 * Threads: its own ("rec-events") writes both; rec_events_file_closed, from
 * the writer thread, only queues. Start after the topic table exists;
 * stop (after the bag is closed: the last file's event goes out) before
 * the participant is deleted. */
#ifndef REC_EVENTS_H
#define REC_EVENTS_H

#include <stdbool.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "btdds_node.h"
#include "rec_topics.h"

#define REC_EVENTS_SPLIT_TOPIC "rt/events/write_split"
#define REC_EVENTS_SPLIT_TYPE "rosbag2_interfaces::msg::dds_::WriteSplitEvent_"
#define REC_EVENTS_LOST_TOPIC "rt/events/rosbag2_messages_lost"
#define REC_EVENTS_LOST_TYPE "rosbag2_interfaces::msg::dds_::MessagesLostEvent_"
#define REC_EVENTS_QUEUE_MAX 256 /* split events waiting; beyond, one is dropped (logged) */

struct rec_events_options {
	dds_entity_t pp;                 /* borrowed; outlives the events */
	struct btdds_node *node;         /* lists the writers; NULL: no node */
	const char *node_fqn;            /* node_name in the events ("/rosbag2_recorder") */
	bool split_node_name;            /* WriteSplitEvent has node_name (Jazzy) */
	const struct rec_topics *topics; /* borrowed; outlives the events */
	int64_t lost_period_ns;          /* at most one loss event per period (> 0) */
};

struct rec_events;

/* Creates both writers (listed by the node) and starts the thread.
 * BT_ERR_DDS / BT_ERR_STATE: a writer or the thread could not be made
 * (*err says which); nothing is left behind. */
BT_MUST_CHECK bt_status rec_events_start(const struct rec_events_options *o,
					 struct rec_events **out, struct bt_error *err);
/* A file is finished: `closed`, and `opened` the file written next (NULL
 * or "": none). Any thread; never blocks on DDS. */
void rec_events_file_closed(struct rec_events *ev, const char *closed, const char *opened);
/* Writes what is queued and the losses not told yet, then joins the
 * thread. Idempotent. */
void rec_events_stop(struct rec_events *ev);
/* Stops if needed, takes the writers off the node, deletes them. NULL ok. */
void rec_events_free(struct rec_events *ev);

#endif
