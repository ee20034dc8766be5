/* bt_heap_setup in the recorder's pattern: blocks of 1 MiB allocated and
 * written on one thread and freed a batch at a time on another. Counted in
 * the allocating thread's minor page faults (getrusage), no timing. With
 * glibc's defaults every block's pages are faulted in anew (the control:
 * the pattern is the one that costs); with the setup, after the first
 * rounds, they are reused. Each side runs in a child process of its own
 * (the settings are the process's). Skipped where the allocator is not
 * glibc's (a sanitizer's). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bt_heap.h"
#include "test_util.h"

#define TH_BLOCK (1u << 20)
#define TH_BATCH 32
#define TH_ROUNDS 12
#define TH_WARM 2 /* rounds before counting */

struct th_run {
	pthread_barrier_t bar;
	void *blk[TH_BATCH];
	long faults; /* the allocating thread's, after TH_WARM rounds */
};

static long th_thread_faults(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) == 0 ? ru.ru_minflt : -1;
}

static void *th_allocate(void *arg)
{
	struct th_run *r = arg;
	long from = 0;
	for (int k = 0; k < TH_ROUNDS; k++) {
		if (k == TH_WARM)
			from = th_thread_faults();
		for (int i = 0; i < TH_BATCH; i++) {
			r->blk[i] = malloc(TH_BLOCK);
			if (r->blk[i] == NULL)
				abort();
			memset(r->blk[i], k + 1, TH_BLOCK);
		}
		pthread_barrier_wait(&r->bar); /* handed over */
		pthread_barrier_wait(&r->bar); /* freed */
	}
	r->faults = th_thread_faults() - from;
	return NULL;
}

static void *th_free(void *arg)
{
	struct th_run *r = arg;
	for (int k = 0; k < TH_ROUNDS; k++) {
		pthread_barrier_wait(&r->bar);
		for (int i = 0; i < TH_BATCH; i++)
			free(r->blk[i]);
		pthread_barrier_wait(&r->bar);
	}
	return NULL;
}

/* Minor faults per block counted, in a child (after bt_heap_setup when
 * `setup`), or -1. */
static long th_faults_per_block(bool setup)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (setup)
			bt_heap_setup(100u << 20);
		static struct th_run r;
		pthread_t a, f;
		if (pthread_barrier_init(&r.bar, NULL, 2) != 0 ||
		    pthread_create(&a, NULL, th_allocate, &r) != 0 ||
		    pthread_create(&f, NULL, th_free, &r) != 0)
			_exit(2);
		pthread_join(a, NULL);
		pthread_join(f, NULL);
		long per = r.faults / ((TH_ROUNDS - TH_WARM) * TH_BATCH);
		_exit(write(fds[1], &per, sizeof per) == sizeof per ? 0 : 3);
	}
	close(fds[1]);
	long per = -1;
	ssize_t n = read(fds[0], &per, sizeof per);
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(n, sizeof per);
	return per;
}

static void test_large_blocks_reuse_pages(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || !defined(__GLIBC__)
	fprintf(stderr, "test_heap: not glibc's allocator here (a sanitizer's, or another libc)\n");
	skip();
#endif
	long pages = TH_BLOCK / sysconf(_SC_PAGESIZE);
	long without = th_faults_per_block(false);
	long with = th_faults_per_block(true);
	fprintf(stderr, "test_heap: minor faults per 1 MiB block: %ld with glibc's defaults, %ld "
			"after bt_heap_setup (%ld pages a block)\n",
		without, with, pages);
	assert_true(without > pages / 2); /* the control */
	assert_true(with < pages / 16);
}

TU_MAIN(cmocka_unit_test(test_large_blocks_reuse_pages))
