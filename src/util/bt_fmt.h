/* bt_fmt — number formatting shared by the commands and the TUI. */
#ifndef BT_FMT_H
#define BT_FMT_H

#include <stddef.h>
#include <stdint.h>

/* rosbag2's file-size style: "512 B", "112.0 KiB", "3.4 GiB". */
void bt_fmt_iec(uint64_t bytes, char *out, size_t n);
/* "" for 1, "s" for any other count: printf("%d file%s", n, bt_fmt_s(n)). */
const char *bt_fmt_s(uint64_t n);
/* "4.531096768s"-style seconds with nanoseconds, as `ros2 bag info`. */
void bt_fmt_duration(int64_t ns, char *out, size_t n);

#endif
