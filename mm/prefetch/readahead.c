// SPDX-License-Identifier: GPL-2.0
/*
 * readahead.c - turn one prediction into asynchronous readahead
 *
 * DOC: Prefetching a predicted file
 *
 * For each predicted file the worker, in order (ppf_prefetch(), then
 * ppf_prefetch_file()):
 *
 * 1. skips it if it prefetched it a few events ago and it has not been
 *    opened since (EPCM names the same files event after event);
 * 2. skips it if it found the same range all cached before and no folio
 *    has left any page cache since (see DOC: Removal hook);
 * 3. skips it if the system is short of memory;
 * 4. pins its file system, and skips it if that is being unmounted;
 * 5. decodes the file handle, and skips it if the file was deleted;
 * 6. skips it unless the task whose open led to the prediction may read it;
 * 7. works out the pages to read: those read during the file's latest use
 *    (or its first default_prefetch_kb), capped at max_prefetch_kb and at
 *    the end of the file;
 * 8. skips it if they are all cached already;
 * 9. skips it if too much prefetched data is still in flight;
 * 10. otherwise starts readahead with page_cache_ra_unbounded(), which
 *     skips cached pages, allocates with readahead_gfp_mask() (no retries,
 *     no warnings: it fails rather than push the system into reclaim),
 *     submits the reads and returns without waiting for them.
 *
 * The engine counts and traces each skip, and forgets the file after 4
 * and 5.  Each file's prefetch record (struct ppf_prefetch_state) is this
 * file's alone, and so is the count of prefetches wasted.
 *
 * Decoding a handle may itself read the inode from disk; that wait is the
 * worker's, never the task's.
 *
 * Everything here runs in the worker under ppf_worker_mutex.
 */
#include <linux/exportfs.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/xarray.h>
#include "ppf.h"
#include "ppf_trace.h"

/*
 * A file prefetched this many events ago, and not opened since, is not
 * looked at again.  Only prefetched files: a file merely found cached may be
 * evicted at any time (drop_caches, memory pressure) and must be checked
 * again at its next prediction.
 */
#define PPF_RECENT_EVENTS	64
/* A prefetched file not opened within this many events was wasted. */
#define PPF_WASTE_EVENTS	1024
#define PPF_INFLIGHT_RECORDS	256
#define PPF_PENDING_RECORDS	1024
/* Most in-flight records found still reading per reap. */
#define PPF_REAP_BATCH		8

/*
 * One readahead started: the pages it covers, @first and @span, and how
 * many of them were not cached and so counted as in flight, @nr.  @nr is 0
 * once the readahead has been seen to finish.
 */
struct ppf_issue {
	u32 id;
	pgoff_t first;
	unsigned long span;
	unsigned long nr;
	u64 seq;
};

static struct ppf_issue ppf_inflight[PPF_INFLIGHT_RECORDS];
static unsigned int ppf_inflight_head, ppf_inflight_tail;
static unsigned long ppf_inflight_pages;
static struct ppf_issue ppf_pending[PPF_PENDING_RECORDS];
static unsigned int ppf_pending_head, ppf_pending_tail;

static bool ppf_low_memory(unsigned long nr)
{
	return si_mem_available() < (long)(totalram_pages() / 16 + nr);
}

/* Pages of [first, first + nr) in the page cache, and whether any is still being read. */
static unsigned long ppf_pages_cached(struct address_space *mapping,
				      pgoff_t first, unsigned long nr,
				      bool *reading)
{
	XA_STATE(xas, &mapping->i_pages, first);
	pgoff_t last = first + nr - 1;
	unsigned long cached = 0;
	struct folio *folio;

	*reading = false;
	rcu_read_lock();
	xas_for_each(&xas, folio, last) {
		pgoff_t start, end;

		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		start = max(folio->index, first);
		end = min(folio->index + folio_nr_pages(folio) - 1, last);
		if (end >= start)
			cached += end - start + 1;
		/*
		 * A folio stays locked while it is read; one left unlocked
		 * and not uptodate is a read that failed, not one in flight.
		 */
		if (!folio_test_uptodate(folio) && folio_test_locked(folio))
			*reading = true;
	}
	rcu_read_unlock();
	return cached;
}

