// SPDX-License-Identifier: GPL-2.0
/*
 * nocap - run a command as root without CAP_SYS_ADMIN
 *
 * usage: nocap COMMAND [ARG...]
 *
 * Drops CAP_SYS_ADMIN from the bounding set (so that executing COMMAND,
 * which gives root every capability of that set, does not give it back)
 * and from the inheritable, permitted and effective sets, then executes
 * COMMAND, still as uid 0.  test_access.sh reads and writes
 * /proc/predictive_prefetch_state with it: the file's mode lets root in,
 * only ppf's own capability check keeps it out.  Built static for the
 * test VM (no libcap there: the raw capget/capset system calls).
 */
#include <linux/capability.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
	unsigned int w = CAP_TO_INDEX(CAP_SYS_ADMIN);
	unsigned int bit = CAP_TO_MASK(CAP_SYS_ADMIN);

	if (argc < 2) {
		fprintf(stderr, "usage: nocap COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) < 0) {
		perror("nocap: PR_CAPBSET_DROP");
		return 1;
	}
	if (syscall(SYS_capget, &hdr, data) < 0) {
		perror("nocap: capget");
		return 1;
	}
	data[w].effective &= ~bit;
	data[w].permitted &= ~bit;
	data[w].inheritable &= ~bit;
	if (syscall(SYS_capset, &hdr, data) < 0) {
		perror("nocap: capset");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
