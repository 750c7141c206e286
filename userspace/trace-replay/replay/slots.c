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

/*
 * Per (pid, fd) which open file description (slot) an event uses. A pid
 * using an fd it never opened inherited it (fork): it shares the slot most
 * recently opened with that fd number on the same file (refcounted, closed
 * by the last close). Nothing found: the slot is opened on demand.
 */
int replay_resolve_slots(struct replay_state *r)
{
	struct hmap byfd, byfile;
	size_t n = r->nev, nslots = 0;
	int32_t *refs;

	if (hmap_init(&byfd, n) || hmap_init(&byfile, n))
		return -1;
	refs = calloc(n + 1, sizeof(*refs));
	r->slot_file = calloc(n + 1, sizeof(*r->slot_file));
	r->slot_opener = calloc(n + 1, sizeof(*r->slot_opener));
	if (!refs || !r->slot_file || !r->slot_opener)
		return -1;

	for (size_t i = 0; i < n; i++) {
		struct replay_event *e = &r->ev[i];
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
			r->slot_file[s] = e->file;
			r->slot_opener[s] = (int64_t)i;
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
				r->inherited++;
			} else {
				s = (int)nslots++;	/* never opened in the trace */
				refs[s] = 1;
				r->slot_file[s] = e->file;
				r->slot_opener[s] = -1;
				hmap_put(&byfd, k, s);
				hmap_put(&byfile, KEY(e->file, e->fd), s);
				e->implicit_open = 1;
				r->implicit_opens++;
			}
		}
		e->slot = s;
		if (e->op == PPF_OP_CLOSE) {
			hmap_del(&byfd, k, s);
			if (--refs[s] == 0) {
				e->close_real = 1;
				hmap_del(&byfile, KEY(r->slot_file[s], e->fd), s);
			}
		}
	}
	r->nslots = nslots;
	r->slot_fd = malloc((nslots + 1) * sizeof(*r->slot_fd));
	r->slot_closed = calloc(nslots + 1, 1);
	if (!r->slot_fd || !r->slot_closed)
		return -1;
	for (size_t s = 0; s <= nslots; s++)
		r->slot_fd[s] = -1;
	free(refs);
	free(byfd.e);
	free(byfile.e);
	return 0;
}
