// SPDX-License-Identifier: GPL-2.0
/*
 * context_table.c - context ids to a model's context slots
 *
 * See context_table.h.  The hash is the same multiplicative hash as the
 * file index's: pids are dense small integers.
 */
#include "context_table.h"

static u32 ppf_ctx_buckets_for(u32 slots)
{
	u32 buckets = 4;

	/* At most half full: probe runs stay short. */
	while (buckets < 2 * slots)
		buckets <<= 1;
	return buckets;
}

static inline u32 ppf_ctx_home(const struct ppf_ctx_table *t, u32 id)
{
	return (id * 0x9e3779b1u) & t->mask;
}

/**
 * ppf_ctx_table_bytes() - memory a table of @slots slots takes
 * @slots: number of context slots
 *
 * Return: bytes.
 */
u64 ppf_ctx_table_bytes(u32 slots)
{
	return (u64)slots * (3 * sizeof(u32) + 3 * sizeof(u64)) +
	       (u64)ppf_ctx_buckets_for(slots) * sizeof(u32);
}

/**
 * ppf_ctx_table_clear() - forget every context
 * @t: the table
 */
void ppf_ctx_table_clear(struct ppf_ctx_table *t)
{
	memset(t->used, 0, (size_t)t->slots * sizeof(*t->used));
	memset(t->child, 0xff, (size_t)t->slots * sizeof(*t->child));
	memset(t->bucket, 0xff, ((size_t)t->mask + 1) * sizeof(*t->bucket));
	t->live = 0;
	t->last_slot = PPF_CTX_NONE;
}

/**
 * ppf_ctx_table_init() - allocate an empty table
 * @t: the table to set up
 * @slots: number of context slots, at least 1
 *
 * Return: 0 or -ENOMEM.
 */
int ppf_ctx_table_init(struct ppf_ctx_table *t, u32 slots)
{
	u32 buckets = ppf_ctx_buckets_for(slots);

	memset(t, 0, sizeof(*t));
	t->id = ppf_zalloc((size_t)slots * sizeof(*t->id));
	t->used = ppf_zalloc((size_t)slots * sizeof(*t->used));
	t->own = ppf_zalloc((size_t)slots * sizeof(*t->own));
	t->born = ppf_zalloc((size_t)slots * sizeof(*t->born));
	t->bucket = ppf_zalloc((size_t)buckets * sizeof(*t->bucket));
	t->child = ppf_zalloc((size_t)slots * sizeof(*t->child));
	t->child_id = ppf_zalloc((size_t)slots * sizeof(*t->child_id));
	if (!t->id || !t->used || !t->own || !t->born || !t->bucket ||
	    !t->child || !t->child_id) {
		ppf_ctx_table_release(t);
		return -ENOMEM;
	}
	t->slots = slots;
	t->mask = buckets - 1;
	ppf_ctx_table_clear(t);
	return 0;
}

/**
 * ppf_ctx_table_release() - free the table's memory
 * @t: the table
 */
void ppf_ctx_table_release(struct ppf_ctx_table *t)
{
	ppf_free(t->id);
	ppf_free(t->used);
	ppf_free(t->own);
	ppf_free(t->born);
	ppf_free(t->bucket);
	ppf_free(t->child);
	ppf_free(t->child_id);
	t->id = NULL;
	t->used = NULL;
	t->own = NULL;
	t->born = NULL;
	t->bucket = NULL;
	t->child = NULL;
	t->child_id = NULL;
}

/* The bucket holding @id, or the empty bucket where its probe run ends. */
static u32 ppf_ctx_probe(const struct ppf_ctx_table *t, u32 id)
{
	u32 pos = ppf_ctx_home(t, id);

	while (t->bucket[pos] != PPF_CTX_NONE && t->id[t->bucket[pos]] != id)
		pos = (pos + 1) & t->mask;
	return pos;
}

/* Take @id out of the hash, closing the gap its bucket leaves. */
static void ppf_ctx_unhash(struct ppf_ctx_table *t, u32 id)
{
	u32 hole = ppf_ctx_probe(t, id), pos = hole;

	for (;;) {
		u32 home;

		pos = (pos + 1) & t->mask;
		if (t->bucket[pos] == PPF_CTX_NONE)
			break;
		home = ppf_ctx_home(t, t->id[t->bucket[pos]]);
		/* Move the entry back unless its home lies in (hole, pos]. */
		if (((pos - home) & t->mask) >= ((pos - hole) & t->mask)) {
			t->bucket[hole] = t->bucket[pos];
			hole = pos;
		}
	}
	t->bucket[hole] = PPF_CTX_NONE;
}

/* A slot for a new context: a free one, else the least recently used. */
static u32 ppf_ctx_take_slot(struct ppf_ctx_table *t)
{
	u32 i, victim = 0;

	if (t->live < t->slots) {
		for (i = 0; i < t->slots; i++)
			if (!t->used[i])
				break;
		t->live++;
		return i;
	}
	for (i = 1; i < t->slots; i++)
		if (t->used[i] < t->used[victim])
			victim = i;
	ppf_ctx_unhash(t, t->id[victim]);
	t->reclaimed++;
	return victim;
}

/* The slot of @id, made live (child and own stamp cleared) if it is not. */
static u32 ppf_ctx_table_slot(struct ppf_ctx_table *t, u32 id, bool *fresh)
{
	u32 slot;

	*fresh = false;
	if (t->last_slot != PPF_CTX_NONE && t->last_id == id)
		return t->last_slot;
	slot = t->bucket[ppf_ctx_probe(t, id)];
	if (slot == PPF_CTX_NONE) {
		slot = ppf_ctx_take_slot(t);
		if (t->last_slot == slot)
			t->last_slot = PPF_CTX_NONE;	/* its context is gone */
		t->id[slot] = id;
		t->child[slot] = PPF_CTX_NONE;
		t->own[slot] = 0;
		t->born[slot] = t->clock;
		t->made++;
		/* Taking the slot may have moved buckets: probe again. */
		t->bucket[ppf_ctx_probe(t, id)] = slot;
		*fresh = true;
	}
	return slot;
}

