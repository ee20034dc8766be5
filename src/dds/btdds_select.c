/* btdds_select — topic selection with the semantics of rosbag2 Jazzy/rolling
 * (rosbag2_transport/src/rosbag2_transport/topic_filter.cpp,
 * TopicFilter::take_topic, and ros2bag/verb/record.py):
 *
 *   included = -a || an explicit topic names it || -e matches ||
 *              --topic-types names its type
 *              (Jazzy: a union; Humble intersected topics and -e);
 *   then dropped when --exclude-topics names it, -x matches or
 *   --exclude-topic-types names its type — applied to
 *   every include, explicit topics too (topic_filter.cpp does; Jazzy's
 *   record.py merely refuses the combination on its command line);
 *   then dropped when hidden (a ROS name token starts with '_', as rclpy's
 *   topic_or_service_is_hidden) unless --include-hidden-topics — again
 *   also for explicit topics, as rosbag2.
 *
 * Regexes are searched for (std::regex_search: "contains"), not matched
 * whole. They are tried against every name a topic has (ROS name, DDS
 * name, service name); one hit is enough, for -e as for -x.
 *
 * Services. rosbag2 records ROS 2 service introspection topics
 * ("/svc/_service_event"): not subject to the hidden rule, taken by -a,
 * by name or by -e, the regex tried on the service name "/svc" too; so
 * does bagtop. --services SVC names SVC's as a topic argument would,
 * --exclude-services excludes it so; --all-services takes every one of
 * them, --all-topics every topic but them (Jazzy's -a is both). DDS
 * request/reply topics ("rq/svcRequest", "rr/svcReply") are not ROS
 * topics to rosbag2; bagtop records them only with
 * include_services (then like any DDS topic) or when named explicitly.
 * /rosout and /parameter_events are ordinary topics (-a records them).
 * Internal topics (btdds_names_is_internal) never match. */
#include "btdds_select.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bt_str.h"
#include "btdds_names.h"


struct select_name {
	char *arg; /* as given */
	char *dds; /* btdds_names_dds_topic(arg) */
};

struct btdds_select {
	struct select_name *topics;
	size_t n_topics;
	struct select_name *excludes;
	size_t n_excludes;
	char **types, **exclude_types; /* as a bag names types */
	size_t n_types, n_exclude_types;
	bool all;
	bool all_topics, all_services;
	bool include_hidden;
	bool include_services;
	bool has_regex;
	bool has_exclude_regex;
	regex_t regex;
	regex_t exclude_regex;
};

static void select_name_set(struct select_name *v, char *arg)
{
	v->arg = arg;
	v->dds = btdds_names_dds_topic(arg);
}

/* The topic arguments, then each service's introspection topic
 * ("svc" and "/svc" alike: "/svc/_service_event"); *n gets the count. */
static struct select_name *select_names_dup(const char *const *args, size_t n_args,
					    const char *const *svcs, size_t n_svcs, size_t *n)
{
	*n = n_args + n_svcs;
	if (*n == 0)
		return NULL;
	struct select_name *v = bt_xcalloc(*n, sizeof *v);
	for (size_t i = 0; i < n_args; i++)
		select_name_set(&v[i], bt_xstrdup(args[i]));
	for (size_t i = 0; i < n_svcs; i++)
		select_name_set(&v[n_args + i],
				bt_xasprintf("%s%s" BTDDS_SERVICE_EVENT_SUFFIX,
					     svcs[i][0] == '/' ? "" : "/", svcs[i]));
	return v;
}

/* Type arguments as a bag names types: a mangled ROS 2 DDS type
 * ("pkg::msg::dds_::T_") becomes "pkg/msg/T"; any other name stays. */
static char **select_types_dup(const char *const *args, size_t n)
{
	if (n == 0)
		return NULL;
	char **v = bt_xcalloc(n, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i] = btdds_names_ros_type(args[i]);
		if (v[i] == NULL)
			v[i] = bt_xstrdup(args[i]);
	}
	return v;
}

static void select_types_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool select_type_in(char *const *v, size_t n, const char *type)
{
	for (size_t i = 0; type != NULL && i < n; i++)
		if (strcmp(v[i], type) == 0)
			return true;
	return false;
}

static void select_names_free(struct select_name *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].arg);
		free(v[i].dds);
	}
	free(v);
}

/* POSIX extended regular expressions, not ECMAScript (std::regex's
 * default): no \d (use [0-9]), no lazy quantifiers (*?), no lookaround, no
 * (?:...) groups, no backreferences; glibc does accept \w \s \b \< \>.
 * Leftmost-longest versus leftmost-first does not matter here: REG_NOSUB
 * only asks whether there is a match. */
