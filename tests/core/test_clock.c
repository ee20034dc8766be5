/* test_clock — rec_clock (--use-sim-time) against /clock samples laid out
 * here from the spec, not by bagtop's writer: rosgraph_msgs/msg/Clock is
 * builtin_interfaces/Time { int32 sec; uint32 nanosec } after the 4-byte
 * encapsulation header (00 01: CDR little-endian, 00 00: big-endian). A
 * raw writer in this process (DDS domain 225, the loopback config ctest
 * sets) sends them; the clock must start at the first valid non-zero
 * time, ignore time 0 (ROS: not started) without counting it, count
 * malformed ones (nanosec of a second or more, negative seconds, too
 * short) and take every valid one after, going back too. */
#include <stdint.h>
#include <string.h>

#include <dds/dds.h>

#include "bt_time.h"
#include "btdds_raw.h"
#include "rec_clock.h"
#include "test_util.h"

#define DOMAIN 225

static void put_u32(unsigned char *p, uint32_t v, bool be)
{
	for (int i = 0; i < 4; i++)
		p[be ? 3 - i : i] = (unsigned char)(v >> (8 * i));
}

/* A Clock sample: header, sec, nanosec (12 bytes), `len` of them sent. */
static void send_time(dds_entity_t w, int32_t sec, uint32_t nsec, bool be, size_t len)
{
	unsigned char b[12] = {0x00, be ? 0x00 : 0x01, 0x00, 0x00};
	put_u32(b + 4, (uint32_t)sec, be);
	put_u32(b + 8, nsec, be);
	assert_true(btdds_raw_write(w, b, len) >= 0);
}

/* Waits (2 s at most) until the clock reads `want`; its last reading. */
static int64_t clock_wait(const struct rec_clock *c, int64_t want)
{
	int64_t end = bt_time_monotonic_ns() + INT64_C(2000000000);
	while (rec_clock_now(c) != want && bt_time_monotonic_ns() < end)
		dds_sleepfor(DDS_MSECS(5));
	return rec_clock_now(c);
}

static void test_clock_samples(void **state)
{
	(void)state;
	dds_entity_t pp = dds_create_participant(DOMAIN, NULL, NULL);
	assert_true(pp > 0);
	struct rec_clock *c = NULL;
	struct bt_error err;
	assert_int_equal(rec_clock_start_sim(pp, &c, &err), BT_OK);
	assert_int_equal(rec_clock_now(c), 0); /* not started */
	dds_entity_t tp = btdds_raw_topic_create(pp, REC_CLOCK_TOPIC, REC_CLOCK_TYPE, false);
	assert_true(tp > 0);
	dds_entity_t w = dds_create_writer(pp, tp, NULL, NULL);
	assert_true(w > 0);
	dds_publication_matched_status_t ms = {0};
	for (int i = 0; i < 400 && ms.current_count == 0; i++) {
		assert_int_equal(dds_get_publication_matched_status(w, &ms), 0);
		dds_sleepfor(DDS_MSECS(5));
	}
	assert_int_equal(ms.current_count, 1);

	send_time(w, 0, 0, false, 12);          /* ROS time 0: not started, not bad */
	send_time(w, 5, 1000000000u, false, 12); /* nanosec out of range */
	send_time(w, -1, 0, false, 12);          /* before the epoch */
	send_time(w, 7, 0, false, 6);            /* cut short */
	send_time(w, 1700000000, 500000000u, false, 12);
	assert_int_equal(clock_wait(c, INT64_C(1700000000500000000)), INT64_C(1700000000500000000));
	assert_int_equal(rec_clock_bad(c), 3);

	send_time(w, 1700000001, 250000000u, true, 12); /* big-endian */
	assert_int_equal(clock_wait(c, INT64_C(1700000001250000000)), INT64_C(1700000001250000000));
	send_time(w, 12, 0, false, 12); /* back: a reset, followed (and warned about) */
	assert_int_equal(clock_wait(c, INT64_C(12000000000)), INT64_C(12000000000));
	send_time(w, 0, 0, false, 12); /* 0 again: ignored, the clock keeps its time */
	dds_sleepfor(DDS_MSECS(100));  /* local delivery is at once; a margin */
	assert_int_equal(rec_clock_now(c), INT64_C(12000000000));
	send_time(w, 13, 0, false, 12);
	assert_int_equal(clock_wait(c, INT64_C(13000000000)), INT64_C(13000000000));
	assert_int_equal(rec_clock_bad(c), 3);
	rec_clock_free(c);
	assert_true(rec_clock_now(NULL) > INT64_C(1700000000000000000)); /* the real-time clock */
	assert_int_equal(dds_delete(pp), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(test_clock_samples)};
	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
