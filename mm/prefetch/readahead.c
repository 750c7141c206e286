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
 *    left any page cache since (see DOC: Removal hook);
 * 3. not if its uses ask for so few of the pages they span that a chunk of
 *    it would cost its device more than it spares (DOC: Sparse files).
 *
 * When the plan's head is due, ppf_prefetch() and ppf_prefetch_file():
 *
 * 4. skip it if the system is short of memory (read once per pacing
 *    pass, less each chunk started in it);
 * 5. pin its file system, and skip it if that is being unmounted;
 * 6. decode the file handle, and skip it if the file was deleted (once per
 *    pass: the chunks of a file that a pass starts share the decode);
 *    but first, at a file's first chunk, look for its inode in the inode
 *    cache, and skip it without a decode if that shows everything to read
 *    cached (steps 8 and 9 on the inode found: ppf_cached_by_inode());
 * 7. skip it unless the task whose open led to the prediction may read it;
 *    if no cached path leads to it, look it up in its directory first
 *    (DOC: Metadata);
 * 8. work out the pages to read: those its next use is expected to read
 *    (DOC: Uses of a file), or its first default_prefetch_kb if no use
 *    read any; capped at max_prefetch_kb and at the end of the file;
 * 9. take the next chunk of at most PPF_CHUNK_PAGES of them that is not all
 *    cached (skip the file if none is left);
 * 10. wait ("inflight": the plan keeps it at its head) while as much
 *     prefetched data is in flight as max_inflight_kb allows, or on a
 *     device without an arm as it moves in max_inflight_ms (DOC: Device
 *     rate);
 * 11. otherwise start readahead of the chunk with page_cache_ra_unbounded(),
 *     which skips cached pages, allocates with readahead_gfp_mask() (no
 *     retries, no warnings: it fails rather than push the system into
 *     reclaim), submits the reads and returns without waiting for them.
 *
 * The plan counts and traces each skip, and has the file forgotten after 5
 * and 6 (DOC: Forgetting a file).  What was started is recorded in the
 * ledger of readahead in flight (inflight.c), which max_inflight_kb bounds
 * and which counts each prefetch useful, late or wasted.
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
/*
 * Readahead is started in chunks of at most one segment (256 KiB, see
 * ppf_seg_mask()), so that a task's own read never waits behind more than
 * one chunk per request the device serves at once: 26 ms at the paper's
 * 10 MB/s, 1.3 ms at 200 MB/s.
 */
#define PPF_CHUNK_PAGES		PPF_SEG_PAGES

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

/* Pages of [first, first + nr) in the page cache, being read or not. */
static unsigned long ppf_pages_cached(struct address_space *mapping,
				      pgoff_t first, unsigned long nr)
{
	XA_STATE(xas, &mapping->i_pages, first);
	pgoff_t last = first + nr - 1;
	unsigned long cached = 0;
	struct folio *folio;

	rcu_read_lock();
	xas_for_each(&xas, folio, last) {
		pgoff_t start, end;

		if (xas_retry(&xas, folio) || xa_is_value(folio))
			continue;
		start = max(folio->index, first);
		end = min(folio->index + folio_nr_pages(folio) - 1, last);
		if (end >= start)
			cached += end - start + 1;
	}
	rcu_read_unlock();
	return cached;
}

/*
 * The pages wanted: those the next use is expected to read, or the start of
 * the file.  From a page map (DOC: Page maps), *@map is 0 and the span is
 * not capped: the map's runs say what to read, and they are what the use
 * asked for.  Otherwise capped, and *@map says which segments of the span
 * to read (all for the start).
 */
