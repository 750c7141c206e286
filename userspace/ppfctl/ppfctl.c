// SPDX-License-Identifier: GPL-2.0
/*
 * ppfctl - say what predictive prefetching is doing, and tune it
 *
 *   ppfctl status [--json] [-i SECONDS]   on or off, model, memory, events
 *                                         a second, prefetches used/wasted
 *   ppfctl enable | disable               vm.predictive_prefetch.enabled
 *   ppfctl get [NAME] [--json]            one tunable, or all of them
 *   ppfctl set NAME VALUE                 the kernel validates; its error
 *                                         (EINVAL) is passed through
 *   ppfctl reset                          forget the model, zero counters
 *   ppfctl watch [-i SECONDS] [-n COUNT] [-t] [--json]   a line a
 *                                         sample, like vmstat 1 (-t: a
 *                                         timestamp, like vmstat -t)
 *   ppfctl save FILE | load FILE          what was learnt, by file handle:
 *                                         this machine, across reboots
 *   ppfctl export FILE | import FILE      the same by path: another machine
 *                                         with the same tree
 *
 * Exit status: 0 done, 1 the kernel refused or ppf is not loaded,
 * 2 a bad command line.  ppfctl --help says all of it; ppfctl(8) is made
 * from the same text (docs/man/ppfctl.8.md).  Every read and write goes to the kernel's own
 * files (/proc/predictive_prefetch, /proc/sys/vm/predictive_prefetch/),
 * so ppfctl works with any module version that keeps those names.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "../include/ppf_cli.h"
#include "counters.h"
#include "report.h"
#include "state.h"
#include "tunables.h"

static const char *const ppf_usage =
	"usage: ppfctl status [--json] [-i SECONDS]\n"
	"       ppfctl enable | disable | reset\n"
	"       ppfctl get [NAME] [--json]\n"
	"       ppfctl set NAME VALUE\n"
	"       ppfctl watch [-i SECONDS] [-n COUNT] [-t] [--json]\n"
	"       ppfctl save | load | export | import FILE\n"
	"       ppfctl --help | --version\n";

static const char *const ppf_help =
	"\n"
	"Say what predictive prefetching (the predictive_prefetch module) is doing,\n"
	"and tune it.\n"
	"\n"
	"commands:\n"
	"  status         on or off, the model, memory, events, prefetches used and\n"
	"                 wasted; rates over -i SECONDS (default 1; 0: no rates)\n"
	"  enable         start prefetching (vm.predictive_prefetch.enabled = 1)\n"
	"  disable        stop it (what was learnt is kept)\n"
	"  reset          forget what was learnt, zero the counters\n"
	"  get [NAME]     one tunable, or all of them (sysctl's form)\n"
	"  set NAME VALUE set a tunable; the kernel checks the value and its error\n"
	"                 is passed through\n"
	"  watch          a line of rates every -i SECONDS (default 1), -n COUNT\n"
	"                 lines (default: until interrupted), the header again every\n"
	"                 20 lines, like vmstat 1\n"
	"  save FILE      what was learnt, by file handle (this machine, across reboots)\n"
	"  load FILE      load it back\n"
	"  export FILE    what was learnt, by path (another machine, the same tree)\n"
	"  import FILE    load an export\n"
	"\n"
	"options:\n"
	"  --json         status, get, watch: JSON (watch: one object a line)\n"
	"  -i SECONDS     interval, 0..86400 (watch: above 0)\n"
	"  -n COUNT       watch: lines to print, 0 = until interrupted\n"
	"  -t             watch: a timestamp on each line (like vmstat -t)\n"
	"  -h, --help     this help\n"
	"  -V, --version  the version\n"
	"\n"
	"exit status:\n"
	"  0  done\n"
	"  1  the kernel refused, ppf is not loaded, or a FILE cannot be used\n"
	"  2  a bad command line (one line names what is wrong)\n"
	"\n"
	"files: /proc/predictive_prefetch, /proc/sys/vm/predictive_prefetch/.\n"
	"See ppfctl(8) and /usr/share/doc/predictive-prefetch-dkms/admin-guide.md.\n";

struct ppf_opts {
	bool json;
	bool timestamps;	/* watch -t */
	double interval;	/* seconds between samples */
	long count;		/* watch: samples to print, 0 = forever */
	int nargs;
	char *args[4];
};

/* A bad command line: one line naming what is wrong, exit 2. */
static int ppf_bad_usage(const char *why)
{
	fprintf(stderr, "ppfctl: %s (see ppfctl --help)\n", why);
	return PPF_EXIT_USAGE;
}

