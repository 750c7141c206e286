// SPDX-License-Identifier: GPL-2.0
/*
 * use.c - what a file's uses read, and what its next use is expected to read
 *
 * DOC: Uses of a file
 *
 * A use of a file is what was read between one open of it and the next (an
 * open that reads nothing is not a use): a span of pages, and the 256 KiB
 * segments of it that were touched (ppf_seg_mask()).  The file table keeps,
 * for each file, the use going on, and of the finished ones:
 *
 * - the core: what they agree on (each finished use narrows it to what it
 *   read too; one that read nothing of it makes it start again from that
 *   use: the pattern moved);
 * - the full range: what they read together, back to where the core began
 *   to be read outside often;
 * - past: how often a use reads outside the core, as a moving average that
 *   weighs each older use by 7/8 (out of 256: one use in eight outside
 *   gives about 32).
 *
 * A prediction reads the full range where uses read outside the core often
 * (past, with the latest use counted, at least PPF_PAST_OFTEN), the core
 * otherwise.  A file's uses often differ by role, and the roles come in
 * different proportions: a file search reads each file's first 8 KiB to
 * tell its type and, later in the same run, the whole file (every second
 * use reads outside the core: the full range serves both); a build reads a
 * library's header at every program start, where a program run between two
 * builds reads the whole library once (one use in a hundred outside: the
 * core).  Two uses in a row outside the core are enough to read the full
 * range; one is not.  Reading pages a run does not need costs the device
 * time that the run's own reads then wait for; not reading them costs only
 * the gain.  Measured on andrew-varied-hdd2001 (Andrew's reads, with its
 * files read whole in another order between runs) and glimpse-hdd2001
 * (python3 -m eval.harness run andrew-varied-hdd2001 glimpse-hdd2001).
 *
 * The caller holds the file's lock (file_table.c).
 */
#include <linux/math64.h>
#include <linux/string.h>
#include "ppf.h"

/* A use outside the core adds this to past, out of 256 (7/8 of it stays). */
#define PPF_PAST_STEP	32
/* Past from which the full range is read: two uses in a row outside. */
#define PPF_PAST_OFTEN	48
/* Past below which the full range is forgotten, back to core and use. */
#define PPF_PAST_RARE	8

static inline void ppf_use_clear(struct ppf_use *u)
{
	u->first = 1;
	u->last = 0;
	u->map = 0;
}

/* @u narrowed to what @v read too; false (and @u unchanged) if nothing. */
static bool ppf_use_meet(struct ppf_use *u, const struct ppf_use *v)
{
	pgoff_t first = max(u->first, v->first), last = min(u->last, v->last);
	u64 map = u->map & v->map & ppf_seg_mask(first, last);

	if (first > last || !map)
		return false;
	u->first = first;
	u->last = last;
	u->map = map;
	return true;
}

/* The pages of @u's span in the segments it touched. */
static unsigned long ppf_use_pages(const struct ppf_use *u)
{
	u64 map = u->map & ppf_seg_mask(u->first, u->last);
	unsigned long pages = 0;

	while (map) {
		unsigned int seg = __ffs64(map);
		pgoff_t first = (pgoff_t)seg << PPF_SEG_SHIFT;
		pgoff_t last = seg == PPF_SEG_LAST ? u->last :
			       first + PPF_SEG_PAGES - 1;

		pages += min(last, u->last) - max(first, u->first) + 1;
		map &= map - 1;
	}
	return pages;
}

/* Note how much of what the use going on spans it asked for. */
static void ppf_uses_note_sparse(struct ppf_uses *u)
{
	unsigned long pages = ppf_use_pages(&u->cur);

	if (u->asked >= pages) {
		u->sparse.ratio = 0;
		return;
	}
	u->sparse.ratio = max_t(u64, div64_u64((u64)u->asked << 16, pages), 1);
	memcpy(u->sparse.seg_asked, u->seg_asked, sizeof(u->seg_asked));
}

/* Nothing asked for yet in the use going on. */
static void ppf_uses_clear_asked(struct ppf_uses *u)
{
	u->asked = 0;
	memset(u->seg_asked, 0, sizeof(u->seg_asked));
}

