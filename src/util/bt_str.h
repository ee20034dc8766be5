/* bt_str — small string predicates. */
#ifndef BT_STR_H
#define BT_STR_H

#include <stdbool.h>
#include <stddef.h>

/* True when `s` ends with `suffix` and is longer than it. */
bool bt_str_ends_with(const char *s, const char *suffix);
/* True when `s` can name a file in a directory: not empty, shorter than
 * `max` bytes, no '/', not "." or "..", no control characters. */
bool bt_str_file_name_ok(const char *s, size_t max);

#endif
