/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppf_simdisk: a memory-backed block device that takes as long as a
 * rotational disk would (test equipment for ppf's evaluation, eval/blkdev).
 *
 * simdisk-model.c holds the timing model (one arm: seek, rotation,
 * transfer, the drive's read-ahead buffer), simdisk-main.c the block
 * device (storage, queue, completion timer).
 */
#ifndef PPF_SIMDISK_H
#define PPF_SIMDISK_H

#include <linux/types.h>

/**
 * struct simdisk_geom - the modelled drive, fixed at load time
 * @capacity: sectors of the whole modelled disk (seek distances are
 *	fractions of it; the device may export only its first part)
 * @rot_ns: one revolution
 * @spt: sectors per track (media rate times @rot_ns)
 * @skew: track skew in sectors: the sectors that pass under the head
 *	during a track-to-track seek, so a sequential transfer that crosses a
 *	track boundary does not wait a whole revolution
 * @seek_track_ns: track-to-track seek
 * @seek_full_ns: full-stroke seek
 * @overhead_ns: controller overhead per command
 * @iface_ps: interface transfer time per sector, in picoseconds
 * @buf_sectors: read-ahead buffer (segment) size
 */
struct simdisk_geom {
	u64 capacity;
	u64 rot_ns;
	u32 spt;
	u32 skew;
	u64 seek_track_ns;
	u64 seek_full_ns;
	u64 overhead_ns;
	u64 iface_ps;
	u64 buf_sectors;
};

/**
 * struct simdisk_head - the arm and the read-ahead buffer
 * @pos: the sector after the last one the head read or wrote
 * @t_ns: when it got there
 * @buf_start: first sector the buffer holds (when @ra)
 * @ra_limit: read-ahead stops before this sector (when @ra)
 * @ra: true after a read: from (@pos, @t_ns) the head keeps reading
 *	ahead into the buffer, one track every revolution, up to @ra_limit
 */
struct simdisk_head {
	u64 pos;
	u64 t_ns;
	u64 buf_start;
	u64 ra_limit;
	bool ra;
};

u64 simdisk_seek_ns(const struct simdisk_geom *g, u64 distance);
u64 simdisk_access(const struct simdisk_geom *g, const struct simdisk_head *h,
		   u64 start_ns, u64 sector, u32 nr, bool write,
		   struct simdisk_head *after);

#endif /* PPF_SIMDISK_H */
