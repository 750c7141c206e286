// SPDX-License-Identifier: GPL-2.0
/*
 * ppf_simdisk: a memory-backed block device (/dev/simdisk0) that completes
 * every request when a rotational disk would (simdisk-model.c).
 *
 * Test equipment for ppf's evaluation, not part of predictive_prefetch.ko.
 * The data lives in an xarray of pages allocated on first write, as in
 * drivers/block/brd.c, and is copied when the request arrives (queue_rq
 * may sleep: BLK_MQ_F_BLOCKING, so pages are allocated with GFP_NOIO).  One
 * hardware queue of queue_depth tags: with 1 the kernel's elevator orders
 * the requests; with more, the drive holds up to that many and serves next
 * the one it can finish first, as NCQ firmware does.  A request's
 * completion comes from an hrtimer at the modelled time (as null_blk's
 * irqmode=2), on the guest's monotonic clock, which QEMU's -icount makes
 * count instructions: the same in every boot.
 *
 * While "timed" is 0 every request completes at once (the harness copies
 * the workload's image onto the device that way, then sets it to 1).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>

#include "simdisk.h"

static unsigned long size_mb = 1024;
module_param(size_mb, ulong, 0444);
MODULE_PARM_DESC(size_mb, "exported size in MiB (memory is used only for written data)");

static unsigned long disk_mb;
module_param(disk_mb, ulong, 0444);
MODULE_PARM_DESC(disk_mb, "capacity of the modelled disk in MiB, the device being its start (default size_mb)");

static unsigned int queue_depth = 1;
module_param(queue_depth, uint, 0444);
MODULE_PARM_DESC(queue_depth, "requests the drive holds at once (1: none queued; 32: SATA NCQ)");

static unsigned int rpm = 7200;
module_param(rpm, uint, 0444);
MODULE_PARM_DESC(rpm, "spindle speed");

static unsigned int media_kbps = 10000;
module_param(media_kbps, uint, 0444);
MODULE_PARM_DESC(media_kbps, "media transfer rate in kB/s (1000 bytes)");

static unsigned int seek_track_us = 600;
module_param(seek_track_us, uint, 0444);
MODULE_PARM_DESC(seek_track_us, "track-to-track seek in us");

static unsigned int seek_avg_us = 8800;
module_param(seek_avg_us, uint, 0444);
MODULE_PARM_DESC(seek_avg_us, "average seek over random pairs of positions in us");

static unsigned int overhead_us = 100;
module_param(overhead_us, uint, 0444);
MODULE_PARM_DESC(overhead_us, "controller overhead per command in us");

static unsigned int iface_mbps = 40;
module_param(iface_mbps, uint, 0444);
MODULE_PARM_DESC(iface_mbps, "interface transfer rate in MB/s");

static unsigned int buffer_kb = 512;
module_param(buffer_kb, uint, 0444);
MODULE_PARM_DESC(buffer_kb, "read-ahead buffer in KiB (0: none)");

static unsigned int max_kb = 1280;
module_param(max_kb, uint, 0444);
MODULE_PARM_DESC(max_kb, "largest request in KiB");

static unsigned int ncq_age_ms = 500;
module_param(ncq_age_ms, uint, 0444);
MODULE_PARM_DESC(ncq_age_ms, "a request queued in the drive this long is served next");

static bool timed;
module_param(timed, bool, 0644);
MODULE_PARM_DESC(timed, "1: complete requests at the modelled time; 0: at once");

/**
 * struct simdisk_cmd - a request in the drive
 * @node: in simdisk.pending
 * @rq: the request
 * @arrival_ns: when queue_rq saw it
 */
struct simdisk_cmd {
	struct list_head node;
	struct request *rq;
	u64 arrival_ns;
};

/**
 * struct simdisk - the device
 * @pages: the data, one page per PAGE_SECTORS sectors, absent: zeros
 * @lock: protects the fields below it
 * @pending: requests in the drive, not yet started
 * @cur: the request the arm is serving (NULL: idle)
 * @done_ns: when @cur completes (or the last one completed)
 * @head: the arm and buffer, as of the start of the next request
 * @timer: fires at @done_ns
 * @geom: the modelled drive
 * @tag_set: one hardware queue
 * @disk: simdisk0
 */
