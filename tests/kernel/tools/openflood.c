// SPDX-License-Identifier: GPL-2.0
/*
 * openflood - open files as fast as one task can, for an event flood
 *
 * usage: openflood DIR N SECONDS
 *   makes DIR/f0 .. DIR/f<N-1> (4 KiB each) if missing, then opens and
 *   closes them in turn for SECONDS (0: only make them); prints
 *   "opens=K ns_per_open=X max_ns=Y" with CLOCK_MONOTONIC, which in the
 *   test VM is QEMU's instruction counter.  Several at once make the
 *   flood test_flood.sh measures.  Built static for the test VM.
 */
#include <fcntl.h>
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

	if (argc != 4) {
		fprintf(stderr, "usage: openflood DIR N SECONDS\n");
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
