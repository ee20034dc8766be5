/* play_str — the player's defaults and names for the user. */
#include "play.h"

#include "btdds_participant.h"

void play_options_init(struct play_options *o)
{
	*o = (struct play_options){0};
	o->domain_id = BTDDS_DOMAIN_DEFAULT;
	o->rate = 1.0;
	o->playback_duration_ns = -1;
	o->playback_until_ns = -1;
	o->wait_for_acked_ns = -1;
	o->read_ahead_count = PLAY_READ_AHEAD_DEFAULT;
	o->read_ahead_bytes = PLAY_READ_AHEAD_BYTES_DEFAULT;
}

const char *play_result_str(enum play_result r)
{
	switch (r) {
	case PLAY_OK: return "ok";
	case PLAY_REFUSED_DONE: return "playing has ended";
	case PLAY_REFUSED_NOT_PAUSED: return "not paused";
	case PLAY_REFUSED_AT_END: return "no message left";
	case PLAY_REFUSED_BAD_VALUE: return "value out of range";
	case PLAY_REFUSED_BUSY: return "a burst is under way";
	}
	return "?";
}
