// SPDX-License-Identifier: GPL-2.0
/*
 * page_map.c - the pages of a mapped file its uses asked for, page by page
 *
 * DOC: Page maps
 *
 * A use's span and 256 KiB segments (DOC: Uses of a file) describe a file
 * that is read: a read(2) asks for a run of pages, and the next use asks for
 * about the same run.  They do not describe a mapped library or program.
 * Its text is faulted in a page at a time, scattered over the whole file: a
 * link with GNU ld faults 2,408 pages (9.4 MB) of the 105 MB libLLVM, in
 * 258 of its 420 segments.  Read by segment, that is 64.5 MB; read by
 * 16-page window (what fault-around maps), 36 MB; the cold run itself
 * brings in 54 MB by read-around.  The segments are also no use past the
 * first 15.75 MiB, and the prefetch of a span is capped at max_prefetch_kb.
 * So ppf learned a few per cent of a large library, and its faults waited
 * for the disk as if nothing had been predicted.
 *
 * A file that was faulted (a use of it went through a mapping), of more
 * than PPF_PAGE_MAP_GAP pages, gets a page map at its next open, however
 * small: a start-up maps dozens of libraries of 100-500 KB and faults a
 * few pages of each.  A map has a bit per page, two bitmaps, the use
 * going on and the union of the finished ones.  The read hook sets the
 * bits of each page a task faulted or read (mm_filemap_fault,
 * mm_filemap_get_pages).  The open hook folds the use going on into the
 * finished ones.
 *
 * Fault-around's window (mm_filemap_map_pages reports it whole, used or
 * not: for the link above, 36 MB against 9.4) is set whole in the map of a
 * file on a rotational device (ppf_device_rotational(), asked when the map
 * is made or loaded and at each open of its file the worker handles, so
 * that a change of the device's flag or of the sysctl reaches every map at
 * its file's next open), and not elsewhere.  A fault maps the pages cached
 * around it without their faulting, so the faults are only part of what a
 * use touches: 3,153 of the 12,087 pages Andrew's real run touched in its
 * mapped files, 635 of a Python start-up's 3,973; every touched page is a
 * faulted one or in a fault's window (the evaluation's realcheck
 * --fault-around-bytes 4096).  Reading back the faulted pages alone also
 * takes away the read-around their faults brought, so the rest fault one
 * by one, each a positioning of the arm on a disk: there EPCM closed 5.6 %
 * of Andrew's cold-to-hot gap and 15.5 % of the start-up's; learning the
 * windows, 31.7 % and 42.3 % (the oracle 40.3 % and 41.3 %).  A window's
 * other pages cost less than the positioning a touch of one of them would
 * (its 15 other pages are 6.1 ms at the paper's 10 MB/s, a seek 8.8 ms and
 * half a rotation 4.2 ms).  Elsewhere a missed page costs one request and
 * a window's other pages their transfer and the CPU to add and map them:
 * on ssd (100 us a request, 60 KiB 129 us) windows took Andrew from 35.9 %
 * to 23.8 % and the start-up from 42.0 % to 53.6 %; on nvme and a
 * networked volume, where the request costs more than the transfer, both
 * gained.  The device's rotational flag is what is known for certain when
 * a map is made, so the default takes every window there alone, and the
 * windows of misses (below) on any other device; the sysctl
 * page_map_windows overrides it.
 *
 * Between the two, page_map_windows misses sets a window whole only where
 * the fault that follows it lands inside it (ppf_page_map_miss()): the
 * window could not map that page, not cached, so read-around is about to
 * bring in its neighbours, and a later touch of one of them will find it
 * mapped without a fault of its own.  Those neighbours are what the
 * faulted pages alone leave out: with them alone, Andrew's cc1 on ssd
 * lacked 788 of the 3,612 pages its measured run touched, 744 of them in
 * a window with a page the map had, and its first exec waited for 183
 * reads of its own after ppf's were done; learning misses, 24 and 6.  A
 * touch that fault-around serves (its page was cached) teaches no window,
 * so a map that ppf, or read-around, keeps cached ahead of its touches
 * stops growing, where one that learns every window grows by each
 * window a touch lands in.  Off a rotational device misses are the
 * default: of the windows, they keep those a page of which the next run
 * would otherwise fault alone, a request each, and leave out the ones
 * fault-around served from the cache, which on flash cost their transfer
 * and CPU for nothing (docs/results.md, "Windows where a fault missed").
 *
 * In a map that does not learn windows, a task that scans a mapping
 * forward (a program touched whole, a mapped data file read through)
 * faults at far fewer pages than it uses: the read-around of one fault
 * and the asynchronous readahead it marks bring in the pages after it,
 * fault-around maps them, and the next fault is at the readahead mark or
 * at the first page still being read: a few faults in each 32 pages.
 * Learnt page by page, such a use is a comb of short runs about 15 pages
 * apart, and reading the comb back splits the
 * task's own sequential readahead at every tooth into requests that no
 * longer follow each other (configure-hdd2001's cc1, 33 MB: 632 requests
 * of 12 KiB ahead of the task, its exec 5.0 s against 3.3 s without
 * prefetching).  And once ppf reads part of such a file, the task's
 * faults there stop: a page cached is mapped by fault-around without one.
 * What does not stop is fault-around itself: every touch of a page not
 * mapped yet either faults or is mapped by a window around it, so a scan
 * is a run of touches each beginning where the one before ended.  A
 * touch (a fault, or fault-around's window) that begins at most
 * PPF_PAGE_MAP_GAP pages past where the file's last stream of touches
 * ended, and takes it further, continues it; one inside it leaves it as
 * it is; any other begins a new one (an open does not end a stream: the
 * worker sees an open after its task began to touch the file, and a new
 * use begins behind where the last one ended anyway).  Once a stream has
 * been taken further PPF_STREAM_MIN times, every page it went over is
 * set, and so is each touch that takes it further.  A program's own faults
 * in its text and data rarely land next to the last one's window, and
 * never eight times in a row: in the real programs' faults the evaluation
 * replays (the faults.gz files of andrew, pbuild, gnuld, mixed and
 * pystart in eval/workloads, in first-fault order), runs of even four
 * faults each in the 16-page window after the one before add no page.
 * Faults that jump about set their own pages alone.
 *
 * The union only grows.  A use sees only part of what it touches: a page
 * that was cached (prefetched, or brought in by another fault's
 * read-around) is mapped by fault-around without a fault.  So a page
 * missing from one use says nothing, and a page used but never faulted so
 * far faults, and is learnt, at the first use that finds it not cached.
 * A mapped file's used pages (a program's or library's text and data for
 * what its programs do) change when the file does, and a changed file is
 * a new inode, a new entry and a new map.
 *
 * A prediction of the file, and its own open (worker.c), read the pages
 * set in either bitmap, in runs of consecutive pages merged
 * across gaps of at most PPF_PAGE_MAP_GAP pages (a gap that small costs
 * less to read than a request of its own costs to issue: 32 KiB is 3 ms at
 * the paper's 10 MB/s against a 4 ms half-rotation, and 60 us at 500 MB/s
 * against a flash command's 50-100 us), with no cap but the memory and the
 * in-flight limit readahead.c applies to every prefetch.  Until a whole
 * use was seen with the map in place (the map comes at the worker's
 * handling of an open, after its task began to read), the segments serve.
 * But a use that asked for at most PPF_EARLY_PAGES pages before its file
 * had a map (most of a start-up's libraries: pystart faults 3 of libwebp's
 * 111 pages) is kept whole and seeds the map (ppf_page_map_seed()): a
 * small library is read whole by its segments, so its pages are cached
 * before it is faulted again, and no later use would teach the map.
 *
 * Memory: one bit per page up to PPF_PAGE_MAP_BITS bits per bitmap (4 KiB,
 * a 128 MiB file); a larger file gets a bit per 2, 4, ... pages, so that a
 * bitmap never passes 4 KiB: the merging when the bound is hit is that a
 * bit stands for more pages.  All the maps together are bounded by
 * PPF_PAGE_MAPS_BYTES; a file that would pass it keeps its segments.
 *
 * Only the worker allocates and frees a map (under ppf_worker_mutex); the
 * hooks and the worker read and write its bits under the file's lock.
 */
