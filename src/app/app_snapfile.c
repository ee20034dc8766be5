/* app_snapfile — the recorder's snapshot state file; see the header. */
#include "app_snapfile.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_buf.h"
#include "bt_fs.h"
#include "rec_cmd.h"

#define SNAPFILE_MAGIC "bagtop-snapshot 1"

static const char *snapfile_dir(void)
{
	const char *d = getenv("XDG_RUNTIME_DIR");
	struct stat sb;
	return d != NULL && d[0] == '/' && stat(d, &sb) == 0 && S_ISDIR(sb.st_mode) ? d : "/tmp";
}

void app_snapfile_path(pid_t pid, const char *dir, char *out, size_t cap)
{
	snprintf(out, cap, "%s/bagtop-%ld.snapshot", dir ? dir : snapfile_dir(), (long)pid);
}

/* Newlines would end a field early. */
static void snapfile_line(char *s)
{
	for (; *s; s++)
		if (*s == '\n' || *s == '\r')
			*s = ' ';
}

/* Field 22 of /proc/PID/stat, after the command name in parentheses
 * (which may hold spaces and parentheses itself: search from the end). */
uint64_t app_snapfile_starttime(pid_t pid)
{
	char path[64], *text = NULL;
	size_t len;
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	if (bt_fs_read_all(path, 1 << 12, &text, &len, NULL) != BT_OK)
		return 0;
	uint64_t t = 0;
	const char *p = strrchr(text, ')');
	/* Fields 3..21 follow ") "; starttime is the 20th after the ')'. */
	for (int field = 2; p != NULL && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		t = strtoull(p + 1, NULL, 10);
	free(text);
	return t;
}

/* Writes *s to path atomically. */
static bt_status snapfile_write_to(const char *path, const struct app_snapstate *s,
				  struct bt_error *err)
{
	struct app_snapstate c = *s;
	snapfile_line(c.result);
	snapfile_line(c.file);
	snapfile_line(c.message);
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = bt_buf_printf(&b, SNAPFILE_MAGIC "\nseq %llu\nresult %s\nmessages %llu\n"
				     "file %s\nmessage %s\npause_seq %llu\npaused %d\n"
				     "starttime %llu\nrequests 1\nrequest %llu\nparams 1\n",
				     (unsigned long long)c.seq, c.result,
				     (unsigned long long)c.messages, c.file, c.message,
				     (unsigned long long)c.pause_seq, c.paused ? 1 : 0,
				     (unsigned long long)app_snapfile_starttime(getpid()),
				     (unsigned long long)c.request);
	if (st == BT_OK)
		st = bt_fs_write_atomic(path, b.data, b.len, err);
	else
		st = bt_err_set(err, st, "out of memory");
	bt_buf_fini(&b);
	return st;
}

bt_status app_snapfile_write(const struct app_snapstate *s, struct bt_error *err)
{
	char path[APP_SNAPFILE_PATH_MAX];
	app_snapfile_path(getpid(), NULL, path, sizeof path);
	return snapfile_write_to(path, s, err);
}

void app_snapfile_answer_path(pid_t rec, pid_t req, const char *dir, char *out, size_t cap)
{
	snprintf(out, cap, "%s/bagtop-%ld.snapshot-%ld", dir ? dir : snapfile_dir(), (long)rec,
		 (long)req);
}

bt_status app_snapfile_answer_write(pid_t req, const struct app_snapstate *s,
				    struct bt_error *err)
{
	char path[APP_SNAPFILE_PATH_MAX];
	app_snapfile_answer_path(getpid(), req, NULL, path, sizeof path);
	return snapfile_write_to(path, s, err);
}

void app_snapfile_remove(void)
{
	char path[APP_SNAPFILE_PATH_MAX];
	app_snapfile_path(getpid(), NULL, path, sizeof path);
	(void)unlink(path);
}

/* "key value" lines into *s. */
static bt_status snapfile_parse(char *text, struct app_snapstate *s)
{
	char *save = NULL;
	char *line = strtok_r(text, "\n", &save);
	if (line == NULL || strcmp(line, SNAPFILE_MAGIC) != 0)
		return BT_ERR_FORMAT;
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		char *val = strchr(line, ' ');
		if (val == NULL)
			continue;
		*val++ = '\0';
		if (strcmp(line, "seq") == 0) {
			s->seq = strtoull(val, NULL, 10);
		} else if (strcmp(line, "messages") == 0) {
			s->messages = strtoull(val, NULL, 10);
		} else if (strcmp(line, "result") == 0) {
			snprintf(s->result, sizeof s->result, "%s", val);
		} else if (strcmp(line, "file") == 0) {
			snprintf(s->file, sizeof s->file, "%s", val);
		} else if (strcmp(line, "message") == 0) {
			snprintf(s->message, sizeof s->message, "%s", val);
		} else if (strcmp(line, "pause_seq") == 0) {
			s->has_pause = true;
			s->pause_seq = strtoull(val, NULL, 10);
		} else if (strcmp(line, "paused") == 0) {
			s->paused = strcmp(val, "1") == 0;
		} else if (strcmp(line, "starttime") == 0) {
			s->starttime = strtoull(val, NULL, 10);
		} else if (strcmp(line, "requests") == 0) {
			s->requests = strcmp(val, "1") == 0;
		} else if (strcmp(line, "request") == 0) {
			s->request = strtoull(val, NULL, 10);
		} else if (strcmp(line, "params") == 0) {
			s->params = strcmp(val, "1") == 0;
		}
	}
	return s->result[0] != '\0' ? BT_OK : BT_ERR_FORMAT;
}

