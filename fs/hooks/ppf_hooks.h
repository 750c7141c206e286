/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf_hooks.h - the seam between the event hooks and the prefetch engine
 *
 * fs/hooks/ knows file systems, fsnotify and tracepoints; mm/prefetch/
 * knows the model, the file table and readahead.  They meet here, and only
 * here: the hooks deliver events down through the three entry points
 * ppf_event_open(), ppf_event_read() and ppf_event_create(); the engine
 * uses the hooks' handles (ppf_sb_*), their removal count and their policy
 * setter.
 */
#ifndef PPF_HOOKS_H
#define PPF_HOOKS_H

#include <linux/fs.h>
#include <linux/types.h>

struct ppf_sb;

/* Longest list of watched file system types, with its NUL. */
#define PPF_SB_TYPES_MAX	128
/* Metadata blocks learnt per file (meta_hook.c). */
#define PPF_META_BLOCKS		4
/* Longest file system type name kept, with its NUL. */
#define PPF_SB_TYPE_LEN		16

/* Provided by fs/hooks/. */
int ppf_hooks_init(void);
int ppf_hooks_start(void);
void ppf_hooks_stop(void);
void ppf_hooks_exit(void);
void ppf_sb_get(struct ppf_sb *s);
void ppf_sb_put(struct ppf_sb *s);
struct super_block *ppf_sb_pin(struct ppf_sb *s);
void ppf_sb_unpin(struct super_block *sb);
dev_t ppf_sb_dev(const struct ppf_sb *s);
void ppf_sb_identity(const struct ppf_sb *s, char type[PPF_SB_TYPE_LEN],
		     u8 uuid[16]);
struct ppf_sb *ppf_sb_find(const char *type, const u8 *uuid, dev_t dev);
unsigned int ppf_sb_watched(void);
bool ppf_hooks_read_fallback(void);
int ppf_sb_set_types(const char *types);
unsigned long ppf_page_cache_removals(dev_t dev, u64 ino);
unsigned long ppf_page_cache_removals_of(struct address_space *mapping,
					 unsigned long *quiet);
bool ppf_page_cache_mark(void);
unsigned long ppf_page_cache_quiet(void);
unsigned int ppf_meta_take(struct block_device *bdev, sector_t *sector);
void ppf_meta_collect_begin(void);
unsigned int ppf_meta_collect_end(struct block_device *bdev, sector_t *sector);

/**
 * enum ppf_read_kind - how a task came to use pages of a file
 * @PPF_READ_ASKED: it asked for them (read(2) and the like), or, on a kernel
 *	without the read tracepoints, brought them into the page cache
 * @PPF_READ_FAULT: it faulted one through a mapping
 * @PPF_READ_AROUND: fault-around mapped them, cached, around a fault: the
 *	whole window is reported, whether the task uses the pages or not
 */
enum ppf_read_kind {
	PPF_READ_ASKED,
	PPF_READ_FAULT,
	PPF_READ_AROUND,
};

/* Provided by mm/prefetch/, called by the hooks in the task's context. */
void ppf_event_open(struct ppf_sb *s, struct dentry *dentry, bool exec);
void ppf_event_read(struct ppf_sb *s, struct inode *inode, pgoff_t first,
		    pgoff_t last, enum ppf_read_kind kind);
void ppf_event_create(struct ppf_sb *s, struct inode *inode);

#endif /* PPF_HOOKS_H */
