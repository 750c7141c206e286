// SPDX-License-Identifier: GPL-2.0
/*
 * payoff.c - whether prefetching pays on each device, and pausing it where
 * it does not
 *
 * Prefetching costs CPU on every event (learning, predicting, planning)
 * and on reading what it planned, and returns device time: each
 * prefetched file that is then opened saves the demand read it would have
 * waited for.  On a disk with a 12 ms seek that return dwarfs the cost; on
 * flash whose reads take 100 us the return can be smaller than the cost,
 * and the workload is slower with prefetching than without.  So each
 * device is judged over windows of PPF_PAYOFF_WINDOW, in one unit, time:
 *
 *   cost    = the worker's CPU time acting on the device: what a pause
 *             would save (below)
 *   benefit = the demand reads prefetching spared the device's tasks:
 *             each chunk read ahead for a file that was then opened, or
 *             for a file's own open (its page map's pages)
 *             x (what a demand read waits there with no prefetch beside
 *                it, its quiet latency, below,
 *                + the worker's time on a chunk's readahead: the read
 *                its task would have made itself)
 *
 * A chunk is at most 256 KiB, and two page-map chunks are more than 8
 * pages apart: each is a read, or a fault, its task would have waited
 * for.  Counting files instead (one read saved a file, however much of
 * it was read ahead) took a mapped library of a few hundred faults for
 * one read.
 *
 * The verdict is on a balance, not on the window alone: each window's
 * benefit less its cost is added to what the windows before it left, of
 * which each window keeps 7/8 (half of a window's balance is gone after
 * about five).  Prefetching is bursty: a program's start-up brings in its
 * libraries in one window, and the windows after it, each with a file or
 * two used, do not pay on their own.  Judged window by window, the
 * parallel build on the cloud volume was paused after its start-up (487
 * reads spared, 11.4 s of benefit against 4.5 ms of cost; then one or two
 * a window against 6.5 ms), for 1, 2, 4, 8 s: the rest of the build was not
 * prefetched, and it was slower than with no prefetching at all (16.874 s
 * against 16.827 s; 15.648 s without the back-off).  On the balance a
 * device pays as long as what prefetching spared it lately exceeds what
 * it cost, and no longer.
 *
 * A balance below zero pauses the device, and a pause clears the balance:
 * for 1, 2, 4 ... up to 2^PPF_PAYOFF_MAX_SHIFT windows, doubling while the
 * verdict repeats and starting again at one window when a window pays, its
 * opens are learnt and not acted on (dropped_paused counts them): the
 * model, the files' uses and metadata go on learning the device, and
 * nothing is predicted, swept or read ahead for it.  A pause saves the
 * prefetching, which is what the verdict is on, not the learning.  When
 * its events were dropped instead, the model and the files' uses stood
 * where the pause left them: Andrew on nvme, 10 % faster with
 * prefetching, was paused for most of its third warm-up, and its first
 * measured run, without what that warm-up would have taught, read ahead
 * less (4,459 pages against 5,935 in the second), its execs waited 144 ms
 * against 50, and it took 2.541 s against 2.373 s (now 2.358 and 2.359 s;
 * docs/results.md, "Learning through a pause").
 *
 * What a demand read costs is the device's quiet latency, the mean of its
 * reads while none of ppf's was in flight (device_latency.c), not the
 * window's mean, which counts the prefetches' own reads and the reads
 * queued behind them; until a device has a quiet latency its window mean
 * stands in.
 *
 * The window that follows a pause gives no verdict either.  The programs
 * started during the pause were not prefetched, and what they opened was
 * never predicted, so that window's prefetches are fewer and later than
 * the device's own.  Judged, it tended to pause again, for twice as long:
 * the parallel build on ssd, which prefetching makes 3 % faster, was
 * paused after its first warm-up windows and then for most of the rest,
 * its measured run for the whole of it, when a pause's events were still
 * dropped (15.674 s against 15.150 s; docs/results.md, "No verdict after a
 * pause").
 *
 * A window with too little evidence gives no verdict: fewer than
 * PPF_PAYOFF_MIN_PREDICTIONS predictions (a model still learning), or no
 * latency known for the device (no block device, or no reads counted).
 *
 * Nor does a window in which no prefetch was used (payoff_unused).  It
 * looks like the hot cache, where everything predicted is cached and the
 * cost buys nothing, but it is also a cold run between two bursts of use:
 * a walk of directories before the files are read, a program that opens
 * what another one already read, prefetches whose open comes in the next
 * window.  Pausing on it, even with the pause cut short as soon as the
 * device was read again, cost Glimpse and the mixed workload on the
 * paper's disk (glimpse-hdd2001, mixed-hdd2001); the hot cache's cost is
 * left to a cheaper model.
 *
 * The cost is what a pause would save: the worker's time acting on the
 * device, not its time learning it.  A paused device's opens are still
 * learnt and its reads' events still taken (a pause is a verdict on
 * prefetching, not on learning), so the cost is the worker's time on the
 * device's opens less what a learnt open costs it (measured on the opens
 * of the device's pauses: the clock time of one, a running mean), plus its
 * time in the pacing passes on the device's files (the prefetch calls:
 * decodes, lookups, readahead) and their share of the I/O submission.  That
 * clock time is scaled by the share of the worker's clock time it spent on
 * a CPU (its scheduler accounting, se.sum_exec_runtime: brought up to date
 * at each switch and tick, so within a tick of the truth at a window's
 * ends): sleeping on a cold inode or a page allocation costs the workload
 * nothing.
 *
 * A chunk read ahead and used is a read its task did not make: the task
 * did not wait for the device, and did not spend the CPU time of starting
 * the read and submitting it, which the worker spent instead.  So each
 * used chunk's benefit is the quiet latency plus the worker's mean clock
 * time on a chunk's readahead in the window (the readahead call, and the
 * chunk's share of the plug's submission; the last window's mean when
 * none was started).  Counted as the cost alone, that time made used
 * readahead a loss on flash.  As first built, the cost was the worker's
 * time on the opens alone and the benefit the latency alone: the first a
 * quarter to a half of the worker's CPU time, the second about half of
 * what prefetching returned where it paid (Andrew on nvme: 176 ms counted
 * against 290 ms gained plus the worker's 50 ms; payoff_benefit_us and
 * payoff_cost_us, docs/results.md, "What the back-off weighs").  The two
 * errors cancelled where it paid, and readahead never used cost nothing.
 * Charged with all of the worker's CPU time, learning included, and the
 * benefit so corrected, the back-off paused the parallel build on ssd and
 * on nvme for most of their measured runs, and a pause leaves the
 * learning to pay: 15.757 s against 15.154 s (none 15.649 s).
 *
 * The cost is CPU time whether or not another CPU was idle: on a machine
 * with spare CPUs the worker's time is cheaper than that, so the verdict
 * is on the side of pausing.
 *
 * Everything but ppf_payoff_paused() runs under ppf_worker_mutex, and in
 * the worker but for ppf_payoff_reset().
 */
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include "ppf.h"
#include "ppf_trace.h"

