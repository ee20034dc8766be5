/* bt_pool — recycled heap blocks of a few sizes, for objects allocated on
 * one thread and freed on another at a high rate (received samples: the
 * receive thread allocates, the writer frees). glibc's malloc pays for that
 * pattern in arena locking and coalescing on every free; a block taken
 * back from the pool costs one lock, and a free a share of one (a thread
 * hands its freed blocks to the pool 64 at a time).
 *
 * Sizes are rounded up to a multiple of BT_POOL_STEP up to BT_POOL_MAX;
 * larger blocks go straight to malloc/free. The pool keeps at most
 * BT_POOL_KEEP bytes of free blocks (and 16384 per size), plus up to 64
 * blocks per thread that frees; beyond that, blocks are freed. The bound
 * holds what the writer frees at once at high rates (a batch of 1 KiB
 * samples at 600k/s is ~10 MiB): below it, the blocks freed past it came
 * back from malloc, across threads. bt_pool_trim, called now and then,
 * frees the blocks that sat unused since its last call, so a burst's
 * blocks do not stay kept (and counted in the RSS) for the rest of a long
 * run.
 * Under AddressSanitizer nothing is kept (use-after-free stays visible).
 * Threads: every function may be called from any thread. */
#ifndef BT_POOL_H
#define BT_POOL_H

#include <stddef.h>

#define BT_POOL_STEP 256u
#define BT_POOL_MAX (8u * 1024u)
#define BT_POOL_KEEP (16u * 1024u * 1024u)

/* A block of at least n bytes (max_align_t aligned), NULL when memory is
 * short. Free it with bt_pool_free(p, n) with the same n. */
void *bt_pool_alloc(size_t n);
void bt_pool_free(void *p, size_t n);

/* Frees, per size, the free blocks none of the bt_pool_alloc calls since
 * the previous bt_pool_trim took (the stack's low-water mark: its oldest
 * blocks), and returns their bytes. The first call frees nothing; call it
 * at a steady period (the recorder: every 10 s) so that a steady load keeps
 * its working set and a burst's surplus goes back to malloc one period
 * after the burst. The calling thread's own list of freed blocks goes to
 * the pool first (others' stay with them: 64 blocks each at most). Never
 * frees while holding the pool's lock. */
size_t bt_pool_trim(void);

#endif
