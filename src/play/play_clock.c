/* play_clock — /clock (rosgraph_msgs/msg/Clock): the "play-clock" thread
 * (--clock) publishes it clock_hz times per wall second at absolute
 * deadlines, with the bag time the schedule is at (so it stands still
 * while paused, as rosbag2's does); with --clock-topics the publisher
 * does, before each message of a trigger topic, with its time. */
#include <errno.h>
#include <time.h>

#include "bt_time.h"
#include "btdds_cdr.h"
#include "btdds_raw.h"
#include "play__player.h"

/* builtin_interfaces/Time: int32 sec, uint32 nanosec. Negative bag times
 * (never seen in practice) are clamped to 0. */
static dds_return_t clock_write(struct play *p, int64_t t)
{
	if (t < 0)
		t = 0;
	struct btdds_cdr_wr w;
	btdds_cdr_wr_init(&w);
	btdds_cdr_put_u32(&w, (uint32_t)(t / 1000000000));
	btdds_cdr_put_u32(&w, (uint32_t)(t % 1000000000));
	btdds_cdr_wr_finish(&w);
	dds_return_t rc = btdds_raw_write(p->clock_writer, w.b.data, w.b.len);
	btdds_cdr_wr_fini(&w);
	return rc;
}

void play_clock_publish(struct play *p, int64_t t)
{
	if (clock_write(p, t) >= 0)
		atomic_fetch_add_explicit(&p->clock_published, 1, memory_order_relaxed);
}

void *play_clock_main(void *arg)
{
	struct play *p = arg;
	pthread_setname_np(pthread_self(), "play-clock");
	int64_t period = bt_time_period_ns(p->o.clock_hz, 1000, INT64_C(3600) * 1000000000);
	int64_t next = bt_time_monotonic_ns();
	for (;;) {
		pthread_mutex_lock(&p->mu);
		bool stop = p->stop || atomic_load(&p->state) == PLAY_STATE_DONE;
		int64_t pos = play_sched_pos(&p->sched, bt_time_monotonic_ns());
		pthread_mutex_unlock(&p->mu);
		if (stop)
			break;
		play_clock_publish(p, pos);
		next += period;
		int64_t now = bt_time_monotonic_ns();
		if (next < now - period)
			next = now; /* fell behind (a stall): do not burst to catch up */
		/* Short sleeps: a stop is seen within one period or 50 ms. */
		while (now < next) {
			int64_t until = next - now > 50000000 ? now + 50000000 : next;
			struct timespec ts = bt_time_timespec(until);
			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
				;
			now = bt_time_monotonic_ns();
			if (atomic_load(&p->state) == PLAY_STATE_DONE)
				break;
		}
	}
	return NULL;
}