#include <linux/bitmap.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include "ppf.h"

/* Bits in each of a map's two bitmaps, at most: 4 KiB each. */
#define PPF_PAGE_MAP_BITS	(4096 * BITS_PER_BYTE)
/*
 * Touches of a stream, after its first, that take it further before it
 * counts as one: a program's own faults in its text and data seldom make
 * so many in a row (DOC: Page maps).
 */
#define PPF_STREAM_MIN	8
/* All the maps' memory together, at most. */
#define PPF_PAGE_MAPS_BYTES	(16UL << 20)

/**
 * struct ppf_page_map - the pages a mapped file's uses asked for
 * @shift: each bit stands for 2^@shift pages
 * @nbits: bits in each bitmap
 * @partial: the use going on began before the map was there
 * @whole: a whole use was seen with the map in place
 * @learn: what is learnt of a fault, a PPF_MAP_* value (by default
 *	fault-around's windows on a rotational device, the faulted pages
 *	elsewhere), chosen again at each open of the file
 * @around: @around_start and @around_end hold the last touch, a
 *	fault-around window, if nothing else was learnt since
 * @around_start: its first bit
 * @around_end: its last bit
 * @streaming: @stream_start and @stream_hi hold a stream
 * @stream_start: the bit of the first touch of the file's current stream
 * @stream_hi: the last bit its touches reached
 * @stream_len: touches in that stream after its first that took it
 *	further, counted up to PPF_STREAM_MIN + 1
 * @cur: the use going on
 * @done: the union of the finished uses
 * @bits: the storage of @cur and @done
 */
