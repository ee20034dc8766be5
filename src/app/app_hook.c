/* app_hook — the --on-file-closed runner (app_hook.h). One thread owns the
 * running commands: it starts them (posix_spawn, no fork), reads their
 * stderr, reaps them and reports; the queue between the writer thread and
 * it is a ring under a mutex held only to copy pointers, and a pipe wakes
 * it. */
#include "app_hook.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bt_fs.h"
#include "bt_log.h"
#include "bt_mem.h"
#include "bt_sync.h"
#include "bt_time.h"

extern char **environ;

#define HOOK_STDERR_MAX 2048          /* of each command's stderr, said in the log */
#define HOOK_POLL_MS 100              /* reaping period when nothing wakes the thread */

struct hook_job {
	char *path;   /* absolute */
	char *reason; /* static string: split, snapshot, close */
	uint64_t messages, bytes;
};

struct hook_run {
	struct hook_job job;
	pid_t pid;
	int fd; /* its stderr, -1 once at EOF */
	int64_t t0;
	struct bt_buf err;
	bool err_cut;
};

struct app_hook {
	char *cmd;
	unsigned jobs;
	pthread_t thread;
	int wake[2];
	pthread_mutex_t mu;
	pthread_cond_t cv;  /* `done` became true */
	/* Under mu. */
	struct hook_job *queue; /* ring of APP_HOOK_QUEUE_MAX */
	size_t q_head, q_len;
	size_t n_running;   /* mirror of n_run, for app_hook_pending */
	bool stopping;      /* no more files: end once idle */
	bool kill;          /* the wait is over: kill and drop the rest */
	bool done;          /* the thread ended */
	bool finished;      /* app_hook_finish was called */
	struct bt_buf left; /* the summary's lines */
	/* The thread's own. */
	struct hook_run run[APP_HOOK_JOBS_MAX];
	size_t n_run;
};

static void hook_wake(struct app_hook *h)
{
	char c = 1;
	/* Full pipe: the thread is woken already. */
	if (write(h->wake[1], &c, 1) < 0 && errno != EAGAIN)
		bt_log_warn("--on-file-closed: cannot wake the runner: %s", strerror(errno));
}

static void hook_job_free(struct hook_job *j)
{
	free(j->path);
	j->path = NULL;
}

/* ---- queueing (any thread) ---- */

void app_hook_file_closed(struct app_hook *h, const char *path, const char *reason,
			  uint64_t messages, bool ok)
{
	if (!ok) {
		bt_log_warn("--on-file-closed: not run for %s: its close failed (it may be "
			    "incomplete)", path);
		return;
	}
	char *abs = realpath(path, NULL);
	struct hook_job j = {abs ? abs : bt_xstrdup(path), (char *)reason, messages, 0};
	struct bt_error e;
	if (bt_fs_file_size(j.path, &j.bytes, &e) != BT_OK)
		j.bytes = 0;
	pthread_mutex_lock(&h->mu);
	bool room = !h->stopping && h->q_len < APP_HOOK_QUEUE_MAX;
	if (room)
		h->queue[(h->q_head + h->q_len++) % APP_HOOK_QUEUE_MAX] = j;
	pthread_mutex_unlock(&h->mu);
	if (room) {
		hook_wake(h);
		return;
	}
	bt_log_warn("--on-file-closed: %d commands already waiting: none for %s",
		    APP_HOOK_QUEUE_MAX, j.path);
	hook_job_free(&j);
}

/* ---- spawning (the thread) ---- */

static bool hook_is_ours(const char *kv)
{
	static const char *const ours[] = {"BAGTOP_FILE=", "BAGTOP_BAG=", "BAGTOP_REASON=",
					   "BAGTOP_MESSAGES=", "BAGTOP_BYTES="};
	for (size_t i = 0; i < sizeof ours / sizeof *ours; i++)
		if (strncmp(kv, ours[i], strlen(ours[i])) == 0)
			return true;
	return false;
}

