// SPDX-License-Identifier: GPL-2.0
/*
 * inflight.c - the ledger of prefetches: what is in flight, what is pending
 *
 * DOC: Readahead in flight
 *
 * Two records of what readahead.c started.  In flight: each chunk, with
 * the pages of it that were not cached, until its read is seen to end
 * (its last folio being read is unlocked) or its file is opened; their
 * sum is what max_inflight_kb bounds.  Pending: each file prefetched, until
 * it is opened (useful, and late if its readahead had not ended) or
 * PPF_WASTE_EVENTS pass without its open (wasted).  Both are rings of
 * fixed size, in event order; a full ring lets its oldest record go.
 *
 * The events are everyone's, and a prediction is a few of its own
 * context's events ahead: where other tasks open files meanwhile (a build
 * beside a program's start-up) 1,024 events pass before a prefetch's open
 * comes, and it was early, not wasted, as long as its pages are still
 * there.  So a prefetch not opened in time whose file's bucket of the page
 * caches has lost nothing since (DOC: Removal hook) is judged again
 * PPF_WASTE_EVENTS later (prefetch_early), up to PPF_WASTE_REARMS times,
 * while the ring is less than half full.
 *
 * The pages read ahead for a pending file are counted with it until it is
 * judged: what prefetching holds in the page cache that no task has asked
 * for yet (pages_pending; some may have been reclaimed since), and, for
 * the prefetches judged wasted, what it read for nothing (pages_wasted).
 * Those pages were never accessed: they sit on the inactive list, the
 * first the kernel reclaims.
 *
 * Everything here runs under ppf_worker_mutex.
 */
#include <linux/mm.h>
#include <linux/pagemap.h>
#include <linux/xarray.h>
#include "ppf.h"

/* A prefetched file not opened within this many events was wasted. */
#define PPF_WASTE_EVENTS	1024
#define PPF_INFLIGHT_RECORDS	256
#define PPF_PENDING_RECORDS	1024
/* Times a prefetch whose pages are still cached is judged again. */
#define PPF_WASTE_REARMS	7

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
	u64 due;
	struct folio *watch;
};

static struct ppf_issue ppf_inflight[PPF_INFLIGHT_RECORDS];
static unsigned int ppf_inflight_head, ppf_inflight_tail;
static unsigned long ppf_inflight_pages;
/* Records retired while counted in flight, ever: the pacing's sign of change. */
static unsigned long ppf_inflight_retires;
static struct ppf_issue ppf_pending[PPF_PENDING_RECORDS];
static unsigned int ppf_pending_head, ppf_pending_tail;
/* The sum of every file's prefetch.pending_pages; read without the lock. */
static unsigned long ppf_pending_pages;

/* Has the readahead recorded in @r finished? */
static bool ppf_issue_done(const struct ppf_issue *r)
{
	return !r->watch || !folio_test_locked(r->watch);
}

/* No longer in flight: not counted, its folio let go. */
static void ppf_issue_retire(struct ppf_issue *r)
{
	if (r->nr)
		ppf_inflight_retires++;
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
 * already, or not allocated).  Looked for from the end of the range back,
 * a folio at a time: the readahead just started allocated the folios it
 * reads, and a chunk ends where its run of wanted pages does, so the
 * first folio looked at is nearly always the one, where a walk from the
 * start looked at every folio of the chunk.  Taken as filemap_get_entry()
 * does: a reference, then a check that the folio is still the one in the
 * mapping.
 */
