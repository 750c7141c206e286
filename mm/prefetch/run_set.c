// SPDX-License-Identifier: GPL-2.0
/*
 * run_set.c - what a task's last runs that began the same way shared, read at its start
 *
 * DOC: Task runs
 *
 * A command run again opens much the same files: git grep the blobs of
 * the tree, git log the commits and trees.  EPCM predicts them one chain
 * at a time, at most a lookahead ahead and in the order they will be
 * opened; where a task opens small files faster than the disk can
 * position for each, its opens catch the predictions still being read,
 * one positioning each.  A sweep (sweep.c) reads one directory's files
 * together; a command's are in many (git's objects in 256).
 *
 * So each task's opens are a *run*, known by how it began: the file it
 * opened first (after a fork, its program) and the open just before that
 * in the stream of every task's opens (in a script, the end of the
 * command before it).  Each such key keeps the files of its last two
 * runs, at most PPF_RUN_FILES each, and how many of the latest run's opens
 * of them found their file still being prefetched (late,
 * ppf_prefetch_opened()).  When a run begins whose key's latest run
 * without a sweep had at least 1/PPF_RUN_LATE_SHARE of its opens late (and
 * PPF_RUN_LATE_MIN), the model falls behind that command: the files its
 * two runs before both opened and whose reads are small (at most a chunk,
 * PPF_RUN_SMALL_PAGES: positioning, not transfer, is their cost) are read
 * ahead at once, sorted by inode, PPF_RUN_SWEEP at a time through the
 * sweeps' own path (ppf_plan_sweep(): each file as its prediction would
 * read it, with its learnt metadata, within max_inflight_kb and memory),
 * while less than 1/PPF_RUN_SHARE of max_inflight_kb is in flight, and
 * what is left at the task's next opens.
 *
 * Why the gate: read at the start of every run, a Python start-up's 506
 * files (all used) took pystart-hdd2001 from 6.551 s to 7.101 s: its
 * program's own reads waited behind them, where EPCM's chains, in the
 * order of use, kept ahead of it (4 late opens a run).  Late opens are
 * counted among the files a key keeps, as those files are: counted over a
 * whole Glimpse index run (20,654 opens, 144 late) they passed the gate,
 * and its first 2,048 files read at its start cost glimpse-hdd2001 0.5 s.
 * Two runs, not one: a key that different commands share reads only what
 * they share.  A key judged behind stays so until a run without a sweep
 * says otherwise (a swept run's opens are not late: that is the sweep's
 * doing).
 *
 * Memory: at most PPF_RUN_KEYS keys, each two arrays of at most
 * PPF_RUN_FILES file ids, grown as runs open files (4 MiB at the very
 * most, a few KiB a command in practice), and a sweep's array per task
 * followed; freed at a reset.  With isolation other than none nothing is
 * read this way: a key's runs are every task's.
 *
 * Everything here runs in the worker under ppf_worker_mutex.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "ppf.h"
#include "ppf_trace.h"

/* Tasks whose runs are followed at once; the least recent is let go. */
#define PPF_RUN_TASKS		64
/* Keys remembered, direct-mapped by hash: a new key takes its slot. */
#define PPF_RUN_KEY_BITS	8
#define PPF_RUN_KEYS		BIT(PPF_RUN_KEY_BITS)
/* Most files a run remembers. */
#define PPF_RUN_FILES		2048

/* Most files handed to the plan at once. */
#define PPF_RUN_SWEEP		256
/* A run's sweep starts files while less than 1/this of max_inflight_kb is. */
#define PPF_RUN_SHARE		4
/*
 * A run that read nothing ahead fell behind when at least 1/this of its
 * files, and at least PPF_RUN_LATE_MIN, were opened while still being
 * prefetched.
 */
#define PPF_RUN_LATE_SHARE	16
#define PPF_RUN_LATE_MIN	8
/* Files swept: those expected to read at most one chunk (256 KiB). */
#define PPF_RUN_SMALL_PAGES	(256 >> (PAGE_SHIFT - 10))

