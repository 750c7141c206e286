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
 * reads the blocks the open will need, at the metadata I/O class
 * (meta_io_class, DOC: I/O class), and leaves a dentry the task's path
 * walk finds in the dcache.
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
 * Waiting is what the lookup costs: one file at a time, each behind the
 * data already queued.  So the blocks a file's opens read are learnt too
 * (DOC: Metadata hook), and the blocks the worker's own decode and lookup
 * of it read, which are the same (readahead.c, meta_learned_lookup): a
 * file that has some is not looked up; when it enters the plan,
 * ppf_prefetch_meta() reads them ahead asynchronously through the block
 * device's page cache, where the file system's buffer cache finds them,
 * and the elevator sorts them with everything else queued.  Nor is a file
 * looked up whose directory's blocks were asked for a few events before,
 * by a lookup or a sibling's learnt blocks (ppf_dir_covered()), or whose
 * last lookup read nothing of its own: it found the blocks cached, or
 * waited for another reader's read of them, which the open would find as
 * well (ppf_file.lookup_idle; an open that reads them teaches them).
 * worker_lookup_ns, meta_learned and meta_readahead in
 * /proc/predictive_prefetch show the balance; glimpse-hdd2001 and
 * pystart-hdd2001 measure it.
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
#include <linux/hash.h>
#include <linux/ktime.h>
#include <linux/namei.h>
#include <linux/pagemap.h>
#include <linux/blkdev.h>
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

/*
 * Directories whose blocks were asked for lately (a lookup, or a file's
 * learnt blocks read ahead), by event number: a file predicted in one of
 * them within PPF_DIR_RECENT events is not looked up.  Only directories of
 * one block are kept (the open hook notes no other, struct ppf_event): its
 * entry is in the block its sibling's lookup or open read, and a lookup
 * would only wait for the same read.  In a larger directory each entry
 * may be in a block of its own (andrew-reads-hdd2001's opens and execs in
 * /usr/bin waited longer when siblings there were spared).  Direct-mapped
 * by inode number; a collision forgets the older directory (one more
 * lookup).
 */
#define PPF_DIR_BITS		6
#define PPF_DIR_RECENT		64

static struct ppf_dir_seen {
	const struct ppf_sb *sb;
	u64 ino;
	u64 seq;
} ppf_dirs_seen[BIT(PPF_DIR_BITS)];

static struct ppf_dir_seen *ppf_dir_slot(const struct ppf_file *f)
{
	return &ppf_dirs_seen[hash_64(f->dir_ino, PPF_DIR_BITS)];
}

/* @f's directory was asked for at event @seq. */
static void ppf_dir_cover(const struct ppf_file *f, u64 seq)
{
	struct ppf_dir_seen *d;

	if (!f->dir_ino)
		return;
	d = ppf_dir_slot(f);
	d->sb = f->sb;
	d->ino = f->dir_ino;
	d->seq = seq;
}

/**
 * ppf_dir_covered() - were a file's directory blocks asked for lately?
 * @f: the file
 * @seq: the current event number
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: true if a lookup or a learnt block of its directory was started
 * within the last PPF_DIR_RECENT events.
 */
bool ppf_dir_covered(const struct ppf_file *f, u64 seq)
{
	const struct ppf_dir_seen *d;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!f->dir_ino)
		return false;
	d = ppf_dir_slot(f);
	return d->sb == f->sb && d->ino == f->dir_ino &&
	       seq - d->seq < PPF_DIR_RECENT;
}

/**
 * ppf_file_learn_blocks() - keep metadata blocks a file's open reads
 * @f: the file's entry
 * @sector: the blocks, in 512-byte sectors of its file system's device
 * @nr: how many
 *
 * Blocks not known yet are added; when PPF_META_BLOCKS are known, the
 * oldest make room.  The caller holds ppf_worker_mutex.
 */
