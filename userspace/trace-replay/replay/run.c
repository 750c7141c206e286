// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: replay a trace against a tree made by build-tree.
 *
 * Before the timed part everything is prepared: the trace is parsed into a
 * plan (plan.c, slots.c: one entry per event: mapped path, fd slot, think
 * time in spin iterations (calibrate.c), the prefix of events it must wait
 * for), buffers are allocated and locked, one thread per recorded pid is
 * created and parked (threads.c). The timed part only issues the workload's
 * calls (ops.c), spins or sleeps, probes the page cache (classify.c), reads
 * the clock and writes into preallocated arrays. This file reads the options
 * and runs those steps in order. Design and definitions: docs/replay.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "run.h"

const char *const replay_think_names[] = { "spin", "sleep", NULL };
const char *const replay_exec_names[] = { "map", "head", "none", NULL };
const char *const replay_mmap_names[] = { "map", "read", "none", NULL };

/* what the command line asks for besides the run's own options in r */
struct run_args {
	const char *trace_path, *dir, *json, *events;
	int quiet;
};

static int drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2) {
		fprintf(stderr, "ppf-replay: cannot write /proc/sys/vm/drop_caches: %s\n",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int parse_mode(const char *arg, const char *name, const char *const *names, int *out)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	for (int i = 0; names[i]; i++)
		if (!strcmp(arg + n + 1, names[i])) {
			*out = i;
			return 1;
		}
	fprintf(stderr, "ppf-replay run: bad value in %s\n", arg);
	exit(1);
}

/* The options into r and a; 0, or -1 after printing why. */
static int parse_args(struct replay_state *r, struct run_args *a, int argc, char **argv)
{
	r->classify = 1;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (parse_mode(s, "--think", replay_think_names, &r->think_mode) ||
		    parse_mode(s, "--exec", replay_exec_names, &r->exec_mode) ||
		    parse_mode(s, "--mmap", replay_mmap_names, &r->mmap_mode))
			continue;
		if (!strcmp(s, "--cold"))
			r->cold = 1;
		else if (!strcmp(s, "--quiet"))
			a->quiet = 1;
		else if (!strcmp(s, "--no-classify"))
			r->classify = 0;
		else if (!strncmp(s, "--spin-rate=", 12)) {
			r->fixed_rate = strtod(s + 12, NULL);
			if (!(r->fixed_rate > 0)) {
				fprintf(stderr, "ppf-replay run: bad value in %s\n", s);
				return -1;
			}
		} else if (!strcmp(s, "--events") && i + 1 < argc)
			a->events = argv[++i];
		else if (!strcmp(s, "--json") && i + 1 < argc)
			a->json = argv[++i];
		else if (!strncmp(s, "--json=", 7))
			a->json = s + 7;
		else if (s[0] == '-' && s[1]) {
			fprintf(stderr, "ppf-replay run: unknown option %s\n", s);
			return -1;
		} else if (!a->trace_path)
			a->trace_path = s;
		else if (!a->dir)
			a->dir = s;
		else {
			fprintf(stderr, "ppf-replay run: too many arguments\n");
			return -1;
		}
	}
	return 0;
}

/* Can the run start at all? 0, or -1 after printing why. */
static int check_args(const struct replay_state *r, const struct run_args *a)
{
	struct stat st;

	if (!a->trace_path || !a->dir) {
		fprintf(stderr, "usage: ppf-replay run [options] TRACE DIR (see --help)\n");
		return -1;
	}
	if (r->cold && geteuid() != 0) {
		fprintf(stderr, "ppf-replay: --cold needs root (it writes "
				"/proc/sys/vm/drop_caches); run as root or drop --cold\n");
		return -1;
	}
	if (stat(a->dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ppf-replay: %s is not a directory (make it with build-tree)\n",
			a->dir);
		return -1;
	}
	return 0;
}

/* Everything before the timed part: plan, probe, calibration, parked threads. */
static int prepare(struct replay_state *r, const struct run_args *a)
{
	/* keep our own code and data resident; new mappings too until the run */
	r->mlocked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
	if (!r->mlocked)
		fprintf(stderr, "ppf-replay: warning: mlockall failed (%s): the replay's own "
				"pages may be evicted or faulted during the run\n",
			strerror(errno));

	r->trace = replay_load_trace(a->trace_path);
	r->trace_path = a->trace_path;
	r->dir = a->dir;
	if (replay_build_plan(r, r->trace, a->dir)) {
		fprintf(stderr, "ppf-replay: cannot prepare the replay: %s\n", strerror(errno));
		return -1;
	}
	r->have_cachestat = replay_have_cachestat();
	replay_calibrate(r);

	/* sleeps end on time (default slack: 50 us); threads inherit it */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	return replay_start_threads(r);
}

/* The reports asked for, after the run; 0, or -1 after printing why. */
static int report(struct replay_state *r, const struct run_args *a)
{
	replay_report(r, a->quiet ? NULL : stdout);
	if (a->json && replay_report_json(r, a->json)) {
		fprintf(stderr, "ppf-replay: cannot write %s: %s\n", a->json, strerror(errno));
		return -1;
	}
	if (a->events && replay_report_events(r, a->events)) {
		fprintf(stderr, "ppf-replay: cannot write %s: %s\n", a->events, strerror(errno));
		return -1;
	}
	return 0;
}

int replay_run(int argc, char **argv)
{
	/* static: parked threads use it until the process exits, even on error */
	static struct replay_state state;
	struct replay_state *r = &state;
	struct run_args a = { 0 };

	if (parse_args(r, &a, argc, argv) || check_args(r, &a) || prepare(r, &a))
		return 1;
	if (!a.quiet)
		fprintf(stderr, "ppf-replay: %zu events, %zu threads (pids), think %s, "
				"spin %.1f iterations/us, %s\n",
			r->nev, r->nthreads, replay_think_names[r->think_mode],
			r->iters_per_ns * 1000.0,
			r->cold ? "cold (drop_caches)" : "caches as they are");
	if (r->cold && drop_caches())
		return 1;
	/* later mappings (the workload's mmaps, mincore probes) must not be locked */
	if (r->mlocked)
		mlockall(MCL_CURRENT);

	replay_go_and_join(r);
	for (size_t s = 0; s < r->nslots; s++)
		if (r->slot_fd[s] >= 0)
			close(r->slot_fd[s]);
	return report(r, &a) ? 1 : 0;
}
