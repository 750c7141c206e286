// SPDX-License-Identifier: GPL-2.0
/*
 * openflood - open files as fast as one task can, for an event flood
 *
 * usage: openflood DIR N SECONDS [CPU]
 *   makes DIR/f0 .. DIR/f<N-1> (4 KiB each) if missing, then opens and
 *   closes them in turn for SECONDS (0: only make them); prints
 *   "opens=K ns_per_open=X max_ns=Y" with CLOCK_MONOTONIC, which in the
 *   test VM is QEMU's instruction counter.  Several at once make the
 *   flood test_flood.sh measures.  With CPU, it runs on that CPU only and
 *   as a real-time task (SCHED_FIFO, priority 1): nothing of the normal
 *   class runs on that CPU while it opens, but for what the kernel's
 *   real-time throttling leaves them (50 ms a second by default).  Built
 *   static for the test VM.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	static char buf[4096];
	long long t0, end, t, dt, max = 0, opens = 0;
	char path[4096];
	long i, n;
	int fd;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: openflood DIR N SECONDS [CPU]\n");
		return 2;
	}
	n = atol(argv[2]);
	if (n <= 0) {
		fprintf(stderr, "openflood: N must be above 0\n");
		return 2;
	}
	mkdir(argv[1], 0755);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		if (!access(path, F_OK))
			continue;
		fd = open(path, O_WRONLY | O_CREAT, 0644);
		if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf)) {
			perror(path);
			return 1;
		}
		close(fd);
	}
	if (argc == 5) {
		struct sched_param sp = { .sched_priority = 1 };
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(atoi(argv[4]), &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus) ||
		    sched_setscheduler(0, SCHED_FIFO, &sp)) {
			perror("openflood: CPU and SCHED_FIFO");
			return 1;
		}
	}
	t0 = now_ns();
	end = t0 + (long long)(atof(argv[3]) * 1e9);
	for (i = 0; now_ns() < end; i = (i + 1) % n) {
		snprintf(path, sizeof(path), "%s/f%ld", argv[1], i);
		t = now_ns();
		fd = open(path, O_RDONLY);
		dt = now_ns() - t;
		if (fd < 0) {
			perror(path);
			return 1;
		}
		close(fd);
		if (dt > max)
			max = dt;
		opens++;
	}
	t = now_ns() - t0;
	printf("opens=%lld ns_per_open=%lld max_ns=%lld\n", opens,
	       opens ? t / opens : 0, max);
	return 0;
}
