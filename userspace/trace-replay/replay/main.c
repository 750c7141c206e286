// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay: the entry point; dispatches to build-tree (tree.c) and run
 * (run.c).
 */
#include <stdio.h>
#include <string.h>

#include "replay.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ppf-replay build-tree [--list] [--force] TRACE DIR\n"
		"       ppf-replay run [--think=spin|sleep] [--spin-rate=ITERS_PER_US]\n"
		"                      [--exec=map|head|none]\n"
		"                      [--mmap=map|read|none] [--no-classify] [--cold]\n"
		"                      [--json FILE] [--events FILE] [--quiet] TRACE DIR\n"
		"See docs/replay.md.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(argc < 2 ? stderr : stdout);
		return argc < 2 ? 1 : 0;
	}
	if (!strcmp(argv[1], "build-tree"))
		return replay_build_tree(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return replay_run(argc - 1, argv + 1);
	fprintf(stderr, "ppf-replay: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 1;
}