/**
 * ppf_uses_count() - the task asked for pages, in the use going on
 * @u: a file's uses
 * @first: first page
 * @last: last page
 *
 * Counted in all, and in each of the first PPF_SPARSE_SEGS segments
 * (DOC: Sparse files).
 */
void ppf_uses_count(struct ppf_uses *u, pgoff_t first, pgoff_t last)
{
	pgoff_t end = min_t(pgoff_t, last + 1,
			    (pgoff_t)PPF_SPARSE_SEGS << PPF_SEG_SHIFT);

	u->asked = min_t(u64, (u64)u->asked + (last - first + 1), U32_MAX);
	while (first < end) {
		unsigned int seg = first >> PPF_SEG_SHIFT;
		pgoff_t next = min_t(pgoff_t, end,
				     (pgoff_t)(seg + 1) << PPF_SEG_SHIFT);

		u->seg_asked[seg] = min_t(unsigned long,
					  u->seg_asked[seg] + (next - first),
					  U8_MAX);
		first = next;
	}
}

/* Did @v read anything outside @u? */
static bool ppf_use_outside(const struct ppf_use *u, const struct ppf_use *v)
{
	return v->first < u->first || v->last > u->last || (v->map & ~u->map);
}

/**
 * ppf_uses_init() - no use seen
 * @u: a file's uses
 */
void ppf_uses_init(struct ppf_uses *u)
{
	ppf_use_clear(&u->cur);
	ppf_use_clear(&u->core);
	ppf_use_clear(&u->full);
	ppf_uses_clear_asked(u);
	u->sparse.ratio = 0;
	u->past = 0;
}

/* Fold the use going on into the finished ones. */
static void ppf_uses_fold(struct ppf_uses *u)
{
	const struct ppf_use *v = &u->cur;
	bool outside;

	if (!ppf_use_known(v))
		return;
	if (!ppf_use_known(&u->core)) {
		u->core = *v;
		u->full = *v;
		u->past = 0;
		return;
	}
	outside = ppf_use_outside(&u->core, v);
	u->past = u->past - u->past / 8 + (outside ? PPF_PAST_STEP : 0);
	if (!ppf_use_meet(&u->core, v)) {
		u->core = *v;
		u->full = *v;
		return;
	}
	if (u->past < PPF_PAST_RARE)
		u->full = u->core;
	ppf_use_join(&u->full, v);
}

/**
 * ppf_uses_open() - the file was opened: the use going on is finished
 * @u: a file's uses
 */
void ppf_uses_open(struct ppf_uses *u)
{
	/* Here, not in ppf_uses_fold(): ppf_uses_expected() folds a copy. */
	if (ppf_use_known(&u->cur))
		ppf_uses_note_sparse(u);
	ppf_uses_fold(u);
	ppf_use_clear(&u->cur);
	ppf_uses_clear_asked(u);
}

/**
 * ppf_uses_expected() - what the file's next use is expected to read
 * @u: a file's uses
 * @out: set to it
 *
 * The use going on counts as finished (it usually is: the file was read
 * and is predicted to be opened again).  See DOC: Uses of a file.
 *
 * Return: false if no read of the file has been seen.
 */
bool ppf_uses_expected(const struct ppf_uses *u, struct ppf_use *out)
{
	struct ppf_uses all = *u;

	ppf_uses_fold(&all);
	if (!ppf_use_known(&all.core))
		return false;
	*out = all.past >= PPF_PAST_OFTEN ? all.full : all.core;
	return true;
}

/**
 * ppf_uses_sparse() - how a file read sparsely is expected to be read
 * @u: a file's uses
 * @out: set to the pages its latest finished use asked for, in all and in
 *	each of the first segments
 *
 * See DOC: Sparse files.
 *
 * Return: false if that use asked for every page it spanned, or no use
 * has finished.
 */
bool ppf_uses_sparse(const struct ppf_uses *u, struct ppf_sparse *out)
{
	if (!u->sparse.ratio)
		return false;
	*out = u->sparse;
	return true;
}

/**
 * ppf_uses_restore() - start from a use saved before
 * @u: a file's uses, none seen
 * @use: what its next use was expected to read when it was saved
 */
void ppf_uses_restore(struct ppf_uses *u, const struct ppf_use *use)
{
	if (!ppf_use_known(use))
		return;
	u->core = *use;
	u->full = *use;
	u->sparse.ratio = 0;
	u->past = 0;
}
