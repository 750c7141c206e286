// SPDX-License-Identifier: GPL-2.0
/*
 * file_table.c - the files ppf remembers, by handle, never by reference
 *
 * DOC: File table
 *
 * Each file seen opening gets an entry with a 32-bit id (what the model
 * knows it by), its file handle (how the worker finds it again), and what
 * its uses read (DOC: Uses of a file).  No entry holds a reference on a
 * dentry, an inode or a mount, so no file system is kept busy and a file
 * deleted meanwhile simply fails to decode and is forgotten.
 *
 * Entries are added, moved and removed only under ppf_worker_mutex (by the
 * worker, or by sysctl when trimming or resetting).  The read hook looks
 * entries up under RCU and updates their ranges under the entry's own
 * spinlock, after checking that the entry has not been removed; removed
 * entries are freed after an RCU grace period.  When the table is full the
 * least recently opened file is forgotten.
 */
#include <linux/error-injection.h>
#include <linux/exportfs.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include "ppf.h"
#include "ppf_trace.h"

#define PPF_FILE_HASH_BITS	14

static struct hlist_head ppf_key_hash[1 << PPF_FILE_HASH_BITS];
static struct hlist_head ppf_id_hash[1 << PPF_FILE_HASH_BITS];
static LIST_HEAD(ppf_lru);
static unsigned int ppf_nfiles;
static u32 ppf_next_id;

static inline struct hlist_head *ppf_key_bucket(const struct ppf_sb *s, u64 ino)
{
	return &ppf_key_hash[hash_64(ino ^ (unsigned long)s, PPF_FILE_HASH_BITS)];
}

static inline struct hlist_head *ppf_id_bucket(u32 id)
{
	return &ppf_id_hash[hash_32(id, PPF_FILE_HASH_BITS)];
}

int ppf_files_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ppf_key_hash); i++) {
		INIT_HLIST_HEAD(&ppf_key_hash[i]);
		INIT_HLIST_HEAD(&ppf_id_hash[i]);
	}
	return 0;
}

void ppf_files_exit(void)
{
	/* ppf_engine_exit() forgot every file, or none was ever added. */
	WARN_ON_ONCE(READ_ONCE(ppf_nfiles));
}

/**
 * ppf_files_count() - files in the table
 *
 * Return: the count.
 */
unsigned int ppf_files_count(void)
{
	return READ_ONCE(ppf_nfiles);
}

/**
 * ppf_files_forget() - remove a file from the table and free it
 * @f: the entry
 *
 * The last step of forgetting a file: the plan and readahead's records
 * let go of it first (ppf_forget_file()).  The caller holds
 * ppf_worker_mutex.
 */
void ppf_files_forget(struct ppf_file *f)
{
	struct ppf_page_map *map;

	lockdep_assert_held(&ppf_worker_mutex);
	spin_lock(&f->lock);
	f->dead = true;
	map = f->page_map;	/* no hook touches it once @dead is set */
	f->page_map = NULL;
	spin_unlock(&f->lock);
	ppf_page_map_free(map);
	hlist_del_rcu(&f->key_node);
	hlist_del(&f->id_node);
	list_del(&f->lru);
	WRITE_ONCE(ppf_nfiles, ppf_nfiles - 1);
	ppf_sb_put(f->sb);
	kfree(f->name);	/* the worker's alone: no reader under RCU */
	kfree_rcu(f, rcu);
}

/**
 * ppf_files_oldest() - the least recently opened file
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: its entry, or NULL if the table is empty.
 */
struct ppf_file *ppf_files_oldest(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return list_first_entry_or_null(&ppf_lru, struct ppf_file, lru);
}

/*
 * The walk of ppf_files_lookup(), inline in the read hook's path
 * (ppf_files_note_read()), which runs at every page-cache access.
 */
static __always_inline struct ppf_file *
__ppf_files_lookup(const struct ppf_sb *s, u64 ino)
{
	struct ppf_file *f;

	hlist_for_each_entry_rcu(f, ppf_key_bucket(s, ino), key_node,
				 lockdep_is_held(&ppf_worker_mutex))
		if (f->sb == s && f->ino == ino)
			return f;
	return NULL;
}

/**
 * ppf_files_lookup() - the entry of a file, by file system and inode number
 * @s: the file system
 * @ino: the inode number
 *
 * The caller holds rcu_read_lock() (the hooks) or ppf_worker_mutex (the
 * worker); the list walk checks which.
 *
 * Return: the entry, or NULL.
 */