struct simdisk {
	struct xarray pages;
	spinlock_t lock;	/* the arm: pending, cur, done_ns, head */
	struct list_head pending;
	struct simdisk_cmd *cur;
	u64 done_ns;
	struct simdisk_head head;
	struct hrtimer timer;
	struct simdisk_geom geom;
	struct blk_mq_tag_set tag_set;
	struct gendisk *disk;
};

static int simdisk_major;
static struct simdisk *simdisk;

/* copy one segment of a request from or to the device's pages */
static int simdisk_copy(struct simdisk *sd, struct bio_vec *bv, sector_t sector,
			bool write)
{
	unsigned int done = 0;

	while (done < bv->bv_len) {
		pgoff_t idx = sector >> PAGE_SECTORS_SHIFT;
		unsigned int off = (sector & (PAGE_SECTORS - 1)) << SECTOR_SHIFT;
		unsigned int len = min(bv->bv_len - done, (unsigned int)PAGE_SIZE - off);
		struct page *page = xa_load(&sd->pages, idx);

		if (!page && write) {
			struct page *new = alloc_page(GFP_NOIO | __GFP_ZERO);

			if (!new)
				return -ENOMEM;
			page = xa_cmpxchg(&sd->pages, idx, NULL, new, GFP_NOIO);
			if (xa_is_err(page)) {
				__free_page(new);
				return xa_err(page);
			}
			if (page)
				__free_page(new);	/* another writer was first */
			else
				page = new;
		}
		if (write)
			memcpy_page(page, off, bv->bv_page, bv->bv_offset + done, len);
		else if (page)
			memcpy_page(bv->bv_page, bv->bv_offset + done, page, off, len);
		else
			memzero_page(bv->bv_page, bv->bv_offset + done, len);
		done += len;
		sector += len >> SECTOR_SHIFT;
	}
	return 0;
}

static blk_status_t simdisk_copy_rq(struct simdisk *sd, struct request *rq)
{
	bool write = req_op(rq) == REQ_OP_WRITE;
	sector_t sector = blk_rq_pos(rq);
	struct req_iterator iter;
	struct bio_vec bv;

	rq_for_each_segment(bv, rq, iter) {
		if (simdisk_copy(sd, &bv, sector, write))
			return BLK_STS_RESOURCE;
		sector += bv.bv_len >> SECTOR_SHIFT;
	}
	return BLK_STS_OK;
}

/* when cmd would complete if the arm took it up at free_ns */
static u64 simdisk_cost(struct simdisk *sd, struct simdisk_cmd *cmd, u64 free_ns,
			struct simdisk_head *after)
{
	struct request *rq = cmd->rq;

	return simdisk_access(&sd->geom, &sd->head, max(free_ns, cmd->arrival_ns),
			      blk_rq_pos(rq), blk_rq_sectors(rq),
			      req_op(rq) == REQ_OP_WRITE, after);
}

/**
 * simdisk_start_next() - give the arm its next request
 * @sd: the device, locked
 * @free_ns: when the arm became free
 *
 * Picks the pending request that would complete first (shortest access
 * time first, as NCQ firmware does), unless the oldest has waited
 * ncq_age_ms: then that one, so that none starves.  With queue depth 1
 * there is one to pick.
 *
 * Return: true if the arm has a request, completing at @sd->done_ns.
 */
static bool simdisk_start_next(struct simdisk *sd, u64 free_ns)
{
	struct simdisk_cmd *cmd, *best;
	struct simdisk_head after, best_after;
	u64 done, best_done;

	if (list_empty(&sd->pending))
		return false;
	best = list_first_entry(&sd->pending, struct simdisk_cmd, node);
	best_done = simdisk_cost(sd, best, free_ns, &best_after);
	if (free_ns - min(free_ns, best->arrival_ns) < (u64)ncq_age_ms * NSEC_PER_MSEC) {
		list_for_each_entry(cmd, &sd->pending, node) {
			done = simdisk_cost(sd, cmd, free_ns, &after);
			if (done < best_done) {
				best_done = done;
				best_after = after;
				best = cmd;
			}
		}
	}
	list_del(&best->node);
	sd->cur = best;
	sd->head = best_after;
	sd->done_ns = best_done;
	return true;
}

