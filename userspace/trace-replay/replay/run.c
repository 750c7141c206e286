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
#include <time.h>
#include <unistd.h>

#include "../../include/ppf_cli.h"
#include "replay.h"
#include "run.h"

const char *const replay_think_names[] = { "spin", "sleep", NULL };
const char *const replay_exec_names[] = { "map", "head", "none", NULL };
const char *const replay_mmap_names[] = { "map", "read", "none", NULL };
const char *const replay_probes_names[] = { "timed", "think", NULL };

/* what the command line asks for besides the run's own options in r */
struct run_args {
	const char *trace_path, *dir, *json, *events, *drop_mark, *faults;
	int quiet, no_tree_check;
	long phase_us;		/* --phase-us: slept before the drop and the timed part */
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

/* Create path (empty): the replay's timed part starts now. */
static int mark(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || close(fd)) {
		fprintf(stderr, "ppf-replay: --drop-mark %s: %s\n", path, strerror(errno));
		return -1;
	}
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
	fprintf(stderr, "ppf-replay run: %s: not", arg);
	for (int i = 0; names[i]; i++)
		fprintf(stderr, "%s %s", i == 0 ? "" : names[i + 1] ? "," : " or", names[i]);
	fprintf(stderr, "\n");
	exit(PPF_EXIT_USAGE);
}

/* "--opt VALUE" or "--opt=VALUE": 1 and *out set, 0 if s is not opt; exits 2 without a value. */
static int parse_value(int argc, char **argv, int *i, const char *opt, const char **out)
{
	const char *s = argv[*i];
	size_t n = strlen(opt);

	if (strncmp(s, opt, n) || (s[n] && s[n] != '='))
		return 0;
	if (s[n] == '=')
		*out = s + n + 1;
	else if (*i + 1 < argc)
		*out = argv[++*i];
	else
		*out = NULL;
	if (!*out || !**out) {
		fprintf(stderr, "ppf-replay run: %s needs a FILE\n", opt);
		exit(PPF_EXIT_USAGE);
	}
	return 1;
}

