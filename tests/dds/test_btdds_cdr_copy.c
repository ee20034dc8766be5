/* Message layouts from rosbag2's definition text (defs_type) and a value
 * re-aligned from one CDR stream to another (btdds_cdr_copy), pure.
 *
 * The bytes are laid out here by hand, each at the offset the CDR spec
 * gives it (written out in the comments), not with bagtop's encoder: a
 * value that starts 4 bytes into its sample (mod 8 = 4, as a service
 * event's request does) in both byte orders must come out little-endian
 * after a 16-byte request header (mod 8 = 0), with the padding its new
 * offsets need. Cut short anywhere, or lying about a count or a bound, it
 * is refused with a line (each from a heap copy of exactly its length, so
 * ASan sees any overrun). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "btdds_cdr.h"
#include "btdds_cdr_copy.h"
#include "defs_type.h"
#include "test_util.h"

#define RULE "================================================================================\n"

static const char outer_def[] =
	"# a comment line\n"
	"uint8 k\n"
	"Inner[<=2] inner  # same package\n"
	"string<=5 s \"dflt\"\n"
	"builtin_interfaces/Time t\n"
	"int16[3] v\n"
	"float64 d\n"
	"int32 LIMIT = 5\n"
	"string NAME=\"a=b\"\n"
	"bool[] flags\n"
	"my_msgs/msg/Empty e\n"
	"\n" RULE "MSG: my_msgs/Inner\n"
	"float32 f\n"
	"uint64 u\n"
	"\n" RULE "MSG: builtin_interfaces/Time\n"
	"int32 sec\n"
	"uint32 nanosec\n"
	"\n" RULE "MSG: my_msgs/msg/Empty\n"
	"# nothing but a comment\n";

/* ---- bytes at fixed offsets (from after the 4-byte encapsulation header) -- */

struct lay {
	unsigned char b[256];
	size_t end; /* payload bytes used */
	bool be;
};

static void at(struct lay *l, size_t off, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		l->b[4 + off + (l->be ? n - 1 - i : i)] = (unsigned char)(v >> (8 * i));
	if (off + n > l->end)
		l->end = off + n;
}

static void lay_start(struct lay *l, bool be)
{
	memset(l, 0, sizeof *l);
	l->be = be;
	l->b[1] = be ? 0 : 1; /* CDR_BE 0x0000, CDR_LE 0x0001 */
}

/* Where each of an Outer value's parts lies. */
struct outer_at {
	size_t k, cnt, f0, u0, f1, u1, slen, s, sec, ns, v, d, fcnt, fl, e;
};

static void lay_outer(struct lay *l, const struct outer_at *a)
{
	at(l, a->k, 7, 1);
	at(l, a->cnt, 2, 4);
	at(l, a->f0, 0x3FC00000u, 4); /* 1.5f */
	at(l, a->u0, 0x0102030405060708u, 8);
	at(l, a->f1, 0xC0000000u, 4); /* -2.0f */
	at(l, a->u1, 9, 8);
	at(l, a->slen, 4, 4);
	memcpy(l->b + 4 + a->s, "abc", 4);
	at(l, a->sec, 0xFFFFFFFFu, 4); /* -1 */
	at(l, a->ns, 5, 4);
	at(l, a->v, 1, 2);
	at(l, a->v + 2, 0xFFFE, 2); /* -2 */
	at(l, a->v + 4, 3, 2);
	at(l, a->d, 0x4004000000000000u, 8); /* 2.5 */
	at(l, a->fcnt, 3, 4);
	at(l, a->fl, 1, 1);
	at(l, a->fl + 1, 0, 1);
	at(l, a->fl + 2, 1, 1);
	at(l, a->e, 0, 1);
}

/* In the source, after a uint32 at 0: k@4 cnt@8 f@12 u@16 f@24 (pad) u@32
 * slen@40 "abc\0"@44 sec@48 ns@52 v@56,58,60 (pad) d@64 fcnt@72 fl@76..78
 * e@79: 80 bytes. */
