// SPDX-License-Identifier: GPL-2.0
/*
 * sb.c - the record of a watched file system: references, pinning, identity
 *
 * What the engine holds of a file system is this record, never the super
 * block: an event or a file-table entry keeps the record's memory with a
 * reference (ppf_sb_get()), and uses the file system only between
 * ppf_sb_pin() and ppf_sb_unpin().  The record is made and marked dead by
 * the watcher (sb_watch.c, see DOC: Watched file systems), which is why
 * pinning and the watcher share ppf_sbs_lock: a pin must not succeed on a
 * record the watcher has marked dead.
 */
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "sb.h"

/*
 * Protects every record's @dead, and the watcher's list of records and
 * queue of file systems to discover (sb_watch.c).
 */
DEFINE_SPINLOCK(ppf_sbs_lock);

static void ppf_sb_release(struct kref *kref)
{
	struct ppf_sb *s = container_of(kref, struct ppf_sb, kref);

	kfree_rcu(s, rcu);
}

/**
 * ppf_sb_get() - take a reference on a watched file system's record
 * @s: the record
 *
 * Keeps the record's memory, not the file system: see ppf_sb_pin().
 */
void ppf_sb_get(struct ppf_sb *s)
{
	kref_get(&s->kref);
}

/**
 * ppf_sb_put() - drop a reference taken with ppf_sb_get()
 * @s: the record
 */
void ppf_sb_put(struct ppf_sb *s)
{
	kref_put(&s->kref, ppf_sb_release);
}

/**
 * ppf_sb_dev() - the device number of a watched file system
 * @s: the record
 *
 * Return: the device number it had when it was first seen.
 */
dev_t ppf_sb_dev(const struct ppf_sb *s)
{
	return s->dev;
}

/**
 * ppf_sb_pin() - keep a file system from shutting down, briefly
 * @s: the record
 *
 * For the worker, around decoding a file handle and starting readahead.
 * Never blocks an unmount from returning: the file system's shutdown waits
 * for ppf_sb_unpin() at most.
 *
 * Return: the super block with an active reference, or NULL if the file
 * system is gone or going.
 */
struct super_block *ppf_sb_pin(struct ppf_sb *s)
{
	struct super_block *sb = NULL;

	spin_lock(&ppf_sbs_lock);
	if (!s->dead && atomic_inc_not_zero(&s->sb->s_active))
		sb = s->sb;
	spin_unlock(&ppf_sbs_lock);
	return sb;
}

/**
 * ppf_sb_unpin() - release a file system pinned with ppf_sb_pin()
 * @sb: the super block ppf_sb_pin() returned
 *
 * May run the file system's shutdown if it was unmounted meanwhile.
 */
void ppf_sb_unpin(struct super_block *sb)
{
	deactivate_super(sb);
}

/**
 * ppf_sb_identity() - what names a watched file system across reboots
 * @s: the record
 * @type: set to its type's name, NUL-terminated
 * @uuid: set to its UUID (all zero if it has none)
 */
void ppf_sb_identity(const struct ppf_sb *s, char type[PPF_SB_TYPE_LEN],
		     u8 uuid[16])
{
	memcpy(type, s->type, PPF_SB_TYPE_LEN);
	memcpy(uuid, s->uuid, 16);
}
