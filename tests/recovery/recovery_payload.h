/* The deterministic messages of the recovery tests: message i is a CDR
 * header followed by i and a pattern derived from it, 16..1040 bytes. */
#ifndef RECOVERY_PAYLOAD_H
#define RECOVERY_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RECOVERY_PAYLOAD_MAX 1040
#define RECOVERY_BASE_TIME INT64_C(1700000000000000000)

static inline size_t recovery_payload(uint64_t i, uint8_t *out)
{
	size_t len = 16 + (size_t)((i * 2654435761u) % 1025);
	out[0] = 0x00;
	out[1] = 0x01;
	out[2] = out[3] = 0x00;
	memcpy(out + 4, &i, 8);
	for (size_t k = 12; k < len; k++)
		out[k] = (uint8_t)(i * 31 + k);
	return len;
}

#endif
