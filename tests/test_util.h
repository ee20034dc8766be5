/* test_util — helpers shared by bagtop's tests: scratch directories and
 * their cmocka fixtures, the fixture location, child processes (the one way
 * tests start, bound, signal and reap bagtop, tpub, ddsperf or a forked
 * function) and running the bagtop binary with its output captured.
 * Reading bags back is test_bag.h. */
#ifndef TEST_UTIL_H
#define TEST_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <cmocka.h>

/* A fresh empty directory under $TMPDIR (or /tmp), malloc'ed path. */
char *tu_mkdtemp(const char *tag);
/* rm -rf `path` (refuses "/" and ""). */
void tu_rmrf(const char *path);
/* The rosbag2 fixtures folder, or NULL when it is absent. */
const char *tu_fixtures(void);
/* Exits 77 (ctest: skipped) with a message when the fixtures are absent. */
void tu_require_fixtures(void);
/* Calls fn on each bag folder (subdirectory) of the fixtures folder, with
 * its path and its name; returns how many there are. Fails the test when
 * the folder cannot be listed. */
typedef void tu_fixture_fn(const char *path, const char *name, void *arg);
size_t tu_each_fixture(tu_fixture_fn *fn, void *arg);
/* How tu_spawn wires a child. All zero: stdin, stdout and stderr on
 * /dev/null, the test's environment. stdin is always /dev/null. */
struct tu_spawn_opts {
	const char *env;      /* "NAME=VALUE" added to the child's environment */
	const char *out_path; /* stdout (and stderr) to this file, truncated */
	const char *err_path; /* stderr to this file instead */
	int *out_fd;          /* stdout (and stderr) to a pipe; its read end here */
	bool keep_stderr;     /* stderr stays the test's own */
	/* Runs in the child after the redirections: before the exec (non-zero
	 * return: exit 126), or instead of it when argv is NULL (the child
	 * exits with what it returns). */
	int (*in_child)(void *arg);
	void *arg;
};
/* Starts argv (NULL-terminated; argv[0] is looked up in $PATH when it has
 * no '/'; exit 127 when it cannot be run) as `o` says (NULL: all zero);
 * returns its pid. Aborts the test when fork fails. */
pid_t tu_spawn(char *const argv[], const struct tu_spawn_opts *o);
/* The exit status of pid (128 + signal when a signal ended it) once it has
 * ended and been reaped; TU_RUNNING while it runs (never blocks). */
int tu_poll(pid_t pid);
#define TU_RUNNING (-1)
/* Waits up to `secs` (< 0: without limit) for pid and returns tu_poll's
 * status; when it is still running then, kills it (SIGKILL), reaps it and
 * returns TU_TIMED_OUT, so that a hang fails the test instead of stalling. */
int tu_wait(pid_t pid, double secs);
#define TU_TIMED_OUT (-2)
/* CLOCK_MONOTONIC seconds. */
double tu_now(void);
/* kill(pid, sig), then tu_wait(pid, secs). */
int tu_stop(pid_t pid, int sig, double secs);
/* Runs `argv` with stdout+stderr captured into a malloc'ed string *out
 * (may be NULL); returns the exit status, or 128+signal. */
int tu_run(char *const argv[], char **out);
/* The same, killed after `secs` (the status is then 137, 128 + SIGKILL). */
int tu_run_bounded(char *const argv[], char **out, double secs);
/* Is `prog` an executable in $PATH? */
bool tu_in_path(const char *prog);
/* Runs the bagtop binary ($BAGTOP_BIN) with the given arguments. */
int tu_bagtop(char **out, const char *arg0, ...);
/* The same, killed (SIGKILL: exit status 137) after `seconds`, so that a
 * hang fails the test instead of stalling it. */
int tu_bagtop_bounded(char **out, unsigned seconds, const char *arg0, ...);
/* `bagtop check DIR` must pass (exit 0); fails the test with its output
 * otherwise. */
void tu_check_bag(const char *dir);
/* A cmocka test setup putting a fresh scratch directory (tu_mkdtemp) in
 * *state, and the teardown removing it, also when an assertion ended the
 * test (NULL *state: nothing to remove). */
int tu_scratch_setup(void **state);
int tu_scratch_teardown(void **state);
/* A cmocka test with that scratch directory in *state. */
#define TU_SCRATCH_TEST(f) cmocka_unit_test_setup_teardown(f, tu_scratch_setup, tu_scratch_teardown)
/* The same for a group: the directory is tu_group_tmp. */
extern char *tu_group_tmp;
int tu_group_tmp_setup(void **state);
int tu_group_tmp_teardown(void **state);
/* A fresh scratch directory (tu_mkdtemp) kept on a list (at most 32)
 * for tu_scratch_list_teardown, a cmocka teardown that removes and frees
 * every one: for tests that make several, or make them in helpers, and
 * must not leave them behind when an assertion ends the test. */
char *tu_scratch_new(const char *tag);
int tu_scratch_list_teardown(void **state);
/* A test named `name` (as cmocka_unit_test(name) would be) running f
 * with `arg` as its *state: one row of a table of cases, f the same for
 * every row. */
#define TU_CASE_TEST(name, f, arg) {#name, f, NULL, NULL, (void *)(arg)}
/* How many times `needle` occurs in `hay` (overlapping ones too). */
size_t tu_count_of(const char *hay, const char *needle);
/* Byte-identical files? */
int tu_files_equal(const char *a, const char *b);
/* Copies a file; aborts the test on failure. */
void tu_copy_file(const char *src, const char *dst);
/* Writes `len` bytes to `path`. */
void tu_write_file(const char *path, const void *data, size_t len);
/* Share of the pages of fd's file in [off, off + len) that are in the page
 * cache (off page-aligned; the caller may write the file: mincore). */
double tu_cached_share(int fd, uint64_t off, size_t len);
/* Skips the test (saying why) when `path` is on a tmpfs, whose pages are
 * the file: the page cache never drops them. */
void tu_skip_on_tmpfs(const char *path);
/* Write-behind (bt_wbehind) pauses, by design, when a call blocks (a disk
 * behind), and a loaded machine (CI's TSan suite) can make that happen at
 * the first window, which then stays cached: runs try_share(arg, i) for
 * i = 0, 1, 2 until one returns a share below 0.1, saying each that does
 * not, and fails when none does. Without write-behind every try keeps it
 * all. */
void tu_assert_written_behind(double (*try_share)(void *arg, int i), void *arg);

/* A test file's main(): runs the tests given (cmocka_unit_test(f),
 * TU_SCRATCH_TEST(f), …) as one cmocka group, with the group's setup and
 * teardown (TU_MAIN_GROUP) or none (TU_MAIN), and exits with what cmocka
 * returns (the number of failed tests). */
#define TU_MAIN_GROUP(setup, teardown, ...)                                  \
	int main(void)                                                       \
	{                                                                    \
		const struct CMUnitTest tests[] = {__VA_ARGS__};             \
		return cmocka_run_group_tests(tests, setup, teardown);       \
	}
#define TU_MAIN(...) TU_MAIN_GROUP(NULL, NULL, __VA_ARGS__)

#endif
