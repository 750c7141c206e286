// SPDX-License-Identifier: GPL-2.0
/*
 * nbcopy - copy a disk image onto a fresh memory-backed null_blk device,
 * skipping all-zero 1 MiB blocks.
 *
 * usage: nbcopy SRC DST
 *        nbcopy --align SECONDS
 *
 * A memory-backed null_blk device reads unwritten sectors as zeros, so zero
 * blocks need not be written: the copy is faster and the device allocates
 * guest memory only for the image's data.  Not timed; runs at boot before the
 * measurements.  Prints "nbcopy: N MiB read, M MiB written".
 *
 * --align S sleeps until CLOCK_MONOTONIC is a multiple of S seconds, at least
 * one second from now.  The copy reads a virtio disk, whose completions come
 * from host I/O: under QEMU's -icount they arrive at a virtual time that
 * depends on the host, so what follows would start at a different phase of
 * the guest's periodic timers (tick, writeback, jbd2) in every boot.  After
 * the alignment, the guest runs from the same clock phase every time.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BS (1 << 20)

int main(int argc, char **argv)
{
	static char buf[BS], zero[BS];
	long long rd = 0, wr = 0, off = 0;
	int in, out;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--align")) {
		long long s = atoll(argv[2]) * 1000000000LL, now;
		struct timespec ts;

		if (s <= 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
		now = (now + 1000000000LL + s - 1) / s * s;
		ts.tv_sec = now / 1000000000LL;
		ts.tv_nsec = now % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
			;
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: nbcopy SRC DST\n");
		return 1;
	}
	in = open(argv[1], O_RDONLY);
	out = open(argv[2], O_WRONLY);
	if (in < 0 || out < 0) {
		perror("open");
		return 1;
	}
	while ((n = read(in, buf, BS)) > 0) {
		if (memcmp(buf, zero, n)) {
			if (pwrite(out, buf, n, off) != n) {
				perror("pwrite");
				return 1;
			}
			wr += n;
		}
		rd += n;
		off += n;
	}
	if (n < 0 || fsync(out)) {
		perror("read/fsync");
		return 1;
	}
	printf("nbcopy: %lld MiB read, %lld MiB written\n", rd >> 20, wr >> 20);
	return 0;
}
