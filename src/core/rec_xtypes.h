/* rec_xtypes — message definitions of plain DDS topics from the
 * publisher's XTypes type information: a type that is not ROS 2's, found
 * in no definition source, whose publication names a complete type
 * (idlc-built publishers announce one; rmw_cyclonedds's do not) is
 * resolved through Cyclone's type lookup service and rendered as OMG IDL
 * (btdds_xtypes), encoding "omgidl".
 *
 * DESIGN: one thread ("rec-xtypes"), started and joined by the recorder,
 * off the data path: the reader exists and records meanwhile with the
 * topic's empty row; dds_get_typeobj (which blocks) runs only here. The
 * definition reaches the bag through the consumer
 * (rec_consumer_set_definition) as soon as it is known. Each lookup waits
 * at most `call_ns`; a failed resolution is tried once more, then the
 * definition stays missing, said once per topic. The discovery thread only
 * queues requests (rec_xtypes_ask) under `mu`, a leaf lock never held
 * across DDS calls. */
#ifndef REC_XTYPES_H
#define REC_XTYPES_H

#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"
#include "btdds_xtypes.h"
#include "rec_consumer.h"
#include "rec_def_source.h"
#include "rec_topics.h"

#define REC_XTYPES_CALL_NS (INT64_C(2) * 1000000000) /* per dds_get_typeobj; one retry */
#define REC_XTYPES_SOURCE "XTypes type information" /* the source the bag names */

struct rec_xtypes;

/* Starts the thread (o->call_ns, per dds_get_typeobj; 0: REC_XTYPES_CALL_NS).
 * BT_ERR_STATE (*err says why) when it cannot: the caller records on
 * without this source. */
BT_MUST_CHECK bt_status rec_xtypes_start(const struct rec_def_source_options *o,
					 struct rec_xtypes **out, struct bt_error *err);
/* Queues topic `tp` (subscribed, its definition found nowhere) whose
 * publisher's type information names complete type `id` (copied). Sets
 * tp->def_late to ASKING. Discovery thread. */
void rec_xtypes_ask(struct rec_xtypes *x, struct rec_topic *tp,
		    const struct DDS_XTypes_TypeIdentifier *id);
/* Stops the thread (a lookup in progress ends within its call_ns), joins
 * it and frees. NULL is fine. Owner thread, before the consumer stops and
 * the participant goes. */
void rec_xtypes_stop(struct rec_xtypes *x);

#endif
