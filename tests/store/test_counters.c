/* The table of loss causes (src/store/bag_counters.h) and what cannot
 * expand it: the IDL of the live statistics, which idlc reads by itself.
 * Its LossCounts members must be the table's idl names, in the table's
 * order, so that adding a cause and forgetting the IDL fails here. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bag_types.h"
#include "test_util.h"

#ifndef BAGTOP_STATS_IDL
#error "BAGTOP_STATS_IDL: the path of src/core/idl/BagtopStats.idl"
#endif

/* The member names of `struct LossCounts` in the IDL file, in order. */
static size_t idl_loss_members(char names[][64], size_t max)
{
	FILE *f = fopen(BAGTOP_STATS_IDL, "r");
	assert_non_null(f);
	char line[512];
	bool in = false;
	size_t n = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		if (strstr(line, "struct LossCounts") != NULL) {
			in = true;
			continue;
		}
		if (!in)
			continue;
		if (strstr(line, "};") != NULL)
			break;
		char name[64];
		if (sscanf(line, " unsigned long long %63[A-Za-z0-9_];", name) == 1) {
			assert_true(n < max);
			snprintf(names[n++], sizeof names[0], "%s", name);
		}
	}
	fclose(f);
	assert_true(in);
	return n;
}

static void test_idl_matches_table(void **state)
{
	(void)state;
	char names[32][64];
	size_t n = idl_loss_members(names, 32);
	assert_int_equal(n, BAG_LOSS_N_CAUSES);
	for (size_t k = 0; k < n; k++)
		assert_string_equal(names[k], bag_loss_causes[k].idl);
}

/* Every name is given, the column headings fit `info -v`'s columns, and
 * the groups add up the way the bag's statistics say. */
static void test_table_sums(void **state)
{
	(void)state;
	struct bag_losses l = {0};
	uint64_t tr = 0, rec = 0;
	for (int k = 0; k < BAG_LOSS_N_CAUSES; k++) {
		const struct bag_loss_cause_info *c = &bag_loss_causes[k];
		assert_true(c->yaml[0] && c->idl[0] && c->json[0] && c->col[0]);
		assert_true(strlen(c->col) <= 8);
		*bag_losses_at(&l, k) = (uint64_t)1 << k;
		*(c->group == BAG_LOSS_TRANSPORT ? &tr : &rec) += (uint64_t)1 << k;
	}
	assert_int_equal(bag_losses_transport(&l), tr);
	assert_int_equal(bag_losses_recorder(&l), rec);
	assert_int_equal(l.lost_transport, 1);
	assert_int_equal(l.lost_abandoned, (uint64_t)1 << BAG_CAUSE_lost_abandoned);
	assert_int_equal(l.lost_disk_guard, (uint64_t)1 << BAG_CAUSE_lost_disk_guard);
	/* the last cause added, last in the table and in the IDL, and a
	 * transport one though the recorder's come before it */
	assert_int_equal(l.unmatched, (uint64_t)1 << BAG_CAUSE_unmatched);
	assert_int_equal(BAG_CAUSE_unmatched, BAG_LOSS_N_CAUSES - 1);
	assert_true(bag_losses_transport(&l) & ((uint64_t)1 << BAG_CAUSE_unmatched));
	assert_false(bag_losses_recorder(&l) & ((uint64_t)1 << BAG_CAUSE_unmatched));
}

/* The counters that are no loss (throttled) follow the causes: in the
 * same struct, by name and by index, but in neither loss sum. */
static void test_not_lost_in_no_sum(void **state)
{
	(void)state;
	assert_int_equal(BAG_CAUSE_throttled, BAG_LOSS_N_CAUSES);
	assert_int_equal(BAG_N_COUNTERS, BAG_LOSS_N_CAUSES + 1);
	assert_int_equal(bag_loss_causes[BAG_CAUSE_throttled].group, BAG_LOSS_SKIPPED);
	assert_string_equal(bag_loss_causes[BAG_CAUSE_throttled].yaml, "throttled");
	struct bag_losses l = {0};
	*bag_losses_at(&l, BAG_CAUSE_throttled) = 7;
	assert_int_equal(l.throttled, 7);
	assert_int_equal(bag_losses_transport(&l), 0);
	assert_int_equal(bag_losses_recorder(&l), 0);
	assert_true(bag_losses_any(&l)); /* still handed to the writer */
	struct bag_losses sum = {0};
	bag_losses_add(&sum, &l);
	assert_int_equal(sum.throttled, 7);
	for (int k = 0; k < BAG_LOSS_N_CAUSES; k++)
		assert_int_not_equal(bag_loss_causes[k].group, BAG_LOSS_SKIPPED);
}

/* TopicStatistics and Totals end with `throttled`: the IDL grows at its
 * end only, and the not-lost counters are no LossCounts members. */
static void test_idl_throttled_last(void **state)
{
	(void)state;
	FILE *f = fopen(BAGTOP_STATS_IDL, "r");
	assert_non_null(f);
	char line[512], prev[2][512] = {"", ""};
	int found = 0;
	while (fgets(line, sizeof line, f) != NULL) {
		char *p = line;
		while (*p == ' ')
			p++;
		if (strncmp(p, "};", 2) == 0 && strstr(prev[0], " throttled;") != NULL)
			found++;
		if (strncmp(p, "//", 2) != 0 && *p != '\n') {
			snprintf(prev[1], sizeof prev[1], "%s", prev[0]);
			snprintf(prev[0], sizeof prev[0], "%s", line);
		}
	}
	fclose(f);
	assert_int_equal(found, 2); /* TopicStatistics and Totals */
}

TU_MAIN(
	cmocka_unit_test(test_idl_matches_table),
	cmocka_unit_test(test_table_sums),
	cmocka_unit_test(test_not_lost_in_no_sum),
	cmocka_unit_test(test_idl_throttled_last))
