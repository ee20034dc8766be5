#include "bt_parse.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

bt_status bt_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return BT_ERR_USAGE;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return BT_ERR_USAGE;
	*out = (uint64_t)v;
	return BT_OK;
}

bt_status bt_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	if (!s || !(isdigit((unsigned char)s[0]) || (s[0] == '-' && isdigit((unsigned char)s[1]))))
		return BT_ERR_USAGE;
	errno = 0;
	char *end;
	long long v = strtoll(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return BT_ERR_USAGE;
	*out = (int64_t)v;
	return BT_OK;
}

bt_status bt_parse_decimal(const char *s, double min, double max, double *out)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return BT_ERR_USAGE;
	size_t dots = 0;
	for (const char *p = s; *p; p++) {
		if (*p == '.' && p[1] != '\0')
			dots++;
		else if (!isdigit((unsigned char)*p))
			return BT_ERR_USAGE;
	}
	if (dots > 1)
		return BT_ERR_USAGE;
	errno = 0;
	char *end;
	double v = strtod(s, &end);
	if (errno || *end || !(v >= min && v <= max))
		return BT_ERR_USAGE;
	*out = v;
	return BT_OK;
}

static int bt_parse_suffix_shift(const char *suf)
{
	static const struct {
		const char *a, *b;
		int shift;
	} tab[] = {{"", "", 0},       {"K", "KiB", 10}, {"M", "MiB", 20},
		   {"G", "GiB", 30},  {"T", "TiB", 40}};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (!strcmp(suf, tab[i].a) || !strcmp(suf, tab[i].b))
			return tab[i].shift;
	return -1;
}

bt_status bt_parse_size(const char *s, uint64_t *out)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return BT_ERR_USAGE;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = bt_parse_suffix_shift(end);
	if (errno || shift < 0 || (shift && v > (UINT64_MAX >> shift)))
		return BT_ERR_USAGE;
	*out = (uint64_t)v << shift;
	return BT_OK;
}

bt_status bt_parse_seconds(const char *s, int64_t *ns)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return BT_ERR_USAGE;
	const char *dot = strchr(s, '.');
	size_t ilen = dot ? (size_t)(dot - s) : strlen(s);
	char ipart[32];
	if (ilen == 0 || ilen >= sizeof ipart)
		return BT_ERR_USAGE;
	memcpy(ipart, s, ilen);
	ipart[ilen] = '\0';
	uint64_t sec;
	if (bt_parse_u64(ipart, 0, (uint64_t)(INT64_MAX / 1000000000) - 1, &sec) != BT_OK)
		return BT_ERR_USAGE;
	int64_t frac = 0;
	if (dot) {
		const char *p = dot + 1;
		if (!*p)
			return BT_ERR_USAGE;
		int64_t scale = 100000000;
		for (; *p; p++) {
			if (!isdigit((unsigned char)*p))
				return BT_ERR_USAGE;
			frac += (*p - '0') * scale;
			scale /= 10;
		}
	}
	*ns = (int64_t)sec * 1000000000 + frac;
	return BT_OK;
}