bt_status app_snapfile_read(pid_t pid, struct app_snapstate *s, struct bt_error *err)
{
	const char *dirs[2] = {getenv("XDG_RUNTIME_DIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		if (dirs[i] == NULL || dirs[i][0] != '/')
			continue;
		char path[APP_SNAPFILE_PATH_MAX];
		app_snapfile_path(pid, dirs[i], path, sizeof path);
		char *text = NULL;
		size_t len;
		bt_status st = bt_fs_read_all(path, 1 << 16, &text, &len, NULL);
		if (st != BT_OK)
			continue;
		memset(s, 0, sizeof *s);
		st = snapfile_parse(text, s);
		free(text);
		if (st != BT_OK)
			return bt_err_set(err, st, "%s: not a bagtop snapshot state file", path);
		uint64_t now = app_snapfile_starttime(pid);
		if (s->starttime != 0 && now != 0 && now != s->starttime)
			return bt_err_set(err, BT_ERR_NOTFOUND, "process %ld is not a running bagtop "
					  "record (%s is left from an earlier one)", (long)pid, path);
		return BT_OK;
	}
	return bt_err_set(err, BT_ERR_NOTFOUND, "process %ld is not a running bagtop record "
			  "(no bagtop state file)", (long)pid);
}

bt_status app_snapfile_answer_take(pid_t rec, uint64_t request, struct app_snapstate *s)
{
	const char *dirs[2] = {getenv("XDG_RUNTIME_DIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		if (dirs[i] == NULL || dirs[i][0] != '/')
			continue;
		char path[APP_SNAPFILE_PATH_MAX];
		app_snapfile_answer_path(rec, getpid(), dirs[i], path, sizeof path);
		char *text = NULL;
		size_t len;
		if (bt_fs_read_all(path, 1 << 16, &text, &len, NULL) != BT_OK)
			continue;
		memset(s, 0, sizeof *s);
		bt_status st = snapfile_parse(text, s);
		free(text);
		(void)unlink(path); /* ours to remove, whatever it says */
		if (st == BT_OK && s->request == request)
			return BT_OK;
	}
	return BT_ERR_NOTFOUND;
}

#define SNAPREQ_MAGIC "bagtop-snapreq 1"

static void snapreq_path(pid_t rec, pid_t req, const char *dir, char *out, size_t cap)
{
	snprintf(out, cap, "%s/bagtop-%ld.snapreq-%ld", dir ? dir : snapfile_dir(), (long)rec,
		 (long)req);
}

bt_status app_snapfile_request_write(pid_t rec, uint64_t request, const struct rec_cmd_snap *p,
				     struct bt_error *err)
{
	char path[APP_SNAPFILE_PATH_MAX];
	snapreq_path(rec, getpid(), NULL, path, sizeof path);
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = bt_buf_printf(&b, SNAPREQ_MAGIC "\nrequest %llu\nbefore %lld\nafter %lld\n"
				     "topics %s\nexclude %s\n", (unsigned long long)request,
				     (long long)p->before_ns, (long long)p->after_ns, p->topics,
				     p->exclude);
	if (st == BT_OK)
		st = bt_fs_write_atomic(path, b.data, b.len, err);
	else
		st = bt_err_set(err, st, "out of memory");
	bt_buf_fini(&b);
	return st;
}

void app_snapfile_request_remove(pid_t rec)
{
	char path[APP_SNAPFILE_PATH_MAX];
	snapreq_path(rec, getpid(), NULL, path, sizeof path);
	(void)unlink(path);
}

/* A request file's text into *p; false when it is not request `request`. */
static bool snapreq_parse(char *text, uint64_t request, struct rec_cmd_snap *p)
{
	char *save = NULL;
	char *line = strtok_r(text, "\n", &save);
	bool ours = false;
	if (line == NULL || strcmp(line, SNAPREQ_MAGIC) != 0)
		return false;
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		char *val = strchr(line, ' ');
		if (val == NULL)
			continue;
		*val++ = '\0';
		if (strcmp(line, "request") == 0)
			ours = strtoull(val, NULL, 10) == request;
		else if (strcmp(line, "before") == 0)
			p->before_ns = strtoll(val, NULL, 10);
		else if (strcmp(line, "after") == 0)
			p->after_ns = strtoll(val, NULL, 10);
		else if (strcmp(line, "topics") == 0)
			snprintf(p->topics, sizeof p->topics, "%s", val);
		else if (strcmp(line, "exclude") == 0)
			snprintf(p->exclude, sizeof p->exclude, "%s", val);
	}
	return ours;
}

bt_status app_snapfile_request_take(pid_t req, uint64_t request, struct rec_cmd_snap *p)
{
	static const struct rec_cmd_snap none = {.before_ns = -1, .after_ns = -1};
	const char *dirs[2] = {getenv("XDG_RUNTIME_DIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		if (dirs[i] == NULL || dirs[i][0] != '/')
			continue;
		char path[APP_SNAPFILE_PATH_MAX];
		snapreq_path(getpid(), req, dirs[i], path, sizeof path);
		char *text = NULL;
		size_t len;
		if (bt_fs_read_all(path, 1 << 14, &text, &len, NULL) != BT_OK)
			continue;
		*p = none;
		bool ours = snapreq_parse(text, request, p);
		free(text);
		if (ours) {
			(void)unlink(path);
			return BT_OK;
		}
	}
	*p = none;
	return BT_ERR_NOTFOUND;
}
