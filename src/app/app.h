/* app — the bagtop command line: one entry per command, wired to the
 * modules. main() only calls app_main. */
#ifndef APP_H
#define APP_H

#include "app_opts.h"

int app_main(int argc, char **argv);

/* The commands (cmd_*.c). */
extern const struct app_cmd app_cmd_record;
extern const struct app_cmd app_cmd_play;
extern const struct app_cmd app_cmd_burst;
extern const struct app_cmd app_cmd_info;
extern const struct app_cmd app_cmd_check;
extern const struct app_cmd app_cmd_reindex;
extern const struct app_cmd app_cmd_convert;
extern const struct app_cmd app_cmd_demo;
extern const struct app_cmd app_cmd_snapshot;
extern const struct app_cmd app_cmd_pause;
extern const struct app_cmd app_cmd_resume;
extern const struct app_cmd app_cmd_stats;
extern const struct app_cmd app_cmd_call;

struct rec_cmd_snap;
/* A snapshot parameter option of `bagtop snapshot` or `bagtop call
 * snapshot` (long name `lng`: before, after, topics, exclude, name; any
 * other: exclude) into *p: 0, or the one-line usage error of `cmd`
 * (exit 2). Both commands validate alike (cmd_snapshot.c). */
int app_snapshot_param(const struct app_cmd *cmd, const char *lng, const char *arg,
		       struct rec_cmd_snap *p);

/* Prints "bagtop: error: <msg>" on stderr: the one line a failure gives. */
void app_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "bagtop: warning: <msg>" on stderr: something the user should
 * know that is not a failure by itself. */
void app_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
