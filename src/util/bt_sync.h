/* bt_sync — the shapes every threaded module repeats around a mutex and a
 * condition variable on CLOCK_MONOTONIC (so that a wait is not cut short or
 * stretched when the wall clock is set). */
#ifndef BT_SYNC_H
#define BT_SYNC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

/* Initialises *cv to wait on CLOCK_MONOTONIC. Aborts on failure: set-up
 * code, and it cannot fail on Linux. */
void bt_sync_cond_init(pthread_cond_t *cv);
/* CLOCK_MONOTONIC now + timeout_ns (negative: now; saturates instead of
 * overflowing), the absolute time pthread_cond_timedwait wants for a
 * condition made by bt_sync_cond_init. */
struct timespec bt_sync_deadline(int64_t timeout_ns);
/* One wait on cv (mu held; cv made by bt_sync_cond_init) until the
 * monotonic deadline_ns: true when woken before it, false when it passed
 * or the wait failed. A failure is logged, naming `who`: it would come
 * back at once every time, and a loop on it would spin with mu held. */
bool bt_sync_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, int64_t deadline_ns,
			const char *who);
/* Sets *flag under mu and wakes every thread waiting on cv: a stop,
 * wake-up or close request. */
void bt_sync_raise(pthread_mutex_t *mu, pthread_cond_t *cv, bool *flag);

/* A periodic worker thread: it calls tick(arg, true) one period after the
 * start of its previous due tick (the first a period after it starts; a
 * late tick is not caught up, so two are never less than a period apart)
 * and tick(arg, false) when woken early by bt_sync_ticker_wake, until
 * stopped. tick runs on the thread, no lock held.
 *
 * Lock: `mu` guards only `stop` and `woken`; the owner's state is under
 * its own lock, never taken around a ticker call. Fields are private. */
struct bt_sync_ticker {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stop, woken;
	bool started, joined;
	pthread_t thread;
	int64_t period_ns;
	void (*tick)(void *arg, bool due);
	void *arg;
	char name[16]; /* the thread's name, and the logs' */
};

/* Makes a stopped ticker (no thread yet); name is copied (at most 15
 * characters kept, the limit of a thread name). Aborts on failure: set-up
 * code. */
void bt_sync_ticker_init(struct bt_sync_ticker *t, const char *name, int64_t period_ns,
			 void (*tick)(void *arg, bool due), void *arg);
/* Starts the thread (once): 0, or pthread_create's error number. */
int bt_sync_ticker_start(struct bt_sync_ticker *t);
/* Wakes the thread for an early tick(arg, false); any thread, t->mu not
 * held. A wake-up before the thread runs is kept for its first wait. */
void bt_sync_ticker_wake(struct bt_sync_ticker *t);
/* Stops and joins the thread (not from it): true when this call joined
 * it, false when it never started or was already joined. */
bool bt_sync_ticker_stop(struct bt_sync_ticker *t);
/* Stops the thread if it runs, then releases what init made. */
void bt_sync_ticker_fini(struct bt_sync_ticker *t);

#define BT_SYNC_NICE_KEEP INT32_MIN /* bt_sync_nice: leave the thread's as it is */
#define BT_SYNC_NICE_MIN (-20)
#define BT_SYNC_NICE_MAX 19

/* Gives the calling thread (on Linux a thread has a nice value of its own)
 * nice value `nice` (BT_SYNC_NICE_MIN..MAX; BT_SYNC_NICE_KEEP: nothing),
 * as rosbag2's --compression-threads-priority does; a failure (a value
 * below the current one without CAP_SYS_NICE) is logged, naming `who`, and
 * the thread goes on as it is. */
void bt_sync_nice(int32_t nice, const char *who);

#endif
