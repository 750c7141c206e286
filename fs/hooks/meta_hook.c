// SPDX-License-Identifier: GPL-2.0
/*
 * meta_hook.c - the metadata blocks a task reads on its way to a file
 *
 * DOC: Metadata hook
 *
 * A cold open waits for blocks that are not the file's: the directory
 * block that holds its entry and the inode table block that holds its
 * inode.  File systems read them through the block device's page cache
 * (the buffer cache) and mark the bios REQ_META.  A probe on the
 * block_bio_queue tracepoint notes, per task, the first PPF_META_BLOCKS
 * metadata reads since its last open; the open hook takes them
 * (ppf_meta_take()) and they travel with the open event to the file's
 * entry.  When the file is predicted again, the engine reads those blocks
 * ahead through the same page cache, asynchronously and at the worker's
 * I/O class, with the file's data: the open then finds its metadata
 * cached, and the worker need not wait for a lookup (DOC: Metadata).
 *
 * The notes are kept in a small table hashed by pid, PPF_META_SLOTS slots
 * under one spinlock (a task that shares a slot loses its notes, and the
 * file keeps what it learnt before).  Kernel threads are not noted, with
 * one exception: the worker while it decodes a predicted file and looks it
 * up in its directory (ppf_meta_collect_begin() to ppf_meta_collect_end()),
 * which reads exactly the blocks the file's open would.  Without it a file
 * the worker looked up was never learnt: its task's open then found the
 * blocks cached and read none, so the worker looked it up again, waiting,
 * at every cold prediction.  A metadata read that is not part of an open
 * (a bitmap read while writing) is noted for the next open and costs one
 * block of readahead later: wrong at worst, never harmful.
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/hash.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/tracepoint.h>
#include "ppf_hooks.h"
#include "meta_hook.h"

#define PPF_META_SLOT_BITS	6
#define PPF_META_SLOTS		BIT(PPF_META_SLOT_BITS)

struct ppf_meta_slot {
	pid_t pid;
	dev_t dev;
	unsigned int nr;
	sector_t sector[PPF_META_BLOCKS];
};

static struct ppf_meta_slot ppf_meta_slots[PPF_META_SLOTS];
static DEFINE_SPINLOCK(ppf_meta_lock);
static struct tracepoint *ppf_tp_bio_queue;
static bool ppf_reg_bio_queue;
/* The kernel thread whose metadata reads are noted, or NULL. */
static struct task_struct *ppf_meta_collector;

/* The current task's slot; under ppf_meta_lock only while it is used. */
static struct ppf_meta_slot *ppf_meta_slot_current(void)
{
	return &ppf_meta_slots[hash_32(current->pid, PPF_META_SLOT_BITS)];
}

static void ppf_probe_bio_queue(void *data, struct bio *bio)
{
	struct ppf_meta_slot *slot;
	unsigned long flags;
	sector_t sector;
	unsigned int i;
	dev_t dev;

	/* Only a task's own reads: not an interrupt's, not a kernel thread's. */
	if (bio_op(bio) != REQ_OP_READ || !(bio->bi_opf & REQ_META) ||
	    !in_task() || !bio->bi_bdev)
		return;
	if ((current->flags & PF_KTHREAD) &&
	    current != READ_ONCE(ppf_meta_collector))
		return;
	/* Queued after the partition's offset was added: take it off. */
	sector = bio->bi_iter.bi_sector;
	if (bio_flagged(bio, BIO_REMAPPED))
		sector -= get_start_sect(bio->bi_bdev);
	dev = bio->bi_bdev->bd_dev;
	slot = ppf_meta_slot_current();
	spin_lock_irqsave(&ppf_meta_lock, flags);
	if (slot->pid != current->pid || slot->dev != dev) {
		slot->pid = current->pid;
		slot->dev = dev;
		slot->nr = 0;
	}
	for (i = 0; i < slot->nr; i++)
		if (slot->sector[i] == sector)
			break;
	if (i == slot->nr && slot->nr < PPF_META_BLOCKS)
		slot->sector[slot->nr++] = sector;
	spin_unlock_irqrestore(&ppf_meta_lock, flags);
}

