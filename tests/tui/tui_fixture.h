/* tui_fixture — view-models for the TUI tests, built by hand as the engine
 * would fill them. */
#ifndef TUI_FIXTURE_H
#define TUI_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "tui_model.h"
#include "tui_state.h"

/* 2025-12-01 04:00:00 UTC, in ns (the tests run with TZ=UTC). */
#define TF_T0 (INT64_C(1764561600) * INT64_C(1000000000))

/* Appends a topic row with these numbers; publishers 1, reliable. */
struct tui_topic *tf_add(struct tui_model *m, uint32_t id, const char *name, const char *type,
			 double hz, uint64_t bytes);
/* A recording header and four topics: /tf (id 1, 100 Hz, 3 lost in
 * transport), /camera/front/image_raw/compressed (id 0, 30 Hz),
 * /rosout (id 3, 2.5 Hz, disabled, 12 lost in recorder), /tf_static
 * (id 2, 0 Hz, repeat-TL depth 1); one event. */
void tf_model(struct tui_model *m);
/* A `bagtop play` view-model: PLAYING at 2x, 1:02 of 2:30 of bag time,
 * four topics as tf_model's (ids 0 camera 60 Hz 7 late, 1 /tf 200 Hz, 2
 * /tf_static TL, 3 /rosout best effort), loop off; one event. */
void tf_play_model(struct tui_model *m);
/* n topics "/t000".."/t(n-1)", id i, rate i Hz. */
void tf_model_many(struct tui_model *m, size_t n);
/* Snapshot mode, armed, with these configured windows in seconds: the
 * `s` dialog's defaults (--snapshot-duration, --snapshot-post) and the
 * widest of any topic. */
void tf_snapshot_mode(struct tui_model *m, int64_t before_s, int64_t after_ms,
		      int64_t before_max_s, int64_t after_max_ms);
/* Init the state for a table of `page` rows and sync it. */
void tf_state(struct tui_state *s, const struct tui_model *m, size_t page);
/* A test of a fixture's model and state (TF_TEST, TF_PLAY_TEST). */
typedef void tf_test_fn(struct tui_model *m, struct tui_state *s);
struct tf_test {
	tf_test_fn *fn;
};
/* The model of tf_model (tf_setup) or tf_play_model (tf_play_setup) and
 * its state for a page of 10 rows: a cmocka fixture (*state, the test's
 * initial state kept in `test`) that tf_teardown frees. */
struct tf_fx {
	struct tui_model m;
	struct tui_state s;
	const struct tf_test *test;
};
int tf_setup(void **state);
int tf_play_setup(void **state);
int tf_teardown(void **state);
/* The cmocka test of TF_TEST: runs the fixture's test on its m and s. */
void tf_run(void **state);
/* The cmocka test named f running f(m, s) on tf_model's (TF_TEST) or
 * tf_play_model's (TF_PLAY_TEST) fixture. */
#define TF_TEST_ON(f, setup) {#f, tf_run, setup, tf_teardown, &(struct tf_test){f}}
#define TF_TEST(f) TF_TEST_ON(f, tf_setup)
#define TF_PLAY_TEST(f) TF_TEST_ON(f, tf_play_setup)
enum tf_render { TEXT, COLOUR, MONO };
/* Builds the frame for (m, s) at cols x rows (laid out as tui_run does)
 * and compares it, as text or with the styles of the colour or mono
 * scheme, with golden/<name>.txt; BAGTOP_UPDATE_GOLDEN=1 rewrites it. */
void tf_golden(const char *name, const struct tui_model *m, struct tui_state *s, int cols,
	       int rows, bool utf8, enum tf_render how);
/* The keys given, 0-terminated, for tf_keys. */
#define TF_KEYS(...) ((const int[]){__VA_ARGS__, 0})
/* Presses the keys (0-terminated); returns the last key's command. */
struct tui_cmd tf_keys(struct tui_state *s, const struct tui_model *m, const int *keys);
/* Names of the rows in the state's order, joined by spaces (static). */
const char *tf_order(const struct tui_state *s, const struct tui_model *m);

#endif
