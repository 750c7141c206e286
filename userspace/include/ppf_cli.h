/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf_cli.h - what every ppf command-line tool does the same way:
 * --version from the tree's VERSION file (passed as -DPPF_VERSION by the
 * Makefiles), a broken output pipe ending the tool quietly (exit 0, no
 * signal, no message: `ppf-sim ... | head` is not an error), and output
 * paths checked writable before any work starts.
 *
 * Exit statuses, the same in every tool: 0 done, 1 a failure, 2 a bad
 * command line.
 */
#ifndef PPF_CLI_H
#define PPF_CLI_H

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef PPF_VERSION
#define PPF_VERSION "unknown (built without -DPPF_VERSION)"
#endif

#define PPF_EXIT_OK	0
#define PPF_EXIT_FAIL	1
#define PPF_EXIT_USAGE	2

static inline void ppf_cli_version(const char *prog)
{
	printf("%s (ppf) %s\n", prog, PPF_VERSION);
}

/*
 * A reader that went away (head, less quit) is not an error: SIGPIPE is
 * ignored, so writes to it fail quietly (EPIPE) and the tool finishes its
 * work (ppf-sim still writes its --json, ppf-replay its reports); a tool
 * that would print forever checks ppf_cli_stdout_gone() and stops (exit 0).
 */
static inline void ppf_cli_quiet_pipe(void)
{
	signal(SIGPIPE, SIG_IGN);
}

/* Standard output cannot be written any more (its reader went away). */
static inline int ppf_cli_stdout_gone(void)
{
	fflush(stdout);
	return ferror(stdout);
}

/*
 * Can path be written (created, or replaced if it exists)?  0, or -1 with
 * errno: EISDIR for a directory, ENOENT when its directory is missing,
 * ENOTDIR, EACCES.  Checked before the work, so a long run is not lost to
 * a typo in an output path.
 */
static inline int ppf_cli_writable(const char *path)
{
	struct stat st;
	const char *slash;
	char *dir;
	int ret;

	if (!path || !*path) {
		errno = ENOENT;
		return -1;
	}
	if (stat(path, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		return access(path, W_OK);
	}
	if (errno != ENOENT)
		return -1;
	slash = strrchr(path, '/');
	if (!slash)
		return access(".", W_OK | X_OK);
	dir = strndup(path, slash == path ? 1 : (size_t)(slash - path));
	if (!dir)
		return -1;
	if (stat(dir, &st))
		ret = -1;
	else if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		ret = -1;
	} else {
		ret = access(dir, W_OK | X_OK);
	}
	free(dir);
	return ret;
}

#endif
