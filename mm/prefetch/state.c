// SPDX-License-Identifier: GPL-2.0
/*
 * state.c - /proc/predictive_prefetch_state: save and load what was learnt
 *
 * DOC: Saving and loading
 *
 * Reading /proc/predictive_prefetch_state gives the learnt state in the
 * format of models/state_file.h: the opens held in the history
 * (history.c) and the files they name, each by its file handle and its
 * file system's type and UUID, so that the same file is found after a
 * reboot, with the pages read in its last use.  The state is taken whole
 * when the file is opened; reads page through that copy.
 *
 * Writing a state back loads it: one write(2) of the whole file at offset 0
 * (ppfctl load), so that the error, if any, is that write's.  The input is
 * hostile until the parser has checked every field, every count against
 * the budgets (max_files, save_events) and the checksum; a malformed file is
 * refused with EINVAL, one past the budget with EFBIG, the reason logged,
 * and the current state kept.  Then each file system is found by type and
 * UUID among those mounted (iterate_supers_type()), each file handle is
 * decoded, files that no longer exist (or whose file system is not
 * mounted) are dropped, and the engine replaces the file table and the
 * models with the files found and the replay of their opens
 * (ppf_engine_restore()).  Loading needs the hooks running (enabled = 1):
 * the files are attached to watched file systems.
 *
 * Both directions need CAP_SYS_ADMIN: the state tells which files every
 * user opened, in order.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/fs.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include "ppf.h"
#include "models/state_file.h"

#define PPF_UNSAVED	U32_MAX
/*
 * No state is larger: 1,048,576 opens and 65,536 files take 25 MiB.  Also
 * keeps a write from asking kvmalloc() for more than it allows (INT_MAX).
 */
#define PPF_STATE_MAX_BYTES	(256u << 20)

/* The file systems of a state being saved. */
struct ppf_save_fs {
	struct ppf_sb *sb[PPF_STATE_MAX_FS];
	u32 n;
};

/* What the last load did, for /proc/predictive_prefetch. */
static u32 ppf_loaded_files, ppf_loaded_dropped, ppf_loaded_events;

/* The 4 KiB units of the saved format, and back. */
#define PPF_UNIT_SHIFT	(PAGE_SHIFT - 12)

/* @f's file system's index in @fs, added if new; PPF_UNSAVED if full. */
static u32 ppf_save_fs_index(struct ppf_save_fs *fs, struct ppf_file *f)
{
	u32 i;

	for (i = 0; i < fs->n; i++)
		if (fs->sb[i] == f->sb)
			return i;
	if (fs->n == PPF_STATE_MAX_FS)
		return PPF_UNSAVED;
	fs->sb[fs->n] = f->sb;
	return fs->n++;
}

/* A saved file's page bitmap, written from here; under ppf_worker_mutex. */
static u8 ppf_save_pages[PPF_STATE_PAGES_MAX];

/* The bytes @f's page map saves as: 0 if none, or none this format holds. */
static unsigned int ppf_save_pages_len(struct ppf_file *f)
{
	unsigned int len = ppf_file_pages_saved_len(f);

	return len <= PPF_STATE_PAGES_MAX ? len : 0;
}

static void ppf_save_file(struct ppf_state_writer *w, struct ppf_save_fs *fs,
			  struct ppf_file *f)
{
	struct ppf_state_file rec = {
		.fh_type = f->fh_type,
		.fh_len = f->fh_len,
		.first = 1,
		.last = 0,
	};
	pgoff_t first, last;

	rec.fs = ppf_save_fs_index(fs, f);
	memcpy(rec.fh, f->fh, f->fh_len * sizeof(u32));
	if (f->name) {
		rec.name = f->name->name;
		rec.name_len = f->name->len;
	}
	if (ppf_file_expected_use(f, &first, &last, &rec.map)) {
		rec.first = (u64)first << PPF_UNIT_SHIFT;
		rec.last = (((u64)last + 1) << PPF_UNIT_SHIFT) - 1;
	}
	rec.pages_len = ppf_save_pages_len(f);
	if (rec.pages_len) {
		rec.pages_shift = ppf_file_pages_save(f, ppf_save_pages) +
				  PPF_UNIT_SHIFT;
		rec.pages = ppf_save_pages;
	}
	ppf_state_put_file(w, &rec);
}

