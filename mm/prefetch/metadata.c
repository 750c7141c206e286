// SPDX-License-Identifier: GPL-2.0
/*
 * metadata.c - bring in what a predicted open needs before its data
 *
 * DOC: Metadata
 *
 * An open of a cold file waits for more than its data: the path walk reads
 * the directory block that holds the file's entry, then its inode.  On a
 * one-arm disk those small synchronous reads wait behind whatever is being
 * read, prefetches included, so prefetching data alone made opens and
 * stat()s slower (their latency is in the report of pystart-hdd2001;
 * ablation-pystart-hdd2001's epcm-data-only turns these lookups off).
 * Decoding a predicted file's handle already reads its inode, in the
 * worker; what is left is the directory entry.
 *
 * Reading a directory's blocks directly is not open to a module (ext4
 * gives directories no address space operations, so bmap() fails on them),
 * and reading one through a struct file needs a mount, which ppf never
 * holds.  So ppf does what the open will do: at the open that makes a
 * file's entry in the file table, the hook records the name the file was
 * opened by and encodes its handle with its directory's (a connectable
 * handle, 4 words on ext4 instead of 2).  When the file is next predicted
 * and its decoded dentry is disconnected (no path to it is cached, so the
 * open would look it up), the worker decodes the directory with
 * ->fh_to_parent() and looks the name up in it with lookup_one_unlocked(),
 * as the task whose open led to the prediction (its MAY_EXEC on the
 * directory is checked), before it starts the file's data.  The file system
 * reads the blocks the open will need, at the worker's I/O class, and
 * leaves a dentry the task's path walk finds in the dcache.
 *
 * The worker waits for that read, so a file's metadata reaches the disk
 * before its data, in the order the task needs them.  Handing the lookups
 * to threads of their own, so that the worker never waits (one or four
 * threads, at the worker's idle class or at best effort), was measured and
 * was no better on a file search and slower on a start-up: the lookups
 * queue behind the data the worker has already started, and reach the
 * cache after the opens that needed them, or pass it and delay the data
 * (measured with glimpse-hdd2001 and pystart-hdd2001).
 *
 * Nothing here holds a reference past the call: a renamed or deleted file
 * makes the lookup miss (a negative dentry, as a failed open would leave).
 * Only the directory of the file itself is looked at, not its ancestors:
 * they are shared by many files and are found cached after the first few.
 */
#include <linux/cred.h>
#include <linux/dcache.h>
#include <linux/error-injection.h>
#include <linux/exportfs.h>
#include <linux/ktime.h>
#include <linux/namei.h>
#include <linux/slab.h>
#include "ppf.h"
#include "ppf_trace.h"

/* A name's allocation, on its own for fail_function (test_faults.sh). */
static noinline struct ppf_name *ppf_name_alloc(u32 len, gfp_t gfp)
{
	struct ppf_name *n;

	return kmalloc(struct_size(n, name, len + 1), gfp | __GFP_NOWARN);
}
ALLOW_ERROR_INJECTION(ppf_name_alloc, NULL);

/**
 * ppf_name_copy() - a file's name as ppf keeps it
 * @name: the name, not NUL-terminated
 * @len: its length
 * @gfp: how to allocate
 *
 * Return: the copy, NUL-terminated, to be freed with kfree(), or NULL if
 * memory is short.
 */
struct ppf_name *ppf_name_copy(const char *name, u32 len, gfp_t gfp)
{
	struct ppf_name *n = ppf_name_alloc(len, gfp);

	if (n) {
		n->len = len;
		memcpy(n->name, name, len);
		n->name[len] = '\0';
	}
	return n;
}

/**
 * ppf_name_of() - a copy of the name a file was opened by
 * @dentry: the file, with a reference
 *
 * Called by the open hook; never sleeps.
 *
 * Return: the copy, to be freed with kfree(), or NULL if memory is short.
 */
struct ppf_name *ppf_name_of(struct dentry *dentry)
{
	struct name_snapshot snap;
	struct ppf_name *n;

	take_dentry_name_snapshot(&snap, dentry);
	n = ppf_name_copy(snap.name.name, snap.name.len, GFP_NOWAIT);
	release_dentry_name_snapshot(&snap);
	return n;
}

/**
 * ppf_prefetch_dentry() - look a predicted file up in its directory
 * @sb: its file system, pinned by the caller
 * @f: the file, with a name (@f->name) and a connectable handle
 * @cred: credentials of the task whose open led to the prediction
 *
 * Reads, and waits for, the directory blocks the file's open will read, at
 * the worker's I/O class, and leaves the dentry cached.  The caller holds
 * ppf_worker_mutex.
 */
void ppf_prefetch_dentry(struct super_block *sb, struct ppf_file *f,
			 const struct cred *cred)
{
	const struct export_operations *eop = sb->s_export_op;
	u64 start = ktime_get_ns();
	const struct cred *old;
	struct dentry *dir, *child;
	bool found = false;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!eop->fh_to_parent)
		return;
	dir = eop->fh_to_parent(sb, (struct fid *)f->fh, f->fh_len, f->fh_type);
	if (IS_ERR_OR_NULL(dir))
		return;
	/* A stale handle may name another inode now: lookup needs ->lookup. */
	if (!d_can_lookup(dir)) {
		dput(dir);
		return;
	}
	old = override_creds(cred);
	child = lookup_one_unlocked(PPF_NOP_IDMAP, f->name->name, dir,
				    f->name->len);
	revert_creds(old);
	if (!IS_ERR(child)) {
		found = d_really_is_positive(child) &&
			d_inode(child)->i_ino == f->ino;
		dput(child);
	}
	dput(dir);
	ppf_stat_inc(lookups);
	ppf_stat_add(worker_lookup_ns, ktime_get_ns() - start);
	trace_ppf_lookup(ppf_sb_dev(f->sb), f->ino, f->name->name, found,
			 ktime_get_ns() - start);
}