struct ppf_page_map {
	unsigned int shift;
	unsigned long nbits;
	bool partial;
	bool whole;
	u8 learn;
	bool around;
	bool streaming;
	unsigned long stream_start;
	unsigned long stream_hi;
	unsigned int stream_len;
	unsigned long around_start;
	unsigned long around_end;
	unsigned long *cur;
	unsigned long *done;
	unsigned long bits[];
};

static atomic_long_t ppf_page_maps_bytes = ATOMIC_LONG_INIT(0);

static size_t ppf_page_map_size(unsigned long nbits)
{
	return sizeof(struct ppf_page_map) +
	       2 * BITS_TO_LONGS(nbits) * sizeof(unsigned long);
}

/*
 * An empty map of @nbits bits, each for 2^@shift pages, its use going on
 * begun before it; NULL past the maps' bound or short of memory.
 */
static struct ppf_page_map *ppf_page_map_new(unsigned long nbits,
					     unsigned int shift,
					     enum ppf_map_learn learn)
{
	size_t size = ppf_page_map_size(nbits);
	struct ppf_page_map *m;

	lockdep_assert_held(&ppf_worker_mutex);
	if (atomic_long_add_return(size, &ppf_page_maps_bytes) >
	    PPF_PAGE_MAPS_BYTES) {
		atomic_long_sub(size, &ppf_page_maps_bytes);
		return NULL;
	}
	m = kvzalloc(size, GFP_KERNEL | __GFP_NOWARN);
	if (!m) {
		atomic_long_sub(size, &ppf_page_maps_bytes);
		return NULL;
	}
	m->shift = shift;
	m->nbits = nbits;
	m->learn = learn;
	m->partial = true;
	m->cur = m->bits;
	m->done = m->bits + BITS_TO_LONGS(nbits);
	ppf_stat_inc(page_maps);
	return m;
}

/**
 * ppf_page_map_alloc() - a page map for a file, none of its pages seen
 * @pages: the file's size in pages
 * @learn: what to learn of a fault (DOC: Page maps)
 *
 * A bit a page, or for as many pages as keep the bitmap within
 * PPF_PAGE_MAP_BITS.  The caller holds ppf_worker_mutex.
 *
 * Return: the map, or NULL if the file is empty, all the maps together
 * would pass their bound, or memory is short.
 */
struct ppf_page_map *ppf_page_map_alloc(pgoff_t pages,
					enum ppf_map_learn learn)
{
	unsigned int shift = 0;

