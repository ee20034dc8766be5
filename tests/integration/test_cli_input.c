/* test_cli_input — the real bagtop binary on bad input of every kind.
 *
 * Cases: every metadata.yaml under tests/data/bad/meta and every storage
 * case under tests/data/bad/storage (see tests/data/bad/README.md), given to
 * info, check and reindex; missing and odd paths; command-line misuse;
 * demo's refusals. For each failure bagtop must exit 1 (2 for a usage
 * error), print exactly one line that starts with "bagtop" and names the
 * problem (check: one summary line plus "BAG: problem" lines), show no
 * sanitizer report, and leave the bag directory as it was (info and check
 * never write; a failed reindex changes nothing either). Each case is
 * copied into a scratch directory first: tests/data is never written. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bt_fs.h"
#include "bt_mem.h"
#include "test_util.h"

#define CLI_MAX_LINE 1024 /* longer is not a "clear" one-line message */
#define CLI_MAX_ARGS 16

static char *g_tmp;      /* scratch root for the whole run */
static char *g_good_db3; /* a valid one-file bag's storage file (demo, split) */
static char *g_demo_bag; /* the whole demo bag that file belongs to */

/* ---- running bagtop ---- */

struct cli_res {
	int rc;
	char *out; /* stdout + stderr */
	char cmdline[1024];
};

static void cli_res_fini(struct cli_res *r)
{
	free(r->out);
	r->out = NULL;
}

/* Runs bagtop with the NULL-terminated argument list. */
static void cli_run(struct cli_res *r, const char *const *args)
{
	const char *bin = getenv("BAGTOP_BIN");
	char *argv[CLI_MAX_ARGS + 2];
	size_t n = 0, k = 0;
	argv[n++] = (char *)(bin ? bin : "bagtop");
	k += (size_t)snprintf(r->cmdline, sizeof r->cmdline, "bagtop");
	for (size_t i = 0; args[i] && n <= CLI_MAX_ARGS; i++) {
		argv[n++] = (char *)args[i];
		if (k < sizeof r->cmdline)
			k += (size_t)snprintf(r->cmdline + k, sizeof r->cmdline - k, " %s", args[i]);
	}
	argv[n] = NULL;
	r->rc = tu_run(argv, &r->out);
	if (!r->out)
		r->out = bt_xstrdup("");
}

#define CLI(r, ...)                                                                  \
	do {                                                                         \
		const char *const cli_args_[] = {__VA_ARGS__, NULL};                 \
		cli_run((r), cli_args_);                                             \
	} while (0)

static void cli_fail(const struct cli_res *r, const char *why)
{
	print_error("command: %s\nexit status: %d\noutput:\n%s\n--> %s\n", r->cmdline, r->rc,
		    r->out, why);
	fail();
}

/* ---- looking at the output ---- */

struct cli_lines {
	char **line;
	size_t n;
};

static void cli_split(const char *out, struct cli_lines *l)
{
	l->line = NULL;
	l->n = 0;
	size_t cap = 0;
	for (const char *p = out; *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len) {
			bt_xgrow((void **)&l->line, &cap, l->n + 1, sizeof *l->line);
			l->line[l->n++] = bt_xstrndup(p, len);
		}
		p += len + (nl ? 1 : 0);
	}
}

static void cli_lines_fini(struct cli_lines *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->line[i]);
	free(l->line);
}

static bool cli_starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool cli_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && !strcmp(s + a - b, suffix);
}

/* What every run must satisfy, success or not. */
static void cli_common(const struct cli_res *r, const struct cli_lines *l)
{
	static const char *const bad[] = {"AddressSanitizer", "LeakSanitizer", "runtime error",
					  "UndefinedBehaviorSanitizer", "Segmentation",
					  "Aborted", "core dumped"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (strstr(r->out, bad[i]))
			cli_fail(r, "sanitizer report or crash in the output");
	if (r->rc >= 128)
		cli_fail(r, "killed by a signal");
	for (size_t i = 0; i < l->n; i++)
		if (strlen(l->line[i]) > CLI_MAX_LINE)
			cli_fail(r, "an output line is absurdly long");
}

static size_t cli_count_bagtop_lines(const struct cli_lines *l, size_t *which)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		if (cli_starts(l->line[i], "bagtop")) {
			if (which)
				*which = i;
			n++;
		}
	return n;
}

/* A runtime error: exit 1 and the single line "bagtop: error: ...needle...". */
static void want_error(const struct cli_res *r, const char *needle)
{
	struct cli_lines l;
	cli_split(r->out, &l);
	cli_common(r, &l);
	if (r->rc != 1)
		cli_fail(r, "want exit status 1");
	if (l.n != 1 || !cli_starts(l.line[0], "bagtop: error: "))
		cli_fail(r, "want exactly one line, 'bagtop: error: ...'");
	if (needle && !strstr(l.line[0], needle))
		cli_fail(r, needle);
	cli_lines_fini(&l);
}

/* A usage error: exit 2 and the single line
 * "bagtop CMD: ...needle... (see 'bagtop CMD --help')". cmd NULL: the
 * top-level form "bagtop: ... (see 'bagtop --help')". */
