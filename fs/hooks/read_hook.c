// SPDX-License-Identifier: GPL-2.0
/*
 * read_hook.c - which part of each file is read, and file system discovery
 *
 * DOC: Read hook
 *
 * The page-cache tracepoints say which pages of which file a task asks for:
 * mm_filemap_get_pages for read(2), pread(2), readv(2) and the like,
 * mm_filemap_fault and mm_filemap_map_pages for accesses through a
 * mapping.  ppf attaches probes to them (tracepoints are a stable
 * interface, unlike kprobes, and cost one predictable call when enabled) to
 * learn the range of each file that was used, so that a later prefetch
 * reads that range and not the whole file.  The probes also discover file
 * systems to watch (see sb_watch.c).  ppf's own readahead goes through none
 * of these paths, so it produces no events.
 *
 * A probe runs in the reading task's context, sometimes inside a page
 * fault: it looks things up under RCU and takes one per-file spinlock,
 * or, for a file system not watched yet, ppf_sbs_lock to queue it.
 *
 * Kernels before 6.10 (Debian 12's default 6.1) have none of these three
 * tracepoints.  There ppf falls back to mm_filemap_add_to_page_cache,
 * which every kernel since 5.x has: it sees the pages a task brings into
 * the page cache, so it discovers file systems as well, but learns a
 * file's range only from the pages that were not cached already, and
 * misses a read served wholly from the cache.  Pages added by kernel
 * threads are skipped: among them are ppf's own readahead (its worker) and
 * any other readahead done on nobody's behalf.  So that a file system
 * whose files are all cached is not missed, enabling ppf there also
 * watches the file systems of the enabling task's root and working
 * directory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/fs_struct.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/tracepoint.h>
#include "ppf_hooks.h"
#include "read_hook.h"
#include "sb.h"
#include "sb_watch.h"

static struct tracepoint *ppf_tp_get_pages;
static struct tracepoint *ppf_tp_map_pages;
static struct tracepoint *ppf_tp_fault;
static struct tracepoint *ppf_tp_add_page;	/* the fallback */

static void ppf_read_range(struct address_space *mapping, pgoff_t first,
			   pgoff_t last, enum ppf_read_kind kind)
{
	struct inode *inode = mapping->host;
	struct super_block *sb;
	struct ppf_sb *s;

	if (!inode || !S_ISREG(inode->i_mode))
		return;
	sb = inode->i_sb;
	rcu_read_lock();
	s = ppf_sb_lookup_rcu(sb);
	if (likely(s)) {
		ppf_event_read(s, inode, first, last, kind);
		rcu_read_unlock();
		return;
	}
	rcu_read_unlock();
	if (ppf_sb_qualifies(sb))
		ppf_sb_discover(sb);
}

static void ppf_probe_get_pages(void *data, struct address_space *mapping,
				pgoff_t index, pgoff_t last_index)
{
	ppf_read_range(mapping, index, last_index, PPF_READ_ASKED);
}

static void ppf_probe_map_pages(void *data, struct address_space *mapping,
				pgoff_t index, pgoff_t last_index)
{
	ppf_read_range(mapping, index, last_index, PPF_READ_AROUND);
}

static void ppf_probe_fault(void *data, struct address_space *mapping,
			    pgoff_t index)
{
	ppf_read_range(mapping, index, index, PPF_READ_FAULT);
}

static void ppf_probe_add_page(void *data, struct folio *folio)
{
	if (current->flags & PF_KTHREAD)
		return;
	ppf_read_range(folio->mapping, folio->index,
		       folio->index + folio_nr_pages(folio) - 1, PPF_READ_ASKED);
}

/* A file system a path is on, watched if it qualifies. */
static void ppf_discover_path(const struct path *path)
{
	struct super_block *sb = path->mnt->mnt_sb;
	struct ppf_sb *s;

	rcu_read_lock();
	s = ppf_sb_lookup_rcu(sb);
	rcu_read_unlock();
	if (!s && ppf_sb_qualifies(sb))
		ppf_sb_discover(sb);
}

