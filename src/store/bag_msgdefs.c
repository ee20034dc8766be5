/* bag_msgdefs — reads the message_definitions rows of every storage file
 * of an open bag (a FILE-compressed one through the reader's inflated
 * copy), keeping the first row of each type. */
#include "bag_msgdefs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "store__db.h"

/* Appends the rows of `add` whose type `out` does not have yet; frees `add`. */
static void msgdefs_merge(struct bag_msgdef **out, size_t *n, size_t *cap, struct bag_msgdef *add,
			  size_t n_add)
{
	for (size_t i = 0; i < n_add; i++) {
		bool have = false;
		for (size_t k = 0; k < *n && !have; k++)
			have = strcmp((*out)[k].topic_type, add[i].topic_type) == 0;
		if (have) {
			bag_msgdef_fini(&add[i]);
			continue;
		}
		bt_xgrow((void **)out, cap, *n + 1, sizeof **out);
		(*out)[(*n)++] = add[i];
	}
	free(add);
}

bt_status bag_msgdefs_read(const struct bag_reader *r, struct bag_msgdef **out, size_t *n,
			   struct bt_error *err)
{
	struct bag_msgdef *all = NULL;
	size_t cnt = 0, cap = 0;
	for (size_t i = 0; i < bag_reader_n_files(r); i++) {
		const struct bag_reader_file *f = bag_reader_file(r, i);
		struct bag_db *db = NULL;
		bt_status st = bag_db_open_read(f->inflated ? f->inflated : f->path, false, &db, err);
		struct bag_msgdef *d = NULL;
		size_t nd = 0;
		if (st == BT_OK)
			st = bag_db_read_msgdefs(db, &d, &nd, err);
		bag_db_discard(db);
		if (st != BT_OK) {
			bag_msgdefs_free(all, cnt);
			return st;
		}
		msgdefs_merge(&all, &cnt, &cap, d, nd);
	}
	*out = all;
	*n = cnt;
	return BT_OK;
}

void bag_msgdefs_free(struct bag_msgdef *d, size_t n)
{
	for (size_t i = 0; i < n; i++)
		bag_msgdef_fini(&d[i]);
	free(d);
}
