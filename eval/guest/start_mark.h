/* SPDX-License-Identifier: GPL-2.0 */
/*
 * start_mark.h - start a guest prefetcher with the replay's timed part
 * (shared by bootlist.c and oracle.c).
 *
 * The replay drops the caches (--cold) right before its timed part: a
 * prefetch started earlier, or while the drop still walks the file system,
 * would be thrown away.  ppf-replay run --drop-mark FILE creates FILE once
 * the drop is over; the prefetcher waits for it with inotify (no polling:
 * the guest has one CPU, which the replay needs) and starts then, at the
 * same moment as the workload, not earlier.
 */
#ifndef PPF_EVAL_START_MARK_H
#define PPF_EVAL_START_MARK_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

static inline uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * Returns 0 once path exists, -1 (with a message) if it cannot be watched.
 * path must not exist yet (the caller removes it before the replay starts):
 * an old mark would start the prefetcher before the drop.
 */
static inline int wait_for_start(const char *prog, const char *path)
{
	char dir[PATH_MAX], buf[sizeof(struct inotify_event) + NAME_MAX + 1];
	char *slash;
	int fd = inotify_init1(IN_CLOEXEC);

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(dir, sizeof(dir), ".");
	if (fd < 0 || inotify_add_watch(fd, dir, IN_CREATE | IN_MOVED_TO) < 0) {
		fprintf(stderr, "%s: cannot watch %s for %s\n", prog, dir, path);
		return -1;
	}
	while (access(path, F_OK))	/* checked after the watch: no race */
		if (read(fd, buf, sizeof(buf)) <= 0) {
			perror(prog);
			return -1;
		}
	close(fd);
	return 0;
}

#endif
