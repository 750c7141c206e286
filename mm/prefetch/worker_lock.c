// SPDX-License-Identifier: GPL-2.0
/*
 * worker_lock.c - ppf_worker_mutex, the lock of what the worker changes
 *
 * The files that keep that state assert the lock is held
 * (lockdep_assert_held()); it is defined here, on its own, so that
 * asserting it ties none of them to the worker.
 */
#include <linux/mutex.h>
#include "ppf.h"

/*
 * The models, the file table, the plan, readahead's records, the history
 * of opens and the event count change only under it (see the locking
 * order in ppf.h): the worker holds it per batch of events, sysctl and
 * loading a saved state to change what the worker uses.
 */
DEFINE_MUTEX(ppf_worker_mutex);