/* environ without any BAGTOP_* of ours, then ours; free with hook_env_free. */
static char **hook_env(const struct hook_job *j, size_t *n_ours)
{
	size_t n = 0;
	while (environ[n] != NULL)
		n++;
	char **env = bt_xcalloc(n + 6, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!hook_is_ours(environ[i]))
			env[k++] = environ[i];
	char *bag = bt_fs_dirname(j->path);
	*n_ours = k;
	env[k++] = bt_xasprintf("BAGTOP_FILE=%s", j->path);
	env[k++] = bt_xasprintf("BAGTOP_BAG=%s", bag);
	env[k++] = bt_xasprintf("BAGTOP_REASON=%s", j->reason);
	env[k++] = bt_xasprintf("BAGTOP_MESSAGES=%llu", (unsigned long long)j->messages);
	env[k++] = bt_xasprintf("BAGTOP_BYTES=%llu", (unsigned long long)j->bytes);
	free(bag);
	return env;
}

static void hook_env_free(char **env, size_t first_ours)
{
	for (size_t i = first_ours; env[i] != NULL; i++)
		free(env[i]);
	free(env);
}

/* The child: stdin and stdout /dev/null, stderr the pipe, no other
 * descriptor, default signals unmasked, a process group of its own (so
 * that a kill reaches what it started, and Ctrl-C on the terminal only
 * reaches bagtop). */
static int hook_spawn(struct app_hook *h, const struct hook_job *j, int err_fd, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, dflt;
	sigemptyset(&none);
	sigemptyset(&dflt);
	int sigs[] = {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGCHLD};
	for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
		sigaddset(&dflt, sigs[i]);
	int rc = posix_spawn_file_actions_init(&fa);
	if (rc != 0)
		return rc;
	if ((rc = posix_spawnattr_init(&at)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		return rc;
	}
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	if (rc == 0)
		rc = posix_spawn_file_actions_addclosefrom_np(&fa, 3);
	if (rc == 0)
		rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
						      POSIX_SPAWN_SETSIGDEF);
	if (rc == 0)
		rc = posix_spawnattr_setpgroup(&at, 0);
	if (rc == 0)
		rc = posix_spawnattr_setsigmask(&at, &none);
	if (rc == 0)
		rc = posix_spawnattr_setsigdefault(&at, &dflt);
	size_t first_ours;
	char **env = hook_env(j, &first_ours);
	char *argv[] = {"sh", "-c", h->cmd, NULL};
	if (rc == 0)
		rc = posix_spawn(pid, "/bin/sh", &fa, &at, argv, env);
	hook_env_free(env, first_ours);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

static void hook_start_one(struct app_hook *h, struct hook_job *j)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) != 0) {
		bt_log_warn("--on-file-closed: not run for %s: cannot make a pipe: %s", j->path,
			    strerror(errno));
		hook_job_free(j);
		return;
	}
	pid_t pid;
	int rc = hook_spawn(h, j, p[1], &pid);
	close(p[1]);
	if (rc != 0) {
		bt_log_warn("--on-file-closed: not run for %s: cannot start /bin/sh: %s", j->path,
			    strerror(rc));
		close(p[0]);
		hook_job_free(j);
		return;
	}
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK); /* a failure only makes reads block briefly */
	struct hook_run *r = &h->run[h->n_run++];
	*r = (struct hook_run){.job = *j, .pid = pid, .fd = p[0], .t0 = bt_time_monotonic_ns()};
}

/* ---- reading and reaping (the thread) ---- */

/* Reads what the command wrote to stderr so far; at EOF closes the pipe. */
static void hook_read(struct hook_run *r)
{
	char b[4096];
	while (r->fd >= 0) {
		ssize_t n = read(r->fd, b, sizeof b);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return; /* EAGAIN: nothing more now (other errors: as EOF at exit) */
		if (n == 0) {
			close(r->fd);
			r->fd = -1;
			return;
		}
		size_t room = HOOK_STDERR_MAX > r->err.len ? HOOK_STDERR_MAX - r->err.len : 0;
		size_t take = (size_t)n < room ? (size_t)n : room;
		if (take < (size_t)n)
			r->err_cut = true;
		if (take != 0 && bt_buf_append(&r->err, b, take) != BT_OK)
			r->err_cut = true;
	}
}

/* One log line: the file, how the command ended, and its stderr on one
 * line (newlines as " | "). */
