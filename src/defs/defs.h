/* defs — message definitions for the bag, in rosbag2's text format.
 *
 * For a ROS 2 type ("std_msgs/msg/String") this builds the row rosbag2's
 * LocalMessageDefinitionSource writes into message_definitions: the type's
 * .msg text, then each dependency once, depth first in sorted order, as a
 * line of 80 '=', "MSG: <name as written>" and its text (encoding
 * "ros2msg"); the "IDL:" form (encoding "ros2idl") when a type has only an
 * .idl file; a service's "SRV:" form. Files are looked up, first hit wins,
 * in the --message-definitions-path directories, under AMENT_PREFIX_PATH
 * (where ament_index puts a package's share directory, as rosbag2 does),
 * then in the set compiled into bagtop (interfaces/, per distro).
 *
 * Not found anywhere: rosbag2's empty row (encoding "", text ""); a name
 * that is not "pkg/Type" / "pkg/msg|srv/Type" (a plain DDS type): encoding
 * "unknown", text "", as rosbag2. A definition that cannot be completed
 * (a dependency missing, a malformed file, deeper than rosbag2's 50
 * levels, too large) is logged once and left empty, so a reader is never
 * given a definition known to be wrong.
 *
 * Depends on src/util only. Thread-safety: a struct defs_source is used by
 * one thread at a time; lookups read files, so never call them on the
 * data path. */
#ifndef DEFS_H
#define DEFS_H

#include <stdbool.h>
#include <stddef.h>

#include "bt_status.h"

/* Where a definition came from (its root type's file). */
enum defs_origin {
	DEFS_ORIGIN_NONE,    /* not found: the empty row */
	DEFS_ORIGIN_PATH,    /* a --message-definitions-path directory */
	DEFS_ORIGIN_AMENT,   /* a prefix of AMENT_PREFIX_PATH */
	DEFS_ORIGIN_BUILTIN, /* bagtop's own set */
	DEFS_ORIGIN_SERVICE, /* the publishing node's get_type_description (REP 2011) */
};

struct defs_options {
	const char *const *paths; /* --message-definitions-path, in order */
	size_t n_paths;
	const char *ament_prefix_path; /* "a:b:c" as the variable; NULL = none */
	const char *distro;            /* built-in set: "humble", "iron", "jazzy"; NULL = jazzy */
	bool quiet;                    /* no log lines (a caller that only compares) */
};

struct defs_result {
	char *encoding; /* "ros2msg", "ros2idl", "unknown" or "" */
	char *text;     /* the encoded_message_definition, "" when none */
	enum defs_origin origin;
};

struct defs_source;

/* A source over `o` (strings copied). BT_ERR_USAGE with a message when the
 * distro has no built-in set. */
BT_MUST_CHECK bt_status defs_source_new(const struct defs_options *o, struct defs_source **out,
					struct bt_error *err);
void defs_source_free(struct defs_source *s);

/* The definition of `type` (as a topic carries it; for a service event
 * topic pass the service type, see defs_service_of_event). Always fills
 * *out (the caller frees it with defs_result_fini); problems are logged,
 * one line each. Aborts on OOM (not a data-path call). */
void defs_source_lookup(struct defs_source *s, const char *type, struct defs_result *out);
void defs_result_fini(struct defs_result *r);

/* One interface file's text as a node gave it (get_type_description's
 * type sources, or its field lists rendered as .msg). */
struct defs_file {
	const char *type; /* "pkg/msg/Type" */
	bool idl;         /* .idl text, else .msg */
	const char *text;
};

/* rosbag2's definition of `root` ("pkg/msg/Type") built from `files` only,
 * in the same format as from interface files (origin DEFS_ORIGIN_SERVICE).
 * BT_OK: *out filled (defs_result_fini). Otherwise *err says why (a file
 * missing, malformed, deeper than rosbag2's limit) and the empty row is
 * due. The files are checked as files on disk are. */
BT_MUST_CHECK bt_status defs_build_from_files(const char *root, const struct defs_file *files,
					      size_t n, struct defs_result *out,
					      struct bt_error *err);

/* rosbag2's service event topics ("<service>/_service_event", type
 * "pkg/srv/X_Event"): the service type "pkg/srv/X" (malloc'ed), or NULL
 * when `topic`/`type` is not one. */
char *defs_service_of_event(const char *topic, const char *type);

/* "path", "ament", "built-in", "get_type_description", "none". */
const char *defs_origin_name(enum defs_origin o);

/* The distros that have a built-in set, NULL-terminated. */
const char *const *defs_builtin_distros(void);
/* Number of built-in interface files of `distro` (0 when unknown). */
size_t defs_builtin_count(const char *distro);

#endif