static const struct outer_at src_at = {4, 8, 12, 16, 24, 32, 40, 44, 48, 52, 56, 64, 72, 76, 79};
/* In the copy, after a 16-byte header: k@16 cnt@20 f@24 (pad) u@32 f@40
 * (pad) u@48 slen@56 "abc\0"@60 sec@64 ns@68 v@72,74,76 (pad) d@80 fcnt@88
 * fl@92..94 e@95: 96 bytes. */
static const struct outer_at dst_at = {16, 20, 24, 32, 40, 48, 56, 60, 64, 68, 72, 80, 88, 92, 95};

static struct defs_types *parse_ok(const char *root, const char *text)
{
	struct defs_types *t = NULL;
	struct bt_error err = {0};
	bt_status st = defs_types_parse(root, text, &t, &err);
	if (st != BT_OK)
		fprintf(stderr, "parse: %s\n", err.msg);
	assert_int_equal(st, BT_OK);
	return t;
}

static void parse_fails(const char *root, const char *text, const char *says)
{
	struct defs_types *t = NULL;
	struct bt_error err = {0};
	assert_int_equal(defs_types_parse(root, text, &t, &err), BT_ERR_FORMAT);
	assert_null(t);
	if (!strstr(err.msg, says))
		fprintf(stderr, "got '%s', want '%s'\n", err.msg, says);
	assert_non_null(strstr(err.msg, says));
}

static void test_parse_layout(void **state)
{
	(void)state;
	struct defs_types *t = parse_ok("my_msgs/Outer", outer_def);
	size_t o = defs_types_find(t, "my_msgs/msg/Outer");
	assert_int_equal(o, 0);
	const struct defs_struct *s = &t->v[o];
	assert_int_equal(s->n_fields, 8); /* the constants are not fields */
	assert_string_equal(s->fields[1].name, "inner");
	assert_int_equal(s->fields[1].kind, DEFS_KIND_NESTED);
	assert_int_equal(s->fields[1].array, DEFS_ARRAY_SEQ);
	assert_int_equal(s->fields[1].count, 2);
	assert_string_equal(t->v[s->fields[1].nested].name, "my_msgs/msg/Inner");
	assert_int_equal(s->fields[2].kind, DEFS_KIND_STRING);
	assert_int_equal(s->fields[2].str_bound, 5);
	assert_string_equal(t->v[s->fields[3].nested].name, "builtin_interfaces/msg/Time");
	assert_int_equal(s->fields[4].array, DEFS_ARRAY_FIXED);
	assert_int_equal(s->fields[4].count, 3);
	assert_int_equal(s->fields[6].array, DEFS_ARRAY_SEQ);
	assert_int_equal(s->fields[6].count, 0);
	assert_int_equal(t->v[s->fields[7].nested].n_fields, 0);
	defs_types_free(t);
}

static void test_parse_service(void **state)
{
	(void)state;
	/* The old form (the fixture bags') and rosbag2's "SRV: " form. */
	const char *texts[] = {
		"int64 a\nint64 b\n---\nint64 sum\n",
		RULE "SRV: example_interfaces/srv/AddTwoInts\nint64 a\nint64 b\n---\nint64 sum\n",
	};
	for (size_t i = 0; i < 2; i++) {
		struct defs_types *t = parse_ok("example_interfaces/srv/AddTwoInts", texts[i]);
		size_t rq = defs_types_find(t, "example_interfaces/srv/AddTwoInts_Request");
		size_t rs = defs_types_find(t, "example_interfaces/srv/AddTwoInts_Response");
		assert_int_equal(rq, 0);
		assert_int_equal(rs, 1);
		assert_int_equal(t->v[rq].n_fields, 2);
		assert_int_equal(t->v[rs].n_fields, 1);
		assert_string_equal(t->v[rs].fields[0].name, "sum");
		defs_types_free(t);
	}
	/* std_srvs/Empty: two empty halves. */
	struct defs_types *t = parse_ok("std_srvs/srv/Empty", "---\n");
	assert_int_equal(t->n, 2);
	assert_int_equal(t->v[0].n_fields, 0);
	defs_types_free(t);
}

