/* test_util — helpers shared by bagtop's tests: scratch directories, the
 * fixture location, running the bagtop binary and capturing its output. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

/* A fresh empty directory under $TMPDIR (or /tmp), malloc'ed path. */
char *tu_mkdtemp(const char *tag);
/* rm -rf `path` (refuses "/" and ""). */
void tu_rmrf(const char *path);
/* The rosbag2 fixtures folder, or NULL when it is absent. */
const char *tu_fixtures(void);
/* Exits 77 (ctest: skipped) with a message when the fixtures are absent. */
void tu_require_fixtures(void);
/* Runs `argv` (NULL-terminated) with stdout+stderr captured into a
 * malloc'ed string *out (may be NULL); returns the exit status, or
 * 128+signal. */
int tu_run(char *const argv[], char **out);
/* Is `prog` an executable in $PATH? */
bool tu_in_path(const char *prog);
/* Runs the bagtop binary ($BAGTOP_BIN) with the given arguments. */
int tu_bagtop(char **out, const char *arg0, ...);
/* The same, killed (SIGKILL: exit status 137) after `seconds`, so that a
 * hang fails the test instead of stalling it. */
int tu_bagtop_bounded(char **out, unsigned seconds, const char *arg0, ...);
/* Byte-identical files? */
int tu_files_equal(const char *a, const char *b);
/* Copies a file; aborts the test on failure. */
void tu_copy_file(const char *src, const char *dst);
/* Writes `len` bytes to `path`. */
void tu_write_file(const char *path, const void *data, size_t len);

#endif