	if (!pages)
		return NULL;
	while ((pages - 1) >> shift >= PPF_PAGE_MAP_BITS)
		shift++;
	return ppf_page_map_new(((pages - 1) >> shift) + 1, shift, learn);
}

/**
 * ppf_page_map_free() - free a page map
 * @m: the map, which nothing reads any more (or NULL)
 */
void ppf_page_map_free(struct ppf_page_map *m)
{
	if (!m)
		return;
	atomic_long_sub(ppf_page_map_size(m->nbits), &ppf_page_maps_bytes);
	kvfree(m);
}

/**
 * ppf_page_maps_bytes_used() - the memory all page maps take
 *
 * Return: bytes.
 */
unsigned long ppf_page_maps_bytes_used(void)
{
	return atomic_long_read(&ppf_page_maps_bytes);
}

/*
 * A touch of bits [@a, @b] (a fault, or fault-around's window): where it
 * leaves the file's stream of touches, and from which bit the stream's
 * pages are to be set up to @b; @b + 1 if none are (DOC: Page maps).
 */
static unsigned long ppf_page_map_stream(struct ppf_page_map *m,
					 unsigned long a, unsigned long b)
{
	unsigned long gap = max_t(unsigned long, PPF_PAGE_MAP_GAP >> m->shift, 1);
	unsigned long hi = m->stream_hi;

	if (m->streaming && a >= m->stream_start && b <= hi)
		return b + 1;		/* within it: a touch it has seen */
	if (!m->streaming || a < m->stream_start || a > hi + 1 + gap) {
		m->streaming = true;	/* elsewhere: a new one begins */
		m->stream_start = a;
		m->stream_hi = b;
		m->stream_len = 0;
		return b + 1;
	}
	m->stream_hi = b;		/* on from where it ended */
	if (m->stream_len <= PPF_STREAM_MIN)
		m->stream_len++;
	if (m->stream_len < PPF_STREAM_MIN)
		return b + 1;
	return m->stream_len == PPF_STREAM_MIN ? m->stream_start : hi + 1;
}

/*
 * A touch of bits [@a, @b] in a map that learns misses: a fault at a page
 * of the fault-around window just before it means the window could not
 * map it (not cached), and the window is set whole; a window is kept
 * until the next touch (DOC: Page maps).
 */
static void ppf_page_map_miss(struct ppf_page_map *m, unsigned long a,
			      unsigned long b, enum ppf_read_kind kind)
{
	if (kind == PPF_READ_FAULT && m->around &&
	    a >= m->around_start && a <= m->around_end) {
		bitmap_set(m->cur, m->around_start,
			   m->around_end - m->around_start + 1);
		ppf_stat_inc(page_map_windows);
	}
	m->around = kind == PPF_READ_AROUND;
	m->around_start = a;
	m->around_end = b;
}

/**
 * ppf_page_map_read() - pages of the file were used in the use going on
 * @m: the map
 * @first: first page
 * @last: last page
 * @kind: how: asked for, faulted, or mapped around a fault
 *
 * The pages asked for and faulted are set.  Fault-around's window is set
 * whole in a map that learns windows, and in one that learns misses where
 * a fault inside it follows it (the window found that page not cached); in
 * any other, only where it takes a long enough stream of touches further,
 * which sets every page the stream went over (DOC: Page maps).  The caller
 * holds the file's lock.
 */
void ppf_page_map_read(struct ppf_page_map *m, pgoff_t first, pgoff_t last,
		       enum ppf_read_kind kind)
{
	unsigned long a = first >> m->shift, b = last >> m->shift, from;
	bool windows = m->learn == PPF_MAP_WINDOWS;

	if (a >= m->nbits)
		return;
	b = min(b, m->nbits - 1);
	if (m->learn == PPF_MAP_MISSES)
		ppf_page_map_miss(m, a, b, kind);
	if (kind != PPF_READ_AROUND || windows)
		bitmap_set(m->cur, a, b - a + 1);
	if (kind == PPF_READ_AROUND && windows)
		ppf_stat_inc(page_map_windows);
	if (kind == PPF_READ_ASKED || windows)
		return;
	from = ppf_page_map_stream(m, a, b);
	if (from <= b)
		bitmap_set(m->cur, from, b - from + 1);
}