static void want_usage(const struct cli_res *r, const char *cmd, const char *needle)
{
	struct cli_lines l;
	char head[64], tail[96];
	cli_split(r->out, &l);
	cli_common(r, &l);
	if (cmd) {
		snprintf(head, sizeof head, "bagtop %s: ", cmd);
		snprintf(tail, sizeof tail, "(see 'bagtop %s --help')", cmd);
	} else {
		snprintf(head, sizeof head, "bagtop: ");
		snprintf(tail, sizeof tail, "(see 'bagtop --help')");
	}
	if (r->rc != 2)
		cli_fail(r, "want exit status 2 (usage)");
	if (l.n != 1 || !cli_starts(l.line[0], head) || !cli_ends(l.line[0], tail))
		cli_fail(r, "want exactly one usage line 'bagtop CMD: ... (see 'bagtop CMD --help')'");
	if (needle && !strstr(l.line[0], needle))
		cli_fail(r, needle);
	cli_lines_fini(&l);
}

/* check's failure: exit 1, one "bagtop: BAG: N problem(s) found" line on
 * stderr, and only "BAG: problem" lines besides, one naming `needle`. */
static void want_check(const struct cli_res *r, const char *bag, const char *needle)
{
	struct cli_lines l;
	char head[1100], tail[64];
	size_t which = 0;
	cli_split(r->out, &l);
	cli_common(r, &l);
	if (r->rc != 1)
		cli_fail(r, "want exit status 1");
	if (cli_count_bagtop_lines(&l, &which) != 1)
		cli_fail(r, "want exactly one line starting with 'bagtop'");
	snprintf(head, sizeof head, "bagtop: %s: ", bag);
	snprintf(tail, sizeof tail, " problem%s found", l.n - 1 == 1 ? "" : "s");
	if (!cli_starts(l.line[which], head) || !cli_ends(l.line[which], tail))
		cli_fail(r, "want the summary 'bagtop: BAG: N problems found', N = problem lines");
	snprintf(head, sizeof head, "%s: ", bag);
	bool named = false;
	for (size_t i = 0; i < l.n; i++) {
		if (i == which)
			continue;
		if (!cli_starts(l.line[i], head))
			cli_fail(r, "a line that is neither the summary nor 'BAG: problem'");
		if (cli_starts(l.line[i] + strlen(head), head))
			cli_fail(r, "the bag is named twice: 'BAG: BAG: problem'");
		named = named || !needle || strstr(l.line[i], needle);
	}
	if (l.n < 2)
		cli_fail(r, "want at least one problem line");
	if (!named)
		cli_fail(r, needle);
	cli_lines_fini(&l);
}

/* Success with exactly one line of output containing `needle`. */
static void want_ok_line(const struct cli_res *r, const char *needle)
{
	struct cli_lines l;
	cli_split(r->out, &l);
	cli_common(r, &l);
	if (r->rc != 0)
		cli_fail(r, "want exit status 0");
	if (l.n != 1 || !strstr(l.line[0], needle))
		cli_fail(r, needle);
	cli_lines_fini(&l);
}

/* ---- a directory's state, to prove nothing was touched ---- */

struct snap_entry {
	char *name; /* relative; directories end in '/' */
	char *data;
	size_t len;
};

struct snap {
	struct snap_entry *e;
	size_t n, cap;
};

/* Records `rel` (unless it is the root itself), then what is under it. */
static void snap_add(struct snap *s, const char *root, const char *rel, int depth)
{
	char *path = rel[0] ? bt_fs_join(root, rel) : bt_xstrdup(root);
	struct stat st;
	assert_int_equal(lstat(path, &st), 0);
	bool dir = S_ISDIR(st.st_mode);
	if (rel[0]) {
		bt_xgrow((void **)&s->e, &s->cap, s->n + 1, sizeof *s->e);
		struct snap_entry *e = &s->e[s->n++];
		memset(e, 0, sizeof *e);
		e->name = bt_xasprintf("%s%s", rel, dir ? "/" : "");
		if (S_ISREG(st.st_mode))
			assert_int_equal(bt_fs_read_all(path, 64u << 20, &e->data, &e->len, NULL),
					 BT_OK);
	}
	if (dir && depth < 8) {
		char **names;
		size_t n;
		assert_int_equal(bt_fs_list_dir(path, &names, &n, NULL), BT_OK);
		for (size_t i = 0; i < n; i++) {
			char *sub = rel[0] ? bt_xasprintf("%s/%s", rel, names[i])
					   : bt_xstrdup(names[i]);
			snap_add(s, root, sub, depth + 1);
			free(sub);
		}
		bt_fs_free_list(names, n);
	}
	free(path);
}

static void snap_take(struct snap *s, const char *dir)
{
	memset(s, 0, sizeof *s);
	snap_add(s, dir, "", 0);
}

static void snap_fini(struct snap *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].name);
		free(s->e[i].data);
	}
	free(s->e);
}