/* The options into r and a; 0, or -1 after printing why (a usage error). */
static int parse_args(struct replay_state *r, struct run_args *a, int argc, char **argv)
{
	r->classify = 1;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (parse_mode(s, "--think", replay_think_names, &r->think_mode) ||
		    parse_mode(s, "--exec", replay_exec_names, &r->exec_mode) ||
		    parse_mode(s, "--mmap", replay_mmap_names, &r->mmap_mode) ||
		    parse_mode(s, "--probes", replay_probes_names, &r->probes_mode))
			continue;
		if (!strcmp(s, "--cold"))
			r->cold = 1;
		else if (!strcmp(s, "--no-sync"))
			r->no_sync = 1;
		else if (!strcmp(s, "--quiet"))
			a->quiet = 1;
		else if (!strcmp(s, "--no-classify"))
			r->classify = 0;
		else if (!strcmp(s, "--no-tree-check"))
			a->no_tree_check = 1;
		else if (!strncmp(s, "--spin-rate=", 12)) {
			char *end;

			errno = 0;
			r->fixed_rate = strtod(s + 12, &end);
			if (errno || end == s + 12 || *end || !(r->fixed_rate > 0) ||
			    r->fixed_rate > 1e6) {
				fprintf(stderr, "ppf-replay run: %s: not a number of iterations "
						"a microsecond above 0 (at most 1000000)\n", s);
				return -1;
			}
		} else if (!strncmp(s, "--phase-us=", 11)) {
			char *end;

			errno = 0;
			a->phase_us = strtol(s + 11, &end, 10);
			if (errno || end == s + 11 || *end || a->phase_us < 0 ||
			    a->phase_us > 1000000) {
				fprintf(stderr, "ppf-replay run: %s: not a number of microseconds "
						"from 0 to 1000000\n", s);
				return -1;
			}
		} else if (parse_value(argc, argv, &i, "--events", &a->events) ||
			   parse_value(argc, argv, &i, "--json", &a->json) ||
			   parse_value(argc, argv, &i, "--drop-mark", &a->drop_mark) ||
			   parse_value(argc, argv, &i, "--faults", &a->faults))
			continue;
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

/* Can the run start at all? 0, or the exit code after printing why. */
static int check_args(const struct replay_state *r, const struct run_args *a)
{
	struct stat st;

	if (!a->trace_path || !a->dir) {
		fprintf(stderr, "ppf-replay run: needs TRACE and DIR (usage: ppf-replay run "
				"[options] TRACE DIR; see ppf-replay --help)\n");
		return PPF_EXIT_USAGE;
	}
	if (a->json && ppf_cli_writable(a->json)) {
		fprintf(stderr, "ppf-replay: --json %s: cannot write: %s\n", a->json,
			strerror(errno));
		return PPF_EXIT_FAIL;
	}
	if (a->events && ppf_cli_writable(a->events)) {
		fprintf(stderr, "ppf-replay: --events %s: cannot write: %s\n", a->events,
			strerror(errno));
		return PPF_EXIT_FAIL;
	}
	if (r->cold && geteuid() != 0) {
		fprintf(stderr, "ppf-replay: --cold needs root (it writes "
				"/proc/sys/vm/drop_caches); run as root or drop --cold\n");
		return PPF_EXIT_FAIL;
	}
	if (stat(a->dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ppf-replay: %s is not a directory (make it with build-tree)\n",
			a->dir);
		return PPF_EXIT_FAIL;
	}
	return 0;
}

/*
 * Does dir hold the trace's starting state: every file (pre) and directory
 * (dir) of its file table, of that kind?  Checked by lstat alone (no open:
 * nothing for ppf to learn, and --cold drops what it cached).  A replay of
 * a tree that is not the trace's counts hundreds of unexpected errors and
 * measures nothing; --no-tree-check replays anyway.  0, or -1 after one line.
 */
static int check_tree(const struct ppf_trace *t, const char *dir, const char *trace_path)
{
	size_t missing = 0, entries = 0;
	char *first = NULL;
	int first_errno = 0;

	for (size_t i = 0; i < t->nfiles; i++) {
		const struct ppf_trace_file *f = &t->files[i];
		char *p;
		struct stat st;
		int bad;

		if (f->created)
			continue;
		entries++;
		p = replay_map_path(dir, f->path);
		if (!p)
			continue;	/* unusable path: build-tree says so, the replay skips it */
		bad = lstat(p, &st) ? errno :
		      f->is_dir ? (S_ISDIR(st.st_mode) ? 0 : ENOTDIR) :
		      (S_ISREG(st.st_mode) ? 0 : S_ISDIR(st.st_mode) ? EISDIR : EINVAL);
		if (bad) {
			missing++;
			if (!first) {
				first = p;
				first_errno = bad;
				continue;
			}
		}
		free(p);
	}
	if (!missing)
		return 0;
	fprintf(stderr, "ppf-replay: %s does not hold %s's starting state: %zu of its %zu "
			"files and directories missing or of another kind (first: %s: %s); "
			"make it with 'ppf-replay build-tree TRACE DIR' (or replay anyway: "
			"--no-tree-check)\n",
		dir, trace_path, missing, entries, first,
		first_errno == EINVAL ? "not a regular file" : strerror(first_errno));
	free(first);
	return -1;
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
	if (!a->no_tree_check && check_tree(r->trace, a->dir, a->trace_path))
		return -1;
	r->trace_path = a->trace_path;
	r->dir = a->dir;
	if (replay_build_plan(r, r->trace, a->dir)) {
		fprintf(stderr, "ppf-replay: cannot prepare the replay: %s\n", strerror(errno));
		return -1;
	}
	/* the faults file, loaded and indexed now: the timed part only reads it */
	if (a->faults && replay_load_faults(r, r->trace, a->faults))
		return -1;
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
	int ret;

	if (parse_args(r, &a, argc, argv))
		return PPF_EXIT_USAGE;
	if (r->cold && r->no_sync) {
		fprintf(stderr, "ppf-replay run: --cold syncs before it drops the caches: "
				"not with --no-sync\n");
		return PPF_EXIT_USAGE;
	}
	if (r->probes_mode == PROBES_THINK && r->think_mode != THINK_SPIN) {
		fprintf(stderr, "ppf-replay run: --probes=think needs --think=spin (a probe "
				"takes the place of spinning)\n");
		return PPF_EXIT_USAGE;
	}
	ret = check_args(r, &a);
	if (ret)
		return ret;
	if (prepare(r, &a))
		return PPF_EXIT_FAIL;
	if (!a.quiet)
		fprintf(stderr, "ppf-replay: %zu events, %zu threads (pids), think %s, "
				"spin %.1f iterations/us, %s\n",
			r->nev, r->nthreads, replay_think_names[r->think_mode],
			r->iters_per_ns * 1000.0,
			r->cold ? "cold (drop_caches)" : "caches as they are");
	/*
	 * --phase-us: the same run, begun that much later against the guest's
	 * clock ticks and timers.  Under a fixed instruction rate a run is
	 * exactly repeatable, yet a few instructions more or less anywhere
	 * before it shift every later decision of the scheduler and the
	 * elevator; runs at a few phases show how far that alone moves a
	 * figure (docs/results.md, "Spread").
	 */
	if (a.phase_us) {
		struct timespec ts = { a.phase_us / 1000000, a.phase_us % 1000000 * 1000 };

		while (nanosleep(&ts, &ts) && errno == EINTR)
			;
	}
	/*
	 * What earlier runs left dirty is written back now, not during the
	 * timed part: a hot run right after a cold one that wrote hundreds of
	 * MB would otherwise wait on that writeback (GNU ld's replay, hot,
	 * 28 % slower than the link, which deletes its outputs at its end).
	 * --cold's drop syncs first anyway.
	 */
	if (r->cold && drop_caches())
		return 1;
	if (!r->cold && !r->no_sync)
		sync();
	/*
	 * A prefetcher under test (the evaluation's boot list and oracle) starts
	 * when this appears: after the whole drop, not during it, when what it
	 * read ahead could still be dropped.
	 */
	if (a.drop_mark && mark(a.drop_mark))
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
