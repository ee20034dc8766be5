/* bt_pool — see bt_pool.h. One stack of free blocks per size class under
 * one mutex (the callers are a receive thread or two and one writer). The
 * stacks hold pointers, not links inside the blocks: taking a block does
 * not touch its (cold) memory. */
#include "bt_pool.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SANITIZE_ADDRESS__)
#define POOL_KEEP 0u
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define POOL_KEEP 0u
#endif
#endif
#ifndef POOL_KEEP
#define POOL_KEEP BT_POOL_KEEP
#endif

#define POOL_CLASSES (BT_POOL_MAX / BT_POOL_STEP)
#define POOL_DEPTH 4096 /* free blocks per class at most */

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static void *pool_free[POOL_CLASSES][POOL_DEPTH];
static size_t pool_n[POOL_CLASSES];
static size_t pool_kept; /* bytes in the stacks */
/* The lowest pool_n[k] since the last bt_pool_trim: that many blocks at the
 * bottom of the stack were not taken in the meantime. */
static size_t pool_low[POOL_CLASSES];

/* Class k holds blocks of (k + 1) * BT_POOL_STEP bytes; -1: not pooled. */
static int pool_class(size_t n)
{
	if (n == 0 || n > BT_POOL_MAX)
		return -1;
	return (int)((n - 1) / BT_POOL_STEP);
}

void *bt_pool_alloc(size_t n)
{
	int k = pool_class(n);
	if (k < 0)
		return malloc(n ? n : 1);
	void *b = NULL;
	pthread_mutex_lock(&pool_mu);
	if (pool_n[k] > 0) {
		b = pool_free[k][--pool_n[k]];
		pool_kept -= ((size_t)k + 1) * BT_POOL_STEP;
		if (pool_n[k] < pool_low[k])
			pool_low[k] = pool_n[k];
	}
	pthread_mutex_unlock(&pool_mu);
	return b != NULL ? b : malloc(((size_t)k + 1) * BT_POOL_STEP);
}

void bt_pool_free(void *p, size_t n)
{
	int k = pool_class(n);
	if (p == NULL)
		return;
	if (k >= 0) {
		size_t sz = ((size_t)k + 1) * BT_POOL_STEP;
		pthread_mutex_lock(&pool_mu);
		if (pool_kept + sz <= POOL_KEEP && pool_n[k] < POOL_DEPTH) {
			pool_free[k][pool_n[k]++] = p;
			pool_kept += sz;
			p = NULL;
		}
		pthread_mutex_unlock(&pool_mu);
	}
	free(p);
}

/* Takes up to TRIM_STEP of class k's unused blocks off the bottom of its
 * stack into out; returns how many (0: the class is done, its low-water
 * mark restarted at its current depth). */
#define TRIM_STEP 256

static size_t pool_take_unused(int k, void **out)
{
	pthread_mutex_lock(&pool_mu);
	size_t m = pool_low[k] < TRIM_STEP ? pool_low[k] : TRIM_STEP;
	if (m > 0) {
		memcpy(out, pool_free[k], m * sizeof *out);
		memmove(pool_free[k], pool_free[k] + m, (pool_n[k] - m) * sizeof *out);
		pool_n[k] -= m;
		pool_low[k] -= m;
		pool_kept -= m * ((size_t)k + 1) * BT_POOL_STEP;
	} else {
		pool_low[k] = pool_n[k];
	}
	pthread_mutex_unlock(&pool_mu);
	return m;
}

size_t bt_pool_trim(void)
{
	size_t freed = 0;
	for (int k = 0; k < (int)POOL_CLASSES; k++) {
		void *out[TRIM_STEP];
		size_t m;
		while ((m = pool_take_unused(k, out)) > 0) {
			for (size_t i = 0; i < m; i++)
				free(out[i]);
			freed += m * ((size_t)k + 1) * BT_POOL_STEP;
		}
	}
	return freed;
}
