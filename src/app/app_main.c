#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app.h"

#ifndef BAGTOP_VERSION
#define BAGTOP_VERSION "0.0.0"
#endif

static const struct app_cmd *const app_cmds[] = {&app_cmd_record, &app_cmd_play, &app_cmd_burst,
						 &app_cmd_demo, &app_cmd_info, &app_cmd_check,
						 &app_cmd_reindex, &app_cmd_convert, &app_cmd_snapshot,
						 &app_cmd_pause, &app_cmd_resume,
						 &app_cmd_stats, &app_cmd_call};
#define APP_N_CMDS (sizeof app_cmds / sizeof app_cmds[0])

/* "bagtop: <kind>: <msg>" on stderr, one line. */
static void app_vsay(const char *kind, const char *fmt, va_list ap)
{
	char line[4096];
	app_vformat_line(line, sizeof line, fmt, ap);
	fprintf(stderr, "bagtop: %s: %s\n", kind, line);
}

void app_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	app_vsay("error", fmt, ap);
	va_end(ap);
}

void app_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	app_vsay("warning", fmt, ap);
	va_end(ap);
}

static void app_help(void)
{
	printf("Usage: bagtop COMMAND [OPTIONS] [ARGS]\n\n"
	       "Record DDS / ROS 2 topics into rosbag2 bags from the terminal.\n\nCommands:\n");
	for (size_t i = 0; i < APP_N_CMDS; i++)
		app_opts_row(app_cmds[i]->name, 8, app_cmds[i]->summary);
	printf("\nOptions:\n"
	       "  -h, --help     show this help and exit\n"
	       "  -V, --version  show the version and exit\n\n"
	       "'bagtop COMMAND --help' describes a command; 'man bagtop' has everything.\n");
}

static int app_dispatch(int argc, char **argv);

/* Standard output that could not be written (a full disk, a closed
 * descriptor) is an error of the command, as in coreutils' close_stdout:
 * `bagtop info BAG > report` on a full disk must not exit 0 with half a
 * report. A pipe's is not: its only failure is a reader that went away on
 * purpose (`| head`; record ignores SIGPIPE, and the failed write may have
 * been any status line, its errno long gone). */
static int app_finish_stdout(int rc)
{
	errno = 0;
	bool failed = fflush(stdout) != 0;
	int e = errno;
	failed = failed || ferror(stdout);
	struct stat sb;
	bool pipe = fstat(STDOUT_FILENO, &sb) == 0 && (S_ISFIFO(sb.st_mode) || S_ISSOCK(sb.st_mode));
	if (!failed || pipe || e == EPIPE)
		return rc;
	app_error("cannot write the output: %s", e ? strerror(e) : "I/O error");
	return rc == APP_EXIT_OK ? APP_EXIT_ERROR : rc;
}

int app_main(int argc, char **argv)
{
	return app_finish_stdout(app_dispatch(argc, argv));
}

static int app_dispatch(int argc, char **argv)
{
	/* A file-size limit must give an error (EFBIG) we report, not a kill. */
	signal(SIGXFSZ, SIG_IGN);
	if (argc < 2) {
		app_help();
		return APP_EXIT_USAGE;
	}
	const char *verb = argv[1];
	if (!strcmp(verb, "-h") || !strcmp(verb, "--help") || !strcmp(verb, "help")) {
		app_help();
		return APP_EXIT_OK;
	}
	if (!strcmp(verb, "-V") || !strcmp(verb, "--version")) {
		printf("bagtop %s\n", BAGTOP_VERSION);
		return APP_EXIT_OK;
	}
	for (size_t i = 0; i < APP_N_CMDS; i++)
		if (!strcmp(verb, app_cmds[i]->name))
			return app_cmds[i]->run(app_cmds[i], argc - 1, argv + 1);
	char word[256];
	app_escape(verb, word, sizeof word);
	fprintf(stderr, "bagtop: unknown command '%s' (see 'bagtop --help')\n", word);
	return APP_EXIT_USAGE;
}
