#include "test_util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bt_buf.h"
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

int tu_run(char *const argv[], char **out)
{
	int pfd[2];
	if (pipe(pfd) != 0)
		abort();
	pid_t pid = fork();
	if (pid < 0)
		abort();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		close(pfd[1]);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	struct bt_buf b = BT_BUF_INIT;
	char chunk[4096];
	ssize_t n;
	while ((n = read(pfd[0], chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && bt_buf_append(&b, chunk, (size_t)n) != BT_OK)
			abort();
	close(pfd[0]);
	int status;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (out)
		*out = bt_buf_steal(&b);
	else
		bt_buf_fini(&b);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* argv: `pre` (n_pre of them), $BAGTOP_BIN, then the arguments in ap. */
static int tu_bagtop_v(char **out, char *const *pre, size_t n_pre, const char *arg0, va_list ap)
{
	const char *bin = getenv("BAGTOP_BIN");
	char *argv[64];
	size_t n = 0;
	for (size_t i = 0; i < n_pre; i++)
		argv[n++] = pre[i];
	argv[n++] = (char *)(bin ? bin : "bagtop");
	for (const char *a = arg0; a && n < 63; a = va_arg(ap, const char *))
		argv[n++] = (char *)a;
	argv[n] = NULL;
	return tu_run(argv, out);
}

int tu_bagtop(char **out, const char *arg0, ...)
{
	va_list ap;
	va_start(ap, arg0);
	int rc = tu_bagtop_v(out, NULL, 0, arg0, ap);
	va_end(ap);
	return rc;
}

int tu_bagtop_bounded(char **out, unsigned seconds, const char *arg0, ...)
{
	char secs[16];
	snprintf(secs, sizeof secs, "%u", seconds);
	char *const pre[] = {"timeout", "-s", "KILL", secs};
	va_list ap;
	va_start(ap, arg0);
	int rc = tu_bagtop_v(out, pre, 4, arg0, ap);
	va_end(ap);
	return rc;
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
