// SPDX-License-Identifier: GPL-2.0
/*
 * bucket - which of ppf's page-cache removal buckets each file is in
 *
 * usage: bucket FILE...   prints one bucket number a line
 *
 * The module counts pages leaving the page cache per bucket of files, a
 * hash of the file's device and inode number (fs/hooks/removal_hook.c:
 * hash_64(ino ^ (dev << 32), 8), the kernel's generic hash_64 and its
 * dev_t, major << 20 | minor).  A test that removes one file's pages and
 * expects another file to stay "known cached" needs them in different
 * buckets; this says whether they are.  stat(2) only: no open, so the
 * module sees no event.  Built static for the test VM.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#define PPF_REMOVAL_BITS	8
#define GOLDEN_RATIO_64		0x61C8864680B583EBull

int main(int argc, char **argv)
{
	struct stat st;
	uint64_t dev, key;
	int i;

	if (argc < 2) {
		fprintf(stderr, "usage: bucket FILE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (stat(argv[i], &st)) {
			perror(argv[i]);
			return 1;
		}
		dev = (uint64_t)major(st.st_dev) << 20 | minor(st.st_dev);
		key = (uint64_t)st.st_ino ^ (dev << 32);
		printf("%u\n", (unsigned int)(key * GOLDEN_RATIO_64 >> (64 - PPF_REMOVAL_BITS)));
	}
	return 0;
}
