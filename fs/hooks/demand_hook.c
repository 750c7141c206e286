// SPDX-License-Identifier: GPL-2.0
/*
 * demand_hook.c - when did a task last start reading from a device?
 *
 * DOC: Demand hook
 *
 * On a disk with one arm, a prefetch that is being served when a task's own
 * read arrives delays that read by what is left of it, whatever the I/O
 * class (the elevator can only reorder what waits in it).  Prefetching pays
 * on such a disk while the tasks compute, not while they read.  So the
 * prefetcher holds back on rotational devices while tasks are reading:
 * until no task has started a read for demand_wait_us (see DOC: Pacing).
 *
 * A task starts a read of a file by adding a folio to its page cache, which
 * passes the mm_filemap_add_to_page_cache tracepoint (read(2), a page fault,
 * the kernel's own readahead on the task's behalf; also a write that
 * creates a page).  The probe notes the time in a per-CPU variable, unless
 * the adder is a kernel thread (ppf's own worker among them): one clock
 * read and one store on a path that allocates a page anyway.  It does not
 * know the device: a read on any device holds prefetching back on all
 * rotational ones.
 */
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/tracepoint.h>
#include "ppf_hooks.h"
#include "demand_hook.h"

static struct tracepoint *ppf_tp_add;
static bool ppf_reg_add;
static DEFINE_PER_CPU(u64, ppf_last_demand_ns);

static void ppf_probe_add(void *data, struct folio *folio)
{
	if (!(current->flags & PF_KTHREAD))
		this_cpu_write(ppf_last_demand_ns, ktime_get_mono_fast_ns());
}

static void ppf_find_add_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_filemap_add_to_page_cache"))
		ppf_tp_add = tp;
}

/**
 * ppf_demand_hook_init() - find the tracepoint
 *
 * Return: 0 or -ENOENT.
 */
int ppf_demand_hook_init(void)
{
	for_each_kernel_tracepoint(ppf_find_add_tracepoint, NULL);
	return ppf_tp_add ? 0 : -ENOENT;
}

/**
 * ppf_demand_hook_start() - start noting the tasks' reads
 *
 * Return: 0 or a negative errno.
 */
int ppf_demand_hook_start(void)
{
	int err = tracepoint_probe_register(ppf_tp_add, ppf_probe_add, NULL);

	ppf_reg_add = !err;
	return err;
}

/**
 * ppf_demand_hook_stop() - stop (the caller then waits for probes)
 *
 * Return: true if a probe was unregistered.
 */
bool ppf_demand_hook_stop(void)
{
	bool was = ppf_reg_add;

	if (was)
		tracepoint_probe_unregister(ppf_tp_add, ppf_probe_add, NULL);
	ppf_reg_add = false;
	return was;
}

/**
 * ppf_demand_since_ns() - how long ago a task last started a read
 *
 * Return: nanoseconds since the latest page a task (not a kernel thread)
 * added to a page cache, on any CPU; U64_MAX if none was seen.
 */
u64 ppf_demand_since_ns(void)
{
	u64 now = ktime_get_mono_fast_ns(), last = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		last = max(last, READ_ONCE(per_cpu(ppf_last_demand_ns, cpu)));
	if (!last)
		return U64_MAX;
	return now > last ? now - last : 0;
}
