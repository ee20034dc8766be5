#include "test_util.h"

#include <errno.h>
#include <linux/magic.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bt_buf.h"
#include "bt_fs.h"
#include "bt_mem.h"

char *tu_mkdtemp(const char *tag)
{
	const char *base = getenv("TMPDIR");
	char *p = bt_xasprintf("%s/bagtop-test-%s-XXXXXX", base && *base ? base : "/tmp", tag);
	if (!mkdtemp(p)) {
		fprintf(stderr, "mkdtemp %s: %s\n", p, strerror(errno));
		abort();
	}
	return p;
}

void tu_rmrf(const char *path)
{
	if (!path || !path[0] || !strcmp(path, "/"))
		return;
	char *const argv[] = {"rm", "-rf", "--", (char *)path, NULL};
	tu_run(argv, NULL);
}

const char *tu_fixtures(void)
{
	const char *p = getenv("BAGTOP_FIXTURES");
	struct stat st;
	if (!p || stat(p, &st) != 0 || !S_ISDIR(st.st_mode))
		return NULL;
	return p;
}

void tu_require_fixtures(void)
{
	if (!tu_fixtures()) {
		printf("SKIP: rosbag2 fixtures not found (BAGTOP_FIXTURES=%s); "
		       "they live in ../shared/fixtures/rosbag2\n",
		       getenv("BAGTOP_FIXTURES") ? getenv("BAGTOP_FIXTURES") : "(unset)");
		exit(77);
	}
}

size_t tu_each_fixture(tu_fixture_fn *fn, void *arg)
{
	char **names;
	size_t n, dirs = 0;
	struct bt_error err;
	if (bt_fs_list_dir(tu_fixtures(), &names, &n, &err) != BT_OK)
		fail_msg("listing %s: %s", tu_fixtures(), err.msg);
	for (size_t i = 0; i < n; i++) {
		char *path = bt_fs_join(tu_fixtures(), names[i]);
		if (bt_fs_is_dir(path)) {
			fn(path, names[i], arg);
			dirs++;
		}
		free(path);
	}
	bt_fs_free_list(names, n);
	return dirs;
}

/* In the child: `fd` becomes `target`; false when it cannot. */
static bool tu_redirect(int target, const char *path, int flags)
{
	int fd = open(path, flags | O_CLOEXEC, 0644);
	if (fd < 0)
		return false;
	bool ok = dup2(fd, target) == target;
	close(fd);
	return ok;
}

/* In the child: stdin, stdout and stderr as `o` says; false on failure. */
static bool tu_child_io(const struct tu_spawn_opts *o, int pipe_wr)
{
	const int w = O_WRONLY | O_CREAT | O_TRUNC;
	if (!tu_redirect(0, "/dev/null", O_RDONLY))
		return false;
	if (pipe_wr >= 0) {
		if (dup2(pipe_wr, 1) != 1)
			return false;
	} else if (!tu_redirect(1, o->out_path ? o->out_path : "/dev/null", w)) {
		return false;
	}
	if (o->keep_stderr)
		return true;
	if (o->err_path)
		return tu_redirect(2, o->err_path, w);
	return dup2(1, 2) == 2;
}

pid_t tu_spawn(char *const argv[], const struct tu_spawn_opts *o)
{
	static const struct tu_spawn_opts none;
	if (!o)
		o = &none;
	int pfd[2] = {-1, -1};
	if (o->out_fd && pipe2(pfd, O_CLOEXEC) != 0)
		abort();
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		if (o->env)
			putenv((char *)o->env);
		if (!tu_child_io(o, pfd[1]))
			_exit(126);
		if (!argv)
			_exit(o->in_child(o->arg));
		if (o->in_child && o->in_child(o->arg) != 0)
			_exit(126);
		execvp(argv[0], argv);
		_exit(127);
	}
	if (o->out_fd) {
		close(pfd[1]);
		*o->out_fd = pfd[0];
	}
	return pid;
}