static void test_parse_errors(void **state)
{
	(void)state;
	parse_fails("my_msgs/msg/A", "Missing m\n", "lacks the type my_msgs/msg/Missing");
	parse_fails("my_msgs/msg/A", "B b\n" RULE "MSG: my_msgs/B\nA a\n", "contains itself");
	parse_fails("my_msgs/msg/A", "A a\n", "contains itself");
	parse_fails("my_msgs/msg/A", "B b\n" RULE "MSG: my_msgs/B\n" RULE "IDL: my_msgs/msg/B\nx",
		    "IDL");
	parse_fails("my_msgs/msg/A", "int32[x] a\n", "int32[x] a");
	parse_fails("my_msgs/msg/A", "int32[0] a\n", "int32[0] a");
	parse_fails("my_msgs/msg/A", "int32\n", "cannot read");
	parse_fails("my_msgs/msg/A", "string<=q s\n", "cannot read");
	parse_fails("my_msgs/msg/A", "int32 a[2]\n", "cannot read");
	parse_fails("my_msgs/msg/A", "x/y/z/w a\n", "cannot read");
	parse_fails("my_msgs/msg/A", "std_srvs/srv/Empty a\n", "cannot read");
	parse_fails("my_msgs/msg/A", "int32 a\n" RULE "bogus\n", "not followed by");
	parse_fails("pkg/srv/S", "int32 a\n", "no '---'");
	parse_fails("no_slash", "int32 a\n", "not a type name");
}

/* Copies Outer from a source laid out in `be` order; checks every byte. */
static void copy_outer(bool be)
{
	struct defs_types *t = parse_ok("my_msgs/msg/Outer", outer_def);
	struct lay src, want;
	lay_start(&src, be);
	at(&src, 0, 0xAABBCCDDu, 4);
	lay_outer(&src, &src_at);
	assert_int_equal(src.end, 80);
	lay_start(&want, false);
	at(&want, 0, 0x1111, 8);
	at(&want, 8, 0x2222, 8);
	lay_outer(&want, &dst_at);
	assert_int_equal(want.end, 96);

	struct btdds_cdr_rd r;
	assert_int_equal(btdds_cdr_rd_init(&r, src.b, 4 + src.end), BT_OK);
	assert_int_equal(btdds_cdr_u32(&r), 0xAABBCCDDu);
	struct btdds_cdr_wr w;
	btdds_cdr_wr_init(&w);
	btdds_cdr_put_u64(&w, 0x1111);
	btdds_cdr_put_u64(&w, 0x2222);
	struct bt_error err = {0};
	assert_int_equal(btdds_cdr_copy(t, 0, &r, &w, "outer", &err), BT_OK);
	assert_int_equal(r.off, 80);
	assert_int_equal(w.b.len, 4 + 96);
	assert_memory_equal(w.b.data, want.b, 4 + 96);
	btdds_cdr_wr_fini(&w);
	defs_types_free(t);
}

static void test_copy_le(void **state)
{
	(void)state;
	copy_outer(false);
}

static void test_copy_be(void **state)
{
	(void)state;
	copy_outer(true);
}

/* Copies from a heap copy of exactly `n` bytes of `b`; the status. */
static bt_status copy_from(const struct defs_types *t, const unsigned char *b, size_t n,
			   bool skip_prefix, struct bt_error *err)
{
	unsigned char *h = malloc(n ? n : 1);
	assert_non_null(h);
	memcpy(h, b, n);
	struct btdds_cdr_rd r;
	bt_status st = btdds_cdr_rd_init(&r, h, n);
	if (st == BT_OK && skip_prefix)
		(void)btdds_cdr_u32(&r);
	struct btdds_cdr_wr w;
	btdds_cdr_wr_init(&w);
	if (st == BT_OK)
		st = btdds_cdr_copy(t, 0, &r, &w, "outer", err);
	btdds_cdr_wr_fini(&w);
	free(h);
	return st;
}

