/* bagtop check: lists every disagreement between a bag's files and its
 * metadata; exit 1 when there is any. */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "app_read_opts.h"
#include "bag_tools.h"
#include "bt_fmt.h"

/* "BAG: problem"; a problem that already names the bag first (the
 * reader's "BAG: no such file or directory") does not name it twice. */
static void check_report(void *ctx, const char *problem)
{
	const char *path = ctx;
	size_t n = strlen(path);
	if (!strncmp(problem, path, n) && !strncmp(problem + n, ": ", 2))
		problem += n + 2;
	char bag[1024], line[4096];
	app_escape(path, bag, sizeof bag);
	app_escape(problem, line, sizeof line);
	printf("%s: %s\n", bag, line);
}

static const struct app_opt check_opts[] = {APP_READ_STORAGE_OPT_ROW};

static int check_run(const struct app_cmd *cmd, int argc, char **argv)
{
	const char *bag;
	int rc = app_read_bag_operand(cmd, argc, argv, &bag);
	if (rc)
		return rc < 0 ? APP_EXIT_OK : rc;
	size_t problems = bag_check(bag, check_report, (void *)bag);
	char name[1024];
	app_escape(bag, name, sizeof name);
	if (problems) {
		fprintf(stderr, "bagtop: %s: %zu problem%s found\n", name, problems,
			bt_fmt_s(problems));
		return APP_EXIT_ERROR;
	}
	printf("%s: ok\n", name);
	return APP_EXIT_OK;
}

const struct app_cmd app_cmd_check = {
	"check", "BAG",
	"Verify that a bag's storage files and metadata agree; exit 1 if not.",
	"\nEvery storage file must open and pass its format's check (SQLite's\n"
	"quick_check; MCAP: every record and chunk CRC, and the specification's rules\n"
	"on record order, ids and indexes that other readers rely on), every\n"
	"message must read back (and decompress), metadata.yaml's counts, topics,\n"
	"files, time range and compression must match the data, and no key may\n"
	"appear twice in one mapping of metadata.yaml. Each problem is one line.\n",
	check_opts, sizeof check_opts / sizeof check_opts[0], check_run};
