// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: replay a trace against a tree made by build-tree.
 *
 * Before the timed part everything is prepared: the trace is parsed into a
 * plan (one entry per event: mapped path, fd slot, think time in spin
 * iterations, the prefix of events it must wait for), buffers are allocated
 * and locked, one thread per recorded pid is created and parked. The timed
 * part only issues the workload's calls, spins or sleeps, reads the clock and
 * writes into preallocated arrays. Design and definitions: docs/replay.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "replay.h"
#include "run.h"

#ifndef __NR_cachestat
#define __NR_cachestat 451
#endif

/* --think=sleep: gaps shorter than this are waited by polling the clock */
#define SLEEP_POLL_NS 20000

struct cs_range {
	uint64_t off, len;
};

struct cs_stat {
	uint64_t nr_cache, nr_dirty, nr_writeback, nr_evicted, nr_recently_evicted;
};

static struct replay_state R;
static volatile uint64_t touch_sink;

/* ------------------------------------------------------------------ */
/* spin calibration                                                    */

static void __attribute__((noinline)) spin(uint64_t n)
{
	for (uint64_t i = 0; i < n; i++)
		__asm__ __volatile__("" ::: "memory");
}

static void calibrate(void)
{
	uint64_t n = 1000000, dts[5];

	/*
	 * grow n until one round takes >= 20 ms, then take the median of 5
	 * rounds (not the fastest: on a shared host the fastest is an outlier)
	 */
	for (;;) {
		uint64_t t0 = replay_now(), dt;

		spin(n);
		dt = replay_now() - t0;
		if (dt >= 20000000 || n > (1ull << 40))
			break;
		n *= 2;
	}
	for (int r = 0; r < 5; r++) {
		uint64_t t0 = replay_now();

		spin(n);
		dts[r] = replay_now() - t0;
	}
	for (int a = 0; a < 5; a++)
		for (int b = a + 1; b < 5; b++)
			if (dts[b] < dts[a]) {
				uint64_t x = dts[a];

				dts[a] = dts[b];
				dts[b] = x;
			}
	R.cal_iters = n;
	R.cal_ns = dts[2] ? dts[2] : 1;
	R.cal_min_ns = dts[0];
	R.cal_max_ns = dts[4];
	R.iters_per_ns = (double)n / (double)R.cal_ns;
}

/* ------------------------------------------------------------------ */
/* fd slot resolution (before the timed part)                          */

struct hent {
	uint64_t key;
	int32_t val;		/* slot, -1 empty, -2 deleted */
};

struct hmap {
	struct hent *e;
	size_t cap;
};

static uint64_t hmix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

static int hmap_init(struct hmap *h, size_t n)
{
	h->cap = 64;
	while (h->cap < n * 2)
		h->cap *= 2;
	h->e = malloc(h->cap * sizeof(*h->e));
	if (!h->e)
		return -1;
	for (size_t i = 0; i < h->cap; i++)
		h->e[i].val = -1;
	return 0;
}

static struct hent *hmap_find(struct hmap *h, uint64_t key, int insert)
{
	size_t i = hmix(key) & (h->cap - 1);
	struct hent *tomb = NULL;

	for (;;) {
		struct hent *e = &h->e[i];

		if (e->val == -1)
			return insert ? (tomb ? tomb : e) : NULL;
		if (e->val == -2) {
			if (!tomb)
				tomb = e;
		} else if (e->key == key) {
			return e;
		}
		i = (i + 1) & (h->cap - 1);
	}
}

static void hmap_put(struct hmap *h, uint64_t key, int32_t val)
{
	struct hent *e = hmap_find(h, key, 1);

	e->key = key;
	e->val = val;
}

static void hmap_del(struct hmap *h, uint64_t key, int32_t val)
{
	struct hent *e = hmap_find(h, key, 0);

	if (e && (val < 0 || e->val == val))
		e->val = -2;
}

static int hmap_get(struct hmap *h, uint64_t key)
{
	struct hent *e = hmap_find(h, key, 0);

	return e ? e->val : -1;
}

#define KEY(a, b) (((uint64_t)(uint32_t)(a) << 32) | (uint32_t)(b))

/*
 * Per (pid, fd) which open file description (slot) an event uses. A pid
 * using an fd it never opened inherited it (fork): it shares the slot most
 * recently opened with that fd number on the same file (refcounted, closed
 * by the last close). Nothing found: the slot is opened on demand.
 */