/*
 * struct ppf_run_key - the last two runs that began one way
 * @key: the way (0: the slot is free)
 * @gen: runs begun with it; the run whose gen it is records in @ids[0]
 * @behind: the latest run that read nothing ahead had enough late opens
 *	(PPF_RUN_LATE_SHARE): the model fell behind this run
 * @late: late opens (ppf_prefetch_opened()) in the run of @ids[0]
 * @swept: whether the run of @ids[0] read ahead its key's files
 * @nr: files in @ids[0] and @ids[1]
 * @room: room in @ids[0] and @ids[1]
 * @ids: file ids, the latest run's first, then the one before
 */
struct ppf_run_key {
	u64 key;
	u32 gen;
	bool behind;
	bool swept;
	u32 late;
	u32 nr[2];
	u32 room[2];
	u32 *ids[2];
};

/*
 * struct ppf_run - a task's run going on
 * @ctx: the task's context, plus one (0: the slot is free)
 * @first: the file it opened first
 * @slot: its key's slot
 * @gen: its key's gen when it began (it records while that is current)
 * @used: the worker's event number of its latest open (least recent goes)
 * @stamp: the run's mark on the files it opened (ppf_file.run_stamp)
 * @sweep: the files to read ahead, in inode order
 * @nr_sweep: how many
 * @swept: of those, the ones whose readahead was dealt with
 */
struct ppf_run {
	u32 ctx;
	u32 first;
	u32 slot;
	u32 gen;
	u64 used;
	u32 stamp;
	u32 nr_sweep;
	u32 swept;
	u32 *sweep;
};

static struct ppf_run_key ppf_run_keys[PPF_RUN_KEYS];
static struct ppf_run ppf_runs[PPF_RUN_TASKS];
static struct ppf_run *ppf_run_latest;	/* the run of the latest open */
static u32 ppf_run_last_id;	/* the latest open's file, every task's */
static u32 ppf_run_stamps;
static struct ppf_file *ppf_run_batch[PPF_RUN_SWEEP];

static void ppf_run_key_clear(struct ppf_run_key *k)
{
	kfree(k->ids[0]);
	kfree(k->ids[1]);
	memset(k, 0, sizeof(*k));
}

/*
 * Whether the model fell behind @k's latest run, judged on it if it read
 * nothing ahead (a run that did shows the sweep's lateness, not the
 * model's): kept until a run that read nothing ahead says otherwise.
 */
static void ppf_run_key_judge(struct ppf_run_key *k)
{
	if (!k->swept && k->nr[0])
		k->behind = k->late >= PPF_RUN_LATE_MIN &&
			    k->late * PPF_RUN_LATE_SHARE >= k->nr[0];
}

/* A run begins with @key, in @k: the latest run becomes the one before. */
static void ppf_run_key_begin(struct ppf_run_key *k, u64 key)
{
	if (k->key != key) {
		ppf_run_key_clear(k);
		k->key = key;
	}
	k->late = 0;
	k->swept = false;
	kfree(k->ids[1]);
	k->ids[1] = k->ids[0];
	k->nr[1] = k->nr[0];
	k->room[1] = k->room[0];
	k->ids[0] = NULL;
	k->nr[0] = 0;
	k->room[0] = 0;
	k->gen++;
}

static int ppf_run_cmp_ino(const void *a, const void *b)
{
	const struct ppf_file *fa = *(struct ppf_file * const *)a;
	const struct ppf_file *fb = *(struct ppf_file * const *)b;

	if (fa->sb != fb->sb)
		return fa->sb < fb->sb ? -1 : 1;
	return fa->ino < fb->ino ? -1 : fa->ino > fb->ino;
}