static void hook_report(struct hook_run *r, int status)
{
	char how[64];
	bool bad = true;
	if (WIFEXITED(status)) {
		bad = WEXITSTATUS(status) != 0;
		snprintf(how, sizeof how, "exit status %d", WEXITSTATUS(status));
	} else if (WIFSIGNALED(status)) {
		snprintf(how, sizeof how, "killed by signal %d (%s)", WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
	} else {
		snprintf(how, sizeof how, "wait status %d", status);
	}
	struct bt_buf t = {0};
	for (size_t i = 0; i < r->err.len; i++) {
		char c = ((const char *)r->err.data)[i];
		bt_status st = c == '\n' ? (i + 1 < r->err.len ? bt_buf_puts(&t, " | ") : BT_OK)
					 : bt_buf_append(&t, &c, 1);
		if (st != BT_OK)
			break;
	}
	double secs = (double)(bt_time_monotonic_ns() - r->t0) / 1e9;
	bt_log(bad ? BT_LOG_WARN : BT_LOG_INFO, "--on-file-closed for %s (%s): %s after %.1f s%s%s%s",
	       r->job.path, r->job.reason, how, secs, t.len ? "; stderr: " : "",
	       t.len ? (const char *)t.data : "", r->err_cut ? " [cut]" : "");
	bt_buf_fini(&t);
}

static void hook_run_free(struct hook_run *r)
{
	if (r->fd >= 0)
		close(r->fd);
	bt_buf_fini(&r->err);
	hook_job_free(&r->job);
}

static void hook_reap(struct app_hook *h)
{
	for (size_t i = 0; i < h->n_run;) {
		struct hook_run *r = &h->run[i];
		hook_read(r);
		int status;
		pid_t p = waitpid(r->pid, &status, WNOHANG);
		if (p == 0 || (p < 0 && errno == EINTR)) {
			i++;
			continue;
		}
		if (p < 0)
			status = 0x7f00; /* reaped elsewhere: said as a wait status */
		hook_read(r);
		hook_report(r, status);
		hook_run_free(r);
		h->run[i] = h->run[--h->n_run];
	}
}

/* A line for the summary (under mu); out of memory: the log line alone. */
static void hook_left(struct app_hook *h, const char *what, const struct hook_job *j)
{
	if (bt_buf_printf(&h->left, "  --on-file-closed %s: for %s (%s)\n", what, j->path,
			  j->reason) != BT_OK)
		bt_log_warn("--on-file-closed %s: for %s (%s)", what, j->path, j->reason);
}

/* Kills what still runs and drops what waits, each named in `left`. */
static void hook_kill_all(struct app_hook *h)
{
	for (size_t i = 0; i < h->n_run; i++) {
		struct hook_run *r = &h->run[i];
		(void)kill(-r->pid, SIGKILL);
		while (waitpid(r->pid, NULL, 0) < 0 && errno == EINTR)
			;
		hook_read(r);
		pthread_mutex_lock(&h->mu);
		hook_left(h, "still running, killed", &r->job);
		pthread_mutex_unlock(&h->mu);
		bt_log_warn("--on-file-closed for %s (%s): still running at exit, killed", r->job.path,
			    r->job.reason);
		hook_run_free(r);
	}
	h->n_run = 0;
	pthread_mutex_lock(&h->mu);
	for (; h->q_len != 0; h->q_len--, h->q_head = (h->q_head + 1) % APP_HOOK_QUEUE_MAX) {
		struct hook_job *j = &h->queue[h->q_head];
		hook_left(h, "not run (recording ended)", j);
		hook_job_free(j);
	}
	pthread_mutex_unlock(&h->mu);
}

static void hook_wait(struct app_hook *h)
{
	struct pollfd p[APP_HOOK_JOBS_MAX + 1];
	nfds_t n = 0;
	p[n++] = (struct pollfd){.fd = h->wake[0], .events = POLLIN};
	for (size_t i = 0; i < h->n_run; i++)
		if (h->run[i].fd >= 0)
			p[n++] = (struct pollfd){.fd = h->run[i].fd, .events = POLLIN};
	if (poll(p, n, HOOK_POLL_MS) > 0 && (p[0].revents & POLLIN)) {
		char b[64];
		while (read(h->wake[0], b, sizeof b) > 0)
			;
	}
}

static void *hook_main(void *arg)
{
	struct app_hook *h = arg;
	pthread_setname_np(pthread_self(), "app-hook");
	for (;;) {
		pthread_mutex_lock(&h->mu);
		bool kill_now = h->kill;
		while (!kill_now && h->n_run < h->jobs && h->q_len != 0) {
			struct hook_job j = h->queue[h->q_head];
			h->q_head = (h->q_head + 1) % APP_HOOK_QUEUE_MAX;
			h->q_len--;
			pthread_mutex_unlock(&h->mu);
			hook_start_one(h, &j);
			pthread_mutex_lock(&h->mu);
		}
		h->n_running = h->n_run;
		pthread_mutex_unlock(&h->mu);
		if (kill_now)
			hook_kill_all(h);
		pthread_mutex_lock(&h->mu);
		h->n_running = h->n_run;
		bool end = h->stopping && h->q_len == 0 && h->n_run == 0;
		if (end) {
			h->done = true;
			pthread_cond_broadcast(&h->cv);
		}
		pthread_mutex_unlock(&h->mu);
		if (end)
			return NULL;
		hook_wait(h);
		hook_reap(h);
	}
}

/* ---- the owner ---- */

bt_status app_hook_start(const struct app_hook_options *opt, struct app_hook **out,
			 struct bt_error *err)
{
	struct app_hook *h = bt_xcalloc(1, sizeof *h);
	h->cmd = bt_xstrdup(opt->cmd);
	h->jobs = opt->jobs;
	h->queue = bt_xcalloc(APP_HOOK_QUEUE_MAX, sizeof *h->queue);
	int rc = pipe2(h->wake, O_CLOEXEC | O_NONBLOCK);
	if (rc != 0) {
		bt_err_errno(err, errno, "--on-file-closed: cannot make a pipe");
		free(h->queue);
		free(h->cmd);
		free(h);
		return BT_ERR_STATE;
	}
	if (pthread_mutex_init(&h->mu, NULL) != 0)
		abort(); /* set-up: cannot fail on Linux */
	bt_sync_cond_init(&h->cv);
	rc = pthread_create(&h->thread, NULL, hook_main, h);
	if (rc != 0) {
		h->done = h->finished = true; /* nothing to join */
		app_hook_free(h);
		return bt_err_set(err, BT_ERR_STATE, "--on-file-closed: cannot start a thread: %s",
				  strerror(rc));
	}
	*out = h;
	return BT_OK;
}

size_t app_hook_pending(struct app_hook *h)
{
	pthread_mutex_lock(&h->mu);
	size_t n = h->q_len + h->n_running;
	pthread_mutex_unlock(&h->mu);
	return n;
}

void app_hook_finish(struct app_hook *h, int64_t timeout_ns, struct bt_buf *out)
{
	pthread_mutex_lock(&h->mu);
	if (h->finished) {
		pthread_mutex_unlock(&h->mu);
		return;
	}
	h->finished = h->stopping = true;
	hook_wake(h);
	struct timespec until = bt_sync_deadline(timeout_ns);
	/* Any error ends the wait as a timeout does (EINVAL would come back at
	 * once, every time: a spin with mu held). */
	while (!h->done && pthread_cond_timedwait(&h->cv, &h->mu, &until) == 0)
		;
	if (!h->done) {
		h->kill = true;
		hook_wake(h);
		while (!h->done)
			pthread_cond_wait(&h->cv, &h->mu);
	}
	/* Out of memory: the log has said each of them already. */
	if (out != NULL && h->left.len != 0 && bt_buf_append(out, h->left.data, h->left.len))
		bt_buf_reset(out);
	pthread_mutex_unlock(&h->mu);
	pthread_join(h->thread, NULL);
}

void app_hook_free(struct app_hook *h)
{
	if (h == NULL)
		return;
	app_hook_finish(h, 0, NULL);
	close(h->wake[0]);
	close(h->wake[1]);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	bt_buf_fini(&h->left);
	free(h->queue);
	free(h->cmd);
	free(h);
}