static struct dentry *ppf_decode(struct super_block *sb, struct ppf_file *f)
{
	return sb->s_export_op->fh_to_dentry(sb, (struct fid *)f->fh,
					     f->fh_len, f->fh_type);
}

/* Has the readahead recorded in @r finished (or been forgotten)? */
static bool ppf_issue_done(const struct ppf_issue *r)
{
	struct ppf_file *f = ppf_files_find_id(r->id);
	struct super_block *sb;
	struct dentry *dentry;
	bool reading = false;

	if (!f)
		return true;
	sb = ppf_sb_pin(f->sb);
	if (!sb)
		return true;
	dentry = ppf_decode(sb, f);
	if (!IS_ERR_OR_NULL(dentry)) {
		ppf_pages_cached(d_inode(dentry)->i_mapping, r->first, r->span,
				 &reading);
		dput(dentry);
	}
	ppf_sb_unpin(sb);
	return !reading;
}

/* Move the head of the in-flight list over retired records. */
static void ppf_inflight_skip_retired(void)
{
	while (ppf_inflight_head != ppf_inflight_tail &&
	       !ppf_inflight[ppf_inflight_head % PPF_INFLIGHT_RECORDS].nr)
		ppf_inflight_head++;
}

/*
 * Retire the readahead that has finished.  Reads finish out of order (a
 * small file's before a large one's, a failed one at once), so every
 * record is looked at, not just the oldest: a finished one is retired where
 * it stands and the head moves over retired records.  A record is retired
 * once, so the cost per readahead started is constant, and the records
 * found still reading are bounded by PPF_REAP_BATCH per call.
 */
static void ppf_inflight_reap(void)
{
	unsigned int checks = PPF_REAP_BATCH;
	unsigned int i;

	for (i = ppf_inflight_head; i != ppf_inflight_tail && checks; i++) {
		struct ppf_issue *r = &ppf_inflight[i % PPF_INFLIGHT_RECORDS];

		if (!r->nr)
			continue;
		if (!ppf_issue_done(r)) {
			checks--;
			continue;
		}
		ppf_inflight_pages -= r->nr;
		r->nr = 0;
	}
	ppf_inflight_skip_retired();
}

/*
 * The file of the readahead started at event @seq was opened: whatever of it
 * is still being read is now read for the task that opened it, and no
 * longer counts against max_inflight_kb, which bounds speculative I/O only
 * (counting it would stop prefetching just when predictions come true).
 * Records are in event order: only those from @seq on are looked at.
 */
static void ppf_inflight_demanded(u32 id, u64 seq)
{
	unsigned int i = ppf_inflight_tail;

	while (i != ppf_inflight_head) {
		struct ppf_issue *r = &ppf_inflight[--i % PPF_INFLIGHT_RECORDS];

		if (r->seq < seq)
			break;
		if (r->id == id && r->seq == seq) {
			ppf_inflight_pages -= r->nr;
			r->nr = 0;
			break;
		}
	}
	ppf_inflight_skip_retired();
}

static void ppf_inflight_add(u32 id, pgoff_t first, unsigned long span,
			     unsigned long nr, u64 seq)
{
	struct ppf_issue *r;

	/* Full: forget the oldest, it has had the longest to finish. */
	if (ppf_inflight_tail - ppf_inflight_head == PPF_INFLIGHT_RECORDS) {
		r = &ppf_inflight[ppf_inflight_head++ % PPF_INFLIGHT_RECORDS];
		ppf_inflight_pages -= r->nr;
	}
	r = &ppf_inflight[ppf_inflight_tail++ % PPF_INFLIGHT_RECORDS];
	*r = (struct ppf_issue){
		.id = id, .first = first, .span = span, .nr = nr, .seq = seq,
	};
	ppf_inflight_pages += nr;
}

/* A prefetch whose file has not been opened since is wasted. */
static void ppf_pending_retire(const struct ppf_issue *r)
{
	struct ppf_file *f = ppf_files_find_id(r->id);

	if (f && f->prefetch.pending_seq == r->seq) {
		f->prefetch.pending_seq = 0;
		ppf_stat_inc(prefetch_wasted);
	}
}

