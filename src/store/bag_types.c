#include "bag_types.h"

#include <stdlib.h>
#include <string.h>

#include "bag_storage.h"
#include "bt_mem.h"

void bag_qos_default(struct bag_qos *q)
{
	memset(q, 0, sizeof *q);
	q->history = BAG_HISTORY_UNKNOWN;
	q->reliability = BAG_RELIABILITY_RELIABLE;
	q->durability = BAG_DURABILITY_VOLATILE;
	q->deadline = BAG_QOS_TIME_INFINITE;
	q->lifespan = BAG_QOS_TIME_INFINITE;
	q->liveliness = BAG_LIVELINESS_AUTOMATIC;
	q->liveliness_lease_duration = BAG_QOS_TIME_INFINITE;
}

void bag_topic_fini(struct bag_topic *t)
{
	free(t->name);
	free(t->type);
	free(t->serialization_format);
	free(t->qos);
	free(t->type_description_hash);
	memset(t, 0, sizeof *t);
}

void bag_topic_copy(struct bag_topic *dst, const struct bag_topic *src)
{
	dst->name = bt_xstrdup(src->name ? src->name : "");
	dst->type = bt_xstrdup(src->type ? src->type : "");
	dst->serialization_format =
		bt_xstrdup(src->serialization_format ? src->serialization_format : "cdr");
	dst->type_description_hash =
		bt_xstrdup(src->type_description_hash ? src->type_description_hash : "");
	dst->n_qos = src->n_qos;
	dst->qos = NULL;
	if (src->n_qos) {
		dst->qos = bt_xmalloc(src->n_qos * sizeof *dst->qos);
		memcpy(dst->qos, src->qos, src->n_qos * sizeof *dst->qos);
	}
}

void bag_msgdef_fini(struct bag_msgdef *d)
{
	free(d->topic_type);
	free(d->encoding);
	free(d->encoded_message_definition);
	free(d->type_description_hash);
	memset(d, 0, sizeof *d);
}

static char *bag_dup_or_empty(const char *s)
{
	return bt_xstrdup(s ? s : "");
}

void bag_msgdef_copy(struct bag_msgdef *dst, const struct bag_msgdef *src)
{
	dst->topic_type = bag_dup_or_empty(src->topic_type);
	dst->encoding = bag_dup_or_empty(src->encoding);
	dst->encoded_message_definition = bag_dup_or_empty(src->encoded_message_definition);
	dst->type_description_hash = bag_dup_or_empty(src->type_description_hash);
}

struct bag_kv *bag_kv_dup(const struct bag_kv *src, size_t n)
{
	if (!n)
		return NULL;
	struct bag_kv *kv = bt_xcalloc(n, sizeof *kv);
	for (size_t i = 0; i < n; i++) {
		kv[i].key = bt_xstrdup(src[i].key);
		kv[i].value = bt_xstrdup(src[i].value);
	}
	return kv;
}

void bag_kv_set(struct bag_kv **kv, size_t *n, const char *key, const char *value)
{
	size_t i = 0;
	while (i < *n && strcmp((*kv)[i].key, key) != 0)
		i++;
	if (i == *n) {
		*kv = bt_xrealloc(*kv, (*n + 1) * sizeof **kv);
		(*kv)[i].key = bt_xstrdup(key);
		(*kv)[i].value = NULL;
		(*n)++;
	}
	free((*kv)[i].value);
	(*kv)[i].value = bt_xstrdup(value);
}

