/* store__qos — QoS emit/parse on libyaml documents; private to src/store. */
#ifndef STORE__QOS_H
#define STORE__QOS_H

#include "bag_types.h"
#include "store__yaml.h"

/* Emits the profile sequence (block style; `[]` when empty), policies as
 * names or numbers as metadata `version` has them. */
void bag_qos_emit(struct ye *e, const struct bag_qos *q, size_t n, int version);
/* Parses a sequence node of profiles (numbers or names). */
BT_MUST_CHECK bt_status bag_qos_parse_node(yaml_document_t *doc, yaml_node_t *seq,
					   struct bag_qos **out, size_t *n, struct bt_error *err);

#endif
