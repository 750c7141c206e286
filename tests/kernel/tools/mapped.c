// SPDX-License-Identifier: GPL-2.0
/*
 * mapped - read a file through a mapping, or by pread(2) at scattered pages,
 * and measure part of a file
 *
 * usage: mapped touch FILE|@FD OFFSET_KB LENGTH_KB [OFFSET_KB LENGTH_KB]...
 *            maps FILE read-only (MADV_RANDOM: no read-around; at an
 *            address aligned so that fault-around stays within the
 *            range's 64 KiB-aligned blocks) and reads one byte of each
 *            page of each range, in order, with no read(2): the pages
 *            come in by page faults only
 *        mapped scan FILE|@FD OFFSET_KB LENGTH_KB [OFFSET_KB LENGTH_KB]...
 *            the same without MADV_RANDOM: the kernel's read-around and
 *            readahead bring in the pages after each fault, as for any
 *            program that reads a mapping through
 *        mapped pread FILE|@FD OFFSET_KB LENGTH_KB [OFFSET_KB LENGTH_KB]...
 *            reads each page of each range by pread(2), in order, one
 *            page a call, with POSIX_FADV_RANDOM (no readahead): a
 *            database's lookups, through one open of the file
 *        mapped resident FILE|@FD OFFSET_KB LENGTH_KB
 *            prints the KiB of the range that are in the page cache
 *            (mincore(2) on a mapping, which faults nothing in)
 *        mapped exit
 *            does nothing: a static binary for test_access.sh to copy onto
 *            the data disk and execute from there (an exec event)
 *
 * "@FD" uses a file the caller holds open on descriptor FD: opening a file
 * is an event the prefetcher learns from and acts on.  Built static for the
 * test VM.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_arg(const char *path)
{
	return path[0] == '@' ? dup(atoi(path + 1)) : open(path, O_RDONLY);
}

/*
 * FILE mapped read-only at an address aligned to 2 MiB (one page table), so
 * that a fault's fault-around window (fault_around_bytes, 64 KiB, aligned
 * in the address space) covers the same 64 KiB-aligned pages of the file:
 * a touched range aligned to 64 KiB is then all the mapping asks for.
 */
static unsigned char *map_aligned(int fd, size_t size)
{
	const size_t align = 2UL << 20;
	unsigned char *area, *at, *map;

	area = mmap(NULL, size + align, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (area == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	at = (unsigned char *)(((unsigned long)area + align - 1) & ~(align - 1));
	map = mmap(at, size, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return NULL;
	}
	return map;
}

static int usage(void)
{
	fprintf(stderr, "usage: mapped touch|scan|pread FILE|@FD OFFSET_KB LENGTH_KB "
		"[OFFSET_KB LENGTH_KB]...\n"
		"       mapped resident FILE|@FD OFFSET_KB LENGTH_KB\n"
		"       mapped exit\n");
	return 2;
}

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned char sum = 0;
	unsigned char *map, *vec;
	size_t off, len, i, in = 0;
	struct stat st;
	char buf[4096];
	bool touch, by_read;
	int fd, r;

	if (argc == 2 && !strcmp(argv[1], "exit"))
		return 0;
	by_read = argc > 1 && !strcmp(argv[1], "pread");
	touch = by_read ||
		(argc > 1 && (!strcmp(argv[1], "touch") || !strcmp(argv[1], "scan")));
	if (argc < 5 || (!touch && strcmp(argv[1], "resident")) ||
	    (!strcmp(argv[1], "resident") && argc != 5) || argc % 2 == 0)
		return usage();
	fd = open_arg(argv[2]);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[2]);
		return 1;
	}
	for (r = 3; r < argc; r += 2) {
		off = strtoul(argv[r], NULL, 10) * 1024;
		len = strtoul(argv[r + 1], NULL, 10) * 1024;
		if (off % page || len % page || !len || off + len > (size_t)st.st_size) {
			fprintf(stderr, "mapped: %s: range %zu+%zu not whole pages of its %lld bytes\n",
				argv[2], off, len, (long long)st.st_size);
			return 2;
		}
	}
	if (by_read) {
		if (page > (long)sizeof(buf))
			return 2;
		r = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		if (r) {
			fprintf(stderr, "mapped: posix_fadvise: %s\n", strerror(r));
			return 1;
		}
		for (r = 3; r < argc; r += 2) {
			off = strtoul(argv[r], NULL, 10) * 1024;
			len = strtoul(argv[r + 1], NULL, 10) * 1024;
			for (i = off; i < off + len; i += page)
				if (pread(fd, buf, page, i) != page) {
					perror("pread");
					return 1;
				}
		}
		return 0;
	}
	if (touch) {
		map = map_aligned(fd, st.st_size);
		if (!map)
			return 1;
		if (!strcmp(argv[1], "touch") &&
		    madvise(map, st.st_size, MADV_RANDOM) < 0) {
			perror("madvise");
			return 1;
		}
		for (r = 3; r < argc; r += 2) {
			off = strtoul(argv[r], NULL, 10) * 1024;
			len = strtoul(argv[r + 1], NULL, 10) * 1024;
			for (i = off; i < off + len; i += page)
				sum += map[i];
		}
		return 0;
	}
	off = strtoul(argv[3], NULL, 10) * 1024;
	len = strtoul(argv[4], NULL, 10) * 1024;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	vec = malloc(len / page);
	if (!vec || mincore(map + off, len, vec) < 0) {
		perror("mincore");
		return 1;
	}
	for (i = 0; i < len / page; i++)
		in += vec[i] & 1;
	printf("%zu\n", in * page / 1024);
	return 0;
}
