// SPDX-License-Identifier: GPL-2.0
/*
 * forget.c - a file entering and leaving what the engine remembers
 *
 * DOC: Forgetting a file
 *
 * A file is forgotten when its inode number comes back for another file,
 * when the table is over max_files (the least recently opened goes), when
 * readahead finds it gone from its file system, and on a reset or unload.
 * Four parts of the engine point at it, and let go of it in this order,
 * from the one that leads to it to the one that holds it: the plan
 * (pacing.c), readahead's record of it (readahead.c, which counts a
 * prefetch never followed by an open as wasted), its directory's list
 * (sweep.c), then the file table, which frees it.  Only this file does
 * all four: none of those parts forgets a file by itself, so none of them
 * calls another back.  The plan
 * hands the files it found gone to its caller, which forgets them here
 * (ppf_forget_gone()).
 *
 * All of it runs under ppf_worker_mutex.
 */
#include "ppf.h"

/**
 * ppf_forget_file() - forget one file
 * @f: its entry, freed here
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_forget_file(struct ppf_file *f)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_plan_forget_file(f);
	ppf_prefetch_forget_file(f);
	ppf_dir_leave(f);
	ppf_files_forget(f);
}

/**
 * ppf_forget_over() - forget the least recently opened files over a count
 * @max_files: how many may stay (0: forget every file)
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_forget_over(unsigned int max_files)
{
	lockdep_assert_held(&ppf_worker_mutex);
	while (ppf_files_count() > max_files)
		ppf_forget_file(ppf_files_oldest());
}

/**
 * ppf_forget_gone() - forget the files the plan found gone
 *
 * After ppf_plan() and ppf_pace().  The caller holds ppf_worker_mutex.
 */
void ppf_forget_gone(void)
{
	struct ppf_file *f;

	lockdep_assert_held(&ppf_worker_mutex);
	while ((f = ppf_plan_take_gone()))
		ppf_forget_file(f);
}

/**
 * ppf_file_remember() - the entry for the file an open or exec event names
 * @ev: the event
 *
 * Creates the entry if the file is new, or if its inode number was reused
 * for another file (whose entry is forgotten), forgetting the least
 * recently opened file if the table is then over max_files; marks it most
 * recently opened.  The caller holds ppf_worker_mutex.
 *
 * Return: the entry, or NULL if out of memory.
 */
struct ppf_file *ppf_file_remember(struct ppf_event *ev)
{
	struct ppf_file *f;

	lockdep_assert_held(&ppf_worker_mutex);
	f = ppf_files_lookup(ev->sb, ev->ino);
	if (f && f->gen != ev->gen) {
		ppf_forget_file(f);
		f = NULL;
	}
	if (f) {
		ppf_files_touch(f);
		return f;
	}
	f = ppf_files_add(ev);
	if (f)
		ppf_forget_over(READ_ONCE(ppf_config.max_files));
	return f;
}
