#include "bt_fmt.h"

#include <inttypes.h>
#include <stdio.h>

#include "bt_time.h"

void bt_fmt_iec(uint64_t bytes, char *out, size_t n)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
	double v = (double)bytes;
	size_t u = 0;
	while (v >= 1024.0 && u < 4) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(out, n, "%" PRIu64 " B", bytes);
	else
		snprintf(out, n, "%.1f %s", v, units[u]);
}

const char *bt_fmt_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

void bt_fmt_duration(int64_t ns, char *out, size_t n)
{
	char s[40];
	bt_time_format_sec(ns, s, sizeof s);
	snprintf(out, n, "%ss", s);
}