/* The directory still holds exactly what `before` recorded. */
static void want_unchanged(const struct cli_res *r, const struct snap *before,
			     const char *dir)
{
	struct snap now;
	snap_take(&now, dir);
	bool same = now.n == before->n;
	for (size_t i = 0; same && i < now.n; i++)
		same = !strcmp(now.e[i].name, before->e[i].name) &&
		       now.e[i].len == before->e[i].len &&
		       (!now.e[i].len || !memcmp(now.e[i].data, before->e[i].data, now.e[i].len));
	snap_fini(&now);
	if (!same)
		cli_fail(r, "the bag directory was changed (files added, removed or modified)");
}

/* ---- one command, one expectation ---- */

/* `bagtop CMD PATH` fails with one clear line holding `says`; with
 * `before`, nothing under `dir` changed. */
static void run_error(const char *cmd, const char *path, const char *says,
		      const struct snap *before, const char *dir)
{
	struct cli_res r;
	CLI(&r, cmd, path);
	want_error(&r, says);
	if (before)
		want_unchanged(&r, before, dir);
	cli_res_fini(&r);
}

/* `bagtop check BAG` reports the problem `says` (want_check); with
 * `before`, nothing under `dir` changed. */
static void run_check(const char *bag, const char *says, const struct snap *before,
		      const char *dir)
{
	struct cli_res r;
	CLI(&r, "check", bag);
	want_check(&r, bag, says);
	if (before)
		want_unchanged(&r, before, dir);
	cli_res_fini(&r);
}

/* `bagtop CMD PATH` succeeds with one line holding `says`. */
static void run_ok(const char *cmd, const char *path, const char *says)
{
	struct cli_res r;
	CLI(&r, cmd, path);
	want_ok_line(&r, says);
	cli_res_fini(&r);
}

/* ---- set-up ---- */

static const char *test_data(void)
{
	const char *d = getenv("BAGTOP_TEST_DATA");
	return d && *d ? d : "tests/data";
}

static void copy_tree(const char *src, const char *dst)
{
	char *const argv[] = {"cp", "-R", "--", (char *)src, (char *)dst, NULL};
	assert_int_equal(tu_run(argv, NULL), 0);
}

static int group_setup(void **state)
{
	(void)state;
	g_tmp = tu_mkdtemp("cli-input");
	/* A split demo's first file is a small, complete rosbag2 storage file. */
	char *bag = bt_fs_join(g_tmp, "demo");
	struct cli_res r;
	CLI(&r, "demo", "-o", bag, "--max-bag-size", "86016", "--duration", "2", "--domain", "100");
	if (r.rc != 0) {
		fprintf(stderr, "bagtop demo failed (%d):\n%s\n", r.rc, r.out);
		return -1;
	}
	cli_res_fini(&r);
	g_good_db3 = bt_fs_join(bag, "demo_0.db3");
	g_demo_bag = bag;
	return bt_fs_is_file(g_good_db3) ? 0 : -1;
}

static int group_teardown(void **state)
{
	(void)state;
	tu_rmrf(g_tmp);
	free(g_tmp);
	free(g_good_db3);
	free(g_demo_bag);
	return 0;
}

/* A fresh scratch directory under g_tmp. */
static char *scratch(const char *tag)
{
	static unsigned seq;
	char *p = bt_xasprintf("%s/%s-%u", g_tmp, tag, seq++);
	assert_int_equal(mkdir(p, 0755), 0);
	return p;
}

/* ---- metadata.yaml cases ---- */

struct meta_case {
	const char *file; /* under tests/data/bad/meta */
	const char *says; /* what the one error line must contain */
};

static const struct meta_case meta_cases[] = {
	{"alias_bomb.yaml", "'topic_metadata' is missing or not a mapping"},
	{"alias_recursive.yaml", "'storage_identifier' is missing"},
	{"control_chars_in_name.yaml", "'gone\\n_0.db3\\x1b[31m' listed in metadata.yaml is missing"},
	{"custom_data_sequence.yaml", "'custom_data' is not a mapping"},
	{"deep_nesting_block.yaml", "nested deeper than"},
	{"deep_nesting_flow.yaml", "nested deeper than"},
	{"duplicate_storage_file.yaml", "lists storage file 'bag_0.db3' twice (also as './bag_0.db3')"},
	{"empty.yaml", "empty YAML document"},
	{"files_negative_duration.yaml", "'files.duration' is negative"},
	{"garbage_bytes.yaml", "YAML error"},
	{"huge_line.yaml", "'version' is not a supported metadata version"},
	{"missing_relative_file_paths.yaml", "'relative_file_paths' is missing"},
	{"missing_storage_file.yaml", "'gone_0.db3' listed in metadata.yaml is missing"},
	{"missing_topics_with_message_count.yaml", "'topics_with_message_count' is missing"},
	{"missing_version.yaml", "'version' is missing"},
	{"nanoseconds_overflow.yaml", "'starting_time' is not a valid 64-bit time"},
	{"negative_duration.yaml", "'duration' is negative"},
	{"negative_message_count.yaml", "'message_count' is not a valid unsigned"},
	{"not_a_mapping_scalar.yaml", "not a rosbag2 metadata mapping"},
	{"not_a_mapping_sequence.yaml", "not a rosbag2 metadata mapping"},
	{"only_comment.yaml", "empty YAML document"},
	{"qos_depth_negative.yaml", "topic '/chatter': QoS profile 1 is malformed"},
	{"qos_policy_unknown.yaml", "topic '/chatter': QoS profile 1 is malformed"},
	{"qos_string_bad_yaml.yaml", "offered_qos_profiles: YAML error"},
	{"relative_file_paths_string.yaml", "'relative_file_paths' is not a sequence"},
	{"root_value_not_a_mapping.yaml", "not a rosbag2 metadata mapping"},
	{"tab_indent.yaml", "tab character"},
	{"topic_count_overflow.yaml", "'message_count' is not a valid unsigned"},
	{"topic_without_name.yaml", "'name' is missing"},
	{"topics_mapping.yaml", "'topics_with_message_count' is not a sequence"},
	{"unterminated_string.yaml", "YAML error"},
	{"version_0.yaml", "'version' is not a supported metadata version"},
	{"version_huge.yaml", "'version' is not a supported metadata version"},
	{"version_mapping.yaml", "'version' is not a supported metadata version"},
};
#define N_META_CASES (sizeof meta_cases / sizeof meta_cases[0])

