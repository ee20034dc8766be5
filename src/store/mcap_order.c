/* mcap_order: see mcap_order.h. */
#include "mcap_order.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#define MO_IDS 65536u /* ids are u16 */

struct mcap_order {
	/* FNV-1a of each id's first record, with bit 0 set so that 0 means
	 * "not met yet" */
	uint64_t schema[MO_IDS], channel[MO_IDS];
	bool broken;
};

struct mcap_order *mcap_order_new(void)
{
	return calloc(1, sizeof(struct mcap_order));
}

void mcap_order_free(struct mcap_order *o)
{
	free(o);
}

static uint64_t mo_hash(uint64_t h, const void *p, uint64_t len)
{
	/* the length first, so that ("ab", "c") and ("a", "bc") differ */
	for (int i = 0; i < 8; i++)
		h = (h ^ (uint8_t)(len >> (8 * i))) * 0x100000001b3ull;
	const uint8_t *b = p;
	for (uint64_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

#define MO_SEED 0xcbf29ce484222325ull

static uint64_t mo_schema_hash(const struct mcap_schema *s)
{
	uint64_t h = mo_hash(MO_SEED, s->name.p, s->name.len);
	h = mo_hash(h, s->encoding.p, s->encoding.len);
	return mo_hash(h, s->data.p, s->data.len) | 1;
}

static uint64_t mo_channel_hash(const struct mcap_channel *c)
{
	uint8_t sid[2] = {(uint8_t)c->schema_id, (uint8_t)(c->schema_id >> 8)};
	uint64_t h = mo_hash(MO_SEED, sid, sizeof sid);
	h = mo_hash(h, c->topic.p, c->topic.len);
	h = mo_hash(h, c->message_encoding.p, c->message_encoding.len);
	return mo_hash(h, c->metadata.p, c->metadata.len) | 1;
}

/* Where a record is, for the one line: "at offset N" or "at offset N of
 * the chunk at offset C". */
static void mo_where(const struct mcap_item *it, char *s, size_t n)
{
	if (it->in_chunk)
		snprintf(s, n, "at offset %" PRIu64 " of the chunk at offset %" PRIu64, it->offset,
			 it->chunk_offset);
	else
		snprintf(s, n, "at offset %" PRIu64, it->offset);
}

/* A first record of its id is kept; a later one must be the same. */
static bool mo_same(uint64_t *seen, uint64_t h, const char *kind, uint16_t id,
		    const struct mcap_item *it, char *why, size_t n)
{
	if (!*seen) {
		*seen = h;
		return true;
	}
	if (*seen == h)
		return true;
	char at[96];
	mo_where(it, at, sizeof at);
	snprintf(why, n, "the %s record %s (id %u) differs from the earlier %s record with that id",
		 kind, at, id, kind);
	return false;
}

static bool mo_check(struct mcap_order *o, const struct mcap_item *it, char *why, size_t n)
{
	const struct mcap_record *r = &it->rec;
	char at[96];
	if (r->opcode == MCAP_OP_SCHEMA) {
		const struct mcap_schema *s = &r->u.schema;
		/* id 0 is invalid and readers ignore such a record (spec) */
		return s->id == 0 ||
		       mo_same(&o->schema[s->id], mo_schema_hash(s), "Schema", s->id, it, why, n);
	}
	if (r->opcode == MCAP_OP_CHANNEL) {
		const struct mcap_channel *c = &r->u.channel;
		if (c->schema_id != 0 && !o->schema[c->schema_id]) {
			mo_where(it, at, sizeof at);
			snprintf(why, n, "the Channel record %s (id %u, topic '%.*s') refers to "
				 "schema %u before any Schema record with that id", at, c->id,
				 (int)(c->topic.len > 200 ? 200 : c->topic.len), c->topic.p,
				 c->schema_id);
			return false;
		}
		return mo_same(&o->channel[c->id], mo_channel_hash(c), "Channel", c->id, it, why, n);
	}
	if (r->opcode == MCAP_OP_MESSAGE && !o->channel[r->u.message.channel_id]) {
		mo_where(it, at, sizeof at);
		snprintf(why, n, "the Message record %s is on channel %u, before any Channel "
			 "record with that id", at, r->u.message.channel_id);
		return false;
	}
	return true;
}

bool mcap_order_feed(struct mcap_order *o, const struct mcap_item *it, char *why, size_t n)
{
	if (!o->broken && !mo_check(o, it, why, n))
		o->broken = true;
	return !o->broken;
}
