/* btdds_cdr — strict plain-CDR reader and a small writer (btdds_cdr.h). */
#include "btdds_cdr.h"

#include <stdlib.h>
#include <string.h>

#define CDR_HDR 4

void btdds_cdr_fail(struct btdds_cdr_rd *r, const char *what)
{
	if (r->what == NULL) {
		r->what = what;
		r->what_off = r->off;
	}
}

bt_status btdds_cdr_rd_init(struct btdds_cdr_rd *r, const void *data, size_t n)
{
	memset(r, 0, sizeof *r);
	const unsigned char *b = data;
	if (n < CDR_HDR || b[0] != 0 || b[1] > 1)
		return BT_ERR_FORMAT;
	bool le = b[1] == 1;
	uint16_t one = 1;
	bool host_le = *(const unsigned char *)&one == 1;
	r->swap = le != host_le;
	r->p = b + CDR_HDR;
	r->len = n - CDR_HDR;
	return BT_OK;
}

bool btdds_cdr_ok(const struct btdds_cdr_rd *r)
{
	return r->what == NULL;
}

bt_status btdds_cdr_error(const struct btdds_cdr_rd *r, const char *what, struct bt_error *err)
{
	if (r->what == NULL)
		return BT_OK;
	return bt_err_set(err, BT_ERR_FORMAT, "%s: %s at offset %zu of %zu", what, r->what,
			  r->what_off, r->len);
}

/* Aligns to `a` and checks that `n` bytes follow; NULL (failed) if not. */
static const unsigned char *cdr_take(struct btdds_cdr_rd *r, size_t a, size_t n)
{
	if (r->what != NULL)
		return NULL;
	size_t off = (r->off + a - 1) & ~(a - 1);
	if (off > r->len || n > r->len - off) {
		btdds_cdr_fail(r, "data beyond the end");
		return NULL;
	}
	r->off = off + n;
	return r->p + off;
}

uint8_t btdds_cdr_u8(struct btdds_cdr_rd *r)
{
	const unsigned char *p = cdr_take(r, 1, 1);
	return p ? p[0] : 0;
}

bool btdds_cdr_bool(struct btdds_cdr_rd *r)
{
	return btdds_cdr_u8(r) != 0;
}

/* Copies the next n-byte primitive (aligned to n) into *v, as stored: the
 * caller swaps it. Leaves *v alone when it is not there (failed). */
static void cdr_prim(struct btdds_cdr_rd *r, void *v, size_t n)
{
	const unsigned char *p = cdr_take(r, n, n);
	if (p != NULL)
		memcpy(v, p, n);
}

uint16_t btdds_cdr_u16(struct btdds_cdr_rd *r)
{
	uint16_t v = 0;
	cdr_prim(r, &v, sizeof v);
	return r->swap ? __builtin_bswap16(v) : v;
}

uint32_t btdds_cdr_u32(struct btdds_cdr_rd *r)
{
	uint32_t v = 0;
	cdr_prim(r, &v, sizeof v);
	return r->swap ? __builtin_bswap32(v) : v;
}

uint64_t btdds_cdr_u64(struct btdds_cdr_rd *r)
{
	uint64_t v = 0;
	cdr_prim(r, &v, sizeof v);
	return r->swap ? __builtin_bswap64(v) : v;
}

const char *btdds_cdr_string(struct btdds_cdr_rd *r, size_t max, size_t *n)
{
	*n = 0;
	uint32_t len = btdds_cdr_u32(r);
	if (r->what != NULL)
		return "";
	if (len == 0) {
		btdds_cdr_fail(r, "string without its NUL");
		return "";
	}
	if (max != 0 && len - 1 > max) {
		btdds_cdr_fail(r, "string longer than its bound");
		return "";
	}
	size_t at = r->off;
	const unsigned char *p = cdr_take(r, 1, len);
	if (p == NULL) {
		r->what = NULL;
		r->off = at;
		btdds_cdr_fail(r, "string length beyond the end");
		return "";
	}
	if (p[len - 1] != '\0' || memchr(p, '\0', len - 1) != NULL) {
		btdds_cdr_fail(r, "string not ended by its only NUL");
		return "";
	}
	*n = len - 1;
	return (const char *)p;
}

const unsigned char *btdds_cdr_bytes(struct btdds_cdr_rd *r, size_t n)
{
	return cdr_take(r, 1, n);
}

uint32_t btdds_cdr_seq(struct btdds_cdr_rd *r, size_t min_elem)
{
	uint32_t cnt = btdds_cdr_u32(r);
	if (r->what != NULL)
		return 0;
	if (min_elem == 0)
		min_elem = 1;
	if (cnt > (r->len - r->off) / min_elem) {
		btdds_cdr_fail(r, "sequence length beyond the end");
		return 0;
	}
	return cnt;
}

bool btdds_cdr_enter(struct btdds_cdr_rd *r)
{
	if (r->what != NULL)
		return false;
	if (r->depth >= BTDDS_CDR_DEPTH_MAX) {
		btdds_cdr_fail(r, "nested too deep");
		return false;
	}
	r->depth++;
	return true;
}

void btdds_cdr_leave(struct btdds_cdr_rd *r)
{
	if (r->depth > 0)
		r->depth--;
}

/* ---- writer ---- */

static void cdr_put(struct btdds_cdr_wr *w, const void *p, size_t n)
{
	if (bt_buf_append(&w->b, p, n) != BT_OK)
		abort();
}

static void cdr_align(struct btdds_cdr_wr *w, size_t a)
{
	static const unsigned char zero[8];
	size_t off = w->b.len - CDR_HDR;
	size_t pad = ((off + a - 1) & ~(a - 1)) - off;
	if (pad)
		cdr_put(w, zero, pad);
}

void btdds_cdr_wr_init(struct btdds_cdr_wr *w)
{
	static const unsigned char hdr[CDR_HDR] = {0x00, 0x01, 0x00, 0x00}; /* CDR_LE */
	w->b = (struct bt_buf)BT_BUF_INIT;
	cdr_put(w, hdr, sizeof hdr);
}

void btdds_cdr_wr_fini(struct btdds_cdr_wr *w)
{
	bt_buf_fini(&w->b);
}

/* Little-endian bytes of v (the writer's fixed order). */
static void cdr_put_le(struct btdds_cdr_wr *w, uint64_t v, size_t n)
{
	unsigned char b[8];
	for (size_t i = 0; i < n; i++)
		b[i] = (unsigned char)(v >> (8 * i));
	cdr_align(w, n);
	cdr_put(w, b, n);
}

void btdds_cdr_put_u8(struct btdds_cdr_wr *w, uint8_t v)
{
	cdr_put(w, &v, 1);
}

void btdds_cdr_put_u16(struct btdds_cdr_wr *w, uint16_t v)
{
	cdr_put_le(w, v, 2);
}

void btdds_cdr_put_u32(struct btdds_cdr_wr *w, uint32_t v)
{
	cdr_put_le(w, v, 4);
}

void btdds_cdr_put_u64(struct btdds_cdr_wr *w, uint64_t v)
{
	cdr_put_le(w, v, 8);
}

void btdds_cdr_put_string(struct btdds_cdr_wr *w, const char *s)
{
	size_t n = strlen(s) + 1;
	btdds_cdr_put_u32(w, (uint32_t)n);
	cdr_put(w, s, n);
}

void btdds_cdr_put_bytes(struct btdds_cdr_wr *w, const void *p, size_t n)
{
	cdr_put(w, p, n);
}

void btdds_cdr_wr_finish(struct btdds_cdr_wr *w)
{
	cdr_align(w, 4);
}
