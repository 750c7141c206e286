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
void ppf_report_watch_header(FILE *out);
void ppf_report_watch_line(FILE *out, const struct ppf_sample *s, bool json);

/* A JSON string, quoted and escaped. */
void ppf_json_string(FILE *out, const char *v);

#endif
