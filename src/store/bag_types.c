#include "bag_types.h"

#include <stdlib.h>
#include <string.h>

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

void bag_kv_free(struct bag_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

void bag_metadata_init(struct bag_metadata *md)
{
	memset(md, 0, sizeof *md);
	md->version = BAG_METADATA_VERSION;
	md->storage_identifier = bt_xstrdup("sqlite3");
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
		free(md->files[i].path);
	free(md->files);
	bag_kv_free(md->custom_data, md->n_custom_data);
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
	}
	dst->relative_file_paths = bt_xcalloc(src->n_paths, sizeof(char *));
	for (size_t i = 0; i < src->n_paths; i++)
		dst->relative_file_paths[i] = bt_xstrdup(src->relative_file_paths[i]);
	dst->files = bt_xcalloc(src->n_files, sizeof *dst->files);
	for (size_t i = 0; i < src->n_files; i++) {
		dst->files[i] = src->files[i];
		dst->files[i].path = bt_xstrdup(src->files[i].path);
	}
	dst->custom_data = bag_kv_dup(src->custom_data, src->n_custom_data);
}
