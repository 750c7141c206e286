// SPDX-License-Identifier: GPL-2.0
/*
 * bootlist - a boot-prefetcher-style baseline for the ppf evaluation.
 *
 * usage: bootlist [--start-mark FILE] LIST
 *
 * LIST has one "OFFSET LEN PATH" line per range the previous run used, in the
 * order it used them (made by eval/guest/run-experiment.sh from ppf-replay's
 * --events output).  bootlist asks the kernel to read each range ahead with
 * posix_fadvise(POSIX_FADV_WILLNEED), in that order, like ureadahead or a
 * boot prefetcher replaying the list of the previous boot.
 *
 * --start-mark FILE: start when FILE appears (ppf-replay run --drop-mark:
 * after the replay's cache drop), with the workload, not earlier
 * (start_mark.h).
 *
 * Prints "bootlist: N ranges, M files, K errors, T ns" to stderr at the end.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "range_list.h"
#include "start_mark.h"

int main(int argc, char **argv)
{
	const char *start = NULL, *list;
	char *path;
	char line[8192], last[4096] = "";
	long long off, len;
	unsigned long ranges = 0, files = 0, errors = 0;
	uint64_t t0;
	int fd = -1, i = 1;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "--start-mark")) {
		start = argv[2];
		i = 3;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: bootlist [--start-mark FILE] LIST\n");
		return 1;
	}
	list = argv[i];
	f = fopen(list, "r");
	if (!f) {
		perror(list);
		return 1;
	}
	if (start && wait_for_start("bootlist", start))
		return 1;
	t0 = now_ns();
	while ((path = range_next(f, line, sizeof(line), &off, &len))) {
		if (strcmp(path, last)) {
			if (fd >= 0)
				close(fd);
			fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
			if (fd < 0)
				fd = open(path, O_RDONLY | O_CLOEXEC);
			snprintf(last, sizeof(last), "%s", path);
			files++;
		}
		if (fd < 0) {
			errors++;
			continue;
		}
		if (posix_fadvise(fd, off, len, POSIX_FADV_WILLNEED))
			errors++;
		ranges++;
	}
	if (fd >= 0)
		close(fd);
	fprintf(stderr, "bootlist: %lu ranges, %lu file switches, %lu errors, %llu ns\n",
		ranges, files, errors, (unsigned long long)(now_ns() - t0));
	return 0;
}
