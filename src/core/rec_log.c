/* rec_log — Cyclone's log into bt_log; see the header. */
#include "rec_log.h"

#include <dds/dds.h>

#include "bt_log.h"

static void rec_log_dds(void *ctx, const dds_log_data_t *d)
{
	(void)ctx;
	/* Cyclone's header (time, thread) is noise here; so is its newline. */
	const char *msg = d->message + (d->hdrsize < d->size ? d->hdrsize : 0);
	size_t len = d->size > d->hdrsize ? d->size - d->hdrsize : 0;
	while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		len--;
	enum bt_log_level level = (d->priority & (DDS_LC_FATAL | DDS_LC_ERROR)) ? BT_LOG_ERROR
				  : (d->priority & DDS_LC_WARNING)           ? BT_LOG_WARN
									     : BT_LOG_DEBUG;
	bt_log(level, "dds: %.*s", (int)len, msg);
}

void rec_log_route_dds(bool on)
{
	dds_set_log_sink(on ? rec_log_dds : NULL, NULL);
}
