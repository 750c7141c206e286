// SPDX-License-Identifier: GPL-2.0
/*
 * device_latency.c - what a read costs on each device with none of ppf's
 * reads beside it
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
 * Everything here runs under ppf_worker_mutex.
 */
#include <linux/blkdev.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/part_stat.h>
#include "ppf.h"

/* The devices sampled; the others have no quiet latency. */
#define PPF_LATENCY_DEVS	16
/* Quiet reads averaged into one figure of the quiet latency. */
#define PPF_QUIET_READS		16

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
};

static struct ppf_device_latency ppf_latencies[PPF_LATENCY_DEVS];
/* ppf's own asynchronous reads started, ever (ppf_device_own_read()). */
static unsigned long ppf_own_reads;

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
	struct super_block *sb = ppf_sb_pin(s);
	bool ok = false;

	if (!sb)
		return false;
	if (sb->s_bdev) {
		*ios = part_stat_read(sb->s_bdev, ios[STAT_READ]);
		*ns = part_stat_read(sb->s_bdev, nsecs[STAT_READ]);
		ok = true;
	}
	ppf_sb_unpin(sb);
	return ok;
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
	u64 ios, ns;
	bool quiet;

	if (!d || !time_after(jiffies, d->sampled) ||
	    !ppf_device_reads(s, &ios, &ns))
		return;
	quiet = !busy;
	if (quiet && d->sample_quiet && d->sample_own == ppf_own_reads &&
	    ios > d->sample_ios) {
		d->quiet_ios += ios - d->sample_ios;
		d->quiet_ns += ns - d->sample_ns;
		if (d->quiet_ios >= PPF_QUIET_READS) {
			d->quiet_ns_read = div64_u64(d->quiet_ns, d->quiet_ios);
			d->quiet_ios = 0;
			d->quiet_ns = 0;
		}
	}
	d->sampled = jiffies;
	d->sample_quiet = quiet;
	d->sample_own = ppf_own_reads;
	d->sample_ios = ios;
	d->sample_ns = ns;
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
