// SPDX-License-Identifier: GPL-2.0
/*
 * shared.c - what every part of the engine uses and none owns: the worker's
 * lock and the counters
 *
 * Defined on their own, so that taking the lock or counting ties no file
 * to another: the files that keep the worker's state assert the lock
 * (lockdep_assert_held()), the hooks' entry points and the worker count,
 * and stats.c, which shows the counters, asks the engine for its models'
 * figures.
 */
#include <linux/mutex.h>
#include <linux/percpu.h>
#include "ppf.h"

/*
 * The models, the file table, the plan, readahead's records, the history
 * of opens and the event count change only under it (see the locking
 * order in ppf.h): the worker holds it per batch of events, sysctl and
 * loading a saved state to change what the worker uses.
 */
DEFINE_MUTEX(ppf_worker_mutex);

/* Per CPU, so that the hooks never share a cache line to count. */
DEFINE_PER_CPU(struct ppf_stats, ppf_stats);
