#include "bt_buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void bt_buf_fini(struct bt_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

void bt_buf_reset(struct bt_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

bt_status bt_buf_reserve(struct bt_buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 1)
		return BT_ERR_NOMEM;
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return BT_OK;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	char *p = realloc(b->data, cap);
	if (!p)
		return BT_ERR_NOMEM;
	b->data = p;
	b->cap = cap;
	return BT_OK;
}

bt_status bt_buf_append(struct bt_buf *b, const void *p, size_t n)
{
	bt_status st = bt_buf_reserve(b, n);
	if (st != BT_OK)
		return st;
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
	return BT_OK;
}

bt_status bt_buf_puts(struct bt_buf *b, const char *s)
{
	return bt_buf_append(b, s, strlen(s));
}

bt_status bt_buf_printf(struct bt_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return BT_ERR_FORMAT;
	bt_status st = bt_buf_reserve(b, (size_t)n);
	if (st != BT_OK)
		return st;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return BT_OK;
}

char *bt_buf_steal(struct bt_buf *b)
{
	char *p = b->data;
	if (!p)
		p = calloc(1, 1);
	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}
