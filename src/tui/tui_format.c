#include "tui_format.h"

#include <inttypes.h>
#include <stdio.h>

static const char tui_prefixes[] = {'k', 'M', 'G', 'T', 'P', 'E'};

/* v >= 1000: one decimal below 10 of the unit, none above; rounds so
 * 999.96k becomes "1.0M", never "1000k". */
static void tui_format_si(double v, const char *space, const char *unit, char *out, size_t n)
{
	size_t p = 0;
	v /= 1000.0;
	while (p + 1 < sizeof tui_prefixes && v >= 999.5) {
		v /= 1000.0;
		p++;
	}
	if (v < 9.95)
		snprintf(out, n, "%.1f%s%c%s", v, space, tui_prefixes[p], unit);
	else
		snprintf(out, n, "%.0f%s%c%s", v, space, tui_prefixes[p], unit);
}

void tui_format_count(uint64_t v, char *out, size_t n)
{
	if (v < 1000)
		snprintf(out, n, "%" PRIu64, v);
	else
		tui_format_si((double)v, "", "", out, n);
}

/* IEC units, as bt_fmt_iec and `ros2 bag info`: a 100M cache is "100 MiB".
 * The next unit starts at 999.5 of this one, so that at most 7 columns are
 * used ("999 KiB", then "1.0 MiB"). */
void tui_format_bytes(uint64_t v, char *out, size_t n)
{
	static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	if (v < 1000) {
		snprintf(out, n, "%" PRIu64 " B", v);
		return;
	}
	double x = (double)v / 1024.0;
	size_t u = 0;
	while (u + 1 < sizeof units / sizeof units[0] && x >= 999.5) {
		x /= 1024.0;
		u++;
	}
	snprintf(out, n, x < 9.95 ? "%.1f %s" : "%.0f %s", x, units[u]);
}

void tui_format_rate(double hz, char *out, size_t n)
{
	if (!(hz > 0.0))
		snprintf(out, n, "0");
	else if (hz < 9.995)
		snprintf(out, n, "%.2f", hz);
	else if (hz < 99.95)
		snprintf(out, n, "%.1f", hz);
	else if (hz < 999.5)
		snprintf(out, n, "%.0f", hz);
	else
		tui_format_si(hz, "", "", out, n);
}
