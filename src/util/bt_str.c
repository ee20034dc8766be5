#include "bt_str.h"

#include <string.h>

bool bt_str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}
