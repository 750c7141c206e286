// SPDX-License-Identifier: GPL-2.0
/*
 * memhog - hold memory until MemAvailable is down to a target
 *
 * usage: memhog TARGET_MIB
 *   allocates anonymous memory 1 MiB at a time, writing every page, until
 *   /proc/meminfo's MemAvailable is at most TARGET_MIB, prints
 *   "held N MiB, MemAvailable M MiB" and then keeps touching what it holds
 *   (so that it stays resident and the kernel keeps reclaiming the page
 *   cache) until killed.  Memory pressure for test_mempressure.sh without
 *   stress-ng's libraries in the guest.  Built static for the test VM.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIB	(1024L * 1024)

static long mem_available_mib(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : kb / 1024;
}

int main(int argc, char **argv)
{
	static char *chunks[65536];
	long target, n = 0, i, page = sysconf(_SC_PAGESIZE);

	if (argc != 2 || (target = atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: memhog TARGET_MIB\n");
		return 2;
	}
	while (n < 65536 && mem_available_mib() > target) {
		chunks[n] = malloc(MIB);
		if (!chunks[n])
			break;
		memset(chunks[n], 1, MIB);
		n++;
	}
	printf("held %ld MiB, MemAvailable %ld MiB\n", n, mem_available_mib());
	fflush(stdout);
	for (;;) {
		for (i = 0; i < n; i++) {
			long off;

			for (off = 0; off < MIB; off += page)
				chunks[i][off]++;
		}
		usleep(100000);
	}
}
