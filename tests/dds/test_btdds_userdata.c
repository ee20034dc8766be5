/* btdds_userdata_typehash: the USER_DATA of Iron and newer endpoints gives
 * the type hash; anything else gives no hash, and malformed bytes from the
 * network are refused with a reason, never read past their length. */
#include <stdlib.h>
#include <string.h>

#include "btdds_userdata.h"
#include "test_util.h"

#define HASH "RIHS01_" \
	     "df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18"

static enum btdds_ud parse(const char *s, size_t n, char *out, struct bt_error *err)
{
	/* a heap copy of exactly n bytes: ASan catches any read past it */
	char *copy = n ? malloc(n) : NULL;
	if (n)
		memcpy(copy, s, n);
	enum btdds_ud r = btdds_userdata_typehash(copy, n, out, err);
	free(copy);
	return r;
}

#define PARSE(lit, out, err) parse(lit, sizeof lit - 1, out, err)

static void test_valid(void **state)
{
	(void)state;
	char out[BTDDS_TYPEHASH_LEN + 1];
	assert_int_equal(PARSE("typehash=" HASH ";", out, NULL), BTDDS_UD_HASH);
	assert_string_equal(out, HASH);
	/* a service endpoint: another key first (its value starts with a space) */
	assert_int_equal(PARSE("clientid= 1.f.2.3.4.5.6.7.8.9.a.b.0.0.0.1;typehash=" HASH ";",
			       out, NULL),
			 BTDDS_UD_HASH);
	assert_string_equal(out, HASH);
	assert_int_equal(PARSE("enclave=/;", out, NULL), BTDDS_UD_NO_HASH);
	assert_string_equal(out, "");
	assert_int_equal(parse(NULL, 0, out, NULL), BTDDS_UD_NO_HASH);
	/* a value may hold '=' (split on the first one) */
	assert_int_equal(PARSE("x=a=b;typehash=" HASH ";", out, NULL), BTDDS_UD_HASH);
}

static void test_bad(void **state)
{
	(void)state;
	static const struct {
		const char *s;
		const char *msg;
	} cases[] = {
		{"hello world", "USER_DATA does not end with ';'"},
		{"typehash=" HASH, "USER_DATA does not end with ';'"},
		{"typehash;", "USER_DATA has an entry without '=' (not a key=value; list)"},
		{";;", "USER_DATA has an entry without '=' (not a key=value; list)"},
		{"=x;", "USER_DATA has an empty or overlong key"},
		{"ty pe=x;", "USER_DATA has a key with a character keys do not have"},
		{"typehash=RIHS02_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18;",
		 "USER_DATA typehash does not start with RIHS01_"},
		{"typehash=RIHS01_df66;", "USER_DATA typehash is not 64 hex digits after RIHS01_"},
		{"typehash=" HASH "0;", "USER_DATA typehash is not 64 hex digits after RIHS01_"},
		{"typehash=RIHS01_DF668C740482BBD48FB39D76A70DFD4BD59DB1288021743503259E948F6B1A18;",
		 "USER_DATA typehash has a character that is not a lowercase hex digit"},
		{"typehash=" HASH ";typehash=" HASH ";", "USER_DATA has typehash twice"},
		{"typehash=" HASH ";\n", "USER_DATA has a NUL or control byte"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char out[BTDDS_TYPEHASH_LEN + 1];
		struct bt_error err = {0};
		enum btdds_ud r = parse(cases[i].s, strlen(cases[i].s), out, &err);
		if (r != BTDDS_UD_BAD || strcmp(err.msg, cases[i].msg) != 0)
			fail_msg("case %zu: %d '%s'", i, (int)r, err.msg);
		assert_string_equal(out, "");
	}
}

/* NULs inside, a huge value, a huge key: refused, nothing read past n. */
static void test_hostile(void **state)
{
	(void)state;
	char out[BTDDS_TYPEHASH_LEN + 1];
	struct bt_error err = {0};
	static const char nul[] = "typehash=RIHS01_\0df668c740482bbd48fb39d76a70dfd4bd59db12880217"
				  "43503259e948f6b1a18;";
	assert_int_equal(parse(nul, sizeof nul - 1, out, &err), BTDDS_UD_BAD);
	assert_string_equal(err.msg, "USER_DATA has a NUL or control byte");
	size_t n = 1 << 20;
	char *big = malloc(n);
	memset(big, 'a', n);
	memcpy(big, "x=", 2);
	big[n - 1] = ';';
	assert_int_equal(parse(big, n, out, &err), BTDDS_UD_BAD);
	assert_string_equal(err.msg, "USER_DATA is larger than 4096 bytes");
	/* at the bound: a long value is fine, a long key is not */
	big[BTDDS_USERDATA_MAX - 1] = ';';
	assert_int_equal(parse(big, BTDDS_USERDATA_MAX, out, NULL), BTDDS_UD_NO_HASH);
	big[0] = 'k';
	big[1] = 'k';
	memcpy(big + 100, "=v;", 3);
	assert_int_equal(parse(big, 103, out, &err), BTDDS_UD_BAD);
	assert_string_equal(err.msg, "USER_DATA has an empty or overlong key");
	free(big);
	/* a single byte, no list */
	assert_int_equal(parse(";", 1, out, &err), BTDDS_UD_BAD);
	assert_int_equal(parse("\0", 1, out, &err), BTDDS_UD_BAD);
}

static bool value(const char *s, size_t n, const char *key, char *out, size_t cap)
{
	char *copy = n ? malloc(n) : NULL; /* exactly n bytes, as above */
	if (n)
		memcpy(copy, s, n);
	bool r = btdds_userdata_value(copy, n, key, out, cap);
	free(copy);
	return r;
}

#define VALUE(lit, key, out) value(lit, sizeof lit - 1, key, out, sizeof out)

/* btdds_userdata_value: the clientid a reply is gated on. */
static void test_value(void **state)
{
	(void)state;
	char out[64];
	assert_true(VALUE("clientid= 1.f.2.3;typehash=x;", "clientid", out));
	assert_string_equal(out, " 1.f.2.3");
	assert_true(VALUE("enclave=/;clientid=ab", "clientid", out)); /* no final ';' */
	assert_string_equal(out, "ab");
	assert_true(VALUE("clientid=;", "clientid", out));
	assert_string_equal(out, "");
	assert_false(VALUE("serviceid=1;", "clientid", out));
	assert_false(VALUE("xclientid=1;", "clientid", out));
	assert_false(VALUE("clientid", "clientid", out));
	assert_false(value(NULL, 0, "clientid", out, sizeof out));
	char small[4];
	assert_false(VALUE("clientid=abcd;", "clientid", small)); /* does not fit */
	assert_false(VALUE("clientid=a\0b;", "clientid", out));  /* a NUL inside */
	char big[BTDDS_USERDATA_MAX + 16];
	memset(big, 'a', sizeof big);
	memcpy(big, "clientid=1;", 11);
	assert_false(value(big, sizeof big, "clientid", out, sizeof out));
}

TU_MAIN(
	cmocka_unit_test(test_valid),
	cmocka_unit_test(test_bad),
	cmocka_unit_test(test_hostile),
	cmocka_unit_test(test_value))