static enum hrtimer_restart simdisk_timer_fn(struct hrtimer *timer)
{
	struct simdisk *sd = container_of(timer, struct simdisk, timer);
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	struct simdisk_cmd *done;
	unsigned long flags;

	spin_lock_irqsave(&sd->lock, flags);
	done = sd->cur;
	sd->cur = NULL;
	if (simdisk_start_next(sd, sd->done_ns)) {
		hrtimer_set_expires(timer, ns_to_ktime(sd->done_ns));
		ret = HRTIMER_RESTART;
	}
	spin_unlock_irqrestore(&sd->lock, flags);
	if (done)
		blk_mq_end_request(done->rq, BLK_STS_OK);
	return ret;
}

static blk_status_t simdisk_queue_rq(struct blk_mq_hw_ctx *hctx,
				     const struct blk_mq_queue_data *bd)
{
	struct simdisk *sd = hctx->queue->queuedata;
	struct simdisk_cmd *cmd = blk_mq_rq_to_pdu(bd->rq);
	struct request *rq = bd->rq;
	unsigned long flags;
	blk_status_t st;
	u64 now;

	blk_mq_start_request(rq);
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		break;
	case REQ_OP_FLUSH:	/* no write cache: nothing to flush */
		blk_mq_end_request(rq, BLK_STS_OK);
		return BLK_STS_OK;
	default:
		return BLK_STS_NOTSUPP;
	}
	st = simdisk_copy_rq(sd, rq);
	if (st != BLK_STS_OK || !READ_ONCE(timed)) {
		blk_mq_end_request(rq, st);
		return BLK_STS_OK;
	}
	now = ktime_get_ns();
	cmd->rq = rq;
	cmd->arrival_ns = now;
	spin_lock_irqsave(&sd->lock, flags);
	list_add_tail(&cmd->node, &sd->pending);
	if (!sd->cur && simdisk_start_next(sd, max(now, sd->done_ns)))
		hrtimer_start(&sd->timer, ns_to_ktime(sd->done_ns), HRTIMER_MODE_ABS);
	spin_unlock_irqrestore(&sd->lock, flags);
	return BLK_STS_OK;
}

static const struct blk_mq_ops simdisk_mq_ops = {
	.queue_rq = simdisk_queue_rq,
};

static const struct block_device_operations simdisk_fops = {
	.owner = THIS_MODULE,
};

/**
 * simdisk_geometry() - the modelled drive from the module parameters
 * @g: filled in
 *
 * The full-stroke seek follows from the average: over random pairs of
 * positions, sqrt(distance / capacity) averages 8/15 (simdisk_seek_ns()),
 * so full = track + (average - track) * 15 / 8.
 *
 * Return: 0, or -EINVAL for parameters that describe no drive.
 */
static int simdisk_geometry(struct simdisk_geom *g)
{
	u64 track_bytes;

	if (!size_mb || !rpm || !media_kbps || !iface_mbps || !queue_depth ||
	    max_kb < 4 || seek_avg_us < seek_track_us) {
		pr_err("ppf_simdisk: size_mb, rpm, media_kbps, iface_mbps, queue_depth must be > 0, max_kb >= 4, seek_avg_us >= seek_track_us\n");
		return -EINVAL;
	}
	g->capacity = (u64)max(disk_mb, size_mb) << (20 - SECTOR_SHIFT);
	g->rot_ns = div_u64(60ULL * NSEC_PER_SEC, rpm);
	track_bytes = div_u64((u64)media_kbps * 1000 * g->rot_ns, NSEC_PER_SEC);
	g->spt = max_t(u64, 1, track_bytes >> SECTOR_SHIFT);
	g->seek_track_ns = (u64)seek_track_us * NSEC_PER_USEC;
	g->seek_full_ns = g->seek_track_ns +
		div_u64(((u64)seek_avg_us - seek_track_us) * NSEC_PER_USEC * 15, 8);
	g->skew = min_t(u64, g->spt - 1,
			DIV_ROUND_UP_ULL(g->seek_track_ns * g->spt, g->rot_ns));
	g->overhead_ns = (u64)overhead_us * NSEC_PER_USEC;
	g->iface_ps = div_u64(512ULL * 1000000, iface_mbps);
	g->buf_sectors = (u64)buffer_kb << (10 - SECTOR_SHIFT);
	return 0;
}