/**
 * ppf_page_map_set_learn() - what a map learns of a fault from here on
 * @m: the map
 * @learn: a PPF_MAP_* value (DOC: Page maps)
 *
 * What the map learnt stays; the use going on and the next ones are learnt
 * the new way.  A stream of touches seen the other way is dropped: a map
 * that learns windows keeps none, and one that does not yet must see a
 * stream's touches itself.  The caller holds the file's lock.
 *
 * Return: whether the choice changed.
 */
bool ppf_page_map_set_learn(struct ppf_page_map *m, enum ppf_map_learn learn)
{
	if (m->learn == learn)
		return false;
	m->learn = learn;
	m->streaming = false;
	m->around = false;
	return true;
}

/**
 * ppf_page_map_seed() - a new map learns the pages asked for before it was made
 * @m: the map, just made
 * @pages: pages a finished use (and perhaps the one going on) asked for
 * @nr: how many
 * @whole: they are all that use asked for
 *
 * A map is made at the open after a file was first faulted, and a small
 * library is read whole by its segments from then on: its pages are
 * cached before it is faulted again, so no fault would teach the map, and
 * it would never be read by it.  The first pages asked for, kept while the
 * file had no map (ppf_file_apply_read()), are that use: when they are all
 * of it the map knows a whole use at once.  The caller holds the file's
 * lock.
 */
void ppf_page_map_seed(struct ppf_page_map *m, const u32 *pages,
		       unsigned int nr, bool whole)
{
	unsigned long bit;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		bit = pages[i] >> m->shift;
		if (bit < m->nbits)
			__set_bit(bit, m->done);
	}
	if (whole && !bitmap_empty(m->done, m->nbits))
		m->whole = true;
}

/**
 * ppf_page_map_open() - the file was opened: the use going on is finished
 * @m: the map
 *
 * An open that asked for no page is not a use (but the next use is seen
 * whole).  The caller holds the file's lock.
 */
void ppf_page_map_open(struct ppf_page_map *m)
{
	if (!bitmap_empty(m->cur, m->nbits)) {
		if (!m->partial)
			m->whole = true;
		bitmap_or(m->done, m->done, m->cur, m->nbits);
		bitmap_zero(m->cur, m->nbits);
	}
	m->partial = false;
}

/*
 * Is the map worth reading from: has it seen a whole use, counting the
 * one going on (a file is predicted when its last use is likely over)?
 */
static bool ppf_page_map_known(const struct ppf_page_map *m)
{
	return m->whole ||
	       (!m->partial && !bitmap_empty(m->cur, m->nbits));
}

/* The first bit at or after @bit set in either bitmap (nbits: none). */
static unsigned long ppf_page_map_next_bit(const struct ppf_page_map *m,
					   unsigned long bit)
{
	return min(find_next_bit(m->cur, m->nbits, bit),
		   find_next_bit(m->done, m->nbits, bit));
}

/* The last bit set in either bitmap (nbits: none). */
static unsigned long ppf_page_map_last_bit(const struct ppf_page_map *m)
{
	unsigned long a = find_last_bit(m->cur, m->nbits);
	unsigned long b = find_last_bit(m->done, m->nbits);

	if (a == m->nbits)
		return b;
	if (b == m->nbits)
		return a;
	return max(a, b);
}

/**
 * ppf_page_map_span() - the pages the file's next use is expected to ask for
 * @m: the map
 * @first: set to the first of them
 * @last: set to the last of them
 *
 * The caller holds the file's lock.
 *
 * Return: false if the map has not seen a whole use (the segments serve).
 */
bool ppf_page_map_span(const struct ppf_page_map *m, pgoff_t *first,
		       pgoff_t *last)
{
	unsigned long a, b;

	if (!ppf_page_map_known(m))
		return false;
	a = ppf_page_map_next_bit(m, 0);
	b = ppf_page_map_last_bit(m);
	if (a >= m->nbits || b >= m->nbits)
		return false;
	*first = (pgoff_t)a << m->shift;
	*last = (((pgoff_t)b + 1) << m->shift) - 1;
	return true;
}

