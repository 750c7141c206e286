// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay: the entry point; dispatches to build-tree (tree.c) and run
 * (run.c).
 */
#include <stdio.h>
#include <string.h>

#include "../../include/ppf_cli.h"
#include "replay.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ppf-replay build-tree [--list] [--force] TRACE DIR\n"
		"       ppf-replay run [--think=spin|sleep] [--spin-rate=ITERS_PER_US]\n"
		"                      [--exec=map|head|none]\n"
		"                      [--mmap=map|read|none] [--faults FILE]\n"
		"                      [--no-classify] [--probes=timed|think] [--cold | --no-sync]\n"
		"                      [--no-tree-check] [--json FILE] [--events FILE]\n"
		"                      [--drop-mark FILE] [--phase-us=N] [--quiet] TRACE DIR\n"
		"       ppf-replay --help | --version\n"
		"\n"
		"Rebuild the file tree a ppf trace touched, and replay the trace's calls\n"
		"against it with their think time.\n"
		"\n"
		"build-tree: create under DIR the files (SIZE bytes, fully written) and\n"
		"directories the trace found at its start; remove what an earlier replay\n"
		"created.\n"
		"  --list             print what would be created, create nothing\n"
		"  --force            rewrite files that already have the right size\n"
		"\n"
		"run: replay TRACE against DIR (made by build-tree).\n"
		"  --think=spin|sleep think time spun (default) or slept\n"
		"  --spin-rate=ITERS_PER_US  the spin loop's rate instead of calibrating it\n"
		"  --exec=map|head|none      an exec: map the file (default), read its head,\n"
		"                            or skip it\n"
		"  --mmap=map|read|none      a recorded mmap: map and touch (default), read,\n"
		"                            or skip it\n"
		"  --faults FILE      a mapped (--mmap=map) or exec'd (--exec=map) file that\n"
		"                     FILE names: touch only its listed pages in the range,\n"
		"                     in order (the pages the real program faulted)\n"
		"  --no-classify      do not probe the page cache before each read\n"
		"  --probes=timed|think  probe just before the call, in the timed part\n"
		"                     (default), or in place of the think time before it\n"
		"                     (spin only): the probe's CPU time replaces as much\n"
		"                     spinning, so it lengthens the run only where it\n"
		"                     exceeds the think (probe_ns; probe_hidden_ns the rest)\n"
		"  --cold             drop the page cache before the timed part (root)\n"
		"  --no-sync          do not sync before the timed part: the writeback of\n"
		"                     what earlier runs left dirty falls in the run (by\n"
		"                     default it is done first; --cold always syncs)\n"
		"  --drop-mark FILE   create FILE when the timed part starts (after --cold's\n"
		"                     drop): the start signal of a prefetcher under test\n"
		"  --phase-us=N       sleep N microseconds (0-1000000) before the drop and\n"
		"                     the timed part: the same run at another phase of the\n"
		"                     system's clock, to see how far that alone moves it\n"
		"  --no-tree-check    replay even if DIR lacks files or directories of the\n"
		"                     trace's starting state (their calls count as errors)\n"
		"  --json FILE        write the results as JSON (checked writable first)\n"
		"  --events FILE      write every event's outcome as TSV (checked first)\n"
		"  --quiet            no report on standard output\n"
		"\n"
		"  -h, --help         this help\n"
		"  -V, --version      the version\n"
		"\n"
		"Exit status: 0 done (a replay's own errors are counted in the report, not\n"
		"fatal); 1 a failure: an unreadable or malformed trace or --faults FILE\n"
		"(FILE:LINE: reason),\n"
		"DIR not holding the trace's starting state, an output not writable;\n"
		"2 a bad command line.\n"
		"See ppf-replay(1) and docs/replay.md.\n");
}

int main(int argc, char **argv)
{
	ppf_cli_quiet_pipe();
	if (argc < 2) {
		fprintf(stderr, "ppf-replay: no command (build-tree or run; see ppf-replay --help)\n");
		return PPF_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return PPF_EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		ppf_cli_version("ppf-replay");
		return PPF_EXIT_OK;
	}
	if (!strcmp(argv[1], "build-tree"))
		return replay_build_tree(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return replay_run(argc - 1, argv + 1);
	fprintf(stderr, "ppf-replay: unknown command '%s' (build-tree or run; see "
			"ppf-replay --help)\n", argv[1]);
	return PPF_EXIT_USAGE;
}
