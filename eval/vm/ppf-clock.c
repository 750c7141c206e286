/* ppf-clock: print a guest clock in nanoseconds (busybox date has no %N).
 * Usage: ppf-clock [monotonic|realtime|boottime]   (default: monotonic)
 * Built statically into the initramfs by eval/vm/initramfs.sh. */
#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
	clockid_t id = CLOCK_MONOTONIC;
	struct timespec ts;

	if (argc > 1 && strcmp(argv[1], "realtime") == 0)
		id = CLOCK_REALTIME;
	else if (argc > 1 && strcmp(argv[1], "boottime") == 0)
		id = CLOCK_BOOTTIME;
	else if (argc > 1 && strcmp(argv[1], "monotonic") != 0) {
		fprintf(stderr, "usage: %s [monotonic|realtime|boottime]\n", argv[0]);
		return 2;
	}
	if (clock_gettime(id, &ts) != 0) {
		perror("clock_gettime");
		return 1;
	}
	printf("%lld\n", (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	return 0;
}
