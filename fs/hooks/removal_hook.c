// SPDX-License-Identifier: GPL-2.0
/*
 * removal_hook.c - count the folios leaving the page cache
 *
 * DOC: Removal hook
 *
 * Most predictions name files that are already cached (EPCM names the same
 * files event after event, and a hot working set is all cached), and
 * checking one costs the worker a file handle decode and a page-cache walk.
 * To skip those checks soundly, the prefetcher remembers "fully cached at
 * removal count N" per file, and trusts it while the count has not moved.
 *
 * The count is the number of folios removed from the page caches of the
 * files that share the file's bucket (a hash of device and inode number,
 * PPF_REMOVAL_BUCKETS of them), counted by a probe on the
 * mm_filemap_delete_from_page_cache tracepoint, which every removal of a
 * folio from a file's page cache passes (eviction, drop_caches,
 * truncation, invalidation, a deleted file's last iput).  The probe
 * increments a per-CPU counter: a few instructions on a path that frees
 * memory anyway, and no shared cache line.  With one count for all files
 * (as first built), a workload's own temporary files, truncated and
 * deleted as it runs, made every remembered file look changed.  What the
 * buckets save shows in /proc/predictive_prefetch as skipped_cached_known
 * against skipped_cached (measured with glimpse-ssd, whose workload
 * truncates and deletes files of its own).
 *
 * A removal runs its tracepoint and deletes the folio under the mapping's
 * i_pages lock, so ppf_page_cache_removals_of() reads the count under that
 * lock: any removal from the mapping is then either counted and complete,
 * or not yet begun and will move the count.
 *
 * Summing a bucket's count reads one counter per possible CPU (64 loads
 * on a 64-CPU machine, 1 on the bench's one-CPU guest), at every
 * prediction of a file known cached.  Most of the time nothing at all has
 * left any page cache lately: the probe also sets a flag, which the worker
 * clears once per batch of events (ppf_page_cache_mark()), moving a
 * generation of quiet when it found it set.  A file found cached while the
 * flag was clear is known cached still while the generation has not moved
 * and the flag is clear (ppf_page_cache_quiet()): two loads, whatever the
 * number of CPUs.  The flag is read under the mapping's i_pages lock with
 * the count, so the same argument holds: a removal from the mapping is
 * either complete before the look, or sets the flag (or finds it set, and
 * the next mark moves the generation) after it.  A file whose count is
 * found unmoved later, outside the lock, may take the quiet read just after
 * that count (ppf_prefetch_still_cached()): the probe moves the count and
 * then the flag before its folio goes, so a removal not seen in the count
 * either shows in that read or moves the generation later.  The probe
 * reads the flag before it writes it: a set flag's cache line is not
 * written again by every removal.  Whether anything was removed since the
 * last mark is also what tells the worker to have the models name
 * everything again.
 *
 * While the module is disabled nothing is counted; starting again moves
 * the count by one, so nothing remembered before counts as current.
 */
#include <linux/fs.h>
#include <linux/hash.h>
#include <linux/pagemap.h>
#include <linux/percpu.h>
#include <linux/tracepoint.h>
#include "ppf_hooks.h"
#include "removal_hook.h"

static struct tracepoint *ppf_tp_removal;
static bool ppf_reg_removal;
#define PPF_REMOVAL_BITS	8
#define PPF_REMOVAL_BUCKETS	BIT(PPF_REMOVAL_BITS)
static DEFINE_PER_CPU(unsigned long [PPF_REMOVAL_BUCKETS], ppf_removals);
/* Set by a removal, cleared by ppf_page_cache_mark() (DOC: Removal hook). */
static int ppf_removed;
/* Marks that found ppf_removed set (the worker's only); 0 is never one. */
static unsigned long ppf_quiet_gen = 1;
/* Moved at each start: what was remembered before is not current. */
static atomic_long_t ppf_removal_starts;

static unsigned int ppf_removal_bucket(dev_t dev, u64 ino)
{
	return hash_64(ino ^ ((u64)dev << 32), PPF_REMOVAL_BITS);
}

/* A file's device, as the tracepoint itself reads it (no sb: a bdev's). */
static dev_t ppf_removal_dev(const struct inode *host)
{
	return host->i_sb ? host->i_sb->s_dev : host->i_rdev;
}