static void ppf_save_fs_rec(struct ppf_state_writer *w, struct ppf_sb *s)
{
	struct ppf_state_fs rec = { };
	static const u8 none[16];
	dev_t dev = ppf_sb_dev(s);

	ppf_sb_identity(s, rec.type, rec.uuid);
	rec.major = MAJOR(dev);
	rec.minor = MINOR(dev);
	rec.flags = memcmp(rec.uuid, none, 16) ? PPF_STATE_FS_UUID : 0;
	ppf_state_put_fs(w, &rec);
}

/* The held opens' files, indexed in order of first use; the state's size. */
static u64 ppf_save_index(struct ppf_save_fs *fs, u32 *nfiles, u32 *nevents)
{
	u32 i, n = ppf_history_count();
	u64 file_bytes = 0;
	struct ppf_file *f;

	lockdep_assert_held(&ppf_worker_mutex);
	ppf_files_set_save_index(PPF_UNSAVED);
	*nfiles = *nevents = 0;
	for (i = 0; i < n; i++) {
		f = ppf_files_find_id(ppf_history_get(i)->file);
		if (!f)
			continue;
		if (f->save_index == PPF_UNSAVED) {
			if (!f->fh_len || ppf_save_fs_index(fs, f) == PPF_UNSAVED)
				continue;
			f->save_index = (*nfiles)++;
			file_bytes += ppf_state_file_bytes(f->fh_len,
							   f->name ? f->name->len : 0,
							   ppf_save_pages_len(f));
		}
		(*nevents)++;
	}
	return ppf_state_size(fs->n, file_bytes, *nevents);
}

/* A copy of the state as it is now, in the saved format. */
static void *ppf_state_save(size_t *len)
{
	struct ppf_state_writer w = { };
	struct ppf_save_fs fs = { };
	u32 i, n, nfiles, nevents, put = 0;
	struct ppf_file *f;

	mutex_lock(&ppf_worker_mutex);
	w.size = ppf_save_index(&fs, &nfiles, &nevents);
	w.buf = kvmalloc(w.size, GFP_KERNEL);
	if (!w.buf)
		goto out;
	ppf_state_begin(&w, 0, fs.n, nfiles, nevents);
	for (i = 0; i < fs.n; i++)
		ppf_save_fs_rec(&w, fs.sb[i]);
	n = ppf_history_count();
	for (i = 0; i < n && put < nfiles; i++) {
		f = ppf_files_find_id(ppf_history_get(i)->file);
		if (f && f->save_index == put) {
			ppf_save_file(&w, &fs, f);
			put++;
		}
	}
	for (i = 0; i < n; i++) {
		const struct ppf_history_rec *h = ppf_history_get(i);
		struct ppf_state_event ev = {
			.ctx = h->ctx, .parent = h->parent, .domain = h->domain,
		};

		f = ppf_files_find_id(h->file);
		if (!f || f->save_index == PPF_UNSAVED)
			continue;
		ev.file = f->save_index;
		ppf_state_put_event(&w, &ev);
	}
	WARN_ON_ONCE(w.pos != w.size);
	ppf_state_finish(&w);
	*len = w.size;
out:
	mutex_unlock(&ppf_worker_mutex);
	return w.buf;
}

