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

#endif
