/* bt_wbehind — see the header. */
#include "bt_wbehind.h"

#include <fcntl.h>

#include "bt_time.h"

void bt_wbehind_init(struct bt_wbehind *wb, int fd, uint64_t size)
{
	*wb = (struct bt_wbehind){
		.fd = fd < 0 ? -1 : fd,
		.written = size,
		.started = size,
		.stall_ns = BT_WBEHIND_STALL_NS,
		.last_ns = bt_time_monotonic_ns(),
	};
}

/* While paused, the windows written are the kernel's to write back and the
 * cache's to reclaim: skipping them here means no later call starts a large
 * write-back of the backlog in one go. */
static void wb_skip(struct bt_wbehind *wb, int64_t now)
{
	wb->started = wb->written;
	wb->dropped = wb->written;
	wb->last_ns = now;
}

/* The calls are advisory: a refusal (ESPIPE on a pipe, EINVAL where the
 * file system has no such thing) means there is nothing to do for this
 * file, not that anything written is wrong. */
static bool wb_start_and_drop(struct bt_wbehind *wb)
{
	uint64_t end = wb->written & ~(uint64_t)(BT_WBEHIND_ALIGN - 1);
	if (sync_file_range(wb->fd, (off_t)wb->started, (off_t)(end - wb->started),
			    SYNC_FILE_RANGE_WRITE) != 0)
		return false;
	wb->started = end;
	if (wb->written < BT_WBEHIND_LAG || wb->written - BT_WBEHIND_LAG <= wb->dropped)
		return true;
	uint64_t to = wb->written - BT_WBEHIND_LAG;
	if (posix_fadvise(wb->fd, (off_t)wb->dropped, (off_t)(to - wb->dropped),
			  POSIX_FADV_DONTNEED) != 0)
		return false;
	wb->dropped = to;
	return true;
}

void bt_wbehind_wrote(struct bt_wbehind *wb, size_t n)
{
	if (wb->fd < 0)
		return;
	wb->written += n;
	if (wb->written - wb->started < BT_WBEHIND_WINDOW)
		return;
	int64_t now = bt_time_monotonic_ns();
	if (now < wb->paused_until_ns) {
		wb_skip(wb, now);
		return;
	}
	if (!wb_start_and_drop(wb)) {
		wb->fd = -1;
		return;
	}
	int64_t end = bt_time_monotonic_ns();
	int64_t took = end - now, gap = end - wb->last_ns;
	if (took >= wb->stall_ns && took > gap / 4) {
		wb->paused_until_ns = end + BT_WBEHIND_PAUSE_NS;
		wb->n_paused++;
	}
	wb->last_ns = end;
}
