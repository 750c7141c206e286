// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-trace-check: validate a trace with the C parser and print the counts
 * in exactly the format of "ppf-trace info", so tests can diff the two.
 */
#include <stdio.h>

#include "trace.h"

static void ppf_print_ns(const char *key, uint64_t v)
{
	if (v == PPF_TRACE_UNKNOWN)
		printf("%s -\n", key);
	else
		printf("%s %llu\n", key, (unsigned long long)v);
}

int main(int argc, char **argv)
{
	struct ppf_trace_stats s;
	struct ppf_trace *t;
	char err[512];
	int i, status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ppf-trace-check TRACE...\n");
		return 2;
	}
	for (i = 1; i < argc; i++) {
		if (ppf_trace_load(argv[i], &t, err, sizeof(err))) {
			fprintf(stderr, "%s\n", err);
			status = 1;
			continue;
		}
		ppf_trace_get_stats(t, &s);
		printf("name %s\n", t->name ? t->name : "-");
		printf("version %d\n", t->version);
		printf("events %zu\n", t->nevents);
		printf("files %llu\n", (unsigned long long)s.files);
		printf("files_new %llu\n", (unsigned long long)s.files_new);
		printf("files_outside_root %llu\n", (unsigned long long)s.files_outside);
		printf("dirs %llu\n", (unsigned long long)s.dirs);
		printf("opens %llu\n", (unsigned long long)s.opens);
		printf("failed_opens %llu\n", (unsigned long long)s.failed_opens);
		printf("execs %llu\n", (unsigned long long)s.execs);
		printf("reads %llu\n", (unsigned long long)s.reads);
		printf("bytes_read %llu\n", (unsigned long long)s.bytes_read);
		printf("writes %llu\n", (unsigned long long)s.writes);
		printf("bytes_written %llu\n", (unsigned long long)s.bytes_written);
		printf("mmaps %llu\n", (unsigned long long)s.mmaps);
		printf("mapped_bytes %llu\n", (unsigned long long)s.mapped_bytes);
		printf("closes %llu\n", (unsigned long long)s.closes);
		printf("stats %llu\n", (unsigned long long)s.stats);
		printf("unlinks %llu\n", (unsigned long long)s.unlinks);
		printf("renames %llu\n", (unsigned long long)s.renames);
		printf("mkdirs %llu\n", (unsigned long long)s.mkdirs);
		printf("rmdirs %llu\n", (unsigned long long)s.rmdirs);
		printf("dups %llu\n", (unsigned long long)s.dups);
		ppf_print_ns("elapsed_ns", t->elapsed_ns);
		ppf_print_ns("corrected_elapsed_ns", t->corrected_elapsed_ns);
		ppf_print_ns("untraced_elapsed_ns", t->untraced_elapsed_ns);
		ppf_print_ns("compute_ns", t->compute_ns);
		ppf_print_ns("strace_overhead_ns", t->overhead_ns);
		ppf_print_ns("inherited_fd_calls", t->inherited_fd_calls);
		ppf_print_ns("dropped_events", t->dropped_events);
		ppf_trace_free(t);
	}
	return status;
}
