/* btdds_raw — a raw sertype/serdata for Cyclone DDS 0.10.2.
 *
 * WHY INTERNALS: Cyclone's public API only hands out samples of a type it
 * knows (an idlc descriptor, or one resolved through type lookup, which ROS 2
 * writers never offer). A recorder must take any topic, byte-exact, without
 * knowing its type, so we plug our own "type" into Cyclone: a sertype whose
 * serdata keeps the received CDR bytes as they are (4-byte encapsulation
 * header and wire padding included, never normalised or validated), plus
 * the RTPS writer sequence number read from the DATA / DATA_FRAG submessage
 * (the only way to see best-effort loss). All samples of all raw topics are
 * one instance (eqkey true, constant hash), as rmw_cyclonedds does, so a
 * reader hands them out in arrival order. No keyhash is requested. See
 * ../shared/docs/CYCLONE_RAW_CDR.md §2.
 *
 * Every op is a real function: 0.10.2 calls nearly all of them without a
 * NULL check. Only type_id/type_map/type_info/derive_sertype are left NULL
 * (checked; no type information is offered, so matching is by type name).
 * Only from_ser, from_ser_iov, eqkey, to_untyped, get_size, to_ser_ref/unref
 * and free are on the recording path; the player makes its serdata itself
 * (btdds_raw_out_new) and writes it with dds_forwardcdr; the rest exist for
 * completeness. The
 * typed-sample ops treat a sample as a struct btdds_raw_sample (that is
 * how btdds_raw_write hands bytes to dds_write).
 *
 * A CYCLONE UPGRADE MUST REVISIT (doc §7.8):
 *  - struct ddsi_serdata / ddsi_serdata_ops / ddsi_sertype_ops layouts
 *    (DDS_HAS_SHM adds fields and the two iox ops; 11.0 replaces those by
 *    from_loaned_sample / from_psmx);
 *  - struct nn_rdata, NN_RMSG_PAYLOADOFF, NN_RDATA_*_OFF (q_radmin.h) and
 *    Data_DataFrag_common_t (q_protocol.h); 11.0 renames them ddsi_rdata /
 *    ddsi_radmin.h; writerSN must still arrive byte-swapped to native;
 *  - which ops are NULL-checked, and dds_create_topic_sertype's ownership
 *    rules (it may swap in an interned, equal sertype);
 *  - that the tkmap still keys instances on (ops, hash, eqkey) and accepts
 *    an untyped serdata with type NULL;
 *  - the `asm` define below, if ddsrt headers change. */
#include "btdds_raw.h"

#include <inttypes.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ddsrt/atomics/gcc.h uses the GNU keyword `asm`, absent in strict C11. */
#ifndef asm
#define asm __asm__
#endif
#include <dds/ddsi/ddsi_serdata.h>
#include <dds/ddsi/ddsi_sertype.h>
#include <dds/ddsi/q_protocol.h>
#include <dds/ddsi/q_radmin.h>

#include "bt_pool.h"

/* All raw samples hash alike: one instance in the (domain-global) tkmap. */
#define RAW_HASH 0x72617721u
#define RAW_TAKE_BATCH 64

struct raw_serdata {
	struct ddsi_serdata c;
	int64_t writer_sn; /* -1 when unknown (local writer, keyhash-only) */
	uint32_t size;     /* bytes as received, header included */
	/* A user's header over `data` (btdds_raw_adopt; the recorder keeps
	 * its rec_msg here): a sample delivered to two readers is adopted
	 * once, the other copies. */
	atomic_bool adopted;
	union {
		max_align_t align;
		unsigned char bytes[BTDDS_RAW_SLOT_SIZE];
	} slot;
	unsigned char data[]; /* size rounded up to 4, zero-padded */
};

static const struct ddsi_serdata_ops raw_serdata_ops;

static struct raw_serdata *raw_cast(const struct ddsi_serdata *d)
{
	return (struct raw_serdata *)(uintptr_t)d;
}

/* Bytes of the block holding a serdata of `size` received bytes. */
static size_t raw_block_size(size_t size)
{
	return sizeof(struct raw_serdata) + ((size + 3) & ~(size_t)3);
}

/* Blocks come from bt_pool: a serdata is allocated on the receive thread
 * and freed on the writer's, once per message. */
static void raw_block_free(struct raw_serdata *d)
{
	bt_pool_free(d, raw_block_size(d->size));
}