static struct folio *ppf_watch_folio(struct address_space *mapping,
				     pgoff_t first, unsigned long nr)
{
	XA_STATE(xas, &mapping->i_pages, first);
	struct folio *folio, *found = NULL;
	pgoff_t index = first + nr;

	rcu_read_lock();
	while (index-- > first) {
		xas_set(&xas, index);
repeat:
		folio = xas_load(&xas);
		if (xas_retry(&xas, folio))
			goto repeat;
		if (!folio || xa_is_value(folio))
			continue;
		if (!folio_test_uptodate(folio) && folio_test_locked(folio)) {
			found = folio;
			break;
		}
		if (folio->index <= first)
			break;
		index = folio->index;	/* its other pages are no later */
	}
	if (found) {
		if (!folio_try_get(found)) {
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
 * ppf_inflight_now() - pages of prefetches in flight, the finished let go
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: the pages.
 */
unsigned long ppf_inflight_now(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_inflight_reap();
	return ppf_inflight_pages;
}

/**
 * ppf_prefetch_busy() - is prefetched data still being read?
 *
 * Asked at every event and after every pacing pass, so it looks no further
 * than it must: from the oldest record on, retiring the finished ones it
 * passes, up to the first still being read, which answers.  Records after
 * it that have finished are retired by the next full look (ppf_inflight_now(),
 * or ppf_inflight_room() wanting room); until then they count in flight,
 * which no decision reads without that look.  The caller holds
 * ppf_worker_mutex.
 *
 * Return: true while any readahead started is still in flight.
 */
bool ppf_prefetch_busy(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	for (; ppf_inflight_head != ppf_inflight_tail; ppf_inflight_head++) {
		struct ppf_issue *r =
			&ppf_inflight[ppf_inflight_head % PPF_INFLIGHT_RECORDS];

		if (!r->nr)
			continue;
		if (!ppf_issue_done(r))
			return true;
		ppf_issue_retire(r);
	}
	return false;
}

/**
 * ppf_prefetch_in_flight() - is any readahead started still counted?
 *
 * Unlike ppf_prefetch_busy() retires nothing, so it moves no pacing
 * decision: a chunk whose read has ended still counts until it is
 * retired.  The caller holds ppf_worker_mutex.
 *
 * Return: true while any chunk is counted in flight.
 */
bool ppf_prefetch_in_flight(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return ppf_inflight_pages != 0;
}

/**
 * ppf_prefetch_retired() - how many chunks have left the in-flight count
 *
 * Read, failed, opened, or let go.  The caller holds ppf_worker_mutex.
 *
 * Return: a count that only grows (wrapping), to compare with an earlier one.
 */
unsigned long ppf_prefetch_retired(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return ppf_inflight_retires;
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
	pages = ppf_inflight_now();
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

/**
 * ppf_inflight_room() - may a chunk start without passing a limit?
 * @nr: pages of it not cached
 * @limit: most pages in flight (max_inflight_kb)
 *
 * Retires what has finished first if the chunk would not fit otherwise.
 * A chunk always starts when nothing is in flight, however large.  The
 * caller holds ppf_worker_mutex.
 *
 * Return: true if it may start now.
 */
bool ppf_inflight_room(unsigned long nr, unsigned long limit)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (ppf_inflight_pages + nr > limit)
		ppf_inflight_reap();
	return !ppf_inflight_pages || ppf_inflight_pages + nr <= limit;
}

/**
 * ppf_inflight_add() - record a readahead just started
 * @id: the file's id
 * @first: its first page
 * @span: its pages
 * @nr: of which not cached, so in flight
 * @seq: the event number it was started at
 * @mapping: the file's page cache, where its end is watched
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_inflight_add(u32 id, pgoff_t first, unsigned long span,
		      unsigned long nr, u64 seq, struct address_space *mapping)
{
	struct folio *watch = ppf_watch_folio(mapping, first, span);
	struct ppf_issue *r;

	lockdep_assert_held(&ppf_worker_mutex);
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

/*
 * @f's pending prefetch is judged: its pages are no longer pending, and
 * were read for nothing if it was @wasted.
 */
static void ppf_pending_judged(struct ppf_file *f, bool wasted)
{
	struct ppf_prefetch_state *st = &f->prefetch;

	st->pending_seq = 0;
	if (wasted) {
		ppf_stat_inc(prefetch_wasted);
		ppf_stat_add(pages_wasted, st->pending_pages);
	}
	WRITE_ONCE(ppf_pending_pages, ppf_pending_pages - st->pending_pages);
	st->pending_pages = 0;
}

/* A prefetch whose file has not been opened since is wasted. */
static void ppf_pending_retire(const struct ppf_issue *r)
{
	struct ppf_file *f = ppf_files_find_id(r->id);

	if (f && f->prefetch.pending_seq == r->seq)
		ppf_pending_judged(f, true);
}

/*
 * The prefetch recorded in @r is due at @seq, its file not opened: wasted,
 * unless nothing can have left its page cache since (DOC: Readahead in
 * flight), when it is judged again later.
 */
static void ppf_pending_due(struct ppf_issue r, u64 seq)
{
	struct ppf_file *f = ppf_files_find_id(r.id);
	struct ppf_prefetch_state *st;

	if (!f || f->prefetch.pending_seq != r.seq)
		return;
	st = &f->prefetch;
	if (st->pending_rearms < PPF_WASTE_REARMS &&
	    ppf_pending_tail - ppf_pending_head < PPF_PENDING_RECORDS / 2 &&
	    st->pending_removals == ppf_file_removals(f)) {
		st->pending_rearms++;
		r.due = seq + PPF_WASTE_EVENTS;
		ppf_pending[ppf_pending_tail++ % PPF_PENDING_RECORDS] = r;
		ppf_stat_inc(prefetch_early);
		return;
	}
	ppf_pending_judged(f, true);
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

		if (r->due > seq)
			break;
		/* A copy: judged again, it may go where @r is. */
		ppf_pending_head++;
		ppf_pending_due(*r, seq);
	}
}

/**
 * ppf_pending_add() - record a file's prefetch, not yet followed by an open
 * @f: the file
 * @seq: the event number of its first chunk
 *
 * Its open counts it useful (ppf_prefetch_opened()); PPF_WASTE_EVENTS
 * without one, wasted (ppf_prefetch_reap()).  The caller holds
 * ppf_worker_mutex.
 */
void ppf_pending_add(struct ppf_file *f, u64 seq)
{
	lockdep_assert_held(&ppf_worker_mutex);
	if (ppf_pending_tail - ppf_pending_head == PPF_PENDING_RECORDS)
		ppf_pending_retire(&ppf_pending[ppf_pending_head++ % PPF_PENDING_RECORDS]);
	ppf_pending[ppf_pending_tail++ % PPF_PENDING_RECORDS] =
		(struct ppf_issue){ .id = f->id, .seq = seq,
				    .due = seq + PPF_WASTE_EVENTS };
	f->prefetch.pending_seq = seq;
	f->prefetch.pending_chunks = 0;
	f->prefetch.pending_rearms = 0;
	f->prefetch.pending_removals = ppf_file_removals(f);
}

/**
 * ppf_pending_read() - count pages read ahead for a file's pending prefetch
 * @f: the file, with a prefetch pending (ppf_pending_add())
 * @pages: pages just read ahead for it, not cached before
 *
 * A prefetch made again before the one pending was judged adds to it: the
 * pages of both are judged with the later one.  The caller holds
 * ppf_worker_mutex.
 */
void ppf_pending_read(struct ppf_file *f, unsigned long pages)
{
	lockdep_assert_held(&ppf_worker_mutex);
	f->prefetch.pending_pages += pages;
	WRITE_ONCE(ppf_pending_pages, ppf_pending_pages + pages);
}

/**
 * ppf_prefetch_pending_pages() - pages read ahead for files not opened yet
 *
 * Those of the prefetches not judged yet (DOC: Readahead in flight); a
 * page reclaimed since is still counted.  Read without ppf_worker_mutex.
 *
 * Return: the pages.
 */
unsigned long ppf_prefetch_pending_pages(void)
{
	return READ_ONCE(ppf_pending_pages);
}

/**
 * ppf_prefetch_opened() - a file was opened: was it prefetched for this?
 * @f: the file
 *
 * The caller holds ppf_worker_mutex.
 *
 * Return: whether it was, late: still being read at the open.
 */
bool ppf_prefetch_opened(struct ppf_file *f)
{
	struct ppf_prefetch_state *st = &f->prefetch;
	bool late = false;

	lockdep_assert_held(&ppf_worker_mutex);
	if (st->pending_seq) {
		if (ppf_inflight_demanded(f->id, st->pending_seq)) {
			ppf_stat_inc(prefetch_late);
			ppf_lookahead_late();
			late = true;
		}
		ppf_pending_judged(f, false);
		ppf_stat_inc(prefetch_useful);
		ppf_payoff_useful(ppf_sb_dev(f->sb),
				  max_t(u32, st->pending_chunks, 1));
	}
	return late;
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
		ppf_pending_judged(f, true);
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
	/* Every file was forgotten first (ppf_prefetch_forget_file()). */
	WARN_ON_ONCE(ppf_pending_pages);
	WRITE_ONCE(ppf_pending_pages, 0);
}
