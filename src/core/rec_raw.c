/* rec_raw — the recorder's message header kept in the received sample's
 * own buffer (btdds_raw_adopt's slot), so capture never copies bytes. */
#include "rec_raw.h"

_Static_assert(sizeof(struct rec_msg) <= BTDDS_RAW_SLOT_SIZE,
	       "a rec_msg must fit in a raw sample's slot");

static void raw_msg_release(struct rec_msg *m)
{
	btdds_raw_release(m);
}

struct rec_msg *rec_raw_adopt(const struct btdds_raw_sample *s, uint32_t topic)
{
	struct rec_msg *m = btdds_raw_adopt(s);
	if (m == NULL)
		return NULL;
	*m = (struct rec_msg){.topic = topic, .writer_sn = REC_SN_UNKNOWN, .len = s->len,
			      .data = (unsigned char *)(uintptr_t)s->data,
			      .release = raw_msg_release};
	return m;
}
