/* bt_heap — see the header. */
#include "bt_heap.h"

#include "bt_pool.h"

#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

void bt_heap_setup(size_t freed_at_once)
{
#ifdef __GLIBC__
	size_t trim = freed_at_once < INT_MAX ? freed_at_once : INT_MAX;
	if (trim < BT_HEAP_TRIM_MIN)
		trim = BT_HEAP_TRIM_MIN;
	/* mallopt returns 0 where it refuses: malloc then works as before. */
	(void)mallopt(M_MMAP_THRESHOLD, (int)BT_HEAP_MMAP_MAX);
	(void)mallopt(M_TRIM_THRESHOLD, (int)trim);
#else
	(void)freed_at_once;
#endif
}

void bt_heap_trim(void)
{
	(void)bt_pool_trim(); /* the bytes it freed: nothing to act on */
#ifdef __GLIBC__
	(void)malloc_trim(0); /* returns whether it released anything */
#endif
}