/**
 * ppf_page_map_run() - the next run of pages to read
 * @m: the map
 * @from: the first page to look at
 * @max: the most pages the run may have
 * @first: set to the run's first page
 *
 * Pages the next use is expected to ask for, at or after @from, with the
 * gaps of at most PPF_PAGE_MAP_GAP pages between them.  The caller holds
 * the file's lock.
 *
 * Return: the run's pages (0: none left).
 */
unsigned long ppf_page_map_run(const struct ppf_page_map *m, pgoff_t from,
			       unsigned long max, pgoff_t *first)
{
	unsigned long bit = from >> m->shift, end, next;
	unsigned long gap = max_t(unsigned long, PPF_PAGE_MAP_GAP >> m->shift, 1);
	unsigned long most = max_t(unsigned long, max >> m->shift, 1);

	if (!ppf_page_map_known(m) || bit >= m->nbits)
		return 0;
	bit = ppf_page_map_next_bit(m, bit);
	if (bit >= m->nbits)
		return 0;
	end = bit + 1;		/* the run is [bit, end) in bits */
	while (end - bit < most && end < m->nbits) {
		if (test_bit(end, m->cur) || test_bit(end, m->done)) {
			end++;
			continue;
		}
		next = ppf_page_map_next_bit(m, end);
		if (next >= m->nbits || next - end > gap ||
		    next + 1 - bit > most)
			break;
		end = next + 1;
	}
	*first = max_t(pgoff_t, (pgoff_t)bit << m->shift, from);
	return min_t(unsigned long, ((pgoff_t)end << m->shift) - *first, max);
}

/**
 * ppf_page_map_save_bytes() - the size of a page map's saved bitmap
 * @m: the map
 *
 * Return: bytes (DOC: Saved state).
 */
unsigned int ppf_page_map_save_bytes(const struct ppf_page_map *m)
{
	return BITS_TO_BYTES(m->nbits);
}

/**
 * ppf_page_map_save() - the pages a map knows, as a saved bitmap
 * @m: the map
 * @out: ppf_page_map_save_bytes() bytes, bit 0 of byte 0 first
 *
 * All zero if the map has not seen a whole use: a loaded map then knows
 * nothing either.  The caller holds the file's lock.
 *
 * Return: how many pages each bit stands for, as a power of two.
 */
unsigned int ppf_page_map_save(const struct ppf_page_map *m, u8 *out)
{
	unsigned long bit;

	memset(out, 0, BITS_TO_BYTES(m->nbits));
	if (!ppf_page_map_known(m))
		return m->shift;
	for_each_set_bit(bit, m->done, m->nbits)
		out[bit / 8] |= BIT(bit % 8);
	for_each_set_bit(bit, m->cur, m->nbits)
		out[bit / 8] |= BIT(bit % 8);
	return m->shift;
}

/**
 * ppf_page_map_load() - a page map from a saved bitmap
 * @bits: the bitmap, bit 0 of byte 0 first
 * @len: its bytes, at most PPF_PAGE_MAP_BITS / 8
 * @shift: how many pages each bit stands for, as a power of two
 * @learn: what to learn of a fault (DOC: Page maps)
 *
 * The map knows a whole use: the saved one.  The caller holds
 * ppf_worker_mutex.
 *
 * Return: the map, or NULL if it is too large, past the maps' bound, or
 * memory is short.
 */
struct ppf_page_map *ppf_page_map_load(const u8 *bits, unsigned int len,
				       unsigned int shift,
				       enum ppf_map_learn learn)
{
	unsigned long nbits = (unsigned long)len * BITS_PER_BYTE, bit;
	struct ppf_page_map *m;

	if (!len || nbits > PPF_PAGE_MAP_BITS)
		return NULL;
	m = ppf_page_map_new(nbits, shift, learn);
	if (!m)
		return NULL;
	for (bit = 0; bit < nbits; bit++)
		if (bits[bit / 8] & BIT(bit % 8))
			__set_bit(bit, m->done);
	m->partial = false;
	m->whole = !bitmap_empty(m->done, m->nbits);
	return m;
}
