/* btdds_xtypes: complete TypeObjects rendered as OMG IDL. A real idlc type
 * (bagtest::Rich, tests/tools/idl) resolved in-process through
 * dds_get_typeobj gives the golden text (test_xtypes_roundtrip.sh compiles
 * such text back with idlc); hand-built objects cover unions with enum
 * labels, typedefs, bitmasks, @mutable ids, and bad input: cycles, 1000
 * nested types, unknown kinds, names that are not IDL, a failed lookup. */
#include <stdlib.h>
#include <string.h>

#include <dds/dds.h>

#include "bagtest/Rich.h"
#include "btdds_xtypes.h"
#include "test_util.h"

#define DOMAIN 64

typedef struct DDS_XTypes_TypeIdentifier xt_id;
typedef struct DDS_XTypes_TypeObject xt_obj;

/* ---- hand-built type objects, looked up by the first two hash bytes ---- */

#define N_OBJS 8
struct table {
	xt_obj *objs[N_OBJS]; /* objs[k] has hash {k, 0, ...} */
	int deep;             /* > 0: synthesize a chain of that many structs */
	xt_obj *chain;        /* the synthesized structs, [k - 100] */
	struct DDS_XTypes_CompleteStructMember *chain_member;
	unsigned lookups;
};

static xt_id hid(uint8_t k)
{
	xt_id id;
	memset(&id, 0, sizeof id);
	id._d = DDS_XTypes_EK_COMPLETE;
	id._u.equivalence_hash[0] = k;
	return id;
}

static xt_id prim(uint8_t tk)
{
	xt_id id;
	memset(&id, 0, sizeof id);
	id._d = tk;
	return id;
}

static void init_obj(xt_obj *o, uint8_t kind)
{
	memset(o, 0, sizeof *o);
	o->_d = DDS_XTypes_EK_COMPLETE;
	o->_u.complete._d = kind;
}

static void init_struct(xt_obj *o, const char *name, uint16_t flags,
			struct DDS_XTypes_CompleteStructMember *m, uint32_t n)
{
	init_obj(o, DDS_XTypes_TK_STRUCTURE);
	struct DDS_XTypes_CompleteStructType *s = &o->_u.complete._u.struct_type;
	s->struct_flags = flags;
	snprintf(s->header.detail.type_name, sizeof s->header.detail.type_name, "%s", name);
	s->member_seq._length = n;
	s->member_seq._buffer = m;
}

static struct DDS_XTypes_CompleteStructMember member(const char *name, xt_id type, uint32_t id,
						     uint16_t flags)
{
	struct DDS_XTypes_CompleteStructMember m;
	memset(&m, 0, sizeof m);
	snprintf(m.detail.name, sizeof m.detail.name, "%s", name);
	m.common.member_type_id = type;
	m.common.member_id = id;
	m.common.member_flags = flags;
	return m;
}

static const xt_obj *lookup(void *ctx, const xt_id *id, struct bt_error *err)
{
	struct table *t = ctx;
	t->lookups++;
	unsigned k = id->_u.equivalence_hash[0] | (unsigned)id->_u.equivalence_hash[1] << 8;
	if (t->deep > 0 && k >= 100) {
		/* struct D<k> { D<k+1> next; } ... forever (the walk must stop) */
		if (k - 100 >= (unsigned)t->deep)
			fail_msg("the walk went %u deep", k - 100);
		char name[32];
		snprintf(name, sizeof name, "deep::D%u", k);
		xt_id next = hid(0);
		next._u.equivalence_hash[0] = (uint8_t)((k + 1) & 0xff);
		next._u.equivalence_hash[1] = (uint8_t)((k + 1) >> 8);
		t->chain_member[k - 100] = member("next", next, 0, 0);
		init_struct(&t->chain[k - 100], name, DDS_XTypes_IS_FINAL, &t->chain_member[k - 100], 1);
		return &t->chain[k - 100];
	}
	if (id->_d == DDS_XTypes_EK_COMPLETE && k < N_OBJS && t->objs[k] != NULL)
		return t->objs[k];
	bt_err_set(err, BT_ERR_NOTFOUND, "type lookup: no reply");
	return NULL;
}

static bt_status render(const xt_obj *root, struct table *t, char **idl, struct bt_error *err)
{
	memset(err, 0, sizeof *err);
	return btdds_xtypes_idl(root, lookup, t, idl, err);
}

/* ---- a real type ---- */