/* The devices judged; others are never paused (payoff_untracked). */
#define PPF_PAYOFF_DEVS			16
#define PPF_PAYOFF_WINDOW		HZ
#define PPF_PAYOFF_MIN_PREDICTIONS	32
#define PPF_PAYOFF_MAX_SHIFT		6
/* A window's balance keeps 7/8 of the one before: 1 - 2^-3. */
#define PPF_PAYOFF_DECAY_SHIFT		3
/* Bound on a window's benefit and cost, so that the balance cannot wrap. */
#define PPF_PAYOFF_CAP_NS		(3600ULL * NSEC_PER_SEC)

/**
 * struct ppf_payoff - one device's account
 * @dev: the device number, 0 for a free slot; set once
 * @paused_until: jiffies until which its events are only learnt
 * @shift: the next pause is 2^@shift windows
 * @start: jiffies when the window began
 * @cost_ns: the worker's clock time on its opens acted on in the window
 * @opens: those opens
 * @act_ns: its clock time in the pacing passes on the device's files in
 *	the window, their share of the I/O submission included
 * @cpu_ns: the worker's CPU time when the window began
 * @wall_ns: ppf_payoff_wall when the window began
 * @learn_ns: the worker's clock time on an open only learnt (in a pause),
 *	a running mean; 0 until the first
 * @restart: begin a new window at the next event (after a reset)
 * @resumed: the window follows a pause, and gives no verdict
 * @predictions: predictions made after its events in the window
 * @useful: reads its prefetches spared its tasks in the window
 * @read_ios: the device's completed reads when the window began
 * @read_ns: the device's time on them when the window began
 * @latency_ns: its mean read latency in the last window that had reads
 * @ra_ns: the worker's clock time on its chunks' readahead in the window
 * @ra_chunks: chunks whose readahead it started in the window
 * @ra_chunk_ns: the mean readahead time of a chunk, in the last window
 *	that started any
 * @unsubmitted: chunks started since the plug was last submitted
 * @balance_ns: benefit less cost of the windows judged since the last
 *	pause, each older window's share decayed by 1/8 a window
 */
