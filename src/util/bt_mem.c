#include "bt_mem.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void bt_mem_die(size_t n)
{
	fprintf(stderr, "bagtop: out of memory (allocating %zu bytes)\n", n);
	abort();
}

void *bt_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		bt_mem_die(n);
	return p;
}

void *bt_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		bt_mem_die(n * size);
	return p;
}

void *bt_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		bt_mem_die(n);
	return q;
}

bool bt_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return true;
	size_t c = *cap ? *cap : 8;
	while (c < need && c <= SIZE_MAX / 2)
		c *= 2;
	if (c < need || c > SIZE_MAX / size)
		return false;
	void *g = realloc(*arr, c * size);
	if (!g)
		return false;
	*arr = g;
	*cap = c;
	return true;
}

void bt_xgrow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t old = *cap;
	if (need <= old)
		return; /* *arr may be NULL (nothing to zero) */
	if (!bt_grow(arr, cap, need, size))
		bt_mem_die(need > SIZE_MAX / size ? SIZE_MAX : need * size);
	memset((char *)*arr + old * size, 0, (*cap - old) * size);
}

void bt_xappend(void **arr, size_t *n, const void *elem, size_t size)
{
	if (*n >= SIZE_MAX / size)
		bt_mem_die(SIZE_MAX);
	*arr = bt_xrealloc(*arr, (*n + 1) * size);
	memcpy((char *)*arr + *n * size, elem, size);
	++*n;
}

char *bt_xstrdup(const char *s)
{
	return s ? bt_xstrndup(s, strlen(s)) : NULL;
}

char *bt_xstrndup(const char *s, size_t n)
{
	char *p = bt_xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *bt_xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		bt_mem_die(0);
	char *p = bt_xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}
