// SPDX-License-Identifier: GPL-2.0
/*
 * readahead.c - turn a planned file into asynchronous readahead, a chunk at a time
 *
 * DOC: Prefetching a predicted file
 *
 * When a file is predicted, ppf_prefetch_wanted() decides whether it goes
 * into the plan (pacing.c) at all, without I/O:
 *
 * 1. not if it prefetched it a few events ago and it has not been opened
 *    since (EPCM names the same files event after event);
 * 2. not if it found the same range all cached before and no folio has
 *    left any page cache since (see DOC: Removal hook).
 *
 * When the plan's head is due, ppf_prefetch() and ppf_prefetch_file():
 *
 * 3. skip it if the system is short of memory (read once per pacing
 *    pass, less each chunk started in it);
 * 4. pin its file system, and skip it if that is being unmounted;
 * 5. decode the file handle, and skip it if the file was deleted (once per
 *    pass: the chunks of a file that a pass starts share the decode);
 * 6. skip it unless the task whose open led to the prediction may read it;
 *    if no cached path leads to it, look it up in its directory first
 *    (DOC: Metadata);
 * 7. work out the pages to read: those read during the file's latest use
 *    (or its first default_prefetch_kb), capped at max_prefetch_kb and at
 *    the end of the file;
 * 8. take the next chunk of at most PPF_CHUNK_PAGES of them that is not all
 *    cached (skip the file if none is left);
 * 9. wait ("inflight": the plan keeps it at its head) while as much
 *    prefetched data is in flight as max_inflight_kb allows;
 * 10. otherwise start readahead of the chunk with page_cache_ra_unbounded(),
 *     which skips cached pages, allocates with readahead_gfp_mask() (no
 *     retries, no warnings: it fails rather than push the system into
 *     reclaim), submits the reads and returns without waiting for them.
 *
 * The plan counts and traces each skip, and forgets the file after 4 and
 * 5.  Each file's prefetch record (struct ppf_prefetch_state) is this
 * file's alone, and so is the count of prefetches wasted.
 *
 * Decoding a handle may itself read the inode from disk; that wait is the
 * worker's, never the task's, and at the worker's I/O class.
 *
 * Everything here runs in the worker under ppf_worker_mutex.
 */
#include <linux/blkdev.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/sched/clock.h>
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
/*
 * Readahead is started in chunks of at most one segment (256 KiB, see
 * ppf_seg_mask()), so that a task's own read never waits behind more than
 * one chunk per request the device serves at once: 26 ms at the paper's
 * 10 MB/s, 1.3 ms at 200 MB/s.
 */
#define PPF_CHUNK_PAGES		PPF_SEG_PAGES

/*
 * One readahead started: the pages it covers, @first and @span, and how
 * many of them were not cached and so counted as in flight, @nr.  @nr is 0
 * once the readahead has been seen to finish.  @watch is the last folio of
 * the range that was being read when it was started, with a reference: its
 * unlocking says the readahead is done, without looking the file up again.
 * A folio reference keeps no file system busy (an unmount truncates the
 * page cache around it, and the folio is freed at the last folio_put()).
 */
struct ppf_issue {
	u32 id;
	pgoff_t first;
	unsigned long span;
	unsigned long nr;
	u64 seq;
	struct folio *watch;
};

static struct ppf_issue ppf_inflight[PPF_INFLIGHT_RECORDS];
static unsigned int ppf_inflight_head, ppf_inflight_tail;
static unsigned long ppf_inflight_pages;
static struct ppf_issue ppf_pending[PPF_PENDING_RECORDS];
static unsigned int ppf_pending_head, ppf_pending_tail;

/* Pages prefetching may still take: MemAvailable above 1/16 of RAM. */
static long ppf_memory_room(void)
{
	return si_mem_available() - (long)(totalram_pages() / 16);
}

/**
 * ppf_prefetch_memory_low() - is memory too short for a prefetch to start?
 *
 * The test ppf_prefetch() makes before each chunk: less room than a chunk
 * (MemAvailable below 1/16 of RAM and a chunk).  The engine asks it once
 * per batch of events, to let the worker sleep while nothing could be
 * prefetched anyway.
 *
 * Return: true if no prefetch would start now.
 */
