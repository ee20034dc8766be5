/* bt_hiwater — see the header. */
#include "bt_hiwater.h"

#include <stdint.h>

size_t bt_hiwater_note(struct bt_hiwater *h, size_t used, size_t cap, size_t floor)
{
	if (cap <= floor || used > cap / 4) {
		*h = (struct bt_hiwater){0};
		return 0;
	}
	if (used > h->hi)
		h->hi = used;
	if (++h->run < BT_HIWATER_RUN)
		return 0;
	size_t to = h->hi > SIZE_MAX / 2 ? h->hi : 2 * h->hi;
	*h = (struct bt_hiwater){0};
	if (to < floor)
		to = floor;
	return to < cap ? to : 0;
}
