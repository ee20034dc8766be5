/* defs__text — rosbag2's LocalMessageDefinitionSource::get_full_text, over
 * a file loader, so the text format is tested apart from where files are. */
#ifndef DEFS__TEXT_H
#define DEFS__TEXT_H

#include <stdbool.h>
#include <stddef.h>

#include "bt_buf.h"
#include "bt_status.h"
#include "defs.h"

enum defs_format { DEFS_FMT_UNKNOWN, DEFS_FMT_MSG, DEFS_FMT_IDL, DEFS_FMT_SRV };

/* rosbag2's recursion limit (ROSBAG2_CPP_LOCAL_MESSAGE_DEFINITION_SOURCE_MAX_RECURSION_DEPTH). */
#define DEFS_MAX_DEPTH 50
/* A whole definition larger than this is not stored (a decoder's schema,
 * not a data dump). */
#define DEFS_MAX_TEXT (4u << 20)

/* Loads the file of type `name` of package `pkg` in format `f` (MSG and
 * IDL in msg/, SRV in srv/): BT_OK and *text (malloc'ed), *origin set;
 * BT_ERR_NOTFOUND when no source has it; any other status (with *err) when
 * the file exists but cannot be used. */
typedef bt_status (*defs_load_fn)(void *ctx, const char *pkg, const char *name,
				  enum defs_format f, char **text, enum defs_origin *origin,
				  struct bt_error *err);

/* Splits rosbag2's "pkg/Type" or "pkg/msg|srv/Type" into `pkg` and `name`
 * (each of [A-Za-z0-9_]+, < cap bytes); false when it is not one. */
bool defs_type_split(const char *type, char *pkg, char *name, size_t cap);

/* The dependencies rosbag2 finds in `text` (its regular expressions,
 * reproduced): sorted, unique, malloc'ed array of malloc'ed strings. */
void defs_parse_deps(enum defs_format f, const char *text, const char *pkg, char ***deps,
		     size_t *n);
void defs_deps_free(char **deps, size_t n);

/* The full text of `root` and its encoding, as rosbag2 builds them.
 * BT_OK: *out filled (encoding may be "unknown" with empty text, as
 * rosbag2 for a name it does not understand). Otherwise the empty row is
 * due and *err says why: BT_ERR_NOTFOUND (a file missing; err names it),
 * BT_ERR_TOOBIG (deeper than DEFS_MAX_DEPTH or larger than
 * DEFS_MAX_TEXT), or the loader's error. */
BT_MUST_CHECK bt_status defs_text_build(const char *root, defs_load_fn load, void *ctx,
					struct defs_result *out, struct bt_error *err);

#endif
