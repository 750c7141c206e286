// SPDX-License-Identifier: GPL-2.0
/*
 * hooks.c - the hooks' lifecycle: set up, start, stop, tear down
 *
 * DOC: Hooks
 *
 * fs/hooks/ is four sources of events and one policy: the open and exec
 * events of the watched file systems (sb_watch.c, which also holds the
 * list of types that may be watched), the pages each file is read at
 * (read_hook.c), the metadata blocks each open read (meta_hook.c), and
 * the count of folios leaving the page cache (removal_hook.c).  They are
 * set up at load, hooked in only while ppf is enabled (with no probe and
 * no mark left, disabled costs the system nothing), and torn down at
 * unload, here.  Nothing in fs/hooks/ calls into mm/prefetch/ but the
 * three event entry points (ppf_hooks.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/printk.h>
#include <linux/tracepoint.h>
#include "ppf_hooks.h"
#include "meta_hook.h"
#include "read_hook.h"
#include "removal_hook.h"
#include "sb_watch.h"

/* Unregister every probe; none is running or will run once this returns. */
static void ppf_probes_unregister(void)
{
	bool any = ppf_read_hook_stop();

	any |= ppf_removal_hook_stop();
	any |= ppf_meta_hook_stop();
	if (any)
		tracepoint_synchronize_unregister();
}

/* The removal count first: nothing may be learnt that it does not cover. */
static int ppf_probes_register(void)
{
	int err;

	err = ppf_removal_hook_start();
	if (!err)
		err = ppf_read_hook_start();
	if (!err)
		err = ppf_meta_hook_start();
	if (err)
		ppf_probes_unregister();
	return err;
}

/**
 * ppf_hooks_init() - find the tracepoints and set up the fsnotify group
 *
 * No event flows until ppf_hooks_start().
 *
 * Return: 0 or a negative errno.
 */
int ppf_hooks_init(void)
{
	if (ppf_read_hook_init() || ppf_removal_hook_init() ||
	    ppf_meta_hook_init()) {
		pr_err("mm_filemap tracepoints not found (CONFIG_TRACEPOINTS?)\n");
		return -ENOENT;
	}
	return ppf_sb_watch_init();
}

/**
 * ppf_hooks_start() - start receiving open, exec and read events
 *
 * When ppf is enabled.  File systems are watched again from their next
 * read on.  May sleep.
 *
 * Return: 0 or a negative errno.
 */
int ppf_hooks_start(void)
{
	ppf_sb_watch_resume();
	return ppf_probes_register();
}

/**
 * ppf_hooks_stop() - stop all events; none is delivered after this returns
 *
 * When ppf is disabled: with no probe and no mark left, the hooks cost the
 * system nothing.  May sleep.
 */
void ppf_hooks_stop(void)
{
	ppf_probes_unregister();
	ppf_sb_unwatch_all();
}

/**
 * ppf_hooks_exit() - stop all events, release the fsnotify group and free
 * the watched types
 */
void ppf_hooks_exit(void)
{
	ppf_hooks_stop();
	ppf_sb_watch_exit();
}