/* Pages @f's readahead is expected to read, at most max_prefetch_kb's. */
static unsigned long ppf_run_pages(struct ppf_file *f)
{
	unsigned long max = READ_ONCE(ppf_config.max_prefetch_kb) >>
			    (PAGE_SHIFT - 10);
	pgoff_t first, last;
	u64 map;

	if (!ppf_file_page_span(f, &first, &last) &&
	    !ppf_file_expected_use(f, &first, &last, &map))
		return 1;
	return min_t(unsigned long, last - first + 1, max);
}

/*
 * The small files @k's two latest runs both opened, into @r's sweep in
 * inode order: before ppf_run_key_begin() makes room for @r.
 */
static void ppf_run_shared(struct ppf_run *r, const struct ppf_run_key *k)
{
	struct ppf_file **files;
	struct ppf_file *f;
	u32 i, n = 0, stamp;

	if (!k->nr[0] || !k->nr[1])
		return;
	files = kmalloc_array(k->nr[0], sizeof(*files), GFP_KERNEL);
	if (!files)
		return;
	stamp = ++ppf_run_stamps;
	for (i = 0; i < k->nr[1]; i++) {
		f = ppf_files_find_id(k->ids[1][i]);
		if (f)
			f->run_mark = stamp;
	}
	for (i = 0; i < k->nr[0]; i++) {
		f = ppf_files_find_id(k->ids[0][i]);
		if (f && f->run_mark == stamp &&
		    ppf_run_pages(f) <= PPF_RUN_SMALL_PAGES)
			files[n++] = f;
	}
	if (n) {
		sort(files, n, sizeof(*files), ppf_run_cmp_ino, NULL);
		r->sweep = kmalloc_array(n, sizeof(u32), GFP_KERNEL);
		if (r->sweep) {
			for (i = 0; i < n; i++)
				r->sweep[i] = files[i]->id;
			r->nr_sweep = n;
		}
	}
	kfree(files);
}

static void ppf_run_end(struct ppf_run *r)
{
	kfree(r->sweep);
	memset(r, 0, sizeof(*r));
}

/* The run of @ctx, or a new one in the least recent slot. */
static struct ppf_run *ppf_run_of(u32 ctx, bool *fresh)
{
	struct ppf_run *r, *lru = &ppf_runs[0];
	unsigned int i;

	*fresh = false;
	if (ppf_run_latest && ppf_run_latest->ctx == ctx)
		return ppf_run_latest;
	for (i = 0; i < PPF_RUN_TASKS; i++) {
		r = &ppf_runs[i];
		if (r->ctx == ctx)
			return ppf_run_latest = r;
		if (r->used < lru->used)
			lru = r;
	}
	ppf_run_end(lru);
	lru->ctx = ctx;
	*fresh = true;
	return ppf_run_latest = lru;
}

/* Note @f in the latest run of @r's key, if @r's is still that run. */
static void ppf_run_record(struct ppf_run *r, struct ppf_file *f, bool late)
{
	struct ppf_run_key *k = &ppf_run_keys[r->slot];
	u32 *ids;

	/* Late opens are counted among the files remembered, as they are. */
	if (k->gen != r->gen || k->nr[0] == PPF_RUN_FILES)
		return;
	k->late += late;
	if (f->run_stamp == r->stamp)
		return;
	f->run_stamp = r->stamp;
	if (k->nr[0] == k->room[0]) {
		u32 room = max(16U, min(2 * k->room[0], (u32)PPF_RUN_FILES));

		ids = krealloc_array(k->ids[0], room, sizeof(*ids), GFP_KERNEL);
		if (!ids)
			return;
		k->ids[0] = ids;
		k->room[0] = room;
	}
	k->ids[0][k->nr[0]++] = f->id;
}