static const char RICH_IDL[] =
	"module bagtest {\n"
	"  module parts {\n"
	"    enum Mode {\n"
	"      IDLE,\n"
	"      RUNNING,\n"
	"      FAULT\n"
	"    };\n"
	"    @final struct Point {\n"
	"      double x;\n"
	"      double y;\n"
	"    };\n"
	"    typedef string<16> Label;\n"
	"    @final union Extra switch (bagtest::parts::Mode) {\n"
	"      case bagtest::parts::IDLE: long code;\n"
	"      case bagtest::parts::RUNNING: case bagtest::parts::FAULT: string<8> note;\n"
	"    };\n"
	"  };\n"
	"  @appendable struct Rich {\n"
	"    @key long id;\n"
	"    @key string<32> name;\n"
	"    bagtest::parts::Mode mode;\n"
	"    sequence<bagtest::parts::Point> points;\n"
	"    sequence<bagtest::parts::Point, 4> few_points;\n"
	"    double matrix[2][3];\n"
	"    bagtest::parts::Label label;\n"
	"    sequence<string<8> > tags;\n"
	"    bagtest::parts::Extra extra;\n"
	"    @optional long maybe;\n"
	"  };\n"
	"};\n";

/* bagtest::Rich as idlc built it, through Cyclone's type lookup in-process. */
static void test_real_type(void **state)
{
	(void)state;
	dds_entity_t pp = dds_create_participant(DOMAIN, NULL, NULL);
	assert_true(pp > 0);
	dds_entity_t tp = dds_create_topic(pp, &bagtest_Rich_desc, "xt_rich", NULL, NULL);
	assert_true(tp > 0);
	dds_typeinfo_t *ti = NULL;
	assert_int_equal(dds_get_typeinfo(tp, &ti), DDS_RETCODE_OK);
	struct DDS_XTypes_TypeIdentifier id;
	struct bt_error err = {0};
	assert_int_equal(btdds_xtypes_complete_id(ti, &id, &err), BT_OK);
	char *idl = NULL;
	bt_status st = btdds_xtypes_fetch_idl(pp, &id, DDS_SECS(2), &idl, &err);
	if (st != BT_OK)
		fail_msg("%s", err.msg);
	if (strcmp(idl, RICH_IDL) != 0)
		fail_msg("got:\n%s", idl);
	free(idl);
	assert_int_equal(btdds_xtypes_complete_id(NULL, &id, &err), BT_ERR_NOTFOUND);
	dds_free_typeinfo(ti);
	dds_delete(pp);
}

/* ---- hand-built ---- */

/* module m { enum E {A, @value(5) B}; typedef long Arr[3]; bitmask F;
 * @mutable union U switch (E) {...}; } @mutable struct Top : m::Base {...}; */
