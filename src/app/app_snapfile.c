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

/* Writes b (st: how printing it went) to path atomically; frees b. */
static bt_status snapfile_store(const char *path, bt_status st, struct bt_buf *b,
				struct bt_error *err)
{
	if (st == BT_OK)
		st = bt_fs_write_atomic(path, b->data, b->len, err);
	else
		st = bt_err_set(err, st, "out of memory");
	bt_buf_fini(b);
	return st;
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
				     "starttime %llu\nrequests 1\nrequest %llu\nparams 1\nnames 1\n",
				     (unsigned long long)c.seq, c.result,
				     (unsigned long long)c.messages, c.file, c.message,
				     (unsigned long long)c.pause_seq, c.paused ? 1 : 0,
				     (unsigned long long)app_snapfile_starttime(getpid()),
				     (unsigned long long)c.request);
	return snapfile_store(path, st, &b, err);
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

/* Calls kv for each "key value" line of text after its first line, which
 * must be `magic`; false when it is not. */
static bool snapfile_lines(char *text, const char *magic,
			   void (*kv)(void *ctx, const char *key, const char *val), void *ctx)
{
	char *save = NULL;
	char *line = strtok_r(text, "\n", &save);
	if (line == NULL || strcmp(line, magic) != 0)
		return false;
	while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
		char *val = strchr(line, ' ');
		if (val == NULL)
			continue;
		*val++ = '\0';
		kv(ctx, line, val);
	}
	return true;
}

static void snapfile_kv(void *ctx, const char *key, const char *val)
{
	struct app_snapstate *s = ctx;
	if (strcmp(key, "pause_seq") == 0) { /* a recorder that knows pause */
		s->has_pause = true;
		s->pause_seq = strtoull(val, NULL, 10);
	} else if (strcmp(key, "seq") == 0)
		s->seq = strtoull(val, NULL, 10);
	else if (strcmp(key, "messages") == 0)
		s->messages = strtoull(val, NULL, 10);
	else if (strcmp(key, "result") == 0)
		snprintf(s->result, sizeof s->result, "%s", val);
	else if (strcmp(key, "file") == 0)
		snprintf(s->file, sizeof s->file, "%s", val);
	else if (strcmp(key, "message") == 0)
		snprintf(s->message, sizeof s->message, "%s", val);
	else if (strcmp(key, "paused") == 0)
		s->paused = strcmp(val, "1") == 0;
	else if (strcmp(key, "starttime") == 0)
		s->starttime = strtoull(val, NULL, 10);
	else if (strcmp(key, "requests") == 0)
		s->requests = strcmp(val, "1") == 0;
	else if (strcmp(key, "request") == 0)
		s->request = strtoull(val, NULL, 10);
	else if (strcmp(key, "params") == 0)
		s->params = strcmp(val, "1") == 0;
	else if (strcmp(key, "names") == 0)
		s->names = strcmp(val, "1") == 0;
}

