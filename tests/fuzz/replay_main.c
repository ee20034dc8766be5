/* replay_main — runs a fuzz target's LLVMFuzzerTestOneInput over files, so
 * its seeds, the bad-input corpus and the crashes it once found are
 * exercised by every ctest run, without clang or libFuzzer.
 *
 *   replay_fuzz_metadata PATH...   (files, or directories walked recursively)
 *
 * Exit 0 when every input was run (a finding aborts), 1 when an argument
 * cannot be read or holds no input at all. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_target.h"

#define REPLAY_MAX_DEPTH 8
#define REPLAY_MAX_BYTES (64u * 1024u * 1024u)
#define REPLAY_MAX_FILES 100000u

static size_t replay_count;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		fprintf(stderr, "replay: cannot open %s\n", path);
		return -1;
	}
	uint8_t *buf = malloc(REPLAY_MAX_BYTES);
	size_t n = buf ? fread(buf, 1, REPLAY_MAX_BYTES, f) : 0;
	int bad = !buf || ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		fprintf(stderr, "replay: cannot read %s\n", path);
		return -1;
	}
	/* A copy of exactly n bytes, so ASan sees any read past the input. */
	uint8_t *exact = malloc(n ? n : 1);
	if (!exact) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, n);
	free(buf);
	LLVMFuzzerTestOneInput(exact, n);
	free(exact);
	replay_count++;
	return 0;
}

static int replay_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path, int depth);

/* Entries in name order, so a run is the same everywhere. */
static int replay_dir(const char *path, int depth)
{
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: cannot open directory %s\n", path);
		return -1;
	}
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	int rc = 0;
	while (rc == 0 && (e = readdir(d)) != NULL && n < REPLAY_MAX_FILES) {
		if (e->d_name[0] == '.')
			continue;
		char **grown = realloc(names, (n + 1) * sizeof *names);
		size_t len = strlen(path) + strlen(e->d_name) + 2;
		char *full = grown ? malloc(len) : NULL;
		if (grown)
			names = grown;
		if (!full) {
			rc = -1;
			break;
		}
		snprintf(full, len, "%s/%s", path, e->d_name);
		names[n++] = full;
	}
	closedir(d);
	if (n) /* names is NULL for an empty directory */
		qsort(names, n, sizeof *names, replay_name_cmp);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0)
			rc = replay_path(names[i], depth + 1);
		free(names[i]);
	}
	free(names);
	return rc;
}

static int replay_path(const char *path, int depth)
{
	struct stat st;
	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: no such file or directory: %s\n", path);
		return -1;
	}
	if (S_ISDIR(st.st_mode))
		return depth < REPLAY_MAX_DEPTH ? replay_dir(path, depth) : 0;
	return S_ISREG(st.st_mode) ? replay_file(path) : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE_OR_DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		size_t before = replay_count;
		if (replay_path(argv[i], 0) != 0)
			return 1;
		if (replay_count == before) {
			fprintf(stderr, "replay: %s holds no input\n", argv[i]);
			return 1;
		}
		printf("replay: %zu inputs from %s\n", replay_count - before, argv[i]);
	}
	printf("replay: %zu inputs, no finding\n", replay_count);
	return 0;
}