static int simdisk_alloc(struct simdisk *sd)
{
	struct queue_limits lim = {
		.logical_block_size = SECTOR_SIZE,
		.physical_block_size = PAGE_SIZE,
		.max_hw_sectors = max_kb << (10 - SECTOR_SHIFT),
		.features = BLK_FEAT_ROTATIONAL,
	};
	struct gendisk *disk;
	int err;

	sd->tag_set.ops = &simdisk_mq_ops;
	sd->tag_set.nr_hw_queues = 1;
	sd->tag_set.queue_depth = queue_depth;
	sd->tag_set.numa_node = NUMA_NO_NODE;
	sd->tag_set.cmd_size = sizeof(struct simdisk_cmd);
	sd->tag_set.flags = BLK_MQ_F_SHOULD_MERGE | BLK_MQ_F_BLOCKING;
	err = blk_mq_alloc_tag_set(&sd->tag_set);
	if (err)
		return err;
	disk = blk_mq_alloc_disk(&sd->tag_set, &lim, sd);
	if (IS_ERR(disk)) {
		blk_mq_free_tag_set(&sd->tag_set);
		return PTR_ERR(disk);
	}
	disk->major = simdisk_major;
	disk->first_minor = 0;
	disk->minors = 1;
	disk->fops = &simdisk_fops;
	disk->private_data = sd;
	strscpy(disk->disk_name, "simdisk0", DISK_NAME_LEN);
	set_capacity(disk, (sector_t)size_mb << (20 - SECTOR_SHIFT));
	err = add_disk(disk);
	if (err) {
		put_disk(disk);
		blk_mq_free_tag_set(&sd->tag_set);
		return err;
	}
	sd->disk = disk;
	return 0;
}

static void simdisk_free_pages(struct simdisk *sd)
{
	struct page *page;
	unsigned long idx;

	xa_for_each(&sd->pages, idx, page) {
		__free_page(page);
		cond_resched();
	}
	xa_destroy(&sd->pages);
}

static int __init simdisk_init(void)
{
	struct simdisk *sd;
	int err;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	err = simdisk_geometry(&sd->geom);
	if (err)
		goto free;
	xa_init(&sd->pages);
	spin_lock_init(&sd->lock);
	INIT_LIST_HEAD(&sd->pending);
	hrtimer_init(&sd->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	sd->timer.function = simdisk_timer_fn;
	err = register_blkdev(0, "simdisk");
	if (err < 0)
		goto free;
	simdisk_major = err;
	err = simdisk_alloc(sd);
	if (err)
		goto unregister;
	simdisk = sd;
	pr_info("ppf_simdisk: simdisk0 %lu MiB of %llu MiB, %u rpm, %u sectors/track, seek %llu-%llu us, depth %u\n",
		size_mb, sd->geom.capacity >> (20 - SECTOR_SHIFT), rpm, sd->geom.spt,
		div_u64(sd->geom.seek_track_ns, NSEC_PER_USEC),
		div_u64(sd->geom.seek_full_ns, NSEC_PER_USEC), queue_depth);
	return 0;
unregister:
	unregister_blkdev(simdisk_major, "simdisk");
free:
	kfree(sd);
	return err;
}

static void __exit simdisk_exit(void)
{
	struct simdisk *sd = simdisk;

	del_gendisk(sd->disk);	/* waits for the requests in flight */
	hrtimer_cancel(&sd->timer);
	put_disk(sd->disk);
	blk_mq_free_tag_set(&sd->tag_set);
	simdisk_free_pages(sd);
	unregister_blkdev(simdisk_major, "simdisk");
	kfree(sd);
}

module_init(simdisk_init);
module_exit(simdisk_exit);
MODULE_DESCRIPTION("ppf evaluation: a memory-backed disk with a rotational disk's timing");
MODULE_LICENSE("GPL");
