// SPDX-License-Identifier: GPL-2.0
/*
 * resident - how much of each file is in the page cache
 *
 * usage: resident FILE|@FD...   prints "FILE RESIDENT_KB SIZE_KB" per file
 *        resident --evict @FD...  drops the file's clean pages from the page
 *                                 cache (posix_fadvise POSIX_FADV_DONTNEED)
 *
 * Uses mincore(2) on a read-only mapping, which looks at the page cache
 * without faulting anything in, so checking does not change the answer.
 * "@FD" measures a file the caller already holds open on descriptor FD:
 * opening a file is an event the prefetcher learns from and acts on, so a
 * test measures through descriptors it opened before the module was
 * enabled.  Built static for the test VM.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* FILE opened read-only, or "@FD" duplicated. */
static int open_arg(const char *path)
{
	return path[0] == '@' ? dup(atoi(path + 1)) : open(path, O_RDONLY);
}

static int resident(const char *path)
{
	long page = sysconf(_SC_PAGESIZE);
	unsigned char *vec;
	size_t pages, i, in = 0;
	struct stat st;
	void *map;
	int fd;

	fd = open_arg(path);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		return 1;
	}
	if (st.st_size == 0) {
		printf("%s 0 0\n", path);
		close(fd);
		return 0;
	}
	pages = (st.st_size + page - 1) / page;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (map == MAP_FAILED || !vec || mincore(map, st.st_size, vec) < 0) {
		perror(path);
		return 1;
	}
	for (i = 0; i < pages; i++)
		in += vec[i] & 1;
	printf("%s %zu %lld\n", path, in * page / 1024,
	       (long long)(st.st_size + 1023) / 1024);
	munmap(map, st.st_size);
	free(vec);
	close(fd);
	return 0;
}

/* Evict one file's pages only: unlike drop_caches, which empties every cache. */
static int evict(const char *path)
{
	int fd = open_arg(path);
	int err;

	if (fd < 0) {
		perror(path);
		return 1;
	}
	err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	if (err)
		fprintf(stderr, "%s: posix_fadvise: error %d\n", path, err);
	close(fd);
	return err != 0;
}

int main(int argc, char **argv)
{
	int (*fn)(const char *) = resident;
	int i = 1, err = 0;

	if (argc > 1 && !strcmp(argv[1], "--evict")) {
		fn = evict;
		i = 2;
	}
	if (argc <= i) {
		fprintf(stderr, "usage: resident FILE|@FD...\n       resident --evict FILE|@FD...\n");
		return 2;
	}
	for (; i < argc; i++)
		err |= fn(argv[i]);
	return err;
}