struct ppf_payoff {
	dev_t dev;
	unsigned long paused_until;
	unsigned int shift;
	unsigned long start;
	u64 cost_ns;
	u32 opens;
	u64 act_ns;
	u64 cpu_ns;
	u64 wall_ns;
	u64 learn_ns;
	bool restart;
	bool resumed;
	u32 predictions;
	u32 useful;
	u64 read_ios;
	u64 read_ns;
	u64 latency_ns;
	u64 ra_ns;
	u32 ra_chunks;
	u64 ra_chunk_ns;
	u32 unsubmitted;
	s64 balance_ns;
};

static struct ppf_payoff ppf_payoffs[PPF_PAYOFF_DEVS];
/* The worker's clock time, ever: its batches and pacing passes. */
static u64 ppf_payoff_wall;
/* Its clock time in prefetch calls, ever (ppf_payoff_prefetched()). */
static u64 ppf_payoff_prefetch_ns;

/*
 * What a pause would have saved in @p's window: its clock time acting on
 * the device, scaled by the worker's CPU time against its clock time since
 * the window began (at most 1).
 */
static u64 ppf_payoff_cpu_cost(const struct ppf_payoff *p)
{
	u64 cpu = current->se.sum_exec_runtime - p->cpu_ns;
	u64 wall = ppf_payoff_wall - p->wall_ns;
	u64 learning = min_t(u64, (u64)p->opens * p->learn_ns, p->cost_ns);
	u64 acting = p->cost_ns - learning + p->act_ns;

	/* The batch running now is not in the clock yet: its CPU time is. */
	if (!wall || cpu >= wall)
		return acting;
	/* A window closes at the device's first event after it ends: long. */
	return mul_u64_u64_div_u64(acting, cpu, wall);
}

/* A new window: nothing charged, the worker's clocks as they are now. */
static void ppf_payoff_window(struct ppf_payoff *p, unsigned long start)
{
	p->start = start;
	p->cost_ns = 0;
	p->opens = 0;
	p->act_ns = 0;
	p->cpu_ns = current->se.sum_exec_runtime;
	p->wall_ns = ppf_payoff_wall;
	p->predictions = 0;
	p->useful = 0;
	p->ra_ns = 0;
	p->ra_chunks = 0;
}

/* The device's account, made on first use; NULL when all slots are taken. */
static struct ppf_payoff *ppf_payoff_of(dev_t dev, bool create)
{
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	for (i = 0; i < PPF_PAYOFF_DEVS; i++) {
		struct ppf_payoff *p = &ppf_payoffs[i];

		if (p->dev == dev)
			return p;
		if (!p->dev) {
			/* Slots are never freed: a free one is all zero. */
			if (!create)
				return NULL;
			ppf_payoff_window(p, jiffies);
			/* Last: ppf_payoff_paused() reads the slot unlocked. */
			WRITE_ONCE(p->dev, dev);
			return p;
		}
	}
	if (create)
		ppf_stat_inc(payoff_untracked);
	return NULL;
}

/*
 * No device is paused at or past this (jiffies): the latest end of any
 * pause.  The hooks read it first, so that an event of a device that is
 * not paused, nearly every event, costs them one load and no walk of the
 * slots (ppf_payoff_paused() in ppf.h).
 */
unsigned long ppf_payoff_pauses_end;

/**
 * ppf_payoff_paused_slow() - is this file system's device paused?
 * @sb: the file system of the file opened
 *
 * ppf_payoff_paused()'s look at the slots, once some device's pause may
 * not be over.  Called by the open hook in the task's context, without
 * locks: a slot's device is set once, its pause is one word.
 *
 * Return: true while the device is paused and pausing is on.
 */
bool ppf_payoff_paused_slow(struct super_block *sb)
{
	unsigned int i;

	if (!READ_ONCE(ppf_config.backoff))
		return false;
	for (i = 0; i < PPF_PAYOFF_DEVS; i++) {
		struct ppf_payoff *p = &ppf_payoffs[i];
		dev_t d = READ_ONCE(p->dev);

		if (d == sb->s_dev)
			return time_before(jiffies, READ_ONCE(p->paused_until));
		if (!d)
			break;
	}
	return false;
}

