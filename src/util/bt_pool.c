/* bt_pool — see bt_pool.h. One stack of free blocks per size class under
 * one mutex (the callers are a receive thread or two and one writer). The
 * stacks hold pointers, not links inside the blocks: taking a block does
 * not touch its (cold) memory.
 *
 * Each thread keeps a short list of blocks it freed or took in advance
 * (pool_tl), so that the mutex, whose cache line would otherwise move
 * between the receive thread's core and the writer's at every message, is
 * taken once per POOL_TL_N frees and once per POOL_REFILL allocations:
 * the writer frees a whole batch of received samples at a time, the
 * receive thread allocates them one by one. A thread's list goes back to
 * the pool when it ends (a key destructor). */
#include "bt_pool.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

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
#define POOL_DEPTH 16384 /* free blocks per class at most */
#define POOL_TL_N 64     /* blocks a thread keeps at most */
#define POOL_REFILL 16   /* blocks an allocation takes ahead, at most */

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static void *pool_free[POOL_CLASSES][POOL_DEPTH];
static size_t pool_n[POOL_CLASSES];
static size_t pool_kept; /* bytes in the stacks */

struct pool_tl {
	void *p[POOL_TL_N];
	unsigned char k[POOL_TL_N]; /* class of p[i] */
	size_t n;
	bool keyed; /* the key's destructor will give the blocks back */
};

static _Thread_local struct pool_tl pool_tl;
static pthread_key_t pool_key;
static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static bool pool_key_ok;

/* Class k holds blocks of (k + 1) * BT_POOL_STEP bytes; -1: not pooled. */
static int pool_class(size_t n)
{
	if (n == 0 || n > BT_POOL_MAX)
		return -1;
	return (int)((n - 1) / BT_POOL_STEP);
}

static size_t pool_class_size(int k)
{
	return ((size_t)k + 1) * BT_POOL_STEP;
}

/* Moves t's blocks into the stacks (beyond the bound: freed), mu held;
 * the ones to free are left in t. */
static void pool_put_locked(struct pool_tl *t)
{
	size_t left = 0;
	for (size_t i = 0; i < t->n; i++) {
		int k = t->k[i];
		size_t sz = pool_class_size(k);
		if (pool_kept + sz <= POOL_KEEP && pool_n[k] < POOL_DEPTH) {
			pool_free[k][pool_n[k]++] = t->p[i];
			pool_kept += sz;
		} else {
			t->p[left] = t->p[i];
			t->k[left++] = t->k[i];
		}
	}
	t->n = left;
}

static void pool_flush(struct pool_tl *t)
{
	pthread_mutex_lock(&pool_mu);
	pool_put_locked(t);
	pthread_mutex_unlock(&pool_mu);
	for (size_t i = 0; i < t->n; i++)
		free(t->p[i]);
	t->n = 0;
}

static void pool_thread_end(void *arg)
{
	struct pool_tl *t = arg;
	pool_flush(t);
	t->keyed = false; /* a later destructor's free keys it again */
}

static void pool_key_init(void)
{
	pool_key_ok = pthread_key_create(&pool_key, pool_thread_end) == 0;
}

/* The calling thread's list, or NULL when it cannot be given back at the
 * thread's end (no key): then the thread uses the stacks directly. */
static struct pool_tl *pool_mine(void)
{
	struct pool_tl *t = &pool_tl;
	if (t->keyed)
		return t;
	pthread_once(&pool_once, pool_key_init);
	if (!pool_key_ok || pthread_setspecific(pool_key, t) != 0)
		return NULL;
	t->keyed = true;
	return t;
}

/* A block of class k from t's list (the most recent first), or NULL. */
static void *pool_take_tl(struct pool_tl *t, int k)
{
	for (size_t i = t->n; i-- > 0;) {
		if (t->k[i] != k)
			continue;
		void *b = t->p[i];
		t->p[i] = t->p[--t->n];
		t->k[i] = t->k[t->n];
		return b;
	}
	return NULL;
}

/* One block of class k from the stacks, and up to POOL_REFILL - 1 more
 * into t's list while it has room (t may be NULL). */
static void *pool_take_stack(struct pool_tl *t, int k)
{
	void *b = NULL;
	pthread_mutex_lock(&pool_mu);
	if (pool_n[k] > 0) {
		b = pool_free[k][--pool_n[k]];
		pool_kept -= pool_class_size(k);
		for (int i = 1; t != NULL && i < POOL_REFILL && pool_n[k] > 0 && t->n < POOL_TL_N;
		     i++) {
			t->p[t->n] = pool_free[k][--pool_n[k]];
			t->k[t->n++] = (unsigned char)k;
			pool_kept -= pool_class_size(k);
		}
	}
	pthread_mutex_unlock(&pool_mu);
	return b;
}

void *bt_pool_alloc(size_t n)
{
	int k = pool_class(n);
	if (k < 0)
		return malloc(n ? n : 1);
	void *b = NULL;
	if (POOL_KEEP != 0) {
		struct pool_tl *t = pool_mine();
		if (t != NULL)
			b = pool_take_tl(t, k);
		if (b == NULL)
			b = pool_take_stack(t, k);
	}
	return b != NULL ? b : malloc(pool_class_size(k));
}

void bt_pool_free(void *p, size_t n)
{
	int k = pool_class(n);
	if (p == NULL)
		return;
	struct pool_tl *t = k >= 0 && POOL_KEEP != 0 ? pool_mine() : NULL;
	if (t == NULL) {
		if (k >= 0 && POOL_KEEP != 0) { /* no list: straight to the stacks */
			struct pool_tl one = {.p = {p}, .k = {(unsigned char)k}, .n = 1};
			pool_flush(&one);
			return;
		}
		free(p);
		return;
	}
	if (t->n == POOL_TL_N)
		pool_flush(t);
	t->p[t->n] = p;
	t->k[t->n++] = (unsigned char)k;
}
