/* SPDX-License-Identifier: GPL-2.0 */
/*
 * compat.h - the kernel interfaces ppf uses that changed between 6.1 and 6.12
 *
 * ppf is written against 6.12 and built as an external module for
 * distribution kernels too: Debian 12's default kernel is 6.1.  Each
 * difference is wrapped here, once, under the version that brought it, so
 * that the rest of the code reads as 6.12 code.  Built W=1 against 6.1
 * (Debian 12's linux-headers-6.1.0-*-amd64) and 6.12; the versions in
 * between follow the kernel's history and are not built here.
 *
 * This is the one file that tests LINUX_VERSION_CODE, which checkpatch
 * warns against in code meant for a tree: scripts/kernel-style.sh lets it
 * here only, and a series for the tree would carry only the 6.12 side.
 */
#ifndef PPF_COMPAT_H
#define PPF_COMPAT_H

#include <linux/version.h>
#include <linux/blk_types.h>
#include <linux/exportfs.h>
#include <linux/fs.h>
#include <linux/fsnotify_backend.h>

/* 6.3 replaced the user namespace of a mount by a struct mnt_idmap. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
#define PPF_NOP_IDMAP	(&nop_mnt_idmap)
#else
#define PPF_NOP_IDMAP	(&init_user_ns)
#endif

/* 6.10 takes the source of __assign_str() from its __string() field. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define ppf_assign_str(field, src)	__assign_str(field)
#else
#define ppf_assign_str(field, src)	__assign_str(field, src)
#endif

/*
 * Before 6.6, register_sysctl() found the end of a table by an empty
 * entry; 6.6 passes the size instead (and still stops at an empty entry),
 * 6.11 takes an empty entry for a bad one.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 6, 0)
#define PPF_CTL_TABLE_END	{ }
#else
#define PPF_CTL_TABLE_END
#endif

/* 6.11 made the table a proc_handler is given const. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define PPF_CTL_TABLE_CONST	const
#else
#define PPF_CTL_TABLE_CONST
#endif

/* 6.10 gave the block device its own page cache pointer, bd_mapping. */
static inline struct address_space *ppf_bdev_mapping(struct block_device *bdev)
{
	if (!bdev)
		return NULL;
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return bdev->bd_mapping;
#else
	return bdev->bd_inode->i_mapping;
#endif
}

/**
 * ppf_encode_inode_fh() - exportfs_encode_inode_fh(), decodable, any kernel
 * @inode: the file
 * @fid: where the handle goes
 * @max_len: its room in 32-bit words; set to the length used
 * @parent: the directory, for a connectable handle, or NULL
 *
 * 6.5 added a flags argument (0: a handle that can be decoded).
 *
 * Return: the handle's type, or FILEID_INVALID or a negative errno.
 */
static inline int ppf_encode_inode_fh(struct inode *inode, struct fid *fid,
				      int *max_len, struct inode *parent)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	return exportfs_encode_inode_fh(inode, fid, max_len, parent, 0);
#else
	return exportfs_encode_inode_fh(inode, fid, max_len, parent);
#endif
}

/**
 * ppf_add_sb_mark() - attach an fsnotify mark to a whole file system
 * @mark: the mark, initialised
 * @sb: the file system
 *
 * 6.8 dropped fsnotify_add_mark()'s fsid argument; 6.10 takes the object
 * itself instead of its connector pointer.
 *
 * Return: 0 or a negative errno.
 */
static inline int ppf_add_sb_mark(struct fsnotify_mark *mark,
				  struct super_block *sb)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
	return fsnotify_add_mark(mark, sb, FSNOTIFY_OBJ_TYPE_SB, 0);
#else
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 8, 0)
	return fsnotify_add_mark(mark, &sb->s_fsnotify_marks,
				 FSNOTIFY_OBJ_TYPE_SB, 0);
#else
	return fsnotify_add_mark(mark, &sb->s_fsnotify_marks,
				 FSNOTIFY_OBJ_TYPE_SB, 0, NULL);
#endif
#endif
}

#endif /* PPF_COMPAT_H */