static void test_copy_cut_short(void **state)
{
	(void)state;
	struct defs_types *t = parse_ok("my_msgs/msg/Outer", outer_def);
	struct lay src;
	lay_start(&src, false);
	at(&src, 0, 0xAABBCCDDu, 4);
	lay_outer(&src, &src_at);
	for (size_t n = 8; n < 4 + src.end; n++) {
		struct bt_error err = {0};
		assert_int_equal(copy_from(t, src.b, n, true, &err), BT_ERR_FORMAT);
		assert_non_null(strstr(err.msg, "outer: "));
	}
	struct bt_error err = {0};
	assert_int_equal(copy_from(t, src.b, 4 + src.end, true, &err), BT_OK);
	defs_types_free(t);
}

static void test_copy_lies(void **state)
{
	(void)state;
	struct defs_types *t = parse_ok("my_msgs/msg/Outer", outer_def);
	struct lay src;
	struct bt_error err = {0};
	/* inner[<=2] with 3 elements */
	lay_start(&src, false);
	at(&src, 0, 0, 4);
	lay_outer(&src, &src_at);
	at(&src, src_at.cnt, 3, 4);
	assert_int_equal(copy_from(t, src.b, 4 + src.end, true, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "longer than its bound"));
	/* a count of 2^32 - 1 */
	at(&src, src_at.cnt, 0xFFFFFFFFu, 4);
	assert_int_equal(copy_from(t, src.b, 4 + src.end, true, &err), BT_ERR_FORMAT);
	/* string<=5 of 6 characters: its length says 7 */
	lay_start(&src, false);
	at(&src, 0, 0, 4);
	lay_outer(&src, &src_at);
	at(&src, src_at.slen, 7, 4);
	assert_int_equal(copy_from(t, src.b, 4 + src.end, true, &err), BT_ERR_FORMAT);
	/* not plain CDR (XCDR2's 0x0007) */
	src.b[1] = 7;
	assert_int_equal(copy_from(t, src.b, 4 + src.end, true, &err), BT_ERR_FORMAT);
	defs_types_free(t);
	/* wstring is refused; an empty struct is one byte */
	t = parse_ok("a/msg/W", "wstring w\n");
	unsigned char ws[] = {0, 1, 0, 0, 1, 0, 0, 0, 'x', 0, 0, 0};
	assert_int_equal(copy_from(t, ws, sizeof ws, false, &err), BT_ERR_FORMAT);
	assert_non_null(strstr(err.msg, "wstring"));
	defs_types_free(t);
	t = parse_ok("a/msg/E", "");
	unsigned char e1[] = {0, 1, 0, 0, 0};
	assert_int_equal(copy_from(t, e1, sizeof e1, false, &err), BT_OK);
	assert_int_equal(copy_from(t, e1, 4, false, &err), BT_ERR_FORMAT);
	defs_types_free(t);
}

/* A fixed array of 2^32 - 1 empty structs in a short sample stops at the
 * first failed read, not after four billion more. */
static void test_copy_huge_array(void **state)
{
	(void)state;
	struct defs_types *t = parse_ok("a/msg/H", "E[4294967295] e\n" RULE "MSG: a/E\n");
	unsigned char b[] = {0, 1, 0, 0, 1, 2, 3};
	struct bt_error err = {0};
	assert_int_equal(copy_from(t, b, sizeof b, false, &err), BT_ERR_FORMAT);
	defs_types_free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_layout),   cmocka_unit_test(test_parse_service),
		cmocka_unit_test(test_parse_errors),   cmocka_unit_test(test_copy_le),
		cmocka_unit_test(test_copy_be),	       cmocka_unit_test(test_copy_cut_short),
		cmocka_unit_test(test_copy_lies),      cmocka_unit_test(test_copy_huge_array),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
