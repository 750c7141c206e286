// SPDX-License-Identifier: GPL-2.0
/*
 * memhog - hold MemAvailable down to a target
 *
 * usage: memhog TARGET_MIB [keep]
 *   allocates anonymous memory 1 MiB at a time, writing every page, until
 *   /proc/meminfo's MemAvailable is at most TARGET_MIB, locks it in memory
 *   (mlockall: swap, where there is any, cannot take it back, so the page
 *   cache is what the kernel must reclaim), prints "held N MiB, locked,
 *   MemAvailable M MiB" and sleeps until killed.  With "keep" it also tops
 *   up, every 100 ms, what MemAvailable has regained; on SIGUSR1 it prints
 *   "held N MiB in all, MemAvailable M MiB".  Memory pressure for
 *   test_mempressure.sh without stress-ng's libraries in the guest.  Built
 *   static for the test VM.
 *
 *   Why "keep": MemAvailable does not count free pages waiting on the
 *   per-CPU lists.  Seen in the test VM: held down to 8 MiB, MemAvailable
 *   was back to 43 MiB after a few cold reads (MemFree up by 33 MiB, no
 *   other counter down), above the mark under which ppf starts no
 *   prefetch: the "pressure" was gone.  Why not always: a hog that keeps
 *   the system at its edge while others go lower made the OOM killer take
 *   one (test_mempressure.sh steps hogs down to 5 MiB available).
 *
 *   Why it does not touch its memory: it used to, every page every 100 ms,
 *   to stay resident.  That was CPU time, not memory pressure: a few ms of
 *   it fell into some timed reads and not others, and cold reads of the
 *   same files spread from 27.8 to 36.4 ms, too wide to tell a 1 % cost.
 *   Where mlockall is refused (RLIMIT_MEMLOCK) it exits: unlocked memory
 *   could be swapped out and the pressure would not be what it says.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MIB	(1024L * 1024)
#define MAX_CHUNKS	65536

static volatile sig_atomic_t report;

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

/* Allocate and write 1 MiB chunks until MemAvailable <= target; the count. */
static long hold_down_to(long target, long held)
{
	static char *chunks[MAX_CHUNKS];

	while (held < MAX_CHUNKS && mem_available_mib() > target) {
		chunks[held] = malloc(MIB);
		if (!chunks[held])
			break;
		memset(chunks[held], 1, MIB);
		held++;
	}
	return held;
}

static void on_usr1(int sig __attribute__((unused)))
{
	report = 1;
}

int main(int argc, char **argv)
{
	long target, held;
	int keep;

	if (argc < 2 || argc > 3 || (target = atol(argv[1])) <= 0 ||
	    (argc == 3 && strcmp(argv[2], "keep"))) {
		fprintf(stderr, "usage: memhog TARGET_MIB [keep]\n");
		return 2;
	}
	keep = argc == 3;
	/* Locked as it is allocated, the first chunk included. */
	if (mlockall(MCL_CURRENT | MCL_FUTURE)) {
		perror("memhog: mlockall");
		return 1;
	}
	signal(SIGUSR1, on_usr1);
	held = hold_down_to(target, 0);
	printf("held %ld MiB, locked, MemAvailable %ld MiB\n", held,
	       mem_available_mib());
	fflush(stdout);
	for (;;) {
		usleep(100000);
		if (keep)
			held = hold_down_to(target, held);
		if (report) {
			report = 0;
			printf("held %ld MiB in all, MemAvailable %ld MiB\n",
			       held, mem_available_mib());
			fflush(stdout);
		}
	}
}
