#include "btdds_names.h"

#include <stdlib.h>
#include <string.h>

#include "bt_buf.h"
#include "bt_mem.h"

char *btdds_names_ros_topic(const char *dds_topic)
{
	if (strncmp(dds_topic, "rt/", 3) != 0 || !dds_topic[3])
		return NULL;
	return bt_xstrdup(dds_topic + 2);
}

/* rmw_cyclonedds demangle: the name must end in "_" and contain "dds_::";
 * drop "dds_::" and the trailing "_", and turn "::" into "/". */
char *btdds_names_ros_type(const char *dds_type)
{
	size_t n = strlen(dds_type);
	const char *dds = strstr(dds_type, "::dds_::");
	if (n < 2 || dds_type[n - 1] != '_' || !dds)
		return NULL;
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = BT_OK;
	for (const char *p = dds_type; st == BT_OK && p < dds_type + n - 1;) {
		if (p == dds) {
			p += strlen("::dds_");
			continue;
		}
		if (p[0] == ':' && p[1] == ':') {
			st = bt_buf_puts(&b, "/");
			p += 2;
		} else {
			st = bt_buf_append(&b, p++, 1);
		}
	}
	if (st != BT_OK) {
		bt_buf_fini(&b);
		return NULL;
	}
	return bt_buf_steal(&b);
}

char *btdds_names_dds_topic(const char *arg)
{
	if (arg[0] == '/')
		return bt_xasprintf("rt%s", arg);
	return bt_xstrdup(arg);
}

/* rmw_cyclonedds mangle: "::" between the parts, "dds_::" before the last
 * one, "_" after it. */
char *btdds_names_dds_type(const char *ros_type)
{
	const char *last = strrchr(ros_type, '/');
	if (!last || last == ros_type || !last[1] || strstr(ros_type, "//"))
		return NULL;
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = BT_OK;
	for (const char *p = ros_type; st == BT_OK && p < last; p++)
		st = *p == '/' ? bt_buf_puts(&b, "::") : bt_buf_append(&b, p, 1);
	if (st == BT_OK)
		st = bt_buf_printf(&b, "::dds_::%s_", last + 1);
	if (st != BT_OK) {
		bt_buf_fini(&b);
		return NULL;
	}
	return bt_buf_steal(&b);
}

bool btdds_names_is_internal(const char *dds_topic)
{
	/* Other bagtop recorders' live statistics (rec_stats_pub.h) too. */
	return !strcmp(dds_topic, "ros_discovery_info") || !strncmp(dds_topic, "DCPS", 4) ||
	       !strcmp(dds_topic, "BagtopStatistics") || !strcmp(dds_topic, "BagtopLossEvents");
}

bool btdds_topic_names_init_dds(struct btdds_topic_names *n, const char *dds_name,
				const char *dds_type)
{
	n->dds_name = bt_xstrdup(dds_name);
	n->dds_type = bt_xstrdup(dds_type);
	n->name = btdds_names_ros_topic(dds_name);
	n->type = n->name != NULL ? btdds_names_ros_type(dds_type) : NULL;
	if (n->name != NULL && n->type != NULL)
		return true;
	free(n->name);
	n->name = bt_xstrdup(dds_name);
	n->type = bt_xstrdup(dds_type);
	return false;
}

bool btdds_topic_names_init_bag(struct btdds_topic_names *n, const char *name, const char *type)
{
	bool is_ros = name[0] == '/';
	n->name = bt_xstrdup(name);
	n->type = bt_xstrdup(type);
	n->dds_name = btdds_names_dds_topic(name);
	n->dds_type = is_ros ? btdds_names_dds_type(type) : NULL;
	if (n->dds_type == NULL)
		n->dds_type = bt_xstrdup(type);
	return is_ros;
}

void btdds_topic_names_fini(struct btdds_topic_names *n)
{
	free(n->name);
	free(n->type);
	free(n->dds_name);
	free(n->dds_type);
}