void ppf_file_learn_blocks(struct ppf_file *f, const sector_t *sector,
			   unsigned int nr)
{
	unsigned int i, j;

	lockdep_assert_held(&ppf_worker_mutex);
	for (i = 0; i < nr; i++) {
		for (j = 0; j < f->nr_meta; j++)
			if (f->meta[j] == sector[i])
				break;
		if (j < f->nr_meta)
			continue;
		if (f->nr_meta == PPF_META_BLOCKS) {
			memmove(&f->meta[0], &f->meta[1],
				(PPF_META_BLOCKS - 1) * sizeof(f->meta[0]));
			f->nr_meta--;
		}
		f->meta[f->nr_meta++] = sector[i];
		ppf_stat_inc(meta_learned);
	}
}

/**
 * ppf_file_learn_meta() - keep the metadata blocks an open of a file read
 * @f: the file's entry
 * @ev: its open event, with the blocks the opening task read (meta_hook.c)
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_file_learn_meta(struct ppf_file *f, const struct ppf_event *ev)
{
	ppf_file_learn_blocks(f, ev->meta, ev->nr_meta);
}

/**
 * ppf_prefetch_meta() - read ahead the metadata blocks a file's open reads
 * @f: the file, just planned
 * @seq: the current event number
 *
 * Asynchronous readahead of the blocks through the block device's page
 * cache, where the file system's buffer cache finds them, at the metadata
 * I/O class (ppf_io_class_meta()); cached blocks are skipped by the
 * readahead itself.  The caller holds ppf_worker_mutex.
 */
void ppf_prefetch_meta(struct ppf_file *f, u64 seq)
{
	struct address_space *mapping;
	struct super_block *sb;
	pgoff_t end;
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!f->nr_meta)
		return;
	sb = ppf_sb_pin(f->sb);
	if (!sb)
		return;
	mapping = ppf_bdev_mapping(sb->s_bdev);
	if (!mapping)
		goto out;
	ppf_io_class_meta(sb);
	end = DIV_ROUND_UP(i_size_read(mapping->host), PAGE_SIZE);
	for (i = 0; i < f->nr_meta; i++) {
		pgoff_t index = f->meta[i] >> (PAGE_SHIFT - SECTOR_SHIFT);
		DEFINE_READAHEAD(ractl, NULL, NULL, mapping, index);

		if (index >= end)
			continue;
		page_cache_ra_unbounded(&ractl, 1, 0);
		ppf_stat_inc(meta_readahead);
		ppf_device_own_read();
	}
	ppf_io_class_for(sb);
out:
	ppf_sb_unpin(sb);
	ppf_dir_cover(f, seq);
}

/**
 * ppf_prefetch_dentry() - look a predicted file up in its directory
 * @sb: its file system, pinned by the caller
 * @f: the file, with a name (@f->name) and a connectable handle
 * @cred: credentials of the task whose open led to the prediction
 * @seq: the current event number
 *
 * Reads, and waits for, the directory blocks the file's open will read, at
 * the metadata I/O class (ppf_io_class_meta()), and leaves the dentry
 * cached.  The caller holds ppf_worker_mutex.
 *
 * Return: true if the name led to the file.
 */
bool ppf_prefetch_dentry(struct super_block *sb, struct ppf_file *f,
			 const struct cred *cred, u64 seq)
{
	const struct export_operations *eop = sb->s_export_op;
	u64 start = ktime_get_ns();
	const struct cred *old;
	struct dentry *dir, *child;
	bool found = false;
	u64 waited;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!eop->fh_to_parent)
		return false;
	ppf_io_class_meta(sb);
	dir = eop->fh_to_parent(sb, (struct fid *)f->fh, f->fh_len, f->fh_type);
	if (IS_ERR_OR_NULL(dir))
		goto out;
	/* A stale handle may name another inode now: lookup needs ->lookup. */
	if (!d_can_lookup(dir)) {
		dput(dir);
		goto out;
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
	ppf_dir_cover(f, seq);
	waited = ktime_get_ns() - start;
	ppf_stat_inc(lookups);
	ppf_stat_add(worker_lookup_ns, waited);
	trace_ppf_lookup(ppf_sb_dev(f->sb), f->ino, f->name->name, found,
			 waited);
out:
	ppf_io_class_for(sb);
	return found;
}
