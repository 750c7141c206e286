// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: the plan, made before the timed part. One entry per event
 * (mapped path, fd slot, the prefix of events it must wait for, its recorded
 * think time), one thread per recorded pid, and the shared I/O buffers.
 * Definitions: docs/replay.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run.h"

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The replay-tree path of every file in the table. */
static int plan_paths(struct replay_state *r, struct ppf_trace *t, const char *dir)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		r->paths[i] = replay_map_path(dir, t->files[i].path);
		if (!r->paths[i]) {
			fprintf(stderr, "ppf-replay: file %zu: unusable path '%s'\n", i,
				t->files[i].path);
			return -1;
		}
		r->file_new[i] = (uint8_t)t->files[i].created;
	}
	return 0;
}

/* Copy the events; pids[i] is event i's pid; returns the longest read/write. */
static uint64_t plan_events(struct replay_state *r, struct ppf_trace *t, uint32_t *pids)
{
	uint64_t maxlen = 0;

	for (size_t i = 0; i < r->nev; i++) {
		const struct ppf_trace_event *s = &t->events[i];
		struct replay_event *e = &r->ev[i];

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
	return maxlen;
}

/* Threads: one per recorded pid, each with its events in trace order. */
static int plan_threads(struct replay_state *r, uint32_t *pids)
{
	size_t n = r->nev, npids = 0;

	qsort(pids, n, sizeof(*pids), cmp_u32);
	for (size_t i = 0; i < n; i++)
		if (i == 0 || pids[i] != pids[i - 1])
			pids[npids++] = pids[i];
	r->nthreads = npids;
	r->th = calloc(npids ? npids : 1, sizeof(*r->th));
	if (!r->th)
		return -1;
	for (size_t i = 0; i < npids; i++) {
		r->th[i].r = r;
		r->th[i].pid = pids[i];
	}
	for (size_t i = 0; i < n; i++) {
		uint32_t *p = bsearch(&r->ev[i].pid, pids, npids, sizeof(*pids), cmp_u32);

		r->ev[i].thread = (uint32_t)(p - pids);
		r->th[r->ev[i].thread].nev++;
	}
	for (size_t i = 0; i < npids; i++) {
		r->th[i].evs = malloc((r->th[i].nev ? r->th[i].nev : 1) * sizeof(uint32_t));
		if (!r->th[i].evs)
			return -1;
		r->th[i].nev = 0;
		if (pthread_cond_init(&r->th[i].cv, NULL))
			return -1;
	}
	for (size_t i = 0; i < n; i++) {
		struct replay_thread *th = &r->th[r->ev[i].thread];

		th->evs[th->nev++] = (uint32_t)i;
	}
	return 0;
}

/*
 * Ordering: event i waits until every event before need_i has completed.
 * need_i = first earlier event still running when i started (all before
 * it had ended), at least one past the event that opened i's fd, made
 * non-decreasing. For a serial trace need_i = i: a single timeline.
 */
static void plan_order(struct replay_state *r)
{
	size_t p = 0;
	uint64_t prevneed = 0;

	for (size_t i = 0; i < r->nev; i++) {
		struct replay_event *e = &r->ev[i];
		uint64_t need;

		while (p < i && r->ev[p].end <= e->start)
			p++;
		need = p;
		if (need < i)
			r->overlapping++;
		if (e->slot >= 0 && r->slot_opener[e->slot] >= 0 &&
		    (uint64_t)r->slot_opener[e->slot] + 1 > need)
			need = (uint64_t)r->slot_opener[e->slot] + 1;
		if (need < prevneed)
			need = prevneed;
		if (need > i)
			need = i;
		prevneed = need;
		e->need = need;
		if (p < i) {
			for (uint64_t j = need; j < i; j++)
				if (r->ev[j].thread != e->thread) {
					r->overlap_kept++;
					break;
				}
		}
	}
}

/*
 * Recorded think time: from the end of what the event waited for (pm[need],
 * the latest end among events [0, need)) or of the thread's previous event.
 */
static void plan_think(struct replay_state *r, uint64_t *pm)
{
	pm[0] = 0;
	for (size_t i = 0; i < r->nev; i++)
		pm[i + 1] = pm[i] > r->ev[i].end ? pm[i] : r->ev[i].end;
	for (size_t ti = 0; ti < r->nthreads; ti++) {
		struct replay_thread *th = &r->th[ti];
		uint64_t own_end = 0;

		for (size_t k = 0; k < th->nev; k++) {
			struct replay_event *e = &r->ev[th->evs[k]];
			uint64_t ready = pm[e->need];

			if (k > 0 && own_end > ready)
				ready = own_end;
			e->think = e->start > ready ? e->start - ready : 0;
			r->think_recorded += e->think;
			own_end = e->end;
		}
	}
}

/* Buffers: one shared read buffer, one shared pattern for writes. */
static int plan_buffers(struct replay_state *r, uint64_t maxlen)
{
	maxlen = (maxlen + REPLAY_PAGE - 1) / REPLAY_PAGE * REPLAY_PAGE;
	if (maxlen < 64 * 1024)
		maxlen = 64 * 1024;
	if (maxlen > 4u << 20)
		maxlen = 4u << 20;
	r->buflen = (size_t)maxlen;
	r->rbuf = aligned_alloc(REPLAY_PAGE, r->buflen);
	r->wbuf = aligned_alloc(REPLAY_PAGE, r->buflen);
	if (!r->rbuf || !r->wbuf)
		return -1;
	memset(r->rbuf, 0, r->buflen);
	replay_fill_pattern(r->wbuf, r->buflen);
	return 0;
}

/* Build the whole plan; 0, or -1 with errno (a bad path is reported here). */
int replay_build_plan(struct replay_state *r, struct ppf_trace *t, const char *dir)
{
	size_t n = t->nevents;
	uint64_t *pm, maxlen;
	uint32_t *pids;

	r->nev = n;
	r->ev = calloc(n ? n : 1, sizeof(*r->ev));
	r->done = calloc(n + 1, 1);
	r->nfiles = t->nfiles;
	r->paths = calloc(t->nfiles + 1, sizeof(char *));
	r->file_created = calloc(t->nfiles + 1, 1);
	r->file_new = calloc(t->nfiles + 1, 1);
	pm = calloc(n + 1, sizeof(*pm));
	pids = malloc((n + 1) * sizeof(*pids));
	if (!r->ev || !r->done || !r->paths || !r->file_created || !r->file_new || !pm || !pids)
		return -1;
	if (plan_paths(r, t, dir))
		return -1;
	maxlen = plan_events(r, t, pids);
	if (plan_threads(r, pids))
		return -1;
	if (replay_resolve_slots(r))
		return -1;
	plan_order(r);
	plan_think(r, pm);
	if (plan_buffers(r, maxlen))
		return -1;
	free(pm);
	free(pids);
	return 0;
}
