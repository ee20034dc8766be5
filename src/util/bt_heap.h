/* bt_heap — the process heap, for the recorder's pattern: messages
 * allocated on one thread (Cyclone's receive threads) and freed on another
 * (the writer), a batch at a time. Its settings for large messages, and
 * giving back what is free.
 *
 * Why settings: messages up to BT_POOL_MAX come from bt_pool; larger ones
 * from malloc. glibc's defaults give each of those new pages: past its mmap
 * threshold (128 KiB at first) a fresh mapping each; once a free has raised
 * the threshold to their size, the arena is trimmed (its free top given
 * back) whenever a batch of frees leaves more than twice that on top. Each
 * new page is a fault and a zeroing on the receive thread. Measured
 * (2026-12-06, `bagtop record`, 1 MiB messages at 400/s): 72-81 minor
 * faults a message, 1-3 with bt_heap_setup; the receive thread's system
 * time 390-405 us a message, 260-290 (glibc's tunables to a like effect,
 * three alternated runs each).
 *
 * Why the trim: with per-thread arenas, freed pages stay with an arena no
 * thread reuses soon: over 30 minutes of splitting the RSS crept up
 * ~25 KiB a minute with a flat live heap (bench/soak.sh; massif), and a
 * burst's blocks would stay for the rest of the run. malloc_trim(0)
 * returns the free pages inside every arena (madvise); two 10-minute soaks
 * side by side ended at 19.2 MiB with it and 23.5 without.
 *
 * glibc only: elsewhere both calls do what they can (bt_pool's trim) and
 * no more; a sanitizer's allocator takes no settings. Threads: bt_heap_setup
 * once, at the start of a recording (glibc's settings are the process's,
 * for every arena); bt_heap_trim from any thread. */
#ifndef BT_HEAP_H
#define BT_HEAP_H

#include <stddef.h>

#define BT_HEAP_MMAP_MAX (32u << 20) /* glibc's largest mmap threshold */
#define BT_HEAP_TRIM_MIN (64u << 20)

/* Blocks up to BT_HEAP_MMAP_MAX come from the arenas, and a free gives
 * the arena's top back only past freed_at_once (at least
 * BT_HEAP_TRIM_MIN): what the writer frees at once (at most the
 * recorder's cache) is kept for the next batch. The cost: an arena's free
 * top, which malloc_trim gives back only in the main arena, can stay up to
 * that size after a burst of large messages, within the cache size the
 * user gave the recording (1 MiB messages for 4 s, then idle: once 62 MiB
 * of RSS stayed after the 10-s trim; in four runs of this build it went
 * back to 11-12 MiB, as glibc's defaults do). Advisory: where glibc
 * refuses, malloc works as before. */
void bt_heap_setup(size_t freed_at_once);

/* Gives back bt_pool's unused blocks (bt_pool_trim), then the free pages
 * of every arena. Call it at a steady period (the recorder: every 10 s). */
void bt_heap_trim(void);

#endif
