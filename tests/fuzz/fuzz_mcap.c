/* fuzz_mcap — LLVMFuzzerTestOneInput over the MCAP record parser and the
 * MCAP reader (src/store/mcap_*). The input is parsed as the body of every
 * record type, then read as a whole file: streamed (and held to check's
 * rules by mcap_doctor), indexed with messages
 * in log_time order, and walked by recover. Any input must give either a
 * result or a refusal carrying a message: never a crash, a read out of
 * bounds, a leak, or a large allocation (the reader's limit is lowered to
 * 8 MiB, so a lying size fails instead of allocating). */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_target.h"
#include "mcap_doctor.h"
#include "mcap_reader.h"
#include "mcap_record.h"

#define FUZZ_LIMIT (8u * 1024u * 1024u)

static void fuzz_refusal(bt_status st, const struct bt_error *err)
{
	if (st != BT_OK && err->msg[0] == '\0')
		abort(); /* a refusal without a message */
}

/* Walks every map of a parsed record: iteration must stay in bounds. */
static void fuzz_maps(const struct mcap_record *r)
{
	struct mcap_map m = {NULL, 0};
	bool str = true;
	if (r->opcode == MCAP_OP_CHANNEL)
		m = r->u.channel.metadata;
	else if (r->opcode == MCAP_OP_METADATA)
		m = r->u.metadata.metadata;
	else if (r->opcode == MCAP_OP_STATISTICS)
		m = r->u.statistics.channel_message_counts, str = false;
	else if (r->opcode == MCAP_OP_CHUNK_INDEX)
		m = r->u.chunk_index.message_index_offsets, str = false;
	struct mcap_str k, v;
	uint16_t id;
	uint64_t n;
	while (str ? mcap_map_next_str(&m, &k, &v) : mcap_map_next_u16(&m, &id, &n))
		if (str && (k.len > r->length || v.len > r->length))
			abort();
}

static void fuzz_records(const uint8_t *data, size_t size)
{
	for (uint8_t op = 0; op <= 0x10; op++) {
		struct mcap_record r;
		struct bt_error err;
		bt_err_clear(&err);
		bt_status st = mcap_record_parse(op, data, size, &r, &err);
		fuzz_refusal(st, &err);
		if (st == BT_OK)
			fuzz_maps(&r);
	}
}

/* Streamed, every record also through mcap_doctor (check's rules): a
 * complaint must carry a message. */
static void fuzz_stream(struct mcap_reader *r)
{
	struct bt_error err;
	bt_err_clear(&err);
	struct mcap_doctor *doc = mcap_doctor_new();
	if (!doc)
		abort();
	bool healthy = true;
	char why[512];
	bt_status st = mcap_reader_stream_begin(r, &err);
	for (bool end = false; st == BT_OK && !end;) {
		struct mcap_item it;
		st = mcap_reader_next(r, &it, &end, &err);
		if (st == BT_OK && !end) {
			fuzz_maps(&it.rec);
			why[0] = '\0';
			if (healthy && !(healthy = mcap_doctor_feed(doc, &it, why, sizeof why)) &&
			    why[0] == '\0')
				abort();
		}
	}
	mcap_doctor_free(doc);
	fuzz_refusal(st, &err);
}

static void fuzz_indexed(struct mcap_reader *r)
{
	struct bt_error err;
	bt_err_clear(&err);
	bt_status st = mcap_reader_index(r, &err);
	if (st == BT_OK)
		st = mcap_reader_messages_begin(r, &err);
	for (bool end = false; st == BT_OK && !end;) {
		struct mcap_message m;
		st = mcap_reader_messages_next(r, &m, &end, &err);
	}
	fuzz_refusal(st, &err);
	struct mcap_recovery rec;
	bt_err_clear(&err);
	st = mcap_reader_recover(r, &rec, &err);
	fuzz_refusal(st, &err);
	if (st == BT_OK && (rec.good_end > mcap_reader_file_size(r) ||
			    (!rec.complete && rec.why.msg[0] == '\0')))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_records(data, size);
	int fd = memfd_create("fuzz_mcap", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	struct mcap_reader *r;
	struct bt_error err;
	if (mcap_reader_open_fd(&r, fd, &err) != BT_OK)
		return 0; /* the reader closed fd */
	mcap_reader_set_limit(r, FUZZ_LIMIT);
	fuzz_stream(r);
	fuzz_indexed(r);
	mcap_reader_close(r);
	return 0;
}
