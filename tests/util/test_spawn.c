/* The tests' own process helpers (tests/test_util.c): every test that runs
 * bagtop, tpub or ddsperf relies on them to wire, bound and reap children. */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_fs.h"
#include "bt_mem.h"
#include "test_util.h"

static void test_run_captures(void **state)
{
	(void)state;
	char *out = NULL;
	char *const argv[] = {"sh", "-c", "echo out; echo err >&2; exit 3", NULL};
	assert_int_equal(tu_run(argv, &out), 3);
	assert_non_null(strstr(out, "out\n"));
	assert_non_null(strstr(out, "err\n"));
	free(out);
	char *const missing[] = {"/no/such/program", NULL};
	assert_int_equal(tu_run(missing, NULL), 127);
	char *const killed[] = {"sh", "-c", "kill -TERM $$", NULL};
	assert_int_equal(tu_run(killed, NULL), 128 + SIGTERM);
}

static void test_run_bounded_kills(void **state)
{
	(void)state;
	char *out = NULL;
	char *const argv[] = {"sh", "-c", "echo started; exec sleep 30", NULL};
	double t0 = tu_now();
	assert_int_equal(tu_run_bounded(argv, &out, 0.3), 128 + SIGKILL);
	assert_true(tu_now() - t0 < 10.0);
	assert_string_equal(out, "started\n"); /* what came before the kill is kept */
	free(out);
}

static int set_umask(void *arg)
{
	umask(*(mode_t *)arg);
	return 0;
}

static int child_fn(void *arg)
{
	return *(int *)arg;
}

static void test_spawn_wiring(void **state)
{
	(void)state;
	char *tmp = tu_mkdtemp("spawn");
	char *out = bt_fs_join(tmp, "out"), *err = bt_fs_join(tmp, "err");
	mode_t mask = 077;
	char *const argv[] = {"sh", "-c", "echo \"$TU_X\"; umask; echo e >&2; cat", NULL};
	pid_t pid = tu_spawn(argv, &(struct tu_spawn_opts){.env = "TU_X=seen", .out_path = out,
							  .err_path = err, .in_child = set_umask,
							  .arg = &mask});
	assert_int_equal(tu_wait(pid, 10.0), 0); /* cat: stdin is /dev/null */
	char *text = NULL;
	size_t len;
	assert_int_equal(bt_fs_read_all(out, 1024, &text, &len, NULL), BT_OK);
	assert_string_equal(text, "seen\n0077\n");
	free(text);
	assert_int_equal(bt_fs_read_all(err, 1024, &text, &len, NULL), BT_OK);
	assert_string_equal(text, "e\n");
	free(text);
	assert_null(getenv("TU_X")); /* only the child's environment */
	int code = 5;
	pid = tu_spawn(NULL, &(struct tu_spawn_opts){.in_child = child_fn, .arg = &code});
	assert_int_equal(tu_wait(pid, 10.0), 5);
	tu_rmrf(tmp);
	free(out);
	free(err);
	free(tmp);
}

static void test_wait_poll_stop(void **state)
{
	(void)state;
	char *const argv[] = {"sleep", "30", NULL};
	pid_t pid = tu_spawn(argv, NULL);
	assert_int_equal(tu_poll(pid), TU_RUNNING);
	double t0 = tu_now();
	assert_int_equal(tu_wait(pid, 0.2), TU_TIMED_OUT); /* killed and reaped */
	assert_true(tu_now() - t0 < 10.0);
	assert_int_equal(kill(pid, 0), -1);
	pid = tu_spawn(argv, NULL);
	assert_int_equal(tu_stop(pid, SIGINT, 10.0), 128 + SIGINT);
	int fd;
	char *const echo[] = {"echo", "piped", NULL};
	pid = tu_spawn(echo, &(struct tu_spawn_opts){.out_fd = &fd});
	char buf[16] = "";
	assert_int_equal(read(fd, buf, sizeof buf - 1), 6);
	assert_string_equal(buf, "piped\n");
	close(fd);
	assert_int_equal(tu_wait(pid, -1), 0);
}

TU_MAIN(
	cmocka_unit_test(test_run_captures),
	cmocka_unit_test(test_run_bounded_kills),
	cmocka_unit_test(test_spawn_wiring),
	cmocka_unit_test(test_wait_poll_stop))
