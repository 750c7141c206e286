/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counters.h - /proc/predictive_prefetch read into memory
 *
 * The kernel prints one "name value" pair per line (mm/prefetch/stats.c).
 * ppfctl keeps them by name, not by position, so that a counter added or
 * removed by a newer module is shown or skipped, never misread.
 */
#ifndef PPFCTL_COUNTERS_H
#define PPFCTL_COUNTERS_H

#include <stdbool.h>
#include <stdint.h>

#define PPF_PROC_STATS	"/proc/predictive_prefetch"
#define PPF_COUNTERS_MAX	128
#define PPF_NAME_MAX		48

struct ppf_counter {
	char name[PPF_NAME_MAX];
	uint64_t value;
	bool numeric;		/* "model epcm" is text */
	char text[PPF_NAME_MAX];
};

struct ppf_counters {
	unsigned int n;
	struct ppf_counter c[PPF_COUNTERS_MAX];
};

/*
 * The one message for every command when the module is not there (@missing:
 * the kernel file that is not); returns the exit status, 1.
 */
int ppf_not_loaded(const char *missing);
/* 0, or -errno with errno set (ENOENT: the module is not loaded). */
int ppf_counters_read(struct ppf_counters *cs);
/* The value of a counter, 0 if this module does not print it. */
uint64_t ppf_counter(const struct ppf_counters *cs, const char *name);
/* Whether this module prints the counter. */
bool ppf_counter_has(const struct ppf_counters *cs, const char *name);
/* A text field ("model"), "" if absent. */
const char *ppf_counter_text(const struct ppf_counters *cs, const char *name);

#endif
