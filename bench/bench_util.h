/* bench_util — what store_bench and crash_bench share: clocks, medians,
 * scratch directories, number options. Benchmarks only; not part of bagtop.
 * Errors are printed to stderr here, once, with their cause. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BENCH_MIB (1024.0 * 1024.0)

double bench_now(void); /* CLOCK_MONOTONIC, seconds */
double bench_cpu(void); /* user + system CPU time of this process, seconds */

/* Median of v[0..n-1] (sorts v in place); 0 when n is 0. */
double bench_median(double *v, size_t n);

/* $TMPDIR, or /tmp when it is unset or empty. */
const char *bench_default_dir(void);
/* Creates "<parent>/<prefix>XXXXXX"; returns the malloc'ed path, or NULL
 * (cause printed). */
char *bench_scratch_new(const char *parent, const char *prefix);
/* Removes `path` and everything below it. 0, or -1 (cause printed). */
int bench_rmtree(const char *path);
/* Size in bytes of the regular file `path`, 0 if missing. */
uint64_t bench_file_size(const char *path);

struct iovec;
/* Writes the n pieces at iov whole (changed: a short write advances them),
 * resuming after EINTR. 0, or -1 with errno set. */
int bench_writev_all(int fd, struct iovec *iov, size_t n);

/* The 1-minute load average and online CPU count, for the report header. */
double bench_loadavg(void);
unsigned bench_cpus(void);

/* Parses a comma-separated list of unsigned numbers in [min, max] into
 * out[0..max_n-1]; with `sizes`, items may carry K/M/G suffixes ("1K").
 * Returns the count, or 0 on a bad list. */
size_t bench_parse_list(const char *s, bool sizes, uint64_t min, uint64_t max, uint64_t *out,
			size_t max_n);

/* Option helper: true and *val = argv[i + 1] (advancing *i) when argv[*i]
 * is `name` and a value follows. */
bool bench_opt(int argc, char **argv, int *i, const char *name, const char **val);

#endif
