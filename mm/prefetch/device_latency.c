// SPDX-License-Identifier: GPL-2.0
/*
 * device_latency.c - what a read costs on each device with none of ppf's
 * reads beside it, and how fast the device moves data while it is busy
 *
 * DOC: Quiet latency
 *
 * A read that a prefetch spared its task would have cost what a read costs
 * on the device when ppf is not reading it: that is the measure of the
 * back-off's benefit (payoff.c).  The mean of all the device's reads in a
 * window counts the prefetches' own reads and every task's read queued
 * behind them: on ssd a program start-up read ahead in one second gave a
 * mean of 3.59 ms where the device's reads take 108-244 us alone
 * (configure-ssd, docs/results.md).
 *
 * So each device's completed reads and the time they took (its block
 * statistics) are sampled at the worker's events, at most once a jiffy.
 * The reads completed between two samples are quiet if none of ppf's own
 * reads was in flight at either sample and none was started between them.
 * A device's quiet latency is the mean of PPF_QUIET_READS quiet reads,
 * renewed at each such count; 0 until the first.  A chunk whose read has
 * ended but which the pacing has not yet retired counts as in flight: a
 * quiet interval missed, not a loaded one taken for quiet.  The worker's
 * synchronous reads (a cold inode decoded, a directory looked up) are not
 * its own in this sense: each waits alone, as its task's open would have.
 *
 * DOC: Device rate
 *
 * Prefetched data queued in the elevator is data a task's read may wait
 * behind: at best effort, the worker's class by default (DOC: I/O
 * class), mq-deadline serves the two together in one pass up the
 * sectors, and a read below the pass's head waits for what is queued
 * above it.  How long that can be is the data queued over the rate at
 * which the device moves it, and a bound in bytes (max_inflight_kb)
 * means 1.6 s on the paper's disk and 2 ms on an NVMe drive.  So each
 * device's rate while busy is measured, from the same samples as its
 * quiet latency: the sectors it read and wrote between two samples over
 * the time it had requests in flight (its block statistics' io_ticks),
 * figured again each time PPF_RATE_BUSY_MS of busy time has gone by; 0
 * until the first.  ppf_device_queue_pages() turns max_inflight_ms into
 * pages at that rate (DOC: Prefetching a predicted file).
 *
 * Everything here runs under ppf_worker_mutex.
 */
#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/part_stat.h>
#include "ppf.h"
#include "ppf_trace.h"

/* The devices sampled; the others have no quiet latency. */
#define PPF_LATENCY_DEVS	16
/* Quiet reads averaged into one figure of the quiet latency. */
#define PPF_QUIET_READS		16
/* Busy time over which one figure of a device's rate is measured. */
#define PPF_RATE_BUSY_MS	100
/*
 * A device's queue of prefetches is never bounded below this many pages
 * (two 256 KiB chunks): one being served and one queued, so that the
 * device does not wait for the worker between them.
 */
#define PPF_QUEUE_MIN_PAGES	(2 * PPF_SEG_PAGES)

/**
 * struct ppf_device_latency - one device's reads, as sampled
 * @dev: the device number, 0 for a free slot; set once
 * @sampled: jiffies of the last sample
 * @sample_quiet: none of ppf's reads was in flight at that sample
 * @sample_own: ppf_own_reads then
 * @sample_ios: the device's completed reads then
 * @sample_ns: the time they took
 * @quiet_ios: reads completed between quiet samples, not yet averaged
 * @quiet_ns: the time they took
 * @quiet_ns_read: the quiet latency: their mean, the last time
 *	PPF_QUIET_READS were counted; 0 until then
 * @sample_sectors: the sectors it had read and written at the last sample
 * @sample_ticks: its busy time then: jiffies with requests in flight
 * @busy_sectors: sectors moved since the rate was last figured
 * @busy_ticks: the busy time they took (jiffies)
 * @rate: sectors a second while busy, the last time PPF_RATE_BUSY_MS of
 *	busy time were counted; 0 until then
 * @peak_rate: the highest @rate figured: close to the device's media rate
 *	(ppf_device_transfer_ns())
 */
struct ppf_device_latency {
	dev_t dev;
	unsigned long sampled;
	bool sample_quiet;
	unsigned long sample_own;
	u64 sample_ios;
	u64 sample_ns;
	u64 quiet_ios;
	u64 quiet_ns;
	u64 quiet_ns_read;
	u64 sample_sectors;
	unsigned long sample_ticks;
	u64 busy_sectors;
	unsigned long busy_ticks;
	u64 rate;
	u64 peak_rate;
};