/* Close the window: the verdict, then a new window. */
static void ppf_payoff_judge(struct ppf_payoff *p, struct ppf_sb *s)
{
	u64 ios = 0, ns = 0, benefit, cost, latency, per_read;
	unsigned int windows = 0;
	unsigned long start;

	if (ppf_device_reads(s, &ios, &ns) && ios > p->read_ios)
		p->latency_ns = div64_u64(ns - p->read_ns, ios - p->read_ios);
	latency = ppf_device_quiet_latency(p->dev) ?: p->latency_ns;
	if (p->ra_chunks)
		p->ra_chunk_ns = div_u64(p->ra_ns, p->ra_chunks);
	/* Each bounded by the cap: their sum cannot wrap. */
	per_read = min_t(u64, latency, PPF_PAYOFF_CAP_NS) +
		   min_t(u64, p->ra_chunk_ns, PPF_PAYOFF_CAP_NS);
	benefit = p->useful && per_read > div_u64(PPF_PAYOFF_CAP_NS, p->useful) ?
		  PPF_PAYOFF_CAP_NS : (u64)p->useful * per_read;
	cost = min_t(u64, ppf_payoff_cpu_cost(p), PPF_PAYOFF_CAP_NS);
	/* What the verdicts weigh, over a run: set beside what it gained. */
	if (latency) {
		ppf_stat_add(payoff_benefit_us, div_u64(benefit, NSEC_PER_USEC));
		ppf_stat_add(payoff_cost_us, div_u64(cost, NSEC_PER_USEC));
	}
	if (p->resumed || p->predictions < PPF_PAYOFF_MIN_PREDICTIONS ||
	    !latency) {
		ppf_stat_inc(payoff_no_verdict);
	} else if (!p->useful) {
		ppf_stat_inc(payoff_unused);
	} else {
		p->balance_ns -= p->balance_ns >> PPF_PAYOFF_DECAY_SHIFT;
		p->balance_ns += (s64)benefit - (s64)cost;
		if (p->balance_ns < 0) {
			windows = 1U << p->shift;
			if (p->shift < PPF_PAYOFF_MAX_SHIFT)
				p->shift++;
			p->balance_ns = 0;
			ppf_stat_inc(payoff_pauses);
		} else {
			p->shift = 0;
			ppf_stat_inc(payoff_pays);
		}
	}
	trace_ppf_payoff(p->dev, cost, benefit, p->predictions, p->useful,
			 latency, p->latency_ns, p->balance_ns,
			 jiffies_to_msecs(windows * PPF_PAYOFF_WINDOW),
			 p->ra_chunk_ns);
	start = jiffies + windows * PPF_PAYOFF_WINDOW;
	p->resumed = windows != 0;
	if (windows) {
		WRITE_ONCE(p->paused_until, start);
		if (time_after(start, ppf_payoff_pauses_end))
			WRITE_ONCE(ppf_payoff_pauses_end, start);
	}
	ppf_payoff_window(p, start);
	p->read_ios = ios;
	p->read_ns = ns;
}

/**
 * ppf_payoff_charge() - the worker spent time on an event of this device
 * @s: the file system of the file opened
 * @ns: the worker's time on the event, less its prefetch calls
 *	(ppf_payoff_prefetched())
 * @predictions: predictions the event produced
 *
 * Closes the device's window when it is over.  Nothing is judged while
 * backoff is off.
 */
void ppf_payoff_charge(struct ppf_sb *s, u64 ns, unsigned int predictions)
{
	struct ppf_payoff *p;

	if (!READ_ONCE(ppf_config.backoff))
		return;
	p = ppf_payoff_of(ppf_sb_dev(s), true);
	if (!p)
		return;
	if (p->restart) {
		ppf_payoff_window(p, jiffies);
		p->restart = false;
	}
	/* Queued before a pause, taken during it: not the next window's. */
	if (time_before(jiffies, p->start))
		return;
	p->cost_ns += ns;
	p->opens++;
	p->predictions += predictions;
	if (time_after_eq(jiffies, p->start + PPF_PAYOFF_WINDOW))
		ppf_payoff_judge(p, s);
}

/**
 * ppf_payoff_useful() - prefetching spared a task of this device reads
 * @dev: its device
 * @reads: the chunks read ahead for an open that came
 */
