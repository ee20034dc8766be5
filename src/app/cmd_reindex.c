/* bagtop reindex: rebuilds metadata.yaml from the storage files. */
#include <inttypes.h>
#include <stdio.h>

#include "app.h"
#include "app_read_opts.h"
#include "bag_tools.h"
#include "bt_fmt.h"

/* A second line when loss figures could not all be kept: what is unknown
 * and why (the first line stays as it always was). */
static void reindex_losses_line(const char *bag, const struct bag_reindex_result *res)
{
	switch (res->losses) {
	case BAG_REINDEX_LOSSES_KEPT:
	case BAG_REINDEX_LOSSES_NO_STATS: /* the warning said why */
		return;
	case BAG_REINDEX_LOSSES_NO_METADATA:
		printf("%s: losses cannot be recovered (no readable metadata.yaml, and no file's own "
		       "metadata has them): written as unknown\n", bag);
		return;
	case BAG_REINDEX_LOSSES_NONE:
		printf("%s: losses unknown (the old metadata.yaml had no loss figures): written as "
		       "unknown\n", bag);
		return;
	case BAG_REINDEX_LOSSES_PARTIAL:
		printf("%s: losses cannot be recovered for %zu of %zu file%s (no metadata describes "
		       "their data): written as unknown\n", bag,
		       res->files - res->files_losses_known, res->files, bt_fmt_s(res->files));
		return;
	}
}

static const struct app_opt reindex_opts[] = {APP_READ_STORAGE_OPT_ROW};

static int reindex_run(const struct app_cmd *cmd, int argc, char **argv)
{
	const char *bag;
	int rc = app_read_bag_operand(cmd, argc, argv, &bag);
	if (rc)
		return rc < 0 ? APP_EXIT_OK : rc;
	struct bag_reindex_result res;
	struct bt_error err;
	bt_status st = bag_reindex(bag, &res, &err);
	if (st == BT_ERR_USAGE) /* a file, not a bag directory */
		return app_usage_error(cmd, "%s", err.msg);
	if (st != BT_OK) {
		app_error("%s", err.msg);
		return APP_EXIT_ERROR;
	}
	printf("%s: metadata.yaml rebuilt: %zu file%s, %" PRIu64 " message%s\n", bag,
	       res.files, bt_fmt_s(res.files), res.messages, bt_fmt_s(res.messages));
	reindex_losses_line(bag, &res);
	return APP_EXIT_OK;
}

const struct app_cmd app_cmd_reindex = {
	"reindex", "BAG",
	"Rebuild a bag's metadata.yaml from its storage files (crash recovery).",
	"\nWorks for compressed bags too. A transaction left open by a recorder that\n"
	"was killed is rolled back first, so the bag holds exactly the messages that\n"
	"were committed; duration is last minus first message; 'files' is filled in.\n"
	"A FILE-compressed bag's files left uncompressed by the crash are compressed.\n"
	"Recording statistics (messages, bytes, rates) are recomputed from the data;\n"
	"loss figures are kept for the files that metadata.yaml, or the file's own\n"
	"last metadata row, still describes, and left out (unknown) for the others.\n"
	"Nothing is deleted or overwritten: of X.db3 and X.db3.zstd the one with more\n"
	"messages is kept and the other renamed X...set-aside-by-reindex, as is a\n"
	"blank BAG_N.db3. A damaged file (integrity check, unreadable messages) is\n"
	"named and the exit status is 1. An .mcap file that ends without a footer\n"
	"(killed, disk full) is rebuilt from its complete records into X.mcap.reindex,\n"
	"synced, and renamed over it.\n",
	reindex_opts, sizeof reindex_opts / sizeof reindex_opts[0], reindex_run};
