/* bt_mem — allocation wrappers for set-up code only (option parsing, opening
 * a bag): the bt_x ones abort with a message on out-of-memory. The data path
 * and what untrusted input sizes must use plain malloc (or bt_grow) and fail
 * or drop-and-count instead. */
#ifndef BT_MEM_H
#define BT_MEM_H

#include <stdbool.h>
#include <stddef.h>

/* Grows *arr (of *cap elements of `size` bytes) to hold at least `need`,
 * doubling; false (*arr and *cap unchanged) when out of memory or past
 * SIZE_MAX. New elements are not zeroed. */
bool bt_grow(void **arr, size_t *cap, size_t need, size_t size);
void *bt_xmalloc(size_t n);
void *bt_xcalloc(size_t n, size_t size);
void *bt_xrealloc(void *p, size_t n);
/* Grows *arr (of *cap elements of `size` bytes) to hold at least `need`. */
void bt_xgrow(void **arr, size_t *cap, size_t need, size_t size);
/* Appends a copy of *elem (`size` bytes) to *arr, an array of *n such
 * elements that grows by one, and counts it in *n. */
void bt_xappend(void **arr, size_t *n, const void *elem, size_t size);
char *bt_xstrdup(const char *s); /* NULL in, NULL out */
char *bt_xstrndup(const char *s, size_t n);
char *bt_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
