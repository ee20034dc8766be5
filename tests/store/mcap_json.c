/* mcap_json — see mcap_json.h. */
#include "mcap_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *j_u64(uint64_t v)
{
	char b[24];
	snprintf(b, sizeof b, "%llu", (unsigned long long)v);
	return json_string(b);
}

static json_t *j_str(struct mcap_str s)
{
	return json_stringn(s.p ? s.p : "", s.len);
}

static json_t *j_bytes(const uint8_t *p, uint64_t n)
{
	json_t *a = json_array();
	for (uint64_t i = 0; i < n; i++)
		json_array_append_new(a, j_u64(p[i]));
	return a;
}

static json_t *j_map_str(struct mcap_map m)
{
	json_t *o = json_object();
	struct mcap_str k, v;
	while (mcap_map_next_str(&m, &k, &v)) {
		char *key = strndup(k.p ? k.p : "", k.len);
		json_object_set_new(o, key, j_str(v));
		free(key);
	}
	return o;
}

static json_t *j_map_u16(struct mcap_map m)
{
	json_t *o = json_object();
	uint16_t k;
	uint64_t v;
	while (mcap_map_next_u16(&m, &k, &v)) {
		char key[8];
		snprintf(key, sizeof key, "%u", k);
		json_object_set_new(o, key, j_u64(v));
	}
	return o;
}

/* Appends [name, value] (fields are added in name order by the callers). */
static void j_field(json_t *fields, const char *name, json_t *value)
{
	json_t *pair = json_array();
	json_array_append_new(pair, json_string(name));
	json_array_append_new(pair, value);
	json_array_append_new(fields, pair);
}

static void j_fields_a(json_t *f, const struct mcap_record *r)
{
	switch (r->opcode) {
	case MCAP_OP_HEADER:
		j_field(f, "library", j_str(r->u.header.library));
		j_field(f, "profile", j_str(r->u.header.profile));
		break;
	case MCAP_OP_FOOTER:
		j_field(f, "summary_crc", j_u64(r->u.footer.summary_crc));
		j_field(f, "summary_offset_start", j_u64(r->u.footer.summary_offset_start));
		j_field(f, "summary_start", j_u64(r->u.footer.summary_start));
		break;
	case MCAP_OP_SCHEMA:
		j_field(f, "data", j_bytes(r->u.schema.data.p, r->u.schema.data.len));
		j_field(f, "encoding", j_str(r->u.schema.encoding));
		j_field(f, "id", j_u64(r->u.schema.id));
		j_field(f, "name", j_str(r->u.schema.name));
		break;
	case MCAP_OP_CHANNEL:
		j_field(f, "id", j_u64(r->u.channel.id));
		j_field(f, "message_encoding", j_str(r->u.channel.message_encoding));
		j_field(f, "metadata", j_map_str(r->u.channel.metadata));
		j_field(f, "schema_id", j_u64(r->u.channel.schema_id));
		j_field(f, "topic", j_str(r->u.channel.topic));
		break;
	case MCAP_OP_MESSAGE:
		j_field(f, "channel_id", j_u64(r->u.message.channel_id));
		j_field(f, "data", j_bytes(r->u.message.data.p, r->u.message.data.len));
		j_field(f, "log_time", j_u64(r->u.message.log_time));
		j_field(f, "publish_time", j_u64(r->u.message.publish_time));
		j_field(f, "sequence", j_u64(r->u.message.sequence));
		break;
	case MCAP_OP_CHUNK_INDEX: {
		const struct mcap_chunk_index *c = &r->u.chunk_index;
		j_field(f, "chunk_length", j_u64(c->chunk_length));
		j_field(f, "chunk_start_offset", j_u64(c->chunk_start_offset));
		j_field(f, "compressed_size", j_u64(c->compressed_size));
		j_field(f, "compression", j_str(c->compression));
		j_field(f, "message_end_time", j_u64(c->message_end_time));
		j_field(f, "message_index_length", j_u64(c->message_index_length));
		j_field(f, "message_index_offsets", j_map_u16(c->message_index_offsets));
		j_field(f, "message_start_time", j_u64(c->message_start_time));
		j_field(f, "uncompressed_size", j_u64(c->uncompressed_size));
		break;
	}
	default:
		break;
	}
}

