/* bt_time — clocks and time formatting. Times are int64 nanoseconds. */
#ifndef BT_TIME_H
#define BT_TIME_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define BT_NS_PER_S INT64_C(1000000000)

int64_t bt_time_realtime_ns(void);  /* CLOCK_REALTIME, ns since the epoch */
int64_t bt_time_monotonic_ns(void); /* CLOCK_MONOTONIC */
/* The period of `hz` events a second in ns, within [min_ns, max_ns]:
 * never overflows (hz tiny, 0, negative or nan gives max_ns). */
int64_t bt_time_period_ns(double hz, int64_t min_ns, int64_t max_ns);
/* A timespec for `ns` (negative: 0), for relative waits. */
struct timespec bt_time_timespec(int64_t ns);
/* "Apr  2 2020 22:23:55.112411371" in local time, as `ros2 bag info`. */
void bt_time_format_date(int64_t ns, char *out, size_t n);
/* "1585866235.112411371" (sign kept for negative values). */
void bt_time_format_sec(int64_t ns, char *out, size_t n);
/* Both: "Apr  2 2020 22:23:55.112411371 (1585866235.112411371)", as
 * `ros2 bag info` shows a start or end time. */
void bt_time_format_both(int64_t ns, char *out, size_t n);
/* "rosbag2_2024_01_31-12_00_00" style local-time stamp with `prefix`. */
void bt_time_format_bagname(int64_t ns, const char *prefix, char *out, size_t n);

#endif