/**
 * ppf_prefetch_reap() - count prefetches that turned out wasted
 * @seq: the current event number
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_prefetch_reap(u64 seq)
{
	lockdep_assert_held(&ppf_worker_mutex);
	while (ppf_pending_head != ppf_pending_tail) {
		struct ppf_issue *r = &ppf_pending[ppf_pending_head % PPF_PENDING_RECORDS];

		if (r->seq + PPF_WASTE_EVENTS > seq)
			break;
		ppf_pending_retire(r);
		ppf_pending_head++;
	}
}

static void ppf_pending_add(struct ppf_file *f, u64 seq)
{
	if (ppf_pending_tail - ppf_pending_head == PPF_PENDING_RECORDS)
		ppf_pending_retire(&ppf_pending[ppf_pending_head++ % PPF_PENDING_RECORDS]);
	ppf_pending[ppf_pending_tail++ % PPF_PENDING_RECORDS] =
		(struct ppf_issue){ .id = f->id, .seq = seq };
	f->prefetch.pending_seq = seq;
}

/**
 * ppf_prefetch_opened() - a file was opened: was it prefetched for this?
 * @f: the file
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_prefetch_opened(struct ppf_file *f)
{
	struct ppf_prefetch_state *st = &f->prefetch;

	lockdep_assert_held(&ppf_worker_mutex);
	if (st->pending_seq) {
		ppf_inflight_demanded(f->id, st->pending_seq);
		st->pending_seq = 0;
		ppf_stat_inc(prefetch_useful);
	}
}

/**
 * ppf_prefetch_forget_file() - a file leaves the file table
 * @f: the file
 *
 * A prefetch of it not followed by an open was wasted.  The in-flight and
 * pending records that name it find no entry from now on.  The caller
 * holds ppf_worker_mutex.
 */
void ppf_prefetch_forget_file(struct ppf_file *f)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (f->prefetch.pending_seq)
		ppf_stat_inc(prefetch_wasted);
}

/* The pages wanted: the latest use, or the start of the file; capped. */
static unsigned long ppf_wanted_range(struct ppf_file *f, pgoff_t *first)
{
	unsigned long max = READ_ONCE(ppf_config.max_prefetch_kb) >> (PAGE_SHIFT - 10);
	pgoff_t last;

	if (!ppf_file_last_use(f, first, &last)) {
		*first = 0;
		last = (READ_ONCE(ppf_config.default_prefetch_kb) >> (PAGE_SHIFT - 10)) - 1;
	}
	return min_t(unsigned long, last - *first + 1, max);
}

/* The pages to read: those wanted, up to the end of the file. */
static unsigned long ppf_prefetch_range(unsigned long wanted, pgoff_t first,
					struct inode *inode)
{
	pgoff_t end = DIV_ROUND_UP(i_size_read(inode), PAGE_SIZE);

	if (first >= end)
		return 0;
	return min_t(unsigned long, wanted, end - first);
}

/*
 * Was the range now wanted found all cached, with no folio removed from
 * any page cache since (see DOC: Removal hook)?  Then it still is, and the
 * file need not be decoded and looked at again.
 */
static bool ppf_known_cached(struct ppf_file *f)
{
	const struct ppf_prefetch_state *st = &f->prefetch;
	pgoff_t first;
	unsigned long wanted;

	if (!st->cached_span)
		return false;
	wanted = ppf_wanted_range(f, &first);
	return wanted == st->cached_span && first == st->cached_first &&
	       st->cached_removals == ppf_page_cache_removals();
}

/*
 * Read ahead the file; the caller has pinned its file system.  Returns
 * whether readahead was started, and if not, sets *@why.
 */
static bool ppf_prefetch_file(struct super_block *sb, struct ppf_file *f,
			      const struct cred *cred, u64 seq,
			      enum ppf_skip_reason *why)
{
	struct ppf_prefetch_state *st = &f->prefetch;
	const struct cred *old;
	struct dentry *dentry;
	struct inode *inode;
	unsigned long wanted, nr, cached, inflight_max, removals;
	pgoff_t first;
	bool started = false;
	bool reading;
	int err;

