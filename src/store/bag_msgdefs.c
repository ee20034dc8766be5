/* bag_msgdefs — reads the message definitions of every storage file of an
 * open bag through its storage backend (sqlite3: the message_definitions
 * rows; mcap: the Schemas), a FILE-compressed one through the reader's
 * inflated copy, keeping the first of each type that has a definition. */
#include "bag_msgdefs.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "bt_mem.h"
#include "bag_storage.h"

static bool msgdefs_empty(const struct bag_msgdef *d)
{
	return d->encoded_message_definition == NULL || *d->encoded_message_definition == '\0';
}

/* Appends the rows of `add` whose type `out` does not have yet, and
 * replaces a row of `out` without a definition by one with (a definition
 * learned after an MCAP file's Schema was written reaches the later
 * files); frees `add`. */
static void msgdefs_merge(struct bag_msgdef **out, size_t *n, size_t *cap, struct bag_msgdef *add,
			  size_t n_add)
{
	for (size_t i = 0; i < n_add; i++) {
		size_t k = 0;
		while (k < *n && strcmp((*out)[k].topic_type, add[i].topic_type) != 0)
			k++;
		if (k < *n && msgdefs_empty(&(*out)[k]) && !msgdefs_empty(&add[i])) {
			bag_msgdef_fini(&(*out)[k]);
			(*out)[k] = add[i];
		} else if (k < *n) {
			bag_msgdef_fini(&add[i]);
		} else {
			bt_xgrow((void **)out, cap, *n + 1, sizeof **out);
			(*out)[(*n)++] = add[i];
		}
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
		struct bag_storage *s = NULL;
		bt_status st = f->storage ? f->storage->open(f->inflated ? f->inflated : f->path,
							     BAG_STORAGE_READ, &s, err)
					  : bt_err_set(err, BT_ERR_FORMAT, "%s: no storage backend "
						       "reads it", f->path);
		struct bag_msgdef *d = NULL;
		size_t nd = 0;
		if (st == BT_OK)
			st = s->ops->read_msgdefs(s, &d, &nd, err);
		bag_storage_discard(s);
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
