/* bagtop demo: until live capture lands, writes ten seconds of synthetic
 * ROS 2 traffic (real CDR, with message definitions) through the bag writer
 * and prints the bag's summary: a newcomer's first run, and a bag to open
 * in rosbag2 or Foxglove. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "app.h"
#include "app_writer_opts.h"
#include "bt_buf.h"
#include "bt_time.h"
#include "demo_traffic.h"

#define DEMO_TICK_NS (10 * 1000 * 1000) /* 100 Hz: the IMU rate */
#define DEMO_TICKS 1000                 /* ten seconds */
#define DEMO_BATCH_TICKS 10             /* one write (transaction) per 100 ms */

static const struct app_opt demo_opts[] = {APP_WRITER_OPT_ROWS};

struct demo_ctx {
	const struct app_cmd *cmd;
	struct app_writer_cfg cfg;
};

static int demo_opt(void *ctx, const struct app_opt *o, const char *arg)
{
	struct demo_ctx *d = ctx;
	return app_writer_opt(d->cmd, &d->cfg, o, arg);
}

struct demo_batch {
	struct bag_message msgs[4 * DEMO_BATCH_TICKS];
	struct bt_buf bufs[4 * DEMO_BATCH_TICKS];
	size_t n;
};

static bt_status demo_add(struct demo_batch *b, const uint32_t *handles, enum demo_topic t,
			  uint32_t seq, int64_t stamp)
{
	struct bt_buf *buf = &b->bufs[b->n];
	bt_status st = demo_message(t, seq, stamp, buf);
	if (st == BT_OK)
		b->msgs[b->n++] = (struct bag_message){handles[t], stamp, buf->data, buf->len};
	return st;
}

/* Messages of ticks [k, k + DEMO_BATCH_TICKS), in timestamp order. */
static bt_status demo_fill(struct demo_batch *b, const uint32_t *h, int64_t t0, uint32_t k)
{
	bt_status st = BT_OK;
	b->n = 0;
	for (uint32_t i = k; st == BT_OK && i < k + DEMO_BATCH_TICKS; i++) {
		int64_t t = t0 + (int64_t)i * DEMO_TICK_NS;
		if (i == 0)
			st = demo_add(b, h, DEMO_TF_STATIC, 0, t);
		if (st == BT_OK)
			st = demo_add(b, h, DEMO_IMU, i, t + 1000);
		if (st == BT_OK && i % 10 == 0)
			st = demo_add(b, h, DEMO_CHATTER, i / 10, t + 2000);
		if (st == BT_OK && i % 10 == 5)
			st = demo_add(b, h, DEMO_IMAGE, i / 10, t + 3000);
	}
	return st;
}

static bt_status demo_topics(struct bag_writer *w, uint32_t *handles, struct bt_error *err)
{
	for (int t = 0; t < DEMO_N_TOPICS; t++) {
		struct bag_topic topic;
		struct bag_qos qos;
		struct bag_msgdef def;
		demo_topic_describe((enum demo_topic)t, &topic, &qos, &def);
		bt_status st = bag_writer_add_topic(w, &topic, &def, &handles[t], err);
		if (st != BT_OK)
			return st;
	}
	return BT_OK;
}

static bt_status demo_write(struct bag_writer *w, struct bt_error *err)
{
	uint32_t handles[DEMO_N_TOPICS];
	struct demo_batch *b = calloc(1, sizeof *b);
	if (!b)
		return bt_err_set(err, BT_ERR_NOMEM, "no memory for the demo");
	bt_status st = demo_topics(w, handles, err);
	int64_t t0 = bt_time_realtime_ns();
	for (uint32_t k = 0; st == BT_OK && k < DEMO_TICKS; k += DEMO_BATCH_TICKS) {
		st = demo_fill(b, handles, t0, k);
		if (st != BT_OK)
			bt_err_set(err, st, "cannot build demo messages");
		else
			st = bag_writer_write(w, b->msgs, b->n, err);
	}
	for (size_t i = 0; i < sizeof b->bufs / sizeof b->bufs[0]; i++)
		bt_buf_fini(&b->bufs[i]);
	free(b);
	return st;
}

static int demo_record(struct app_writer_cfg *cfg)
{
	struct bag_writer *w;
	struct bt_error err, cerr;
	if (bag_writer_open(&cfg->opt, &w, &err) != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_ERROR;
	}
	bt_status st = demo_write(w, &err);
	struct bag_writer_stats stats;
	bag_writer_get_stats(w, &stats);
	bt_status cst = bag_writer_close(w, &cerr);
	if (st == BT_OK && cst != BT_OK) {
		st = cst;
		err = cerr;
	}
	if (st != BT_OK) {
		app_error("%s (the %" PRIu64 " messages committed before are kept in %s)", err.msg,
			  stats.messages, cfg->output);
		return APP_EXIT_ERROR;
	}
	return APP_EXIT_OK;
}

static int demo_run(const struct app_cmd *cmd, int argc, char **argv)
{
	struct demo_ctx d;
	d.cmd = cmd;
	app_writer_cfg_init(&d.cfg);
	int first;
	int rc = app_opts_parse(cmd, argc, argv, demo_opt, &d, &first);
	if (rc == 0 && first != argc)
		rc = app_usage_error(cmd, "takes no operands (got '%s')", argv[first]);
	if (rc == 0)
		rc = app_writer_finish(cmd, &d.cfg);
	if (rc == 0)
		rc = demo_record(&d.cfg);
	if (rc == 0) {
		char *info_argv[] = {"info", d.cfg.output, NULL};
		printf("Wrote the demo bag %s (ten seconds of synthetic ROS 2 traffic):\n",
		       d.cfg.output);
		fflush(stdout);
		rc = app_cmd_info.run(&app_cmd_info, 2, info_argv);
	}
	app_writer_cfg_fini(&d.cfg);
	return rc < 0 ? APP_EXIT_OK : rc;
}

const struct app_cmd app_cmd_demo = {
	"demo", NULL,
	"Write a sample bag of synthetic ROS 2 traffic and print its summary.",
	"\nTen seconds of /tf_static, /chatter (10 Hz), /imu (100 Hz) and\n"
	"/camera/image_raw (10 Hz, 160x120) as real CDR with message definitions,\n"
	"written through the same bag writer and options as recording.\n",
	demo_opts, sizeof demo_opts / sizeof demo_opts[0], demo_run};