/* A state or answer file's text into *s. */
static bt_status snapfile_parse(char *text, struct app_snapstate *s)
{
	if (!snapfile_lines(text, SNAPFILE_MAGIC, snapfile_kv, s))
		return BT_ERR_FORMAT;
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

typedef void (*snapfile_path_fn)(pid_t rec, pid_t req, const char *dir, char *out, size_t cap);
/* Parses a file's text into ctx: true when it is the one wanted. */
typedef bool (*snapfile_take_fn)(void *ctx, char *text);

/* Reads the file path_fn names in $XDG_RUNTIME_DIR, then /tmp, until
 * `take` says it is the one wanted, and removes that one (and, when
 * `remove_other`, one it is not: the reader's to remove whatever it says). */
static bool snapfile_take(pid_t rec, pid_t req, snapfile_path_fn path_fn, snapfile_take_fn take,
			  void *ctx, bool remove_other)
{
	const char *dirs[2] = {getenv("XDG_RUNTIME_DIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		if (dirs[i] == NULL || dirs[i][0] != '/')
			continue;
		char path[APP_SNAPFILE_PATH_MAX];
		path_fn(rec, req, dirs[i], path, sizeof path);
		char *text = NULL;
		size_t len;
		if (bt_fs_read_all(path, 1 << 16, &text, &len, NULL) != BT_OK)
			continue;
		bool ours = take(ctx, text);
		free(text);
		if (ours || remove_other)
			(void)unlink(path);
		if (ours)
			return true;
	}
	return false;
}

struct answer_ctx {
	struct app_snapstate *s;
	uint64_t request;
};

static bool answer_take(void *ctx, char *text)
{
	struct answer_ctx *a = ctx;
	memset(a->s, 0, sizeof *a->s);
	return snapfile_parse(text, a->s) == BT_OK && a->s->request == a->request;
}

bt_status app_snapfile_answer_take(pid_t rec, uint64_t request, struct app_snapstate *s)
{
	struct answer_ctx a = {s, request};
	return snapfile_take(rec, getpid(), app_snapfile_answer_path, answer_take, &a, true)
		       ? BT_OK
		       : BT_ERR_NOTFOUND;
}

#define SNAPREQ_MAGIC "bagtop-snapreq 1"

static void snapreq_path(pid_t rec, pid_t req, const char *dir, char *out, size_t cap)
{
	snprintf(out, cap, "%s/bagtop-%ld.snapreq-%ld", dir ? dir : snapfile_dir(), (long)rec,
		 (long)req);
}

/* The directory of recorder rec's state file ($XDG_RUNTIME_DIR or /tmp,
 * as app_snapfile_read looks): the recorder looks for requests there,
 * whatever this process's $XDG_RUNTIME_DIR. */
static const char *snapreq_dir(pid_t rec)
{
	const char *dirs[2] = {getenv("XDG_RUNTIME_DIR"), "/tmp"};
	for (size_t i = 0; i < 2; i++) {
		char path[APP_SNAPFILE_PATH_MAX];
		if (dirs[i] == NULL || dirs[i][0] != '/')
			continue;
		app_snapfile_path(rec, dirs[i], path, sizeof path);
		if (access(path, F_OK) == 0)
			return dirs[i];
	}
	return NULL;
}

bt_status app_snapfile_request_write(pid_t rec, uint64_t request, const struct rec_cmd_snap *p,
				     struct bt_error *err)
{
	char path[APP_SNAPFILE_PATH_MAX];
	snapreq_path(rec, getpid(), snapreq_dir(rec), path, sizeof path);
	struct bt_buf b = BT_BUF_INIT;
	bt_status st = bt_buf_printf(&b, SNAPREQ_MAGIC "\nrequest %llu\nbefore %lld\nafter %lld\n"
				     "topics %s\nexclude %s\nname %s\n", (unsigned long long)request,
				     (long long)p->before_ns, (long long)p->after_ns, p->topics,
				     p->exclude, p->name);
	return snapfile_store(path, st, &b, err);
}

void app_snapfile_request_remove(pid_t rec)
{
	char path[APP_SNAPFILE_PATH_MAX];
	snapreq_path(rec, getpid(), snapreq_dir(rec), path, sizeof path);
	(void)unlink(path);
}

struct snapreq_ctx {
	struct rec_cmd_snap *p;
	uint64_t request;
	bool ours;
};

static void snapreq_kv(void *ctx, const char *key, const char *val)
{
	struct snapreq_ctx *r = ctx;
	if (strcmp(key, "request") == 0)
		r->ours = strtoull(val, NULL, 10) == r->request;
	else if (strcmp(key, "before") == 0)
		r->p->before_ns = strtoll(val, NULL, 10);
	else if (strcmp(key, "after") == 0)
		r->p->after_ns = strtoll(val, NULL, 10);
	else if (strcmp(key, "topics") == 0)
		snprintf(r->p->topics, sizeof r->p->topics, "%s", val);
	else if (strcmp(key, "exclude") == 0)
		snprintf(r->p->exclude, sizeof r->p->exclude, "%s", val);
	else if (strcmp(key, "name") == 0 && rec_cmd_snap_name_valid(val)) /* else: as usual */
		snprintf(r->p->name, sizeof r->p->name, "%s", val);
}

static const struct rec_cmd_snap snapreq_none = {.before_ns = -1, .after_ns = -1};

/* A request file's text: true when it is request r->request. */
static bool snapreq_take(void *ctx, char *text)
{
	struct snapreq_ctx *r = ctx;
	*r->p = snapreq_none;
	r->ours = false;
	return snapfile_lines(text, SNAPREQ_MAGIC, snapreq_kv, r) && r->ours;
}

bt_status app_snapfile_request_take(pid_t req, uint64_t request, struct rec_cmd_snap *p)
{
	struct snapreq_ctx r = {p, request, false};
	if (snapfile_take(getpid(), req, snapreq_path, snapreq_take, &r, false))
		return BT_OK;
	*p = snapreq_none;
	return BT_ERR_NOTFOUND;
}
