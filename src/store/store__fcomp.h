/* store__fcomp — FILE-mode compression: one background thread
 * ("rec-zstd-file") that compresses closed storage files to "<file>.zstd"
 * and removes the plain file only once the compressed one is complete and
 * synced. The writer owns it: starts it, pushes closed files, polls
 * finished ones (to update metadata on its own thread) and joins it.
 * Lock order: only `lock`; no lock is held while compressing. */
#ifndef STORE__FCOMP_H
#define STORE__FCOMP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bt_status.h"

struct bag_fcomp;

struct bag_fcomp_result {
	size_t file_index; /* as given to push */
	bt_status status;
	char msg[BT_ERROR_MSG_MAX]; /* why, when status != BT_OK */
};

/* The thread runs at nice value `nice` (bt_sync_nice; BT_SYNC_NICE_KEEP:
 * the starter's). test_delay_us: test hook, each file waits that long
 * before its compression (cancellable); 0 normally. */
BT_MUST_CHECK bt_status bag_fcomp_start(struct bag_fcomp **out, int32_t nice,
					uint32_t test_delay_us, struct bt_error *err);
/* Once *cancel (NULL: never) is set, the file in progress stops within one
 * input block and the queued ones are not compressed: their results say
 * BT_ERR_STATE and each plain file stays as it is. Any thread. */
void bag_fcomp_set_cancel(struct bag_fcomp *c, const atomic_bool *cancel);
/* Queues `path` (copied) for compression. Never blocks on I/O. */
void bag_fcomp_push(struct bag_fcomp *c, size_t file_index, const char *path);
/* Pops one finished job; false when none is ready. With `wait`, blocks
 * until one is ready or nothing is pending. */
bool bag_fcomp_poll(struct bag_fcomp *c, bool wait, struct bag_fcomp_result *res);
/* Number of files queued or in progress. */
size_t bag_fcomp_pending(struct bag_fcomp *c);
/* Finishes all queued work, joins the thread, frees. Unpolled results are
 * dropped. NULL is fine. */
void bag_fcomp_stop(struct bag_fcomp *c);

#endif