static struct raw_serdata *raw_new(const struct ddsi_sertype *type, enum ddsi_serdata_kind kind,
				   size_t size)
{
	if (size > UINT32_MAX - 3)
		return NULL;
	size_t padded = (size + 3) & ~(size_t)3;
	struct raw_serdata *d = bt_pool_alloc(raw_block_size(size));
	if (d == NULL)
		return NULL;
	ddsi_serdata_init(&d->c, type, kind);
	d->c.hash = RAW_HASH;
	d->writer_sn = -1;
	d->size = (uint32_t)size;
	atomic_init(&d->adopted, false);
	memset(d->data + size, 0, padded - size);
	return d;
}

/* The writerSN of the DATA/DATA_FRAG submessage that carried the first
 * fragment; the receive path has already swapped it to native order. */
static int64_t raw_writer_sn(const struct nn_rdata *frag)
{
	if (frag->submsg_zoff == 0)
		return -1;
	const unsigned char *sm = NN_RMSG_PAYLOADOFF(frag->rmsg, NN_RDATA_SUBMSG_OFF(frag));
	nn_sequence_number_t sn;
	memcpy(&sn, sm + offsetof(Data_DataFrag_common_t, writerSN), sizeof(sn));
	return (int64_t)(((uint64_t)(uint32_t)sn.high << 32) | sn.low);
}

/* Reassembles a (possibly overlapping) fragment chain: fragment [min,maxp1)
 * only contributes the bytes beyond what earlier fragments gave. */
static struct ddsi_serdata *raw_from_ser(const struct ddsi_sertype *type,
					 enum ddsi_serdata_kind kind,
					 const struct nn_rdata *fragchain, size_t size)
{
	struct raw_serdata *d = raw_new(type, kind, size);
	if (d == NULL)
		return NULL;
	d->writer_sn = raw_writer_sn(fragchain);
	size_t off = 0;
	for (const struct nn_rdata *f = fragchain; f != NULL && off < size; f = f->nextfrag) {
		if (f->min > off) /* a hole: cannot happen for a complete sample */
			goto err;
		size_t end = f->maxp1 < size ? f->maxp1 : size;
		if (end > off) {
			const unsigned char *p = NN_RMSG_PAYLOADOFF(f->rmsg, NN_RDATA_PAYLOAD_OFF(f));
			memcpy(d->data + off, p + (off - f->min), end - off);
			off = end;
		}
	}
	if (off == size)
		return &d->c;
err:
	raw_block_free(d);
	return NULL;
}

static struct ddsi_serdata *raw_from_ser_iov(const struct ddsi_sertype *type,
					     enum ddsi_serdata_kind kind, ddsrt_msg_iovlen_t niov,
					     const ddsrt_iovec_t *iov, size_t size)
{
	struct raw_serdata *d = raw_new(type, kind, size);
	if (d == NULL)
		return NULL;
	size_t off = 0;
	for (ddsrt_msg_iovlen_t i = 0; i < niov && off < size; i++) {
		size_t n = iov[i].iov_len < size - off ? iov[i].iov_len : size - off;
		memcpy(d->data + off, iov[i].iov_base, n);
		off += n;
	}
	if (off == size)
		return &d->c;
	raw_block_free(d);
	return NULL;
}

/* Payload-less DATA carrying only a keyhash (e.g. another vendor's dispose). */
static struct ddsi_serdata *raw_from_keyhash(const struct ddsi_sertype *type,
					     const struct ddsi_keyhash *keyhash)
{
	(void)keyhash;
	struct raw_serdata *d = raw_new(type, SDK_KEY, 0);
	return d ? &d->c : NULL;
}

static struct ddsi_serdata *raw_from_sample(const struct ddsi_sertype *type,
					    enum ddsi_serdata_kind kind, const void *sample)
{
	const struct btdds_raw_sample *s = sample;
	struct raw_serdata *d = raw_new(type, kind, s->len);
	if (d == NULL)
		return NULL;
	if (s->len)
		memcpy(d->data, s->data, s->len);
	return &d->c;
}

/* The tkmap keeps one untyped serdata per instance for as long as the
 * instance lives; keep it tiny and type-free instead of a whole sample. */
static struct ddsi_serdata *raw_to_untyped(const struct ddsi_serdata *d)
{
	struct raw_serdata *u = raw_new(d->type, SDK_KEY, 0);
	if (u == NULL)
		return NULL;
	u->c.type = NULL;
	return &u->c;
}

static uint32_t raw_get_size(const struct ddsi_serdata *d)
{
	return raw_cast(d)->size;
}

