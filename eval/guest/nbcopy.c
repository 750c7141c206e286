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
 * SRC is a raw image (the virtio disk /dev/vda), or a sparse image in the
 * initramfs (eval/harness/sparse.py: "PPFSPRS1", the size, then extents of
 * offset, length and data), which holds only the non-zero 4 KiB blocks: an
 * initramfs occupies guest memory twice while the kernel unpacks it, and
 * gnuld's image is 1,344 MiB of which ~300 MiB are data.
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
#define SPARSE_MAGIC "PPFSPRS1"

static char buf[BS], zero[BS];

static int align(const char *secs)
{
	long long s = atoll(secs) * 1000000000LL, now;
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

/* read exactly n bytes (0) or fail (-1: error or early end of file) */
static int read_full(int fd, void *p, size_t n)
{
	ssize_t r;

	while (n > 0) {
		r = read(fd, p, n);
		if (r <= 0)
			return -1;
		p = (char *)p + r;
		n -= r;
	}
	return 0;
}

/* the sparse format after its magic: size, extents, end marker */
static int copy_sparse(int in, int out, const char *src)
{
	unsigned long long size, ext[2], done, wr = 0, prev_end = 0;
	size_t n;

	if (read_full(in, &size, sizeof(size)))
		goto truncated;
	for (;;) {
		if (read_full(in, ext, sizeof(ext)))
			goto truncated;
		if (ext[1] == 0)
			break;
		if (ext[0] < prev_end || ext[0] + ext[1] > size) {
			fprintf(stderr,
				"nbcopy: %s: extent %llu+%llu out of order or outside the image (%llu bytes)\n",
				src, ext[0], ext[1], size);
			return 1;
		}
		for (done = 0; done < ext[1]; done += n) {
			n = ext[1] - done < BS ? ext[1] - done : BS;
			if (read_full(in, buf, n))
				goto truncated;
			if (pwrite(out, buf, n, ext[0] + done) != (ssize_t)n) {
				perror("nbcopy: pwrite");
				return 1;
			}
		}
		wr += ext[1];
		prev_end = ext[0] + ext[1];
	}
	if (ext[0] != size) {
		fprintf(stderr, "nbcopy: %s: end marker %llu, image size %llu\n",
			src, ext[0], size);
		return 1;
	}
	if (fsync(out)) {
		perror("nbcopy: fsync");
		return 1;
	}
	printf("nbcopy: sparse image, %llu MiB, %llu MiB written\n", size >> 20, wr >> 20);
	return 0;
truncated:
	fprintf(stderr, "nbcopy: %s: sparse image truncated\n", src);
	return 1;
}

int main(int argc, char **argv)
{
	long long rd = 0, wr = 0, off = 0;
	int in, out;
	ssize_t n;

	if (argc == 3 && !strcmp(argv[1], "--align"))
		return align(argv[2]);
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
	n = pread(in, buf, sizeof(SPARSE_MAGIC) - 1, 0);
	if (n == sizeof(SPARSE_MAGIC) - 1 && !memcmp(buf, SPARSE_MAGIC, n)) {
		if (lseek(in, n, SEEK_SET) != n) {
			perror("nbcopy: lseek");
			return 1;
		}
		return copy_sparse(in, out, argv[1]);
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
