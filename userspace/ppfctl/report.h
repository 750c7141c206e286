/* SPDX-License-Identifier: GPL-2.0 */
/*
 * report.h - what ppfctl prints: status in words or JSON, and watch lines
 */
#ifndef PPFCTL_REPORT_H
#define PPFCTL_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include "counters.h"

/* Two readings of the counters, @seconds apart (0: one reading only). */
struct ppf_sample {
	const struct ppf_counters *before;	/* NULL with one reading */
	const struct ppf_counters *now;
	double seconds;
};

/* The rate of a counter between the two readings, per second. */
double ppf_rate(const struct ppf_sample *s, const char *name);
/* The same for every counter whose name starts with prefix. */
double ppf_rate_prefix(const struct ppf_sample *s, const char *prefix);

/* ppfctl status: every tunable and counter, explained. */
void ppf_report_status(FILE *out, const struct ppf_sample *s, bool json);
/* ppfctl watch: the header, then one line a sample. */
void ppf_report_watch_header(FILE *out, bool timestamps);
/* stamp: the -t timestamp, or NULL */
void ppf_report_watch_line(FILE *out, const struct ppf_sample *s, bool json,
			   const char *stamp);

/*
 * The tunables in names[] (ppf_tunable_list()) with their values: a JSON
 * object, or a "vm.predictive_prefetch.NAME = VALUE" line each.
 */
void ppf_report_tunables(FILE *out, char (*names)[64], int n, bool json);

#endif
