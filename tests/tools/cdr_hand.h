/* cdr_hand — plain CDR laid out by hand for the tests (little endian,
 * offsets from after the 4-byte encapsulation header), independent of
 * bagtop's encoder (btdds_cdr): tdserver's replies and test_btdds_typedesc's
 * malformed ones are built with it. Header-only; aborts on OOM. */
#ifndef CDR_HAND_H
#define CDR_HAND_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct out {
	unsigned char *b;
	size_t len, cap;
};

static inline void put(struct out *o, const void *p, size_t n)
{
	if (o->len + n > o->cap) {
		o->cap = (o->len + n) * 2 + 64;
		o->b = realloc(o->b, o->cap);
		if (o->b == NULL)
			abort();
	}
	if (n)
		memcpy(o->b + o->len, p, n);
	o->len += n;
}

static inline void align(struct out *o, size_t a)
{
	static const unsigned char z[8];
	size_t off = o->len - 4;
	put(o, z, ((off + a - 1) / a) * a - off);
}

static inline void u8(struct out *o, unsigned v)
{
	unsigned char c = (unsigned char)v;
	put(o, &c, 1);
}

static inline void u32(struct out *o, uint32_t v)
{
	unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			      (unsigned char)(v >> 24)};
	align(o, 4);
	put(o, b, 4);
}

static inline void u64(struct out *o, uint64_t v)
{
	align(o, 8);
	for (int i = 0; i < 8; i++)
		u8(o, (unsigned)(v >> (8 * i)) & 0xffu);
}

static inline void str(struct out *o, const char *s)
{
	u32(o, (uint32_t)strlen(s) + 1);
	put(o, s, strlen(s) + 1);
}

static inline void start(struct out *o)
{
	static const unsigned char hdr[4] = {0, 1, 0, 0};
	o->len = 0;
	put(o, hdr, 4);
}

static inline void finish(struct out *o)
{
	align(o, 4);
}

#endif
