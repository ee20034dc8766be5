#include "bt_time.h"

#include <inttypes.h>
#include <stdio.h>
#include <time.h>

static int64_t bt_time_read(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * BT_NS_PER_S + ts.tv_nsec;
}

int64_t bt_time_realtime_ns(void)
{
	return bt_time_read(CLOCK_REALTIME);
}

int64_t bt_time_monotonic_ns(void)
{
	return bt_time_read(CLOCK_MONOTONIC);
}

static void bt_time_split(int64_t ns, int64_t *sec, int64_t *frac)
{
	*sec = ns / BT_NS_PER_S;
	*frac = ns % BT_NS_PER_S;
	if (*frac < 0) {
		*frac += BT_NS_PER_S;
		*sec -= 1;
	}
}

void bt_time_format_date(int64_t ns, char *out, size_t n)
{
	int64_t sec, frac;
	bt_time_split(ns, &sec, &frac);
	time_t t = (time_t)sec;
	struct tm tm;
	char head[64];
	if (!localtime_r(&t, &tm) || !strftime(head, sizeof head, "%b %e %Y %H:%M:%S", &tm)) {
		snprintf(out, n, "(invalid time)");
		return;
	}
	snprintf(out, n, "%s.%09" PRId64, head, frac);
}

void bt_time_format_sec(int64_t ns, char *out, size_t n)
{
	int64_t sec, frac;
	bt_time_split(ns, &sec, &frac);
	if (ns < 0 && frac) {
		/* Keep the sign on the whole value: -0.5 s is "-0.500000000". */
		snprintf(out, n, "-%" PRId64 ".%09" PRId64, -(sec + 1), BT_NS_PER_S - frac);
		return;
	}
	snprintf(out, n, "%" PRId64 ".%09" PRId64, sec, frac);
}

void bt_time_format_both(int64_t ns, char *out, size_t n)
{
	char date[64], sec[40];
	bt_time_format_date(ns, date, sizeof date);
	bt_time_format_sec(ns, sec, sizeof sec);
	snprintf(out, n, "%s (%s)", date, sec);
}

void bt_time_format_bagname(int64_t ns, const char *prefix, char *out, size_t n)
{
	time_t t = (time_t)(ns / BT_NS_PER_S);
	struct tm tm;
	char stamp[64] = "1970_01_01-00_00_00";
	if (localtime_r(&t, &tm))
		strftime(stamp, sizeof stamp, "%Y_%m_%d-%H_%M_%S", &tm);
	snprintf(out, n, "%s%s", prefix, stamp);
}

int64_t bt_time_period_ns(double hz, int64_t min_ns, int64_t max_ns)
{
	if (!(hz > 0.0))
		return max_ns;
	double period = 1e9 / hz;
	if (!(period < (double)max_ns))
		return max_ns;
	return period < (double)min_ns ? min_ns : (int64_t)period;
}

struct timespec bt_time_timespec(int64_t ns)
{
	if (ns < 0)
		ns = 0;
	return (struct timespec){(time_t)(ns / BT_NS_PER_S), (long)(ns % BT_NS_PER_S)};
}