static void raw_to_ser(const struct ddsi_serdata *d, size_t off, size_t sz, void *buf)
{
	memcpy(buf, raw_cast(d)->data + off, sz);
}

static struct ddsi_serdata *raw_to_ser_ref(const struct ddsi_serdata *d, size_t off, size_t sz,
					   ddsrt_iovec_t *ref)
{
	ref->iov_base = raw_cast(d)->data + off;
	ref->iov_len = (ddsrt_iov_len_t)sz;
	return ddsi_serdata_ref(d);
}

static void raw_to_ser_unref(struct ddsi_serdata *d, const ddsrt_iovec_t *ref)
{
	(void)ref;
	ddsi_serdata_unref(d);
}

/* Typed reads of a raw topic would get a pointer that dies with the
 * serdata; refuse them (take with dds_takecdr / btdds_raw_take instead). */
static bool raw_to_sample(const struct ddsi_serdata *d, void *sample, void **bufptr, void *buflim)
{
	(void)d;
	(void)sample;
	(void)bufptr;
	(void)buflim;
	return false;
}

static bool raw_untyped_to_sample(const struct ddsi_sertype *type, const struct ddsi_serdata *d,
				  void *sample, void **bufptr, void *buflim)
{
	(void)type;
	(void)d;
	(void)bufptr;
	(void)buflim;
	if (sample)
		memset(sample, 0, sizeof(struct btdds_raw_sample));
	return true;
}

static bool raw_eqkey(const struct ddsi_serdata *a, const struct ddsi_serdata *b)
{
	(void)a;
	(void)b;
	return true;
}

/* The acquire load orders the free after every reader's last use. The
 * reference drop that got here already implies that ordering, but it may
 * have happened inside libddsc, which is not built with ThreadSanitizer:
 * without this load TSan sees no ordering and reports a race. */
static void raw_free(struct ddsi_serdata *d)
{
	(void)__atomic_load_n(&d->refc.v, __ATOMIC_ACQUIRE);
	raw_block_free(raw_cast(d));
}

static size_t raw_print(const struct ddsi_sertype *type, const struct ddsi_serdata *d, char *buf,
			size_t size)
{
	(void)type;
	const struct raw_serdata *r = raw_cast(d);
	int n = snprintf(buf, size, "raw(%" PRIu32 " bytes, sn %" PRId64 ")", r->size,
			 r->writer_sn);
	return n < 0 ? 0 : (size_t)n;
}

/* No key is known: every sample has the all-zero keyhash. */
static void raw_get_keyhash(const struct ddsi_serdata *d, struct ddsi_keyhash *buf, bool force_md5)
{
	(void)d;
	(void)force_md5;
	memset(buf, 0, sizeof(*buf));
}

#ifdef DDS_HAS_SHM
/* Shared memory (iceoryx) stays disabled for the recorder; these only exist
 * because 0.10.2 would call them unchecked if it were enabled. */
static uint32_t raw_get_sample_size(const struct ddsi_serdata *d)
{
	(void)d;
	return 0;
}

static struct ddsi_serdata *raw_from_iox_buffer(const struct ddsi_sertype *type,
						enum ddsi_serdata_kind kind, void *sub,
						void *buffer)
{
	(void)type;
	(void)kind;
	(void)sub;
	(void)buffer;
	return NULL;
}
#endif

static const struct ddsi_serdata_ops raw_serdata_ops = {
	.eqkey = raw_eqkey,
	.get_size = raw_get_size,
	.from_ser = raw_from_ser,
	.from_ser_iov = raw_from_ser_iov,
	.from_keyhash = raw_from_keyhash,
	.from_sample = raw_from_sample,
	.to_ser = raw_to_ser,
	.to_ser_ref = raw_to_ser_ref,
	.to_ser_unref = raw_to_ser_unref,
	.to_sample = raw_to_sample,
	.to_untyped = raw_to_untyped,
	.untyped_to_sample = raw_untyped_to_sample,
	.free = raw_free,
	.print = raw_print,
	.get_keyhash = raw_get_keyhash,
#ifdef DDS_HAS_SHM
	.get_sample_size = raw_get_sample_size,
	.from_iox_buffer = raw_from_iox_buffer,
#endif
};

/* Called by Cyclone when the last reference goes. */
static void raw_sertype_free(struct ddsi_sertype *tp)
{
	ddsi_sertype_fini(tp);
	free(tp);
}

