// SPDX-License-Identifier: GPL-2.0
/*
 * ppf_simdisk timing model: what one request costs a rotational disk.
 *
 * One arm serves one request at a time.  A request costs the controller's
 * overhead, then either an interface transfer alone (its sectors are in the
 * read-ahead buffer), or the wait until a running read-ahead reaches them,
 * or a positioned access: seek by distance, rotational latency from the
 * platter's angle at that moment, transfer at the media rate.  Everything is
 * integer arithmetic on the guest's clock, so under QEMU -icount the same
 * requests at the same times cost the same in every boot.
 */
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>

#include "simdisk.h"

/* time for n sectors to pass under the head */
static u64 sectors_ns(const struct simdisk_geom *g, u64 n)
{
	return mul_u64_u64_div_u64(n, g->rot_ns, g->spt);
}

/* sectors that pass under the head in dt */
static u64 ns_sectors(const struct simdisk_geom *g, u64 dt)
{
	return mul_u64_u64_div_u64(dt, g->spt, g->rot_ns);
}

/* the angular position (in sectors of a track) under the head at time t */
static u64 angle_at(const struct simdisk_geom *g, u64 t)
{
	u64 rem;

	div64_u64_rem(t, g->rot_ns, &rem);
	return ns_sectors(g, rem);
}

/* the angular position of a sector: its place in the track, skewed */
static u64 sector_angle(const struct simdisk_geom *g, u64 sector)
{
	u64 in_track, track = div64_u64_rem(sector, g->spt, &in_track);
	u64 skewed, rem;

	skewed = in_track + track * g->skew;
	div64_u64_rem(skewed, g->spt, &rem);
	return rem;
}

/**
 * simdisk_seek_ns() - seek time over a distance
 * @g: the drive
 * @distance: sectors between the head and the target
 *
 * Zero for distance 0; otherwise track-to-track plus (full stroke -
 * track-to-track) * sqrt(distance / capacity), the shape of an arm that
 * accelerates over half the way and brakes over the other (Ruemmler &
 * Wilkes, "An introduction to disk drive modeling", 1994).  The average of
 * sqrt(|x - y|) over uniform x, y in [0, 1] is 8/15; the loader derives the
 * full stroke from the datasheet's average seek with it.
 *
 * Return: nanoseconds.
 */
u64 simdisk_seek_ns(const struct simdisk_geom *g, u64 distance)
{
	u64 frac, root;

	if (!distance)
		return 0;
	distance = min(distance, g->capacity);
	frac = mul_u64_u64_div_u64(distance, 1ULL << 40, g->capacity);
	root = int_sqrt64(frac);	/* sqrt(distance / capacity) << 20 */
	return g->seek_track_ns +
	       mul_u64_u64_div_u64(g->seek_full_ns - g->seek_track_ns, root, 1ULL << 20);
}

/* where a running read-ahead has got to at time t */
static u64 ra_pos(const struct simdisk_geom *g, const struct simdisk_head *h, u64 t)
{
	if (t <= h->t_ns)
		return h->pos;
	return min(h->pos + ns_sectors(g, t - h->t_ns), h->ra_limit);
}

/* the part of a positioned access after the head arrives at time t */
static u64 transfer_done(const struct simdisk_geom *g, u64 t, u64 sector, u32 nr)
{
	u64 crossings = div64_u64(sector + nr - 1, g->spt) - div64_u64(sector, g->spt);
	u64 iface = div64_u64((u64)nr * g->iface_ps, 1000);
	u64 wait, media;

	div64_u64_rem(sector_angle(g, sector) + g->spt - angle_at(g, t), g->spt, &wait);
	media = sectors_ns(g, wait + nr + crossings * g->skew);
	/* the interface streams while the media reads; the slower one counts */
	return t + max(media, sectors_ns(g, wait) + iface);
}

/**
 * simdisk_access() - the completion time of one request
 * @g: the drive
 * @h: the head and buffer before the request
 * @start_ns: when the drive starts on the request
 * @sector: first sector
 * @nr: sectors
 * @write: a write (write cache off: positioned like a read, no buffer)
 * @after: the head and buffer after the request
 *
 * Return: the completion time, in ns of the guest's monotonic clock.
 */
u64 simdisk_access(const struct simdisk_geom *g, const struct simdisk_head *h,
		   u64 start_ns, u64 sector, u32 nr, bool write,
		   struct simdisk_head *after)
{
	u64 t = start_ns + g->overhead_ns, end = sector + nr, done, at, from;

	*after = *h;
	if (!write && h->ra) {
		at = ra_pos(g, h, t);
		from = max(h->buf_start, at > g->buf_sectors ? at - g->buf_sectors : 0);
		if (sector >= from && end <= at) {
			/* a buffer hit: the interface transfer alone */
			if (at < h->ra_limit)
				after->ra_limit = max(h->ra_limit, end + g->buf_sectors);
			return t + div64_u64((u64)nr * g->iface_ps, 1000);
		}
		if (sector >= from && sector <= at && at < h->ra_limit) {
			/* read-ahead is streaming towards it: wait for the head */
			done = max(t, h->t_ns + sectors_ns(g, end - h->pos));
			after->pos = end;
			after->t_ns = done;
			after->ra_limit = end + g->buf_sectors;
			return done;
		}
	}
	from = h->ra ? ra_pos(g, h, t) : h->pos;
	if (div64_u64(sector, g->spt) != div64_u64(from, g->spt))
		t += simdisk_seek_ns(g, sector > from ? sector - from : from - sector);
	done = transfer_done(g, t, sector, nr);
	after->pos = end;
	after->t_ns = done;
	after->ra = !write;
	after->buf_start = sector;
	after->ra_limit = end + g->buf_sectors;
	return done;
}