static int resolve_slots(void)
{
	struct hmap byfd, byfile;
	size_t n = R.nev, nslots = 0;
	int32_t *refs;

	if (hmap_init(&byfd, n) || hmap_init(&byfile, n))
		return -1;
	refs = calloc(n + 1, sizeof(*refs));
	R.slot_file = calloc(n + 1, sizeof(*R.slot_file));
	R.slot_opener = calloc(n + 1, sizeof(*R.slot_opener));
	if (!refs || !R.slot_file || !R.slot_opener)
		return -1;

	for (size_t i = 0; i < n; i++) {
		struct rev *e = &R.ev[i];
		uint64_t k = KEY(e->pid, e->fd);
		int s;

		e->slot = -1;
		if (e->op == PPF_OP_OPEN) {
			if (e->res < 0)
				continue;
			s = hmap_get(&byfd, k);
			if (s >= 0) {	/* close not seen (dup2 over it, CLOEXEC) */
				hmap_del(&byfd, k, s);
				refs[s]--;
			}
			s = (int)nslots++;
			refs[s] = 1;
			R.slot_file[s] = e->file;
			R.slot_opener[s] = (int64_t)i;
			hmap_put(&byfd, k, s);
			hmap_put(&byfile, KEY(e->file, e->fd), s);
			e->slot = s;
			continue;
		}
		if (e->op != PPF_OP_READ && e->op != PPF_OP_WRITE && e->op != PPF_OP_MMAP &&
		    e->op != PPF_OP_CLOSE)
			continue;
		s = hmap_get(&byfd, k);
		if (s < 0) {
			s = hmap_get(&byfile, KEY(e->file, e->fd));
			if (s >= 0 && refs[s] > 0) {
				refs[s]++;	/* inherited from the parent */
				hmap_put(&byfd, k, s);
				R.inherited++;
			} else {
				s = (int)nslots++;	/* never opened in the trace */
				refs[s] = 1;
				R.slot_file[s] = e->file;
				R.slot_opener[s] = -1;
				hmap_put(&byfd, k, s);
				hmap_put(&byfile, KEY(e->file, e->fd), s);
				e->implicit_open = 1;
				R.implicit_opens++;
			}
		}
		e->slot = s;
		if (e->op == PPF_OP_CLOSE) {
			hmap_del(&byfd, k, s);
			if (--refs[s] == 0) {
				e->close_real = 1;
				hmap_del(&byfile, KEY(R.slot_file[s], e->fd), s);
			}
		}
	}
	R.nslots = nslots;
	R.slot_fd = malloc((nslots + 1) * sizeof(*R.slot_fd));
	R.slot_closed = calloc(nslots + 1, 1);
	if (!R.slot_fd || !R.slot_closed)
		return -1;
	for (size_t s = 0; s <= nslots; s++)
		R.slot_fd[s] = -1;
	free(refs);
	free(byfd.e);
	free(byfile.e);
	return 0;
}

