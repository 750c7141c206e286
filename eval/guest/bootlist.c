// SPDX-License-Identifier: GPL-2.0
/*
 * bootlist - a boot-prefetcher-style baseline for the ppf evaluation.
 *
 * usage: bootlist [--sentinel FILE] LIST
 *
 * LIST has one "OFFSET LEN PATH" line per range the previous run used, in the
 * order it used them (made by eval/guest/run-experiment.sh from ppf-replay's
 * --events output).  bootlist asks the kernel to read each range ahead with
 * posix_fadvise(POSIX_FADV_WILLNEED), in that order, like ureadahead or a
 * boot prefetcher replaying the list of the previous boot.
 *
 * --sentinel FILE: the replay drops the page cache (--cold) right before its
 * timed part; a prefetch started earlier would be thrown away.  bootlist
 * therefore first reads FILE (a file on the same file system) into the page
 * cache, then polls cachestat(2) every 200 us until the drop has evicted it,
 * and starts only then: at the same moment as the workload, not earlier.
 *
 * Prints "bootlist: N ranges, M files, K errors, T ns" to stderr at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cs_range { uint64_t off, len; };
struct cs { uint64_t cache, dirty, writeback, evicted, recently_evicted; };

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static long cached_pages(int fd)
{
	struct cs_range r = { 0, 0 };
	struct cs c;

	if (syscall(__NR_cachestat, fd, &r, &c, 0))
		return -1;
	return (long)c.cache;
}

static int wait_for_drop(const char *sentinel)
{
	char buf[4096];
	int fd = open(sentinel, O_RDONLY);
	struct timespec ts = { 0, 200000 };

	if (fd < 0 || read(fd, buf, sizeof(buf)) < 0) {
		perror(sentinel);
		return -1;
	}
	if (cached_pages(fd) <= 0) {
		fprintf(stderr, "bootlist: sentinel not cached (cachestat: %s)\n",
			strerror(errno));
		return -1;
	}
	while (cached_pages(fd) > 0)
		nanosleep(&ts, NULL);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *sentinel = NULL, *list;
	char line[8192], last[4096] = "";
	long long off, len;
	unsigned long ranges = 0, files = 0, errors = 0;
	uint64_t t0;
	int fd = -1, i = 1;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "--sentinel")) {
		sentinel = argv[2];
		i = 3;
	}
	if (i != argc - 1) {
		fprintf(stderr, "usage: bootlist [--sentinel FILE] LIST\n");
		return 1;
	}
	list = argv[i];
	f = fopen(list, "r");
	if (!f) {
		perror(list);
		return 1;
	}
	if (sentinel && wait_for_drop(sentinel))
		return 1;
	t0 = now_ns();
	while (fgets(line, sizeof(line), f)) {
		int n = 0;
		char *path;

		line[strcspn(line, "\n")] = 0;
		if (sscanf(line, "%lld %lld %n", &off, &len, &n) < 2 || !n)
			continue;
		path = line + n;
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