/* A bad option value: one line naming the option and the value. */
static int ppf_bad_value(const char *opt, const char *value, const char *want)
{
	fprintf(stderr, "ppfctl: %s %s: %s (see ppfctl --help)\n", opt, value, want);
	return PPF_EXIT_USAGE;
}

static int ppf_read(struct ppf_counters *cs)
{
	int err = ppf_counters_read(cs);

	if (err == -ENOENT)
		return ppf_not_loaded(PPF_PROC_STATS);
	if (err) {
		fprintf(stderr, "ppfctl: %s: %s\n", PPF_PROC_STATS, strerror(-err));
		return 1;
	}
	return 0;
}

static double ppf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void ppf_sleep(double seconds)
{
	struct timespec ts = {
		.tv_sec = (time_t)seconds,
		.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9),
	};

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static int ppf_cmd_status(const struct ppf_opts *o)
{
	static struct ppf_counters before, now;
	struct ppf_sample s = { .now = &now };
	double t0;
	int err;

	err = ppf_read(&before);
	if (err) {
		/* --json still says it, in JSON: "loaded" is what it finds */
		if (o->json && access(PPF_PROC_STATS, F_OK))
			printf("{\"loaded\": false, \"enabled\": false}\n");
		return err;
	}
	now = before;
	if (o->interval > 0) {
		t0 = ppf_now();
		ppf_sleep(o->interval);
		err = ppf_read(&now);
		if (err)
			return err;
		s.before = &before;
		s.seconds = ppf_now() - t0;
	}
	ppf_report_status(stdout, &s, o->json);
	return 0;
}

static int ppf_cmd_watch(const struct ppf_opts *o)
{
	static struct ppf_counters a, b;
	struct ppf_counters *before = &a, *now = &b, *tmp;
	double t0, t1;
	long i;
	int err;

	if (o->interval <= 0)
		return ppf_bad_usage("watch: -i needs an interval above 0 seconds");
	err = ppf_read(before);
	if (err)
		return err;
	t0 = ppf_now();
	for (i = 0; !o->count || i < o->count; i++) {
		struct ppf_sample s;

		char stamp[32] = "";

		if (!o->json && i % 20 == 0)
			ppf_report_watch_header(stdout, o->timestamps);
		ppf_sleep(o->interval);
		err = ppf_read(now);
		if (err)
			return err;
		t1 = ppf_now();
		if (o->timestamps) {
			time_t t = time(NULL);
			struct tm tm;

			if (localtime_r(&t, &tm))
				strftime(stamp, sizeof(stamp), "%Y-%m-%d %H:%M:%S", &tm);
		}
		s = (struct ppf_sample){ before, now, t1 - t0 };
		ppf_report_watch_line(stdout, &s, o->json, o->timestamps ? stamp : NULL);
		if (ppf_cli_stdout_gone())
			return 0;	/* watch | head: the reader has what it wanted */
		tmp = before;
		before = now;
		now = tmp;
		t0 = t1;
	}
	return 0;
}

/* A tunable that cannot be read or written: why, in the kernel's words. */
static int ppf_tunable_error(const char *what, const char *name, int err)
{
	if (err == -ENOENT) {
		if (access(PPF_PROC_STATS, F_OK))
			return ppf_not_loaded(PPF_PROC_STATS);
		fprintf(stderr, "ppfctl: no tunable '%s' (ppfctl get lists them)\n",
			name);
		return 1;
	}
	fprintf(stderr, "ppfctl: %s %s: %s\n", what, name, strerror(-err));
	return 1;
}

static int ppf_cmd_set(const char *name, const char *value)
{
	char old[PPF_TUNABLE_MAX];
	int err;

	err = ppf_tunable_get(name, old, sizeof(old));
	if (err)
		return ppf_tunable_error("get", name, err);
	err = ppf_tunable_set(name, value);
	if (err == -EINVAL) {
		fprintf(stderr, "ppfctl: set %s %s: %s: the kernel refused the value; %s stays %s\n",
			name, value, strerror(EINVAL), name, old);
		return 1;
	}
	if (err)
		return ppf_tunable_error("set", name, err);
	return 0;
}