/* ------------------------------------------------------------------ */
/* plan                                                                */

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int build_plan(struct ppf_trace *t, const char *dir)
{
	size_t n = t->nevents;
	uint64_t *pm, maxlen = 0;
	uint32_t *pids;
	size_t npids = 0;

	R.nev = n;
	R.ev = calloc(n ? n : 1, sizeof(*R.ev));
	R.done = calloc(n + 1, 1);
	R.nfiles = t->nfiles;
	R.paths = calloc(t->nfiles + 1, sizeof(char *));
	R.file_created = calloc(t->nfiles + 1, 1);
	R.file_new = calloc(t->nfiles + 1, 1);
	pm = calloc(n + 1, sizeof(*pm));
	pids = malloc((n + 1) * sizeof(*pids));
	if (!R.ev || !R.done || !R.paths || !R.file_created || !R.file_new || !pm || !pids)
		return -1;
	for (size_t i = 0; i < t->nfiles; i++) {
		R.paths[i] = replay_map_path(dir, t->files[i].path);
		if (!R.paths[i]) {
			fprintf(stderr, "ppf-replay: file %zu: unusable path '%s'\n", i,
				t->files[i].path);
			return -1;
		}
		R.file_new[i] = (uint8_t)t->files[i].created;
	}
	for (size_t i = 0; i < n; i++) {
		const struct ppf_trace_event *s = &t->events[i];
		struct rev *e = &R.ev[i];

		e->start = s->start_ns;
		e->end = s->start_ns + s->dur_ns;
		e->pid = s->pid;
		e->op = (uint8_t)s->op;
		e->file = s->file;
		e->file2 = s->file2;
		e->fd = s->fd;
		e->off = s->offset;
		e->len = s->len;
		e->res = s->result;
		e->flags = s->flags;
		pids[i] = s->pid;
		if ((e->op == PPF_OP_READ || e->op == PPF_OP_WRITE) && e->res >= 0) {
			uint64_t l = (uint64_t)(e->op == PPF_OP_READ ? e->len : e->res);

			if (l > maxlen)
				maxlen = l;
		}
	}
	/* threads: one per recorded pid */
	qsort(pids, n, sizeof(*pids), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || pids[i] != pids[i - 1])
			pids[npids++] = pids[i];
	R.nthreads = npids;
	R.th = calloc(npids ? npids : 1, sizeof(*R.th));
	if (!R.th)
		return -1;
	for (size_t i = 0; i < npids; i++)
		R.th[i].pid = pids[i];
	for (size_t i = 0; i < n; i++) {
		uint32_t *p = bsearch(&R.ev[i].pid, pids, npids, sizeof(*pids), cmp_u32);

		R.ev[i].thread = (uint32_t)(p - pids);
		R.th[R.ev[i].thread].nev++;
	}
	for (size_t i = 0; i < npids; i++) {
		R.th[i].evs = malloc((R.th[i].nev ? R.th[i].nev : 1) * sizeof(uint32_t));
		if (!R.th[i].evs)
			return -1;
		R.th[i].nev = 0;
		if (pthread_cond_init(&R.th[i].cv, NULL))
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct rthread *th = &R.th[R.ev[i].thread];

		th->evs[th->nev++] = (uint32_t)i;
	}

	if (resolve_slots())
		return -1;

	/*
	 * Ordering: event i waits until every event before need_i has completed.
	 * need_i = first earlier event still running when i started (all before
	 * it had ended), at least one past the event that opened i's fd, made
	 * non-decreasing. For a serial trace need_i = i: a single timeline.
	 */
	pm[0] = 0;
	for (size_t i = 0; i < n; i++)
		pm[i + 1] = pm[i] > R.ev[i].end ? pm[i] : R.ev[i].end;
	{
		size_t p = 0;
		uint64_t prevneed = 0;

		for (size_t i = 0; i < n; i++) {
			struct rev *e = &R.ev[i];
			uint64_t need;

			while (p < i && R.ev[p].end <= e->start)
				p++;
			need = p;
			if (need < i)
				R.overlapping++;
			if (e->slot >= 0 && R.slot_opener[e->slot] >= 0 &&
			    (uint64_t)R.slot_opener[e->slot] + 1 > need)
				need = (uint64_t)R.slot_opener[e->slot] + 1;
			if (need < prevneed)
				need = prevneed;
			if (need > i)
				need = i;
			prevneed = need;
			e->need = need;
		}
	}
	/* recorded think time: from the end of what the event waited for */
	for (size_t ti = 0; ti < npids; ti++) {
		struct rthread *th = &R.th[ti];
		uint64_t own_end = 0;

		for (size_t k = 0; k < th->nev; k++) {
			struct rev *e = &R.ev[th->evs[k]];
			uint64_t ready = pm[e->need];

			if (k > 0 && own_end > ready)
				ready = own_end;
			e->think = e->start > ready ? e->start - ready : 0;
			R.think_recorded += e->think;
			own_end = e->end;
		}
	}
	/* buffers: one shared read buffer, one shared pattern for writes */
	maxlen = (maxlen + REPLAY_PAGE - 1) / REPLAY_PAGE * REPLAY_PAGE;
	if (maxlen < 64 * 1024)
		maxlen = 64 * 1024;
	if (maxlen > 4u << 20)
		maxlen = 4u << 20;
	R.buflen = (size_t)maxlen;
	R.rbuf = aligned_alloc(REPLAY_PAGE, R.buflen);
	R.wbuf = aligned_alloc(REPLAY_PAGE, R.buflen);
	if (!R.rbuf || !R.wbuf)
		return -1;
	memset(R.rbuf, 0, R.buflen);
	replay_fill_pattern(R.wbuf, R.buflen);
	free(pm);
	free(pids);
	return 0;
}

