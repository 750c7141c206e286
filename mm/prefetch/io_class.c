// SPDX-License-Identifier: GPL-2.0
/*
 * io_class.c - the I/O class of the worker's reads, chosen per device
 *
 * DOC: I/O class
 *
 * Every read the worker starts, a prefetch, a metadata block, the inode
 * read of decoding a handle, takes the I/O priority of the worker thread
 * when it is submitted (bio_set_ioprio() -> get_current_ioprio()).  The
 * io_class sysctl sets it: best-effort (level 7), the default, idle, or
 * auto, with which the worker takes, before a file's reads, a class by the
 * file system's device:
 *
 * - idle on a rotational device.  A prefetch there costs positioning the
 *   arm; idle lets the elevator serve every task's read first, and sorts
 *   the queue of prefetches into sweeps.
 * - best effort on any other.  Nothing is positioned, and idle keeps one
 *   cost: a task whose read needs a page being prefetched waits until no
 *   best-effort read is queued or in flight (mq-deadline dispatches idle
 *   requests only then), behind writeback and other tasks' reads.  Glimpse
 *   and Andrew's reads on the ssd profile (glimpse-ssd, andrew-reads-ssd)
 *   measure the two classes.
 *
 * Auto is kept as IOPRIO_CLASS_NONE, a class of no thread: the choice is
 * made per device.
 *
 * Auto was the default.  Measured against best effort on every rotational
 * cell of the evaluation's matrix and on workloads ppf was not tuned on,
 * best effort did better on most: idle's inversion (a task waiting for a
 * page or block the worker's idle read holds while the elevator serves
 * every best-effort request first) cost more than idle's yielding gained,
 * and the elevator sorts best-effort requests into sweeps too.  Where it
 * lost (a Python start-up on the paper's disk, 3 %) the start-up's demand
 * reads gained more by passing the prefetches.  docs/results.md, "Best
 * effort by default".
 *
 * A file's own pages, read at its open or exec (ppf_plan_own()), take the
 * same class.  At idle an exec may fault on a page of its own that the
 * worker's read holds while mq-deadline serves every best-effort request
 * first (gitwork-hdd2001: bash's first exec waited 851 ms); reading them
 * at best effort ended that wait but moved it to the opens, and on the
 * rotational cells of the matrix it gained on the paper's disk and lost on
 * the modern one (docs/results.md, "A file's own pages at best effort"),
 * so it was not kept.
 *
 * Metadata reads take meta_io_class: the inode block read to decode a
 * handle, the directory blocks of a lookup and a file's learnt metadata
 * blocks (metadata.c).  A task's open needs those very blocks, often a
 * moment after the worker asked for them (an inode block holds sixteen
 * inodes, a directory block many entries); if the worker's read of one is
 * queued at idle, the open waits for it, and an idle request waits until
 * no best-effort request is queued or in flight, up to mq-deadline's
 * prio_aging_expire (10 s): the open inherits the prefetch's priority.  On
 * GNU ld's link on the paper's disk, where writeback keeps best-effort
 * requests queued, one run's opens waited 16.8 s with EPCM, 0.6 s without
 * (report's "what the calls waited" of gnuld-hdd2001; timing decides).
 * At best effort the metadata reads pass that writeback, but they also
 * pass the tasks' own reads: Glimpse's 2,800 directory lookups on the same
 * disk then delay its reads.  So the default, auto, keeps io_class's
 * choice, and best-effort is the setting measured against it
 * (docs/results.md, "What the matrix says": GNU ld's link).
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <linux/sched.h>
#include "ppf.h"

/**
 * ppf_io_prio() - the I/O priority of a class, as ppf uses it
 * @class: IOPRIO_CLASS_IDLE or IOPRIO_CLASS_BE
 *
 * Return: idle, or best effort at its lowest level (7).
 */
int ppf_io_prio(unsigned int class)
{
	return IOPRIO_PRIO_VALUE(class, class == IOPRIO_CLASS_IDLE ?
					0 : IOPRIO_BE_NR - 1);
}

/* The class io_class chooses for a file system's reads: idle or best effort. */
static unsigned int ppf_io_class_of(struct super_block *sb)
{
	unsigned int class = READ_ONCE(ppf_config.io_class);

	if (class != PPF_IO_CLASS_AUTO)
		return class;
	return sb->s_bdev && bdev_nonrot(sb->s_bdev) ? IOPRIO_CLASS_BE :
						       IOPRIO_CLASS_IDLE;
}

static void ppf_io_class_set(unsigned int class)
{
	int prio = ppf_io_prio(class);

	if (get_current_ioprio() != prio)
		set_task_ioprio(current, prio);
}

/**
 * ppf_io_class_for() - the worker's next reads are for this file system
 * @sb: the file system, pinned by the caller
 *
 * Sets the worker thread's I/O priority to the class chosen for @sb, if it
 * is not that already.  Called by the worker, under ppf_worker_mutex,
 * before it starts a file's reads.
 */
void ppf_io_class_for(struct super_block *sb)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_io_class_set(ppf_io_class_of(sb));
}

/**
 * ppf_io_class_meta() - the worker's next reads are metadata of this file system
 * @sb: the file system, pinned by the caller
 *
 * Sets the worker thread's I/O priority to meta_io_class's (auto, the
 * default: io_class's choice for @sb).  The caller sets the data
 * class again with ppf_io_class_for() when its metadata reads are
 * started, so that the worker's class between reads is the data's.
 * Called by the worker, under ppf_worker_mutex.
 */
void ppf_io_class_meta(struct super_block *sb)
{
	unsigned int class = READ_ONCE(ppf_config.meta_io_class);

	lockdep_assert_held(&ppf_worker_mutex);
	ppf_io_class_set(class == PPF_IO_CLASS_AUTO ? ppf_io_class_of(sb) : class);
}