/* Hand the plan the next PPF_RUN_SWEEP of @r's files, as far as there is room. */
static void ppf_run_batch_start(struct ppf_run *r, const struct cred *cred,
				u64 seq)
{
	unsigned int n = 0, done;
	struct ppf_file *f;
	u32 i = r->swept;

	while (i < r->nr_sweep && n < PPF_RUN_SWEEP) {
		f = ppf_files_find_id(r->sweep[i++]);
		if (f)
			ppf_run_batch[n++] = f;
	}
	if (!n) {
		r->swept = i;
		return;
	}
	done = ppf_plan_sweep(ppf_run_batch, n, cred, seq);
	ppf_stat_inc(run_sweeps);
	ppf_stat_add(run_sweep_files, done);
	trace_ppf_run_sweep(r->ctx - 1, r->first, n, done);
	/*
	 * A batch the plan had no room for whole is handed again at the
	 * task's next open; what it started is passed over then as under way.
	 */
	if (done == n)
		r->swept = i;
}

/* Start @r's files while little of max_inflight_kb is in flight. */
static void ppf_run_sweep(struct ppf_run *r, const struct cred *cred, u64 seq)
{
	unsigned long limit;
	u32 swept;

	limit = READ_ONCE(ppf_config.max_inflight_kb) >> (PAGE_SHIFT - 10);
	while (r->swept < r->nr_sweep &&
	       ppf_inflight_now() < limit / PPF_RUN_SHARE) {
		swept = r->swept;
		ppf_run_batch_start(r, cred, seq);
		if (r->swept == swept)
			break;	/* no room: the next open tries again */
	}
}

/*
 * Task runs are on, and isolation off: a key's runs are every task's, so
 * reading them at one user's open would read what another user opened.
 */
static bool ppf_runs_on(void)
{
	return READ_ONCE(ppf_config.task_runs) &&
	       READ_ONCE(ppf_config.isolation) == PPF_ISOLATION_NONE;
}

/**
 * ppf_run_opened() - a task opened a file: its run, and what it reads ahead
 * @f: the file
 * @ctx: the task's context
 * @cred: credentials of the task
 * @seq: the event number of the open
 * @act: whether to read ahead (not while the device is paused)
 * @late: it was opened while still being prefetched
 *
 * The caller holds ppf_worker_mutex and forgets the files the plan found
 * gone after (ppf_forget_gone()).
 */
void ppf_run_opened(struct ppf_file *f, u32 ctx, const struct cred *cred,
		    u64 seq, bool act, bool late)
{
	struct ppf_run_key *k;
	struct ppf_run *r;
	bool fresh;
	u64 key;

	lockdep_assert_held(&ppf_worker_mutex);
	r = ppf_run_of(ctx + 1, &fresh);	/* 0 marks a free slot */
	if (fresh) {
		key = (u64)ppf_run_last_id << 32 | f->id;
		r->stamp = ++ppf_run_stamps;
		r->first = f->id;
		r->slot = hash_64(key, PPF_RUN_KEY_BITS);
		k = &ppf_run_keys[r->slot];
		if (k->key == key) {
			ppf_run_key_judge(k);
			if (act && ppf_runs_on() && k->behind)
				ppf_run_shared(r, k);
		}
		ppf_run_key_begin(k, key);
		k->swept = r->nr_sweep != 0;
		r->gen = k->gen;
	}
	r->used = seq;
	ppf_run_last_id = f->id;
	ppf_run_record(r, f, late);
	if (act && r->swept < r->nr_sweep)
		ppf_run_sweep(r, cred, seq);
}

/**
 * ppf_runs_reset() - forget every run and key (a reset, unloading)
 *
 * The caller holds ppf_worker_mutex.
 */
void ppf_runs_reset(void)
{
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	for (i = 0; i < PPF_RUN_TASKS; i++)
		ppf_run_end(&ppf_runs[i]);
	for (i = 0; i < ARRAY_SIZE(ppf_run_keys); i++)
		ppf_run_key_clear(&ppf_run_keys[i]);
	ppf_run_last_id = 0;
	ppf_run_latest = NULL;
}
