/* fuzz_target — the libFuzzer entry point every fuzz target defines; the
 * replay driver (replay_main.c) calls it too, so normal builds run it. */
#ifndef FUZZ_TARGET_H
#define FUZZ_TARGET_H

#include <stddef.h>
#include <stdint.h>

/* Returns 0; aborts (a finding) when an invariant breaks. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