static void test_kinds(void **state)
{
	(void)state;
	struct table t = {0};
	xt_obj e, arr, bm, u, base, top;
	/* enum m::E { A, @value(5) B } */
	init_obj(&e, DDS_XTypes_TK_ENUM);
	struct DDS_XTypes_CompleteEnumeratedType *et = &e._u.complete._u.enumerated_type;
	strcpy(et->header.detail.type_name, "m::E");
	et->header.common.bit_bound = 32;
	struct DDS_XTypes_CompleteEnumeratedLiteral lits[2];
	memset(lits, 0, sizeof lits);
	strcpy(lits[0].detail.name, "A");
	strcpy(lits[1].detail.name, "B");
	lits[1].common.value = 5;
	et->literal_seq._length = 2;
	et->literal_seq._buffer = lits;
	/* typedef unsigned short m::Arr[3] */
	init_obj(&arr, DDS_XTypes_TK_ALIAS);
	strcpy(arr._u.complete._u.alias_type.header.detail.type_name, "m::Arr");
	uint8_t dims[1] = {3};
	xt_id ushort = prim(DDS_XTypes_TK_UINT16);
	xt_id *rel = &arr._u.complete._u.alias_type.body.common.related_type;
	rel->_d = DDS_XTypes_TI_PLAIN_ARRAY_SMALL;
	rel->_u.array_sdefn.array_bound_seq._length = 1;
	rel->_u.array_sdefn.array_bound_seq._buffer = dims;
	rel->_u.array_sdefn.element_identifier = &ushort;
	/* bitmask m::F { @position(0) X, @position(3) Y } */
	init_obj(&bm, DDS_XTypes_TK_BITMASK);
	struct DDS_XTypes_CompleteBitmaskType *bt = &bm._u.complete._u.bitmask_type;
	strcpy(bt->header.detail.type_name, "m::F");
	bt->header.common.bit_bound = 8;
	struct DDS_XTypes_CompleteBitflag flags[2];
	memset(flags, 0, sizeof flags);
	strcpy(flags[0].detail.name, "X");
	strcpy(flags[1].detail.name, "Y");
	flags[1].common.position = 3;
	bt->flag_seq._length = 2;
	bt->flag_seq._buffer = flags;
	/* @mutable union m::U switch (m::E) { case A: m::Arr a; case B: default: m::F f; } */
	init_obj(&u, DDS_XTypes_TK_UNION);
	struct DDS_XTypes_CompleteUnionType *ut = &u._u.complete._u.union_type;
	strcpy(ut->header.detail.type_name, "m::U");
	ut->union_flags = DDS_XTypes_IS_MUTABLE;
	ut->discriminator.common.type_id = hid(1);
	struct DDS_XTypes_CompleteUnionMember um[2];
	memset(um, 0, sizeof um);
	int32_t la[1] = {0}, lb[1] = {5};
	strcpy(um[0].detail.name, "a");
	um[0].common.type_id = hid(2);
	um[0].common.label_seq._length = 1;
	um[0].common.label_seq._buffer = la;
	strcpy(um[1].detail.name, "f");
	um[1].common.member_id = 1;
	um[1].common.type_id = hid(3);
	um[1].common.member_flags = DDS_XTypes_IS_DEFAULT;
	um[1].common.label_seq._length = 1;
	um[1].common.label_seq._buffer = lb;
	ut->member_seq._length = 2;
	ut->member_seq._buffer = um;
	/* @final struct m::Base { boolean ok; } */
	struct DDS_XTypes_CompleteStructMember bm1[1] = {member("ok", prim(DDS_XTypes_TK_BOOLEAN), 0, 0)};
	init_struct(&base, "m::Base", DDS_XTypes_IS_FINAL, bm1, 1);
	/* @mutable struct Top : m::Base { m::U u; @id(7) wstring<5> w; map<long, m::E> mp; } */
	xt_id ws = prim(DDS_XTypes_TI_STRING16_SMALL);
	ws._u.string_sdefn.bound = 5;
	xt_id k = prim(DDS_XTypes_TK_INT32), v = hid(1);
	xt_id mp = prim(DDS_XTypes_TI_PLAIN_MAP_SMALL);
	mp._u.map_sdefn.key_identifier = &k;
	mp._u.map_sdefn.element_identifier = &v;
	struct DDS_XTypes_CompleteStructMember tm[3] = {
		member("u", hid(4), 0, DDS_XTypes_IS_MUST_UNDERSTAND),
		member("w", ws, 7, DDS_XTypes_IS_OPTIONAL),
		member("mp", mp, 8, 0),
	};
	init_struct(&top, "Top", DDS_XTypes_IS_MUTABLE, tm, 3);
	top._u.complete._u.struct_type.header.base_type = hid(5);
	t.objs[1] = &e;
	t.objs[2] = &arr;
	t.objs[3] = &bm;
	t.objs[4] = &u;
	t.objs[5] = &base;
	char *idl;
	struct bt_error err;
	bt_status st = render(&top, &t, &idl, &err);
	if (st != BT_OK)
		fail_msg("%s", err.msg);
	const char *want =
		"module m {\n"
		"  @final struct Base {\n"
		"    boolean ok;\n"
		"  };\n"
		"  enum E {\n"
		"    A,\n"
		"    @value(5) B\n"
		"  };\n"
		"  typedef unsigned short Arr[3];\n"
		"  @bit_bound(8) bitmask F {\n"
		"    @position(0) X,\n"
		"    @position(3) Y\n"
		"  };\n"
		"  @mutable union U switch (m::E) {\n"
		"    case m::A: m::Arr a;\n"
		"    case m::B: default: m::F f;\n"
		"  };\n"
		"};\n"
		"@mutable struct Top : m::Base {\n"
		"  @must_understand m::U u;\n"
		"  @optional @id(7) wstring<5> w;\n"
		"  map<long, m::E> mp;\n"
		"};\n";
	if (strcmp(idl, want) != 0)
		fail_msg("got:\n%s", idl);
	free(idl);
	/* each type looked up once, though E is used three times */
	assert_int_equal(t.lookups, 5);
}

