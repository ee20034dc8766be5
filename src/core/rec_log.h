/* rec_log — Cyclone DDS's own log lines (errors, warnings) go through
 * bt_log like bagtop's, so that the live view shows them in its log view
 * and --log-file keeps them, instead of Cyclone writing over the screen. */
#ifndef REC_LOG_H
#define REC_LOG_H

#include <stdbool.h>

/* Routes Cyclone's log (on) or restores its default stderr sink (off).
 * Synchronous: after it returns Cyclone no longer calls the old sink. */
void rec_log_route_dds(bool on);

#endif