void bag_kv_free(struct bag_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static void bag_file_info_fini(struct bag_file_info *f)
{
	free(f->path);
	for (size_t i = 0; i < f->n_topics_stats; i++)
		free(f->topics_stats[i].topic);
	free(f->topics_stats);
}

static void bag_file_info_copy(struct bag_file_info *dst, const struct bag_file_info *src)
{
	*dst = *src;
	dst->path = bt_xstrdup(src->path);
	dst->topics_stats = NULL;
	if (!src->n_topics_stats)
		return;
	dst->topics_stats = bt_xcalloc(src->n_topics_stats, sizeof *dst->topics_stats);
	for (size_t i = 0; i < src->n_topics_stats; i++) {
		dst->topics_stats[i] = src->topics_stats[i];
		dst->topics_stats[i].topic = bag_dup_or_empty(src->topics_stats[i].topic);
	}
}

void bag_metadata_init(struct bag_metadata *md)
{
	memset(md, 0, sizeof *md);
	md->version = BAG_METADATA_VERSION;
	md->storage_identifier = bt_xstrdup(bag_storage_default()->identifier);
	md->starting_time = BAG_TIME_NONE;
	md->compression_format = bt_xstrdup("");
	md->compression_mode = bt_xstrdup("");
	md->ros_distro = bt_xstrdup("");
}

void bag_metadata_fini(struct bag_metadata *md)
{
	free(md->storage_identifier);
	for (size_t i = 0; i < md->n_topics; i++)
		bag_topic_fini(&md->topics[i].topic);
	free(md->topics);
	free(md->compression_format);
	free(md->compression_mode);
	for (size_t i = 0; i < md->n_paths; i++)
		free(md->relative_file_paths[i]);
	free(md->relative_file_paths);
	for (size_t i = 0; i < md->n_files; i++)
		bag_file_info_fini(&md->files[i]);
	free(md->files);
	bag_kv_free(md->custom_data, md->n_custom_data);
	bag_kv_free(md->def_sources, md->n_def_sources);
	free(md->ros_distro);
	memset(md, 0, sizeof *md);
}

void bag_metadata_copy(struct bag_metadata *dst, const struct bag_metadata *src)
{
	*dst = *src;
	dst->storage_identifier = bag_dup_or_empty(src->storage_identifier);
	dst->compression_format = bag_dup_or_empty(src->compression_format);
	dst->compression_mode = bag_dup_or_empty(src->compression_mode);
	dst->ros_distro = bag_dup_or_empty(src->ros_distro);
	dst->topics = bt_xcalloc(src->n_topics, sizeof *dst->topics);
	for (size_t i = 0; i < src->n_topics; i++) {
		bag_topic_copy(&dst->topics[i].topic, &src->topics[i].topic);
		dst->topics[i].message_count = src->topics[i].message_count;
		dst->topics[i].has_stats = src->topics[i].has_stats;
		dst->topics[i].stats = src->topics[i].stats;
	}
	dst->relative_file_paths = bt_xcalloc(src->n_paths, sizeof(char *));
	for (size_t i = 0; i < src->n_paths; i++)
		dst->relative_file_paths[i] = bt_xstrdup(src->relative_file_paths[i]);
	dst->files = bt_xcalloc(src->n_files, sizeof *dst->files);
	for (size_t i = 0; i < src->n_files; i++)
		bag_file_info_copy(&dst->files[i], &src->files[i]);
	dst->custom_data = bag_kv_dup(src->custom_data, src->n_custom_data);
	dst->def_sources = bag_kv_dup(src->def_sources, src->n_def_sources);
}

/* ---- statistics ---- */

const struct bag_loss_cause_info bag_loss_causes[BAG_LOSS_N_CAUSES] = {
#define BAG_LOSS_X_INFO(field, yaml, idl, json, label, col, group, required) \
	{#field, yaml, #idl, json, label, col, BAG_LOSS_##group, required},
	BAG_LOSS_CAUSES(BAG_LOSS_X_INFO)
#undef BAG_LOSS_X_INFO
};

const char *bag_loss_group_text(enum bag_loss_group g)
{
	return g == BAG_LOSS_TRANSPORT ? BAG_LOSS_GROUP_TRANSPORT_TEXT
				       : BAG_LOSS_GROUP_RECORDER_TEXT;
}

_Static_assert(sizeof(struct bag_losses) == BAG_LOSS_N_CAUSES * sizeof(uint64_t),
	       "struct bag_losses: the named causes are n[], in table order");

void bag_losses_add(struct bag_losses *to, const struct bag_losses *d)
{
	for (int c = 0; c < BAG_LOSS_N_CAUSES; c++)
		*bag_losses_at(to, c) += bag_losses_get(d, c);
}

struct bag_losses bag_losses_sub(const struct bag_losses *now, const struct bag_losses *was)
{
	struct bag_losses d;
	for (int c = 0; c < BAG_LOSS_N_CAUSES; c++)
		*bag_losses_at(&d, c) = bag_losses_get(now, c) - bag_losses_get(was, c);
	return d;
}

bool bag_losses_any(const struct bag_losses *l)
{
	for (int c = 0; c < BAG_LOSS_N_CAUSES; c++)
		if (bag_losses_get(l, c) != 0)
			return true;
	return false;
}

uint64_t bag_losses_group(const struct bag_losses *l, enum bag_loss_group g)
{
	uint64_t n = 0;
	for (int c = 0; c < BAG_LOSS_N_CAUSES; c++)
		if (bag_loss_causes[c].group == g)
			n += bag_losses_get(l, c);
	return n;
}

uint64_t bag_losses_transport(const struct bag_losses *l)
{
	return bag_losses_group(l, BAG_LOSS_TRANSPORT);
}

uint64_t bag_losses_recorder(const struct bag_losses *l)
{
	return bag_losses_group(l, BAG_LOSS_RECORDER);
}

double bag_stats_rate(uint64_t messages, int64_t duration_ns)
{
	return duration_ns > 0 ? (double)messages * 1e9 / (double)duration_ns : 0.0;
}

int64_t bag_span(int64_t first, int64_t last)
{
	int64_t d;
	if (last <= first)
		return 0;
	return __builtin_sub_overflow(last, first, &d) ? INT64_MAX : d;
}

bool bag_metadata_has_stats(const struct bag_metadata *md)
{
	for (size_t i = 0; i < md->n_topics; i++)
		if (md->topics[i].has_stats)
			return true;
	for (size_t i = 0; i < md->n_files; i++)
		if (md->files[i].has_stats)
			return true;
	return false;
}

/* Topic index of a file entry, trying `guess` first. */
static size_t bag_stats_topic(const struct bag_metadata *md, size_t guess, const char *name)
{
	if (guess < md->n_topics && !strcmp(md->topics[guess].topic.name, name))
		return guess;
	for (size_t i = 0; i < md->n_topics; i++)
		if (!strcmp(md->topics[i].topic.name, name))
			return i;
	return SIZE_MAX;
}

static void bag_stats_add(struct bag_stats *to, const struct bag_stats *s)
{
	to->messages_recorded += s->messages_recorded;
	to->bytes_written += s->bytes_written;
	to->losses_known = to->losses_known && s->losses_known;
	to->lost_in_transport += s->lost_in_transport;
	to->lost_in_recorder += s->lost_in_recorder;
	to->has_causes = to->has_causes && s->has_causes;
	bag_losses_add(&to->causes, &s->causes);
}

static void bag_stats_sum_file(struct bag_metadata *md, struct bag_file_info *f)
{
	size_t t = SIZE_MAX;
	for (size_t k = 0; k < f->n_topics_stats; k++) {
		struct bag_file_topic_stats *e = &f->topics_stats[k];
		e->stats.average_rate_hz = bag_stats_rate(e->stats.messages_recorded, f->duration);
		/* Entries follow the topics' order, some left out: try the next. */
		t = bag_stats_topic(md, t == SIZE_MAX ? 0 : t + 1, e->topic);
		if (t != SIZE_MAX)
			bag_stats_add(&md->topics[t].stats, &e->stats);
	}
}

void bag_metadata_sum_stats(struct bag_metadata *md)
{
	for (size_t t = 0; t < md->n_topics; t++) {
		struct bag_topic_info *ti = &md->topics[t];
		ti->has_stats = true;
		memset(&ti->stats, 0, sizeof ti->stats);
		ti->stats.losses_known = ti->stats.has_causes = true;
	}
	for (size_t i = 0; i < md->n_files; i++)
		if (md->files[i].has_stats)
			bag_stats_sum_file(md, &md->files[i]);
	for (size_t t = 0; t < md->n_topics; t++) {
		struct bag_stats *s = &md->topics[t].stats;
		s->average_rate_hz = bag_stats_rate(s->messages_recorded, md->duration);
		s->has_causes = s->has_causes && s->losses_known;
		if (!s->losses_known) {
			s->lost_in_transport = s->lost_in_recorder = 0;
			memset(&s->causes, 0, sizeof s->causes);
		}
	}
}