static bt_status select_regex_compile(regex_t *re, const char *pattern, const char *opt,
				      struct bt_error *err)
{
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	if (rc == 0)
		return BT_OK;
	char why[256];
	(void)regerror(rc, re, why, sizeof why);
	regfree(re);
	return bt_err_set(err, BT_ERR_USAGE, "bad %s '%s': %s", opt, pattern, why);
}

bool btdds_select_names_nothing(const struct btdds_select_options *opt)
{
	return opt->n_topics == 0 && opt->n_services == 0 && (!opt->regex || !opt->regex[0]);
}

bt_status btdds_select_new(const struct btdds_select_options *opt, struct btdds_select **out,
			 struct bt_error *err)
{
	bool has_regex = opt->regex != NULL && opt->regex[0] != '\0';
	bool has_exclude_regex = opt->exclude_regex != NULL && opt->exclude_regex[0] != '\0';
	if (opt->n_topics == 0 && !opt->all && !has_regex && opt->n_types == 0 &&
	    opt->n_services == 0 && !opt->all_topics && !opt->all_services)
		return bt_err_set(err, BT_ERR_USAGE,
				  "no topics to record: give topic names, -a, -e or --topic-types");
	struct btdds_select *s = bt_xcalloc(1, sizeof *s);
	bt_status st = BT_OK;
	if (has_regex) {
		st = select_regex_compile(&s->regex, opt->regex, "--regex", err);
		if (st != BT_OK)
			goto err_regex;
		s->has_regex = true;
	}
	if (has_exclude_regex) {
		st = select_regex_compile(&s->exclude_regex, opt->exclude_regex,
					  "--exclude-regex", err);
		if (st != BT_OK)
			goto err_exclude;
		s->has_exclude_regex = true;
	}
	s->topics = select_names_dup(opt->topics, opt->n_topics, opt->services, opt->n_services,
				     &s->n_topics);
	s->excludes = select_names_dup(opt->exclude_topics, opt->n_exclude_topics,
				       opt->exclude_services, opt->n_exclude_services,
				       &s->n_excludes);
	s->types = select_types_dup(opt->types, opt->n_types);
	s->n_types = opt->n_types;
	s->exclude_types = select_types_dup(opt->exclude_types, opt->n_exclude_types);
	s->n_exclude_types = opt->n_exclude_types;
	s->all = opt->all;
	s->all_topics = opt->all_topics;
	s->all_services = opt->all_services;
	s->include_hidden = opt->include_hidden;
	s->include_services = opt->include_services;
	*out = s;
	return BT_OK;

err_exclude:
	if (s->has_regex)
		regfree(&s->regex);
err_regex:
	free(s);
	return st;
}

static bool select_is_plain_name(const char *arg)
{
	for (const char *p = arg; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '/' && *p != '~')
			return false;
	return true;
}

bt_status btdds_select_new_pattern(const char *arg, const char *opt, struct btdds_select **out,
				 struct bt_error *err)
{
	if (arg == NULL || arg[0] == '\0')
		return bt_err_set(err, BT_ERR_USAGE, "%s: no topic or regex given", opt);
	struct btdds_select *s = bt_xcalloc(1, sizeof *s);
	s->include_hidden = s->include_services = true;
	if (select_is_plain_name(arg)) {
		s->topics = select_names_dup(&arg, 1, NULL, 0, &s->n_topics);
	} else {
		bt_status st = select_regex_compile(&s->regex, arg, opt, err);
		if (st != BT_OK) {
			free(s);
			return st;
		}
		s->has_regex = true;
	}
	*out = s;
	return BT_OK;
}

void btdds_select_free(struct btdds_select *s)
{
	if (s == NULL)
		return;
	if (s->has_regex)
		regfree(&s->regex);
	if (s->has_exclude_regex)
		regfree(&s->exclude_regex);
	select_names_free(s->topics, s->n_topics);
	select_names_free(s->excludes, s->n_excludes);
	select_types_free(s->types, s->n_types);
	select_types_free(s->exclude_types, s->n_exclude_types);
	free(s);
}

static bool select_name_is(const struct select_name *n, const char *dds_name,
			   const char *ros_name)
{
	return (ros_name != NULL && strcmp(n->arg, ros_name) == 0) ||
	       strcmp(n->dds, dds_name) == 0;
}

