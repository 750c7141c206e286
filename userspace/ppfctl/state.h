/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - ppfctl save | load (state.c) | export | import (portable.c)
 *
 * Each returns ppfctl's exit status: 0 done, 1 refused or failed, with the
 * reason printed.
 */
#ifndef PPFCTL_STATE_H
#define PPFCTL_STATE_H

#include <stddef.h>
#include "counters.h"
#include "../../models/state_file.h"

#define PPF_PROC_STATE	"/proc/predictive_prefetch_state"

int ppf_cmd_save(const char *path);
int ppf_cmd_load(const char *path);
int ppf_cmd_export(const char *path);	/* portable.c */
int ppf_cmd_import(const char *path);	/* portable.c */

/* A state file's bytes, as read or to be written. */
struct ppf_buf {
	unsigned char *data;
	size_t len;
};

/* For export and import (portable.c): state files read, checked, written. */
void ppf_kernel_limits(struct ppf_state_limits *lim);
int ppf_read_state(const char *path, struct ppf_buf *b, struct ppf_state *st,
		   const struct ppf_state_limits *lim);
int ppf_store(const char *path, const struct ppf_buf *b);
int ppf_write_kernel(const struct ppf_buf *b);

#endif
