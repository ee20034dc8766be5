#include "bench_util.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "bt_fs.h"
#include "bt_mem.h"
#include "bt_parse.h"

double bench_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double bench_cpu(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
}

static int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

const char *bench_default_dir(void)
{
	const char *t = getenv("TMPDIR");
	return t && *t ? t : "/tmp";
}

char *bench_scratch_new(const char *parent, const char *prefix)
{
	char *path = bt_xasprintf("%s/%sXXXXXX", parent, prefix);
	if (!mkdtemp(path)) {
		fprintf(stderr, "cannot create a scratch directory in %s: %s\n", parent,
			strerror(errno));
		free(path);
		return NULL;
	}
	return path;
}

static int bench_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	int rc = flag == FTW_DP ? rmdir(path) : unlink(path);
	if (rc != 0)
		fprintf(stderr, "cannot remove %s: %s\n", path, strerror(errno));
	return rc;
}

int bench_rmtree(const char *path)
{
	return nftw(path, bench_rm_one, 16, FTW_DEPTH | FTW_PHYS) == 0 ? 0 : -1;
}

int bench_writev_all(int fd, struct iovec *iov, size_t n)
{
	while (n > 0 && iov->iov_len == 0)
		iov++, n--;
	while (n > 0) {
		ssize_t k = writev(fd, iov, n < IOV_MAX ? (int)n : IOV_MAX);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		bt_fs_iov_advance(&iov, &n, (size_t)k);
	}
	return 0;
}

uint64_t bench_file_size(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

double bench_loadavg(void)
{
	double l[1];
	return getloadavg(l, 1) == 1 ? l[0] : -1;
}

unsigned bench_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 && n < 1024 ? (unsigned)n : 1;
}

size_t bench_parse_list(const char *s, bool sizes, uint64_t min, uint64_t max, uint64_t *out,
			size_t max_n)
{
	char *copy = bt_xstrdup(s), *save = NULL;
	size_t n = 0;
	for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		bt_status st = n == max_n ? BT_ERR_USAGE
			       : sizes	  ? bt_parse_size(t, &out[n])
					  : bt_parse_u64(t, min, max, &out[n]);
		if (st != BT_OK || out[n] < min || out[n] > max) {
			n = 0;
			break;
		}
		n++;
	}
	free(copy);
	return n;
}

bool bench_opt(int argc, char **argv, int *i, const char *name, const char **val)
{
	if (strcmp(argv[*i], name) != 0 || *i + 1 >= argc)
		return false;
	*val = argv[++*i];
	return true;
}
