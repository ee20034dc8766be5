/* The MCAP conformance suite (../shared/fixtures/mcap-conformance, see its
 * README) run against bagtop's MCAP writer and reader, judged the suite's
 * way, for every NAME.json / NAME.mcap pair:
 *   - write: NAME.json's records written by mcap_writer with the variant's
 *     features must give NAME.mcap byte for byte. The suite's data holds
 *     NAME.mcap as a Git LFS pointer (sha256 and size of the real file), so
 *     the bytes are compared through their sha256 and size; a real NAME.mcap
 *     is compared directly. The suite skips `pad` variants for writers; we
 *     write them too (test_pad_records), to get the files the readers need.
 *   - streamed read: every record of NAME.mcap in file order (the contents
 *     of chunks, not Chunk or MessageIndex records) in the JSON form must
 *     equal NAME.json's records exactly.
 *   - indexed read (files with a summary): the distinct schemas and channels
 *     sorted by id, the messages in log_time order and the statistics must
 *     equal the same selection of NAME.json's records.
 * The reads use the real file: NAME.mcap when it is real, else the bytes
 * our writer produced once their sha256 matched the pointer (so they are the
 * real file). Skipped (exit 77) when the suite is absent. */
#include <dirent.h>
#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bt_fs.h"
#include "mcap_json.h"
#include "mcap_doctor.h"
#include "mcap_reader.h"
#include "mcap_writer.h"
#include "test_util.h"

static char conf_root[4096];

enum conf_result { CONF_NA, CONF_OK, CONF_FAIL };

struct conf_tally {
	unsigned ok[3], fail[3], na[3];
};

static bool conf_has(json_t *doc, const char *feature)
{
	json_t *f = json_object_get(json_object_get(json_object_get(doc, "meta"), "variant"),
				    "features"),
	       *v;
	size_t i;
	json_array_foreach(f, i, v)
	{
		if (strcmp(json_string_value(v), feature) == 0)
			return true;
	}
	return false;
}

static void conf_options(json_t *doc, struct mcap_writer_options *o)
{
	mcap_writer_options_init(o);
	o->chunk_size = UINT64_MAX;
	o->no_chunk_crc = false;
	o->enable_data_crc = true;
	o->no_chunking = !conf_has(doc, "ch");
	o->no_message_index = !conf_has(doc, "mx");
	o->no_chunk_index = !conf_has(doc, "chx");
	o->no_statistics = !conf_has(doc, "st");
	o->no_repeated_schemas = !conf_has(doc, "rsh");
	o->no_repeated_channels = !conf_has(doc, "rch");
	o->no_attachment_index = !conf_has(doc, "ax");
	o->no_metadata_index = !conf_has(doc, "mdx");
	o->no_summary_offsets = !conf_has(doc, "sum");
	o->test_pad_records = conf_has(doc, "pad");
}

/* A byte field (array of decimal strings) as a malloc'ed buffer. */
static uint8_t *conf_bytes(json_t *rec, const char *name, size_t *n)
{
	json_t *a = mcap_json_field(rec, name), *v;
	size_t i;
	*n = json_array_size(a);
	uint8_t *b = malloc(*n + 1);
	json_array_foreach(a, i, v) b[i] = (uint8_t)strtoul(json_string_value(v), NULL, 10);
	return b;
}

/* A map field as key/value pairs (pointers into the JSON). */
static const char **conf_kv(json_t *rec, const char *name, size_t *n)
{
	json_t *o = mcap_json_field(rec, name), *v;
	const char *k;
	*n = json_object_size(o);
	const char **kv = malloc((2 * *n + 1) * sizeof *kv);
	size_t i = 0;
	json_object_foreach(o, k, v)
	{
		kv[i++] = k;
		kv[i++] = json_string_value(v);
	}
	return kv;
}

static const char *conf_s(json_t *rec, const char *name)
{
	return json_string_value(mcap_json_field(rec, name));
}