struct ppf_file *ppf_files_lookup(const struct ppf_sb *s, u64 ino)
{
	RCU_LOCKDEP_WARN(!rcu_read_lock_held() &&
			 !lockdep_is_held(&ppf_worker_mutex),
			 "file table looked up outside RCU and the worker mutex");
	return __ppf_files_lookup(s, ino);
}

/*
 * An entry's allocation, a function of its own so that fail_function can
 * fail it (the fault-injection test, test_faults.sh).
 */
static noinline struct ppf_file *ppf_file_alloc(void)
{
	return kzalloc(sizeof(struct ppf_file), GFP_KERNEL | __GFP_NOWARN);
}
ALLOW_ERROR_INJECTION(ppf_file_alloc, NULL);

/**
 * ppf_files_touch() - mark a file most recently opened
 * @f: its entry
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_files_touch(struct ppf_file *f)
{
	lockdep_assert_held(&ppf_worker_mutex);
	list_move_tail(&f->lru, &ppf_lru);
}

/**
 * ppf_files_add() - a new entry for the file an open or exec event names
 * @ev: the event; no entry of its file system and inode number is in the
 *	table
 *
 * The entry is the most recently opened, and takes over the event's name
 * (see DOC: Metadata).  The table may hold more than max_files until the
 * caller trims it (ppf_file_remember()).  The caller holds
 * ppf_worker_mutex.
 *
 * Return: the entry, or NULL if out of memory.
 */
struct ppf_file *ppf_files_add(struct ppf_event *ev)
{
	struct ppf_file *f;

	lockdep_assert_held(&ppf_worker_mutex);
	f = ppf_file_alloc();
	if (!f)
		return NULL;
	spin_lock_init(&f->lock);
	ppf_sb_get(ev->sb);
	f->sb = ev->sb;
	f->ino = ev->ino;
	f->gen = ev->gen;
	f->id = ppf_next_id++;
	f->fh_len = ev->fh_len;
	f->fh_type = ev->fh_type;
	memcpy(f->fh, ev->fh, ev->fh_len * sizeof(u32));
	f->name = ev->name;
	f->dir_ino = f->name ? ev->dir_ino : 0;
	ev->name = NULL;
	ppf_uses_init(&f->uses);
	hlist_add_head_rcu(&f->key_node, ppf_key_bucket(f->sb, f->ino));
	hlist_add_head(&f->id_node, ppf_id_bucket(f->id));
	list_add_tail(&f->lru, &ppf_lru);
	WRITE_ONCE(ppf_nfiles, ppf_nfiles + 1);
	return f;
}

/**
 * ppf_fh_decode() - the dentry a file handle names
 * @sb: its file system, pinned by the caller (ppf_sb_pin()), which can
 *	decode handles (ppf_sb_qualifies())
 * @fh: the handle
 * @fh_len: its length in 32-bit words
 * @fh_type: its type
 *
 * May read the inode from disk.
 *
 * Return: the dentry with a reference, NULL, or an ERR_PTR() if the file
 * is gone or the handle is not the file system's.
 */
struct dentry *ppf_fh_decode(struct super_block *sb, u32 *fh, u8 fh_len,
			     u8 fh_type)
{
	return sb->s_export_op->fh_to_dentry(sb, (struct fid *)fh, fh_len,
					     fh_type);
}

/**
 * ppf_files_find_id() - the entry a model id stands for
 * @id: the id
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: the entry, or NULL if the file was forgotten.
 */
struct ppf_file *ppf_files_find_id(u32 id)
{
	struct ppf_file *f;

	lockdep_assert_held(&ppf_worker_mutex);
	hlist_for_each_entry(f, ppf_id_bucket(id), id_node)
		if (f->id == id)
			return f;
	return NULL;
}

/*
 * Keep the first pages asked for while @f has no page map, to seed one
 * (ppf_page_map_seed()); past PPF_EARLY_PAGES, note that there were more.
 * The caller holds the file's lock.
 */
static void ppf_file_note_early(struct ppf_file *f, pgoff_t first,
				pgoff_t last)
{
	pgoff_t p;

	lockdep_assert_held(&f->lock);
	for (p = first; p <= last && f->nr_early_pages <= PPF_EARLY_PAGES; p++) {
		if (f->nr_early_pages == PPF_EARLY_PAGES || p > U32_MAX) {
			f->nr_early_pages = PPF_EARLY_PAGES + 1;
			return;
		}
		f->early_pages[f->nr_early_pages++] = p;
	}
}

