// SPDX-License-Identifier: GPL-2.0
/*
 * sweep.c - a directory's files read together, in inode order
 *
 * DOC: Sweeps
 *
 * On a disk with an arm most of a cold run's device time is positioning,
 * not transfer: the files a search or a build reads are small, and it reads
 * them in the order its directory listing gives (a hash order on ext4),
 * not in the order they lie on the disk.  Each prediction is read when it
 * is due, so a window of predictions holds few neighbours on the disk, and
 * the elevator has little to sort and nothing to merge.  A horizon as wide
 * as a directory does: a program that reads a directory's files reads most
 * of them within a few hundred opens of each other, and reads the same
 * ones again the next time.
 *
 * So the files of each directory are kept together (a list per directory,
 * found by its inode number), and the opens of a directory's files are
 * grouped into runs and visits:
 *
 * - an open more than PPF_VISIT_GAP events after the directory's latest
 *   one begins a new run, and a new visit;
 * - an open of a file the visit has opened already, once the visit has
 *   opened at least 3/4 of the directory's files in the list, begins a new
 *   visit, a round, in the same run: a pass through the directory is over
 *   and the program begins another.
 *
 * Each file keeps the two latest visits and the two latest runs it was
 * opened in.  At the first open or prediction of one of its files in a
 * visit (and at later ones while some are left), the files opened in both
 * of the directory's two runs before it, for a visit that begins a run,
 * or in both of its two visits before it, for a round, and not opened in
 * this visit yet, are read ahead at once, in inode order (on ext4 and most
 * file systems the order their data was allocated in, so the order on the
 * disk for files written together), up to PPF_SWEEP_FILES at a time and
 * while the in-flight limit and memory allow (ppf_plan_sweep()).  The
 * readahead of each is what its prediction would read (its expected use,
 * or page map), and counts as a prefetch that its open makes useful or its
 * absence wasted, as any other.
 *
 * With isolation (domain.c) nothing is swept: a directory's visits are
 * every task's, and a sweep at one user's open would read ahead what
 * another user opened, the leak isolation closes.
 *
 * Two in a row, not one: a directory whose files different programs read
 * in turn (a library directory, a header directory) sweeps only what they
 * share.  A sweep needs no prediction, so it also serves an order the
 * model cannot predict (a random order of the same files), and its cost is
 * one list walk per visit.
 *
 * Rounds are for a program run back to back, with fewer opens between its
 * runs than the gap: without them its directory was one visit that never
 * ended, and was never swept (the random order of random-hdd2001, 187 opens
 * a run in one directory).  Runs are for the start of a workload: the
 * programs of a build or a test suite each open most of a small directory
 * (a compiler's, a header directory), so its rounds are one program each,
 * and a sweep at a round reads what the last two programs shared; at the
 * start of a run it reads what the last two runs shared.  With rounds
 * alone, Andrew's reads on the paper's disk lost its sweep of 43 files of
 * one directory at the run's start (sweeps of 20 and 15 came later), and
 * closed 42.0 % of the gap against 47.9 %.  A visit that has opened few of
 * a directory's files goes on past a repeat: a library directory's
 * programs each open a few of its libraries.
 *
 * A directory whose visit before opened its files in inode order (at
 * least PPF_ORDER_STEPS files after its first, all but 1/PPF_ORDER_SHARE
 * of them numbered above the file opened before) is not swept
 * (sweeps_in_order): its task's reads already go one way across the disk,
 * in the order a sweep would read them, and a sweep only queues ahead of
 * them what they are about to read, which they then wait behind.  md5sum
 * -c over installed packages' checksum lists opens 96 % of its files at a
 * higher inode than the file before (Glimpse, Andrew and git 33-50 %);
 * swept, pkgverify-hdd2001 was 1.3 % slower than no prefetching, and
 * 0.3 % faster with its in-order visits not swept (docs/results.md).
 *
 * Everything here runs in the worker under ppf_worker_mutex.
 */
#include <linux/hash.h>
#include <linux/minmax.h>
#include <linux/slab.h>
#include <linux/string.h>
#include "ppf.h"
#include "ppf_trace.h"

