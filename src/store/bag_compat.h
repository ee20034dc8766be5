/* bag_compat — which ROS 2 distro's rosbag2 a bag is written for
 * (--compat humble|iron|jazzy) and the facts of each layout: the
 * metadata.yaml version, the sqlite schema version, which keys and tables
 * those versions have, and how QoS profiles are written. This header is the
 * one place that says which version has what; writer, metadata, storage
 * and reader ask it.
 *
 * Learnt from ros2/rosbag2, branches humble, iron and jazzy (Oct 2024):
 * rosbag2_storage bag_metadata.hpp (the version each writes), yaml.hpp and
 * metadata_io.cpp (keys per version), rosbag2_transport qos.cpp (Humble,
 * Iron: policies as rmw numbers) and rosbag2_storage qos.cpp (Jazzy:
 * names), the sqlite3 plugin's sqlite_storage.cpp (schema per distro). */
#ifndef BAG_COMPAT_H
#define BAG_COMPAT_H

#include <stdbool.h>

#include "bt_status.h"

enum bag_compat {
	BAG_COMPAT_JAZZY, /* metadata v9, schema 4: the default */
	BAG_COMPAT_HUMBLE, /* metadata v5, schema 3 */
	BAG_COMPAT_IRON    /* metadata v7, schema 4 */
};

/* The metadata.yaml version that introduced each key (rosbag2's decoder
 * reads a key only from that version on). */
#define BAG_MDV_COMPRESSION 3  /* compression_format, compression_mode */
#define BAG_MDV_QOS 4          /* topic offered_qos_profiles, as a YAML string */
#define BAG_MDV_FILES 5        /* files: per-file entries */
#define BAG_MDV_CUSTOM_DATA 6  /* custom_data */
#define BAG_MDV_TYPE_HASH 7    /* topic type_description_hash */
#define BAG_MDV_ROS_DISTRO 8   /* ros_distro */
#define BAG_MDV_QOS_NAMES 9    /* QoS a YAML sequence, policies as names */
/* The newest layout bagtop knows (and writes for anything newer). */
#define BAG_MDV_NEWEST 9

/* "humble", "iron", "jazzy". */
const char *bag_compat_name(enum bag_compat c);
/* Case-insensitive distro name; BT_ERR_USAGE for any other. */
BT_MUST_CHECK bt_status bag_compat_parse(const char *s, enum bag_compat *out);
/* The metadata.yaml version that distro's rosbag2 writes: 5, 7, 9. */
int bag_compat_metadata_version(enum bag_compat c);
/* The sqlite schema version that distro's sqlite3 plugin creates: 3, 4, 4. */
int bag_compat_schema_version(enum bag_compat c);

/* Schema 4 added the message_definitions table and the topics column
 * type_description_hash; schema 3 (Humble) has neither, so nothing may
 * write definitions into such a file. */
bool bag_schema_has_definitions(int schema_version);
/* QoS policies are written as names (keep_last, reliable...) from metadata
 * version 9 on, in metadata.yaml and in the topics table alike; before, as
 * rmw numbers. */
bool bag_qos_uses_names(int metadata_version);
/* The distro whose rosbag2 writes that metadata version ("humble",
 * "foxy/galactic", "rolling 2023"...), for `bagtop info`. */
const char *bag_layout_distro(int metadata_version);

/* What --compat resolved to. */
struct bag_compat_choice {
	enum bag_compat compat;
	bool defaulted;        /* no --compat: from $ROS_DISTRO or the default */
	bool env_unknown;      /* $ROS_DISTRO named another distro: jazzy layout taken */
};

/* Picks the layout: `given` (the --compat value, NULL when absent) wins;
 * else `ros_distro_env` ($ROS_DISTRO, NULL or "" when unset) when it names
 * one of the three; else jazzy. BT_ERR_USAGE when `given` is no distro. */
BT_MUST_CHECK bt_status bag_compat_choose(const char *given, const char *ros_distro_env,
					  struct bag_compat_choice *out);
/* Whether "use --compat humble" is worth saying when the publishers look
 * like Humble's (ROS 2 endpoints without a typehash): the layout was not
 * asked for and is not Humble's. */
bool bag_compat_hint_humble(const struct bag_compat_choice *c);

#endif