static bool select_in_list(const struct select_name *v, size_t n, const char *dds_name,
			   const char *ros_name)
{
	for (size_t i = 0; i < n; i++)
		if (select_name_is(&v[i], dds_name, ros_name))
			return true;
	return false;
}

/* rclpy topic_or_service_is_hidden: any '/'-separated token starting '_'. */
static bool select_is_hidden(const char *ros_name)
{
	for (const char *p = ros_name; *p; p++)
		if (*p == '_' && (p == ros_name || p[-1] == '/'))
			return true;
	return false;
}

static bool select_is_rpc(const char *dds_name)
{
	return strncmp(dds_name, "rq/", 3) == 0 || strncmp(dds_name, "rr/", 3) == 0;
}

/* The service a service topic belongs to ("/svc"), malloc'ed; NULL for
 * other topics. "rq/svcRequest" and "rr/svcReply" as rmw_cyclonedds names
 * them; "/svc/_service_event" as rcl's service introspection. */
static char *select_service_name(const char *dds_name, const char *ros_name)
{
	if (ros_name != NULL) {
		if (!bt_str_ends_with(ros_name, BTDDS_SERVICE_EVENT_SUFFIX))
			return NULL;
		return bt_xstrndup(ros_name, strlen(ros_name) - strlen(BTDDS_SERVICE_EVENT_SUFFIX));
	}
	if (!select_is_rpc(dds_name))
		return NULL;
	const char *suffix = dds_name[1] == 'q' ? "Request" : "Reply";
	size_t n = strlen(dds_name + 3);
	if (bt_str_ends_with(dds_name + 3, suffix))
		n -= strlen(suffix);
	return bt_xasprintf("/%.*s", (int)n, dds_name + 3);
}

static bool select_regex_hit(const regex_t *re, const char *dds_name, const char *ros_name,
			     const char *service)
{
	return (ros_name != NULL && regexec(re, ros_name, 0, NULL, 0) == 0) ||
	       regexec(re, dds_name, 0, NULL, 0) == 0 ||
	       (service != NULL && regexec(re, service, 0, NULL, 0) == 0);
}

static bool select_included(const struct btdds_select *s, const char *dds_name,
			    const char *ros_name, const char *service, const char *type,
			    bool named)
{
	if (named)
		return true;
	/* DDS request/reply topics only when asked for (DESIGN §4). */
	if (select_is_rpc(dds_name) && !s->include_services)
		return false;
	bool event = ros_name != NULL && service != NULL; /* a service's introspection */
	return s->all || (event ? s->all_services : s->all_topics) ||
	       (s->has_regex && select_regex_hit(&s->regex, dds_name, ros_name, service)) ||
	       select_type_in(s->types, s->n_types, type);
}

static bool select_excluded(const struct btdds_select *s, const char *dds_name,
			    const char *ros_name, const char *service, const char *type)
{
	if (select_in_list(s->excludes, s->n_excludes, dds_name, ros_name) ||
	    select_type_in(s->exclude_types, s->n_exclude_types, type))
		return true;
	if (s->has_exclude_regex &&
	    select_regex_hit(&s->exclude_regex, dds_name, ros_name, service))
		return true;
	/* Hidden applies to ROS topics only, not to service events (as rosbag2). */
	return service == NULL && ros_name != NULL && !s->include_hidden &&
	       select_is_hidden(ros_name);
}

bool btdds_select_match_typed(const struct btdds_select *s, const char *dds_name,
			      const char *ros_name, const char *type)
{
	if (btdds_names_is_internal(dds_name))
		return false;
	bool named = select_in_list(s->topics, s->n_topics, dds_name, ros_name);
	char *service = select_service_name(dds_name, ros_name);
	bool take = select_included(s, dds_name, ros_name, service, type, named) &&
		    !select_excluded(s, dds_name, ros_name, service, type);
	free(service);
	return take;
}

bool btdds_select_match(const struct btdds_select *s, const char *dds_name, const char *ros_name)
{
	return btdds_select_match_typed(s, dds_name, ros_name, NULL);
}

size_t btdds_select_explicit_count(const struct btdds_select *s)
{
	return s->n_topics;
}

const char *btdds_select_explicit(const struct btdds_select *s, size_t i)
{
	return i < s->n_topics ? s->topics[i].arg : NULL;
}

bool btdds_select_explicit_matches(const struct btdds_select *s, size_t i, const char *dds_name,
				 const char *ros_name)
{
	return i < s->n_topics && select_name_is(&s->topics[i], dds_name, ros_name);
}