/* Find a saved file again: its file system's record is @s (or NULL). */
static bool ppf_load_file(struct ppf_restore_file *r,
			  const struct ppf_state_file *rec, struct ppf_sb *s)
{
	struct super_block *sb;
	struct dentry *dentry;
	struct inode *inode;
	bool found = false;

	if (!s)
		return false;
	sb = ppf_sb_pin(s);
	if (!sb)
		return false;
	memcpy(r->ev.fh, rec->fh, rec->fh_len * sizeof(u32));
	r->ev.fh_len = rec->fh_len;
	r->ev.fh_type = rec->fh_type;
	dentry = ppf_fh_decode(sb, r->ev.fh, r->ev.fh_len, r->ev.fh_type);
	if (!IS_ERR_OR_NULL(dentry)) {
		inode = d_inode(dentry);
		if (inode && S_ISREG(inode->i_mode)) {
			r->ev.kind = PPF_EV_OPEN;
			r->ev.sb = s;
			r->ev.ino = inode->i_ino;
			r->ev.gen = inode->i_generation;
			found = true;
		}
		dput(dentry);
	}
	ppf_sb_unpin(sb);
	if (!found)
		return false;
	if (rec->name_len)
		r->ev.name = ppf_name_copy(rec->name, rec->name_len, GFP_KERNEL);
	if (rec->first <= rec->last) {
		r->first = rec->first >> PPF_UNIT_SHIFT;
		r->last = rec->last >> PPF_UNIT_SHIFT;
		r->map = rec->map;
	} else {
		r->first = 1;
		r->last = 0;
	}
	/* A bit for less than a page cannot be had: no map then. */
	if (rec->pages_len && rec->pages_shift >= PPF_UNIT_SHIFT) {
		r->pages = rec->pages;
		r->pages_len = rec->pages_len;
		r->pages_shift = rec->pages_shift - PPF_UNIT_SHIFT;
	}
	return true;
}

/* Find the state's file systems, then its files; 0 or a negative errno. */
static int ppf_load_resolve(const struct ppf_state *st,
			    struct ppf_sb **sbs, struct ppf_restore_file *files)
{
	struct ppf_state_file rec;
	struct ppf_state_fs fs;
	const u8 *p = st->files;
	u32 i;

	for (i = 0; i < st->nfs; i++) {
		ppf_state_get_fs(st, i, &fs);
		sbs[i] = ppf_sb_find(fs.type,
				     fs.flags & PPF_STATE_FS_UUID ? fs.uuid : NULL,
				     MKDEV(fs.major, fs.minor));
	}
	for (i = 0; i < st->nfiles; i++) {
		p = ppf_state_get_file(p, &rec);
		files[i].found = ppf_load_file(&files[i], &rec, sbs[rec.fs]);
		if (fatal_signal_pending(current))
			return -EINTR;
		cond_resched();
	}
	return 0;
}

/*
 * Load a state the caller has checked; 0 or a negative errno.  The caller
 * holds ppf_config_mutex.
 */
static int ppf_load(const struct ppf_state *st)
{
	struct ppf_sb *sbs[PPF_STATE_MAX_FS] = { };
	struct ppf_restore_file *files;
	struct ppf_history_rec *events;
	struct ppf_state_event ev;
	u32 i, found = 0;
	int err = -ENOMEM;

	lockdep_assert_held(&ppf_config_mutex);
	files = kvcalloc(max(st->nfiles, 1u), sizeof(*files), GFP_KERNEL);
	events = kvcalloc(max(st->nevents, 1u), sizeof(*events), GFP_KERNEL);
	if (!files || !events)
		goto out;
	for (i = 0; i < st->nevents; i++) {
		ppf_state_get_event(st, i, &ev);
		events[i] = (struct ppf_history_rec){
			.file = ev.file, .ctx = ev.ctx, .parent = ev.parent,
			.domain = ev.domain,
		};
	}
	err = ppf_load_resolve(st, sbs, files);
	if (!err)
		err = ppf_engine_restore(files, st->nfiles, events, st->nevents);
	if (!err) {
		for (i = 0; i < st->nfiles; i++)
			found += files[i].found;
		WRITE_ONCE(ppf_loaded_files, found);
		WRITE_ONCE(ppf_loaded_dropped, st->nfiles - found);
		WRITE_ONCE(ppf_loaded_events, ppf_history_count());
		pr_info("state loaded: %u files (%u not found, dropped), %u opens replayed\n",
			found, st->nfiles - found, ppf_loaded_events);
	}
out:
	for (i = 0; files && i < st->nfiles; i++)
		kfree(files[i].ev.name);
	for (i = 0; i < st->nfs; i++)
		if (sbs[i])
			ppf_sb_put(sbs[i]);
	kvfree(events);
	kvfree(files);
	return err;
}