/**
 * ppf_ctx_table_get() - the slot of a context that has an event, made live
 * @t: the table
 * @id: the context id
 * @fresh: set to true if the slot was just given to @id: its state is
 *	whatever the slot held before (a forgotten context's, or nothing), and
 *	the caller sets it up
 *
 * Counts one event on the table's clock.  May forget the least recently
 * used context to make room.  The caller stamps the event as the
 * context's own (ppf_ctx_table_stamp()) once it has looked at its family.
 *
 * Return: the slot.
 */
u32 ppf_ctx_table_get(struct ppf_ctx_table *t, u32 id, bool *fresh)
{
	u32 slot;

	t->clock++;
	slot = ppf_ctx_table_slot(t, id, fresh);
	t->last_id = id;
	t->last_slot = slot;
	t->used[slot] = t->clock;
	return slot;
}

/**
 * ppf_ctx_table_stamp() - record that a context had an event of its own now
 * @t: the table
 * @slot: the slot ppf_ctx_table_get() gave
 * @parent: the parent id the event named (the context's own id if none)
 * @pslot: the parent's slot, live, or PPF_CTX_NONE
 *
 * Remembers @slot as @pslot's latest child, and the pair, so that the
 * context's next event, if no other comes between, takes the short way
 * (ppf_ctx_table_again()).
 */
void ppf_ctx_table_stamp(struct ppf_ctx_table *t, u32 slot, u32 parent,
			 u32 pslot)
{
	t->own[slot] = t->clock;
	t->last_parent = parent;
	t->last_pslot = pslot;
	if (pslot != PPF_CTX_NONE) {
		t->child[pslot] = slot;
		t->child_id[pslot] = t->id[slot];
	}
}

/**
 * ppf_ctx_table_anchor() - the slot of a context whose child has an event
 * @t: the table
 * @id: the parent's context id
 * @fresh: as for ppf_ctx_table_get()
 *
 * A parent that opens nothing itself (a shell running one program after
 * another) is made live all the same, to tie its children's streams
 * together (ppf_ctx_table_latest()).  Marks it used, not as having had an
 * event.  Call it before ppf_ctx_table_get() for the child, so that making
 * room for the child does not forget its parent.
 *
 * Return: the slot.
 */
u32 ppf_ctx_table_anchor(struct ppf_ctx_table *t, u32 id, bool *fresh)
{
	u32 slot = ppf_ctx_table_slot(t, id, fresh);

	t->used[slot] = t->clock + 1;	/* the child's event is next */
	return slot;
}

/* How far down a family ppf_ctx_table_latest() looks. */
#define PPF_CTX_MAX_GENERATIONS	8

/**
 * ppf_ctx_table_latest() - where a context's family's stream is now
 * @t: the table
 * @slot: the context's slot, live
 * @self: a slot never to return (a new child's own), or @slot
 *
 * The family's most recent stream: the parent, or, if its latest child was
 * started after the parent's last event of its own (the parent has been
 * waiting since, or opens nothing itself), that child or in turn its
 * latest child, a few generations down.  For a parent that runs one child
 * after another (a shell, make -j1), each child continues where the one
 * before it, and the grandchildren that one started, ended; and so does
 * the parent when it opens a file again after waiting for them.  A parent
 * that opens files while its child runs takes the child's place at most
 * once, at its first open after the child started.  (A parent
 * known only from its children has an empty place: one of them is always
 * more recent.)
 *
 * Return: the slot to start from (@slot if no descendant is more recent).
 */
u32 ppf_ctx_table_latest(const struct ppf_ctx_table *t, u32 slot, u32 self)
{
	u32 hops;

	for (hops = 0; hops < PPF_CTX_MAX_GENERATIONS; hops++) {
		u32 c = t->child[slot];

		if (c == PPF_CTX_NONE || c == self || !t->used[c] ||
		    t->id[c] != t->child_id[slot] || t->born[c] < t->own[slot] ||
		    t->own[c] <= t->own[slot])
			break;
		slot = c;
	}
	return slot;
}

#ifdef PPF_MODEL_CHECKS
/**
 * ppf_ctx_table_check() - verify the table's invariants
 * @t: the table
 *
 * Return: NULL if they hold, else what is broken.
 */
const char *ppf_ctx_table_check(const struct ppf_ctx_table *t)
{
	u32 i, live = 0, hashed = 0;

	for (i = 0; i < t->slots; i++) {
		if (!t->used[i])
			continue;
		live++;
		if (t->used[i] > t->clock + 1 || t->own[i] > t->clock)
			return "context used after the table's clock";
		if (t->bucket[ppf_ctx_probe(t, t->id[i])] != i)
			return "live context not found by its id";
		if (t->child[i] != PPF_CTX_NONE && t->child[i] >= t->slots)
			return "latest child out of range";
	}
	for (i = 0; i <= t->mask; i++) {
		if (t->bucket[i] == PPF_CTX_NONE)
			continue;
		hashed++;
		if (t->bucket[i] >= t->slots || !t->used[t->bucket[i]])
			return "hash bucket names a free slot";
	}
	if (live != t->live || hashed != live)
		return "live context count out of step";
	if (t->last_slot != PPF_CTX_NONE &&
	    (t->last_slot >= t->slots || !t->used[t->last_slot] ||
	     t->id[t->last_slot] != t->last_id))
		return "cached last context is stale";
	return NULL;
}
#endif /* PPF_MODEL_CHECKS */
