/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sb.h - a watched file system's record, for the hooks that make and find it
 *
 * The engine holds these records as an opaque struct ppf_sb and uses them
 * through ppf_hooks.h only; the watcher (sb_watch.c) makes them, lists them
 * and marks them dead, under ppf_sbs_lock.
 */
#ifndef PPF_SB_H
#define PPF_SB_H

#include <linux/fsnotify_backend.h>
#include <linux/kref.h>
#include <linux/rculist.h>
#include <linux/spinlock.h>
#include "ppf_hooks.h"

/**
 * struct ppf_sb - one watched file system
 * @mark: the fsnotify superblock mark
 * @sb: the super block; valid while the mark is attached (!@dead)
 * @dev: its device number, for tracepoints and statistics
 * @kref: the mark holds one reference until fsnotify frees it, every file
 *	in the file table and every queued event one each
 * @node: in ppf_sbs (RCU)
 * @dead: the file system is shutting down or ppf is unloading
 * @rcu: to free after RCU readers of ppf_sbs are done
 * @type: its type's name, for a saved state
 * @uuid: its UUID (all zero: none), for a saved state
 */
struct ppf_sb {
	struct fsnotify_mark mark;
	struct super_block *sb;
	dev_t dev;
	struct kref kref;
	struct list_head node;
	bool dead;
	struct rcu_head rcu;
	char type[PPF_SB_TYPE_LEN];
	u8 uuid[16];
};

extern spinlock_t ppf_sbs_lock;
extern struct list_head ppf_sbs;

/**
 * ppf_sb_lookup_rcu() - the record of a watched super block
 * @sb: the super block
 *
 * Caller holds rcu_read_lock() and may use the record until it drops it.
 * Inline: the read hook looks up at every page-cache access.
 *
 * Return: the record, or NULL if @sb is not watched.
 */
static inline struct ppf_sb *ppf_sb_lookup_rcu(struct super_block *sb)
{
	struct ppf_sb *s;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "a watched file system looked up outside RCU");
	list_for_each_entry_rcu(s, &ppf_sbs, node)
		if (s->sb == sb && !READ_ONCE(s->dead))
			return s;
	return NULL;
}

#endif /* PPF_SB_H */