#define PPF_DIR_HASH_BITS	10
/* Opens of a directory's files this many events apart begin a new run. */
#define PPF_VISIT_GAP		256
/* Most files one sweep reads; the rest wait for the next open or prediction. */
#define PPF_SWEEP_FILES		256
/* A sweep's files sorted by insertion this many at a time, then merged. */
#define PPF_SORT_RUN		16
/* A visit read in inode order: this many files after its first at least, */
#define PPF_ORDER_STEPS		4
/* and at most 1/this of them numbered below the file opened before. */
#define PPF_ORDER_SHARE		8

/**
 * struct ppf_dir - a directory the files of the table were opened in
 * @node: in ppf_dirs
 * @sb: its file system (each of @files holds a reference)
 * @ino: its inode number
 * @files: the files of the table opened in it (ppf_dir_visits.node)
 * @visit: its latest visit (0: none yet)
 * @nr_files: files in @files
 * @opened: of those, the ones opened in @visit
 * @run: its latest run: visits begun by the gap (0: none yet)
 * @run_visit: the visit @run began with
 * @last_seq: the event number of the latest open of one of its files
 * @target: the visit the latest sweep was for
 * @swept_all: that sweep left nothing to read for @target
 * @last_ino: the inode number of the latest file @visit opened first
 * @steps: the files @visit opened after its first
 * @ascending: of those, the ones numbered above the file opened before
 * @in_order: the visit before @visit opened its files in inode order
 */
struct ppf_dir {
	struct hlist_node node;
	struct ppf_sb *sb;
	u64 ino;
	struct list_head files;
	u32 visit;
	u32 nr_files;
	u32 opened;
	u32 run;
	u32 run_visit;
	u64 last_seq;
	u32 target;
	bool swept_all;
	u64 last_ino;
	u32 steps;
	u32 ascending;
	bool in_order;
};

static struct hlist_head ppf_dirs[1 << PPF_DIR_HASH_BITS];
/* The files of a sweep, sorted; the worker's only. */
static struct ppf_file *ppf_sweep_batch[PPF_SWEEP_FILES];
/* Where ppf_sweep_sort() merges them; the worker's only. */
static struct ppf_file *ppf_sweep_merged[PPF_SWEEP_FILES];

static struct hlist_head *ppf_dir_bucket(const struct ppf_sb *sb, u64 ino)
{
	return &ppf_dirs[hash_64(ino ^ (unsigned long)sb, PPF_DIR_HASH_BITS)];
}

/**
 * ppf_dir_join() - put a file in the list of its directory
 * @f: the file, in no directory's list yet
 * @dir_ino: the inode number of the directory it was opened in
 *
 * Without memory for a new directory the file stays out of every list and
 * is never swept.  The caller holds ppf_worker_mutex.
 */
void ppf_dir_join(struct ppf_file *f, u64 dir_ino)
{
	struct hlist_head *head = ppf_dir_bucket(f->sb, dir_ino);
	struct ppf_dir *d;

	lockdep_assert_held(&ppf_worker_mutex);
	hlist_for_each_entry(d, head, node)
		if (d->sb == f->sb && d->ino == dir_ino)
			goto join;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return;
	d->sb = f->sb;
	d->ino = dir_ino;
	INIT_LIST_HEAD(&d->files);
	hlist_add_head(&d->node, head);
join:
	f->visits.dir = d;
	list_add_tail(&f->visits.node, &d->files);
	d->nr_files++;
}

/**
 * ppf_dir_leave() - take a file out of its directory's list
 * @f: the file, being forgotten
 *
 * The directory is freed with its last file.  The caller holds
 * ppf_worker_mutex.
 */
void ppf_dir_leave(struct ppf_file *f)
{
	struct ppf_dir *d = f->visits.dir;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!d)
		return;
	list_del(&f->visits.node);
	f->visits.dir = NULL;
	d->nr_files--;
	if (f->visits.last == d->visit && d->opened)
		d->opened--;
	if (list_empty(&d->files)) {
		hlist_del(&d->node);
		kfree(d);
	}
}

