/* bt_wbehind — write-behind for a file written front to back (a bag file).
 *
 * Left to itself, the kernel keeps everything a recorder writes in the page
 * cache: dirty for up to 30 s or until gigabytes pile up, then written in a
 * burst, and kept as clean cache long after, pushing the robot's other
 * files out and growing the page cache by as much as was recorded. Bag data
 * is not read again while recording. So, as PostgreSQL's *_flush_after
 * settings do, every BT_WBEHIND_WINDOW bytes appended this starts the
 * kernel's write-back of that window (sync_file_range, which does not wait
 * for the disk) and drops from the cache the windows BT_WBEHIND_LAG bytes
 * behind, which are on disk by then (posix_fadvise DONTNEED; pages still
 * being written are skipped, the cache's own reclaim takes them later). The
 * cache then holds a few tens of MiB of the bag instead of all of it, and
 * the writer reuses the same pages instead of taking new ones: measured
 * here, 2 GB written in 0.4 s of system time instead of 0.8 s (2.9 s when
 * the pages had never been used before, as on a fresh virtual machine).
 *
 * A disk slower than the data keeps its burst buffer: starting write-back
 * blocks once the device's queue is full, which would hold the writer to
 * the disk's pace. When a call takes BT_WBEHIND_STALL_NS or more and more
 * than a quarter of the time since the previous one, write-behind pauses
 * for BT_WBEHIND_PAUSE_NS and the page cache buffers as without it.
 *
 * Advisory only: what the calls return changes nothing written, so a file
 * system that refuses them (a pipe, no support) just turns it off.
 * One owner per struct (the file's writer); no allocation, no lock. */
#ifndef BT_WBEHIND_H
#define BT_WBEHIND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BT_WBEHIND_WINDOW (8u << 20)
#define BT_WBEHIND_LAG (4u * BT_WBEHIND_WINDOW)
/* Write-back starts up to a multiple of this only, so that the page (or
 * the file system's large folio, up to 2 MiB) still being filled is not
 * under write-back: where pages must stay stable while written (some
 * devices and file systems), the next write to it would wait for the
 * disk. */
#define BT_WBEHIND_ALIGN (2u << 20)
#define BT_WBEHIND_STALL_NS 2000000    /* 2 ms */
#define BT_WBEHIND_PAUSE_NS 1000000000 /* 1 s */

struct bt_wbehind {
	int fd;              /* -1: off */
	uint64_t written;    /* bytes appended so far (the file's size) */
	uint64_t started;    /* write-back started, or left to the kernel, below */
	uint64_t dropped;    /* dropped from the cache, or left to it, below */
	int64_t last_ns;     /* monotonic time of the previous window */
	int64_t paused_until_ns;
	int64_t stall_ns;    /* BT_WBEHIND_STALL_NS; tests set 0 to see a pause */
	uint64_t n_paused;   /* times it paused (for tests) */
};

/* Starts on fd, whose first `size` bytes are already written; fd < 0 is
 * off. The caller keeps fd open while it calls bt_wbehind_wrote. */
void bt_wbehind_init(struct bt_wbehind *wb, int fd, uint64_t size);

/* Notes n more bytes appended; at each window's end starts its write-back
 * and drops what lags behind. */
void bt_wbehind_wrote(struct bt_wbehind *wb, size_t n);

#endif