/* The tracepoint's own fast-assign reads folio->mapping->host: set here. */
static void ppf_probe_removal(void *data, struct folio *folio)
{
	const struct inode *host = folio->mapping->host;

	this_cpu_inc(ppf_removals[ppf_removal_bucket(ppf_removal_dev(host),
						     host->i_ino)]);
	if (!READ_ONCE(ppf_removed))
		WRITE_ONCE(ppf_removed, 1);
}

static void ppf_find_removal_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_filemap_delete_from_page_cache"))
		ppf_tp_removal = tp;
}

/**
 * ppf_removal_hook_init() - find the tracepoint
 *
 * Return: 0 or -ENOENT.
 */
int ppf_removal_hook_init(void)
{
	for_each_kernel_tracepoint(ppf_find_removal_tracepoint, NULL);
	return ppf_tp_removal ? 0 : -ENOENT;
}

/**
 * ppf_removal_hook_start() - start counting removals
 *
 * Before any other hook starts, so that nothing is learnt uncounted.
 *
 * Return: 0 or a negative errno.
 */
int ppf_removal_hook_start(void)
{
	int err = tracepoint_probe_register(ppf_tp_removal, ppf_probe_removal,
					    NULL);

	ppf_reg_removal = !err;
	/* What was remembered while nothing was counted is not current. */
	atomic_long_inc(&ppf_removal_starts);
	WRITE_ONCE(ppf_removed, 1);
	return err;
}

/**
 * ppf_removal_hook_stop() - stop counting (the caller then waits for probes)
 *
 * Return: true if a probe was unregistered.
 */
bool ppf_removal_hook_stop(void)
{
	bool was = ppf_reg_removal;

	if (was)
		tracepoint_probe_unregister(ppf_tp_removal, ppf_probe_removal,
					    NULL);
	ppf_reg_removal = false;
	return was;
}

/**
 * ppf_page_cache_removals_of() - the removal count, as seen by a mapping
 * @mapping: the page cache about to be looked at
 * @quiet: set to ppf_page_cache_quiet() at the same moment
 *
 * Read under @mapping's i_pages lock (see DOC: Removal hook): if no folio
 * is missing from @mapping when it is walked afterwards, any later removal
 * from it moves the count past the value returned, and makes
 * ppf_page_cache_quiet() differ from *@quiet.  The caller is the worker.
 *
 * Return: ppf_page_cache_removals() of the mapping's file.
 */
unsigned long ppf_page_cache_removals_of(struct address_space *mapping,
					 unsigned long *quiet)
{
	const struct inode *host = mapping->host;
	unsigned long n;

	xa_lock_irq(&mapping->i_pages);
	n = ppf_page_cache_removals(ppf_removal_dev(host), host->i_ino);
	*quiet = ppf_page_cache_quiet();
	xa_unlock_irq(&mapping->i_pages);
	return n;
}

/**
 * ppf_page_cache_removals() - the removal count of a file's bucket
 * @dev: the file's device
 * @ino: its inode number
 *
 * Return: the number of folios removed so far (while counting) from the
 * page caches of the files in the bucket of @dev and @ino, plus one per
 * start.
 */
unsigned long ppf_page_cache_removals(dev_t dev, u64 ino)
{
	unsigned int b = ppf_removal_bucket(dev, ino);
	unsigned long n = atomic_long_read(&ppf_removal_starts);
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu(ppf_removals, cpu)[b]);
	return n;
}

/**
 * ppf_page_cache_mark() - begin a quiet generation if anything was removed
 *
 * Once per batch of the worker's events, which alone calls this and
 * ppf_page_cache_quiet().
 *
 * Return: true if a folio left some page cache (or counting started) since
 * the last mark: the generation moved.
 */
bool ppf_page_cache_mark(void)
{
	if (!READ_ONCE(ppf_removed))
		return false;
	WRITE_ONCE(ppf_removed, 0);
	/* Cleared before anything the worker looks at next. */
	smp_mb();
	ppf_quiet_gen++;
	return true;
}

/**
 * ppf_page_cache_quiet() - the generation of quiet, if nothing left since its mark
 *
 * Return: 0 if a folio left some page cache since the last
 * ppf_page_cache_mark(); else that mark's generation, which moves at the
 * next mark that finds a removal: while a value returned is returned
 * again, nothing has left any page cache.
 */
unsigned long ppf_page_cache_quiet(void)
{
	return READ_ONCE(ppf_removed) ? 0 : ppf_quiet_gen;
}