/**
 * ppf_meta_take() - the metadata blocks the current task read since its last open
 * @bdev: the file system's block device: blocks of another are not taken
 * @sector: where they go, PPF_META_BLOCKS at most, in 512-byte sectors of @bdev
 *
 * Called by the open hook in the opening task; never sleeps.  The task's
 * notes are cleared.
 *
 * Return: how many were set.
 */
unsigned int ppf_meta_take(struct block_device *bdev, sector_t *sector)
{
	struct ppf_meta_slot *slot;
	unsigned long flags;
	unsigned int nr = 0;

	if (!bdev || !READ_ONCE(ppf_reg_bio_queue))
		return 0;
	slot = ppf_meta_slot_current();
	spin_lock_irqsave(&ppf_meta_lock, flags);
	if (slot->pid == current->pid && slot->nr) {
		if (slot->dev == bdev->bd_dev) {
			nr = slot->nr;
			memcpy(sector, slot->sector, nr * sizeof(*sector));
		}
		slot->nr = 0;
	}
	spin_unlock_irqrestore(&ppf_meta_lock, flags);
	return nr;
}

/**
 * ppf_meta_collect_begin() - note the calling kernel thread's metadata reads
 *
 * For the worker, before it decodes a predicted file and looks it up: what
 * it reads until ppf_meta_collect_end() is what the file's open would read.
 * One collector at a time (the caller holds the worker's mutex); notes
 * left from before are cleared.
 */
void ppf_meta_collect_begin(void)
{
	struct ppf_meta_slot *slot = ppf_meta_slot_current();
	unsigned long flags;

	spin_lock_irqsave(&ppf_meta_lock, flags);
	if (slot->pid == current->pid)
		slot->nr = 0;
	spin_unlock_irqrestore(&ppf_meta_lock, flags);
	WRITE_ONCE(ppf_meta_collector, current);
}

/**
 * ppf_meta_collect_end() - the metadata blocks read since ppf_meta_collect_begin()
 * @bdev: the file system's block device: blocks of another are not taken
 * @sector: where they go, PPF_META_BLOCKS at most, in 512-byte sectors of @bdev
 *
 * Return: how many were set.
 */
unsigned int ppf_meta_collect_end(struct block_device *bdev, sector_t *sector)
{
	WRITE_ONCE(ppf_meta_collector, NULL);
	return ppf_meta_take(bdev, sector);
}

static void ppf_find_bio_tracepoint(struct tracepoint *tp, void *priv)
{
	if (!strcmp(tp->name, "block_bio_queue"))
		ppf_tp_bio_queue = tp;
}

/**
 * ppf_meta_hook_init() - find the tracepoint
 *
 * Return: 0 or -ENOENT.
 */
int ppf_meta_hook_init(void)
{
	for_each_kernel_tracepoint(ppf_find_bio_tracepoint, NULL);
	return ppf_tp_bio_queue ? 0 : -ENOENT;
}

/**
 * ppf_meta_hook_start() - start noting metadata reads
 *
 * Return: 0 or a negative errno.
 */
int ppf_meta_hook_start(void)
{
	int err = tracepoint_probe_register(ppf_tp_bio_queue,
					    ppf_probe_bio_queue, NULL);

	WRITE_ONCE(ppf_reg_bio_queue, !err);
	return err;
}

/**
 * ppf_meta_hook_stop() - stop noting (the caller then waits for probes)
 *
 * Return: true if a probe was unregistered.
 */
bool ppf_meta_hook_stop(void)
{
	bool was = ppf_reg_bio_queue;

	if (was)
		tracepoint_probe_unregister(ppf_tp_bio_queue,
					    ppf_probe_bio_queue, NULL);
	WRITE_ONCE(ppf_reg_bio_queue, false);
	return was;
}
