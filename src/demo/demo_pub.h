/* demo_pub — the built-in publishers of `bagtop demo`: real ROS 2 types
 * compiled from IDL with idlc, published on a DDS domain so the recorder
 * sees what it would see on a robot:
 *   /chatter     std_msgs/msg/String            10 Hz, reliable
 *   /tf_static   tf2_msgs/msg/TFMessage         once, reliable, transient-local
 *   /map         nav_msgs/msg/OccupancyGrid     once (then every 5 s), transient-local
 *   /imu         sensor_msgs/msg/Imu            200 Hz, reliable
 *   /points      sensor_msgs/msg/PointCloud2    10 Hz, ~256 KiB, reliable
 *   /scan        sensor_msgs/msg/LaserScan      40 Hz, best-effort
 *   DemoRobotStatus (plain DDS, keyed by robot id) 5 Hz, two instances
 * Runs in its own process (the caller forks before any DDS call), so the
 * recorder records it like any other publisher. Each topic starts
 * publishing once a reader matched it (10 s at most), so a recorder
 * started beside it gets every topic's first message. */
#ifndef DEMO_PUB_H
#define DEMO_PUB_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "btdds_env.h"

/* Publishes until *stop is set, or `duration_ns` elapsed (0 = no limit),
 * on `domain_id`, joined with the ROS 2 environment `env` (NULL: Cyclone's
 * configuration only; see btdds_participant_create). Returns 0, or 3 when
 * DDS cannot start (after printing one line to stderr). Single-threaded;
 * meant as a child process's body. */
int demo_publish(uint32_t domain_id, const struct btdds_env *env, volatile sig_atomic_t *stop,
		 int64_t duration_ns);

#endif
