/* rec_typedesc — message definitions asked of the publishing node (REP
 * 2011): a ROS 2 type found in no definition source, whose publisher
 * announced a type hash (Iron and newer), is asked of that publisher's
 * node through its ~/get_type_description service.
 *
 * DESIGN: one thread ("rec-typedesc"), started and joined by the recorder,
 * off the data path: the topic is recorded meanwhile with rosbag2's empty
 * row, and the definition reaches the bag through the consumer
 * (rec_consumer_set_definition) as soon as it is known. The thread reads
 * ros_discovery_info (the node graph rmw_cyclonedds publishes) to learn
 * which node owns the publisher's writer, then calls
 * <node>/get_type_description (btdds_service). The answer's type sources
 * give rosbag2's text (defs_build_from_files); without sources its field
 * lists are rendered as .msg. A node not found within
 * REC_TYPEDESC_WAIT_NS, a call that fails twice (no reply within
 * REC_TYPEDESC_CALL_NS each), or an unsuccessful answer: the definition
 * stays missing, said once per topic. The discovery thread only queues
 * requests (rec_typedesc_ask), under `mu`, a leaf lock never held across
 * DDS calls. */
#ifndef REC_TYPEDESC_H
#define REC_TYPEDESC_H

#include <stddef.h>
#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "rec_consumer.h"
#include "rec_def_source.h"
#include "rec_topics.h"

#define REC_TYPEDESC_WAIT_NS (INT64_C(5) * 1000000000) /* for the node to be known */
#define REC_TYPEDESC_CALL_NS (INT64_C(5) * 1000000000) /* per call; one retry */

struct rec_typedesc;

/* Starts the thread and its ros_discovery_info reader (o->call_ns 0:
 * REC_TYPEDESC_CALL_NS). BT_ERR_DDS or BT_ERR_STATE (*err says why) when
 * it cannot: the caller records on, without this source. */
BT_MUST_CHECK bt_status rec_typedesc_start(const struct rec_def_source_options *o,
					   struct rec_typedesc **out, struct bt_error *err);
/* Queues topic `tp` (subscribed, its definition found nowhere,
 * tp->names.type and tp->type_hash set), published by the writers
 * `writers[0..n)` (copied). Sets tp->def_late to ASKING. Discovery
 * thread. */
void rec_typedesc_ask(struct rec_typedesc *td, struct rec_topic *tp, const dds_guid_t *writers,
		      size_t n);
/* Stops the thread (a call in progress gives up within 50 ms), joins it,
 * deletes its DDS entities and frees. NULL is fine. Owner thread. */
void rec_typedesc_stop(struct rec_typedesc *td);

#endif
