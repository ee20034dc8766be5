/* app_keys — Space pauses and resumes a headless recording; see the header.
 *
 * SIGTTIN and SIGTTOU are blocked on the key thread: when the job is put in
 * the background (Ctrl-Z, bg) a read then fails with EIO instead of
 * stopping the whole recorder, and restoring the terminal from the
 * background still works. In the background the thread does not read. */
#include "app_keys.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "rec_cmd.h"
#include "bt_log.h"

#define KEYS_POLL_MS 100 /* how soon a stop request is seen */

static bool keys_foreground(void)
{
	pid_t fg = tcgetpgrp(STDIN_FILENO);
	return fg >= 0 && fg == getpgrp();
}

/* Non-canonical, no echo; again after someone reset it (Ctrl-Z + fg). */
static void keys_apply(struct app_keys *k)
{
	struct termios t;
	if (!keys_foreground() || tcgetattr(STDIN_FILENO, &t) != 0)
		return;
	if ((t.c_lflag & (ICANON | ECHO)) == 0)
		return; /* ours already */
	if (!k->have_saved) {
		k->saved = t;
		k->have_saved = true;
	}
	t.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
	t.c_cc[VMIN] = 1;
	t.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &t) == 0)
		k->changed = true;
}

static void keys_restore(struct app_keys *k)
{
	if (k->changed)
		(void)tcsetattr(STDIN_FILENO, TCSANOW, &k->saved); /* nothing else to do if refused */
}

/* Space: the opposite of the recorder's state when the command runs. */
static void keys_toggle(struct app_keys *k)
{
	struct bt_cmd c = rec_cmd_make(REC_CMD_PAUSE_TOGGLE, BT_CMD_FROM_KEY, 0, "Space");
	if (bt_cmdq_submit(k->cmdq, &c, NULL, NULL, NULL) != BT_OK)
		return; /* too many waiting: counted, and said by the command thread */
}

/* Reads what was typed; false at end of input (the terminal went away). */
static bool keys_read(struct app_keys *k)
{
	char buf[64];
	ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == ' ')
			keys_toggle(k);
	return n > 0;
}

static void *keys_main(void *arg)
{
	struct app_keys *k = arg;
	pthread_setname_np(pthread_self(), "app-keys");
	sigset_t tty;
	sigemptyset(&tty);
	sigaddset(&tty, SIGTTIN);
	sigaddset(&tty, SIGTTOU);
	pthread_sigmask(SIG_BLOCK, &tty, NULL);
	keys_apply(k);
	while (!atomic_load(&k->quit)) {
		struct pollfd pfd = {.fd = STDIN_FILENO, .events = POLLIN};
		bool fg = keys_foreground();
		int n = poll(fg ? &pfd : NULL, fg ? 1 : 0, KEYS_POLL_MS);
		if (n > 0 && !keys_read(k))
			break; /* no more input: nothing to wait for */
		if (n < 0 && errno != EINTR) {
			bt_log_warn("keyboard controls off: %s", strerror(errno));
			break; /* would fail again at once */
		}
		keys_apply(k);
	}
	keys_restore(k);
	return NULL;
}

bool app_keys_start(struct app_keys *k, struct bt_cmdq *cmdq)
{
	memset(k, 0, sizeof *k);
	k->cmdq = cmdq;
	atomic_init(&k->quit, false);
	if (!isatty(STDIN_FILENO) || !keys_foreground())
		return false;
	k->started = pthread_create(&k->thread, NULL, keys_main, k) == 0;
	return k->started;
}

void app_keys_stop(struct app_keys *k)
{
	if (!k->started)
		return;
	atomic_store(&k->quit, true);
	pthread_join(k->thread, NULL);
	k->started = false;
}