/* A bag whose only fault is its metadata.yaml: info and check refuse it
 * (naming the problem) and touch nothing; reindex, which rebuilds
 * metadata.yaml from the storage files, repairs it, after which check
 * passes. */
static void run_meta_case(const struct meta_case *c)
{
	char *src = bt_xasprintf("%s/bad/meta/%s", test_data(), c->file);
	char *bag = scratch("meta");
	char *md = bt_fs_join(bag, "metadata.yaml");
	char *db = bt_fs_join(bag, "bag_0.db3");
	tu_copy_file(src, md);
	tu_copy_file(g_good_db3, db);
	struct snap before;
	snap_take(&before, bag);
	struct cli_res r;

	run_error("info", bag, c->says, &before, bag);

	CLI(&r, "info", "-v", md);
	want_error(&r, c->says);
	want_unchanged(&r, &before, bag);
	cli_res_fini(&r);

	run_check(bag, c->says, &before, bag);

	run_ok("reindex", bag, ": metadata.yaml rebuilt: 1 file, ");
	run_ok("check", bag, ": ok");

	snap_fini(&before);
	free(db);
	free(md);
	free(bag);
	free(src);
}

static void test_meta_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_META_CASES; i++)
		run_meta_case(&meta_cases[i]);
}

/* Every file in meta/ has an expectation above, and every expectation a file. */
static void test_meta_cases_complete(void **state)
{
	(void)state;
	char *dir = bt_xasprintf("%s/bad/meta", test_data());
	char **names;
	size_t n;
	assert_int_equal(bt_fs_list_dir(dir, &names, &n, NULL), BT_OK);
	for (size_t i = 0; i < n; i++) {
		bool known = false;
		for (size_t k = 0; k < N_META_CASES && !known; k++)
			known = !strcmp(names[i], meta_cases[k].file);
		if (!known)
			fail_msg("tests/data/bad/meta/%s has no expectation in test_cli_input.c",
				 names[i]);
	}
	assert_int_equal(n, N_META_CASES);
	bt_fs_free_list(names, n);
	free(dir);
}

/* metadata.yaml broken and no storage file: reindex has nothing to rebuild from. */
static void test_meta_without_storage(void **state)
{
	char *src = bt_xasprintf("%s/bad/meta/garbage_bytes.yaml", test_data());
	const char *bag = *state;
	char *md = bt_fs_join(bag, "metadata.yaml");
	tu_copy_file(src, md);
	struct snap before;
	snap_take(&before, bag);
	run_error("reindex", bag, "no rosbag2 storage files", &before, bag);
	snap_fini(&before);
	free(md);
	free(src);
}

/* libyaml's scanner is quadratic in flow nesting depth: without a depth
 * limit this 1 MB file takes bagtop many minutes (the ctest timeout fails
 * it); with one it is refused at once. Made here, not checked in: size. */
static void test_meta_deep_nesting_fast(void **state)
{
	static const char head[] = "rosbag2_bagfile_information:\n  version: 9\n  x: ";
	const size_t depth = 500000;
	size_t len = sizeof head - 1 + 2 * depth + 1;
	char *text = bt_xmalloc(len);
	memcpy(text, head, sizeof head - 1);
	memset(text + sizeof head - 1, '[', depth);
	memset(text + sizeof head - 1 + depth, ']', depth);
	text[len - 1] = '\n';
	const char *bag = *state;
	char *md = bt_fs_join(bag, "metadata.yaml");
	tu_write_file(md, text, len);
	run_error("info", bag, "nested deeper than", NULL, NULL);
	free(md);
	free(text);
}

/* ---- storage-file cases ---- */

struct storage_case {
	const char *dir;  /* under tests/data/bad/storage: a bag without metadata.yaml */
	const char *file; /* the one storage file in it */
	const char *says;
};