static int ppf_cmd_get(const struct ppf_opts *o)
{
	char names[64][64], value[PPF_TUNABLE_MAX];
	int n, err;

	if (o->nargs == 2) {
		err = ppf_tunable_get(o->args[1], value, sizeof(value));
		if (err)
			return ppf_tunable_error("get", o->args[1], err);
		printf("%s\n", value);
		return 0;
	}
	n = ppf_tunable_list(names, 64);
	if (n == -ENOENT)
		return ppf_not_loaded(PPF_PROC_STATS);
	if (n < 0)
		return ppf_tunable_error("list", PPF_SYSCTL_DIR, n);
	ppf_report_tunables(stdout, names, n, o->json);
	if (o->json)
		putchar('\n');
	return 0;
}

static int ppf_parse(int argc, char **argv, struct ppf_opts *o)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		char *end;

		if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "-t")) {
			o->timestamps = true;
		} else if (!strcmp(a, "-i") || !strcmp(a, "-n")) {
			const char *v;

			if (i + 1 >= argc) {
				fprintf(stderr, "ppfctl: %s needs a value (see ppfctl --help)\n", a);
				return PPF_EXIT_USAGE;
			}
			v = argv[++i];
			errno = 0;
			if (a[1] == 'i') {
				o->interval = strtod(v, &end);
				if (errno || *end || end == v || !(o->interval >= 0) ||
				    o->interval > 86400)
					return ppf_bad_value(a, v, "not a number of seconds "
							     "in 0..86400");
			} else {
				o->count = strtol(v, &end, 10);
				if (errno || *end || end == v || o->count < 0)
					return ppf_bad_value(a, v, "not a count (0 or more)");
			}
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(ppf_usage, stdout);
			fputs(ppf_help, stdout);
			exit(PPF_EXIT_OK);
		} else if (!strcmp(a, "-V") || !strcmp(a, "--version")) {
			ppf_cli_version("ppfctl");
			exit(PPF_EXIT_OK);
		} else if (a[0] == '-' && a[1] && o->nargs == 0) {
			fprintf(stderr, "ppfctl: unknown option %s (see ppfctl --help)\n", a);
			return PPF_EXIT_USAGE;
		} else if (o->nargs < 4) {
			o->args[o->nargs++] = argv[i];
		} else {
			return ppf_bad_usage("too many arguments");
		}
	}
	return o->nargs ? 0 : ppf_bad_usage("no command");
}

/* A command that is not one, or one with the wrong arguments: one line, then the usage. */
static int ppf_bad_command(const struct ppf_opts *o)
{
	static const char *const cmds[] = {
		"status", "watch", "get", "set", "enable", "disable", "reset",
		"save", "load", "export", "import",
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(o->args[0], cmds[i]))
			break;
	if (i == sizeof(cmds) / sizeof(cmds[0]))
		fprintf(stderr, "ppfctl: unknown command '%s'\n", o->args[0]);
	else
		fprintf(stderr, "ppfctl: %s: wrong number of arguments (%d)\n", o->args[0],
			o->nargs - 1);
	fputs(ppf_usage, stderr);
	return PPF_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	struct ppf_opts o = { .interval = 1 };
	const char *cmd;
	int err;

	ppf_cli_quiet_pipe();
	err = ppf_parse(argc, argv, &o);
	if (err)
		return err;
	cmd = o.args[0];
	if (!strcmp(cmd, "status") && o.nargs == 1)
		return ppf_cmd_status(&o);
	if (!strcmp(cmd, "watch") && o.nargs == 1)
		return ppf_cmd_watch(&o);
	if (!strcmp(cmd, "get") && o.nargs <= 2)
		return ppf_cmd_get(&o);
	if (!strcmp(cmd, "set") && o.nargs == 3)
		return ppf_cmd_set(o.args[1], o.args[2]);
	if (!strcmp(cmd, "enable") && o.nargs == 1)
		return ppf_cmd_set("enabled", "1");
	if (!strcmp(cmd, "disable") && o.nargs == 1)
		return ppf_cmd_set("enabled", "0");
	if (!strcmp(cmd, "reset") && o.nargs == 1)
		return ppf_cmd_set("reset", "1");
	if (!strcmp(cmd, "save") && o.nargs == 2)
		return ppf_cmd_save(o.args[1]);
	if (!strcmp(cmd, "load") && o.nargs == 2)
		return ppf_cmd_load(o.args[1]);
	if (!strcmp(cmd, "export") && o.nargs == 2)
		return ppf_cmd_export(o.args[1]);
	if (!strcmp(cmd, "import") && o.nargs == 2)
		return ppf_cmd_import(o.args[1]);
	return ppf_bad_command(&o);
}