static struct ppf_device_latency ppf_latencies[PPF_LATENCY_DEVS];
/* ppf's own asynchronous reads started, ever (ppf_device_own_read()). */
static unsigned long ppf_own_reads;

/* A device's block statistics, as ppf reads them. */
struct ppf_device_counters {
	u64 ios;		/* reads completed */
	u64 ns;			/* the time they took */
	u64 sectors;		/* sectors read and written */
	unsigned long ticks;	/* jiffies with requests in flight */
};

/* @s's device's counters; false if it has no block device (or is gone). */
static bool ppf_device_counters(struct ppf_sb *s,
				struct ppf_device_counters *c)
{
	struct super_block *sb = ppf_sb_pin(s);
	bool ok = false;

	if (!sb)
		return false;
	if (sb->s_bdev) {
		c->ios = part_stat_read(sb->s_bdev, ios[STAT_READ]);
		c->ns = part_stat_read(sb->s_bdev, nsecs[STAT_READ]);
		c->sectors = part_stat_read(sb->s_bdev, sectors[STAT_READ]) +
			     part_stat_read(sb->s_bdev, sectors[STAT_WRITE]);
		c->ticks = part_stat_read(sb->s_bdev, io_ticks);
		ok = true;
	}
	ppf_sb_unpin(sb);
	return ok;
}

/**
 * ppf_device_reads() - a file system's device's completed reads so far
 * @s: the file system
 * @ios: set to the reads completed
 * @ns: set to the time they took
 *
 * Return: false if it has no block device (or is gone): nothing set.
 */
bool ppf_device_reads(struct ppf_sb *s, u64 *ios, u64 *ns)
{
	struct ppf_device_counters c;

	if (!ppf_device_counters(s, &c))
		return false;
	*ios = c.ios;
	*ns = c.ns;
	return true;
}

/**
 * ppf_device_rotational() - whether a file system's device positions an arm
 * @s: the file system
 *
 * Read at each decision, not kept: an administrator may set a device's
 * queue/rotational at any time.
 *
 * Return: true if its block device is rotational; false if it is not, it
 * has none, or it is gone.
 */
bool ppf_device_rotational(struct ppf_sb *s)
{
	struct super_block *sb = ppf_sb_pin(s);
	bool rotational;

	if (!sb)
		return false;
	rotational = sb->s_bdev && !bdev_nonrot(sb->s_bdev);
	ppf_sb_unpin(sb);
	return rotational;
}

/* The device's slot, made on first use; NULL when all are taken. */
static struct ppf_device_latency *ppf_latency_of(dev_t dev, bool create)
{
	unsigned int i;

	lockdep_assert_held(&ppf_worker_mutex);
	for (i = 0; i < PPF_LATENCY_DEVS; i++) {
		struct ppf_device_latency *d = &ppf_latencies[i];

		if (d->dev == dev)
			return d;
		if (!d->dev) {
			if (!create)
				return NULL;
			d->dev = dev;
			d->sampled = jiffies - 1;
			return d;
		}
	}
	return NULL;
}

/**
 * ppf_device_own_read() - the worker started a read of its own
 *
 * Readahead of a file's pages or of metadata blocks, which completes
 * later: the reads sampled around it are not quiet.
 */
void ppf_device_own_read(void)
{
	lockdep_assert_held(&ppf_worker_mutex);
	ppf_own_reads++;
}

/* ppf_device_queue_pages() for @s's device, its slot @d. */
static unsigned long ppf_queue_pages(const struct ppf_device_latency *d,
				     struct ppf_sb *s, unsigned long limit)
{
	unsigned int ms = READ_ONCE(ppf_config.max_inflight_ms);
	unsigned long pages;

	if (!ms || !d->rate || ppf_device_rotational(s))
		return limit;
	/* sectors a second, times ms, in pages */
	pages = div64_u64(d->rate * ms, MSEC_PER_SEC) >>
		(PAGE_SHIFT - SECTOR_SHIFT);
	return clamp_t(unsigned long, pages, PPF_QUEUE_MIN_PAGES, limit);
}