	dentry = ppf_decode(sb, f);
	if (IS_ERR_OR_NULL(dentry)) {
		*why = PPF_SKIP_STALE;
		return false;
	}
	inode = d_inode(dentry);
	if (!S_ISREG(inode->i_mode) || inode->i_ino != f->ino ||
	    inode->i_generation != f->gen) {
		*why = PPF_SKIP_STALE;
		goto out;
	}
	/* Act only on behalf of a task that may read the file itself. */
	old = override_creds(cred);
	err = inode_permission(&nop_mnt_idmap, inode, MAY_READ);
	revert_creds(old);
	if (err) {
		*why = PPF_SKIP_PERM;
		goto out;
	}
	wanted = ppf_wanted_range(f, &first);
	nr = ppf_prefetch_range(wanted, first, inode);
	removals = ppf_page_cache_removals_of(inode->i_mapping);
	cached = nr ? ppf_pages_cached(inode->i_mapping, first, nr, &reading) : 0;
	ppf_stat_add(pages_cached, cached);
	if (cached == nr) {
		st->cached_first = first;
		st->cached_span = wanted;
		st->cached_pages = nr;
		st->cached_removals = removals;
		*why = PPF_SKIP_CACHED;
		goto out;
	}
	st->cached_span = 0;
	inflight_max = READ_ONCE(ppf_config.max_inflight_kb) >> (PAGE_SHIFT - 10);
	if (ppf_inflight_pages + nr - cached > inflight_max)
		ppf_inflight_reap();
	if (ppf_inflight_pages + nr - cached > inflight_max) {
		*why = PPF_SKIP_INFLIGHT;
		goto out;
	}
	{
		DEFINE_READAHEAD(ractl, NULL, NULL, inode->i_mapping, first);

		page_cache_ra_unbounded(&ractl, nr, 0);
	}
	ppf_stat_inc(prefetch_issued);
	ppf_stat_add(pages_requested, nr - cached);
	trace_ppf_prefetch(ppf_sb_dev(f->sb), f->ino, f->id, first, nr, cached);
	ppf_inflight_add(f->id, first, nr, nr - cached, seq);
	ppf_pending_add(f, seq);
	started = true;
out:
	dput(dentry);
	return started;
}

/**
 * ppf_prefetch() - act on one prediction
 * @f: the predicted file
 * @cred: credentials of the task whose open led to the prediction
 * @seq: the current event number
 * @why: set to the reason when no readahead was started
 *
 * Counts what it read and found cached, not what it skipped: the caller
 * counts and traces the skip, and decides whether to forget @f (a stale
 * file, or one whose file system is gone).  The caller holds
 * ppf_worker_mutex.
 *
 * Return: true if readahead was started.
 */
bool ppf_prefetch(struct ppf_file *f, const struct cred *cred, u64 seq,
		  enum ppf_skip_reason *why)
{
	const struct ppf_prefetch_state *st = &f->prefetch;
	struct super_block *sb;
	bool started;

	lockdep_assert_held(&ppf_worker_mutex);
	if (st->pending_seq && seq - st->pending_seq < PPF_RECENT_EVENTS) {
		*why = PPF_SKIP_RECENT;
		return false;
	}
	if (ppf_known_cached(f)) {
		ppf_stat_add(pages_cached, st->cached_pages);
		ppf_stat_inc(cached_known);
		*why = PPF_SKIP_CACHED;
		return false;
	}
	if (ppf_low_memory(READ_ONCE(ppf_config.max_prefetch_kb) >>
			   (PAGE_SHIFT - 10))) {
		*why = PPF_SKIP_LOWMEM;
		return false;
	}
	sb = ppf_sb_pin(f->sb);
	if (!sb) {
		*why = PPF_SKIP_UNMOUNTED;
		return false;
	}
	started = ppf_prefetch_file(sb, f, cred, seq, why);
	ppf_sb_unpin(sb);
	return started;
}

/**
 * ppf_prefetch_forget_all() - drop the in-flight and pending records
 *
 * On reset: the file ids they name are about to be reused.  The caller
 * holds ppf_worker_mutex.
 */
void ppf_prefetch_forget_all(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_inflight_head = 0;
	ppf_inflight_tail = 0;
	ppf_inflight_pages = 0;
	ppf_pending_head = 0;
	ppf_pending_tail = 0;
}
