/* Writing into a file that hits the file-size limit (RLIMIT_FSIZE, what a
 * full disk looks like to SQLite: a failed write) must end `bagtop demo`
 * with exactly one error line and exit 1, and leave every committed message
 * readable, in a bag that `bagtop check` accepts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bag_metadata.h"
#include "bag_reader.h"
#include "bt_fs.h"
#include "bt_mem.h"
#include "test_bag.h"
#include "test_util.h"

/* In the child: the file-size limit (hard too: bagtop cannot lift it). */
static int full_limit(void *arg)
{
	rlim_t limit = *(const rlim_t *)arg;
	struct rlimit rl = {limit, limit};
	return setrlimit(RLIMIT_FSIZE, &rl);
}

/* Runs bagtop with a file-size limit; stderr goes to err_path. */
static int full_run(const char *dir, rlim_t limit, char *const extra[], const char *err_path)
{
	/* The live demo fills the limit within a second or two. */
	char *argv[20] = {getenv("BAGTOP_BIN"), "demo", "-o", (char *)dir,
			  "--domain", "102", "--duration", "20"};
	size_t n = 8;
	for (size_t i = 0; extra[i] && n < 19; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	pid_t pid = tu_spawn(argv, &(struct tu_spawn_opts){.err_path = err_path,
							  .in_child = full_limit, .arg = &limit});
	int rc = tu_wait(pid, 60.0);
	if (rc == TU_TIMED_OUT)
		fail_msg("bagtop demo did not end within 60 s");
	return rc;
}

static void full_intact(const struct bag_read_msg *m, const struct bag_reader_topic *t,
			void *arg)
{
	(void)t;
	(void)arg;
	assert_true(m->len >= 4);
	assert_int_equal(m->data[0], 0); /* every message is intact CDR */
}

static unsigned long long full_count_messages(const char *dir)
{
	return tb_each(dir, 0, full_intact, NULL);
}

static void full_case(rlim_t limit, char *const extra[])
{
	char *tmp = tu_mkdtemp("diskfull");
	char *dir = bt_xasprintf("%s/bag", tmp);
	char *err_path = bt_xasprintf("%s/stderr.txt", tmp);
	int rc = full_run(dir, limit, extra, err_path);
	char *text;
	size_t len;
	assert_int_equal(bt_fs_read_all(err_path, 1 << 20, &text, &len, NULL), BT_OK);
	printf("  exit %d, stderr: %s", rc, text);
	assert_int_equal(rc, 1);
	/* One line, naming the cause and what was kept. */
	assert_non_null(strchr(text, '\n'));
	assert_null(strchr(text, '\n') + 1 < text + len ? strchr(strchr(text, '\n') + 1, '\n')
							 : NULL);
	assert_true(strncmp(text, "bagtop: error: ", 15) == 0);
	assert_non_null(strstr(text, "the file size limit (ulimit -f) was reached"));
	unsigned long long kept = 0;
	const char *p = strstr(text, "(the ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "(the %llu messages committed", &kept), 1);
	assert_true(kept > 0);
	assert_int_equal(full_count_messages(dir), kept);
	tu_check_bag(dir);
	free(text);
	tu_rmrf(tmp);
	free(err_path);
	free(dir);
	free(tmp);
}

static void test_disk_full(void **state)
{
	(void)state;
	char *plain[] = {NULL};
	char *file[] = {"--compression-mode", "file", NULL};
	char *message[] = {"--compression-mode", "message", NULL};
	char *resilient[] = {"--storage-preset-profile", "resilient", NULL};
	full_case(600 * 1024, plain);
	full_case(600 * 1024, file);
	full_case(600 * 1024, message);
	full_case(2048 * 1024, resilient); /* WAL frames are whole 32 KiB pages */
}

TU_MAIN(
	cmocka_unit_test(test_disk_full))
