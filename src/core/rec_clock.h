/* rec_clock — the time the recorder stamps a received message with: the
 * system's real-time clock, or, with --use-sim-time, the simulation's: the
 * last time received on /clock (rosgraph_msgs/msg/Clock, DDS topic
 * rt/clock), as a ROS 2 node with use_sim_time reads its clock. Message
 * timestamps, split durations, snapshot windows and trigger times then
 * all count in simulation time, as rosbag2's recorder does.
 *
 * Before the first /clock message the simulation clock has not started
 * (rec_clock_now gives 0): nothing is recorded then, as with rosbag2
 * ("until first /clock message is received, no messages will be written").
 * A /clock time of 0 is ROS's "not started" too; one that is not a valid
 * time (nanoseconds >= 1e9, seconds < 0, not CDR) is ignored and counted.
 * Simulation time that goes back more than a second (a reset) is followed
 * and said (a warning): what comes after is stamped before what came.
 *
 * Thread-safety: rec_clock_now from any thread (one atomic load); the
 * reader's listener runs on a Cyclone thread; start and free from the
 * recorder's owning thread (free deletes the reader first, so no listener
 * runs after it; deleting the participant before does the same). */
#ifndef REC_CLOCK_H
#define REC_CLOCK_H

#include <stdint.h>

#include <dds/dds.h>

#include "bt_status.h"

#define REC_CLOCK_TOPIC "rt/clock"
#define REC_CLOCK_TYPE "rosgraph_msgs::msg::dds_::Clock_"

struct rec_clock;

/* A simulation clock following /clock on participant pp (best effort,
 * keep last 1: rclcpp's ClockQoS, which every /clock publisher matches).
 * BT_ERR_DDS when the reader cannot be made. */
BT_MUST_CHECK bt_status rec_clock_start_sim(dds_entity_t pp, struct rec_clock **out,
					    struct bt_error *err);
/* Now in ns since the epoch: the real-time clock when c is NULL, else the
 * last /clock time (0: not started yet). */
int64_t rec_clock_now(const struct rec_clock *c);
/* /clock messages ignored as not a valid time. */
uint64_t rec_clock_bad(const struct rec_clock *c);
/* Deletes the reader (waiting out its listener), frees. NULL is fine. */
void rec_clock_free(struct rec_clock *c);

#endif