/* ppf_file_apply_read(), inline in the read hook's path. */
static __always_inline void
__ppf_file_apply_read(struct ppf_file *f, pgoff_t first, pgoff_t last,
		      enum ppf_read_kind kind)
{
	spin_lock(&f->lock);
	if (!f->dead) {
		WRITE_ONCE(f->use_gen, f->use_gen + 1);
		ppf_uses_read(&f->uses, first, last,
			      kind != PPF_READ_AROUND);
		if (kind == PPF_READ_FAULT)
			WRITE_ONCE(f->mapped, true);
		if (f->page_map)
			ppf_page_map_read(f->page_map, first, last, kind);
		else if (kind != PPF_READ_AROUND)	/* not pages asked for */
			ppf_file_note_early(f, first, last);
	}
	spin_unlock(&f->lock);
}

/**
 * ppf_file_apply_read() - note that pages of a file were read
 * @f: the entry
 * @first: first page
 * @last: last page
 * @kind: how the task used them
 *
 * The use's span and segments take every kind; its page map, if it has
 * one, the pages asked for and faulted, and those mapped around a fault
 * only where they take a stream of touches further (DOC: Page maps).
 */
void ppf_file_apply_read(struct ppf_file *f, pgoff_t first, pgoff_t last,
			 enum ppf_read_kind kind)
{
	__ppf_file_apply_read(f, first, last, kind);
}

/*
 * A page map is for a file larger than this.  Any smaller one is read as
 * one run whatever its map says (ppf_page_map_run() merges gaps of up to
 * PPF_PAGE_MAP_GAP pages), so a map would only cost memory.  The bound
 * was two segments (512 KiB), which left most of a start-up's libraries
 * to their segments: pystart-hdd2001 faults 3 pages of libwebp (453 KB)
 * and its prefetch read 111, as much again for a dozen others.
 */
#define PPF_PAGE_MAP_MIN_PAGES	PPF_PAGE_MAP_GAP

/*
 * What @f's page map learns of a fault from now on: page_map_windows, by
 * default fault-around's windows where @f's device is rotational, and
 * elsewhere the windows in which a fault found its page not cached (DOC:
 * Page maps).  Asked when a map is made or loaded, and at each open after.
 */
static enum ppf_map_learn ppf_file_map_learn(struct ppf_file *f)
{
	switch (READ_ONCE(ppf_config.page_map_windows)) {
	case PPF_WINDOWS_ALWAYS:
		return PPF_MAP_WINDOWS;
	case PPF_WINDOWS_NEVER:
		return PPF_MAP_FAULTS;
	case PPF_WINDOWS_MISSES:
		return PPF_MAP_MISSES;
	default:
		return ppf_device_rotational(f->sb) ? PPF_MAP_WINDOWS :
						      PPF_MAP_MISSES;
	}
}

/*
 * @f has a page map: it learns windows, or not, as page_map_windows and
 * the device say now (a change of either reaches it here, at an open).
 */
static void ppf_file_map_rechoose(struct ppf_file *f, pgoff_t pages)
{
	enum ppf_map_learn learn = ppf_file_map_learn(f);
	bool changed = false;

	spin_lock(&f->lock);
	if (!f->dead)
		changed = ppf_page_map_set_learn(f->page_map, learn);
	spin_unlock(&f->lock);
	if (changed)
		trace_ppf_page_map(ppf_sb_dev(f->sb), f->ino, f->id, pages,
				   learn);
}

/**
 * ppf_file_map_pages() - give a mapped file a page map, if it has none
 * @f: the entry, just opened
 * @pages: its size in pages at that open
 *
 * For a file a use of which went through a mapping and that is larger than
 * PPF_PAGE_MAP_MIN_PAGES (DOC: Page maps).  A file that has one has its
 * choice of windows made again.  The caller holds ppf_worker_mutex.
 */
