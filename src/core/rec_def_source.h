/* rec_def_source — what the late definition sources (rec_typedesc,
 * rec_xtypes) share: each is a thread that asks DDS for a definition found
 * nowhere else and hands it to the consumer (rec_consumer_set_definition). */
#ifndef REC_DEF_SOURCE_H
#define REC_DEF_SOURCE_H

#include <stdint.h>

#include <dds/dds.h>

#include "rec_consumer.h"

struct rec_def_source_options {
	dds_entity_t pp;
	struct rec_consumer *consumer; /* gets the definitions; outlives the thread */
	int64_t call_ns;               /* per call, one retry; 0: the source's default */
};

#endif
