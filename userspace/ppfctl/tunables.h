/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tunables.h - the sysctls under vm.predictive_prefetch
 *
 * ppfctl reads and writes /proc/sys/vm/predictive_prefetch/ directly, as
 * sysctl(8) does, so the kernel's own validation decides: a value it
 * refuses comes back as its errno (EINVAL) and the old value stays.
 */
#ifndef PPFCTL_TUNABLES_H
#define PPFCTL_TUNABLES_H

#include <stddef.h>

#define PPF_SYSCTL_DIR	"/proc/sys/vm/predictive_prefetch"
#define PPF_TUNABLE_MAX	256

/*
 * Read one tunable into buf (no trailing newline).
 * Returns 0, or -errno: -ENOENT for a name the module does not have.
 */
int ppf_tunable_get(const char *name, char *buf, size_t size);
/* Write one; returns 0 or the kernel's -errno (-EINVAL: refused). */
int ppf_tunable_set(const char *name, const char *value);
/*
 * The names of every tunable, sorted, into names.  Returns how many, or
 * -errno (-ENOENT: the module is not loaded).
 */
int ppf_tunable_list(char (*names)[64], int max);

#endif