static const struct storage_case storage_cases[] = {
	{"random_bytes", "x_0.db3", "file is not a database"},
	{"empty_db3", "x_0.db3", "not a rosbag2 sqlite3 file"},
	{"plain_sqlite", "x_0.db3", "not a rosbag2 sqlite3 file (no topics or messages table)"},
	{"truncated_db3", "demo_0.db3", "database disk image is malformed"},
	{"truncated_zstd", "demo_0.db3.zstd", "truncated zstd file"},
	{"random_zstd", "x_0.db3.zstd", "corrupt zstd data"},
	{"zstd_not_sqlite", "x_0.db3.zstd", "file is not a database"},
};
#define N_STORAGE_CASES (sizeof storage_cases / sizeof storage_cases[0])

/* The error names the bag's own file, never a temporary copy of it. */
static void want_names_file(const struct cli_res *r, const char *file)
{
	if (!strstr(r->out, file))
		cli_fail(r, "the message does not name the storage file");
	if (strstr(r->out, "/bagtop-") && !strstr(r->out, "/bagtop-test-"))
		cli_fail(r, "the message names a temporary file the user never sees");
}

static void run_storage_case(const struct storage_case *c)
{
	char *src = bt_xasprintf("%s/bad/storage/%s", test_data(), c->dir);
	char *top = scratch("storage");
	char *bag = bt_fs_join(top, c->dir);
	copy_tree(src, bag);
	char *file = bt_fs_join(bag, c->file);
	struct snap before;
	snap_take(&before, bag);
	struct cli_res r;
	const char *targets[] = {bag, file};

	for (size_t t = 0; t < 2; t++) {
		CLI(&r, "info", targets[t]);
		want_error(&r, c->says);
		want_names_file(&r, c->file);
		want_unchanged(&r, &before, bag);
		cli_res_fini(&r);

		CLI(&r, "check", targets[t]);
		want_check(&r, targets[t], c->says);
		want_names_file(&r, c->file);
		want_unchanged(&r, &before, bag);
		cli_res_fini(&r);
	}

	CLI(&r, "reindex", bag);
	if (!strcmp(c->dir, "empty_db3")) {
		/* By design (crash recovery): a storage file without any table
		 * was being created when the recorder died and never held a
		 * message; reindex sets it aside (never deletes it) and writes
		 * an empty bag. */
		struct cli_lines l;
		cli_split(r.out, &l);
		cli_common(&r, &l);
		if (r.rc != 0 || cli_count_bagtop_lines(&l, NULL) != 1 ||
		    !strstr(r.out, "its creation was interrupted") ||
		    !strstr(r.out, "metadata.yaml rebuilt: 0 files, 0 messages") ||
		    bt_fs_exists(file))
			cli_fail(&r, "want the blank file set aside and an empty bag indexed");
		cli_lines_fini(&l);
	} else {
		want_error(&r, c->says);
		want_names_file(&r, c->file);
		want_unchanged(&r, &before, bag);
	}
	cli_res_fini(&r);

	snap_fini(&before);
	free(file);
	free(bag);
	free(top);
	free(src);
}

static void test_storage_cases(void **state)
{
	(void)state;
	for (size_t i = 0; i < N_STORAGE_CASES; i++)
		run_storage_case(&storage_cases[i]);
}

/* ---- odd paths ---- */

static void test_missing_path(void **state)
{
	const char *top = *state;
	char *bag = bt_fs_join(top, "no_such_bag");
	run_error("info", bag, "no such file or directory", NULL, NULL);
	run_check(bag, "no such file or directory", NULL, NULL);
	run_error("reindex", bag, "no such bag directory", NULL, NULL);
	assert_false(bt_fs_exists(bag));
	free(bag);
}

/* An empty directory, and an empty directory named like a storage file. */
static void test_empty_dirs(void **state)
{
	const char *top = *state;
	char *dirs[] = {bt_fs_join(top, "bag"), bt_fs_join(top, "foo.db3")};
	for (size_t i = 0; i < 2; i++) {
		assert_int_equal(mkdir(dirs[i], 0755), 0);
		struct snap before;
		snap_take(&before, top);
		run_error("info", dirs[i], "no rosbag2 storage files", &before, top);
		run_check(dirs[i], "no rosbag2 storage files", &before, top);
		run_error("reindex", dirs[i], "no rosbag2 storage files", &before, top);
		snap_fini(&before);
		free(dirs[i]);
	}
}

/* A directory where a storage file should be: in the listing, and in
 * metadata.yaml's place. */