static void raw_zero_samples(const struct ddsi_sertype *tp, void *samples, size_t count)
{
	(void)tp;
	memset(samples, 0, count * sizeof(struct btdds_raw_sample));
}

/* Only reachable through typed loans, which nothing here uses; Cyclone's
 * interface cannot report failure, so running out of memory aborts. */
static void raw_realloc_samples(void **ptrs, const struct ddsi_sertype *tp, void *old,
				size_t oldcount, size_t count)
{
	(void)tp;
	struct btdds_raw_sample *s = old;
	if (count != oldcount) {
		s = realloc(old, (count ? count : 1) * sizeof(*s));
		if (s == NULL)
			abort();
		if (count > oldcount)
			memset(s + oldcount, 0, (count - oldcount) * sizeof(*s));
	}
	for (size_t i = 0; i < count; i++)
		ptrs[i] = s + i;
}

static void raw_free_samples(const struct ddsi_sertype *tp, void **ptrs, size_t count,
			     dds_free_op_t op)
{
	(void)tp;
	if (count > 0 && (op & DDS_FREE_ALL_BIT))
		free(ptrs[0]);
}

/* All raw sertypes with the same name and flags are interchangeable. */
static bool raw_sertype_equal(const struct ddsi_sertype *a, const struct ddsi_sertype *b)
{
	(void)a;
	(void)b;
	return true;
}

static uint32_t raw_sertype_hash(const struct ddsi_sertype *tp)
{
	(void)tp;
	return 0;
}

static size_t raw_get_serialized_size(const struct ddsi_sertype *tp, const void *sample)
{
	(void)tp;
	return ((const struct btdds_raw_sample *)sample)->len;
}

static bool raw_serialize_into(const struct ddsi_sertype *tp, const void *sample, void *dst,
			       size_t dst_size)
{
	(void)tp;
	const struct btdds_raw_sample *s = sample;
	if (s->len > dst_size)
		return false;
	if (s->len)
		memcpy(dst, s->data, s->len);
	return true;
}

static const struct ddsi_sertype_ops raw_sertype_ops = {
	.version = ddsi_sertype_v0,
	.arg = NULL,
	.free = raw_sertype_free,
	.zero_samples = raw_zero_samples,
	.realloc_samples = raw_realloc_samples,
	.free_samples = raw_free_samples,
	.equal = raw_sertype_equal,
	.hash = raw_sertype_hash,
	.type_id = NULL,
	.type_map = NULL,
	.type_info = NULL,
	.derive_sertype = NULL,
	.get_serialized_size = raw_get_serialized_size,
	.serialize_into = raw_serialize_into,
};

dds_entity_t btdds_raw_topic_create(dds_entity_t pp, const char *name, const char *type_name,
				  bool keyed)
{
	return btdds_raw_topic_create_typed(pp, name, type_name, keyed, NULL);
}

dds_entity_t btdds_raw_topic_create_typed(dds_entity_t pp, const char *name,
					  const char *type_name, bool keyed,
					  const struct btdds_raw_type **type)
{
	struct ddsi_sertype *st = malloc(sizeof(*st));
	if (st == NULL)
		return DDS_RETCODE_OUT_OF_RESOURCES;
	ddsi_sertype_init_flags(st, type_name, &raw_sertype_ops, &raw_serdata_ops,
				keyed ? 0u : DDSI_SERTYPE_FLAG_TOPICKIND_NO_KEY);
	st->allowed_data_representation =
		DDS_DATA_REPRESENTATION_FLAG_XCDR1 | DDS_DATA_REPRESENTATION_FLAG_XCDR2;
	/* On success Cyclone owns st (and may have swapped in an equal,
	 * already registered one); on failure it is still ours. */
	dds_entity_t tp = dds_create_topic_sertype(pp, name, &st, NULL, NULL, NULL);
	if (tp < 0)
		ddsi_sertype_unref(st);
	else if (type != NULL)
		*type = (const struct btdds_raw_type *)(const void *)st;
	return tp;
}

/* Hands one valid sample to fn; a foreign serdata (not expected on a raw
 * reader) is read through the generic to_ser_ref. */