/* The device's rate: the data moved over the busy time (DOC: Device rate). */
static void ppf_device_sample_rate(struct ppf_device_latency *d,
				   struct ppf_sb *s,
				   const struct ppf_device_counters *c)
{
	/* The first sample, or the counters went back (a device reset). */
	if (d->sample_ticks && c->ticks >= d->sample_ticks &&
	    c->sectors >= d->sample_sectors) {
		d->busy_sectors += c->sectors - d->sample_sectors;
		d->busy_ticks += c->ticks - d->sample_ticks;
		if (d->busy_ticks >= msecs_to_jiffies(PPF_RATE_BUSY_MS)) {
			unsigned long limit = READ_ONCE(ppf_config.max_inflight_kb) >>
					      (PAGE_SHIFT - 10);

			d->rate = div64_u64(d->busy_sectors * HZ, d->busy_ticks);
			d->peak_rate = max(d->peak_rate, d->rate);
			d->busy_sectors = 0;
			d->busy_ticks = 0;
			trace_ppf_device_rate(d->dev, d->rate >> 1,
					      ppf_queue_pages(d, s, limit) <<
					      (PAGE_SHIFT - 10));
		}
	}
	d->sample_sectors = c->sectors;
	d->sample_ticks = c->ticks;
}

/**
 * ppf_device_sample() - sample the reads of a file system's device
 * @s: the file system of an event's file
 * @busy: some of ppf's readahead is counted in flight now
 *	(ppf_prefetch_in_flight())
 *
 * At most once a jiffy for each device.
 */
void ppf_device_sample(struct ppf_sb *s, bool busy)
{
	struct ppf_device_latency *d = ppf_latency_of(ppf_sb_dev(s), true);
	struct ppf_device_counters c;
	bool quiet;

	if (!d || !time_after(jiffies, d->sampled) ||
	    !ppf_device_counters(s, &c))
		return;
	quiet = !busy;
	if (quiet && d->sample_quiet && d->sample_own == ppf_own_reads &&
	    c.ios > d->sample_ios) {
		d->quiet_ios += c.ios - d->sample_ios;
		d->quiet_ns += c.ns - d->sample_ns;
		if (d->quiet_ios >= PPF_QUIET_READS) {
			d->quiet_ns_read = div64_u64(d->quiet_ns, d->quiet_ios);
			d->quiet_ios = 0;
			d->quiet_ns = 0;
		}
	}
	ppf_device_sample_rate(d, s, &c);
	d->sampled = jiffies;
	d->sample_quiet = quiet;
	d->sample_own = ppf_own_reads;
	d->sample_ios = c.ios;
	d->sample_ns = c.ns;
}

/**
 * ppf_device_quiet_latency() - what a read costs on a device alone
 * @dev: the device
 *
 * Return: its quiet latency in ns, 0 while none is known.
 */
u64 ppf_device_quiet_latency(dev_t dev)
{
	struct ppf_device_latency *d = ppf_latency_of(dev, false);

	return d ? d->quiet_ns_read : 0;
}

/**
 * ppf_device_transfer_ns() - how long a device takes to move pages
 * @dev: the device
 * @pages: how many
 *
 * At the highest rate it was measured at while busy (DOC: Device rate):
 * a window of sequential reads comes close to its media rate, one of
 * scattered reads is slowed by its positioning, which the quiet latency
 * counts instead.  The caller holds ppf_worker_mutex.
 *
 * Return: ns, 0 while no rate is known.
 */
u64 ppf_device_transfer_ns(dev_t dev, unsigned long pages)
{
	struct ppf_device_latency *d = ppf_latency_of(dev, false);

	if (!d || !d->peak_rate)
		return 0;
	return div64_u64(((u64)pages << (PAGE_SHIFT - SECTOR_SHIFT)) *
			 NSEC_PER_SEC, d->peak_rate);
}

/**
 * ppf_device_queue_pages() - the most prefetched data to keep queued for a
 * file system's device
 * @s: the file system of the file about to be read ahead
 * @limit: the bound in pages otherwise (max_inflight_kb)
 *
 * On a device without an arm, what max_inflight_ms of its rate moves
 * (DOC: Device rate), at least PPF_QUEUE_MIN_PAGES, at most @limit.  On a
 * rotational one @limit: there a deep queue is what the elevator sorts
 * into sweeps, and the arm's positioning, not the transfer, is the cost
 * (DOC: Sweeps).  @limit too while the rate is not known yet, and with
 * max_inflight_ms 0.  The caller holds ppf_worker_mutex.
 *
 * Return: pages.
 */
unsigned long ppf_device_queue_pages(struct ppf_sb *s, unsigned long limit)
{
	struct ppf_device_latency *d = ppf_latency_of(ppf_sb_dev(s), false);

	return d ? ppf_queue_pages(d, s, limit) : limit;
}