/* ------------------------------------------------------------------ */
/* classification                                                      */

/*
 * hit: every page of the range present and uptodate; partial: some present,
 * or all present but some not uptodate (being read); miss: none present.
 * cachestat() counts present pages; mincore() on a mapping (never touched)
 * says which are uptodate. An empty range (read at EOF) needs no I/O: hit.
 */
static int classify(struct rthread *th, int fd, int64_t off, int64_t len)
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

	if (R.have_cachestat) {
		struct cs_range r = { start, npages * REPLAY_PAGE };
		struct cs_stat cs;

		if (syscall(__NR_cachestat, fd, &r, &cs, 0) == 0) {
			if (cs.nr_cache == 0)
				return CLS_MISS;
			if (cs.nr_cache < npages)
				return CLS_PARTIAL;
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

/* ------------------------------------------------------------------ */
/* the ops                                                             */

static int touch_map(int fd, uint64_t off, uint64_t len)
{
	struct stat st;
	uint64_t end, sum = 0;
	unsigned char *m;

	if (fstat(fd, &st))
		return -errno;
	end = off + len;
	if (end > (uint64_t)st.st_size || end < off)
		end = (uint64_t)st.st_size;
	if (off >= end)
		return 0;
	m = mmap(NULL, end - off, PROT_READ, MAP_PRIVATE, fd, (off_t)off);
	if (m == MAP_FAILED)
		return -errno;
	for (uint64_t p = 0; p < end - off; p += REPLAY_PAGE)
		sum += ((volatile unsigned char *)m)[p];
	touch_sink += sum;
	munmap(m, end - off);
	return 0;
}

static int read_range(int fd, uint64_t off, uint64_t len, uint64_t *bytes)
{
	uint64_t done = 0;

	while (done < len) {
		size_t n = len - done > R.buflen ? R.buflen : (size_t)(len - done);
		ssize_t r = pread(fd, R.rbuf, n, (off_t)(off + done));

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (uint64_t)r;
		if ((size_t)r < n)
			break;	/* EOF */
	}
	*bytes += done;
	return 0;
}

static int write_range(int fd, uint64_t off, uint64_t len, uint64_t *bytes)
{
	uint64_t done = 0;

	do {
		size_t n = len - done > R.buflen ? R.buflen : (size_t)(len - done);
		ssize_t w = pwrite(fd, R.wbuf, n, (off_t)(off + done));

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		done += (uint64_t)w;
		if (w == 0)
			break;
	} while (done < len);
	*bytes += done;
	return 0;
}

#define OPEN_MASK (O_ACCMODE | O_CREAT | O_EXCL | O_TRUNC | O_APPEND | O_NONBLOCK | \
		   O_DIRECT | O_NOFOLLOW | O_SYNC | O_DSYNC | O_NOATIME | O_NOCTTY)

static int slot_fd(struct rev *e)
{
	int fd;

	if (e->slot < 0)
		return -1;
	fd = R.slot_fd[e->slot];
	if (fd < 0 && R.slot_opener[e->slot] < 0 && !R.slot_closed[e->slot]) {
		/* an fd the trace never showed opening (dup2 onto 0-2, inherited) */
		fd = open(R.paths[R.slot_file[e->slot]], O_RDWR | O_CLOEXEC);
		if (fd < 0)
			fd = open(R.paths[R.slot_file[e->slot]], O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			R.slot_fd[e->slot] = fd;
	}
	return fd;
}

/* Run one event's call; returns 0 or -errno; *skipped when not issued. */
static int do_op(struct rthread *th, struct rev *e, int *skipped)
{
	int fd, r;

	switch (e->op) {
	case PPF_OP_OPEN:
		fd = open(R.paths[e->file], (int)(e->flags & OPEN_MASK) | O_CLOEXEC, 0644);
		if (fd < 0)
			return -errno;
		if (e->slot >= 0)
			R.slot_fd[e->slot] = fd;
		else
			close(fd);	/* the recording failed here: do not keep it */
		if (e->flags & O_CREAT)
			R.file_created[e->file] = 1;
		return 0;
	case PPF_OP_EXEC:
		if (R.exec_mode == EXEC_NONE)
			return access(R.paths[e->file], R_OK) ? -errno : 0;
		fd = open(R.paths[e->file], O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (R.exec_mode == EXEC_HEAD)
			r = read_range(fd, 0, REPLAY_PAGE, &th->bytes_exec);
		else
			r = touch_map(fd, 0, UINT64_MAX / 2);
		close(fd);
		return r;
	case PPF_OP_READ:
	case PPF_OP_WRITE:
	case PPF_OP_MMAP:
	case PPF_OP_CLOSE:
		if (e->op != PPF_OP_CLOSE && e->op != PPF_OP_MMAP && e->res < 0) {
			*skipped = 1;	/* failed in the recording: moved no data */
			return 0;
		}
		fd = slot_fd(e);
		if (fd < 0) {
			*skipped = 2;	/* its open failed in the replay */
			return -EBADF;
		}
		if (e->op == PPF_OP_CLOSE) {
			if (e->close_real) {
				R.slot_fd[e->slot] = -1;
				R.slot_closed[e->slot] = 1;
				return close(fd) ? -errno : 0;
			}
			return 0;
		}
		if (e->op == PPF_OP_READ)
			return read_range(fd, (uint64_t)e->off, (uint64_t)e->len, &th->bytes_read);
		if (e->op == PPF_OP_WRITE)
			return write_range(fd, (uint64_t)e->off, (uint64_t)e->res,
					   &th->bytes_written);
		if (R.mmap_mode == MMAP_NONE)
			return 0;
		if (R.mmap_mode == MMAP_READ)
			return read_range(fd, (uint64_t)e->off, (uint64_t)e->len, &th->bytes_mapped);
		th->bytes_mapped += (uint64_t)e->len;
		return touch_map(fd, (uint64_t)e->off, (uint64_t)e->len);
	case PPF_OP_STAT: {
		struct stat st;

		return stat(R.paths[e->file], &st) ? -errno : 0;
	}
	case PPF_OP_UNLINK:
		if (unlink(R.paths[e->file]))
			return -errno;
		R.file_created[e->file] = 0;
		return 0;
	case PPF_OP_RENAME:
		if (e->flags ? renameat2(AT_FDCWD, R.paths[e->file], AT_FDCWD,
					 R.paths[e->file2], e->flags)
			     : rename(R.paths[e->file], R.paths[e->file2]))
			return -errno;
		R.file_created[e->file2] = 1;
		R.file_created[e->file] = 0;
		return 0;
	case PPF_OP_MKDIR:
		if (mkdir(R.paths[e->file], 0755))
			return -errno;
		R.file_created[e->file] = 1;
		return 0;
	case PPF_OP_RMDIR:
		if (rmdir(R.paths[e->file]))
			return -errno;
		R.file_created[e->file] = 0;
		return 0;
	}
	return -ENOSYS;
}

static void judge(struct rev *e, int ret, int skipped)
{
	int rec_ok = e->op == PPF_OP_MMAP || e->res >= 0;

	e->err = ret < 0 ? -ret : 0;
	if (skipped == 1) {
		e->outcome = OUT_SKIPPED;
	} else if (skipped == 2) {
		e->outcome = OUT_NOFD;
	} else if (ret == 0) {
		e->outcome = rec_ok ? OUT_OK : OUT_UNEXP_OK;
	} else if (!rec_ok) {
		e->outcome = OUT_OK;	/* failed then, fails now */
	} else if (ret == -ENOENT && R.file_new[e->file] && !R.file_created[e->file] &&
		   e->op != PPF_OP_MKDIR && !(e->op == PPF_OP_OPEN && (e->flags & O_CREAT))) {
		/* cleanup of an output that the start state does not have */
		e->outcome = OUT_EXPECTED;
	} else {
		e->outcome = OUT_UNEXPECTED;
	}
}

/* ------------------------------------------------------------------ */
/* threads                                                             */

static void wait_gate(struct rthread *th, uint64_t need, uint32_t idx)
{
	pthread_mutex_lock(&R.mu);
	while (R.done_prefix < need) {
		th->waiting_on = idx;
		pthread_cond_wait(&th->cv, &R.mu);
	}
	th->waiting_on = UINT32_MAX;
	pthread_mutex_unlock(&R.mu);
}

static void complete(uint32_t idx)
{
	pthread_mutex_lock(&R.mu);
	R.done[idx] = 1;
	if (R.done_prefix == idx) {
		uint64_t p = idx;

		while (p < R.nev && R.done[p])
			p++;
		R.done_prefix = p;
		/* wake the threads whose next event became runnable */
		for (uint64_t j = p; j < R.nev && R.ev[j].need <= p; j++) {
			struct rthread *o = &R.th[R.ev[j].thread];

			if (o->waiting_on == j)
				pthread_cond_signal(&o->cv);
		}
	}
	pthread_mutex_unlock(&R.mu);
}

static void *thread_main(void *arg)
{
	struct rthread *th = arg;

	pthread_mutex_lock(&R.mu);
	while (!R.go)
		pthread_cond_wait(&R.go_cv, &R.mu);
	pthread_mutex_unlock(&R.mu);

	for (size_t k = 0; k < th->nev; k++) {
		uint32_t idx = th->evs[k];
		struct rev *e = &R.ev[idx];
		uint64_t t_ready, t_think, t0, t1;
		int ret, skipped = 0;

		wait_gate(th, e->need, idx);
		t_ready = replay_now();
		e->t_ready = t_ready;
		if (e->think) {
			if (R.think_mode == THINK_SPIN) {
				spin(e->think_iters);
			} else if (e->think < SLEEP_POLL_NS) {
				while (replay_now() < t_ready + e->think)
					;
			} else {
				uint64_t dl = t_ready + e->think;
				struct timespec ts = { (time_t)(dl / 1000000000ull),
						       (long)(dl % 1000000000ull) };

				while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
				       EINTR)
					;
			}
		}
		t_think = replay_now();
		th->think_ns += t_think - t_ready;
		if (R.classify && ((e->op == PPF_OP_READ && e->res >= 0) ||
				   (e->op == PPF_OP_MMAP && R.mmap_mode != MMAP_NONE))) {
			int fd = slot_fd(e);

			e->cls = fd >= 0 ? (uint8_t)classify(th, fd, e->off, e->len) : CLS_NONE;
			t0 = replay_now();
			th->probe_ns += t0 - t_think;
		} else {
			t0 = t_think;
		}
		ret = do_op(th, e, &skipped);
		t1 = replay_now();
		e->lat = t1 - t0;
		e->t_end = t1;
		judge(e, ret, skipped);
		complete(idx);
	}
	return NULL;
}

/* ------------------------------------------------------------------ */

static int drop_caches(void)
{
	int fd;

	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, "3\n", 2) != 2) {
		fprintf(stderr, "ppf-replay: cannot write /proc/sys/vm/drop_caches: %s\n",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static int parse_mode(const char *arg, const char *name, const char *const *names, int *out)
{
	size_t n = strlen(name);

	if (strncmp(arg, name, n) || arg[n] != '=')
		return 0;
	for (int i = 0; names[i]; i++)
		if (!strcmp(arg + n + 1, names[i])) {
			*out = i;
			return 1;
		}
	fprintf(stderr, "ppf-replay run: bad value in %s\n", arg);
	exit(1);
}

int replay_run(int argc, char **argv)
{
	static const char *const think_names[] = { "spin", "sleep", NULL };
	static const char *const exec_names[] = { "map", "head", "none", NULL };
	static const char *const mmap_names[] = { "map", "read", "none", NULL };
	const char *trace_path = NULL, *dir = NULL, *json = NULL, *events = NULL;
	struct ppf_trace *t;
	pthread_attr_t attr;
	struct stat st;
	int cold = 0, quiet = 0;

	R.classify = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (parse_mode(a, "--think", think_names, &R.think_mode) ||
		    parse_mode(a, "--exec", exec_names, &R.exec_mode) ||
		    parse_mode(a, "--mmap", mmap_names, &R.mmap_mode))
			continue;
		if (!strcmp(a, "--cold"))
			cold = 1;
		else if (!strcmp(a, "--quiet"))
			quiet = 1;
		else if (!strcmp(a, "--no-classify"))
			R.classify = 0;
		else if (!strncmp(a, "--spin-rate=", 12)) {
			R.fixed_rate = strtod(a + 12, NULL);
			if (!(R.fixed_rate > 0)) {
				fprintf(stderr, "ppf-replay run: bad value in %s\n", a);
				return 1;
			}
		} else if (!strcmp(a, "--events") && i + 1 < argc)
			events = argv[++i];
		else if (!strcmp(a, "--json") && i + 1 < argc)
			json = argv[++i];
		else if (!strncmp(a, "--json=", 7))
			json = a + 7;
		else if (a[0] == '-' && a[1]) {
			fprintf(stderr, "ppf-replay run: unknown option %s\n", a);
			return 1;
		} else if (!trace_path)
			trace_path = a;
		else if (!dir)
			dir = a;
		else {
			fprintf(stderr, "ppf-replay run: too many arguments\n");
			return 1;
		}
	}
	if (!trace_path || !dir) {
		fprintf(stderr, "usage: ppf-replay run [options] TRACE DIR (see --help)\n");
		return 1;
	}
	if (cold && geteuid() != 0) {
		fprintf(stderr, "ppf-replay: --cold needs root (it writes "
				"/proc/sys/vm/drop_caches); run as root or drop --cold\n");
		return 1;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "ppf-replay: %s is not a directory (make it with build-tree)\n",
			dir);
		return 1;
	}
	/* keep our own code and data resident; new mappings too until the run */
	R.mlocked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
	if (!R.mlocked)
		fprintf(stderr, "ppf-replay: warning: mlockall failed (%s): the replay's own "
				"pages may be evicted or faulted during the run\n",
			strerror(errno));

	t = replay_load_trace(trace_path);
	R.trace = t;
	R.trace_path = trace_path;
	R.dir = dir;
	R.cold = cold;
	if (build_plan(t, dir)) {
		fprintf(stderr, "ppf-replay: cannot prepare the replay: %s\n", strerror(errno));
		return 1;
	}
	{
		struct cs_range r = { 0, 0 };
		struct cs_stat cs;
		long rc = syscall(__NR_cachestat, -1, &r, &cs, 0);

		R.have_cachestat = !(rc < 0 && errno == ENOSYS);
	}
	calibrate();
	if (R.fixed_rate > 0)	/* same work in every compared run, whatever the calibration says */
		R.iters_per_ns = R.fixed_rate / 1000.0;
	for (size_t i = 0; i < R.nev; i++)
		R.ev[i].think_iters = (uint64_t)((double)R.ev[i].think * R.iters_per_ns + 0.5);

	/* sleeps end on time (default slack: 50 us); threads inherit it */
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
	pthread_mutex_init(&R.mu, NULL);
	pthread_cond_init(&R.go_cv, NULL);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 128 * 1024);
	for (size_t i = 0; i < R.nthreads; i++) {
		R.th[i].waiting_on = UINT32_MAX;
		if (pthread_create(&R.th[i].tid, &attr, thread_main, &R.th[i])) {
			fprintf(stderr, "ppf-replay: cannot create thread %zu of %zu\n", i,
				R.nthreads);
			return 1;
		}
	}
	if (!quiet)
		fprintf(stderr, "ppf-replay: %zu events, %zu threads (pids), think %s, "
				"spin %.1f iterations/us, %s\n",
			R.nev, R.nthreads, think_names[R.think_mode], R.iters_per_ns * 1000.0,
			cold ? "cold (drop_caches)" : "caches as they are");
	if (cold && drop_caches())
		return 1;
	/* later mappings (the workload's mmaps, mincore probes) must not be locked */
	if (R.mlocked)
		mlockall(MCL_CURRENT);

	pthread_mutex_lock(&R.mu);
	R.t_start = replay_now();
	R.go = 1;
	pthread_cond_broadcast(&R.go_cv);
	pthread_mutex_unlock(&R.mu);
	for (size_t i = 0; i < R.nthreads; i++)
		pthread_join(R.th[i].tid, NULL);
	R.t_end = R.t_start;
	for (size_t i = 0; i < R.nev; i++)
		if (R.ev[i].t_end > R.t_end)
			R.t_end = R.ev[i].t_end;
	for (size_t s = 0; s < R.nslots; s++)
		if (R.slot_fd[s] >= 0)
			close(R.slot_fd[s]);

	replay_report(&R, quiet ? NULL : stdout);
	if (json && replay_report_json(&R, json)) {
		fprintf(stderr, "ppf-replay: cannot write %s: %s\n", json, strerror(errno));
		return 1;
	}
	if (events && replay_report_events(&R, events)) {
		fprintf(stderr, "ppf-replay: cannot write %s: %s\n", events, strerror(errno));
		return 1;
	}
	return 0;
}
