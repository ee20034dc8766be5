/* bt_pool — see bt_pool.h. One stack of free blocks per size class under
 * one mutex (the callers are a receive thread or two and one writer). The
 * stacks hold pointers, not links inside the blocks: taking a block does
 * not touch its (cold) memory.
 *
 * Each thread keeps the blocks it frees in a short list of its own
 * (pool_tl) and moves them to the stacks POOL_TL_N at a time: the writer
 * frees a whole batch of received samples at once, and taking the mutex
 * for each of them moved its cache line between the writer's core and
 * the receive thread's (which takes it for every sample it allocates) at
 * every message. An allocation looks in the thread's own list first. A
 * thread's list goes back to the stacks when the thread ends (a key
 * destructor), and bt_pool_trim empties the caller's first. */
#include "bt_pool.h"

#include <pthread.h>
#include <stdbool.h>
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
#define POOL_DEPTH 16384 /* free blocks per class at most */
#define POOL_TL_N 64     /* blocks a thread keeps at most */

static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static void *pool_free[POOL_CLASSES][POOL_DEPTH];
static size_t pool_n[POOL_CLASSES];
static size_t pool_kept; /* bytes in the stacks */
/* The lowest pool_n[k] since the last bt_pool_trim: that many blocks at the
 * bottom of the stack were not taken in the meantime. */
static size_t pool_low[POOL_CLASSES];

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

/* Moves t's blocks into the stacks and frees those beyond the bound (after
 * unlocking); t is empty after. */
static void pool_flush(struct pool_tl *t)
{
	size_t left = 0;
	pthread_mutex_lock(&pool_mu);
	for (size_t i = 0; i < t->n; i++) {
		int k = t->k[i];
		size_t sz = pool_class_size(k);
		if (pool_kept + sz <= POOL_KEEP && pool_n[k] < POOL_DEPTH) {
			pool_free[k][pool_n[k]++] = t->p[i];
			pool_kept += sz;
		} else {
			t->p[left++] = t->p[i];
		}
	}
	pthread_mutex_unlock(&pool_mu);
	for (size_t i = 0; i < left; i++)
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

/* The calling thread's list, or NULL when it could not be given back at
 * the thread's end (no key): that thread uses the stacks directly. */
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

void *bt_pool_alloc(size_t n)
{
	int k = pool_class(n);
	if (k < 0)
		return malloc(n ? n : 1);
	void *b = NULL;
	struct pool_tl *t = POOL_KEEP != 0 ? pool_mine() : NULL;
	if (t != NULL && t->n > 0)
		b = pool_take_tl(t, k);
	if (b == NULL) {
		pthread_mutex_lock(&pool_mu);
		if (pool_n[k] > 0) {
			b = pool_free[k][--pool_n[k]];
			pool_kept -= pool_class_size(k);
			if (pool_n[k] < pool_low[k])
				pool_low[k] = pool_n[k];
		}
		pthread_mutex_unlock(&pool_mu);
	}
	return b != NULL ? b : malloc(pool_class_size(k));
}

void bt_pool_free(void *p, size_t n)
{
	int k = pool_class(n);
	if (p == NULL)
		return;
	if (k < 0 || POOL_KEEP == 0) {
		free(p);
		return;
	}
	struct pool_tl *t = pool_mine();
	if (t == NULL) { /* no list of its own: straight to the stacks */
		struct pool_tl one = {.p = {p}, .k = {(unsigned char)k}, .n = 1};
		pool_flush(&one);
		return;
	}
	if (t->n == POOL_TL_N)
		pool_flush(t);
	t->p[t->n] = p;
	t->k[t->n++] = (unsigned char)k;
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
		pool_kept -= m * pool_class_size(k);
	} else {
		pool_low[k] = pool_n[k];
	}
	pthread_mutex_unlock(&pool_mu);
	return m;
}

size_t bt_pool_trim(void)
{
	struct pool_tl *t = POOL_KEEP != 0 ? pool_mine() : NULL;
	if (t != NULL)
		pool_flush(t); /* the caller's own frees count as kept blocks */
	size_t freed = 0;
	for (int k = 0; k < (int)POOL_CLASSES; k++) {
		void *out[TRIM_STEP];
		size_t m;
		while ((m = pool_take_unused(k, out)) > 0) {
			for (size_t i = 0; i < m; i++)
				free(out[i]);
			freed += m * pool_class_size(k);
		}
	}
	return freed;
}
