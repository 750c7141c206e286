// SPDX-License-Identifier: GPL-2.0
/*
 * runas - run a command as another user
 *
 * usage: runas UID COMMAND [ARG...]
 *
 * Drops every supplementary group, sets the real, effective and saved
 * group and user ids to UID, and executes COMMAND: the guest has no
 * /etc/passwd, su or setpriv.  test_isolation.sh opens files as two users
 * with it.  Built static for the test VM.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	char *end;
	long uid;

	if (argc < 3) {
		fprintf(stderr, "usage: runas UID COMMAND [ARG...]\n");
		return 2;
	}
	uid = strtol(argv[1], &end, 10);
	if (*end || end == argv[1] || uid <= 0 || uid > 65533) {
		fprintf(stderr, "runas: bad uid '%s'\n", argv[1]);
		return 2;
	}
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) ||
	    setresuid(uid, uid, uid)) {
		perror("runas");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
