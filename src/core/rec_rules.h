/* rec_rules — the TOPIC_OR_REGEX=VALUE options (--throttle,
 * --snapshot-window, --snapshot-topic-cache): an argument split at its
 * last '=', and a list of patterns (each as btdds_select_new_pattern: a topic
 * name, or a regex) of which the first that names a topic wins. */
#ifndef REC_RULES_H
#define REC_RULES_H

#include <stddef.h>

#include "bt_status.h"

/* Splits "TOPIC_OR_REGEX=VALUE" at the last '=': the pattern is arg's
 * first *pattern_len bytes, *value what follows. BT_ERR_USAGE ("--OPT
 * 'arg': want TOPIC_OR_REGEX=FORM (e.g. EXAMPLE)") without an '=' or a
 * pattern. */
BT_MUST_CHECK bt_status rec_rules_split(const char *arg, const char *opt, const char *form,
					const char *example, size_t *pattern_len,
					const char **value, struct bt_error *err);

struct rec_rules;
/* Appends a rule for the pattern's first len bytes (copied), creating *r
 * when NULL (aborts on OOM: set-up). BT_ERR_USAGE when the regex does not
 * compile (nothing appended). opt names the option in the message. */
BT_MUST_CHECK bt_status rec_rules_add(struct rec_rules **r, const char *pattern, size_t len,
				      const char *opt, struct bt_error *err);
void rec_rules_free(struct rec_rules *r);
/* The index of the first rule naming the topic (ros_name NULL when it is
 * not a ROS 2 topic), or -1; r may be NULL. Pure: any thread. */
long rec_rules_find(const struct rec_rules *r, const char *dds_name, const char *ros_name);
/* Rule i's pattern, NUL-terminated, owned by r. */
const char *rec_rules_pattern(const struct rec_rules *r, size_t i);

#endif