/* The fallback's start: the enabling task's root and working directory. */
static void ppf_discover_current(void)
{
	struct path root, pwd;

	if (!current->fs)
		return;
	get_fs_root(current->fs, &root);
	get_fs_pwd(current->fs, &pwd);
	ppf_discover_path(&root);
	ppf_discover_path(&pwd);
	path_put(&pwd);
	path_put(&root);
}

static void ppf_find_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "mm_filemap_get_pages"))
		ppf_tp_get_pages = tp;
	else if (!strcmp(tp->name, "mm_filemap_map_pages"))
		ppf_tp_map_pages = tp;
	else if (!strcmp(tp->name, "mm_filemap_fault"))
		ppf_tp_fault = tp;
	else if (!strcmp(tp->name, "mm_filemap_add_to_page_cache"))
		ppf_tp_add_page = tp;
}

/* Which probes are registered: unregistering one that is not WARNs. */
static bool ppf_reg_get_pages, ppf_reg_map_pages, ppf_reg_fault;
static bool ppf_reg_add_page;
/* The kernel lacks the read tracepoints: pages added stand in for reads. */
static bool ppf_read_fallback;

/**
 * ppf_read_hook_init() - find the page-cache read tracepoints
 *
 * Return: 0 or -ENOENT.
 */
int ppf_read_hook_init(void)
{
	for_each_kernel_tracepoint(ppf_find_tracepoint, NULL);
	if (ppf_tp_get_pages && ppf_tp_map_pages && ppf_tp_fault)
		return 0;
	if (!ppf_tp_add_page)
		return -ENOENT;
	ppf_read_fallback = true;
	pr_info("no mm_filemap_get_pages tracepoint (kernel before 6.10): read ranges learnt from pages added to the page cache\n");
	return 0;
}

/**
 * ppf_hooks_read_fallback() - are read ranges learnt from pages added?
 *
 * Return: true on a kernel without the read tracepoints (before 6.10),
 * where the fallback stands in for them; /proc/predictive_prefetch says so.
 */
bool ppf_hooks_read_fallback(void)
{
	return ppf_read_fallback;
}

/**
 * ppf_read_hook_stop() - unregister every read probe
 *
 * The caller then waits for running probes with
 * tracepoint_synchronize_unregister().
 *
 * Return: true if a probe was unregistered.
 */
bool ppf_read_hook_stop(void)
{
	bool any = ppf_reg_fault || ppf_reg_map_pages || ppf_reg_get_pages ||
		   ppf_reg_add_page;

	if (ppf_reg_add_page)
		tracepoint_probe_unregister(ppf_tp_add_page,
					    ppf_probe_add_page, NULL);
	if (ppf_reg_fault)
		tracepoint_probe_unregister(ppf_tp_fault, ppf_probe_fault, NULL);
	if (ppf_reg_map_pages)
		tracepoint_probe_unregister(ppf_tp_map_pages,
					    ppf_probe_map_pages, NULL);
	if (ppf_reg_get_pages)
		tracepoint_probe_unregister(ppf_tp_get_pages,
					    ppf_probe_get_pages, NULL);
	ppf_reg_fault = false;
	ppf_reg_map_pages = false;
	ppf_reg_get_pages = false;
	ppf_reg_add_page = false;
	return any;
}

/**
 * ppf_read_hook_start() - register the read probes
 *
 * On a kernel without the read tracepoints, also watches the file systems
 * of the calling task's root and working directory.
 *
 * On failure the caller unregisters those that were, with
 * ppf_read_hook_stop().
 *
 * Return: 0 or a negative errno.
 */
int ppf_read_hook_start(void)
{
	int err;

	if (ppf_read_fallback) {
		err = tracepoint_probe_register(ppf_tp_add_page,
						ppf_probe_add_page, NULL);
		ppf_reg_add_page = !err;
		if (!err)
			ppf_discover_current();
		return err;
	}
	err = tracepoint_probe_register(ppf_tp_get_pages, ppf_probe_get_pages,
					NULL);
	ppf_reg_get_pages = !err;
	if (!err) {
		err = tracepoint_probe_register(ppf_tp_map_pages,
						ppf_probe_map_pages, NULL);
		ppf_reg_map_pages = !err;
	}
	if (!err) {
		err = tracepoint_probe_register(ppf_tp_fault, ppf_probe_fault, NULL);
		ppf_reg_fault = !err;
	}
	return err;
}
