/* sleep_jitter — how punctual this machine is right now: a loop that does
 * nothing but sleep to absolute deadlines (clock_nanosleep TIMER_ABSTIME on
 * CLOCK_MONOTONIC) at HZ for SECONDS, as a player's publishing thread does
 * with no work between wake-ups. Prints how late each wake-up was, in the
 * units of `bagtop play`'s "Lateness:" line:
 *   sleep_jitter: 1000 Hz, 3000 wake-ups, late p50 52 us, p99 81 us, max 130 us
 * The deadlines are start + i / HZ: a late wake-up does not push the next.
 * The ceiling of bench/play_bench.sh's timing part, and what
 * test_play_roundtrip allows beyond its 5 ms for the machine's own delays. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>


static int64_t ns_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Sleeps to each deadline; late[i] is how far past it the loop woke. */
static int sleep_loop(double hz, size_t n, int64_t *late)
{
	int64_t t0 = ns_now() + 1000000;
	for (size_t i = 0; i < n; i++) {
		int64_t due = t0 + (int64_t)((double)i * 1e9 / hz);
		struct timespec ts = {.tv_sec = due / 1000000000, .tv_nsec = due % 1000000000};
		int rc;
		while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
			;
		if (rc != 0) {
			fprintf(stderr, "sleep_jitter: clock_nanosleep: %s\n", strerror(rc));
			return -1;
		}
		late[i] = ns_now() - due;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: sleep_jitter HZ SECONDS\n");
		return 2;
	}
	double hz = strtod(argv[1], NULL), secs = strtod(argv[2], NULL);
	if (!(hz >= 1 && hz <= 1e6) || !(secs > 0 && secs <= 600)) {
		fprintf(stderr, "sleep_jitter: HZ in [1, 1e6], SECONDS in (0, 600]\n");
		return 2;
	}
	size_t n = (size_t)(hz * secs);
	int64_t *late = malloc((n ? n : 1) * sizeof *late);
	if (late == NULL) {
		fprintf(stderr, "sleep_jitter: out of memory\n");
		return 1;
	}
	if (n == 0 || sleep_loop(hz, n, late) != 0) {
		free(late);
		return 1;
	}
	qsort(late, n, sizeof *late, cmp_i64);
	double load = 0;
	if (getloadavg(&load, 1) != 1)
		load = -1;
	printf("sleep_jitter: %.0f Hz, %zu wake-ups, late p50 %" PRId64 " us, p99 %" PRId64
	       " us, max %" PRId64 " us (load average %.2f)\n",
	       hz, n, late[n / 2] / 1000, late[(n * 99) / 100] / 1000, late[n - 1] / 1000,
	       load);
	free(late);
	return 0;
}
