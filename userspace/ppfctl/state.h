/* SPDX-License-Identifier: GPL-2.0 */
/*
 * state.h - ppfctl save | load | export | import (state.c)
 *
 * Each returns ppfctl's exit status: 0 done, 1 refused or failed, with the
 * reason printed.
 */
#ifndef PPFCTL_STATE_H
#define PPFCTL_STATE_H

#include "counters.h"
#include "../../models/state_file.h"

#define PPF_PROC_STATE	"/proc/predictive_prefetch_state"

int ppf_cmd_save(const char *path);
int ppf_cmd_load(const char *path);
int ppf_cmd_export(const char *path);
int ppf_cmd_import(const char *path);

#endif
