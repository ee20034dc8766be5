/* fuzz_cdrcopy — a service definition and a request cut out of a sample,
 * on arbitrary bytes: what `bagtop play --publish-service-requests` does
 * with a bag's definition text and its events (defs_types_parse,
 * btdds_cdr_copy).
 *
 * Input: the definition text of service "fz/srv/S" up to the first NUL,
 * then a CDR sample (encapsulation header included) holding one request.
 * Invariants: neither crashes, leaks or hangs; a failure carries a
 * message; a request that copies is copied again from where it was
 * written to the same place as the very same bytes (the copy is in the
 * layout it reads). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btdds_cdr.h"
#include "btdds_cdr_copy.h"
#include "defs_type.h"
#include "fuzz_target.h"

#define FZ_HEADER 16 /* a request header's bytes before the request */

static void fz_fail(const char *what)
{
	fprintf(stderr, "fuzz_cdrcopy: %s\n", what);
	abort();
}

/* Copies request `rq` from r behind a 16-byte header into *w. */
static bt_status fz_copy(const struct defs_types *t, size_t rq, struct btdds_cdr_rd *r,
			 struct btdds_cdr_wr *w, struct bt_error *err)
{
	btdds_cdr_wr_init(w);
	btdds_cdr_put_u64(w, 1);
	btdds_cdr_put_u64(w, 2);
	return btdds_cdr_copy(t, rq, r, w, "fuzz", err);
}

static void fz_again(const struct defs_types *t, size_t rq, const struct btdds_cdr_wr *w1)
{
	struct btdds_cdr_rd r;
	struct btdds_cdr_wr w2;
	struct bt_error err = {0};
	if (btdds_cdr_rd_init(&r, w1->b.data, w1->b.len) != BT_OK)
		fz_fail("our own copy is not plain CDR");
	(void)btdds_cdr_u64(&r);
	(void)btdds_cdr_u64(&r);
	if (fz_copy(t, rq, &r, &w2, &err) != BT_OK)
		fz_fail(err.msg);
	if (w2.b.len != w1->b.len || memcmp(w2.b.data, w1->b.data, w1->b.len) != 0)
		fz_fail("a copy of the copy differs");
	btdds_cdr_wr_fini(&w2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, 0, size);
	if (nul == NULL)
		return 0;
	char *text = strndup((const char *)data, (size_t)(nul - data));
	if (text == NULL)
		return 0;
	struct defs_types *t = NULL;
	struct bt_error err = {0};
	bt_status st = defs_types_parse("fz/srv/S", text, &t, &err);
	free(text);
	if (st != BT_OK) {
		if (err.msg[0] == '\0')
			fz_fail("a refused definition without a message");
		return 0;
	}
	size_t rq = defs_types_find(t, "fz/srv/S_Request");
	if (rq == SIZE_MAX)
		fz_fail("a service without its request");
	const uint8_t *sample = nul + 1;
	size_t n = size - (size_t)(sample - data);
	uint8_t *copy = malloc(n ? n : 1); /* exactly its bytes: ASan sees overruns */
	if (copy != NULL) {
		memcpy(copy, sample, n);
		struct btdds_cdr_rd r;
		struct btdds_cdr_wr w;
		if (btdds_cdr_rd_init(&r, copy, n) == BT_OK) {
			if (fz_copy(t, rq, &r, &w, &err) == BT_OK)
				fz_again(t, rq, &w);
			else if (err.msg[0] == '\0')
				fz_fail("a refused request without a message");
			btdds_cdr_wr_fini(&w);
		}
		free(copy);
	}
	defs_types_free(t);
	return 0;
}
