#include "bt_str.h"

#include <string.h>

bool bt_str_ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

bool bt_str_file_name_ok(const char *s, size_t max)
{
	size_t n = strlen(s);
	if (n == 0 || n >= max || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, ".."))
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < 32 || *s == 127)
			return false;
	return true;
}
