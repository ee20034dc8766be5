#include "bag_compat.h"

#include <stddef.h>
#include <strings.h>

struct bag_compat_row {
	const char *name;
	int metadata_version;
	int schema_version;
};

/* Indexed by enum bag_compat. */
static const struct bag_compat_row bag_compat_rows[] = {
	[BAG_COMPAT_JAZZY] = {"jazzy", 9, 4},
	[BAG_COMPAT_HUMBLE] = {"humble", 5, 3},
	[BAG_COMPAT_IRON] = {"iron", 7, 4},
};

#define BAG_COMPAT_N (sizeof bag_compat_rows / sizeof bag_compat_rows[0])

static const struct bag_compat_row *bag_compat_row(enum bag_compat c)
{
	return (size_t)c < BAG_COMPAT_N ? &bag_compat_rows[c] : &bag_compat_rows[BAG_COMPAT_JAZZY];
}

const char *bag_compat_name(enum bag_compat c)
{
	return bag_compat_row(c)->name;
}

bt_status bag_compat_parse(const char *s, enum bag_compat *out)
{
	for (size_t i = 0; s && i < BAG_COMPAT_N; i++) {
		if (!strcasecmp(s, bag_compat_rows[i].name)) {
			*out = (enum bag_compat)i;
			return BT_OK;
		}
	}
	return BT_ERR_USAGE;
}

int bag_compat_metadata_version(enum bag_compat c)
{
	return bag_compat_row(c)->metadata_version;
}

int bag_compat_schema_version(enum bag_compat c)
{
	return bag_compat_row(c)->schema_version;
}

bool bag_schema_has_definitions(int schema_version)
{
	return schema_version >= 4;
}

bool bag_qos_uses_names(int metadata_version)
{
	return metadata_version >= BAG_MDV_QOS_NAMES;
}

const char *bag_layout_distro(int metadata_version)
{
	/* rosbag2_storage/bag_metadata.hpp on each branch: crystal and dashing
	 * 1, eloquent 2, foxy and galactic 4, humble 5, iron 7, jazzy 9; 3, 6
	 * and 8 were only ever written by rolling between releases. */
	static const char *const names[] = {"unknown", "crystal/dashing", "eloquent",
					    "rolling 2020", "foxy/galactic", "humble",
					    "rolling 2022", "iron", "rolling 2023", "jazzy"};
	if (metadata_version < 1)
		return names[0];
	if (metadata_version > BAG_MDV_NEWEST)
		return "newer than jazzy";
	return names[metadata_version];
}

bt_status bag_compat_choose(const char *given, const char *ros_distro_env,
			    struct bag_compat_choice *out)
{
	out->compat = BAG_COMPAT_JAZZY;
	out->defaulted = given == NULL;
	out->env_unknown = false;
	if (given)
		return bag_compat_parse(given, &out->compat);
	if (!ros_distro_env || !*ros_distro_env)
		return BT_OK;
	if (bag_compat_parse(ros_distro_env, &out->compat) != BT_OK) {
		out->compat = BAG_COMPAT_JAZZY;
		out->env_unknown = true;
	}
	return BT_OK;
}

bool bag_compat_hint_humble(const struct bag_compat_choice *c)
{
	return c->defaulted && c->compat != BAG_COMPAT_HUMBLE;
}