static void test_dir_where_file_expected(void **state)
{
	(void)state;
	char *bag = scratch("dirfile");
	char *sub = bt_fs_join(bag, "x_0.db3");
	assert_int_equal(mkdir(sub, 0755), 0);
	struct snap before;
	snap_take(&before, bag);
	run_error("info", bag, "x_0.db3: not a regular file", NULL, NULL);
	run_error("info", sub, "no rosbag2 storage files", NULL, NULL);
	run_check(bag, "x_0.db3: not a regular file", NULL, NULL);
	run_error("reindex", bag, "x_0.db3: not a regular file", &before, bag);
	snap_fini(&before);
	free(sub);
	free(bag);

	bag = scratch("mddir");
	char *md = bt_fs_join(bag, "metadata.yaml");
	char *db = bt_fs_join(bag, "bag_0.db3");
	assert_int_equal(mkdir(md, 0755), 0);
	tu_copy_file(g_good_db3, db);
	snap_take(&before, bag);
	run_error("info", bag, "metadata.yaml: not a regular file", &before, bag);
	run_check(bag, "metadata.yaml: not a regular file", &before, bag);
	run_error("reindex", bag, "metadata.yaml is not a regular file", &before, bag);
	snap_fini(&before);
	free(db);
	free(md);
	free(bag);
}

/* reindex wants a bag directory: a storage file is a usage error. */
static void test_reindex_file(void **state)
{
	const char *bag = *state;
	char *db = bt_fs_join(bag, "bag_0.db3");
	tu_copy_file(g_good_db3, db);
	struct snap before;
	snap_take(&before, bag);
	struct cli_res r;
	CLI(&r, "reindex", db);
	want_usage(&r, "reindex", "needs a bag directory, not a file");
	want_unchanged(&r, &before, bag);
	cli_res_fini(&r);
	snap_fini(&before);
	free(db);
}

/* Names with control characters stay on one line (escaped). */
static void test_control_chars(void **state)
{
	const char *top = *state;
	char *bag = bt_fs_join(top, "a\nbagtop: fake\x1b[2J");
	struct cli_res r;
	run_error("info", bag, "a\\nbagtop: fake\\x1b[2J", NULL, NULL);
	CLI(&r, "check", bag);
	struct cli_lines l;
	cli_split(r.out, &l);
	cli_common(&r, &l);
	if (r.rc != 1 || l.n != 2 || cli_count_bagtop_lines(&l, NULL) != 1)
		cli_fail(&r, "want the summary and one problem line, escaped");
	cli_lines_fini(&l);
	cli_res_fini(&r);
	CLI(&r, "info", "--x\ny");
	want_usage(&r, "info", "'--x\\ny'");
	cli_res_fini(&r);
	CLI(&r, "frob\nnicate");
	want_usage(&r, NULL, "'frob\\nnicate'");
	cli_res_fini(&r);
	free(bag);
}

/* ---- command-line misuse ---- */

static void test_usage_errors(void **state)
{
	(void)state;
	struct cli_res r;
	CLI(&r, "frobnicate");
	want_usage(&r, NULL, "unknown command 'frobnicate'");
	cli_res_fini(&r);

	static const char *const cmds[] = {"info", "check", "reindex"};
	for (size_t i = 0; i < 3; i++) {
		CLI(&r, cmds[i], "--bogus", g_tmp);
		want_usage(&r, cmds[i], "unknown option '--bogus'");
		cli_res_fini(&r);
		CLI(&r, cmds[i], "-q", g_tmp);
		want_usage(&r, cmds[i], "unknown option '-q'");
		cli_res_fini(&r);
		CLI(&r, cmds[i], g_tmp, g_tmp);
		want_usage(&r, cmds[i], "expects one BAG");
		cli_res_fini(&r);
		CLI(&r, cmds[i]);
		want_usage(&r, cmds[i], "expects one BAG");
		cli_res_fini(&r);
	}
	CLI(&r, "info", "-v", "--verbose=yes", g_tmp);
	want_usage(&r, "info", "--verbose");
	cli_res_fini(&r);
	CLI(&r, "record", "-f", "ros1", "/x");
	want_usage(&r, "record", "'ros1' is no DDS format");
	cli_res_fini(&r);
	CLI(&r, "record", "-p", "1.5", "/x");
	want_usage(&r, "record", "--polling-interval wants milliseconds, 0 or more, got '1.5'");
	cli_res_fini(&r);
	CLI(&r, "record", "--compression-queue-size", "-1", "/x");
	want_usage(&r, "record", "--compression-queue-size wants a count, 0 or more, got '-1'");
	cli_res_fini(&r);
	CLI(&r, "record", "--log-level", "loud", "/x");
	want_usage(&r, "record", "--log-level is debug, info, warn, error or fatal, not 'loud'");
	cli_res_fini(&r);
	CLI(&r, "info", "--sort", "size", g_tmp);
	want_usage(&r, "info", "--sort is name, type or count");
	cli_res_fini(&r);
	/* An empty name in a list was looked for as a topic ("topic  is not
	 * in the bag", "//_service_event"). */
	static const char *const readers[] = {"play", "burst", "convert"};
	static const char *const lists[] = {"--topics", "--exclude-topics", "--services",
					    "--exclude-services"};
	for (size_t i = 0; i < 3; i++)
		for (size_t k = 0; k < 4; k++) {
			char says[64];
			snprintf(says, sizeof says, "%s wants names, got ''", lists[k] + 2);
			CLI(&r, readers[i], g_tmp, lists[k], "");
			want_usage(&r, readers[i], says);
			cli_res_fini(&r);
		}
	CLI(&r, "convert", g_tmp, "out", "--start", "9999999999"); /* past INT64_MAX ns */
	want_usage(&r, "convert", "--start wants seconds since the epoch (1700000000.25; at most "
				  "9223372036)");
	cli_res_fini(&r);
	CLI(&r, "burst", "-n", "-1", g_tmp);
	want_usage(&r, "burst", "--num-messages wants 0..");
	cli_res_fini(&r);
	CLI(&r, "burst", "--loop", g_tmp); /* a burst is no loop: play's -l is not burst's */
	want_usage(&r, "burst", "unknown option '--loop'");
	cli_res_fini(&r);
	CLI(&r, "info", "--help");
	if (r.rc != 0 || !strstr(r.out, "Usage: bagtop info"))
		cli_fail(&r, "--help prints the usage and exits 0");
	cli_res_fini(&r);
}

