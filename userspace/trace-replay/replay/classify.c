// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: classification of a read or mapped range as a page-cache
 * hit, partial hit or miss, just before the call (docs/replay.md).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "run.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

struct cs_range {
	uint64_t off, len;
};

struct cs_stat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

/* Does this kernel have cachestat() (6.5+)? Without it, mincore alone. */
int replay_have_cachestat(void)
{
	struct cs_range r = { 0, 0 };
	struct cs_stat cs;
	long rc = syscall(__NR_cachestat, -1, &r, &cs, 0);

	return !(rc < 0 && errno == ENOSYS);
}

/*
 * hit: every page of the range present and uptodate; partial: some present,
 * or all present but some not uptodate (being read); miss: none present.
 * cachestat() counts present pages; mincore() on a mapping (never touched)
 * says which are uptodate. An empty range (read at EOF) needs no I/O: hit.
 * With @presence (and cachestat), present pages count as uptodate: no
 * mincore, whose cost grows with the pages present (a reference taken on
 * each), where a whole mapping's class is only a count in the report.
 */
enum replay_class replay_classify(struct replay_state *r, struct replay_thread *th, int fd,
				  int64_t off, int64_t len, int presence)
{
	struct stat st;
	uint64_t start, end, npages, first, cached = 0;

	if (fstat(fd, &st) || !S_ISREG(st.st_mode))
		return CLS_NONE;
	if (off < 0 || len <= 0 || off >= st.st_size)
		return CLS_HIT;
	end = (uint64_t)off + (uint64_t)len;
	if (end > (uint64_t)st.st_size || end < (uint64_t)off)
		end = (uint64_t)st.st_size;
	first = (uint64_t)off / REPLAY_PAGE;
	start = first * REPLAY_PAGE;
	npages = (end - start + REPLAY_PAGE - 1) / REPLAY_PAGE;

	if (r->have_cachestat) {
		struct cs_range r = { start, npages * REPLAY_PAGE };
		struct cs_stat cs;

		if (syscall(__NR_cachestat, fd, &r, &cs, 0) == 0) {
			if (cs.nr_cache == 0)
				return CLS_MISS;
			if (cs.nr_cache < npages)
				return CLS_PARTIAL;
			if (presence)
				return CLS_HIT;
			cached = cs.nr_cache;
		}
	}
	/* all present (or no cachestat): count uptodate pages with mincore */
	{
		uint64_t resident = 0, done = 0;

		while (done < npages) {
			uint64_t w = npages - done > RT_VEC ? RT_VEC : npages - done;
			void *m = mmap(NULL, w * REPLAY_PAGE, PROT_READ, MAP_SHARED, fd,
				       (off_t)(start + done * REPLAY_PAGE));

			if (m == MAP_FAILED)
				return cached ? CLS_HIT : CLS_NONE;
			if (mincore(m, w * REPLAY_PAGE, th->vec)) {
				munmap(m, w * REPLAY_PAGE);
				return cached ? CLS_HIT : CLS_NONE;
			}
			munmap(m, w * REPLAY_PAGE);
			for (uint64_t k = 0; k < w; k++)
				resident += th->vec[k] & 1;
			done += w;
		}
		if (resident == npages)
			return CLS_HIT;
		if (resident == 0 && !cached)
			return CLS_MISS;
		return CLS_PARTIAL;
	}
}