static bt_status conf_write_rec(struct mcap_writer *w, json_t *rec, struct bt_error *err)
{
	const char *type = json_string_value(json_object_get(rec, "type"));
	size_t n = 0;
	uint8_t *data = NULL;
	const char **kv = NULL;
	uint16_t id = 0;
	bt_status st = BT_OK;
	if (strcmp(type, "Schema") == 0) {
		data = conf_bytes(rec, "data", &n);
		st = mcap_writer_add_schema(w, conf_s(rec, "name"), conf_s(rec, "encoding"), data, n,
					    &id, err);
	} else if (strcmp(type, "Channel") == 0) {
		kv = conf_kv(rec, "metadata", &n);
		st = mcap_writer_add_channel(w, conf_s(rec, "topic"), conf_s(rec, "message_encoding"),
					     (uint16_t)mcap_json_u64(rec, "schema_id"), kv, n, &id,
					     err);
	} else if (strcmp(type, "Message") == 0) {
		data = conf_bytes(rec, "data", &n);
		st = mcap_writer_write(w, (uint16_t)mcap_json_u64(rec, "channel_id"),
				       (uint32_t)mcap_json_u64(rec, "sequence"),
				       mcap_json_u64(rec, "log_time"),
				       mcap_json_u64(rec, "publish_time"), data, n, err);
	} else if (strcmp(type, "Attachment") == 0) {
		data = conf_bytes(rec, "data", &n);
		st = mcap_writer_add_attachment(w, mcap_json_u64(rec, "log_time"),
						mcap_json_u64(rec, "create_time"), conf_s(rec, "name"),
						conf_s(rec, "media_type"), data, n, err);
	} else if (strcmp(type, "Metadata") == 0) {
		kv = conf_kv(rec, "metadata", &n);
		st = mcap_writer_add_metadata(w, conf_s(rec, "name"), kv, n, err);
	}
	if (st == BT_OK && id && id != mcap_json_u64(rec, "id"))
		st = bt_err_set(err, BT_ERR_USAGE, "%s got id %u, the suite has %llu", type, id,
				mcap_json_u64(rec, "id"));
	free(data);
	free(kv);
	return st;
}

/* Writes doc's records to `out` as the variant says. */
static bt_status conf_write(json_t *doc, const char *out, struct bt_error *err)
{
	struct mcap_writer_options o;
	conf_options(doc, &o);
	json_t *recs = json_object_get(doc, "records"), *rec;
	json_t *h = json_array_get(recs, 0);
	struct mcap_writer *w;
	bt_status st = mcap_writer_open(&w, out, &o, conf_s(h, "profile"), conf_s(h, "library"),
					err);
	size_t i;
	json_array_foreach(recs, i, rec)
	{
		/* the data section's records; the writer derives the rest */
		if (strcmp(json_string_value(json_object_get(rec, "type")), "DataEnd") == 0)
			break;
		if (st == BT_OK && i > 0)
			st = conf_write_rec(w, rec, err);
	}
	if (st != BT_OK) {
		mcap_writer_abandon(w);
		return st;
	}
	return mcap_writer_close(w, err);
}