void ppf_file_map_pages(struct ppf_file *f, pgoff_t pages)
{
	enum ppf_map_learn learn = PPF_MAP_FAULTS;
	struct ppf_page_map *m = NULL;

	lockdep_assert_held(&ppf_worker_mutex);
	if (f->page_map) {
		ppf_file_map_rechoose(f, pages);
		return;
	}
	if (READ_ONCE(f->mapped) && pages > PPF_PAGE_MAP_MIN_PAGES) {
		learn = ppf_file_map_learn(f);
		m = ppf_page_map_alloc(pages, learn);
	}
	spin_lock(&f->lock);
	if (m && !f->dead) {
		f->page_map = m;
		WRITE_ONCE(f->use_gen, f->use_gen + 1);
		ppf_page_map_seed(m, f->early_pages,
				  min_t(unsigned int, f->nr_early_pages,
					PPF_EARLY_PAGES),
				  f->nr_early_pages <= PPF_EARLY_PAGES);
		m = NULL;
		trace_ppf_page_map(ppf_sb_dev(f->sb), f->ino, f->id, pages,
				   learn);
	}
	f->nr_early_pages = 0;	/* the next use's pages, from here on */
	spin_unlock(&f->lock);
	ppf_page_map_free(m);
}

/**
 * ppf_file_pages_saved_len() - the bytes a file's page map saves as
 * @f: the entry
 *
 * The caller holds ppf_worker_mutex (no one makes or frees a map meanwhile).
 *
 * Return: bytes, 0 if it has no page map.
 */
unsigned int ppf_file_pages_saved_len(struct ppf_file *f)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return f->page_map ? ppf_page_map_save_bytes(f->page_map) : 0;
}

/**
 * ppf_file_pages_save() - a file's page map as a saved bitmap
 * @f: the entry, with a page map (ppf_file_pages_saved_len() not 0)
 * @out: ppf_file_pages_saved_len() bytes
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: the power of two of pages each bit stands for.
 */
unsigned int ppf_file_pages_save(struct ppf_file *f, u8 *out)
{
	unsigned int shift;

	lockdep_assert_held(&ppf_worker_mutex);
	spin_lock(&f->lock);
	shift = ppf_page_map_save(f->page_map, out);
	spin_unlock(&f->lock);
	return shift;
}

/**
 * ppf_file_pages_load() - start a restored file from its saved page bitmap
 * @f: the entry, just added, with no page map
 * @bits: the bitmap (DOC: Saved state)
 * @len: its bytes
 * @shift: the power of two of pages each bit stands for
 *
 * A file restored with a page map was mapped.  The caller holds
 * ppf_worker_mutex.
 */
void ppf_file_pages_load(struct ppf_file *f, const u8 *bits, unsigned int len,
			 unsigned int shift)
{
	struct ppf_page_map *m;

	lockdep_assert_held(&ppf_worker_mutex);
	if (f->page_map)
		return;
	m = ppf_page_map_load(bits, len, shift, ppf_file_map_learn(f));
	if (!m)
		return;
	spin_lock(&f->lock);
	f->page_map = m;
	WRITE_ONCE(f->use_gen, f->use_gen + 1);
	WRITE_ONCE(f->mapped, true);
	spin_unlock(&f->lock);
}

/**
 * ppf_file_page_span() - the pages a file's page map expects its next use at
 * @f: the entry
 * @first: set to the first of them
 * @last: set to the last of them
 *
 * The caller holds ppf_worker_mutex (no one frees the map meanwhile).
 *
 * Return: false if it has no page map, or one that has not seen a whole use.
 */
bool ppf_file_page_span(struct ppf_file *f, pgoff_t *first, pgoff_t *last)
{
	bool known;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!f->page_map)
		return false;
	spin_lock(&f->lock);
	known = ppf_page_map_span(f->page_map, first, last);
	spin_unlock(&f->lock);
	return known;
}

/**
 * ppf_file_page_run() - the next run of pages a file's page map expects
 * @f: the entry, with a page map (ppf_file_page_span())
 * @from: the first page to look at
 * @max: the most pages the run may have
 * @first: set to its first page
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: its pages (0: none left).
 */
unsigned long ppf_file_page_run(struct ppf_file *f, pgoff_t from,
				unsigned long max, pgoff_t *first)
{
	unsigned long nr;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!f->page_map)
		return 0;
	spin_lock(&f->lock);
	nr = ppf_page_map_run(f->page_map, from, max, first);
	spin_unlock(&f->lock);
	return nr;
}

/**
 * ppf_files_note_read() - note a read, from the read hook
 * @s: the watched file system
 * @inode: the file
 * @first: first page read
 * @last: last page read
 * @kind: how the task used them
 *
 * Called under rcu_read_lock() in the reading task's context, at every
 * page-cache access of a watched file system: the lookup and the update
 * are inline.
 *
 * Return: false if the file is not in the table (yet).
 */
