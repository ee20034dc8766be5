/* bagtop reindex: rebuilds metadata.yaml from the storage files. */
#include <inttypes.h>
#include <stdio.h>

#include "app.h"
#include "bag_tools.h"

static int reindex_run(const struct app_cmd *cmd, int argc, char **argv)
{
	const char *bag;
	int rc = app_opts_one_operand(cmd, argc, argv, &bag);
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
	printf("%s: metadata.yaml rebuilt: %zu file%s, %" PRIu64 " messages\n", bag,
	       res.files, res.files == 1 ? "" : "s", res.messages);
	return APP_EXIT_OK;
}

const struct app_cmd app_cmd_reindex = {
	"reindex", "BAG",
	"Rebuild a bag's metadata.yaml from its storage files (crash recovery).",
	"\nWorks for compressed bags too. A transaction left open by a recorder that\n"
	"was killed is rolled back first, so the bag holds exactly the messages that\n"
	"were committed; duration is last minus first message; 'files' is filled in.\n"
	"A FILE-compressed bag's files left uncompressed by the crash are compressed.\n",
	NULL, 0, reindex_run};