bool ppf_prefetch_memory_low(void)
{
	return ppf_memory_room() < (long)PPF_CHUNK_PAGES;
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

/* Has the readahead recorded in @r finished? */
static bool ppf_issue_done(const struct ppf_issue *r)
{
	return !r->watch || !folio_test_locked(r->watch);
}

/* No longer in flight: not counted, its folio let go. */
static void ppf_issue_retire(struct ppf_issue *r)
{
	ppf_inflight_pages -= r->nr;
	r->nr = 0;
	if (r->watch) {
		folio_put(r->watch);
		r->watch = NULL;
	}
}

/*
 * The folio to watch for the end of the readahead of [@first, +@nr): the
 * last one still being read, with a reference; NULL if none is (all read
 * already, or not allocated).  Taken as filemap_get_entry() does: a
 * reference, then a check that the folio is still the one in the mapping.
 */
static struct folio *ppf_watch_folio(struct address_space *mapping,
				     pgoff_t first, unsigned long nr)
{
	XA_STATE(xas, &mapping->i_pages, first);
	struct folio *folio, *found = NULL;
	pgoff_t index = 0;

	rcu_read_lock();
	xas_for_each(&xas, folio, first + nr - 1) {
		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		if (!folio_test_uptodate(folio) && folio_test_locked(folio)) {
			found = folio;
			index = xas.xa_index;
		}
	}
	if (found) {
		xas_set(&xas, index);
		found = xas_load(&xas);
		if (!found || xa_is_value(found) || !folio_try_get(found)) {
			found = NULL;
		} else if (found != xas_reload(&xas)) {
			folio_put(found);
			found = NULL;
		}
	}
	rcu_read_unlock();
	return found;
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
 * it stands and the head moves over retired records.  Looking is a flag
 * test on a folio held, so every record is looked at each time.
 */
static void ppf_inflight_reap(void)
{
	unsigned int i;

	for (i = ppf_inflight_head; i != ppf_inflight_tail; i++) {
		struct ppf_issue *r = &ppf_inflight[i % PPF_INFLIGHT_RECORDS];

		if (r->nr && ppf_issue_done(r))
			ppf_issue_retire(r);
	}
	ppf_inflight_skip_retired();
}

/**
 * ppf_prefetch_busy() - is prefetched data still being read?
 *
 * Retires what has finished first.  The caller holds ppf_worker_mutex.
 *
 * Return: true while any readahead started is still in flight.
 */
bool ppf_prefetch_busy(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_inflight_reap();
	return ppf_inflight_pages != 0;
}

/**
 * ppf_prefetch_inflight_kb() - prefetched data still being read
 *
 * Retires what has finished first, so a read that ended, or failed, is not
 * counted: what stays counted is a read that has not ended.  Takes
 * ppf_worker_mutex.
 *
 * Return: KiB started by prefetches and not read yet.
 */
unsigned long ppf_prefetch_inflight_kb(void)
{
	unsigned long pages;

	mutex_lock(&ppf_worker_mutex);
	ppf_inflight_reap();
	pages = ppf_inflight_pages;
	mutex_unlock(&ppf_worker_mutex);
	return pages << (PAGE_SHIFT - 10);
}

/*
 * The file of the readahead started at event @seq was opened: whatever of it
 * is still being read is now read for the task that opened it, and no
 * longer counts against max_inflight_kb, which bounds speculative I/O only
 * (counting it would stop prefetching just when predictions come true).
 * Records are in event order: only those from @seq on are looked at.
 * Returns whether that readahead was still being read: the open came
 * before its prefetch was done (late; its last chunk only is looked at).
 */
static bool ppf_inflight_demanded(u32 id, u64 seq)
{
	unsigned int i = ppf_inflight_tail;
	bool late = false;

	while (i != ppf_inflight_head) {
		struct ppf_issue *r = &ppf_inflight[--i % PPF_INFLIGHT_RECORDS];

		if (r->seq < seq)
			break;
		if (r->id == id && r->seq == seq) {
			late = r->nr && !ppf_issue_done(r);
			ppf_issue_retire(r);
			break;
		}
	}
	ppf_inflight_skip_retired();
	return late;
}

static void ppf_inflight_add(u32 id, pgoff_t first, unsigned long span,
			     unsigned long nr, u64 seq, struct folio *watch)
{
	struct ppf_issue *r;

	/* Full: forget the oldest, it has had the longest to finish. */
	if (ppf_inflight_tail - ppf_inflight_head == PPF_INFLIGHT_RECORDS)
		ppf_issue_retire(&ppf_inflight[ppf_inflight_head++ % PPF_INFLIGHT_RECORDS]);
	r = &ppf_inflight[ppf_inflight_tail++ % PPF_INFLIGHT_RECORDS];
	*r = (struct ppf_issue){
		.id = id, .first = first, .span = span, .nr = nr, .seq = seq,
		.watch = watch,
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
		if (ppf_inflight_demanded(f->id, st->pending_seq)) {
			ppf_stat_inc(prefetch_late);
			ppf_lookahead_late();
		}
		st->pending_seq = 0;
		ppf_stat_inc(prefetch_useful);
		ppf_payoff_useful(ppf_sb_dev(f->sb));
	}
}

/**
 * ppf_prefetch_forget_file() - a file leaves the file table
 * @f: the file, out of the plan already (ppf_forget_file())
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

/*
 * The pages wanted: the latest use, or the start of the file; capped.  *@map
 * says which segments of them the latest use touched (all for the start).
 */
static unsigned long ppf_wanted_range(struct ppf_file *f, pgoff_t *first,
				      u64 *map)
{
	unsigned long max = READ_ONCE(ppf_config.max_prefetch_kb) >> (PAGE_SHIFT - 10);
	pgoff_t last;

	if (!ppf_file_last_use(f, first, &last, map)) {
		*first = 0;
		last = (READ_ONCE(ppf_config.default_prefetch_kb) >> (PAGE_SHIFT - 10)) - 1;
		*map = ~0ULL;
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

/**
 * ppf_prefetch_still_cached() - is a file found all cached known to still be?
 * @f: the file
 *
 * Its pages were found all cached at its last look, and no folio has left
 * the page cache of its bucket since (DOC: Removal hook).  Unlike
 * ppf_known_cached(), the range wanted is not worked out again: this is
 * for a prediction that repeats the one that looked.  The caller holds
 * ppf_worker_mutex.
 *
 * Return: true if it is known to be cached still.
 */
bool ppf_prefetch_still_cached(struct ppf_file *f)
{
	const struct ppf_prefetch_state *st = &f->prefetch;

	lockdep_assert_held(&ppf_worker_mutex);
	return st->cached_span && st->cached_removals ==
	       ppf_page_cache_removals(ppf_sb_dev(f->sb), f->ino);
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
	u64 map;

	if (!ppf_prefetch_still_cached(f))
		return false;
	wanted = ppf_wanted_range(f, &first, &map);
	return wanted == st->cached_span && first == st->cached_first;
}

/*
 * The next chunk of the pages to read, from *@next on (0: from the start of
 * the range): a piece of one segment that the latest use touched (@map) and
 * that is not all cached.  Returns its size (0: nothing is left) and sets
 * *@first; counts the cached pages it moved over, and in *@cached those of
 * the chunk returned.
 */
static unsigned long ppf_next_chunk(struct address_space *mapping,
				    pgoff_t start, unsigned long nr, u64 map,
				    pgoff_t next, pgoff_t *first,
				    unsigned long *cached)
{
	unsigned long chunk;
	bool reading;

	if (next > start && next < start + nr) {
		nr -= next - start;
		start = next;
	}
	while (nr) {
		chunk = min_t(unsigned long, nr,
			      PPF_SEG_PAGES - (start & (PPF_SEG_PAGES - 1)));
		if (ppf_seg_used(map, start)) {
			*cached = ppf_pages_cached(mapping, start, chunk, &reading);
			if (*cached < chunk) {
				*first = start;
				return chunk;
			}
			ppf_stat_add(pages_cached, chunk);
		}
		start += chunk;
		nr -= chunk;
		cond_resched();
	}
	return 0;
}

/* Let go of a held file and its file system; the slot is free after. */
static void ppf_held_let_go(struct ppf_held_file *h)
{
	if (h->dentry)
		dput(h->dentry);
	if (h->sb)
		ppf_sb_unpin(h->sb);
	h->dentry = NULL;
	h->sb = NULL;
}

/*
 * The file's dentry, decoded once for as many of its chunks as one pacing
 * pass starts: the pass keeps the last PPF_SESSION_FILES files it decoded
 * (each with its file system pinned), letting the oldest go for a new one,
 * and the rest at ppf_prefetch_end().  Nothing is held past the pass, so
 * no file system is kept busy.  NULL with *@why set if the file system is
 * being unmounted, the file is gone, or the task whose open led to the
 * prediction may not read it (checked at each decode: a later pass checks
 * again).
 */
static struct dentry *ppf_session_file(struct ppf_session *ps,
				       struct ppf_file *f,
				       const struct cred *cred,
				       enum ppf_skip_reason *why)
{
	struct ppf_held_file *h;
	const struct cred *old;
	struct dentry *dentry;
	struct inode *inode;
	unsigned int i;
	u64 start;
	int err;

	for (i = 0; i < PPF_SESSION_FILES; i++) {
		h = &ps->held[i];
		if (h->dentry && h->id == f->id && h->cred == cred)
			return h->dentry;
	}
	h = &ps->held[ps->next];
	ps->next = (ps->next + 1) % PPF_SESSION_FILES;
	ppf_held_let_go(h);
	h->sb = ppf_sb_pin(f->sb);
	if (!h->sb) {
		*why = PPF_SKIP_UNMOUNTED;
		return NULL;
	}
	ppf_stat_inc(decodes);
	start = local_clock();
	dentry = ppf_fh_decode(h->sb, f->fh, f->fh_len, f->fh_type);
	ppf_stat_add(worker_decode_ns, local_clock() - start);
	if (IS_ERR_OR_NULL(dentry)) {
		*why = PPF_SKIP_STALE;
		goto fail;
	}
	inode = d_inode(dentry);
	if (!S_ISREG(inode->i_mode) || inode->i_ino != f->ino ||
	    inode->i_generation != f->gen) {
		*why = PPF_SKIP_STALE;
		goto fail_dput;
	}
	/* Act only on behalf of a task that may read the file itself. */
	old = override_creds(cred);
	err = inode_permission(PPF_NOP_IDMAP, inode, MAY_READ);
	revert_creds(old);
	if (err) {
		*why = PPF_SKIP_PERM;
		goto fail_dput;
	}
	h->dentry = dentry;
	h->id = f->id;
	h->cred = cred;
	return dentry;

fail_dput:
	dput(dentry);
fail:
	ppf_held_let_go(h);
	return NULL;
}

/*
 * Read ahead the next chunk of the file.  Returns whether readahead was
 * started, and if not, sets *@why.  *@next is where the next chunk starts,
 * 0 when nothing is left.
 */
static bool ppf_prefetch_file(struct ppf_session *ps, struct ppf_file *f,
			      const struct cred *cred, u64 seq, pgoff_t *next,
			      enum ppf_skip_reason *why)
{
	struct ppf_prefetch_state *st = &f->prefetch;
	bool fresh = !*next;
	struct address_space *mapping;
	struct dentry *dentry;
	struct inode *inode;
	unsigned long wanted, nr, chunk, cached = 0, removals, limit;
	pgoff_t start, first = 0;
	u64 map;

	dentry = ppf_session_file(ps, f, cred, why);
	if (!dentry)
		return false;
	inode = d_inode(dentry);
	mapping = inode->i_mapping;
	/* Disconnected: no cached path leads to it; its open will look it up. */
	if (fresh && f->name && (dentry->d_flags & DCACHE_DISCONNECTED) &&
	    READ_ONCE(ppf_config.metadata))
		ppf_prefetch_dentry(dentry->d_sb, f, cred);
	wanted = ppf_wanted_range(f, &start, &map);
	nr = ppf_prefetch_range(wanted, start, inode);
	removals = ppf_page_cache_removals_of(mapping);
	chunk = ppf_next_chunk(mapping, start, nr, map, *next, &first, &cached);
	if (!chunk) {
		if (fresh) {
			st->cached_first = start;
			st->cached_span = wanted;
			st->cached_pages = nr;
			st->cached_removals = removals;
		}
		*next = 0;
		*why = PPF_SKIP_CACHED;
		return false;
	}
	st->cached_span = 0;
	ppf_stat_add(pages_cached, cached);
	limit = READ_ONCE(ppf_config.max_inflight_kb) >> (PAGE_SHIFT - 10);
	if (ppf_inflight_pages + chunk - cached > limit)
		ppf_inflight_reap();
	if (ppf_inflight_pages && ppf_inflight_pages + chunk - cached > limit) {
		*next = first;	/* where to go on when there is room */
		*why = PPF_SKIP_INFLIGHT;
		return false;
	}
	{
		DEFINE_READAHEAD(ractl, NULL, NULL, mapping, first);
		u64 ra_start = local_clock();

		page_cache_ra_unbounded(&ractl, chunk, 0);
		ppf_stat_add(worker_readahead_ns, local_clock() - ra_start);
	}
	ps->avail -= chunk - cached;
	ppf_stat_add(pages_requested, chunk - cached);
	trace_ppf_prefetch(ppf_sb_dev(f->sb), f->ino, f->id, first, chunk, cached);
	ppf_inflight_add(f->id, first, chunk, chunk - cached, seq,
			 ppf_watch_folio(mapping, first, chunk));
	if (fresh) {
		ppf_stat_inc(prefetch_issued);
		ppf_pending_add(f, seq);
	}
	*next = first + chunk < start + nr ? first + chunk : 0;
	return true;
}

/**
 * ppf_prefetch_wanted() - is a predicted file worth planning at all?
 * @f: the predicted file
 * @seq: the current event number
 * @why: set to the reason when it is not
 *
 * The checks that need no I/O and no file: prefetched a few events ago and
 * not opened since, or its range found all cached with nothing removed from
 * the page cache since.  Counts what it found cached.  The caller holds
 * ppf_worker_mutex.
 *
 * Return: true if @f should be planned.
 */
bool ppf_prefetch_wanted(struct ppf_file *f, u64 seq, enum ppf_skip_reason *why)
{
	const struct ppf_prefetch_state *st = &f->prefetch;

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
	return true;
}

/**
 * ppf_prefetch_begin() - start a pacing pass
 * @ps: the pass's state, filled in
 *
 * Reads the memory available once for the whole pass: each chunk started
 * is taken off it, so the pass stops where a test before each chunk would
 * have (MemAvailable below 1/16 of RAM and a chunk), give or take what
 * others allocate meanwhile, which the in-flight limit bounds.  The caller
 * holds ppf_worker_mutex.
 */
void ppf_prefetch_begin(struct ppf_session *ps)
{
	lockdep_assert_held(&ppf_worker_mutex);
	memset(ps->held, 0, sizeof(ps->held));
	ps->next = 0;
	ps->avail = ppf_memory_room();
}

/**
 * ppf_prefetch_end() - end a pacing pass: nothing of it is held any more
 * @ps: the pass's state
 */
void ppf_prefetch_end(struct ppf_session *ps)
{
	unsigned int i;

	for (i = 0; i < PPF_SESSION_FILES; i++)
		ppf_held_let_go(&ps->held[i]);
}

/**
 * ppf_prefetch() - start the readahead of the next chunk of a planned file
 * @ps: the pacing pass (ppf_prefetch_begin())
 * @f: the file
 * @cred: credentials of the task whose open led to its prediction
 * @seq: the current event number
 * @next: where the chunk starts (0: at the start of the file's range);
 *	set to where the next one does, 0 when the range is done
 * @why: set to the reason when no readahead was started
 *
 * Counts what it read and found cached, not what it skipped: the caller
 * counts and traces the skip, and decides whether to forget @f (a stale
 * file, or one whose file system is gone).  PPF_SKIP_INFLIGHT means "not
 * now": too much is being read, *@next is where to go on.  The file's
 * handle is decoded once for all the chunks the pass starts.  The caller
 * holds ppf_worker_mutex.
 *
 * Return: true if readahead was started.
 */
bool ppf_prefetch(struct ppf_session *ps, struct ppf_file *f,
		  const struct cred *cred, u64 seq, pgoff_t *next,
		  enum ppf_skip_reason *why)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (ps->avail < (long)PPF_CHUNK_PAGES) {
		*why = PPF_SKIP_LOWMEM;
		return false;
	}
	return ppf_prefetch_file(ps, f, cred, seq, next, why);
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
	while (ppf_inflight_head != ppf_inflight_tail)
		ppf_issue_retire(&ppf_inflight[ppf_inflight_head++ % PPF_INFLIGHT_RECORDS]);
	ppf_inflight_head = 0;
	ppf_inflight_tail = 0;
	ppf_inflight_pages = 0;
	ppf_pending_head = 0;
	ppf_pending_tail = 0;
}
