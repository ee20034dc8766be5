/* bt_str — small string predicates. */
#ifndef BT_STR_H
#define BT_STR_H

#include <stdbool.h>

/* True when `s` ends with `suffix` and is longer than it. */
bool bt_str_ends_with(const char *s, const char *suffix);

#endif