/* Labels of char and boolean discriminators are IDL literals. */
static void test_labels(void **state)
{
	(void)state;
	struct table t = {0};
	xt_obj u;
	init_obj(&u, DDS_XTypes_TK_UNION);
	struct DDS_XTypes_CompleteUnionType *ut = &u._u.complete._u.union_type;
	strcpy(ut->header.detail.type_name, "L");
	ut->union_flags = DDS_XTypes_IS_FINAL;
	ut->discriminator.common.type_id = prim(DDS_XTypes_TK_CHAR8);
	struct DDS_XTypes_CompleteUnionMember um[1];
	memset(um, 0, sizeof um);
	int32_t labels[3] = {'a', 10, '\''};
	strcpy(um[0].detail.name, "v");
	um[0].common.type_id = prim(DDS_XTypes_TK_FLOAT32);
	um[0].common.label_seq._length = 3;
	um[0].common.label_seq._buffer = labels;
	ut->member_seq._length = 1;
	ut->member_seq._buffer = um;
	char *idl;
	struct bt_error err;
	assert_int_equal(render(&u, &t, &idl, &err), BT_OK);
	assert_string_equal(idl, "@final union L switch (char) {\n"
				 "  case 'a': case '\\x0a': case '\\x27': float v;\n"
				 "};\n");
	free(idl);
	ut->discriminator.common.type_id = prim(DDS_XTypes_TK_BOOLEAN);
	labels[0] = 1;
	um[0].common.label_seq._length = 1;
	assert_int_equal(render(&u, &t, &idl, &err), BT_OK);
	assert_string_equal(idl, "@final union L switch (boolean) {\n"
				 "  case TRUE: float v;\n"
				 "};\n");
	free(idl);
}

static void expect_error(const xt_obj *root, struct table *t, bt_status code, const char *msg)
{
	char *idl = (char *)"x";
	struct bt_error err;
	bt_status st = render(root, t, &idl, &err);
	assert_int_equal(st, code);
	assert_null(idl);
	if (strstr(err.msg, msg) == NULL)
		fail_msg("error \"%s\" does not say \"%s\"", err.msg, msg);
}

static void test_cycle(void **state)
{
	(void)state;
	struct table t = {0};
	xt_obj a, b;
	struct DDS_XTypes_CompleteStructMember ma[1] = {member("b", hid(2), 0, 0)};
	struct DDS_XTypes_CompleteStructMember mb[1] = {member("a", hid(1), 0, 0)};
	init_struct(&a, "A", DDS_XTypes_IS_FINAL, ma, 1);
	init_struct(&b, "B", DDS_XTypes_IS_FINAL, mb, 1);
	t.objs[1] = &a;
	t.objs[2] = &b;
	expect_error(&a, &t, BT_ERR_FORMAT, "cycle");
	/* a type whose member is itself, through a sequence */
	xt_obj s;
	xt_id self = hid(3);
	xt_id seq = prim(DDS_XTypes_TI_PLAIN_SEQUENCE_SMALL);
	seq._u.seq_sdefn.element_identifier = &self;
	struct DDS_XTypes_CompleteStructMember ms[1] = {member("kids", seq, 0, 0)};
	init_struct(&s, "S", DDS_XTypes_IS_FINAL, ms, 1);
	t.objs[3] = &s;
	expect_error(&s, &t, BT_ERR_FORMAT, "cycle");
	/* recursive types as XTypes spells them */
	xt_id scc = prim(DDS_XTypes_TI_STRONGLY_CONNECTED_COMPONENT);
	struct DDS_XTypes_CompleteStructMember mc[1] = {member("r", scc, 0, 0)};
	xt_obj c;
	init_struct(&c, "C", DDS_XTypes_IS_FINAL, mc, 1);
	expect_error(&c, &t, BT_ERR_FORMAT, "recursive types");
}

static void test_deep(void **state)
{
	(void)state;
	/* 1000 structs, each the only member of the one before */
	struct table t = {.deep = 1000};
	t.chain = calloc(1000, sizeof *t.chain);
	t.chain_member = calloc(1000, sizeof *t.chain_member);
	xt_obj root;
	xt_id first = hid(100);
	struct DDS_XTypes_CompleteStructMember m[1] = {member("next", first, 0, 0)};
	init_struct(&root, "deep::Root", DDS_XTypes_IS_FINAL, m, 1);
	expect_error(&root, &t, BT_ERR_FORMAT, "nested deeper than 64");
	assert_true(t.lookups <= BTDDS_XT_MAX_DEPTH);
	/* sequence<sequence<...<long>...>> 1000 deep, no lookup at all */
	xt_id *chain = calloc(1001, sizeof *chain);
	chain[1000] = prim(DDS_XTypes_TK_INT32);
	for (int i = 999; i >= 0; i--) {
		chain[i]._d = DDS_XTypes_TI_PLAIN_SEQUENCE_LARGE;
		chain[i]._u.seq_ldefn.element_identifier = &chain[i + 1];
	}
	m[0] = member("s", chain[0], 0, 0);
	expect_error(&root, &t, BT_ERR_FORMAT, "nested deeper than 64");
	free(chain);
	free(t.chain);
	free(t.chain_member);
}