/* The largest state a load accepts under the budgets now. */
static u64 ppf_load_max_bytes(const struct ppf_state_limits *lim)
{
	return ppf_state_size(PPF_STATE_MAX_FS,
			      (u64)lim->max_files *
			      ppf_state_file_bytes(PPF_STATE_FH_WORDS,
						   PPF_STATE_NAME_MAX,
						   PPF_STATE_PAGES_MAX),
			      lim->max_events);
}

struct ppf_state_copy {
	void *buf;
	size_t len;
};

static int ppf_state_open(struct inode *inode, struct file *file)
{
	struct ppf_state_copy *c;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	if (file->f_mode & FMODE_READ) {
		c->buf = ppf_state_save(&c->len);
		if (!c->buf) {
			kfree(c);
			return -ENOMEM;
		}
	}
	file->private_data = c;
	return 0;
}

static ssize_t ppf_state_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct ppf_state_copy *c = file->private_data;

	return simple_read_from_buffer(buf, count, ppos, c->buf, c->len);
}

static ssize_t ppf_state_write(struct file *file, const char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct ppf_state_limits lim = {
		.max_files = READ_ONCE(ppf_config.max_files),
		.max_events = ppf_history_size(),
	};
	struct ppf_state st;
	const char *why;
	void *buf;
	int err;

	if (*ppos)
		return -EINVAL;	/* one write of the whole state */
	if (count > PPF_STATE_MAX_BYTES || count > ppf_load_max_bytes(&lim)) {
		pr_warn("state not loaded: %zu bytes, more than the budgets allow\n",
			count);
		return -EFBIG;
	}
	buf = vmemdup_user(ubuf, count);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/*
	 * Under the configuration's lock, as a sysctl write: the models are
	 * built to the configuration, and the hooks cannot stop meanwhile.
	 */
	mutex_lock(&ppf_config_mutex);
	why = ppf_state_parse(&st, buf, count, &lim, &err);
	if (why) {
		pr_warn("state not loaded: %s\n", why);
	} else if (!ppf_config.enabled) {
		pr_warn("state not loaded: prefetching is disabled\n");
		err = -EAGAIN;
	} else {
		err = ppf_load(&st);
	}
	mutex_unlock(&ppf_config_mutex);
	kvfree(buf);
	if (err)
		return err;
	*ppos = count;
	return count;
}

static int ppf_state_release(struct inode *inode, struct file *file)
{
	struct ppf_state_copy *c = file->private_data;

	kvfree(c->buf);
	kfree(c);
	return 0;
}

static const struct proc_ops ppf_state_ops = {
	.proc_open = ppf_state_open,
	.proc_read = ppf_state_read,
	.proc_write = ppf_state_write,
	.proc_lseek = default_llseek,
	.proc_release = ppf_state_release,
};

/**
 * ppf_state_show() - the state's lines of /proc/predictive_prefetch
 * @m: the file
 */
void ppf_state_show(struct seq_file *m)
{
	seq_printf(m, "history_events %u\n", ppf_history_count());
	seq_printf(m, "state_loaded_files %u\n", READ_ONCE(ppf_loaded_files));
	seq_printf(m, "state_dropped_files %u\n", READ_ONCE(ppf_loaded_dropped));
	seq_printf(m, "state_loaded_events %u\n", READ_ONCE(ppf_loaded_events));
}

int ppf_state_init(void)
{
	int err = ppf_history_resize(ppf_config.save_events);

	if (err)
		return err;
	if (!proc_create("predictive_prefetch_state", 0600, NULL,
			 &ppf_state_ops)) {
		ppf_history_exit();
		return -ENOMEM;
	}
	return 0;
}

void ppf_state_exit(void)
{
	remove_proc_entry("predictive_prefetch_state", NULL);
	ppf_history_exit();
}
