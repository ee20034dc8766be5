#include "play_sched.h"

#include <math.h>

void play_sched_init(struct play_sched *s, int64_t wall, int64_t bag, double rate, int64_t lo,
		     int64_t hi)
{
	*s = (struct play_sched){.anchor_wall = wall, .anchor_bag = bag, .rate = rate, .lo = lo,
				 .hi = hi, .paused_at = bag};
}

static int64_t clamp(const struct play_sched *s, int64_t t)
{
	return t < s->lo ? s->lo : t > s->hi ? s->hi : t;
}

int64_t play_sched_pos(const struct play_sched *s, int64_t now)
{
	if (s->paused)
		return clamp(s, s->paused_at);
	if (s->held)
		return clamp(s, s->anchor_bag);
	double d = (double)(now - s->anchor_wall) * s->rate;
	if (d < 0)
		d = 0; /* before the anchor (a -d delay): still at it */
	double pos = (double)s->anchor_bag + d;
	return pos >= (double)s->hi ? s->hi : clamp(s, (int64_t)pos);
}

int64_t play_sched_deadline(const struct play_sched *s, int64_t t)
{
	if (s->paused || s->held)
		return INT64_MAX;
	double d = (double)(t - s->anchor_bag) / s->rate;
	if (d > 9.0e18)
		return INT64_MAX;
	return s->anchor_wall + (int64_t)llround(d);
}

void play_sched_pause(struct play_sched *s, int64_t now)
{
	if (s->paused)
		return;
	s->paused_at = play_sched_pos(s, now);
	s->paused = true;
}

void play_sched_resume(struct play_sched *s, int64_t now)
{
	if (!s->paused)
		return;
	s->paused = false;
	s->anchor_bag = s->paused_at;
	s->anchor_wall = now;
}

void play_sched_move(struct play_sched *s, int64_t now, int64_t t)
{
	t = clamp(s, t);
	s->paused_at = t;
	s->anchor_bag = t;
	s->anchor_wall = now;
}

void play_sched_set_rate(struct play_sched *s, int64_t now, double rate)
{
	if (!s->paused) {
		int64_t pos = play_sched_pos(s, now);
		if (now > s->anchor_wall) { /* a delay not over yet keeps its anchor */
			s->anchor_bag = pos;
			s->anchor_wall = now;
		}
	}
	s->rate = rate;
}

void play_sched_hold(struct play_sched *s, int64_t now)
{
	if (!s->paused) {
		s->anchor_bag = play_sched_pos(s, now);
		s->anchor_wall = now;
	}
	s->held = true;
}

void play_sched_release(struct play_sched *s, int64_t wall)
{
	if (!s->held)
		return;
	s->held = false;
	s->anchor_wall = wall;
}

int64_t play_sched_remaining(const struct play_sched *s, int64_t now)
{
	int64_t left = s->hi - play_sched_pos(s, now);
	return (int64_t)((double)left / s->rate);
}