static bool raw_deliver(struct ddsi_serdata *d, const dds_sample_info_t *si, btdds_raw_sample_fn fn,
			void *arg)
{
	struct btdds_raw_sample s = {
		.source_time = si->source_timestamp,
		.publication_handle = si->publication_handle,
	};
	if (d->ops == &raw_serdata_ops) {
		const struct raw_serdata *r = raw_cast(d);
		s.data = r->data;
		s.len = r->size;
		s.writer_sn = r->writer_sn;
		s.opaque = d;
		return fn(arg, &s);
	}
	ddsrt_iovec_t iov;
	uint32_t size = ddsi_serdata_size(d);
	struct ddsi_serdata *ref = ddsi_serdata_to_ser_ref(d, 0, size, &iov);
	s.data = iov.iov_base;
	s.len = size;
	s.writer_sn = -1;
	bool more = fn(arg, &s);
	ddsi_serdata_to_ser_unref(ref, &iov);
	return more;
}

void *btdds_raw_adopt(const struct btdds_raw_sample *s)
{
	struct raw_serdata *d = s->opaque;
	if (d == NULL || atomic_exchange(&d->adopted, true))
		return NULL;
	(void)ddsi_serdata_ref(&d->c);
	return d->slot.bytes;
}

void btdds_raw_release(void *slot)
{
	struct raw_serdata *d = (struct raw_serdata *)(void *)((char *)slot -
							       offsetof(struct raw_serdata, slot));
	ddsi_serdata_unref(&d->c);
}

/* Set once batching is on: btdds_raw_write then flushes its own writes. */
static atomic_bool raw_batching;

void btdds_raw_batch_enable(void)
{
	atomic_store(&raw_batching, true); /* before: no write goes unflushed */
	dds_write_set_batch(true);
}

void btdds_raw_flush(dds_entity_t writer)
{
	dds_write_flush(writer);
}

dds_return_t btdds_raw_write(dds_entity_t writer, const void *data, size_t len)
{
	struct btdds_raw_sample s = {.data = data, .len = len};
	dds_return_t rc = dds_write(writer, &s);
	if (atomic_load_explicit(&raw_batching, memory_order_relaxed))
		dds_write_flush(writer);
	return rc;
}

/* The serdata is made with the writer's own sertype (the one the topic
 * got), so dds_forwardcdr takes it as it is, without a conversion. */
void *btdds_raw_out_new(const struct btdds_raw_type *type, size_t len, void **data)
{
	struct raw_serdata *d =
		raw_new((const struct ddsi_sertype *)(const void *)type, SDK_DATA, len);
	if (d == NULL)
		return NULL;
	*data = d->data;
	return d->slot.bytes;
}

dds_return_t btdds_raw_out_write(dds_entity_t writer, void *slot)
{
	struct raw_serdata *d = (struct raw_serdata *)(void *)((char *)slot -
							       offsetof(struct raw_serdata, slot));
	/* The source timestamp is the time of the write, as dds_writecdr would
	 * stamp it, but even: ddsperf (Cyclone's throughput tool) reads an odd
	 * source timestamp on its data topics as a ping asking for a pong, and
	 * `ddsperf sub`, finding no pong writer for a publisher that is not a
	 * ddsperf, prints a line for each: half the messages of a bag played
	 * into it, twice its CPU a message (play_bench (b), README). One
	 * nanosecond is below any reader's interest. */
	d->c.statusinfo = 0;
	d->c.timestamp.v = dds_time() & ~(dds_time_t)1;
	dds_return_t rc = dds_forwardcdr(writer, &d->c);
	/* Once the writer is found, the write consumes the reference also when
	 * it fails (ERROR, TIMEOUT; no topic filter is ever set on a raw
	 * topic); a bad writer handle returns before taking it. */
	if (rc != DDS_RETCODE_OK && rc != DDS_RETCODE_ERROR && rc != DDS_RETCODE_TIMEOUT)
		ddsi_serdata_unref(&d->c);
	return rc;
}

/* When fn asks to stop, the rest of the batch already taken is released
 * without being handed out (dropped); fn should only stop on shutdown. */
int32_t btdds_raw_take(dds_entity_t reader, btdds_raw_sample_fn fn, void *arg)
{
	struct ddsi_serdata *buf[RAW_TAKE_BATCH];
	dds_sample_info_t si[RAW_TAKE_BATCH];
	int32_t total = 0;
	bool more = true;
	while (more) {
		dds_return_t n = dds_takecdr(reader, buf, RAW_TAKE_BATCH, si, DDS_ANY_STATE);
		if (n < 0)
			return total > 0 ? total : n;
		for (int32_t i = 0; i < n; i++) {
			if (more && si[i].valid_data) {
				more = raw_deliver(buf[i], &si[i], fn, arg);
				total++;
			}
			ddsi_serdata_unref(buf[i]);
		}
		if (n < RAW_TAKE_BATCH)
			break;
	}
	return total;
}
