/* tui_format — the numbers of the live view, in SI units that fit a column:
 * "999", "1.2k", "45.3M"; bytes "512 B", "1.2 MB"; rates "10.0 Hz". */
#ifndef TUI_FORMAT_H
#define TUI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

/* Count with an SI prefix, at most 5 characters: "999", "1.2k", "12k",
 * "123k", "1.2M" ... up to "E". */
void tui_format_count(uint64_t v, char *out, size_t n);
/* Bytes with an SI prefix: "0 B", "999 B", "1.2 kB", "12 MB". */
void tui_format_bytes(uint64_t v, char *out, size_t n);
/* A rate in Hz: "0", "0.50", "9.99", "10.0", "999", "1.2k". */
void tui_format_rate(double hz, char *out, size_t n);

#endif