static void j_fields_b(json_t *f, const struct mcap_record *r)
{
	switch (r->opcode) {
	case MCAP_OP_ATTACHMENT: {
		const struct mcap_attachment *a = &r->u.attachment;
		j_field(f, "create_time", j_u64(a->create_time));
		j_field(f, "data", j_bytes(a->data.p, a->data.len));
		j_field(f, "log_time", j_u64(a->log_time));
		j_field(f, "media_type", j_str(a->media_type));
		j_field(f, "name", j_str(a->name));
		break;
	}
	case MCAP_OP_ATTACHMENT_INDEX: {
		const struct mcap_attachment_index *a = &r->u.attachment_index;
		j_field(f, "create_time", j_u64(a->create_time));
		j_field(f, "data_size", j_u64(a->data_size));
		j_field(f, "length", j_u64(a->length));
		j_field(f, "log_time", j_u64(a->log_time));
		j_field(f, "media_type", j_str(a->media_type));
		j_field(f, "name", j_str(a->name));
		j_field(f, "offset", j_u64(a->offset));
		break;
	}
	case MCAP_OP_STATISTICS: {
		const struct mcap_statistics *s = &r->u.statistics;
		j_field(f, "attachment_count", j_u64(s->attachment_count));
		j_field(f, "channel_count", j_u64(s->channel_count));
		j_field(f, "channel_message_counts", j_map_u16(s->channel_message_counts));
		j_field(f, "chunk_count", j_u64(s->chunk_count));
		j_field(f, "message_count", j_u64(s->message_count));
		j_field(f, "message_end_time", j_u64(s->message_end_time));
		j_field(f, "message_start_time", j_u64(s->message_start_time));
		j_field(f, "metadata_count", j_u64(s->metadata_count));
		j_field(f, "schema_count", j_u64(s->schema_count));
		break;
	}
	case MCAP_OP_METADATA:
		j_field(f, "metadata", j_map_str(r->u.metadata.metadata));
		j_field(f, "name", j_str(r->u.metadata.name));
		break;
	case MCAP_OP_METADATA_INDEX:
		j_field(f, "length", j_u64(r->u.metadata_index.length));
		j_field(f, "name", j_str(r->u.metadata_index.name));
		j_field(f, "offset", j_u64(r->u.metadata_index.offset));
		break;
	case MCAP_OP_SUMMARY_OFFSET:
		j_field(f, "group_length", j_u64(r->u.summary_offset.group_length));
		j_field(f, "group_opcode", j_u64(r->u.summary_offset.group_opcode));
		j_field(f, "group_start", j_u64(r->u.summary_offset.group_start));
		break;
	case MCAP_OP_DATA_END:
		j_field(f, "data_section_crc", j_u64(r->u.data_end.data_section_crc));
		break;
	default:
		break;
	}
}

json_t *mcap_json_record(const struct mcap_record *rec)
{
	if (!mcap_opcode_known(rec->opcode) || rec->opcode == MCAP_OP_CHUNK ||
	    rec->opcode == MCAP_OP_MESSAGE_INDEX)
		return NULL;
	json_t *fields = json_array();
	j_fields_a(fields, rec);
	j_fields_b(fields, rec);
	json_t *o = json_object();
	json_object_set_new(o, "type", json_string(mcap_opcode_name(rec->opcode)));
	json_object_set_new(o, "fields", fields);
	return o;
}

json_t *mcap_json_field(json_t *record, const char *name)
{
	json_t *fields = json_object_get(record, "fields"), *pair;
	size_t i;
	json_array_foreach(fields, i, pair)
	{
		if (strcmp(json_string_value(json_array_get(pair, 0)), name) == 0)
			return json_array_get(pair, 1);
	}
	return NULL;
}

unsigned long long mcap_json_u64(json_t *record, const char *name)
{
	json_t *v = mcap_json_field(record, name);
	return v && json_is_string(v) ? strtoull(json_string_value(v), NULL, 10) : 0;
}