void ppf_payoff_useful(dev_t dev, u32 reads)
{
	struct ppf_payoff *p = ppf_payoff_of(dev, false);

	if (p && !time_before(jiffies, p->start))
		p->useful += reads;
}

/**
 * ppf_payoff_readahead() - the worker started a chunk's readahead
 * @dev: the device of its file
 * @ns: the worker's clock time on the readahead call
 *
 * Its share of the plug's submission is added by ppf_payoff_submitted().
 */
void ppf_payoff_readahead(dev_t dev, u64 ns)
{
	struct ppf_payoff *p;

	if (!READ_ONCE(ppf_config.backoff))
		return;
	p = ppf_payoff_of(dev, false);
	if (!p)
		return;
	p->unsubmitted++;
	if (time_before(jiffies, p->start))
		return;
	p->ra_ns += ns;
	p->ra_chunks++;
}

/**
 * ppf_payoff_prefetch() - the worker looked at a planned file to read it
 * @dev: the device of the file
 * @ns: its clock time on the prefetch call (decode, lookup, readahead)
 */
void ppf_payoff_prefetch(dev_t dev, u64 ns)
{
	struct ppf_payoff *p;

	lockdep_assert_held(&ppf_worker_mutex);
	ppf_payoff_prefetch_ns += ns;
	if (!READ_ONCE(ppf_config.backoff))
		return;
	p = ppf_payoff_of(dev, false);
	if (p && !time_before(jiffies, p->start))
		p->act_ns += ns;
}

/**
 * ppf_payoff_prefetched() - the worker's clock time in prefetch calls, ever
 *
 * An open's own sweep starts readahead while the open is being acted on:
 * the worker takes the time of those calls off the open's before charging
 * it (ppf_payoff_charge()), since ppf_payoff_prefetch() counted them.
 *
 * Return: nanoseconds.
 */
u64 ppf_payoff_prefetched(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	return ppf_payoff_prefetch_ns;
}

/**
 * ppf_payoff_learnt() - the worker only learnt an open of a paused device
 * @s: the file system of the file opened
 * @ns: its clock time on the open
 *
 * What such an open costs is what a pause does not save (the running mean
 * of the device's, weighing each new one 1/8).
 */
void ppf_payoff_learnt(struct ppf_sb *s, u64 ns)
{
	struct ppf_payoff *p = ppf_payoff_of(ppf_sb_dev(s), false);

	if (!p)
		return;
	p->learn_ns = p->learn_ns ? p->learn_ns - (p->learn_ns >> 3) + (ns >> 3) :
		      ns;
}

/**
 * ppf_payoff_worker_clock() - the worker spent clock time on a batch or pass
 * @ns: the time
 */
void ppf_payoff_worker_clock(u64 ns)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_payoff_wall += ns;
}

/**
 * ppf_payoff_submitted() - the plug's I/O was submitted
 * @ns: the worker's clock time on it
 *
 * Shared out among the devices by the chunks each started since the last
 * submission.
 */
void ppf_payoff_submitted(u64 ns)
{
	unsigned int i, chunks = 0;

	lockdep_assert_held(&ppf_worker_mutex);
	for (i = 0; i < PPF_PAYOFF_DEVS && ppf_payoffs[i].dev; i++)
		chunks += ppf_payoffs[i].unsubmitted;
	if (!chunks)
		return;
	for (i = 0; i < PPF_PAYOFF_DEVS && ppf_payoffs[i].dev; i++) {
		struct ppf_payoff *p = &ppf_payoffs[i];

		if (p->unsubmitted && !time_before(jiffies, p->start)) {
			u64 share = div_u64(ns * p->unsubmitted, chunks);

			p->ra_ns += share;
			p->act_ns += share;
		}
		p->unsubmitted = 0;
	}
}

/**
 * ppf_payoff_reset() - forget every device's account and pause
 *
 * With the model: what paid with the old model says nothing of the new.
 */
void ppf_payoff_reset(void)
{
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	WRITE_ONCE(ppf_payoff_pauses_end, jiffies);
	for (i = 0; i < PPF_PAYOFF_DEVS; i++) {
		WRITE_ONCE(ppf_payoffs[i].paused_until, jiffies);
		ppf_payoffs[i].shift = 0;
		ppf_payoffs[i].balance_ns = 0;
		ppf_payoffs[i].resumed = false;
		/* The worker's clocks are read in the worker. */
		ppf_payoffs[i].restart = true;
	}
}
