/* btdds_xtypes_fetch — the Cyclone side of btdds_xtypes: the complete type
 * id of a publication's type information, and its type objects through
 * the type lookup service (dds_get_typeobj), each bounded by a timeout.
 *
 * dds_typeinfo_t, dds_typeid_t and dds_typeobj_t are Cyclone's wrappers
 * around the XTypes structs, each a struct with that struct as its only
 * member (ddsi_xt_impl.h, which a C11 build cannot include: its atomics
 * use `asm`); the casts below rely on that layout. */
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "btdds_xtypes.h"

bt_status btdds_xtypes_complete_id(const dds_typeinfo_t *ti, struct DDS_XTypes_TypeIdentifier *id,
				   struct bt_error *err)
{
	const struct DDS_XTypes_TypeInformation *x = (const struct DDS_XTypes_TypeInformation *)ti;
	const struct DDS_XTypes_TypeIdentifier *c = x ? &x->complete.typeid_with_size.type_id : NULL;
	if (c == NULL || c->_d != DDS_XTypes_EK_COMPLETE)
		return bt_err_set(err, BT_ERR_NOTFOUND, "no complete type in the type information");
	memset(id, 0, sizeof *id);
	id->_d = DDS_XTypes_EK_COMPLETE; /* a hash: no pointers inside */
	memcpy(id->_u.equivalence_hash, c->_u.equivalence_hash, sizeof id->_u.equivalence_hash);
	return BT_OK;
}

/* The type objects fetched for one rendering (freed after it). */
struct xt_fetch {
	dds_entity_t pp;
	dds_duration_t timeout;
	dds_typeobj_t **objs;
	size_t n, cap;
};

static const struct DDS_XTypes_TypeObject *xt_fetch_one(struct xt_fetch *f, const dds_typeid_t *id,
							struct bt_error *err)
{
	dds_typeobj_t *o = NULL;
	dds_return_t rc = dds_get_typeobj(f->pp, id, f->timeout, &o);
	if (rc != DDS_RETCODE_OK || o == NULL) {
		bt_err_set(err, BT_ERR_NOTFOUND, "type lookup: %s", dds_strretcode(rc));
		return NULL;
	}
	bt_xgrow((void **)&f->objs, &f->cap, f->n + 1, sizeof *f->objs);
	f->objs[f->n++] = o;
	return (const struct DDS_XTypes_TypeObject *)o;
}

static const struct DDS_XTypes_TypeObject *xt_fetch_lookup(void *ctx,
							   const struct DDS_XTypes_TypeIdentifier *id,
							   struct bt_error *err)
{
	return xt_fetch_one(ctx, (const dds_typeid_t *)id, err);
}

bt_status btdds_xtypes_fetch_idl(dds_entity_t pp, const struct DDS_XTypes_TypeIdentifier *id,
				 dds_duration_t timeout, char **idl, struct bt_error *err)
{
	*idl = NULL;
	struct xt_fetch f = {.pp = pp, .timeout = timeout};
	const struct DDS_XTypes_TypeObject *root = xt_fetch_one(&f, (const dds_typeid_t *)id, err);
	bt_status st = root ? btdds_xtypes_idl(root, xt_fetch_lookup, &f, idl, err) : BT_ERR_NOTFOUND;
	for (size_t i = 0; i < f.n; i++)
		(void)dds_free_typeobj(f.objs[i]); /* only fails on NULL */
	free(f.objs);
	return st;
}