static void conf_sha256(const char *data, size_t n, char hex[65])
{
	unsigned char md[32];
	unsigned mdlen = 0;
	EVP_Digest(data, n, md, &mdlen, EVP_sha256(), NULL);
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* Compares our file with the suite's (real, or an LFS pointer). */
static enum conf_result conf_same(const char *fixture, const char *ours, bool *real)
{
	char *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	struct bt_error err;
	if (bt_fs_read_all(fixture, 1u << 24, &a, &na, &err) != BT_OK ||
	    bt_fs_read_all(ours, 1u << 24, &b, &nb, &err) != BT_OK) {
		free(a);
		return CONF_FAIL;
	}
	static const char lfs[] = "version https://git-lfs.github.com/spec/v1";
	*real = strncmp(a, lfs, sizeof lfs - 1) != 0;
	bool same;
	if (*real) {
		same = na == nb && memcmp(a, b, na) == 0;
	} else {
		char hex[65], want[65] = "";
		unsigned long long size = 0;
		const char *oid = strstr(a, "oid sha256:"), *sz = strstr(a, "size ");
		if (oid)
			snprintf(want, sizeof want, "%.64s", oid + 11);
		if (sz)
			size = strtoull(sz + 5, NULL, 10);
		conf_sha256(b, nb, hex);
		same = strcmp(hex, want) == 0 && size == nb;
	}
	free(a);
	free(b);
	return same ? CONF_OK : CONF_FAIL;
}

/* Streamed read of `path`: the records in the suite's form, or NULL. */
static json_t *conf_stream(const char *path, struct bt_error *err)
{
	struct mcap_reader *r;
	if (mcap_reader_open(&r, path, err) != BT_OK)
		return NULL;
	json_t *out = json_array();
	struct mcap_doctor *o = mcap_doctor_new();
	assert_non_null(o);
	char why[512];
	bt_status st = mcap_reader_stream_begin(r, err);
	for (bool end = false; st == BT_OK && !end;) {
		struct mcap_item it;
		st = mcap_reader_next(r, &it, &end, err);
		/* every file of the suite is valid: its records are in order */
		if (st == BT_OK && !end && !mcap_doctor_feed(o, &it, why, sizeof why))
			st = bt_err_set(err, BT_ERR_FORMAT, "mcap_doctor: %s", why);
		json_t *j = st == BT_OK && !end ? mcap_json_record(&it.rec) : NULL;
		if (j)
			json_array_append_new(out, j);
	}
	mcap_doctor_free(o);
	mcap_reader_close(r);
	if (st != BT_OK) {
		json_decref(out);
		return NULL;
	}
	return out;
}

static json_t *conf_def_json(uint8_t op, const void *view, size_t size)
{
	struct mcap_record rec;
	memset(&rec, 0, sizeof rec);
	rec.opcode = op;
	memcpy(&rec.u, view, size);
	return mcap_json_record(&rec);
}

/* Indexed read: schemas, channels (by id), messages (log_time), statistics. */
static json_t *conf_indexed(const char *path, struct bt_error *err)
{
	struct mcap_reader *r;
	if (mcap_reader_open(&r, path, err) != BT_OK)
		return NULL;
	json_t *msgs = json_array(), *out = json_array();
	bt_status st = mcap_reader_index(r, err);
	if (st == BT_OK)
		st = mcap_reader_messages_begin(r, err);
	for (bool end = false; st == BT_OK && !end;) {
		struct mcap_message m;
		st = mcap_reader_messages_next(r, &m, &end, err);
		if (st == BT_OK && !end)
			json_array_append_new(msgs, conf_def_json(MCAP_OP_MESSAGE, &m, sizeof m));
	}
	const struct mcap_summary *s = mcap_reader_summary(r);
	if (st == BT_OK && !s->from_summary)
		st = bt_err_set(err, BT_ERR_FORMAT, "summary not used: %s", s->scan_why.msg);
	for (size_t i = 0; st == BT_OK && i < s->n_schemas; i++)
		json_array_append_new(out, conf_def_json(MCAP_OP_SCHEMA, &s->schemas[i],
							 sizeof s->schemas[i]));
	for (size_t i = 0; st == BT_OK && i < s->n_channels; i++)
		json_array_append_new(out, conf_def_json(MCAP_OP_CHANNEL, &s->channels[i],
							 sizeof s->channels[i]));
	json_array_extend(out, msgs);
	if (st == BT_OK && s->has_statistics)
		json_array_append_new(out, conf_def_json(MCAP_OP_STATISTICS, &s->statistics,
							 sizeof s->statistics));
	json_decref(msgs);
	mcap_reader_close(r);
	if (st != BT_OK) {
		json_decref(out);
		return NULL;
	}
	return out;
}

struct conf_msg {
	unsigned long long t;
	size_t i;
	json_t *rec;
};

static int conf_msg_cmp(const void *a, const void *b)
{
	const struct conf_msg *x = a, *y = b;
	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int conf_id_cmp(const void *a, const void *b)
{
	const struct conf_msg *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

/* Appends to out the records of `type` in recs, distinct by id (the first
 * of each), sorted by id. */
static void conf_defs(json_t *recs, const char *type, json_t *out)
{
	json_t *rec;
	size_t i, n = 0;
	struct conf_msg *d = calloc(json_array_size(recs) + 1, sizeof *d);
	json_array_foreach(recs, i, rec)
	{
		unsigned long long id = mcap_json_u64(rec, "id");
		bool seen = false;
		for (size_t k = 0; k < n; k++)
			seen = seen || d[k].t == id;
		if (!seen && strcmp(json_string_value(json_object_get(rec, "type")), type) == 0)
			d[n++] = (struct conf_msg){id, i, rec};
	}
	qsort(d, n, sizeof *d, conf_id_cmp);
	for (i = 0; i < n; i++)
		json_array_append(out, d[i].rec);
	free(d);
}

/* The suite's selection for the indexed read. */
static json_t *conf_expect_indexed(json_t *recs)
{
	json_t *out = json_array(), *rec;
	conf_defs(recs, "Schema", out);
	conf_defs(recs, "Channel", out);
	size_t i, n = 0;
	struct conf_msg *m = calloc(json_array_size(recs) + 1, sizeof *m);
	json_array_foreach(recs, i, rec)
	{
		if (strcmp(json_string_value(json_object_get(rec, "type")), "Message") == 0)
			m[n++] = (struct conf_msg){mcap_json_u64(rec, "log_time"), i, rec};
	}
	qsort(m, n, sizeof *m, conf_msg_cmp);
	for (i = 0; i < n; i++)
		json_array_append(out, m[i].rec);
	free(m);
	json_array_foreach(recs, i, rec)
	{
		if (strcmp(json_string_value(json_object_get(rec, "type")), "Statistics") == 0)
			json_array_append(out, rec);
	}
	return out;
}

static enum conf_result conf_judge(json_t *got, json_t *want, const char *what, const char *name,
				   const struct bt_error *err)
{
	if (got && json_equal(got, want))
		return CONF_OK;
	if (!got) {
		printf("  %s %s: %s\n", name, what, err->msg);
		return CONF_FAIL;
	}
	char *g = json_dumps(got, JSON_COMPACT), *w = json_dumps(want, JSON_COMPACT);
	printf("  %s %s differs:\n    got  %.600s\n    want %.600s\n", name, what, g, w);
	free(g);
	free(w);
	return CONF_FAIL;
}

static void conf_count(struct conf_tally *t, int k, enum conf_result r)
{
	if (r == CONF_OK)
		t->ok[k]++;
	else if (r == CONF_FAIL)
		t->fail[k]++;
	else
		t->na[k]++;
}

static const char *conf_word(enum conf_result r)
{
	return r == CONF_OK ? "ok" : r == CONF_FAIL ? "FAIL" : "-";
}

/* One NAME.json: write, streamed read, indexed read. */
static void conf_one(const char *dir, const char *json_name, const char *tmp,
		     struct conf_tally *t)
{
	char jpath[4096], mpath[4096], ours[4096], name[256];
	snprintf(name, sizeof name, "%.*s", (int)(strlen(json_name) - 5), json_name);
	snprintf(jpath, sizeof jpath, "%s/%s", dir, json_name);
	snprintf(mpath, sizeof mpath, "%s/%s.mcap", dir, name);
	snprintf(ours, sizeof ours, "%s/%s.mcap", tmp, name);
	json_error_t jerr;
	json_t *doc = json_load_file(jpath, 0, &jerr);
	assert_non_null(doc);
	json_t *recs = json_object_get(doc, "records");
	struct bt_error err;
	bt_err_clear(&err);
	enum conf_result wr = CONF_FAIL, sr = CONF_NA, ir = CONF_NA, same;
	bool real = false, pad = conf_has(doc, "pad");
	if (conf_write(doc, ours, &err) != BT_OK)
		printf("  %s write: %s\n", name, err.msg);
	else if ((same = conf_same(mpath, ours, &real)) != CONF_OK)
		printf("  %s write: bytes differ from the suite's\n", name);
	else
		wr = CONF_OK;
	const char *file = real ? mpath : wr == CONF_OK ? ours : NULL;
	if (file) {
		json_t *got = conf_stream(file, &err);
		sr = conf_judge(got, recs, "streamed read", name, &err);
		json_decref(got);
		json_t *footer = json_array_get(recs, json_array_size(recs) - 1);
		if (mcap_json_u64(footer, "summary_start") != 0) {
			json_t *want = conf_expect_indexed(recs);
			got = conf_indexed(file, &err);
			ir = conf_judge(got, want, "indexed read", name, &err);
			json_decref(got);
			json_decref(want);
		}
	} else {
		sr = CONF_FAIL; /* no real file to read */
	}
	/* The suite does not judge writers on pad variants: count them apart. */
	enum conf_result wcount = pad ? CONF_NA : wr;
	conf_count(t, 0, wcount);
	conf_count(t, 1, sr);
	conf_count(t, 2, ir);
	printf("%-44s write %-4s%s streamed %-4s indexed %s\n", name, conf_word(wr),
	       pad ? "(pad)" : "     ", conf_word(sr), conf_word(ir));
	json_decref(doc);
}

static int conf_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_conformance(void **state)
{
	const char *tmp = *state;
	struct conf_tally t;
	memset(&t, 0, sizeof t);
	const char *groups[] = {"NoData", "OneAttachment", "OneMessage", "OneMetadata",
				"OneSchemalessMessage", "TenMessages"};
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
		char dir[4096];
		snprintf(dir, sizeof dir, "%s/%s", conf_root, groups[g]);
		char **names;
		size_t n;
		struct bt_error err;
		assert_int_equal(bt_fs_list_dir(dir, &names, &n, &err), BT_OK);
		qsort(names, n, sizeof *names, conf_name_cmp);
		for (size_t i = 0; i < n; i++) {
			size_t l = strlen(names[i]);
			if (l > 5 && strcmp(names[i] + l - 5, ".json") == 0)
				conf_one(dir, names[i], tmp, &t);
		}
		bt_fs_free_list(names, n);
	}
	static const char *const what[] = {"write (non-pad)", "streamed read", "indexed read"};
	for (int k = 0; k < 3; k++)
		printf("%-16s %u ok, %u failed, %u not applicable\n", what[k], t.ok[k], t.fail[k],
		       t.na[k]);
	assert_int_equal(t.fail[0] + t.fail[1] + t.fail[2], 0);
	assert_true(t.ok[1] > 0);
}

int main(void)
{
	const char *src = getenv("BAGTOP_SOURCE_DIR");
	snprintf(conf_root, sizeof conf_root, "%s/../shared/fixtures/mcap-conformance",
		 src ? src : ".");
	if (!bt_fs_is_dir(conf_root)) {
		fprintf(stderr, "SKIP: the MCAP conformance suite is absent (%s)\n", conf_root);
		return 77;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_conformance, tu_scratch_setup,
						tu_scratch_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
