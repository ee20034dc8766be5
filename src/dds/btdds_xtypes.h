/* btdds_xtypes — OMG IDL text from XTypes type objects: what a publisher
 * built with idlc announces (its type information names the complete type
 * object; the type lookup service serves it and each type it uses).
 *
 * btdds_xtypes_idl is pure: it walks complete TypeObjects, asking `lookup`
 * for each hashed type identifier it meets, and renders one IDL text in
 * which every named type (struct, union, enum, bitmask, typedef) appears
 * once, inside its modules, after the types it uses. What Cyclone puts in
 * a type object is taken as untrusted: names are checked as IDL
 * identifiers, nesting and type count are bounded, cycles and kinds IDL
 * cannot spell here are errors, never a crash.
 *
 * btdds_xtypes_fetch_idl adds the Cyclone side: dds_get_typeobj for the
 * root and each dependency, each bounded by a timeout. It blocks: call it
 * off the data path. */
#ifndef BTDDS_XTYPES_H
#define BTDDS_XTYPES_H

#include <dds/dds.h>
#include <dds/ddsi/ddsi_xt_typeinfo.h>

#include "bt_status.h"

#define BTDDS_XT_MAX_DEPTH 64   /* nested type references in one walk */
#define BTDDS_XT_MAX_TYPES 1024 /* named types in one IDL text */
#define BTDDS_XT_ENCODING "omgidl"

/* The complete type object for hashed identifier `id` (EK_COMPLETE), or
 * NULL with *err set when it cannot be had. The object stays valid until
 * btdds_xtypes_idl returns. */
typedef const struct DDS_XTypes_TypeObject *(*btdds_xt_lookup)(
	void *ctx, const struct DDS_XTypes_TypeIdentifier *id, struct bt_error *err);

/* Renders `root` (a complete struct or union type object, the topic's
 * type) and everything it uses as OMG IDL. BT_OK: *idl (malloc'ed) holds
 * the text. Otherwise *idl is NULL and *err says in one line what is wrong
 * (BT_ERR_FORMAT: malformed or unsupported; the lookup's own error). */
BT_MUST_CHECK bt_status btdds_xtypes_idl(const struct DDS_XTypes_TypeObject *root,
					 btdds_xt_lookup lookup, void *ctx, char **idl,
					 struct bt_error *err);

/* The complete type identifier in type information `ti` (a DCPSPublication
 * sample's, dds_builtintopic_get_endpoint_type_info), copied into *id.
 * BT_ERR_NOTFOUND when `ti` names no complete type. */
BT_MUST_CHECK bt_status btdds_xtypes_complete_id(const dds_typeinfo_t *ti,
						 struct DDS_XTypes_TypeIdentifier *id,
						 struct bt_error *err);

/* Resolves `id` (from btdds_xtypes_complete_id) and its dependencies
 * through participant `pp`'s type lookup, each dds_get_typeobj waiting at
 * most `timeout`, and renders the IDL (btdds_xtypes_idl). Blocks. */
BT_MUST_CHECK bt_status btdds_xtypes_fetch_idl(dds_entity_t pp,
					       const struct DDS_XTypes_TypeIdentifier *id,
					       dds_duration_t timeout, char **idl,
					       struct bt_error *err);

#endif