int tu_poll(pid_t pid)
{
	int status;
	pid_t r;
	while ((r = waitpid(pid, &status, WNOHANG)) < 0 && errno == EINTR)
		;
	if (r < 0)
		abort(); /* not our child, or reaped twice: a bug in the test */
	if (r == 0)
		return TU_RUNNING;
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

double tu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int tu_wait(pid_t pid, double secs)
{
	double end = tu_now() + secs;
	int st;
	while ((st = tu_poll(pid)) == TU_RUNNING) {
		if (secs >= 0 && tu_now() > end) {
			kill(pid, SIGKILL);
			while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
				;
			return TU_TIMED_OUT;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	return st;
}

int tu_stop(pid_t pid, int sig, double secs)
{
	kill(pid, sig);
	return tu_wait(pid, secs);
}

int tu_run_bounded(char *const argv[], char **out, double secs)
{
	int fd;
	pid_t pid = tu_spawn(argv, &(struct tu_spawn_opts){.out_fd = &fd});
	struct bt_buf b = BT_BUF_INIT;
	char chunk[4096];
	double end = tu_now() + secs;
	bool killed = false;
	for (;;) {
		int ms = -1;
		if (secs >= 0 && !killed)
			ms = end > tu_now() ? (int)((end - tu_now()) * 1000) + 1 : 0;
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int r = poll(&p, 1, ms);
		if (r == 0) { /* the time is up: kill, then read what is left */
			kill(pid, SIGKILL);
			killed = true;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		ssize_t n = r < 0 ? -1 : read(fd, chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (bt_buf_append(&b, chunk, (size_t)n) != BT_OK)
			abort();
	}
	close(fd);
	int st = tu_wait(pid, -1);
	if (out)
		*out = bt_buf_steal(&b);
	else
		bt_buf_fini(&b);
	return st;
}

int tu_run(char *const argv[], char **out)
{
	return tu_run_bounded(argv, out, -1);
}

/* $BAGTOP_BIN, then the arguments in ap; run within `secs` (< 0: no limit). */
static int tu_bagtop_v(char **out, double secs, const char *arg0, va_list ap)
{
	const char *bin = getenv("BAGTOP_BIN");
	char *argv[64];
	size_t n = 0;
	argv[n++] = (char *)(bin ? bin : "bagtop");
	for (const char *a = arg0; a && n < 63; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	argv[n] = NULL;
	return tu_run_bounded(argv, out, secs);
}

int tu_bagtop(char **out, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = tu_bagtop_v(out, -1, arg0, ap);
	va_end(ap);
	return rc;
}

int tu_bagtop_bounded(char **out, unsigned seconds, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = tu_bagtop_v(out, seconds, arg0, ap);
	va_end(ap);
	return rc;
}

void tu_check_bag(const char *dir)
{
	char *out = NULL;
	int rc = tu_bagtop(&out, "check", dir, NULL);
	if (rc != 0)
		fail_msg("bagtop check %s: exit %d: %s", dir, rc, out);
	free(out);
}

int tu_scratch_setup(void **state)
{
	*state = tu_mkdtemp("case");
	return 0;
}

int tu_scratch_teardown(void **state)
{
	if (*state) {
		tu_rmrf(*state);
		free(*state);
		*state = NULL;
	}
	return 0;
}

static char *tu_scratch_list[32];
static size_t tu_n_scratch;

char *tu_scratch_new(const char *tag)
{
	assert_true(tu_n_scratch < sizeof tu_scratch_list / sizeof tu_scratch_list[0]);
	return tu_scratch_list[tu_n_scratch++] = tu_mkdtemp(tag);
}

int tu_scratch_list_teardown(void **state)
{
	(void)state;
	for (size_t i = 0; i < tu_n_scratch; i++) {
		tu_rmrf(tu_scratch_list[i]);
		free(tu_scratch_list[i]);
	}
	tu_n_scratch = 0;
	return 0;
}

char *tu_group_tmp;

int tu_group_tmp_setup(void **state)
{
	(void)state;
	tu_group_tmp = tu_mkdtemp("group");
	return 0;
}

int tu_group_tmp_teardown(void **state)
{
	(void)state;
	return tu_scratch_teardown((void **)&tu_group_tmp);
}

size_t tu_count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

int tu_files_equal(const char *a, const char *b)
{
	char *const argv[] = {"cmp", "-s", (char *)a, (char *)b, NULL};
	return tu_run(argv, NULL) == 0;
}

void tu_copy_file(const char *src, const char *dst)
{
	char *const argv[] = {"cp", "--", (char *)src, (char *)dst, NULL};
	if (tu_run(argv, NULL) != 0) {
		fprintf(stderr, "cannot copy %s to %s\n", src, dst);
		abort();
	}
}

void tu_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	if (!f || (len && fwrite(data, 1, len, f) != len) || fclose(f) != 0) {
		fprintf(stderr, "cannot write %s\n", path);
		abort();
	}
}

double tu_cached_share(int fd, uint64_t off, size_t len)
{
	void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	assert_true(m != MAP_FAILED);
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = len / page, in = 0;
	unsigned char *vec = bt_xmalloc(n);
	assert_int_equal(mincore(m, len, vec), 0);
	for (size_t i = 0; i < n; i++)
		in += vec[i] & 1;
	free(vec);
	munmap(m, len);
	return (double)in / (double)n;
}

void tu_skip_on_tmpfs(const char *path)
{
	struct statfs fs;
	assert_int_equal(statfs(path, &fs), 0);
	if (fs.f_type != TMPFS_MAGIC)
		return;
	fprintf(stderr, "%s is a tmpfs: its pages are the file, nothing to drop\n", path);
	skip();
}

void tu_assert_written_behind(double (*try_share)(void *arg, int i), void *arg)
{
	double share = 1.0;
	for (int i = 0; i < 3 && share >= 0.1; i++)
		if ((share = try_share(arg, i)) >= 0.1)
			fprintf(stderr, "write-behind: try %d kept %.2f cached\n", i + 1, share);
	assert_true(share < 0.1);
}

bool tu_in_path(const char *prog)
{
	const char *path = getenv("PATH");
	if (path == NULL)
		return false;
	char *dup = bt_xstrdup(path), *save = NULL;
	bool found = false;
	for (char *d = strtok_r(dup, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char full[4096];
		snprintf(full, sizeof full, "%s/%s", d, prog);
		found = access(full, X_OK) == 0;
	}
	free(dup);
	return found;
}