static unsigned long ppf_wanted_range(struct ppf_file *f, pgoff_t *first,
				      u64 *map)
{
	unsigned long max = READ_ONCE(ppf_config.max_prefetch_kb) >> (PAGE_SHIFT - 10);
	pgoff_t last;

	if (ppf_file_page_span(f, first, &last)) {
		*map = 0;
		return last - *first + 1;
	}
	if (!ppf_file_expected_use(f, first, &last, map)) {
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
 * the page cache of its bucket since (DOC: Removal hook): asked first of
 * the generation of quiet, which says so for every file at once in two
 * loads while nothing has left any page cache, then of the bucket's
 * count, one load per possible CPU.  Unlike
 * ppf_known_cached(), the range wanted is not worked out again: this is
 * for a prediction that repeats the one that looked.  The caller holds
 * ppf_worker_mutex.
 *
 * Return: true if it is known to be cached still.
 */
bool ppf_prefetch_still_cached(struct ppf_file *f)
{
	struct ppf_prefetch_state *st = &f->prefetch;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!st->cached_span)
		return false;
	if (st->cached_quiet && st->cached_quiet == ppf_page_cache_quiet())
		return true;
	if (st->cached_removals != ppf_file_removals(f))
		return false;
	/*
	 * Cached still, as of the count just read: from the quiet read
	 * after it on, the generation says so in two loads.  A removal
	 * from the file after the count was read sets the flag before
	 * the folio goes (the probe runs first), and the quiet read here
	 * is 0 or a generation the next mark moves past.
	 */
	smp_rmb();
	st->cached_quiet = ppf_page_cache_quiet();
	return true;
}

/*
 * Was the range now wanted found all cached, with no folio removed from
 * any page cache since (see DOC: Removal hook)?  Then it still is, and the
 * file need not be decoded and looked at again.  The range is worked out
 * again only if the file's uses or page map, or the sysctls that bound
 * it, changed since it was last worked out: a file predicted often and read
 * seldom (a hot cache, a workload in an order never seen twice) is
 * judged in a few loads.
 */
static bool ppf_known_cached(struct ppf_file *f)
{
	struct ppf_prefetch_state *st = &f->prefetch;
	pgoff_t first;
	unsigned long wanted;
	u32 use_gen, max_kb, default_kb;
	u64 map;

	if (!ppf_prefetch_still_cached(f))
		return false;
	/* Read before the range, as ppf_prefetch_file() does. */
	use_gen = READ_ONCE(f->use_gen);
	max_kb = READ_ONCE(ppf_config.max_prefetch_kb);
	default_kb = READ_ONCE(ppf_config.default_prefetch_kb);
	if (st->cached_use_gen == use_gen && st->cached_max_kb == max_kb &&
	    st->cached_default_kb == default_kb)
		return true;
	wanted = ppf_wanted_range(f, &first, &map);
	if (wanted != st->cached_span || first != st->cached_first)
		return false;
	/*
	 * The same range: the next look, until the file is read or opened
	 * again, need not work it out.  Without this, a file read once
	 * since it was found cached had its uses folded at every later
	 * prediction (a hot cache predicts each file many times a use).
	 */
	st->cached_use_gen = use_gen;
	st->cached_max_kb = max_kb;
	st->cached_default_kb = default_kb;
	return true;
}

/*
 * DOC: Sparse files
 *
 * A file read through read(2) is prefetched by the span and 256 KiB
 * segments its uses touched (DOC: Uses of a file), a chunk of at most one
 * segment at a time.  A database read at scattered pages touches nearly
 * every segment of its span and asks for a few pages in each: SQLite's
 * lookups in a 57.7 MB file ask for about 820 of its 14,080 pages, and
 * for 28 of the 512 that max_prefetch_kb's 2 MiB reads from its start.
 * On a disk, a chunk spares its task the reads of the pages it would have
 * asked for there, each a positioning, and costs the arm one positioning
 * and the whole chunk's transfer, which every read queued behind it waits
 * for: on the paper's disk those 2 MiB take 210 ms, behind which the
 * program's start-up waited, to spare 28 reads of about 6.6 ms, and the
 * run was slower than without prefetching (docs/results.md, "A seventh
 * workload").
 *
 * So on a rotational device, a file never mapped whose latest finished
 * use asked for fewer pages than it spanned has each chunk judged before
 * it is read: the pages that use asked for in the chunk's segment (counted
 * one by one in the first PPF_SPARSE_SEGS segments, taken as spread evenly
 * past them; a page asked for again counts again, which errs towards
 * reading), each a read at the device's quiet latency (DOC: Quiet
 * latency), must cost at least what the chunk does, one read at that
 * latency and its transfer at the highest rate the device was measured
 * at while busy (DOC: Device rate).  A chunk that does not pay is passed
 * over, and a file none of whose chunks pays is not planned
 * (skipped_sparse).  No constant is tuned to a workload: the pages asked
 * for are the file's, the costs the device's.
 *
 * Not judged: a file whose use asked for all it spanned (read whole, or
 * only its first pages), a mapped file (its faults ask for a page where
 * fault-around maps a window, and its page map says which pages, DOC:
 * Page maps), a device whose costs are not known yet, and a device
 * without an arm, which serves requests side by side and has no
 * positioning to save; there its busy rate is also no measure of its
 * transfer (a networked volume that moves 119 MiB/s measured 11 MB/s
 * busy with one small read at a time), and the same database's chunks
 * paid.
 */

/* What a chunk of a file read sparsely costs, and spares, on its device. */
struct ppf_sparse_cost {
	struct ppf_sparse sp;
	u64 latency;	/* a read, ns: the device's quiet latency */
	u64 seg_ns;	/* transferring a segment, ns */
};

/* Is @f judged chunk by chunk (DOC: Sparse files)?  Then sets *@c. */
static bool ppf_sparse_cost_of(struct ppf_file *f, struct ppf_sparse_cost *c)
{
	dev_t dev;

	if (READ_ONCE(f->mapped) || !ppf_file_sparse(f, &c->sp) ||
	    !ppf_device_rotational(f->sb))
		return false;
	dev = ppf_sb_dev(f->sb);
	c->latency = ppf_device_quiet_latency(dev);
	c->seg_ns = ppf_device_transfer_ns(dev, PPF_SEG_PAGES);
	return c->latency && c->seg_ns;
}

/* Pages the use is expected to ask for in the chunk at @index, x 65536. */
static u64 ppf_sparse_asked(const struct ppf_sparse *sp, pgoff_t index,
			    unsigned long chunk)
{
	pgoff_t seg = index >> PPF_SEG_SHIFT;

	if (seg < PPF_SPARSE_SEGS)
		return (u64)sp->seg_asked[seg] << 16;
	return (u64)sp->ratio * chunk;
}

/* Do the reads the chunk at @index spares cost what reading it does? */
static bool ppf_chunk_pays(const struct ppf_sparse_cost *c, pgoff_t index,
			   unsigned long chunk)
{
	u64 cost = c->latency + div_u64(c->seg_ns * chunk, PPF_SEG_PAGES);

	return ppf_sparse_asked(&c->sp, index, chunk) * c->latency >=
	       cost << 16;
}

/*
 * The next piece of [@start, @end) at or after @from that the expected use
 * touches, at most one chunk: a run of the file's page map (@map 0, DOC:
 * Page maps), or a piece of one segment that @map says was touched and,
 * for a file judged chunk by chunk (@cost not NULL), that pays (DOC:
 * Sparse files).  Sets *@at; returns its pages (0: none left).
 */
static unsigned long ppf_next_wanted(struct ppf_file *f, u64 map,
				     const struct ppf_sparse_cost *cost,
				     pgoff_t from, pgoff_t end, pgoff_t *at)
{
	unsigned long chunk;

	if (!map) {
		chunk = ppf_file_page_run(f, from, PPF_CHUNK_PAGES, at);
		return chunk && *at < end ?
		       min_t(unsigned long, chunk, end - *at) : 0;
	}
	for (; from < end; from += chunk) {
		chunk = min_t(unsigned long, end - from,
			      PPF_SEG_PAGES - (from & (PPF_SEG_PAGES - 1)));
		if (ppf_seg_used(map, from) &&
		    (!cost || ppf_chunk_pays(cost, from, chunk))) {
			*at = from;
			return chunk;
		}
	}
	return 0;
}

/*
 * The next chunk of the pages to read, from *@next on (0, or outside the
 * range: from its start): the next piece the expected use touches
 * (ppf_next_wanted()) that is not all cached.  Returns its size (0: nothing
 * is left) and sets *@first; counts the cached pages it moved over, and in
 * *@cached those of the chunk returned.
 */
static unsigned long ppf_next_chunk(struct address_space *mapping,
				    struct ppf_file *f, pgoff_t start,
				    unsigned long nr, u64 map,
				    const struct ppf_sparse_cost *cost,
				    pgoff_t next, pgoff_t *first,
				    unsigned long *cached)
{
	pgoff_t end = start + nr;
	unsigned long chunk;
	bool whole;

	/*
	 * A page cache holding as many pages as the file has holds every
	 * one of them: a file read whole (most files a program opens) is
	 * known cached in one load, where a walk looked at each folio.  (A
	 * truncation racing the look can only make it skip a prefetch.)
	 */
	whole = READ_ONCE(mapping->nrpages) >=
		DIV_ROUND_UP(i_size_read(mapping->host), PAGE_SIZE);
	if (next > start && next < end)
		start = next;
	while ((chunk = ppf_next_wanted(f, map, cost, start, end, first))) {
		*cached = whole ? chunk :
			  ppf_pages_cached(mapping, *first, chunk);
		if (*cached < chunk)
			return chunk;
		ppf_stat_add(pages_cached, chunk);
		start = *first + chunk;
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

/* @f as the pass holds it decoded for @cred, NULL if it does not. */
static struct dentry *ppf_session_held(const struct ppf_session *ps,
				       const struct ppf_file *f,
				       const struct cred *cred)
{
	const struct ppf_held_file *h;

	for (h = ps->held; h < ps->held + PPF_SESSION_FILES; h++)
		if (h->dentry && h->id == f->id && h->cred == cred)
			return h->dentry;
	return NULL;
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
	u64 start;
	int err;

	dentry = ppf_session_held(ps, f, cred);
	if (dentry)
		return dentry;
	h = &ps->held[ps->next];
	ps->next = (ps->next + 1) % PPF_SESSION_FILES;
	ppf_held_let_go(h);
	h->sb = ppf_sb_pin(f->sb);
	if (!h->sb) {
		*why = PPF_SKIP_UNMOUNTED;
		return NULL;
	}
	ppf_io_class_meta(h->sb);	/* the inode block a task's open needs too */
	ppf_stat_inc(decodes);
	start = local_clock();
	dentry = ppf_fh_decode(h->sb, f->fh, f->fh_len, f->fh_type);
	ppf_stat_add(worker_decode_ns, local_clock() - start);
	ppf_io_class_for(h->sb);
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

/**
 * struct ppf_look - where a look at a file's pages got to
 * @start: the first page of the range to read
 * @end: the page after its last
 * @first: the first page of the chunk to read next
 * @cached: pages of that chunk already cached
 * @map: the segments to read, 0 when from its page map (ppf_wanted_range())
 */
struct ppf_look {
	pgoff_t start;
	pgoff_t end;
	pgoff_t first;
	unsigned long cached;
	u64 map;
};

/*
 * Work out the pages of @f to read (its expected use, up to the end of
 * @inode) and the next chunk of them from @next on that is not all cached
 * (ppf_next_chunk()).  Returns its size, 0 if none is left.  A fresh look
 * (@next 0) that finds none is remembered, with what the range was worked
 * out from and the bucket's removal count, so that the file is known
 * cached (ppf_known_cached()) until one of those moves.
 */
static unsigned long ppf_look_at(struct ppf_file *f, struct inode *inode,
				 pgoff_t next, struct ppf_look *lk)
{
	struct ppf_prefetch_state *st = &f->prefetch;
	struct address_space *mapping = inode->i_mapping;
	unsigned long wanted, nr, chunk, removals, quiet;
	u32 use_gen, max_kb, default_kb;
	struct ppf_sparse_cost cost;

	/* Read before the range: a change meanwhile makes it stale, not lost. */
	use_gen = READ_ONCE(f->use_gen);
	max_kb = READ_ONCE(ppf_config.max_prefetch_kb);
	default_kb = READ_ONCE(ppf_config.default_prefetch_kb);
	wanted = ppf_wanted_range(f, &lk->start, &lk->map);
	nr = ppf_prefetch_range(wanted, lk->start, inode);
	lk->end = lk->start + nr;
	removals = ppf_page_cache_removals_of(mapping, &quiet);
	lk->cached = 0;
	chunk = ppf_next_chunk(mapping, f, lk->start, nr, lk->map,
			       lk->map && ppf_sparse_cost_of(f, &cost) ?
			       &cost : NULL,
			       next, &lk->first, &lk->cached);
	if (!chunk && !next) {
		st->cached_first = lk->start;
		st->cached_span = wanted;
		st->cached_pages = nr;
		st->cached_removals = removals;
		st->cached_quiet = quiet;
		st->cached_use_gen = use_gen;
		st->cached_max_kb = max_kb;
		st->cached_default_kb = default_kb;
	}
	return chunk;
}

/*
 * Is @f all cached, asked of its inode without decoding its handle?  Only
 * if the inode cache holds the inode: a file whose inode is not cached has
 * no page cached either, and its decode cannot be spared.  A decode finds
 * or builds a dentry for the handle and checks the task's permission; this
 * is one hash lookup, and nothing is read, so no permission is needed.  A
 * file read since its last look (a swept file opened since the sweep) is
 * not known cached, and before this half of the worker's decodes on a
 * file search found the file all cached (docs/results.md, "Files judged
 * by their inode").  The file system is pinned for the look only.
 */
static bool ppf_cached_by_inode(struct ppf_file *f)
{
	struct super_block *sb = ppf_sb_pin(f->sb);
	struct ppf_look lk;
	struct inode *inode;
	bool cached = false;

	if (!sb)
		return false;
	inode = ilookup(sb, f->ino);
	if (inode) {
		cached = S_ISREG(inode->i_mode) &&
			 inode->i_generation == f->gen &&
			 !ppf_look_at(f, inode, 0, &lk);
		iput(inode);
	}
	ppf_sb_unpin(sb);
	if (cached)
		ppf_stat_inc(decodes_spared);
	return cached;
}

/*
 * End the collection of @f's decode and lookup's metadata reads; if the
 * lookup found @f (@keep), keep them: they are its open's (DOC: Metadata).
 * A decode and lookup that found @f, read nothing of their own and slept
 * (@slept) waited for someone else's read of its blocks, which its open
 * would have found as well: @f is not looked up again, and if its open
 * then reads them, the open teaches them.  One that did not sleep found
 * them cached, costs next to nothing, and is done again: next time they
 * may not be.
 */
static void ppf_learn_looked_up(struct ppf_file *f, struct super_block *sb,
				bool keep, bool slept)
{
	sector_t sector[PPF_META_BLOCKS];
	unsigned int nr = ppf_meta_collect_end(sb->s_bdev, sector);

	if (!keep)
		return;
	f->lookup_idle = !nr && slept;
	if (!nr)
		return;
	ppf_file_learn_blocks(f, sector, nr);
	ppf_stat_add(meta_learned_lookup, nr);
}

/*
 * Read ahead the next chunk of the file.  Returns whether readahead was
 * started, and if not, sets *@why.  *@next is where the next chunk starts,
 * 0 when nothing is left.
 */
static bool ppf_prefetch_file(struct ppf_session *ps, struct ppf_file *f,
			      const struct cred *cred, u64 seq, bool own,
			      pgoff_t *next, enum ppf_skip_reason *why)
{
	struct ppf_prefetch_state *st = &f->prefetch;
	bool fresh = !*next;
	struct address_space *mapping;
	struct dentry *dentry;
	struct ppf_look lk;
	unsigned long chunk, cached, limit;
	pgoff_t first;
	unsigned long nvcsw = 0;
	bool learn;

	if (fresh && !ppf_session_held(ps, f, cred) && ppf_cached_by_inode(f)) {
		*why = PPF_SKIP_CACHED;
		return false;
	}
	/*
	 * A file with a name and no learnt blocks may need a lookup: what the
	 * decode and the lookup read is what its open would have read, and is
	 * learnt, so that its next prediction reads it ahead without waiting
	 * (DOC: Metadata hook).
	 */
	learn = fresh && f->name && !f->nr_meta &&
		READ_ONCE(ppf_config.metadata);
	if (learn) {
		nvcsw = current->nvcsw;
		ppf_meta_collect_begin();
	}
	dentry = ppf_session_file(ps, f, cred, why);
	if (!dentry) {
		if (learn)
			ppf_meta_collect_end(NULL, NULL);
		return false;
	}
	mapping = d_inode(dentry)->i_mapping;
	ppf_io_class_for(dentry->d_sb);	/* another file's may have changed it */
	if (learn) {
		bool found = false;

		/* Disconnected: no cached path leads to it; its open looks it up. */
		if (dentry->d_flags & DCACHE_DISCONNECTED) {
			if (f->lookup_idle || ppf_dir_covered(f, seq))
				ppf_stat_inc(lookups_spared);
			else
				found = ppf_prefetch_dentry(dentry->d_sb, f,
							    cred, seq);
		}
		ppf_learn_looked_up(f, dentry->d_sb, found,
				    current->nvcsw != nvcsw);
	}
	chunk = ppf_look_at(f, d_inode(dentry), *next, &lk);
	if (!chunk) {
		*next = 0;
		*why = PPF_SKIP_CACHED;
		return false;
	}
	first = lk.first;
	cached = lk.cached;
	st->cached_span = 0;
	ppf_stat_add(pages_cached, cached);
	limit = READ_ONCE(ppf_config.max_inflight_kb) >> (PAGE_SHIFT - 10);
	limit = ppf_device_queue_pages(f->sb, limit);
	if (!ppf_inflight_room(chunk - cached, limit)) {
		*next = first;	/* where to go on when there is room */
		*why = PPF_SKIP_INFLIGHT;
		return false;
	}
	{
		DEFINE_READAHEAD(ractl, NULL, NULL, mapping, first);
		u64 ra_start = local_clock(), ra_ns;

		page_cache_ra_unbounded(&ractl, chunk, 0);
		ra_ns = local_clock() - ra_start;
		ppf_stat_add(worker_readahead_ns, ra_ns);
		ppf_payoff_readahead(ppf_sb_dev(f->sb), ra_ns);
		ppf_device_own_read();
	}
	if (!lk.map)
		ppf_stat_inc(page_map_runs);
	ps->avail -= chunk - cached;
	ppf_stat_add(pages_requested, chunk - cached);
	trace_ppf_prefetch(ppf_sb_dev(f->sb), f->ino, f->id, first, chunk, cached);
	ppf_inflight_add(f->id, first, chunk, chunk - cached, seq, mapping);
	if (fresh) {
		ppf_stat_inc(prefetch_issued);
		if (!own)
			ppf_pending_add(f, seq);
	}
	if (!own && st->pending_seq) {
		st->pending_chunks++;	/* a read spared, if its open comes */
		ppf_pending_read(f, chunk - cached);
	} else {	/* its open has come: a read its task is spared */
		ppf_payoff_useful(ppf_sb_dev(f->sb), 1);
	}
	*next = first + chunk < lk.end ? first + chunk : 0;
	return true;
}

/*
 * Is @f judged chunk by chunk, and does none of its chunks pay (DOC:
 * Sparse files)?  Traced each time it is judged.
 */
static bool ppf_sparse_unpaid(struct ppf_file *f)
{
	struct ppf_sparse_cost c;
	unsigned long wanted, most = 0;
	pgoff_t first, at;
	unsigned int i;
	bool pays;
	u64 map;

	if (!ppf_sparse_cost_of(f, &c))
		return false;
	wanted = ppf_wanted_range(f, &first, &map);
	if (!map)
		return false;
	pays = ppf_next_wanted(f, map, &c, first, first + wanted, &at);
	if (trace_ppf_sparse_enabled()) {
		for (i = 0; i < PPF_SPARSE_SEGS; i++)
			most = max_t(unsigned long, most, c.sp.seg_asked[i]);
		trace_ppf_sparse(ppf_sb_dev(f->sb), f->id, most, c.sp.ratio,
				 c.latency, c.seg_ns, pays);
	}
	return !pays;
}

/**
 * ppf_prefetch_wanted() - is a predicted file worth planning at all?
 * @f: the predicted file
 * @seq: the current event number
 * @why: set to the reason when it is not
 *
 * The checks that need no I/O and no file: prefetched a few events ago and
 * not opened since, its range found all cached with nothing removed from
 * the page cache since, or read so sparsely that no chunk of it pays on
 * its device (DOC: Sparse files).  Counts what it found cached.  The caller holds
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
	if (ppf_sparse_unpaid(f)) {
		*why = PPF_SKIP_SPARSE;
		return false;
	}
	return true;
}

/**
 * ppf_prefetch_begin() - start a pacing pass
 * @ps: the pass's state, filled in
 *
 * The memory available is read once for the whole pass, at its first
 * prefetch (a pass with nothing planned, most of them in a hot cache, does
 * not read it): each chunk started is taken off it, so the pass stops where
 * a test before each chunk would have (MemAvailable below 1/16 of RAM and a
 * chunk), give or take what others allocate meanwhile, which the in-flight
 * limit bounds.  The caller holds ppf_worker_mutex.
 */
void ppf_prefetch_begin(struct ppf_session *ps)
{
	lockdep_assert_held(&ppf_worker_mutex);
	memset(ps->held, 0, sizeof(ps->held));
	ps->next = 0;
	ps->avail_read = false;
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
 * @own: for the file's own open (ppf_plan_own()), not pending a later one
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
		  const struct cred *cred, u64 seq, bool own, pgoff_t *next,
		  enum ppf_skip_reason *why)
{
	u64 start;
	bool started;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!ps->avail_read) {
		ps->avail = ppf_memory_room();
		ps->avail_read = true;
	}
	if (ps->avail < (long)PPF_CHUNK_PAGES) {
		*why = PPF_SKIP_LOWMEM;
		return false;
	}
	start = local_clock();
	started = ppf_prefetch_file(ps, f, cred, seq, own, next, why);
	/* Acting on the device: what a pause would save (payoff.c). */
	ppf_payoff_prefetch(ppf_sb_dev(f->sb), local_clock() - start);
	return started;
}
