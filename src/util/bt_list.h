/* bt_list — the tail append of an intrusive singly linked list kept as a
 * head and a tail pointer, for any element type with a `next` member (in
 * the spirit of <sys/queue.h>'s STAILQ_INSERT_TAIL, on plain pointers, so
 * that the lists' other code walks ->next as it did). */
#ifndef BT_LIST_H
#define BT_LIST_H

#include <stddef.h>

/* Appends elem after tail (head and tail lvalues; both NULL for an empty
 * list) and sets elem->next to NULL. Arguments are evaluated more than
 * once: pass plain names or member accesses. Counts are the caller's. */
#define BT_LIST_APPEND(head, tail, elem)                                                           \
	do {                                                                                       \
		(elem)->next = NULL;                                                               \
		if ((tail) != NULL)                                                                \
			(tail)->next = (elem);                                                     \
		else                                                                               \
			(head) = (elem);                                                           \
		(tail) = (elem);                                                                   \
	} while (0)

#endif
