// SPDX-License-Identifier: GPL-2.0
/*
 * hookbench - the cost of an open and of a read, for measuring ppf's hooks
 *
 * usage: hookbench open|read FILE N
 *   open: N x (open(FILE, O_RDONLY) + close)
 *   read: N x pread(fd, 4 KiB, offset 0) of an already cached page
 * prints "OP NS_PER_CALL" measured with CLOCK_MONOTONIC.  In the test VM the
 * clock is QEMU's instruction counter, so the figure is deterministic: the
 * difference with and without the module is the hooks' cost in instructions
 * (at 4 ns each), not in cache misses.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	long long t0, t1;
	long i, n;
	int fd;

	if (argc != 4 || (strcmp(argv[1], "open") && strcmp(argv[1], "read"))) {
		fprintf(stderr, "usage: hookbench open|read FILE N\n");
		return 2;
	}
	n = atol(argv[3]);
	fd = open(argv[2], O_RDONLY);
	if (fd < 0 || pread(fd, buf, sizeof(buf), 0) < 0) {
		perror(argv[2]);
		return 1;
	}
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		if (argv[1][0] == 'o') {
			int f = open(argv[2], O_RDONLY);

			if (f < 0) {
				perror("open");
				return 1;
			}
			close(f);
		} else if (pread(fd, buf, sizeof(buf), 0) != sizeof(buf)) {
			perror("pread");
			return 1;
		}
	}
	t1 = now_ns();
	printf("%s %.1f\n", argv[1], (double)(t1 - t0) / n);
	close(fd);
	return 0;
}
