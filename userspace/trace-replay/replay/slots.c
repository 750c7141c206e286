// SPDX-License-Identifier: GPL-2.0
/*
 * ppf-replay run: fd slot resolution, before the timed part. Each open file
 * description of the recording becomes a slot; every event that uses an fd
 * is given its slot, found through a small open-addressing hash map.
 */
#include <stdlib.h>

#include "run.h"

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

/* resolve_slots()'s state: the two maps and the per-slot bookkeeping */
struct slot_pass {
	struct replay_state *r;
	struct hmap byfd;	/* (pid, fd) -> slot: each process's own fd table */
	struct hmap byfile;	/* (file, fd) -> the slot last bound to that number */
	int32_t *refs;		/* (pid, fd) entries bound to the slot */
	uint64_t *born;		/* event at which the slot came to be */
	size_t nslots;
};

static int new_slot(struct slot_pass *sp, uint32_t file, int64_t opener, uint64_t born)
{
	int s = (int)sp->nslots++;

	sp->refs[s] = 1;
	sp->born[s] = born;
	sp->r->slot_file[s] = file;
	sp->r->slot_opener[s] = opener;
	return s;
}

/*
 * (pid, fd) now names slot s (an open or a dup). The slot it named before
 * (no close seen: dup2 over it, O_CLOEXEC at exec) loses that reference;
 * returns it if that was its last one, else -1.
 */
static int bind_fd(struct slot_pass *sp, uint32_t pid, int32_t fd, int s)
{
	uint64_t k = KEY(pid, fd);
	int old = hmap_get(&sp->byfd, k), dead = -1;

	if (old >= 0) {
		hmap_del(&sp->byfd, k, old);
		if (--sp->refs[old] == 0) {
			dead = old;
			hmap_del(&sp->byfile, KEY(sp->r->slot_file[old], fd), old);
		}
	}
	hmap_put(&sp->byfd, k, s);
	hmap_put(&sp->byfile, KEY(sp->r->slot_file[s], fd), s);
	return dead;
}

/*
 * The slot of event i's fd. Not in its process's table: inherited (fork),
 * i.e. the slot last bound to that number on the same file, still held by
 * someone and born before the process's first event (a child inherits only
 * what was open when it was forked; two processes that each dup'ed their
 * own copy to the same number do not share). Else opened on demand.
 */
static int find_fd(struct slot_pass *sp, size_t i)
{
	struct replay_state *r = sp->r;
	struct replay_event *e = &r->ev[i];
	uint64_t k = KEY(e->pid, e->fd);
	uint64_t first = r->th[e->thread].evs[0];
	int s = hmap_get(&sp->byfd, k);

	if (s >= 0)
		return s;
	s = hmap_get(&sp->byfile, KEY(e->file, e->fd));
	if (s >= 0 && sp->refs[s] > 0 && sp->born[s] < first) {
		sp->refs[s]++;
		hmap_put(&sp->byfd, k, s);
		r->inherited++;
		return s;
	}
	s = new_slot(sp, e->file, -1, i);	/* never opened in the trace */
	hmap_put(&sp->byfd, k, s);
	hmap_put(&sp->byfile, KEY(e->file, e->fd), s);
	e->implicit_open = 1;
	r->implicit_opens++;
	return s;
}

/* One event's slots: open and dup make one, the fd ops use one, close drops one. */
static void resolve_event(struct slot_pass *sp, size_t i)
{
	struct replay_state *r = sp->r;
	struct replay_event *e = &r->ev[i];
	int s;

	switch (e->op) {
	case PPF_OP_OPEN:
		if (e->res < 0)
			return;
		e->slot = new_slot(sp, e->file, (int64_t)i, i);
		bind_fd(sp, e->pid, e->fd, e->slot);	/* an old slot there leaks to the end */
		return;
	case PPF_OP_DUP:
		/* a real dup of the source's fd at replay time (ops.c) */
		e->slot = find_fd(sp, i);
		e->slot2 = new_slot(sp, r->slot_file[e->slot], (int64_t)i, i);
		e->drop_slot = bind_fd(sp, e->pid, (int32_t)e->res, e->slot2);
		r->dups++;
		return;
	case PPF_OP_READ:
	case PPF_OP_WRITE:
	case PPF_OP_MMAP:
		e->slot = find_fd(sp, i);
		return;
	case PPF_OP_CLOSE:
		s = e->slot = find_fd(sp, i);
		hmap_del(&sp->byfd, KEY(e->pid, e->fd), s);
		if (--sp->refs[s] == 0) {
			e->close_real = 1;
			hmap_del(&sp->byfile, KEY(r->slot_file[s], e->fd), s);
		}
		return;
	default:
		return;
	}
}

/*
 * Per (pid, fd) which slot an event uses: a slot is one fd of the replay,
 * made by an open, a dup (version 3: a real dup of the source's fd), an
 * inheritance (refcounted: the real close is the last recorded close) or,
 * for an fd the trace never showed coming to be, an open on demand.
 */
int replay_resolve_slots(struct replay_state *r)
{
	struct slot_pass sp = { .r = r };
	size_t n = r->nev;

	/* at most two insertions per event in each map: keep them half empty */
	if (hmap_init(&sp.byfd, 2 * n) || hmap_init(&sp.byfile, 2 * n))
		return -1;
	sp.refs = calloc(2 * n + 1, sizeof(*sp.refs));
	sp.born = calloc(2 * n + 1, sizeof(*sp.born));
	r->slot_file = calloc(2 * n + 1, sizeof(*r->slot_file));
	r->slot_opener = calloc(2 * n + 1, sizeof(*r->slot_opener));
	if (!sp.refs || !sp.born || !r->slot_file || !r->slot_opener)
		return -1;
	for (size_t i = 0; i < n; i++) {
		r->ev[i].slot = r->ev[i].slot2 = r->ev[i].drop_slot = -1;
		resolve_event(&sp, i);
	}
	r->nslots = sp.nslots;
	r->slot_fd = malloc((sp.nslots + 1) * sizeof(*r->slot_fd));
	r->slot_closed = calloc(sp.nslots + 1, 1);
	if (!r->slot_fd || !r->slot_closed)
		return -1;
	for (size_t s = 0; s <= sp.nslots; s++)
		r->slot_fd[s] = -1;
	free(sp.refs);
	free(sp.born);
	free(sp.byfd.e);
	free(sp.byfile.e);
	return 0;
}