static void test_bad(void **state)
{
	(void)state;
	struct table t = {0};
	xt_obj root, other;
	struct DDS_XTypes_CompleteStructMember m[1] = {member("x", prim(0xEE), 0, 0)};
	init_struct(&root, "R", DDS_XTypes_IS_FINAL, m, 1);
	expect_error(&root, &t, BT_ERR_FORMAT, "unknown type identifier kind 238");
	/* a minimal (hash-only, nameless) reference */
	m[0].common.member_type_id = hid(1);
	m[0].common.member_type_id._d = DDS_XTypes_EK_MINIMAL;
	expect_error(&root, &t, BT_ERR_FORMAT, "minimal type");
	/* a lookup that fails: its reason */
	m[0].common.member_type_id = hid(6);
	expect_error(&root, &t, BT_ERR_NOTFOUND, "no reply");
	/* a kind IDL cannot spell here (bitset), and a non-struct root */
	init_obj(&other, DDS_XTypes_TK_BITSET);
	t.objs[6] = &other;
	expect_error(&root, &t, BT_ERR_FORMAT, "type kind 83 is not supported");
	expect_error(&other, &t, BT_ERR_FORMAT, "not a complete struct or union");
	expect_error(NULL, &t, BT_ERR_FORMAT, "not a complete struct or union");
	/* names: not identifiers, not scoped names, not NUL-terminated */
	m[0].common.member_type_id = prim(DDS_XTypes_TK_INT32);
	strcpy(m[0].detail.name, "a b");
	expect_error(&root, &t, BT_ERR_FORMAT, "member name");
	strcpy(m[0].detail.name, "x");
	static const char *bad_names[] = {"a:b", "::A", "A::", "a::::b", "9a", "", "a::b c"};
	for (size_t i = 0; i < sizeof bad_names / sizeof *bad_names; i++) {
		strcpy(root._u.complete._u.struct_type.header.detail.type_name, bad_names[i]);
		expect_error(&root, &t, BT_ERR_FORMAT, "not a scoped IDL name");
	}
	memset(root._u.complete._u.struct_type.header.detail.type_name, 'a',
	       sizeof root._u.complete._u.struct_type.header.detail.type_name);
	expect_error(&root, &t, BT_ERR_FORMAT, "not a scoped IDL name");
	strcpy(root._u.complete._u.struct_type.header.detail.type_name, "R");
	/* members claimed but missing; two different types with one name */
	root._u.complete._u.struct_type.member_seq._buffer = NULL;
	expect_error(&root, &t, BT_ERR_FORMAT, "members missing");
	root._u.complete._u.struct_type.member_seq._buffer = m;
	xt_obj other2, top;
	struct DDS_XTypes_CompleteStructMember mo[1] = {member("y", prim(DDS_XTypes_TK_INT32), 0, 0)};
	init_struct(&other, "m::R", DDS_XTypes_IS_FINAL, mo, 1);
	init_struct(&other2, "m::R", DDS_XTypes_IS_FINAL, m, 1);
	t.objs[7] = &other2;
	struct DDS_XTypes_CompleteStructMember mt[2] = {member("a", hid(6), 0, 0),
							member("b", hid(7), 1, 0)};
	init_struct(&top, "Top", DDS_XTypes_IS_FINAL, mt, 2);
	expect_error(&top, &t, BT_ERR_FORMAT, "two different types named m::R");
	/* an array of 0, a sequence without element */
	xt_id zero = prim(DDS_XTypes_TI_PLAIN_ARRAY_SMALL), el = prim(DDS_XTypes_TK_INT32);
	uint8_t d0[1] = {0};
	zero._u.array_sdefn.array_bound_seq._length = 1;
	zero._u.array_sdefn.array_bound_seq._buffer = d0;
	zero._u.array_sdefn.element_identifier = &el;
	m[0].common.member_type_id = zero;
	expect_error(&root, &t, BT_ERR_FORMAT, "dimension of 0");
	m[0].common.member_type_id = prim(DDS_XTypes_TI_PLAIN_SEQUENCE_SMALL);
	expect_error(&root, &t, BT_ERR_FORMAT, "without an element type");
}

TU_MAIN(
	cmocka_unit_test(test_real_type),
	cmocka_unit_test(test_kinds),
	cmocka_unit_test(test_labels),
	cmocka_unit_test(test_cycle),
	cmocka_unit_test(test_deep),
	cmocka_unit_test(test_bad))
