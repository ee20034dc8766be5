/* bt_log — the one place log lines go. By default they are written to stderr
 * as "bagtop: <level>: <text>"; a front end (the TUI) installs its own sink so
 * nothing prints over the screen. Thread-safe: the sink is called under a
 * mutex, so a sink must not log itself. Log state changes and summaries,
 * never one line per message. */
#ifndef BT_LOG_H
#define BT_LOG_H

#include "bt_status.h"

enum bt_log_level { BT_LOG_ERROR = 0, BT_LOG_WARN = 1, BT_LOG_INFO = 2, BT_LOG_DEBUG = 3 };

typedef void (*bt_log_sink)(void *ctx, enum bt_log_level level, const char *line);

/* Installs `sink` (NULL restores stderr). Returns nothing; never fails. */
void bt_log_set_sink(bt_log_sink sink, void *ctx);
/* Lines above `max` are dropped (default BT_LOG_INFO). */
void bt_log_set_level(enum bt_log_level max);
void bt_log(enum bt_log_level level, const char *fmt, ...) BT_PRINTF(2, 3);
/* "error", "warning", "info", "debug". */
const char *bt_log_level_name(enum bt_log_level level);

#define bt_log_error(...) bt_log(BT_LOG_ERROR, __VA_ARGS__)
#define bt_log_warn(...) bt_log(BT_LOG_WARN, __VA_ARGS__)
#define bt_log_info(...) bt_log(BT_LOG_INFO, __VA_ARGS__)
#define bt_log_debug(...) bt_log(BT_LOG_DEBUG, __VA_ARGS__)

#endif