/*
 * Sort a sweep's files by inode number: insertion sorts of runs of
 * PPF_SORT_RUN files, then merged in pairs, through ppf_sweep_merged.
 * Most sweeps are a few dozen files or fewer, where insertion alone is
 * cheapest; the merges bound a large one.  Insertion alone was n^2/4
 * moves: on dpkg's package queries (dpkgquery-ssd, /var/lib/dpkg/info's
 * thousand file lists swept 256 at a time) 4.5 million of the module's
 * 29.7 million instructions in the measured run.  The kernel's sort()
 * calls its comparison and swap through pointers at each step (Glimpse on
 * ssd: 6.2 million instructions over 1,311 sweeps).  Inode numbers are
 * unique in a directory's list, so every sort gives the same order.
 */
static void ppf_sweep_sort(struct ppf_file **files, unsigned int n)
{
	struct ppf_file **src = files, **dst = ppf_sweep_merged, **swap;
	unsigned int i, j, k, lo, mid, hi, width;

	for (lo = 0; lo < n; lo += PPF_SORT_RUN) {
		hi = min(lo + PPF_SORT_RUN, n);
		for (i = lo + 1; i < hi; i++) {
			struct ppf_file *f = files[i];

			for (j = i; j > lo && files[j - 1]->ino > f->ino; j--)
				files[j] = files[j - 1];
			files[j] = f;
		}
	}
	for (width = PPF_SORT_RUN; width < n; width *= 2) {
		for (lo = 0; lo < n; lo += 2 * width) {
			mid = min(lo + width, n);
			hi = min(lo + 2 * width, n);
			i = lo;
			j = mid;
			k = lo;
			while (i < mid && j < hi)
				dst[k++] = src[j]->ino < src[i]->ino ?
					   src[j++] : src[i++];
			while (i < mid)
				dst[k++] = src[i++];
			while (j < hi)
				dst[k++] = src[j++];
		}
		swap = src;
		src = dst;
		dst = swap;
	}
	if (src != files)
		memcpy(files, src, n * sizeof(*files));
}

/*
 * Read the files of @d that its two visits before @target shared and
 * @target has not opened, in inode order, unless a sweep for @target read
 * them all already.  For a visit that begins a run (@run, 0 for a round
 * within one), its two runs before, not visits.
 */
static void ppf_sweep(struct ppf_dir *d, u32 target, u32 run,
		      const struct cred *cred, u64 seq)
{
	struct ppf_dir_visits *v;
	unsigned int n = 0, done, i;
	bool more = false;
	u32 before = run ? run - 1 : target - 1;

	lockdep_assert_held(&ppf_worker_mutex);
	if (before < 2 || (d->target == target && d->swept_all))
		return;
	/*
	 * Its task reads the directory in inode order, as the sweep would:
	 * its own reads go one way across the disk, and a sweep would
	 * only queue ahead of them what they are about to read.
	 */
	if (d->in_order) {
		if (d->target != target) {
			d->target = target;
			d->swept_all = true;
			ppf_stat_inc(sweeps_in_order);
		}
		return;
	}
	if (d->target != target) {
		d->target = target;
		d->swept_all = false;
	}
	list_for_each_entry(v, &d->files, node) {
		if (v->swept == target)
			continue;
		if (run ? v->last_run != before || v->prev_run != before - 1 :
			  v->last != before || v->prev != before - 1)
			continue;
		if (n == ARRAY_SIZE(ppf_sweep_batch)) {
			more = true;
			break;
		}
		ppf_sweep_batch[n++] = container_of(v, struct ppf_file, visits);
	}
	if (!n) {
		d->swept_all = true;
		return;
	}
	ppf_sweep_sort(ppf_sweep_batch, n);
	done = ppf_plan_sweep(ppf_sweep_batch, n, cred, seq);
	/* Marked before the caller forgets any file the sweep found gone. */
	for (i = 0; i < done; i++)
		ppf_sweep_batch[i]->visits.swept = target;
	d->swept_all = !more && done == n;
	ppf_stat_inc(sweeps);
	ppf_stat_add(sweep_files, done);
	trace_ppf_sweep(ppf_sb_dev(d->sb), d->ino, target, n, done);
}

/* Would an open now come after a gap: begin a new visit, and a new run? */
static bool ppf_dir_gap(const struct ppf_dir *d, u64 seq)
{
	return !d->visit || seq - d->last_seq > PPF_VISIT_GAP;
}

