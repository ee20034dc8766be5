/* play_sched — the schedule: which wall time (CLOCK_MONOTONIC) a bag time
 * is due at, at a rate. An anchor pairs a wall time with a bag time;
 * deadline(t) = anchor_wall + (t - anchor_bag) / rate, so a late message
 * never pushes the next. Every change (pause, resume, rate, seek)
 * re-anchors at the current position. Pure: the caller passes `now`. */
#ifndef PLAY_SCHED_H
#define PLAY_SCHED_H

#include <stdbool.h>
#include <stdint.h>

struct play_sched {
	int64_t anchor_wall, anchor_bag;
	double rate;
	bool paused;
	int64_t paused_at; /* the bag time while paused */
	/* Held at anchor_bag until play_sched_release (--wait-for-subscribers):
	 * no deadline comes; controls still move, pause and resume it. */
	bool held;
	int64_t lo, hi;    /* the window: positions are clamped to it */
};

/* Starts at bag time `bag` at wall time `wall` (a -d delay: later). */
void play_sched_init(struct play_sched *s, int64_t wall, int64_t bag, double rate, int64_t lo,
		     int64_t hi);
/* The bag time the schedule is at, clamped to [lo, hi]. */
int64_t play_sched_pos(const struct play_sched *s, int64_t now);
/* The wall time bag time t is due at (INT64_MAX while paused). */
int64_t play_sched_deadline(const struct play_sched *s, int64_t t);
void play_sched_pause(struct play_sched *s, int64_t now);
void play_sched_resume(struct play_sched *s, int64_t now);
/* Moves to bag time t (clamped) from now on; kept while paused. */
void play_sched_move(struct play_sched *s, int64_t now, int64_t t);
void play_sched_set_rate(struct play_sched *s, int64_t now, double rate);
/* Holds the schedule at its position now until play_sched_release. */
void play_sched_hold(struct play_sched *s, int64_t now);
/* Lets a held schedule run from its position at wall time `wall` (a -d
 * delay: later). */
void play_sched_release(struct play_sched *s, int64_t wall);
/* Wall time from the position to the window's end at this rate. */
int64_t play_sched_remaining(const struct play_sched *s, int64_t now);

#endif
