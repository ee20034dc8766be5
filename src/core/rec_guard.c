/* rec_guard — the free-space guard (rec_guard.h). */
#include "rec_guard.h"

#include <stdlib.h>
#include <sys/statvfs.h>

#include "bt_mem.h"

void rec_guard_init(struct rec_guard *g, const char *dir, uint64_t min)
{
	g->dir = bt_xstrdup(dir);
	g->min = min;
	g->next = 0;
	g->stopped = false;
	atomic_init(&g->stopped_a, false);
	atomic_init(&g->free_bytes, UINT64_MAX);
}

void rec_guard_fini(struct rec_guard *g)
{
	free(g->dir);
	g->dir = NULL;
}

bool rec_guard_space(const char *path, uint64_t *avail, uint64_t *total)
{
	struct statvfs v;
	if (path == NULL || statvfs(path, &v) != 0)
		return false;
	*avail = (uint64_t)v.f_bavail * v.f_frsize;
	*total = (uint64_t)v.f_blocks * v.f_frsize;
	return true;
}

uint64_t rec_guard_default(const char *path)
{
	uint64_t avail, total;
	if (!rec_guard_space(path, &avail, &total))
		return 0;
	return total > REC_GUARD_DEFAULT_LARGE ? REC_GUARD_DEFAULT_BYTES
					       : total / 100 * REC_GUARD_DEFAULT_PCT;
}

int rec_guard_check(struct rec_guard *g, int64_t now, bool force)
{
	if (g->min == 0 || (!force && now < g->next))
		return 0;
	g->next = now + REC_GUARD_PERIOD_NS;
	uint64_t avail, total;
	if (!rec_guard_space(g->dir, &avail, &total))
		return 0;
	atomic_store_explicit(&g->free_bytes, avail, memory_order_relaxed);
	uint64_t resume = g->min + g->min / 100 * REC_GUARD_RESUME_PCT;
	int change = 0;
	if (!g->stopped && avail < g->min)
		change = 1;
	else if (g->stopped && avail >= resume)
		change = -1;
	if (change != 0) {
		g->stopped = change > 0;
		atomic_store_explicit(&g->stopped_a, g->stopped, memory_order_relaxed);
	}
	return change;
}

bool rec_guard_stopped(const struct rec_guard *g)
{
	return atomic_load_explicit(&((struct rec_guard *)g)->stopped_a, memory_order_relaxed);
}

uint64_t rec_guard_free(const struct rec_guard *g)
{
	return atomic_load_explicit(&((struct rec_guard *)g)->free_bytes, memory_order_relaxed);
}
