/* btdds_userdata — see btdds_userdata.h. */
#include "btdds_userdata.h"

#include <stdbool.h>
#include <string.h>

#define BTDDS_KEY_MAX 64

static bool btdds_key_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

static bool btdds_lower_hex(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

static enum btdds_ud btdds_bad(struct bt_error *err, const char *what)
{
	(void)bt_err_set(err, BT_ERR_FORMAT, "USER_DATA %s", what);
	return BTDDS_UD_BAD;
}

/* A typehash value: "RIHS01_" then 64 lowercase hex digits, nothing else. */
static enum btdds_ud btdds_hash(const char *v, size_t n, char *out, struct bt_error *err)
{
	size_t pre = sizeof BTDDS_TYPEHASH_PREFIX - 1;
	if (n < pre || memcmp(v, BTDDS_TYPEHASH_PREFIX, pre) != 0)
		return btdds_bad(err, "typehash does not start with RIHS01_");
	if (n != BTDDS_TYPEHASH_LEN)
		return btdds_bad(err, "typehash is not 64 hex digits after RIHS01_");
	for (size_t i = pre; i < n; i++)
		if (!btdds_lower_hex((unsigned char)v[i]))
			return btdds_bad(err, "typehash has a character that is not a lowercase "
					      "hex digit");
	memcpy(out, v, n);
	out[n] = '\0';
	return BTDDS_UD_HASH;
}

/* One entry `key=value` (its ';' already found at p + n). */
static enum btdds_ud btdds_entry(const char *p, size_t n, char *out, bool *found,
				 struct bt_error *err)
{
	const char *eq = memchr(p, '=', n);
	if (eq == NULL)
		return btdds_bad(err, "has an entry without '=' (not a key=value; list)");
	size_t klen = (size_t)(eq - p);
	if (klen == 0 || klen > BTDDS_KEY_MAX)
		return btdds_bad(err, "has an empty or overlong key");
	for (size_t i = 0; i < klen; i++)
		if (!btdds_key_char((unsigned char)p[i]))
			return btdds_bad(err, "has a key with a character keys do not have");
	if (klen != strlen("typehash") || memcmp(p, "typehash", klen) != 0)
		return BTDDS_UD_NO_HASH;
	if (*found)
		return btdds_bad(err, "has typehash twice");
	*found = true;
	return btdds_hash(eq + 1, n - klen - 1, out, err);
}

enum btdds_ud btdds_userdata_typehash(const void *ud, size_t n, char out[BTDDS_TYPEHASH_LEN + 1],
				      struct bt_error *err)
{
	out[0] = '\0';
	if (n == 0)
		return BTDDS_UD_NO_HASH;
	if (n > BTDDS_USERDATA_MAX)
		return btdds_bad(err, "is larger than 4096 bytes");
	const char *s = ud;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return btdds_bad(err, "has a NUL or control byte");
	if (s[n - 1] != ';')
		return btdds_bad(err, "does not end with ';'");
	bool found = false;
	char hash[BTDDS_TYPEHASH_LEN + 1];
	for (size_t i = 0; i < n;) {
		size_t len = (size_t)((const char *)memchr(s + i, ';', n - i) - (s + i));
		enum btdds_ud r = btdds_entry(s + i, len, hash, &found, err);
		if (r == BTDDS_UD_BAD)
			return r;
		i += len + 1;
	}
	if (!found)
		return BTDDS_UD_NO_HASH;
	memcpy(out, hash, sizeof hash);
	return BTDDS_UD_HASH;
}

bool btdds_userdata_value(const void *ud, size_t n, const char *key, char *out, size_t cap)
{
	const char *s = ud;
	size_t klen = strlen(key);
	if (n > BTDDS_USERDATA_MAX || cap == 0)
		return false;
	for (size_t i = 0; i < n;) {
		const char *semi = memchr(s + i, ';', n - i);
		size_t len = semi ? (size_t)(semi - (s + i)) : n - i;
		const char *e = s + i;
		if (len > klen && e[klen] == '=' && memcmp(e, key, klen) == 0) {
			size_t vlen = len - klen - 1;
			if (vlen >= cap || memchr(e + klen + 1, '\0', vlen) != NULL)
				return false;
			memcpy(out, e + klen + 1, vlen);
			out[vlen] = '\0';
			return true;
		}
		i += len + 1;
	}
	return false;
}
