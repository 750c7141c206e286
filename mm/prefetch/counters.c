// SPDX-License-Identifier: GPL-2.0
/*
 * counters.c - the per-CPU counters every part of the engine counts into
 *
 * Per CPU, so that the hooks never share a cache line to count
 * (ppf_stat_inc()).  They are summed and shown by stats.c; they live apart
 * from it because showing them asks the engine for its models' figures,
 * and the engine counts into them.
 */
#include "ppf.h"

DEFINE_PER_CPU(struct ppf_stats, ppf_stats);