bool ppf_files_note_read(struct ppf_sb *s, struct inode *inode,
			 pgoff_t first, pgoff_t last, enum ppf_read_kind kind)
{
	struct ppf_file *f;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(),
			 "a read noted outside RCU");
	f = __ppf_files_lookup(s, inode->i_ino);
	if (unlikely(!f || f->gen != inode->i_generation))
		return false;
	__ppf_file_apply_read(f, first, last, kind);
	return true;
}

/**
 * ppf_files_note_open() - start a new use of a file, from the open hook
 * @s: the watched file system
 * @inode: the file being opened
 *
 * Called under rcu_read_lock() in the opening task's context, before the
 * task can read: the pages read since the previous open become the
 * previous use.  Doing this here rather than when the worker gets to the
 * open keeps the reads of this use out of the last one's range.  A file not
 * in the table yet starts with no range; its reads are queued behind its
 * open.
 *
 * Return: whether the file is in the table.
 */
bool ppf_files_note_open(struct ppf_sb *s, struct inode *inode)
{
	struct ppf_file *f = ppf_files_lookup(s, inode->i_ino);

	if (!f || f->gen != inode->i_generation)
		return false;
	ppf_file_opened(f);
	return true;
}

/**
 * ppf_file_opened() - start a new use of a file
 * @f: the entry
 *
 * The pages read since the previous open become the previous use.
 */
void ppf_file_opened(struct ppf_file *f)
{
	spin_lock(&f->lock);
	if (!f->dead) {
		WRITE_ONCE(f->use_gen, f->use_gen + 1);
		ppf_uses_open(&f->uses);
		if (f->page_map)
			ppf_page_map_open(f->page_map);
	}
	spin_unlock(&f->lock);
}

/**
 * ppf_file_expected_use() - the pages a file's next use is expected to read
 * @f: the entry
 * @first: set to the first page
 * @last: set to the last page
 * @map: set to the segments to read (ppf_seg_mask())
 *
 * See DOC: Uses of a file.
 *
 * Return: false if no read of the file has been seen.
 */
bool ppf_file_expected_use(struct ppf_file *f, pgoff_t *first,
			   pgoff_t *last, u64 *map)
{
	struct ppf_use use;
	bool known;

	spin_lock(&f->lock);
	known = ppf_uses_expected(&f->uses, &use);
	spin_unlock(&f->lock);
	if (known) {
		*first = use.first;
		*last = use.last;
		*map = use.map;
	}
	return known;
}

/**
 * ppf_file_sparse() - how a file read sparsely is expected to be read
 * @f: the entry
 * @out: set to it (ppf_uses_sparse())
 *
 * Return: false if its latest finished use asked for every page it
 * spanned, or none has finished (DOC: Sparse files).
 */
bool ppf_file_sparse(struct ppf_file *f, struct ppf_sparse *out)
{
	bool sparse;

	/* Most files: their uses read all they span. */
	if (!READ_ONCE(f->uses.sparse.ratio))
		return false;
	spin_lock(&f->lock);
	sparse = ppf_uses_sparse(&f->uses, out);
	spin_unlock(&f->lock);
	return sparse;
}

/**
 * ppf_file_set_last_use() - start a file from the use saved with it
 * @f: the entry, with no use seen since it was added
 * @first: first page (> @last: not known)
 * @last: last page
 * @map: the segments read (ppf_seg_mask())
 *
 * For a file restored from a saved state (ppf_engine_restore()).
 */
void ppf_file_set_last_use(struct ppf_file *f, pgoff_t first, pgoff_t last,
			   u64 map)
{
	struct ppf_use use = { first, last, map };

	spin_lock(&f->lock);
	WRITE_ONCE(f->use_gen, f->use_gen + 1);
	ppf_uses_restore(&f->uses, &use);
	spin_unlock(&f->lock);
}

/**
 * ppf_files_set_save_index() - give every entry the same save index
 * @index: the value
 *
 * state.c marks the files of a state it saves.  The caller holds
 * ppf_worker_mutex.
 */
void ppf_files_set_save_index(u32 index)
{
	struct ppf_file *f;

	lockdep_assert_held(&ppf_worker_mutex);
	list_for_each_entry(f, &ppf_lru, lru)
		f->save_index = index;
}