/* demo refuses bad options before creating anything, with or without -o. */
static void test_demo_refusals(void **state)
{
	char *cwd = getcwd(NULL, 0);
	const char *top = *state;
	assert_int_equal(chdir(top), 0); /* where a default-named bag would go */
	char *out = bt_fs_join(top, "new_bag");
	struct snap before;
	snap_take(&before, top);
	struct cli_res r;
	static const struct {
		const char *opt, *arg, *says;
	} bad[] = {
		{"--max-bag-size", "100", "--max-bag-size must be 0 or at least 86016"},
		{"--max-bag-size", "lots", "--max-bag-size wants a byte count"},
		{"--compression-mode", "bogus", "--compression-mode is none, file or message"},
		{"--custom-data", "nokey", "--custom-data wants KEY=VALUE"},
		{"--custom-data", "=value", "--custom-data wants KEY=VALUE"},
		{"--max-bag-duration", "-1", "--max-bag-duration wants seconds"},
		{"--compression-format", "lz4", "only zstd"},
		{"--storage-preset-profile", "max_write", "--storage-preset-profile is none or"},
		/* Once taken silently: an empty mode or preset (the default then),
		 * a split duration that rounds to 0 (never) or splits constantly. */
		{"--compression-mode", "", "--compression-mode is none, file or message, not ''"},
		{"--storage-preset-profile", "", "--storage-preset-profile is none or resilient"},
		{"--max-bag-duration", "0.0000000001", "must be 0 (never) or at least 0.001"},
		{"-d", "0.0005", "must be 0 (never) or at least 0.001"},
		/* 1e9 / rate overflowed: a spinning statistics thread, no stop. */
		{"--statistics-update-rate", "1e-300", "--statistics-update-rate wants 0 or"},
		{"--statistics-update-rate", "0x10", "--statistics-update-rate wants 0 or"},
		{"--statistics-update-rate", "inf", "--statistics-update-rate wants 0 or"},
		{"--statistics-update-rate", "nan", "--statistics-update-rate wants 0 or"},
		{"--statistics-update-rate", "0.0001", "--statistics-update-rate wants 0 or"},
		{"--statistics-update-rate", "-1", "--statistics-update-rate wants 0 or"},
		{"--statistics-update-rate", "101", "--statistics-update-rate wants 0 or"},
		{"--statistics-update-rate", "1.", "--statistics-update-rate wants 0 or"},
		{"--stop-timeout", "-1", "--stop-timeout wants seconds"},
		{"--stop-timeout", "soon", "--stop-timeout wants seconds"},
	};
	/* A value taken by mistake records for a second (domain 200) and fails
	 * the case, rather than the test hanging. */
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CLI(&r, "demo", "-o", out, "--duration", "1", "--domain", "200", bad[i].opt,
		    bad[i].arg);
		want_usage(&r, "demo", bad[i].says);
		want_unchanged(&r, &before, top);
		cli_res_fini(&r);
		CLI(&r, "demo", "--duration", "1", "--domain", "200", bad[i].opt, bad[i].arg);
		want_usage(&r, "demo", bad[i].says);
		want_unchanged(&r, &before, top);
		cli_res_fini(&r);
	}
	CLI(&r, "demo", "--compression-format", "zstd", "-o", out);
	want_usage(&r, "demo", "--compression-format needs --compression-mode");
	want_unchanged(&r, &before, top);
	cli_res_fini(&r);
	CLI(&r, "demo", "-o");
	want_usage(&r, "demo", "option '-o' needs an argument");
	want_unchanged(&r, &before, top);
	cli_res_fini(&r);
	CLI(&r, "demo", "--max-bag-size");
	want_usage(&r, "demo", "option '--max-bag-size' needs an argument");
	want_unchanged(&r, &before, top);
	cli_res_fini(&r);
	CLI(&r, "demo", "-o", out, "extra");
	want_usage(&r, "demo", "takes no operands");
	want_unchanged(&r, &before, top);
	cli_res_fini(&r);
	snap_fini(&before);
	assert_int_equal(chdir(cwd), 0);
	free(cwd);
	free(out);
}