/*
 * Does opening @v's file again begin a new visit of @d, a round?  Yes once
 * the visit has opened at least 3/4 of the directory's files (DOC: Sweeps).
 */
static bool ppf_dir_went_round(const struct ppf_dir *d,
			       const struct ppf_dir_visits *v)
{
	return v->last == d->visit && 4ULL * d->opened >= 3ULL * d->nr_files;
}

/*
 * A visit ends: did it open its files in inode order?  At least
 * PPF_ORDER_STEPS files after its first, and all but 1/PPF_ORDER_SHARE of
 * them numbered above the one opened before.
 */
static void ppf_dir_visit_end(struct ppf_dir *d)
{
	d->in_order = d->steps >= PPF_ORDER_STEPS &&
		      (u64)d->ascending * PPF_ORDER_SHARE >=
		      (u64)d->steps * (PPF_ORDER_SHARE - 1);
	d->last_ino = 0;
	d->steps = 0;
	d->ascending = 0;
}

/* An open of @v's file: in a new visit if @visit, a new run too if @gap. */
static void ppf_dir_note_open(struct ppf_dir *d, struct ppf_dir_visits *v,
			      bool visit, bool gap)
{
	u64 ino = container_of(v, struct ppf_file, visits)->ino;

	if (visit) {
		ppf_dir_visit_end(d);
		d->visit++;
		d->opened = 0;
		if (gap) {
			d->run++;
			d->run_visit = d->visit;
		}
	}
	if (v->last == d->visit)
		return;
	if (d->last_ino) {
		d->steps++;
		d->ascending += ino > d->last_ino;
	}
	d->last_ino = ino;
	d->opened++;
	v->prev = v->last;
	v->last = d->visit;
	if (v->last_run != d->run) {
		v->prev_run = v->last_run;
		v->last_run = d->run;
	}
}

/* The run @d's latest visit began, 0 if that visit is a round within one. */
static u32 ppf_dir_run_begun(const struct ppf_dir *d)
{
	return d->run_visit == d->visit ? d->run : 0;
}

/*
 * Sweeps are on, and isolation off: a directory's visits are everyone's,
 * so a sweep at one user's open would read what another user opened.
 */
static bool ppf_sweeps_on(void)
{
	return READ_ONCE(ppf_config.sweep) &&
	       READ_ONCE(ppf_config.isolation) == PPF_ISOLATION_NONE;
}

/**
 * ppf_sweep_opened() - a file was opened: note the visit, sweep its directory
 * @f: the file
 * @cred: credentials of the task that opened it
 * @seq: the event number of the open
 *
 * The caller holds ppf_worker_mutex, and forgets the files the plan found
 * gone after (ppf_forget_gone()).
 */
void ppf_sweep_opened(struct ppf_file *f, const struct cred *cred, u64 seq)
{
	struct ppf_dir *d = f->visits.dir;
	struct ppf_dir_visits *v = &f->visits;
	bool gap;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!d)
		return;
	gap = ppf_dir_gap(d, seq);
	ppf_dir_note_open(d, v, gap || ppf_dir_went_round(d, v), gap);
	d->last_seq = seq;
	if (ppf_sweeps_on())
		ppf_sweep(d, d->visit, ppf_dir_run_begun(d), cred, seq);
}

/**
 * ppf_sweep_predicted() - a file was predicted: sweep its directory
 * @f: the file
 * @cred: credentials of the task whose open predicted it
 * @seq: the event number of that open
 *
 * For the visit its open would be in now.  The caller holds
 * ppf_worker_mutex, and forgets the files the plan found gone after
 * (ppf_forget_gone()).
 */
void ppf_sweep_predicted(struct ppf_file *f, const struct cred *cred, u64 seq)
{
	struct ppf_dir *d = f->visits.dir;

	lockdep_assert_held(&ppf_worker_mutex);
	if (!d || !ppf_sweeps_on())
		return;
	if (ppf_dir_gap(d, seq))
		ppf_sweep(d, d->visit + 1, d->run + 1, cred, seq);
	else
		ppf_sweep(d, d->visit, ppf_dir_run_begun(d), cred, seq);
}
