/* bt_hiwater — when to give back the room of an array sized by its largest
 * use (a batch array grown for a backlog). Grown and never shrunk, such an
 * array keeps the largest backlog ever seen, and the process's memory
 * creeps up with each rarer, larger one; shrunk at the first smaller use,
 * it would be reallocated back and forth by batches of varying size. This
 * policy says to shrink once BT_HIWATER_RUN uses in a row needed at most a
 * quarter of the capacity, to twice the largest of them.
 *
 * Pure bookkeeping: no allocation, no lock; one owner per struct (the
 * array's owner). */
#ifndef BT_HIWATER_H
#define BT_HIWATER_H

#include <stddef.h>

#define BT_HIWATER_RUN 64u

struct bt_hiwater {
	size_t hi;    /* the largest use of the current run */
	unsigned run; /* uses in a row at most cap / 4 */
};

/* Notes a use of `used` elements of an array of `cap`. Returns the capacity
 * to shrink the array to (at least `floor`, less than `cap`), or 0 to keep
 * it as it is. Zero-initialise the struct before the first call. */
size_t bt_hiwater_note(struct bt_hiwater *h, size_t used, size_t cap, size_t floor);

#endif