/* Recording goes on, with one warning line at the start: a cache too small
 * for any message (domain 201), and a log file that cannot be written
 * (domain 202, said once however many lines fail). */
static void want_one_warning(const struct cli_res *r, const char *needle)
{
	struct cli_lines l;
	cli_split(r->out, &l);
	cli_common(r, &l);
	if (r->rc != 0)
		cli_fail(r, "want exit status 0: recording goes on");
	size_t n = 0;
	for (size_t i = 0; i < l.n; i++)
		if (strstr(l.line[i], needle)) {
			n++;
			if (!cli_starts(l.line[i], "bagtop: warning: "))
				cli_fail(r, "want 'bagtop: warning: ...'");
		}
	if (n != 1)
		cli_fail(r, needle);
	cli_lines_fini(&l);
}

static void test_start_warnings(void **state)
{
	const char *top = *state;
	char *a = bt_fs_join(top, "small_cache"), *b = bt_fs_join(top, "log_full");
	struct cli_res r;
	CLI(&r, "demo", "-o", a, "--duration", "1", "--domain", "201", "--max-cache-size", "1");
	want_one_warning(&r, "--max-cache-size 1 B is small");
	cli_res_fini(&r);
	if (bt_fs_exists("/dev/full")) {
		CLI(&r, "demo", "-o", b, "--duration", "1", "--domain", "202", "--log-file",
		    "/dev/full");
		want_one_warning(&r, "cannot write the log file /dev/full: No space left");
		cli_res_fini(&r);
	} else {
		printf("note: no /dev/full: a failing log file not checked\n");
	}
	free(a);
	free(b);
}

/* A bag directory that cannot be made says why, not just ENOENT: /proc
 * exists but takes no new directories (domain 203). */
static void test_output_cannot_create(void **state)
{
	struct cli_res r;
	CLI(&r, "demo", "-o", "/proc/bagtop-test", "--duration", "1", "--domain", "203");
	want_error(&r, "cannot create bag directory /proc/bagtop-test: /proc does not allow new "
		       "directories");
	cli_res_fini(&r);
	const char *top = *state;
	char *bag = bt_xasprintf("%s/missing/bag", top);
	CLI(&r, "demo", "-o", bag, "--duration", "1", "--domain", "203");
	want_error(&r, "/missing is not a directory or does not exist");
	cli_res_fini(&r);
	free(bag);
}

/* Counts of one are singular: the demo's /tf_static is published once (in
 * whichever file of the split bag it landed). */
static void test_singular(void **state)
{
	(void)state;
	struct cli_res r;
	CLI(&r, "info", "-v", g_demo_bag);
	if (r.rc != 0 || !strstr(r.out, "[tf2_msgs/msg/TFMessage]  1 message, rate - Hz\n"))
		cli_fail(&r, "want '/tf_static  [tf2_msgs/msg/TFMessage]  1 message, rate - Hz'");
	if (strstr(r.out, " 1 messages") || strstr(r.out, " 1 files") || strstr(r.out, " 1 topics"))
		cli_fail(&r, "a count of 1 with a plural noun");
	cli_res_fini(&r);
}

/* demo -o EXISTING refuses and leaves the directory alone. */
static void test_demo_existing_dir(void **state)
{
	const char *dir = *state;
	char *keep = bt_fs_join(dir, "keep.txt");
	tu_write_file(keep, "precious\n", 9);
	struct snap before;
	snap_take(&before, dir);
	struct cli_res r;
	CLI(&r, "demo", "-o", dir, "--duration", "1", "--domain", "100");
	want_error(&r, "already exists");
	want_unchanged(&r, &before, dir);
	cli_res_fini(&r);
	snap_fini(&before);
	free(keep);
}

int main(void)
{
	if (!getenv("BAGTOP_BIN")) {
		printf("SKIP: BAGTOP_BIN is not set (run through ctest)\n");
		return 77;
	}
	/* A bagtop that hangs is a finding, not a stuck test: every child
	 * inherits this CPU limit and dies of SIGXCPU (a failed case). */
	struct rlimit cpu = {30, 40};
	if (setrlimit(RLIMIT_CPU, &cpu) != 0)
		perror("setrlimit");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_meta_cases_complete),
		cmocka_unit_test(test_meta_cases),
		TU_SCRATCH_TEST(test_meta_without_storage),
		TU_SCRATCH_TEST(test_meta_deep_nesting_fast),
		cmocka_unit_test(test_storage_cases),
		TU_SCRATCH_TEST(test_missing_path),
		TU_SCRATCH_TEST(test_empty_dirs),
		cmocka_unit_test(test_dir_where_file_expected),
		TU_SCRATCH_TEST(test_reindex_file),
		TU_SCRATCH_TEST(test_control_chars),
		cmocka_unit_test(test_usage_errors),
		TU_SCRATCH_TEST(test_demo_refusals),
		TU_SCRATCH_TEST(test_demo_existing_dir),
		TU_SCRATCH_TEST(test_start_warnings),
		TU_SCRATCH_TEST(test_output_cannot_create),
		cmocka_unit_test(test_singular),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
