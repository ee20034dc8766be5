#include "bt_log.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

static pthread_mutex_t bt_log_lock = PTHREAD_MUTEX_INITIALIZER;
static bt_log_sink bt_log_cur_sink;
static void *bt_log_cur_ctx;
static enum bt_log_level bt_log_max = BT_LOG_INFO;

static const char *const bt_log_names[] = {"error", "warning", "info", "debug"};

void bt_log_set_sink(bt_log_sink sink, void *ctx)
{
	pthread_mutex_lock(&bt_log_lock);
	bt_log_cur_sink = sink;
	bt_log_cur_ctx = ctx;
	pthread_mutex_unlock(&bt_log_lock);
}

void bt_log_set_level(enum bt_log_level max)
{
	pthread_mutex_lock(&bt_log_lock);
	bt_log_max = max;
	pthread_mutex_unlock(&bt_log_lock);
}

void bt_log(enum bt_log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&bt_log_lock);
	if (level <= bt_log_max) {
		if (bt_log_cur_sink)
			bt_log_cur_sink(bt_log_cur_ctx, level, line);
		else
			fprintf(stderr, "bagtop: %s: %s\n", bt_log_names[level], line);
	}
	pthread_mutex_unlock(&bt_log_lock);
}

const char *bt_log_level_name(enum bt_log_level level)
{
	return (unsigned)level <= BT_LOG_DEBUG ? bt_log_names[level] : "?";
}
