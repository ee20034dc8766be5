/* tui_format — the numbers of the live view, short enough for a column:
 * counts with SI prefixes "999", "1.2k", "45M"; bytes in IEC units (as every
 * other bagtop output) "512 B", "1.2 MiB"; rates "10.0". */
#ifndef TUI_FORMAT_H
#define TUI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Count with an SI prefix, at most 5 characters: "999", "1.2k", "12k",
 * "123k", "1.2M" ... up to "E". */
void tui_format_count(uint64_t v, char *out, size_t n);
/* Bytes in IEC units, at most 7 characters: "0 B", "999 B", "1.0 KiB",
 * "999 KiB", "1.2 MiB", "12 GiB". */
void tui_format_bytes(uint64_t v, char *out, size_t n);
/* A rate in Hz: "0", "0.50", "9.99", "10.0", "999", "1.2k". */
void tui_format_rate(double hz, char *out, size_t n);

#endif
